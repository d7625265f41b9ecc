"""Where ``KnowledgeStore`` / ``AsyncKnowledgeStore`` were protocols; now ``_store.py``.

Kept so ``knowledge/code.py`` (which types its store argument with it) keeps importing.
"""

from langgraph_prax_memory.knowledge._store import AsyncKnowledgeStore, KnowledgeStore

__all__ = ["AsyncKnowledgeStore", "KnowledgeStore"]
