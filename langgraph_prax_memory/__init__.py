"""langgraph-prax-memory: layered long-term memory for LangGraph and LangChain agents.

Every public name is imported on first use (PEP 562), so ``import langgraph_prax_memory``
and ``prax-memory --help`` stay light: Qdrant, LangChain, LangGraph and the Neo4j driver load
only when a name that needs them is touched.

Example:
    >>> from langgraph_prax_memory import PraxMemory
    >>> memory = PraxMemory()  # offline: embedded Qdrant + the packaged MiniLM model
"""

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from langgraph_prax_memory.agents import (
        MEMORY_AGENT_PROMPT,
        ModelRoute,
        ModelRouting,
        create_agent_with_memory,
        create_delegate_memory_tool,
        create_memory_agent,
    )
    from langgraph_prax_memory.config import (
        MemoryConfig,
        RetrievalConfig,
    )
    from langgraph_prax_memory.consolidation import (
        ConsolidatingCheckpointer,
        ConsolidationResult,
        Consolidator,
        LLMExtractor,
        RuleBasedExtractor,
        build_consolidation_graph,
        consolidate_if_due,
    )
    from langgraph_prax_memory.context import (
        build_memory_context,
        memory_context_node,
        memory_pre_model_hook,
    )
    from langgraph_prax_memory.errors import (
        BackendUnavailable,
        CircuitOpenError,
        ConfigError,
        DeletionIncomplete,
        EmbeddingError,
        MemoryValidationError,
        MemoryWriteError,
        PraxMemoryError,
        StoreLockedError,
    )
    from langgraph_prax_memory.graph import (
        AsyncGraphStore,
        GraphStore,
        create_async_graph_store,
        create_graph_store,
    )
    from langgraph_prax_memory.knowledge import (
        AsyncKnowledgeBase,
        ConceptHit,
        IngestResult,
        KnowledgeBase,
        KnowledgeConcept,
        KnowledgeNotFound,
    )
    from langgraph_prax_memory.memory import (
        AsyncPraxMemory,
        PraxMemory,
    )
    from langgraph_prax_memory.middleware import (
        PraxMemoryMiddleware,
    )
    from langgraph_prax_memory.models import (
        Memory,
        MemoryHit,
    )
    from langgraph_prax_memory.notes import (
        UserNotes,
    )
    from langgraph_prax_memory.retrieval import (
        RecallResult,
    )
    from langgraph_prax_memory.retriever import (
        PraxMemoryRetriever,
    )
    from langgraph_prax_memory.stm import (
        ScratchpadStore,
    )
    from langgraph_prax_memory.store import (
        PraxMemoryStore,
    )
    from langgraph_prax_memory.tools import (
        TOOL_NAMES,
        MemoryTool,
        MissingUserIdError,
        create_memory_tool_node,
        create_memory_tools,
    )
    from langgraph_prax_memory.vectorstore import (
        PraxMemoryVectorStore,
    )

from langgraph_prax_memory._version import __version__

#: Where each public name lives (imported on first access).
_LAZY: dict[str, str] = {
    "MEMORY_AGENT_PROMPT": "langgraph_prax_memory.agents",
    "ModelRoute": "langgraph_prax_memory.agents",
    "ModelRouting": "langgraph_prax_memory.agents",
    "create_agent_with_memory": "langgraph_prax_memory.agents",
    "create_delegate_memory_tool": "langgraph_prax_memory.agents",
    "create_memory_agent": "langgraph_prax_memory.agents",
    "MemoryConfig": "langgraph_prax_memory.config",
    "RetrievalConfig": "langgraph_prax_memory.config",
    "ConsolidatingCheckpointer": "langgraph_prax_memory.consolidation",
    "ConsolidationResult": "langgraph_prax_memory.consolidation",
    "Consolidator": "langgraph_prax_memory.consolidation",
    "LLMExtractor": "langgraph_prax_memory.consolidation",
    "RuleBasedExtractor": "langgraph_prax_memory.consolidation",
    "build_consolidation_graph": "langgraph_prax_memory.consolidation",
    "consolidate_if_due": "langgraph_prax_memory.consolidation",
    "build_memory_context": "langgraph_prax_memory.context",
    "memory_context_node": "langgraph_prax_memory.context",
    "memory_pre_model_hook": "langgraph_prax_memory.context",
    "BackendUnavailable": "langgraph_prax_memory.errors",
    "CircuitOpenError": "langgraph_prax_memory.errors",
    "ConfigError": "langgraph_prax_memory.errors",
    "DeletionIncomplete": "langgraph_prax_memory.errors",
    "EmbeddingError": "langgraph_prax_memory.errors",
    "MemoryValidationError": "langgraph_prax_memory.errors",
    "MemoryWriteError": "langgraph_prax_memory.errors",
    "PraxMemoryError": "langgraph_prax_memory.errors",
    "StoreLockedError": "langgraph_prax_memory.errors",
    "AsyncGraphStore": "langgraph_prax_memory.graph",
    "GraphStore": "langgraph_prax_memory.graph",
    "create_async_graph_store": "langgraph_prax_memory.graph",
    "create_graph_store": "langgraph_prax_memory.graph",
    "AsyncKnowledgeBase": "langgraph_prax_memory.knowledge",
    "ConceptHit": "langgraph_prax_memory.knowledge",
    "IngestResult": "langgraph_prax_memory.knowledge",
    "KnowledgeBase": "langgraph_prax_memory.knowledge",
    "KnowledgeConcept": "langgraph_prax_memory.knowledge",
    "KnowledgeNotFound": "langgraph_prax_memory.knowledge",
    "AsyncPraxMemory": "langgraph_prax_memory.memory",
    "PraxMemory": "langgraph_prax_memory.memory",
    "PraxMemoryMiddleware": "langgraph_prax_memory.middleware",
    "Memory": "langgraph_prax_memory.models",
    "MemoryHit": "langgraph_prax_memory.models",
    "UserNotes": "langgraph_prax_memory.notes",
    "RecallResult": "langgraph_prax_memory.retrieval",
    "PraxMemoryRetriever": "langgraph_prax_memory.retriever",
    "ScratchpadStore": "langgraph_prax_memory.stm",
    "PraxMemoryStore": "langgraph_prax_memory.store",
    "PraxMemoryVectorStore": "langgraph_prax_memory.vectorstore",
    "TOOL_NAMES": "langgraph_prax_memory.tools",
    "MemoryTool": "langgraph_prax_memory.tools",
    "MissingUserIdError": "langgraph_prax_memory.tools",
    "create_memory_tool_node": "langgraph_prax_memory.tools",
    "create_memory_tools": "langgraph_prax_memory.tools",
}

__all__ = [
    "AsyncGraphStore",
    "AsyncKnowledgeBase",
    "AsyncPraxMemory",
    "BackendUnavailable",
    "CircuitOpenError",
    "ConceptHit",
    "ConfigError",
    "ConsolidatingCheckpointer",
    "ConsolidationResult",
    "Consolidator",
    "DeletionIncomplete",
    "EmbeddingError",
    "GraphStore",
    "IngestResult",
    "KnowledgeBase",
    "KnowledgeConcept",
    "KnowledgeNotFound",
    "LLMExtractor",
    "MEMORY_AGENT_PROMPT",
    "Memory",
    "MemoryConfig",
    "MemoryHit",
    "MemoryTool",
    "MemoryValidationError",
    "MemoryWriteError",
    "MissingUserIdError",
    "ModelRoute",
    "ModelRouting",
    "PraxMemory",
    "PraxMemoryError",
    "PraxMemoryMiddleware",
    "PraxMemoryRetriever",
    "PraxMemoryStore",
    "PraxMemoryVectorStore",
    "RecallResult",
    "RetrievalConfig",
    "RuleBasedExtractor",
    "ScratchpadStore",
    "StoreLockedError",
    "TOOL_NAMES",
    "UserNotes",
    "build_consolidation_graph",
    "build_memory_context",
    "consolidate_if_due",
    "create_agent_with_memory",
    "create_async_graph_store",
    "create_delegate_memory_tool",
    "create_graph_store",
    "create_memory_agent",
    "create_memory_tool_node",
    "create_memory_tools",
    "memory_context_node",
    "memory_pre_model_hook",
    "__version__",
]


def __getattr__(name: str) -> _typing.Any:
    """Import a public name on first use and keep it (``AttributeError`` for others)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
