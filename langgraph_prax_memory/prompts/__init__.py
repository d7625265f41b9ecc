"""Every prompt the package sends to a language model, one module per task.

Each module holds its task's prompt text and, beside it, the pydantic model the model must
return (graphiti's ``prompts/`` layout); the code that calls the model imports both from here.

- :mod:`.extraction`: consolidation's extraction (``consolidation.LLMExtractor``), and its
  re-ask; the model returns an :class:`Extraction`.
- :mod:`.knowledge_extraction`: a document chunk's concepts (``knowledge.LLMConceptExtractor``);
  a :class:`ConceptExtraction`.
- :mod:`.expansion`: query expansion, a precision pass of recall; :class:`QueryVariants`.
- :mod:`.rerank`: LLM rerank, a precision pass of recall; a :class:`RerankJudgement`.
- :mod:`.summary`: the daily, weekly and global summaries of consolidation, and their re-ask;
  plain text.
- :mod:`.compaction`: scratchpad compaction (``stm``); plain text.
- :mod:`.memory_agent`: the agents' system prompts (``agents``); an agent's turn.

The prompt texts are module attributes (``extraction.EXTRACTION_PROMPT``), not part of
``__all__``: they are data, and the builders below are what the callers use. Where a caller
takes a prompt (``LLMExtractor(prompt=...)``, ``create_memory_agent(prompt=...)``,
``create_agent_with_memory(system_prompt=...)``), passing your own replaces the default.

Nothing here calls a model or a store: ``prompts`` imports only pydantic, langchain-core's
message classes and the package's shared helpers.

Example:
    >>> from langgraph_prax_memory.prompts import expansion_messages
    >>> [m.type for m in expansion_messages("which editor does Alice use?", 3)]
    ['system', 'human']
"""

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from langgraph_prax_memory.prompts.compaction import compaction_messages
    from langgraph_prax_memory.prompts.expansion import QueryVariants, expansion_messages
    from langgraph_prax_memory.prompts.extraction import (
        Extraction,
        extraction_messages,
        reask_message,
    )
    from langgraph_prax_memory.prompts.knowledge_extraction import (
        ConceptExtraction,
        concept_extraction_messages,
    )
    from langgraph_prax_memory.prompts.rerank import RerankJudgement, rerank_messages
    from langgraph_prax_memory.prompts.summary import (
        daily_summary_prompt,
        global_summary_prompt,
        summary_reask_prompt,
        weekly_summary_prompt,
    )

#: Where each name lives: imported on first use (PEP 562), so a caller that needs one prompt
#: (recall's expansion) does not build every task's answer models.
_LAZY: dict[str, str] = {
    "compaction_messages": "compaction",
    "QueryVariants": "expansion",
    "expansion_messages": "expansion",
    "Extraction": "extraction",
    "extraction_messages": "extraction",
    "reask_message": "extraction",
    "ConceptExtraction": "knowledge_extraction",
    "concept_extraction_messages": "knowledge_extraction",
    "RerankJudgement": "rerank",
    "rerank_messages": "rerank",
    "daily_summary_prompt": "summary",
    "global_summary_prompt": "summary",
    "summary_reask_prompt": "summary",
    "weekly_summary_prompt": "summary",
}


def __getattr__(name: str) -> _typing.Any:
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = [
    "ConceptExtraction",
    "Extraction",
    "QueryVariants",
    "RerankJudgement",
    "compaction_messages",
    "concept_extraction_messages",
    "daily_summary_prompt",
    "expansion_messages",
    "extraction_messages",
    "global_summary_prompt",
    "reask_message",
    "rerank_messages",
    "summary_reask_prompt",
    "weekly_summary_prompt",
]
