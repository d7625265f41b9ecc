"""What the stages of the consolidation pipeline share: settings, state types, addressing.

The pipeline is split by stage: :mod:`._load` (sources, reconciliation, the retry queues),
:mod:`._extract` (the extractor's call, its failures, the confidence gate), :mod:`._write`
(graph and memory writes, near-duplicates) on :mod:`._supersede` (what an extraction
supersedes, and retiring the memories that stated it), :mod:`._maintain` (decay and the
summary hierarchy) and :mod:`._pipeline` (the :class:`Consolidator`, commit, and the
LangGraph wiring).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any, TypedDict

from langgraph_prax_memory._parts import MemoryParts
from langgraph_prax_memory.consolidation._llm import Extractor
from langgraph_prax_memory.consolidation._models import (
    Batch,
    CandidateMemory,
    ConsolidationResult,
    Extraction,
    TraceItem,
)
from langgraph_prax_memory.consolidation._state import StateFile, UserRunLock
from langgraph_prax_memory.consolidation._supersession import (
    mentions,
)

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


#: One logger for the whole pipeline, whichever stage module logs.
logger = logging.getLogger("langgraph_prax_memory.consolidation._pipeline")

#: Items at or above this confidence go to long-term memory; below, to STM pending review.
CONFIDENCE_THRESHOLD = 0.6
#: Minimum time between two decay/prune passes (the seed's ``DECAY_MIN_INTERVAL``).
DECAY_MIN_INTERVAL = timedelta(hours=24)
#: ``config["configurable"]`` key through which :meth:`Consolidator.run` hands sources over.
SOURCES_CONFIG_KEY = "prax_consolidation_sources"
#: Failures of the same batch from which on it is reported as stuck (ERROR, ``batches_stuck``);
#: it stays in the backlog (never dropped) and is tried again on every run.
MAX_BATCH_ATTEMPTS = 3
#: Days summarised at most per run (the most recent ones).
MAX_SUMMARY_DAYS = 7
#: Weeks summarised at most per run (the most recent ones).
MAX_SUMMARY_WEEKS = 8
#: Facts kept for a retry after a failed vector write.
MAX_RETRY_MEMORIES = 1000
#: Graph writes (extracted items) kept for a retry while the graph is down.
MAX_RETRY_GRAPH_ITEMS = 20_000
#: Dense cosine (the packaged MiniLM model) at or above which a new fact about the same
#: entities is a paraphrase of a current memory and merges into it instead of being stored
#: again (paraphrases measure 0.95-0.97; "prefers light mode" vs "prefers dark mode" 0.88).
NEAR_DUPLICATE_COSINE = 0.92
#: Entity property listing the trace lines (hashes) already counted as mentions.
SPANS_PROPERTY = "evidence_spans"
#: Most line hashes kept per entity (the oldest go first).
MAX_SPANS = 500
#: Statements kept on a memory that near-duplicates merged into.
MAX_MERGED_EVIDENCE = 20
_NODES_PER_BATCH = 6
_WORD = re.compile(r"[a-z0-9]+")
_SKIPPED = object()  # a graph write that was already applied (replayed evidence)
_HISTORICAL = object()  # evidence older than the supersession of its edge


class ConsolidationInput(TypedDict, total=False):
    """Input of the consolidation graph (every key optional)."""

    user_id: str
    messages: list[Any]
    thread_id: str
    trace_path: str
    now: datetime | str | None
    wait: bool | float


class ConsolidationOutput(TypedDict):
    """Output of the consolidation graph."""

    consolidation: ConsolidationResult


@dataclasses.dataclass
class _Written:
    """What one memory write did."""

    created: int = 0
    deduplicated: int = 0
    merged: int = 0
    ids: list[str] = dataclasses.field(default_factory=list)
    #: every memory the items landed on: new, the same content stored before, merged into
    landed: list[str] = dataclasses.field(default_factory=list)


class _State(ConsolidationInput, total=False):
    lock_token: str | None
    run_now: datetime
    plan: list[Batch]
    index: int
    extraction: Extraction | None
    accepted: Extraction | None
    blocked: list[str]
    candidates: list[CandidateMemory]  # the current memories shown with the batch
    judged: list[str]  # ids of those the model judged (it answered `replaces`)
    result: ConsolidationResult
    consolidation: ConsolidationResult


def _item_hash(item: TraceItem) -> str:
    return hashlib.sha256(f"{item.id or ''}\x00{item.text}".encode()).hexdigest()[:32]


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _norm(text: str) -> str:
    """One-line evidence: whitespace collapsed, ``;`` (the graph's separator) replaced."""
    return " ".join(text.replace(";", ",").split())


def _span(text: str, when: datetime | None = None) -> str:
    stamp = when.isoformat() if when is not None else ""
    return hashlib.sha256(f"{_norm(text).lower()}\x00{stamp}".encode()).hexdigest()[:20]


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    num = sum(x * y for x, y in zip(a, b, strict=False))
    den = (sum(x * x for x in a) ** 0.5) * (sum(y * y for y in b) ** 0.5)
    return num / den if den else 0.0


_NUMBER = re.compile(r"\d[\d.,:/-]*")


def _tag(line_time: datetime | None, repeat: int) -> str:
    if line_time is not None:
        return f" [{line_time.astimezone(UTC):%Y-%m-%d %H:%M}]"
    return f" [repeat {repeat + 1}]" if repeat else ""


def address(
    ext: Extraction, texts: Sequence[str], times: Sequence[datetime | None] | None = None
) -> Extraction:
    """Give each extracted entity and relation what it asserts, from the batch's lines.

    A line is identified by its text and its time (untimed identical lines of one batch by
    their repeat count), so replaying it is recognised and saying it again is not.
    Entities get ``spans``: hashes of the lines that name them (the whole batch when none
    does); a line already counted is not a new mention. Relations get an ``evidence`` span
    (the model's, else the first line naming the target, else the source) tagged with its
    line's time: the normalised triple plus this span is what the graph write asserts.

    Example:
        >>> ext = Extraction(relations=[{"source": "user", "target": "tea", "type": "prefers"}])
        >>> address(ext, ["user: I like tea"]).relations[0].evidence
        'user: I like tea'
    """
    pairs = [
        (t, (times[i] if times is not None and i < len(times) else None))
        for i, t in enumerate(texts)
        if t.strip()
    ]
    lines = [t for t, _ in pairs]
    whole = _span("\n".join(lines))
    entities = []
    for ent in ext.entities:
        name = ent.display_name or ent.name
        seen: dict[str, int] = {}
        spans: set[str] = set()
        for text, when in pairs:
            if mentions(text, name):
                k = seen[text] = seen.get(text, -1) + 1
                spans.add(_span(f"{text}\x00{k}", when))
        entities.append(ent.model_copy(update={"spans": sorted(spans or {whole})}))
    relations = []
    used: dict[tuple[str, str, str, str], int] = {}
    for rel in ext.relations:
        evidence = _norm(rel.evidence or "")
        if not evidence:
            evidence = next(
                (_norm(t) for name in (rel.target, rel.source) for t in lines if mentions(t, name)),
                _norm(lines[0]) if lines else "",
            )
        evidence = evidence[:900]
        holders = [w for t, w in pairs if evidence and evidence.lower() in _norm(t).lower()]
        key = (rel.source.lower(), rel.type, rel.target.lower(), evidence)
        k = used[key] = used.get(key, -1) + 1
        when = holders[min(k, len(holders) - 1)] if holders else None
        repeat = k if when is None else 0
        tagged = (evidence + _tag(when, repeat)) if evidence else ""
        relations.append(rel.model_copy(update={"evidence": tagged or None}))
    return ext.model_copy(update={"entities": entities, "relations": relations})


class ConsolidatorBase:
    """What every stage of the pipeline shares: the parts, the settings, the state file."""

    parts: MemoryParts
    extractor: Extractor
    chat_model: BaseChatModel | None
    checkpointer: Any
    confidence_threshold: float
    max_batches: int
    decay_interval: timedelta
    timezone: tzinfo
    roles: frozenset[str]
    messages_key: str
    lock_timeout: float
    max_batch_attempts: int
    states: StateFile
    locks: UserRunLock

    # -- what one stage calls of another (defined by the stage named) --------------------
    def _trim_graph_queue(self, user_id: str) -> None:  # LoadStage
        raise NotImplementedError

    def _write_graph(  # WriteStage
        self,
        user_id: str,
        ext: Extraction,
        when: datetime,
        result: ConsolidationResult,
        *,
        timed: bool = True,
    ) -> tuple[Extraction, bool]:
        raise NotImplementedError

    def _write_memories(  # WriteStage
        self,
        user_id: str,
        items: list[dict[str, Any]],
        result: ConsolidationResult | None = None,
        *,
        batch_time: datetime | None = None,
    ) -> _Written:
        raise NotImplementedError

    def _rebuild_summaries(  # MaintainStage
        self,
        user_id: str,
        marked: Sequence[Any],
        result: ConsolidationResult,
        *,
        retired: Sequence[str] = (),
    ) -> None:
        raise NotImplementedError

    def _supersedes_from_replaces(  # SupersedeStage
        self, user_id: str, ext: Extraction
    ) -> Extraction:
        raise NotImplementedError

    def _retire_replaced(  # SupersedeStage
        self,
        user_id: str,
        replaced: Sequence[tuple[Sequence[str], datetime, str]],
        own: Iterable[str],
        result: ConsolidationResult,
    ) -> list[str]:
        raise NotImplementedError
