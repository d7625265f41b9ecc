"""Pydantic records of consolidation: what an extractor returns, what a run reports, the state.

The extraction records follow the seed's shapes (entities, relations, facts, temporal events,
causal links, each with a confidence) and are deliberately tolerant: a local model that returns
``"importance": "0.8"`` or ``1.3`` is coerced and clamped rather than losing the batch.
"""

from __future__ import annotations

import math
from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from langgraph_prax_memory._validation import to_utc
from langgraph_prax_memory.errors import MemoryValidationError, PraxMemoryError

__all__ = [
    "DEFAULT_CONFIDENCE",
    "UNSTATED_CONFIDENCE",
    "Batch",
    "BatchFailure",
    "ConsolidationResult",
    "ConsolidationState",
    "Extraction",
    "ExtractedCausalLink",
    "ExtractedEntity",
    "ExtractedEvent",
    "ExtractedFact",
    "ExtractedRelation",
    "ExtractionError",
    "InFlight",
    "SourceState",
    "TraceItem",
]

#: Confidence of an item built in Python without one (the rule-based extractor always states
#: one; this default is for programmatic construction only).
DEFAULT_CONFIDENCE = 0.7
#: Confidence given to an item whose model answer states none, or one that is not a number
#: (``"low"``, ``"high"``): below every gate, so it goes to pending review, never to memory.
UNSTATED_CONFIDENCE = 0.0


class ExtractionError(PraxMemoryError):
    """An extractor could not turn a batch into an :class:`Extraction` (e.g. unparseable JSON)."""


def _unit(value: Any, default: float) -> float:
    """Coerce a model-provided 0-1 score: strings and out-of-range numbers are tolerated."""
    if value is None or isinstance(value, bool):
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    if not math.isfinite(number):
        return default
    if number > 1.0 and number <= 10.0:  # a 1-10 scale slipped through
        number /= 10.0
    return min(1.0, max(0.0, number))


def _opt_time(value: Any) -> datetime | None:
    if value is None or value == "":
        return None
    try:
        return to_utc(value)
    except MemoryValidationError:
        return None


class _Item(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    confidence: float = Field(
        default=DEFAULT_CONFIDENCE, description="0-1: how sure the extractor is"
    )

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: Any) -> float:
        if isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                return UNSTATED_CONFIDENCE  # "low" / "high" is not a number: review it
        return _unit(value, UNSTATED_CONFIDENCE)


class ExtractedEntity(_Item):
    """A person, project, tool, topic ... mentioned in the batch."""

    name: str = Field(min_length=1, description="the entity's name as written")
    type: str = Field(
        default="concept", description="person|topic|project|tool|url|concept|organization"
    )
    display_name: str | None = None
    importance: float = Field(
        default=0.3, description="0.8-1 critical, 0.4-0.7 useful, 0.1-0.3 minor"
    )
    spans: SkipJsonSchema[list[str]] = Field(
        default_factory=list,
        description="hashes of the trace lines that mention it (set by the pipeline): a "
        "replayed line does not count as a new mention",
    )
    properties: SkipJsonSchema[dict[str, Any]] = Field(
        default_factory=dict,
        description="merged into the graph entity's properties (the alias resolver of "
        "_resolve.py records the other names it was mentioned by: 'aliases')",
    )

    @field_validator("importance", mode="before")
    @classmethod
    def _importance(cls, value: Any) -> float:
        return _unit(value, 0.3)

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, value: Any) -> str:
        return str(value or "concept").strip().lower() or "concept"


class ExtractedRelation(_Item):
    """A typed edge ``source -[type]-> target``.

    ``supersedes`` names the *old target* of the same ``source -[type]->`` edge that this one
    replaces ("now prefers light mode" supersedes "dark mode"). When it equals ``target`` the
    edge is only closed ("no longer likes jazz").
    """

    source: str = Field(min_length=1)
    type: str = Field(
        default="related_to", description="works_on|interested_in|prefers|related_to|..."
    )
    target: str = Field(min_length=1)
    weight: float = 1.0
    evidence: str | None = None
    valid_from: datetime | None = None
    supersedes: str | None = None

    @field_validator("weight", mode="before")
    @classmethod
    def _weight(cls, value: Any) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            return 1.0
        return number if math.isfinite(number) and number > 0 else 1.0

    @field_validator("valid_from", mode="before")
    @classmethod
    def _valid_from(cls, value: Any) -> datetime | None:
        return _opt_time(value)

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, value: Any) -> str:
        return str(value or "related_to").strip().lower().replace(" ", "_") or "related_to"

    @field_validator("supersedes", "evidence", mode="before")
    @classmethod
    def _opt_text(cls, value: Any) -> str | None:
        if value is None or isinstance(value, bool):
            return None
        text = str(value).strip()
        return text or None


class ExtractedFact(_Item):
    """A durable statement worth remembering (becomes a long-term memory)."""

    content: str = Field(min_length=1)
    importance: float = Field(
        default=0.5, description="0.8-1 critical, 0.4-0.7 useful, 0.1-0.3 minor"
    )
    entities: list[str] = Field(default_factory=list, description="entity names it mentions")
    tags: list[str] = Field(default_factory=list)
    source_index: int | None = Field(
        None, description="index of the batch item the fact came from (for its timestamp)"
    )

    @field_validator("importance", mode="before")
    @classmethod
    def _importance(cls, value: Any) -> float:
        return _unit(value, 0.5)

    @field_validator("entities", "tags", mode="before")
    @classmethod
    def _names(cls, value: Any) -> list[str]:
        if value is None:
            return []
        if isinstance(value, str):
            value = [value]
        return [str(v).strip() for v in value if str(v).strip()]


class ExtractedEvent(_Item):
    """Something that happened at a moment, and who took part."""

    description: str = Field(min_length=1)
    occurred_at: datetime | None = None
    importance: float = 0.5
    participants: list[str] = Field(default_factory=list)

    @field_validator("occurred_at", mode="before")
    @classmethod
    def _occurred(cls, value: Any) -> datetime | None:
        return _opt_time(value)

    @field_validator("importance", mode="before")
    @classmethod
    def _importance(cls, value: Any) -> float:
        return _unit(value, 0.5)

    @field_validator("participants", mode="before")
    @classmethod
    def _names(cls, value: Any) -> list[str]:
        return ExtractedFact._names(value)


class ExtractedCausalLink(_Item):
    """``cause`` led to ``effect``; the entities on each side are linked to the link node."""

    cause: str = Field(min_length=1)
    effect: str = Field(min_length=1)
    cause_entities: list[str] = Field(default_factory=list)
    effect_entities: list[str] = Field(default_factory=list)
    importance: float = 0.5

    @field_validator("importance", mode="before")
    @classmethod
    def _importance(cls, value: Any) -> float:
        return _unit(value, 0.5)

    @field_validator("cause_entities", "effect_entities", mode="before")
    @classmethod
    def _names(cls, value: Any) -> list[str]:
        return ExtractedFact._names(value)


class Extraction(BaseModel):
    """Everything an extractor found in one batch.

    Example:
        >>> Extraction(facts=[{"content": "Alice prefers dark mode", "importance": 0.8}]).size
        1
    """

    model_config = ConfigDict(extra="ignore")

    entities: list[ExtractedEntity] = Field(default_factory=list)
    relations: list[ExtractedRelation] = Field(default_factory=list)
    facts: list[ExtractedFact] = Field(default_factory=list)
    temporal_events: list[ExtractedEvent] = Field(default_factory=list)
    causal_links: list[ExtractedCausalLink] = Field(default_factory=list)
    rejected: SkipJsonSchema[list[str]] = Field(
        default_factory=list,
        description="items of the model's answer that did not validate even after a re-ask "
        "(their raw JSON): they go to pending review instead of being lost",
    )

    @property
    def size(self) -> int:
        """Number of extracted items of every kind."""
        return (
            len(self.entities)
            + len(self.relations)
            + len(self.facts)
            + len(self.temporal_events)
            + len(self.causal_links)
        )


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
    memories_created: int = 0
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
