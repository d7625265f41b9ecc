"""Pydantic records of consolidation: what an extractor returns, what a run reports, the state.

What an LLM extractor must return (:class:`Extraction` and its items, with their confidence
defaults) lives beside its prompt in :mod:`langgraph_prax_memory.prompts.extraction`; the
names are re-exported here.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from langgraph_prax_memory.errors import PraxMemoryError
from langgraph_prax_memory.prompts.extraction import (
    DEFAULT_CONFIDENCE,
    UNSTATED_CONFIDENCE,
    CandidateMemory,
    ExtractedCausalLink,
    ExtractedEntity,
    ExtractedEvent,
    ExtractedFact,
    ExtractedRelation,
    Extraction,
)

__all__ = [
    "DEFAULT_CONFIDENCE",
    "UNSTATED_CONFIDENCE",
    "Batch",
    "BatchFailure",
    "CandidateMemory",
    "ConsolidationResult",
    "ConsolidationState",
    "Extraction",
    "ExtractedCausalLink",
    "ExtractedEntity",
    "ExtractedEvent",
    "ExtractedFact",
    "ExtractedRelation",
    "ExtractionError",
    "ExtractionTimeout",
    "InFlight",
    "SourceState",
    "TraceItem",
    "TruncatedAnswerError",
]


class ExtractionError(PraxMemoryError):
    """An extractor could not turn a batch into an :class:`Extraction` (e.g. unparseable JSON).

    ``cut`` counts the model answers of the attempt that were cut off before their end.
    """

    cut: int = 0


class ExtractionTimeout(ExtractionError):
    """The extraction model gave no answer within the extractor's timeout.

    The batch stays in the backlog (the pointer stays before it) and is tried again by the
    next run.
    """


class TruncatedAnswerError(ExtractionError):
    """The model's answer was cut off before its end and the re-ask did not complete it.

    The batch stays in the backlog: its complete items are not written either, as the cut
    item (a fact, a relation ...) would be lost with the pointer moving past it.
    """


class TraceItem(BaseModel):
    """One raw item of a trace: a line of ``trace.log`` or one message of a thread.

    A blank ``text`` is a separator (or an item of an excluded role): it takes a position, so
    the pointer stays an index into the raw items, but it is never sent to the extractor.
    """

    model_config = ConfigDict(frozen=True)

    text: str
    timestamp: datetime | None = None
    id: str | None = None

    @property
    def blank(self) -> bool:
        """Whether the item carries no content."""
        return not self.text.strip()


class Batch(BaseModel):
    """Up to ``budget`` characters of consecutive non-blank items of one source.

    ``start``/``end`` are raw item positions (blank separators included); ``end`` is one past
    the last item handed to the extractor, i.e. the pointer after this batch is committed.
    """

    source_key: str
    start: int
    end: int
    texts: list[str]
    times: list[datetime | None]
    last_item_id: str | None = None
    last_item_hash: str | None = None
    fingerprint: str | None = None
    lines: int = Field(description="non-blank items in the batch")
    bytes_seen: int = Field(description="UTF-8 bytes handed to the extractor")
    bytes_skipped: int = Field(default=0, description="tail of an over-long item that was cut off")
    pending_lines_after: int = 0
    pending_bytes_after: int = 0

    @property
    def text(self) -> str:
        """The text the extractor sees (items joined by newlines)."""
        return "\n".join(self.texts)

    @property
    def latest_time(self) -> datetime | None:
        """The newest known item time in the batch."""
        known = [t for t in self.times if t is not None]
        return max(known) if known else None


class InFlight(BaseModel):
    """A batch whose graph upsert landed but whose pointer was not committed yet."""

    start: int
    end: int
    stage: str = "graph"


class SourceState(BaseModel):
    """Progress through one trace source (``trace.log`` or one conversation thread)."""

    model_config = ConfigDict(extra="ignore")

    kind: str = "unknown"
    ref: dict[str, str] = Field(default_factory=dict)
    pointer: int = 0
    fingerprint: str | None = None
    last_item_id: str | None = None
    last_item_hash: str | None = None
    pending_lines: int = 0
    pending_bytes: int = 0
    rotation_resets: int = 0
    last_rotation_reset_at: datetime | None = None
    last_rotation_dropped_lines: int | None = None
    failed_attempts: int = 0
    last_error: str | None = None
    inflight: InFlight | None = None
    last_run_at: datetime | None = None


class GraphRetry(BaseModel):
    """Graph writes of one batch that did not land (the graph was down), kept for a retry.

    Only the items whose write failed are kept (an entity, a relation, the closing of a
    superseded edge, an event, a causal link), so a retry never applies a write twice.
    """

    extraction: Extraction
    when: datetime
    attempts: int = 0


class ConsolidationState(BaseModel):
    """The per-user ``{workspace}/memory/consolidation_state.json``."""

    model_config = ConfigDict(extra="ignore")

    version: int = 1
    sources: dict[str, SourceState] = Field(default_factory=dict)
    trace_pending_lines: int = 0
    trace_pending_bytes: int = 0
    last_run_at: datetime | None = None
    last_run_day: date | None = None
    last_decay_run: datetime | None = None
    last_summary_day: date | None = None
    last_summary_week: str | None = None
    retry_memories: list[dict[str, Any]] = Field(default_factory=list)
    retry_graph: list[GraphRetry] = Field(default_factory=list)

    def totals(self) -> None:
        """Recompute ``trace_pending_lines`` / ``trace_pending_bytes`` from the sources."""
        self.trace_pending_lines = sum(s.pending_lines for s in self.sources.values())
        self.trace_pending_bytes = sum(s.pending_bytes for s in self.sources.values())


class BatchFailure(BaseModel):
    """A batch whose extraction failed: it stays in the backlog (the pointer is before it).

    ``attempts`` counts the runs that tried it (the model is re-asked once within each run);
    ``reason`` is the last error. From ``max_batch_attempts`` on it is logged at ERROR on
    every run, but never dropped.
    """

    source_key: str
    start: int
    end: int
    lines: int
    attempts: int
    reason: str


class ConsolidationResult(BaseModel):
    """What one consolidation run did.

    Backlog: ``pending_lines`` / ``pending_bytes`` are the non-blank items (and their UTF-8
    bytes) still waiting after this run, summed over the run's sources; ``capped`` says the
    run stopped at ``max_batches``. ``memories_failed`` counts facts whose vector write did not
    land (they are queued in the state and retried by the next run), never ``memories_created``.
    Graph writes that fail because the graph is down are queued the same way:
    ``graph_queued`` counts the items queued by this run, ``graph_retried`` the queued items
    that landed in this run, ``graph_pending`` those still waiting after it.
    """

    user_id: str
    started_at: datetime
    finished_at: datetime | None = None
    skipped: str | None = Field(default=None, description="why nothing ran ('busy'), else None")
    sources: list[str] = Field(default_factory=list)
    batches: int = 0
    batches_failed: int = 0
    batches_stuck: int = 0
    extractor_calls: int = 0
    items_seen: int = 0
    bytes_seen: int = 0
    bytes_skipped: int = 0
    pending_lines: int = 0
    pending_bytes: int = 0
    capped: bool = False
    rotation_resets: int = 0
    rotation_dropped_lines: int = 0
    entities_upserted: int = 0
    relations_upserted: int = 0
    relations_superseded: int = 0
    events_upserted: int = 0
    causal_links_upserted: int = 0
    graph_errors: int = 0
    graph_queued: int = 0
    graph_retried: int = 0
    graph_pending: int = 0
    items_invalid: int = 0
    items_rejected: int = Field(
        default=0,
        description="extracted items that did not validate (each logged and kept for review)",
    )
    answers_cut: int = Field(
        default=0,
        description="model answers cut off before their end (each re-asked; the batch "
        "stays in the backlog unless the re-ask completed it)",
    )
    replaces_ignored: int = Field(
        default=0,
        description="ids in facts' `replaces` that name no memory shown to the model "
        "(invented, another user's, malformed): ignored and logged",
    )
    memories_created: int = 0
    small_talk_dropped: int = 0
    """Extracted facts not stored because they are small talk (their class, docs/context.md)."""
    memories_deduplicated: int = 0
    memories_failed: int = 0
    memories_retried: int = 0
    pending_review: int = 0
    decay_ran: bool = False
    memories_decayed: int = 0
    entities_decayed: int = 0
    relations_decayed: int = 0
    daily_summary: str | None = None
    daily_summary_days: list[date] = Field(default_factory=list)
    weekly_summary_weeks: list[str] = Field(default_factory=list)
    global_summary: bool = False
    graph_unchanged: int = 0
    relations_historical: int = 0
    memories_merged: int = 0
    memories_superseded: int = 0
    failures: list[BatchFailure] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
