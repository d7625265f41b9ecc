"""The consolidation pipeline: a LangGraph ``StateGraph`` with one node per step.

``load → extract → gate → graph_upsert → vector_upsert → commit`` (repeated per batch) ``→
decay → daily_summary → finish``. :class:`Consolidator` owns the collaborators (the memory
facade, the extractor, the state file, the per-user lock) and builds the graph; ``run`` invokes
it. The graph can also be invoked directly or added to a user's graph as a subgraph: its input
is ``{"user_id"?, "messages"?, "thread_id"?, "trace_path"?, "now"?, "wait"?}`` (``user_id`` and
``thread_id`` default to ``config["configurable"]``) and its output ``{"consolidation":
ConsolidationResult}``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import hashlib
import logging
import re
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from qdrant_client import models as qm

from langgraph_prax_memory._parts import HasParts, MemoryParts, parts_of
from langgraph_prax_memory._progress import ProgressCallback, notify
from langgraph_prax_memory._validation import check_user_id, to_utc, user_dir_name, utcnow
from langgraph_prax_memory.consolidation._batching import (
    MAX_BATCHES_PER_RUN,
    backlog,
    plan_batches,
)
from langgraph_prax_memory.consolidation._llm import Extractor, LLMExtractor, load_chat_model
from langgraph_prax_memory.consolidation._models import (
    Batch,
    BatchFailure,
    ConsolidationResult,
    ConsolidationState,
    Extraction,
    GraphRetry,
    InFlight,
    SourceState,
    TraceItem,
)
from langgraph_prax_memory.consolidation._resolve import resolve_extraction
from langgraph_prax_memory.consolidation._rules import RuleBasedExtractor
from langgraph_prax_memory.consolidation._sources import (
    DEFAULT_ROLES,
    CheckpointTraceSource,
    MessagesTraceSource,
    TraceLogSource,
    TraceSource,
    describe,
    fingerprint,
)
from langgraph_prax_memory.consolidation._state import StateFile, UserRunLock
from langgraph_prax_memory.consolidation._summary import (
    summarise_day,
    summarise_global,
    summarise_week,
    week_label,
)
from langgraph_prax_memory.consolidation._supersession import (
    Supersession,
    mark_superseded,
    mentions,
    retire,
    states_old_fact,
)
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    EmbeddingError,
    MemoryValidationError,
    MemoryWriteError,
)
from langgraph_prax_memory.graph import DEFAULT_ENTITY_TYPE, canonical_name, entity_id
from langgraph_prax_memory.models import Memory
from langgraph_prax_memory.retrieval import ltm_filter, validity_filter
from langgraph_prax_memory.vectors import content_hash, user_filter

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langgraph.graph.state import CompiledStateGraph


__all__ = [
    "CONFIDENCE_THRESHOLD",
    "DECAY_MIN_INTERVAL",
    "NEAR_DUPLICATE_COSINE",
    "SOURCES_CONFIG_KEY",
    "ConsolidationInput",
    "ConsolidationOutput",
    "Consolidator",
    "build_consolidation_graph",
]

logger = logging.getLogger(__name__)

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


class _State(ConsolidationInput, total=False):
    lock_token: str | None
    run_now: datetime
    plan: list[Batch]
    index: int
    extraction: Extraction | None
    accepted: Extraction | None
    blocked: list[str]
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


class Consolidator:
    """Turns a user's conversation trace into durable memory (graph + vectors).

    Args:
        memory: A :class:`~langgraph_prax_memory.PraxMemory` or its
            :class:`~langgraph_prax_memory.MemoryParts` (long-term memory, graph, STM).
        extractor: Any :class:`Extractor`. Default: an :class:`LLMExtractor` on ``chat_model``
            when one is given, else the :class:`RuleBasedExtractor` (works offline).
        chat_model: A chat model (or ``init_chat_model`` string) for extraction and summaries.
        checkpointer: A checkpointer whose threads are the default trace source (threads whose
            checkpoint metadata carries ``user_id``; :class:`ConsolidatingCheckpointer` stamps
            it). ``run`` with no source also reads ``{workspace}/trace.log`` when it exists.
        confidence_threshold: The gate (0.6).
        max_batches: Extractor calls per run (8).
        decay_interval: Minimum time between decay/prune passes (24 h).
        timezone: Where day boundaries of the daily summary fall (UTC).
        roles: Message roles consolidated from threads (user and assistant).
        messages_key: The state key of the messages in checkpoints.
        lock_timeout: Seconds ``run(wait=True)`` waits for another run of the same user.
        max_batch_attempts: Failures of one batch after which each further failure is logged
            at ERROR and counted in ``batches_stuck`` (the batch is never dropped).

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> from langgraph_prax_memory.consolidation import Consolidator, MessagesTraceSource
        >>> consolidator = Consolidator(memory)                        # doctest: +SKIP
        >>> source = MessagesTraceSource([HumanMessage("I prefer dark mode")], thread_id="t1")
        >>> consolidator.run("alice", source).memories_created        # doctest: +SKIP
        1
    """

    def __init__(
        self,
        memory: MemoryParts | HasParts,
        *,
        extractor: Extractor | None = None,
        chat_model: BaseChatModel | str | None = None,
        checkpointer: Any = None,
        confidence_threshold: float = CONFIDENCE_THRESHOLD,
        max_batches: int = MAX_BATCHES_PER_RUN,
        decay_interval: timedelta = DECAY_MIN_INTERVAL,
        timezone: tzinfo = UTC,
        roles: Sequence[str] = tuple(sorted(DEFAULT_ROLES)),
        messages_key: str = "messages",
        lock_timeout: float = 30.0,
        max_batch_attempts: int = MAX_BATCH_ATTEMPTS,
    ) -> None:
        if max_batches < 1:
            raise MemoryValidationError("max_batches must be at least 1")
        #: The parts this pipeline reads and writes.
        self.parts = parts_of(memory)
        self.chat_model = load_chat_model(chat_model) if chat_model is not None else None
        if extractor is None:
            extractor = (
                LLMExtractor(self.chat_model)
                if self.chat_model is not None
                else RuleBasedExtractor()
            )
        self.extractor: Extractor = extractor
        self.checkpointer = checkpointer
        self.confidence_threshold = confidence_threshold
        self.max_batches = max_batches
        self.decay_interval = decay_interval
        self.timezone = timezone
        self.roles = frozenset(roles)
        self.messages_key = messages_key
        self.lock_timeout = lock_timeout
        self.max_batch_attempts = max_batch_attempts
        self.states = StateFile(self.parts.config)
        self.locks = UserRunLock(self.parts.config)
        self._graph: CompiledStateGraph[Any, Any, Any, Any] | None = None

    # -- public API ----------------------------------------------------------------------
    @property
    def graph(self) -> CompiledStateGraph[Any, Any, Any, Any]:
        """The compiled consolidation graph (built once)."""
        if self._graph is None:
            self._graph = build_consolidation_graph(self)
        return self._graph

    @property
    def recursion_limit(self) -> int:
        """Graph steps a run may take: six per batch plus the fixed steps."""
        return _NODES_PER_BATCH * self.max_batches + 12

    def state(self, user_id: str) -> ConsolidationState:
        """The user's saved consolidation state."""
        return self.states.load(check_user_id(user_id))

    def state_path(self, user_id: str) -> Path:
        """``{workspace}/memory/consolidation_state.json``."""
        return self.states.path(check_user_id(user_id))

    def run(
        self,
        user_id: str,
        source: TraceSource | Sequence[TraceSource] | None = None,
        *,
        now: datetime | None = None,
        wait: bool | float = True,
        progress: ProgressCallback | None = None,
    ) -> ConsolidationResult:
        """Consolidate ``user_id``'s unconsolidated trace now.

        Args:
            user_id: Whose memory.
            source: One or more trace sources (``[]``: none, only decay and summaries run);
                default: every known source of the user
                (``trace.log`` in the workspace, threads found in the checkpointer, sources
                recorded in the state file).
            now: The clock (decay, day boundaries, undated items).
            wait: True waits up to ``lock_timeout`` for another run of this user, False skips
                at once, a number waits that many seconds. A skipped run returns
                ``skipped="busy"``.
            progress: Called ``progress(done, total, "batches")``: ``total`` is ``None``
                while the trace is read, then the number of planned batches; ``done``
                counts batches handled (committed or failed). Batches a failure defers to
                the next run are counted at the end, so the bar always completes.

        Returns:
            The :class:`ConsolidationResult`.

        Example:
            >>> result = consolidator.run("alice", TraceLogSource("trace.log"))  # doctest: +SKIP
            >>> result.batches, result.pending_lines                             # doctest: +SKIP
            (3, 0)
        """
        check_user_id(user_id)
        sources: list[TraceSource] | None = None
        if source is not None:
            sources = [source] if isinstance(source, TraceSource) else list(source)
        payload: dict[str, Any] = {"user_id": user_id, "now": now, "wait": wait}
        config: RunnableConfig = {
            "recursion_limit": self.recursion_limit,
            "configurable": {SOURCES_CONFIG_KEY: sources} if sources is not None else {},
        }
        if progress is None:
            out = self.graph.invoke(payload, config)
        else:
            out = self._stream(payload, config, progress)
        result: ConsolidationResult = out["consolidation"]
        return result

    def _stream(
        self, payload: dict[str, Any], config: RunnableConfig, progress: ProgressCallback
    ) -> dict[str, Any]:
        """Run the graph node by node, reporting batches as they are handled."""
        notify(progress, 0, None, "batches")
        total, done = 0, 0
        out: dict[str, Any] = {}
        for update in self.graph.stream(payload, config, stream_mode="updates"):
            for node, values in update.items():
                values = values or {}
                if node == "load":
                    total = len(values.get("plan") or [])
                    notify(progress, 0, total, "batches")
                elif node == "commit" or (node == "extract" and values.get("extraction") is None):
                    done = min(done + 1, total)
                    notify(progress, done, total, "batches")
                elif node == "decay" and done < total:  # deferred by a failed batch
                    done = total
                    notify(progress, done, total, "batches")
                if "consolidation" in values:
                    out = values
        return out

    async def arun(
        self,
        user_id: str,
        source: TraceSource | Sequence[TraceSource] | None = None,
        *,
        now: datetime | None = None,
        wait: bool | float = True,
        progress: ProgressCallback | None = None,
    ) -> ConsolidationResult:
        """:meth:`run` in a worker thread (file, lock and store IO block)."""
        return await asyncio.to_thread(
            self.run, user_id, source, now=now, wait=wait, progress=progress
        )

    def default_sources(self, user_id: str) -> list[TraceSource]:
        """Every source of the user the consolidator can find (see :meth:`run`)."""
        found: dict[str, TraceSource] = {}
        trace = self.parts.config.users_dir / user_dir_name(user_id) / "trace.log"
        if trace.exists():
            src: TraceSource = TraceLogSource(trace)
            found[src.key] = src
        saver = self.checkpointer
        if saver is not None:
            try:
                for tup in saver.list(None, filter={"user_id": user_id}):
                    conf = tup.config.get("configurable", {})
                    ns = conf.get("checkpoint_ns", "")
                    if ns:
                        continue
                    src = self._thread_source(saver, str(conf["thread_id"]), ns)
                    found.setdefault(src.key, src)
            except Exception as exc:
                logger.warning("could not list threads of %r in the checkpointer: %s", user_id, exc)
        for key, ss in self.states.load(user_id).sources.items():
            if key in found:
                continue
            if ss.kind == "trace_log" and ss.ref.get("path"):
                found[key] = TraceLogSource(ss.ref["path"])
            elif (
                ss.kind in ("checkpoint", "messages")
                and saver is not None
                and ss.ref.get("thread_id")
            ):
                found[key] = self._thread_source(
                    saver, ss.ref["thread_id"], ss.ref.get("checkpoint_ns", "")
                )
        return list(found.values())

    def thread_source(self, thread_id: str, checkpoint_ns: str = "") -> CheckpointTraceSource:
        """A checkpoint source of ``thread_id`` on the configured checkpointer."""
        if self.checkpointer is None:
            raise MemoryValidationError("this Consolidator has no checkpointer")
        return self._thread_source(self.checkpointer, thread_id, checkpoint_ns)

    def _thread_source(self, saver: Any, thread_id: str, ns: str) -> CheckpointTraceSource:
        return CheckpointTraceSource(
            saver, thread_id, checkpoint_ns=ns, messages_key=self.messages_key, roles=self.roles
        )

    def pending_turns(self, user_id: str, source: TraceSource) -> int:
        """User items of ``source`` past its pointer (read only; for "is it due?" checks)."""
        state = self.states.load(check_user_id(user_id))
        ss = state.sources.get(source.key, SourceState())
        items = source.read(since=ss.pointer)
        pointer = self._reconcile(ss.model_copy(deep=True), items, source, None, dry_run=True)
        return sum(1 for item in items[pointer:] if self._is_user(item))

    @staticmethod
    def _is_user(item: TraceItem) -> bool:
        head = item.text.split(":", 1)[0].strip().lower()
        return bool(item.text.strip()) and head not in {"assistant", "ai", "system", "tool"}

    # -- reconciliation ----------------------------------------------------------------------
    def _reconcile(
        self,
        ss: SourceState,
        items: list[TraceItem],
        source: TraceSource,
        result: ConsolidationResult | None,
        *,
        now: datetime | None = None,
        dry_run: bool = False,
    ) -> int:
        """Check that the pointer still addresses the same trace; reset or re-align if not."""
        fp = fingerprint(items)
        pointer = ss.pointer
        if ss.fingerprint is None or not items:
            return min(pointer, len(items)) if ss.fingerprint is None else pointer
        changed = fp != ss.fingerprint or len(items) < pointer
        if not changed and pointer > 0 and ss.last_item_hash is not None:
            changed = _item_hash(items[pointer - 1]) != ss.last_item_hash
        if not changed:
            return pointer
        if ss.last_item_id is not None:
            for j in range(len(items) - 1, -1, -1):
                if items[j].id == ss.last_item_id:
                    if not dry_run:
                        logger.info(
                            "%s changed at its head; pointer re-aligned %d → %d",
                            describe(source),
                            pointer,
                            j + 1,
                        )
                        ss.pointer, ss.fingerprint = j + 1, fp
                        ss.last_item_hash = _item_hash(items[j])
                    return j + 1
        if dry_run:
            return 0
        dropped = ss.pending_lines
        logger.warning(
            "%s was rotated or replaced: pointer reset %d → 0; %d content line(s) pending at the "
            "last run are dropped from consolidation (a floor: lines added since are not counted)",
            describe(source),
            pointer,
            dropped,
        )
        ss.pointer = 0
        ss.fingerprint = fp
        ss.last_item_hash = None
        ss.last_item_id = None
        ss.inflight = None
        ss.failed_attempts = 0
        ss.rotation_resets += 1
        ss.last_rotation_reset_at = now or utcnow()
        ss.last_rotation_dropped_lines = dropped
        if result is not None:
            result.rotation_resets += 1
            result.rotation_dropped_lines += dropped
        return 0

    # -- nodes -----------------------------------------------------------------------------
    def _sources(self, state: _State, config: RunnableConfig, user_id: str) -> list[TraceSource]:
        conf = config.get("configurable", {}) if config else {}
        given = conf.get(SOURCES_CONFIG_KEY)
        if given is not None:
            return list(given)
        thread_id = state.get("thread_id") or conf.get("thread_id")
        if state.get("messages"):
            return [
                MessagesTraceSource(
                    state["messages"], thread_id=str(thread_id or "default"), roles=self.roles
                )
            ]
        if state.get("trace_path"):
            return [TraceLogSource(str(state["trace_path"]))]
        if state.get("thread_id") and self.checkpointer is not None:
            return [self.thread_source(str(state["thread_id"]))]
        return self.default_sources(user_id)

    def _node_load(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
        conf = config.get("configurable", {}) if config else {}
        user_id = check_user_id(state.get("user_id") or conf.get("user_id"))
        raw_now = state.get("now")
        now = to_utc(raw_now) if raw_now is not None else utcnow()
        result = ConsolidationResult(user_id=user_id, started_at=utcnow())
        wait = state.get("wait", True)
        timeout = self.lock_timeout if wait is True else (0.0 if wait is False else float(wait))
        token = self.locks.acquire(user_id, timeout=timeout)
        if token is None:
            logger.info("consolidation of %r skipped: another run holds the lock", user_id)
            result.skipped = "busy"
            return {
                "user_id": user_id,
                "run_now": now,
                "result": result,
                "lock_token": None,
                "plan": [],
                "index": 0,
                "blocked": [],
            }
        try:
            return self._load(user_id, now, result, token, state, config)
        except BaseException:
            self.locks.release(user_id, token)
            raise

    def _load(
        self,
        user_id: str,
        now: datetime,
        result: ConsolidationResult,
        token: str,
        state: _State,
        config: RunnableConfig,
    ) -> dict[str, Any]:
        st = self.states.load(user_id)
        if st.retry_memories:
            self._retry(user_id, st, result)
        if st.retry_graph:
            self._retry_graph(user_id, st, result)
        plan: list[Batch] = []
        for source in self._sources(state, config, user_id):
            ss = st.sources.setdefault(source.key, SourceState())
            ss.kind, ss.ref = source.kind, dict(source.ref)
            try:
                items = source.read(since=ss.pointer)
            except Exception as exc:
                logger.error("could not read %s: %s", describe(source), exc)
                result.errors.append(f"read {source.key}: {exc}")
                continue
            result.sources.append(source.key)
            pointer = self._reconcile(ss, items, source, result, now=now)
            ss.pointer = pointer
            if items:
                ss.fingerprint = fingerprint(items)
            if ss.inflight is not None and ss.inflight.start != pointer:
                ss.inflight = None
            if items or ss.fingerprint is None:  # a trace that vanished keeps its last backlog
                ss.pending_lines, ss.pending_bytes = backlog(items, pointer)
            room = self.max_batches - len(plan)
            if room <= 0:
                continue
            sp = plan_batches(
                items,
                pointer,
                source_key=source.key,
                budget=self.extractor.max_chars,
                max_batches=room,
                fingerprint=ss.fingerprint,
            )
            for batch in sp.batches:
                batch.last_item_hash = _item_hash(items[batch.end - 1])
            if not sp.batches and sp.final_pointer != pointer:
                ss.pointer = sp.final_pointer  # only blank separators were left
                ss.last_item_hash = _item_hash(items[sp.final_pointer - 1])
            plan.extend(sp.batches)
        result.capped = len(plan) >= self.max_batches and any(
            st.sources[k].pending_lines > sum(b.lines for b in plan if b.source_key == k)
            for k in result.sources
        )
        self.states.save(user_id, st)
        return {
            "user_id": user_id,
            "run_now": now,
            "result": result,
            "lock_token": token,
            "plan": plan,
            "index": 0,
            "blocked": [],
            "extraction": None,
            "accepted": None,
        }

    def _retry(self, user_id: str, st: ConsolidationState, result: ConsolidationResult) -> None:
        items = st.retry_memories
        try:
            written = self._write_memories(user_id, items, result)
        except (MemoryWriteError, BackendUnavailable, EmbeddingError) as exc:
            logger.warning("retry of %d queued memories failed again: %s", len(items), exc)
            return
        result.memories_retried += len(items)
        result.memories_created += written.created
        result.memories_deduplicated += written.deduplicated
        result.memories_merged += written.merged
        st.retry_memories = []

    def _retry_graph(
        self, user_id: str, st: ConsolidationState, result: ConsolidationResult
    ) -> None:
        """Replay the queued graph writes, oldest first; what fails again stays queued.

        While the graph is down the rest of the queue waits in order. A batch whose writes
        keep failing with the graph up (a write the backend refuses every time) is dropped,
        loudly, after ``MAX_BATCH_ATTEMPTS`` retries, so it cannot block the queue forever.
        """
        kept: list[GraphRetry] = []
        for i, entry in enumerate(st.retry_graph):
            before = entry.extraction.size
            failed, down = self._write_graph(user_id, entry.extraction, entry.when, result)
            result.graph_retried += before - failed.size
            if not failed.size:
                continue
            if down:
                kept.append(entry.model_copy(update={"extraction": failed}))
                kept.extend(st.retry_graph[i + 1 :])  # still down: keep the rest in order
                break
            if entry.attempts + 1 >= MAX_BATCH_ATTEMPTS:
                logger.error(
                    "dropping %d queued graph write(s) of %r refused %d times by a graph "
                    "that is up",
                    failed.size,
                    user_id,
                    entry.attempts + 1,
                )
                result.errors.append(f"graph retry: {failed.size} write(s) dropped")
                continue
            kept.append(
                entry.model_copy(update={"extraction": failed, "attempts": entry.attempts + 1})
            )
        st.retry_graph = kept
        self.states.save(user_id, st)
        if st.retry_graph:
            logger.warning(
                "%d queued graph write(s) of %r still wait for the graph",
                sum(e.extraction.size for e in st.retry_graph),
                user_id,
            )

    def _trim_graph_queue(self, user_id: str) -> None:
        """Bound the graph retry queue (oldest batches go first, loudly)."""
        st = self.states.load(user_id)
        total = sum(e.extraction.size for e in st.retry_graph)
        if total <= MAX_RETRY_GRAPH_ITEMS:
            return
        while total > MAX_RETRY_GRAPH_ITEMS and len(st.retry_graph) > 1:
            dropped = st.retry_graph.pop(0)
            total -= dropped.extraction.size
            logger.error(
                "graph retry queue of %r is full; %d queued graph writes dropped",
                user_id,
                dropped.extraction.size,
            )
        self.states.save(user_id, st)

    def _node_extract(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
        result = state["result"].model_copy(deep=True)
        user_id = state["user_id"]
        self.locks.renew(user_id, state["lock_token"] or "")
        index = state["index"]
        batch = state["plan"][index]
        result.extractor_calls += 1
        try:
            extraction = self.extractor.extract(batch.texts, times=batch.times)
        except Exception as exc:
            return self._failed(state, result, batch, exc)
        return {"result": result, "extraction": extraction, "index": index}

    def _failed(
        self, state: _State, result: ConsolidationResult, batch: Batch, exc: Exception
    ) -> dict[str, Any]:
        user_id = state["user_id"]
        result.batches_failed += 1
        result.errors.append(f"extract {batch.source_key}[{batch.start}:{batch.end}]: {exc}")
        st = self.states.load(user_id)
        ss = st.sources.setdefault(batch.source_key, SourceState())
        ss.failed_attempts += 1
        ss.last_error = str(exc)[:500]
        blocked = [*state.get("blocked", []), batch.source_key]
        result.failures.append(
            BatchFailure(
                source_key=batch.source_key,
                start=batch.start,
                end=batch.end,
                lines=batch.lines,
                attempts=ss.failed_attempts,
                reason=ss.last_error,
            )
        )
        # never dropped: the pointer stays before the batch, later batches of the source wait
        stuck = ss.failed_attempts >= self.max_batch_attempts
        if stuck:
            result.batches_stuck += 1
        logger.log(
            logging.ERROR if stuck else logging.WARNING,
            "extraction of batch %s[%d:%d] of %r failed (attempt %d): %s; the pointer stays "
            "before it and its %d line(s) stay in the backlog%s",
            batch.source_key,
            batch.start,
            batch.end,
            user_id,
            ss.failed_attempts,
            exc,
            batch.lines,
            " (it keeps failing: see ConsolidationResult.failures)" if stuck else "",
        )
        self.states.save(user_id, st)
        return {
            "result": result,
            "extraction": None,
            "accepted": None,
            "blocked": blocked,
            "index": state["index"] + 1,
        }

    def _node_gate(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
        result = state["result"].model_copy(deep=True)
        extraction = state["extraction"]
        assert extraction is not None
        user_id = state["user_id"]
        limit = self.confidence_threshold
        accepted = Extraction(
            entities=[e for e in extraction.entities if e.confidence >= limit],
            relations=[r for r in extraction.relations if r.confidence >= limit],
            facts=[f for f in extraction.facts if f.confidence >= limit],
            temporal_events=[e for e in extraction.temporal_events if e.confidence >= limit],
            causal_links=[c for c in extraction.causal_links if c.confidence >= limit],
        )
        review: list[tuple[str, str, float]] = []
        review += [
            (f"Entity: {e.display_name or e.name} ({e.type})", "entity", e.importance)
            for e in extraction.entities
            if e.confidence < limit
        ]
        review += [
            (
                f"Relation: {r.source} {r.type} {r.target}"
                + (f" (replacing {r.supersedes})" if r.supersedes else "")
                + (f" — {r.evidence}" if r.evidence else ""),
                "relation",
                0.5,
            )
            for r in extraction.relations
            if r.confidence < limit
        ]
        review += [
            (f.content, "fact", f.importance) for f in extraction.facts if f.confidence < limit
        ]
        review += [
            (f"Event: {e.description}", "event", e.importance)
            for e in extraction.temporal_events
            if e.confidence < limit
        ]
        review += [
            (f"Cause: {c.cause} → effect: {c.effect}", "causal_link", c.importance)
            for c in extraction.causal_links
            if c.confidence < limit
        ]
        review += [(f"Unparsed: {raw}", "unparsed", 0.5) for raw in extraction.rejected]
        for content, kind, importance in review:
            try:
                self.parts.stm.add_pending_review(
                    user_id,
                    content[: self.parts.config.max_content_chars],
                    importance=importance,
                    tags=["consolidation", kind],
                )
                result.pending_review += 1
            except Exception as exc:
                logger.error("could not queue a low-confidence %s for review: %s", kind, exc)
                result.errors.append(f"pending_review: {exc}")
        try:  # aliases → one entity, "now X" → the old value it supersedes (_resolve.py)
            accepted = resolve_extraction(self.parts.graph, user_id, accepted)
        except Exception as exc:  # the graph is down: the batch is written unresolved
            logger.warning("entity resolution of %r skipped: %s", user_id, exc)
        return {"result": result, "accepted": accepted}

    def _node_graph(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
        result = state["result"].model_copy(deep=True)
        user_id = state["user_id"]
        batch = state["plan"][state["index"]]
        accepted = state["accepted"]
        assert accepted is not None
        accepted = address(accepted, batch.texts, batch.times)
        st = self.states.load(user_id)
        ss = st.sources.setdefault(batch.source_key, SourceState())
        inflight = ss.inflight
        if inflight is not None and (inflight.start, inflight.end) == (batch.start, batch.end):
            logger.info(
                "graph upsert of %s[%d:%d] already landed before an interruption; not repeated",
                batch.source_key,
                batch.start,
                batch.end,
            )
            return {"result": result, "accepted": accepted}
        now = state["run_now"]
        when = min(batch.latest_time or now, now)
        failed = self._upsert_graph(user_id, accepted, when, result)
        ss.inflight = InFlight(start=batch.start, end=batch.end)
        if failed.size:
            # the graph was down: the writes that did not land wait in the state for the
            # next run (like vector memories), the pointer moves on and nothing is lost
            st.retry_graph.append(GraphRetry(extraction=failed, when=when))
            result.graph_queued += failed.size
        self.states.save(user_id, st)
        if failed.size:
            self._trim_graph_queue(user_id)
        return {"result": result, "accepted": accepted}

    def _upsert_graph(
        self, user_id: str, ext: Extraction, when: datetime, result: ConsolidationResult
    ) -> Extraction:
        """:meth:`_write_graph` without the "graph is down" flag."""
        return self._write_graph(user_id, ext, when, result)[0]

    def _write_graph(
        self, user_id: str, ext: Extraction, when: datetime, result: ConsolidationResult
    ) -> tuple[Extraction, bool]:
        """Write one batch's graph items: the items that did not land, and "the graph is down".

        An invalid item is counted and dropped (a retry would fail the same way). A write
        that fails because the graph is down or did not land is returned, and once the graph
        is known to be down the remaining items are returned untried.
        """
        graph = self.parts.graph
        vocab = graph.vocabulary
        down = False
        failed = Extraction()
        lost = False

        def call(what: str, fn: Callable[[], Any]) -> Any:
            nonlocal down, lost
            lost = False
            if down:
                result.graph_errors += 1
                lost = True
                return None
            try:
                return fn()
            except MemoryValidationError as exc:
                result.items_invalid += 1
                logger.debug("skipped an invalid extracted %s: %s", what, exc)
            except (BackendUnavailable, MemoryWriteError) as exc:
                result.graph_errors += 1
                result.errors.append(f"graph {what}: {exc}")
                logger.error("graph write of a %s failed (queued for retry): %s", what, exc)
                down = isinstance(exc, BackendUnavailable)
                lost = True
            return None

        def etype(value: str) -> str:
            return value if value in vocab.entity_types else DEFAULT_ENTITY_TYPE

        def rtype(value: str) -> str:
            return value if value in vocab.relation_types else "related_to"

        p = functools.partial

        def merge_once(ent: Any, name: str) -> Any:
            """``merge_entity`` unless every line naming it was already counted."""
            found = graph.get_entity(user_id, name)
            seen = list(found.entity.properties.get(SPANS_PROPERTY) or []) if found else []
            new = [s for s in ent.spans if s not in seen]
            if found is not None and ent.spans and not new and not ent.properties:
                return _SKIPPED
            props: dict[str, Any] = dict(ent.properties)  # the alias resolver's "aliases"
            if ent.spans:
                props[SPANS_PROPERTY] = (seen + new)[-MAX_SPANS:]
            if found is not None and not new:  # only new aliases: no new mention
                return graph.merge_entity(user_id, name, properties=props, now=when)
            return graph.merge_entity(
                user_id,
                name,
                entity_type=etype(ent.type),
                importance=ent.importance,
                properties=props or None,
                now=when,
            )

        def add_once(rel: Any, kind: str, evidence: str | None) -> Any:
            """``add_relation`` unless it is replayed or older than its edge's supersession.

            Replayed: the graph holds this evidence for the triple already. Older: the edge
            is no longer current and was superseded after this evidence.
            """
            found = graph.get_entity(user_id, rel.source, include_superseded=True)
            src, dst = canonical_name(rel.source), canonical_name(rel.target)
            same = [
                r
                for r in (found.relations if found else [])
                if r.source == src and r.target == dst and r.type == kind
            ]
            if evidence and any(
                evidence in [e.strip() for e in r.evidence.split(";")] for r in same
            ):
                return _SKIPPED
            current = [r for r in same if r.valid_until is None]
            if not current and any(
                r.valid_until is not None and r.valid_until > when for r in same
            ):
                return _HISTORICAL
            return graph.add_relation(
                user_id,
                rel.source,
                rel.target,
                kind,
                weight=rel.weight,
                evidence=evidence,
                valid_from=rel.valid_from,
                now=when,
            )

        for ent in ext.entities:
            name = (ent.display_name or ent.name).strip()
            done = call("entity", p(merge_once, ent, name))
            if done is _SKIPPED:
                result.graph_unchanged += 1
            elif done is not None:
                result.entities_upserted += 1
            elif lost:
                failed.entities.append(ent)
        for rel in ext.relations:
            kind = rtype(rel.type)
            closing_lost = False
            if rel.supersedes:
                close = p(graph.supersede_relation, user_id, rel.source, rel.supersedes, kind)
                if call("supersession", p(close, now=when)) is not None:
                    result.relations_superseded += 1
                closing_lost = lost
                if rel.supersedes.strip().lower() == rel.target.strip().lower():
                    if closing_lost:  # "no longer likes X": the edge is only closed
                        failed.relations.append(rel)
                    continue
            evidence = (rel.evidence or "")[:2000] or None
            done = call("relation", p(add_once, rel, kind, evidence))
            if done is _SKIPPED or done is _HISTORICAL:
                if done is _SKIPPED:
                    result.graph_unchanged += 1
                else:
                    result.relations_historical += 1
                if closing_lost:
                    failed.relations.append(rel.model_copy(update={"target": rel.supersedes}))
            elif done:
                result.relations_upserted += 1
                if closing_lost:  # only the closing of the old edge is left to do
                    failed.relations.append(rel.model_copy(update={"target": rel.supersedes}))
            elif lost or closing_lost:
                # retry what did not land: the add (and the closing, if that failed too)
                failed.relations.append(
                    rel if closing_lost else rel.model_copy(update={"supersedes": None})
                )
        for ev in ext.temporal_events:
            event = p(graph.merge_temporal_event, user_id, ev.description)
            done = call(
                "event",
                p(
                    event,
                    participants=ev.participants,
                    occurred_at=ev.occurred_at,
                    importance=ev.importance,
                    now=when,
                ),
            )
            if done is not None:
                result.events_upserted += 1
            elif lost:
                failed.temporal_events.append(ev)
        for c in ext.causal_links:
            link = p(graph.add_causal_link, user_id, c.cause, c.effect)
            done = call(
                "causal link",
                p(
                    link,
                    cause_entities=c.cause_entities,
                    effect_entities=c.effect_entities,
                    importance=c.importance,
                    now=when,
                ),
            )
            if done is not None:
                result.causal_links_upserted += 1
            elif lost:
                failed.causal_links.append(c)
        return failed, down

    def _node_vector(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
        result = state["result"].model_copy(deep=True)
        user_id = state["user_id"]
        batch = state["plan"][state["index"]]
        accepted = state["accepted"]
        assert accepted is not None
        now = state["run_now"]
        when = min(batch.latest_time or now, now)
        sups = self._supersessions(user_id, accepted, when)
        if not accepted.facts and not sups:
            return {"result": result}
        items = self._memory_items(user_id, batch, accepted, now, result) if accepted.facts else []
        try:
            written = self._write_memories(user_id, items, result, batch_time=when)
        except (MemoryWriteError, BackendUnavailable, EmbeddingError) as exc:
            result.memories_failed += len(items)
            result.errors.append(f"vector write: {exc}")
            logger.error(
                "vector write of %d consolidated memories of %r failed (%s); queued for retry",
                len(items),
                user_id,
                exc,
            )
            st = self.states.load(user_id)
            queue = st.retry_memories + items
            if len(queue) > MAX_RETRY_MEMORIES:
                logger.error(
                    "retry queue of %r is full; %d memories dropped",
                    user_id,
                    len(queue) - MAX_RETRY_MEMORIES,
                )
                queue = queue[-MAX_RETRY_MEMORIES:]
            st.retry_memories = queue
            self.states.save(user_id, st)
            return {"result": result}
        result.memories_created += written.created
        result.memories_deduplicated += written.deduplicated
        result.memories_merged += written.merged
        if sups:
            try:
                self._retire(user_id, sups, written.ids, result)
            except (MemoryWriteError, BackendUnavailable, EmbeddingError) as exc:
                logger.error("marking superseded memories of %r failed: %s", user_id, exc)
                result.errors.append(f"supersession: {exc}")
        return {"result": result}

    # -- supersession of memories ------------------------------------------------------------
    def _supersessions(self, user_id: str, ext: Extraction, when: datetime) -> list[Supersession]:
        """The batch's superseding relations, with the old edge's evidence when known."""
        vocab = self.parts.graph.vocabulary
        out: list[Supersession] = []
        for rel in ext.relations:
            if not rel.supersedes:
                continue
            kind = rel.type if rel.type in vocab.relation_types else "related_to"
            closing = rel.supersedes.strip().lower() == rel.target.strip().lower()
            evidence = None
            try:
                found = self.parts.graph.get_entity(user_id, rel.source, include_superseded=True)
                old = canonical_name(rel.supersedes)
                for r in found.relations if found else []:
                    if r.target == old and r.type == kind and r.evidence:
                        first = r.evidence.split(";")[0].strip()
                        evidence = re.sub(r"\s*\[[^\]]*\]$", "", first)  # the time tag
                        break
            except Exception as exc:  # the graph is down: match on the names alone
                logger.debug("old evidence of a supersession unavailable: %s", exc)
            out.append(
                Supersession(
                    source=rel.source,
                    kind=kind,
                    old=rel.supersedes,
                    new=None if closing else rel.target,
                    when=when,
                    evidence=evidence,
                )
            )
        return out

    def _retire(
        self,
        user_id: str,
        sups: Sequence[Supersession],
        exclude: Sequence[str],
        result: ConsolidationResult,
    ) -> None:
        """Mark the memories stating each superseded fact; rebuild summaries that repeated it."""
        marked: list[Any] = []
        for sup in sups:
            try:
                current = [
                    e.display_name
                    for e in self.parts.graph.current_targets(user_id, sup.source, sup.kind)
                ]
            except Exception as exc:
                logger.debug("current targets unavailable: %s", exc)
                current = []
            raw, summaries = retire(self.parts, user_id, sup, exclude=exclude, new_targets=current)
            result.memories_superseded += len(raw) + len(summaries)
            marked.extend(summaries)
        if marked:
            self._rebuild_summaries(user_id, marked, result)

    def _mark_historical(
        self,
        user_id: str,
        items: Sequence[dict[str, Any]],
        ids: Sequence[str],
        batch_time: datetime,
        result: ConsolidationResult | None,
    ) -> None:
        """Mark new memories that state a fact superseded *after* the evidence they come from.

        Re-reading an old session (a replay, a lost state file) must not make its superseded
        facts current again: the temporal order of the evidence wins, not the order of
        processing.
        """
        graph = self.parts.graph
        closed: dict[str, list[Any]] = {}
        for item, mid in zip(items, ids, strict=False):
            for name in item.get("_names") or []:
                if name not in closed:
                    try:
                        found = graph.get_entity(user_id, name, include_superseded=True)
                    except Exception as exc:
                        logger.debug("superseded edges of %r unavailable: %s", name, exc)
                        found = None
                    key = canonical_name(name)
                    closed[name] = [
                        r
                        for r in (found.relations if found else [])
                        if r.target == key and r.valid_until is not None
                    ]
                later = [r for r in closed[name] if r.valid_until > batch_time]
                for rel in later:
                    try:
                        targets = graph.current_targets(user_id, rel.source, rel.type)
                        current = [e.display_name for e in targets]
                    except Exception:
                        current = []
                    if states_old_fact(
                        str(item["content"]),
                        item.get("entity_ids") or [],
                        old=name,
                        old_id=entity_id(user_id, name),
                        new=current,
                        kind=rel.type,
                        evidence=rel.evidence,
                    ):
                        mark_superseded(
                            self.parts,
                            user_id,
                            [mid],
                            rel.valid_until,
                            current[0] if current else None,
                        )
                        if result is not None:
                            result.memories_superseded += 1
                        break
                else:
                    continue
                break

    def _memory_items(
        self,
        user_id: str,
        batch: Batch,
        ext: Extraction,
        now: datetime,
        result: ConsolidationResult,
    ) -> list[dict[str, Any]]:
        names = {e.name.lower(): e.display_name or e.name for e in ext.entities}
        for rel in ext.relations:  # endpoints the graph created on the fly
            for end in (rel.source, rel.target, rel.supersedes):
                if end and end.strip():
                    names.setdefault(end.strip().lower(), end.strip())
        wanted: list[list[str]] = []
        for fact in ext.facts:
            listed = list(fact.entities)
            if not listed:
                text = fact.content.lower()
                listed = [
                    n
                    for key, n in names.items()
                    if re.search(r"(?<!\w)" + re.escape(key) + r"(?!\w)", text)
                ]
            wanted.append(listed)
        ids: dict[str, str] = {}
        every = sorted({n for group in wanted for n in group})
        if every:
            try:
                ids = self.parts.graph.entity_ids_for(user_id, every)
            except Exception as exc:
                logger.warning("entity ids for consolidated facts unavailable: %s", exc)
        limit = self.parts.config.max_content_chars
        items: list[dict[str, Any]] = []
        for fact, group in zip(ext.facts, wanted, strict=True):
            created = self._fact_time(fact.source_index, fact.content, batch) or now
            entity_ids = sorted({ids[n] for n in group if n in ids})
            text = fact.content.strip()
            for start in range(0, len(text), limit):
                chunk = text[start : start + limit].strip()
                if not chunk:
                    continue
                items.append(
                    {
                        "content": chunk,
                        "importance": fact.importance,
                        "tags": list(dict.fromkeys(["consolidation", *fact.tags])),
                        "source": "consolidation",
                        "created_at": min(created, now).isoformat(),
                        "entity_ids": entity_ids,
                        "_names": list(group),
                    }
                )
        return items

    @staticmethod
    def _fact_time(index: int | None, content: str, batch: Batch) -> datetime | None:
        if index is not None and 0 <= index < len(batch.times):
            return batch.times[index]
        words = _words(content)
        best, score = None, 0
        for text, when in zip(batch.texts, batch.times, strict=True):
            overlap = len(words & _words(text))
            if when is not None and overlap > score:
                best, score = when, overlap
        return best or batch.latest_time

    def _write_memories(
        self,
        user_id: str,
        items: list[dict[str, Any]],
        result: ConsolidationResult | None = None,
        *,
        batch_time: datetime | None = None,
    ) -> _Written:
        """Store facts addressed by their content.

        Identical content (per-user hash) is not stored again; a paraphrase of a current
        memory about the same entities (cosine ≥ :data:`NEAR_DUPLICATE_COSINE`) merges into
        it (importance kept at the higher, the new wording kept in its ``evidence``); with
        ``batch_time``, a new memory stating a fact superseded later is stored already marked.
        """
        if not items:
            return _Written()
        store = self.parts.ltm.vectors
        clean = [{k: v for k, v in i.items() if not k.startswith("_")} for i in items]
        hashes = [content_hash(user_id, str(i["content"])) for i in clean]
        existing = {
            p.payload.get("content_hash")
            for p in store.scroll(
                user_id,
                flt=ltm_filter(user_id, hashes=sorted(set(hashes))),
                limit=len(hashes) * 4,
            )
        }
        fresh: list[int] = []
        taken: set[str] = set()
        for i, h in enumerate(hashes):
            if h not in existing and h not in taken:
                taken.add(h)
                fresh.append(i)
        keep, merged, evidence = self._merge_near_duplicates(user_id, clean, fresh)
        ids = self.parts.ltm.remember_many(user_id, [clean[i] for i in keep]) if keep else []
        for i, mid in zip(keep, ids, strict=True):
            if evidence.get(i):
                store.set_payload(user_id, [mid], {"evidence": evidence[i][-MAX_MERGED_EVIDENCE:]})
        if batch_time is not None and ids:
            self._mark_historical(user_id, [items[i] for i in keep], ids, batch_time, result)
        return _Written(
            created=len(ids), deduplicated=len(items) - len(fresh), merged=merged, ids=ids
        )

    def _merge_near_duplicates(
        self, user_id: str, items: list[dict[str, Any]], fresh: list[int]
    ) -> tuple[list[int], int, dict[int, list[str]]]:
        """(items to write, how many merged, evidence to keep on written items)."""
        if not fresh:
            return [], 0, {}
        try:
            vectors = self.parts.ltm.embeddings.embed_documents(
                [str(items[i]["content"]) for i in fresh]
            )
        except EmbeddingError:
            return fresh, 0, {}
        store = self.parts.ltm.vectors
        current = validity_filter(ltm_filter(user_id))
        raw_only = qm.FieldCondition(key="summary_level", match=qm.MatchValue(value="raw"))
        flt = qm.Filter(must=[*(current.must or []), raw_only], must_not=current.must_not)  # type: ignore[misc]
        keep: list[int] = []
        kept_vectors: list[list[float]] = []
        evidence: dict[int, list[str]] = {}
        merged = 0
        for i, vector in zip(fresh, vectors, strict=True):
            item = items[i]
            ents = sorted(item.get("entity_ids") or [])
            text = str(item["content"])
            numbers = sorted(_NUMBER.findall(text))  # "project 3" is not "project 4"
            twin = next(
                (
                    k
                    for k, other in zip(keep, kept_vectors, strict=True)
                    if sorted(items[k].get("entity_ids") or []) == ents
                    and sorted(_NUMBER.findall(str(items[k]["content"]))) == numbers
                    and _cosine(vector, other) >= NEAR_DUPLICATE_COSINE
                ),
                None,
            )
            if twin is not None:
                evidence.setdefault(twin, []).append(text)
                items[twin]["importance"] = max(
                    float(items[twin].get("importance", 0.5)), float(item.get("importance", 0.5))
                )
                merged += 1
                continue
            stored = next(
                (
                    h
                    for h in store.search_dense(user_id, vector, limit=3, flt=flt)
                    if (h.score or 0.0) >= NEAR_DUPLICATE_COSINE
                    and sorted(h.payload.get("entity_ids") or []) == ents
                    and sorted(_NUMBER.findall(str(h.payload.get("content", "")))) == numbers
                ),
                None,
            )
            if stored is not None:
                kept = list(stored.payload.get("evidence") or [])
                if text not in kept:
                    kept.append(text)
                importance = max(
                    float(stored.payload.get("importance", 0.5)),
                    float(item.get("importance", 0.5)),
                )
                store.set_payload(
                    user_id,
                    [stored.id],
                    {"importance": importance, "evidence": kept[-MAX_MERGED_EVIDENCE:]},
                )
                merged += 1
                continue
            keep.append(i)
            kept_vectors.append(list(vector))
        return keep, merged, evidence

    def _node_commit(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
        result = state["result"].model_copy(deep=True)
        user_id = state["user_id"]
        batch = state["plan"][state["index"]]
        st = self.states.load(user_id)
        ss = st.sources.setdefault(batch.source_key, SourceState())
        self._advance(ss, batch, state["run_now"])
        self.states.save(user_id, st)
        result.batches += 1
        result.items_seen += batch.lines
        result.bytes_seen += batch.bytes_seen
        result.bytes_skipped += batch.bytes_skipped
        return {"result": result, "index": state["index"] + 1, "extraction": None, "accepted": None}

    @staticmethod
    def _advance(ss: SourceState, batch: Batch, now: datetime) -> None:
        ss.pointer = batch.end
        ss.last_item_id = batch.last_item_id
        ss.last_item_hash = batch.last_item_hash
        if batch.fingerprint is not None:
            ss.fingerprint = batch.fingerprint
        ss.pending_lines = batch.pending_lines_after
        ss.pending_bytes = batch.pending_bytes_after
        ss.inflight = None
        ss.failed_attempts = 0
        ss.last_run_at = now

    def _node_decay(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
        result = state["result"].model_copy(deep=True)
        user_id = state["user_id"]
        now = state["run_now"]
        st = self.states.load(user_id)
        last = st.last_decay_run
        if last is not None and now - last < self.decay_interval:
            return {"result": result}
        try:
            victims = self.parts.ltm.decay(user_id, now=now)
            pruned = self.parts.graph.decay_graph(user_id, now=now)
        except Exception as exc:
            logger.error("decay pass of %r failed (%s); it will run again next time", user_id, exc)
            result.errors.append(f"decay: {exc}")
            return {"result": result}
        result.decay_ran = True
        result.memories_decayed = len(victims)
        result.entities_decayed = len(pruned.entities)
        result.relations_decayed = len(pruned.relations)
        st.last_decay_run = now
        self.states.save(user_id, st)
        return {"result": result}

    def _node_summary(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
        result = state["result"].model_copy(deep=True)
        user_id = state["user_id"]
        now = state["run_now"]
        today = now.astimezone(self.timezone).date()
        st = self.states.load(user_id)
        last_day = st.last_run_day
        if last_day is None or today <= last_day:
            if last_day is None:
                st.last_run_day = today
                self.states.save(user_id, st)
            return {"result": result}
        try:
            done = self._summaries(user_id, last_day, today, result)
            weeks = self._weekly_summaries(user_id, st.last_summary_week, today, result)
            if weeks:
                self._global_summary(user_id, now, result)
        except Exception as exc:
            logger.error("summaries of %r failed (%s); retried next run", user_id, exc)
            result.errors.append(f"summary: {exc}")
            return {"result": result}
        st = self.states.load(user_id)
        st.last_run_day = today
        if done:
            st.last_summary_day = max(done)
        if weeks:
            st.last_summary_week = max(weeks)
        self.states.save(user_id, st)
        return {"result": result}

    def _day_bounds(self, day: date) -> tuple[datetime, datetime]:
        start = datetime.combine(day, time.min, tzinfo=self.timezone)
        return start.astimezone(UTC), (start + timedelta(days=1)).astimezone(UTC)

    def _current(self, user_id: str, *conditions: Any, levels: Sequence[str]) -> qm.Filter:
        """Current (not superseded) LTM points of the given summary levels."""
        base = validity_filter(ltm_filter(user_id))
        level = qm.FieldCondition(key="summary_level", match=qm.MatchAny(any=list(levels)))
        return qm.Filter(must=[*(base.must or []), level, *conditions], must_not=base.must_not)  # type: ignore[misc]

    def _write_summary(
        self, user_id: str, text: str, *, level: str, key: str, importance: float, at: datetime
    ) -> None:
        """Store one summary addressed by its key (a re-run replaces it, never duplicates)."""
        self.parts.ltm.remember_many(
            user_id,
            [
                {
                    "content": text[: self.parts.config.max_content_chars],
                    "importance": min(1.0, max(0.0, importance)),
                    "tags": [f"{level}_summary", "consolidation"],
                    "source": "consolidation",
                    "created_at": at.isoformat(),
                    "key": key,
                    "summary_level": level,
                }
            ],
        )

    def _summaries(
        self, user_id: str, first: date, today: date, result: ConsolidationResult
    ) -> list[date]:
        """Summarise each day in ``[first, today)`` that has current memories (the latest 7)."""
        lo, _ = self._day_bounds(first)
        hi, _ = self._day_bounds(today)
        flt = self._current(
            user_id,
            qm.FieldCondition(
                key="created_ts", range=qm.Range(gte=lo.timestamp(), lt=hi.timestamp())
            ),
            levels=["raw"],
        )
        by_day: dict[date, list[Memory]] = {}
        for point in self.parts.ltm.vectors.scroll(user_id, flt=flt, limit=10_000):
            mem = Memory.from_payload(point.id, point.payload)
            by_day.setdefault(mem.created_at.astimezone(self.timezone).date(), []).append(mem)
        done: list[date] = []
        for day in sorted(by_day)[-MAX_SUMMARY_DAYS:]:
            text = self._summarise_one_day(user_id, day, by_day[day])
            result.daily_summary = text
            result.daily_summary_days.append(day)
            done.append(day)
        return done

    def _summarise_one_day(self, user_id: str, day: date, memories: list[Memory]) -> str:
        text = summarise_day(day, memories, self.chat_model)
        _, end = self._day_bounds(day)
        self._write_summary(
            user_id,
            text,
            level="daily",
            key=f"daily_summary:{day.isoformat()}",
            importance=max(m.importance for m in memories),
            at=end - timedelta(seconds=1),
        )
        return text

    def _week_end(self, label: str) -> datetime:
        year, week = label.split("-W")
        monday = date.fromisocalendar(int(year), int(week), 1)
        return self._day_bounds(monday + timedelta(days=7))[0]

    def _weekly_summaries(
        self, user_id: str, last_week: str | None, today: date, result: ConsolidationResult
    ) -> list[str]:
        """A summary per finished ISO week (after ``last_week``) built from its dailies."""
        this_week = week_label(today)
        monday = today - timedelta(days=today.weekday())
        hi, _ = self._day_bounds(monday)
        flt = self._current(
            user_id,
            qm.FieldCondition(key="created_ts", range=qm.Range(lt=hi.timestamp())),
            levels=["daily"],
        )
        by_week: dict[str, list[Memory]] = {}
        for point in self.parts.ltm.vectors.scroll(user_id, flt=flt, limit=10_000):
            mem = Memory.from_payload(point.id, point.payload)
            label = week_label(mem.created_at.astimezone(self.timezone).date())
            if label < this_week and (last_week is None or label > last_week):
                by_week.setdefault(label, []).append(mem)
        done: list[str] = []
        for label in sorted(by_week)[-MAX_SUMMARY_WEEKS:]:
            self._summarise_one_week(user_id, label, by_week[label])
            result.weekly_summary_weeks.append(label)
            done.append(label)
        return done

    def _summarise_one_week(self, user_id: str, label: str, dailies: list[Memory]) -> str:
        text = summarise_week(label, dailies, self.chat_model)
        self._write_summary(
            user_id,
            text,
            level="weekly",
            key=f"weekly_summary:{label}",
            importance=max(m.importance for m in dailies),
            at=self._week_end(label) - timedelta(seconds=1),
        )
        return text

    def _global_summary(self, user_id: str, now: datetime, result: ConsolidationResult) -> None:
        """The global summary, rebuilt from every current weekly summary."""
        weeklies = [
            Memory.from_payload(p.id, p.payload)
            for p in self.parts.ltm.vectors.scroll(
                user_id, flt=self._current(user_id, levels=["weekly"]), limit=10_000
            )
        ]
        if not weeklies:
            return
        text = summarise_global(weeklies, self.chat_model)
        self._write_summary(
            user_id,
            text,
            level="global",
            key="global_summary",
            importance=max(m.importance for m in weeklies),
            at=min(now, max(m.created_at for m in weeklies)),
        )
        result.global_summary = True

    def _rebuild_summaries(
        self, user_id: str, marked: Sequence[Any], result: ConsolidationResult
    ) -> None:
        """Rebuild summaries that repeated a superseded fact, from what is still current.

        A day is re-summarised from its current memories (none left: the marked summary
        stays out of recall); its week from the current dailies, then the global summary.
        """
        days: set[date] = set()
        weeks: set[str] = set()
        again_global = False
        for point in marked:
            key = str(point.payload.get("key", ""))
            level = point.payload.get("summary_level")
            if level == "daily" and key.startswith("daily_summary:"):
                day = date.fromisoformat(key.split(":", 1)[1])
                days.add(day)
                weeks.add(week_label(day))
            elif level == "weekly" and key.startswith("weekly_summary:"):
                weeks.add(key.split(":", 1)[1])
            again_global = again_global or level in ("weekly", "global")
        for day in sorted(days):
            lo, hi = self._day_bounds(day)
            flt = self._current(
                user_id,
                qm.FieldCondition(
                    key="created_ts", range=qm.Range(gte=lo.timestamp(), lt=hi.timestamp())
                ),
                levels=["raw"],
            )
            memories = [
                Memory.from_payload(p.id, p.payload)
                for p in self.parts.ltm.vectors.scroll(user_id, flt=flt, limit=10_000)
            ]
            if memories:
                self._summarise_one_day(user_id, day, memories)
        for label in sorted(weeks):
            end = self._week_end(label)
            flt = self._current(
                user_id,
                qm.FieldCondition(
                    key="created_ts",
                    range=qm.Range(gte=(end - timedelta(days=7)).timestamp(), lt=end.timestamp()),
                ),
                levels=["daily"],
            )
            dailies = [
                Memory.from_payload(p.id, p.payload)
                for p in self.parts.ltm.vectors.scroll(user_id, flt=flt, limit=10_000)
            ]
            if dailies and self._has_key(user_id, f"weekly_summary:{label}"):
                self._summarise_one_week(user_id, label, dailies)
                again_global = True
        if (again_global or weeks) and self._has_key(user_id, "global_summary"):
            self._global_summary(user_id, utcnow(), result)

    def _has_key(self, user_id: str, key: str) -> bool:
        flt = user_filter(
            user_id,
            *(ltm_filter(user_id).must or []),  # type: ignore[arg-type]
            qm.FieldCondition(key="key", match=qm.MatchValue(value=key)),
        )
        return bool(self.parts.ltm.vectors.scroll(user_id, flt=flt, limit=1))

    def _node_finish(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
        result = state["result"].model_copy(deep=True)
        user_id = state["user_id"]
        token = state.get("lock_token")
        if token is None:  # skipped: nothing to record
            result.finished_at = utcnow()
            return {"consolidation": result, "result": result}
        try:
            st = self.states.load(user_id)
            run_keys = set(result.sources)
            result.pending_lines = sum(
                s.pending_lines for k, s in st.sources.items() if k in run_keys
            )
            result.pending_bytes = sum(
                s.pending_bytes for k, s in st.sources.items() if k in run_keys
            )
            result.graph_pending = sum(e.extraction.size for e in st.retry_graph)
            st.last_run_at = state["run_now"]
            self.states.save(user_id, st)
        finally:
            self.locks.release(user_id, token)
        if result.capped and result.pending_lines:
            logger.warning(
                "consolidation of %r hit the %d-batch cap: backlog %d line(s), %d bytes pending",
                user_id,
                self.max_batches,
                result.pending_lines,
                result.pending_bytes,
            )
        result.finished_at = utcnow()
        logger.info(
            "consolidated %r: %d batch(es), %d memories created, %d failed, %d for review, "
            "%d pending line(s)",
            user_id,
            result.batches,
            result.memories_created,
            result.memories_failed,
            result.pending_review,
            result.pending_lines,
        )
        return {"consolidation": result, "result": result}

    # -- routing ---------------------------------------------------------------------------
    @staticmethod
    def _next_batch(state: _State) -> int | None:
        plan = state.get("plan") or []
        blocked = set(state.get("blocked") or [])
        for i in range(state.get("index", 0), len(plan)):
            if plan[i].source_key not in blocked:
                return i
        return None


def _guarded(
    consolidator: Consolidator, fn: Callable[[_State, RunnableConfig], dict[str, Any]]
) -> Callable[[_State, RunnableConfig], dict[str, Any]]:
    """Release the user's lock when a node raises (the run is over)."""

    @functools.wraps(fn)
    def node(state: _State, config: RunnableConfig) -> dict[str, Any]:
        try:
            return fn(state, config)
        except BaseException:
            token = state.get("lock_token")
            if token and state.get("user_id"):
                consolidator.locks.release(state["user_id"], token)
            raise

    return node


def build_consolidation_graph(
    consolidator: Consolidator, *, checkpointer: Any = False
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Build the consolidation ``StateGraph`` of ``consolidator`` and compile it.

    Nodes: ``load → extract → gate → graph_upsert → vector_upsert → commit`` (per batch) ``→
    decay → daily_summary → finish``. The per-user lock is taken in ``load`` and released in
    ``finish`` (or when a node raises). Input: :class:`ConsolidationInput`; output:
    ``{"consolidation": ConsolidationResult}``. The graph carries its own recursion limit
    (six steps per batch), also when embedded in a user's graph.

    Args:
        consolidator: Supplies the memory, the extractor and the settings.
        checkpointer: ``False`` (default) never checkpoints the pipeline, even inside a
            checkpointed parent graph: the state file is the durable record.

    Example:
        >>> graph = build_consolidation_graph(Consolidator(memory))      # doctest: +SKIP
        >>> builder.add_node("consolidate", graph)  # in a MessagesState graph  # doctest: +SKIP
        >>> out = graph.invoke({"user_id": "alice", "trace_path": "trace.log"})  # doctest: +SKIP
        >>> out["consolidation"].batches                                 # doctest: +SKIP
        1
    """
    c = consolidator

    def after_load(state: _State) -> Literal["extract", "decay", "finish"]:
        if state.get("lock_token") is None:
            return "finish"
        return "extract" if c._next_batch(state) is not None else "decay"

    def after_extract(state: _State) -> Literal["gate", "extract", "decay"]:
        if state.get("extraction") is not None:
            return "gate"
        return "extract" if c._next_batch(state) is not None else "decay"

    def after_commit(state: _State) -> Literal["extract", "decay"]:
        return "extract" if c._next_batch(state) is not None else "decay"

    def extract(state: _State, config: RunnableConfig) -> dict[str, Any]:
        index = c._next_batch(state)
        assert index is not None
        return c._node_extract({**state, "index": index}, config)  # type: ignore[typeddict-item]

    builder = StateGraph(_State, input_schema=ConsolidationInput, output_schema=ConsolidationOutput)
    steps: list[tuple[str, Callable[[_State, RunnableConfig], dict[str, Any]]]] = [
        ("load", c._node_load),
        ("extract", extract),
        ("gate", c._node_gate),
        ("graph_upsert", c._node_graph),
        ("vector_upsert", c._node_vector),
        ("commit", c._node_commit),
        ("decay", c._node_decay),
        ("daily_summary", c._node_summary),
        ("finish", c._node_finish),
    ]
    for name, fn in steps:
        node: Any = _guarded(c, fn)  # typed loosely: LangGraph's node protocols match by name
        builder.add_node(name, node)
    builder.add_edge(START, "load")
    builder.add_conditional_edges("load", after_load, ["extract", "decay", "finish"])
    builder.add_conditional_edges("extract", after_extract, ["gate", "extract", "decay"])
    builder.add_edge("gate", "graph_upsert")
    builder.add_edge("graph_upsert", "vector_upsert")
    builder.add_edge("vector_upsert", "commit")
    builder.add_conditional_edges("commit", after_commit, ["extract", "decay"])
    builder.add_edge("decay", "daily_summary")
    builder.add_edge("daily_summary", "finish")
    builder.add_edge("finish", END)
    graph = builder.compile(checkpointer=checkpointer, name="prax_consolidation")
    return graph.with_config(recursion_limit=c.recursion_limit)  # type: ignore[return-value]
