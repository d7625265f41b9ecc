"""Consolidation: turn conversation traces into durable memory.

A LangGraph subgraph (``load → extract → gate → graph_upsert → vector_upsert → commit`` per
batch ``→ decay → daily_summary → finish``) that reads the unconsolidated part of a trace
(a thread's checkpoints by default, or a ``trace.log``), extracts entities, relations, facts,
events and causal links (with a chat model, or by rules when there is none), sends
low-confidence items to the STM review queue, writes the rest to the graph and the vector
store, runs the forgetting pass at most once per 24 h, and writes daily summaries. Progress is
saved atomically after every batch in ``{workspace}/memory/consolidation_state.json``.

Triggers: :class:`ConsolidatingCheckpointer` (every N completed turns per user, in the
background), the :func:`consolidate_if_due` node, and :meth:`Consolidator.run` (manual).
See ``docs/consolidation.md``.

Example:
    >>> from langgraph_prax_memory.consolidation import Consolidator, TraceLogSource
    >>> consolidator = Consolidator(memory)                              # doctest: +SKIP
    >>> consolidator.run("alice", TraceLogSource("trace.log")).memories_created  # doctest: +SKIP
    3
"""

from langgraph_prax_memory.consolidation._batching import (
    EXTRACTION_CHAR_BUDGET as EXTRACTION_CHAR_BUDGET,
)
from langgraph_prax_memory.consolidation._batching import (
    MAX_BATCHES_PER_RUN as MAX_BATCHES_PER_RUN,
)
from langgraph_prax_memory.consolidation._batching import (
    BatchPlan,
    plan_batches,
)
from langgraph_prax_memory.consolidation._llm import (
    EXTRACTION_PROMPT as EXTRACTION_PROMPT,
)
from langgraph_prax_memory.consolidation._llm import (
    Extractor,
    LLMExtractor,
    parse_extraction,
)
from langgraph_prax_memory.consolidation._models import (
    DEFAULT_CONFIDENCE as DEFAULT_CONFIDENCE,
)
from langgraph_prax_memory.consolidation._models import (
    UNSTATED_CONFIDENCE as UNSTATED_CONFIDENCE,
)
from langgraph_prax_memory.consolidation._models import (
    Batch,
    BatchFailure,
    CandidateMemory,
    ConsolidationResult,
    ConsolidationState,
    ExtractedCausalLink,
    ExtractedEntity,
    ExtractedEvent,
    ExtractedFact,
    ExtractedRelation,
    Extraction,
    ExtractionError,
    ExtractionTimeout,
    SourceState,
    TraceItem,
    TruncatedAnswerError,
)
from langgraph_prax_memory.consolidation._pipeline import (
    CONFIDENCE_THRESHOLD as CONFIDENCE_THRESHOLD,
)
from langgraph_prax_memory.consolidation._pipeline import (
    DECAY_MIN_INTERVAL as DECAY_MIN_INTERVAL,
)
from langgraph_prax_memory.consolidation._pipeline import (
    NEAR_DUPLICATE_COSINE as NEAR_DUPLICATE_COSINE,
)
from langgraph_prax_memory.consolidation._pipeline import (
    ConsolidationInput,
    ConsolidationOutput,
    Consolidator,
    build_consolidation_graph,
)
from langgraph_prax_memory.consolidation._rules import KNOWN_VOCABULARY as KNOWN_VOCABULARY
from langgraph_prax_memory.consolidation._rules import RuleBasedExtractor
from langgraph_prax_memory.consolidation._sources import (
    CheckpointTraceSource,
    MessagesTraceSource,
    TraceLogSource,
    TraceSource,
    message_to_item,
    thread_key,
)
from langgraph_prax_memory.consolidation._state import LOCK_FILENAME as LOCK_FILENAME
from langgraph_prax_memory.consolidation._state import STATE_FILENAME as STATE_FILENAME
from langgraph_prax_memory.consolidation._state import StateFile
from langgraph_prax_memory.consolidation._state import UserRunLock as UserRunLock
from langgraph_prax_memory.consolidation._state import user_run_lock as user_run_lock
from langgraph_prax_memory.consolidation._state import (
    workspace_memory_dir as workspace_memory_dir,
)
from langgraph_prax_memory.consolidation._summary import rule_based_summary
from langgraph_prax_memory.consolidation._triggers import (
    DEFAULT_EVERY_N_TURNS as DEFAULT_EVERY_N_TURNS,
)
from langgraph_prax_memory.consolidation._triggers import (
    ConsolidatingCheckpointer,
    consolidate_if_due,
    is_turn_end,
)

__all__ = [
    "Batch",
    "BatchFailure",
    "BatchPlan",
    "CandidateMemory",
    "CheckpointTraceSource",
    "ConsolidatingCheckpointer",
    "ConsolidationInput",
    "ConsolidationOutput",
    "ConsolidationResult",
    "ConsolidationState",
    "Consolidator",
    "ExtractedCausalLink",
    "ExtractedEntity",
    "ExtractedEvent",
    "ExtractedFact",
    "ExtractedRelation",
    "Extraction",
    "ExtractionError",
    "ExtractionTimeout",
    "Extractor",
    "LLMExtractor",
    "MessagesTraceSource",
    "RuleBasedExtractor",
    "SourceState",
    "StateFile",
    "TraceItem",
    "TraceLogSource",
    "TraceSource",
    "TruncatedAnswerError",
    "build_consolidation_graph",
    "consolidate_if_due",
    "is_turn_end",
    "message_to_item",
    "parse_extraction",
    "plan_batches",
    "rule_based_summary",
    "thread_key",
]

# used by the other packages of langgraph_prax_memory (not re-exported at the root)
from langgraph_prax_memory.consolidation._rules import is_junk

__all__ += ["is_junk"]
