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

from langgraph_prax_memory._validation import check_user_id, to_utc, user_dir_name, utcnow
from langgraph_prax_memory.consolidation._batching import (
    MAX_BATCHES_PER_RUN,
    backlog,
    plan_batches,
)
from langgraph_prax_memory.consolidation._llm import Extractor, LLMExtractor, load_chat_model
from langgraph_prax_memory.consolidation._models import (
    Batch,
    ConsolidationResult,
    ConsolidationState,
    Extraction,
    GraphRetry,
    InFlight,
    SourceState,
    TraceItem,
)
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
from langgraph_prax_memory.consolidation._summary import summarise_day
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    EmbeddingError,
    MemoryValidationError,
    MemoryWriteError,
)
from langgraph_prax_memory.graph import DEFAULT_ENTITY_TYPE
from langgraph_prax_memory.models import Memory
from langgraph_prax_memory.retrieval._recall import ltm_filter
from langgraph_prax_memory.vectors._payload import content_hash
from langgraph_prax_memory.vectors._plan import user_filter

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langgraph.graph.state import CompiledStateGraph

    from langgraph_prax_memory.memory import PraxMemory

__all__ = [
    "CONFIDENCE_THRESHOLD",
    "DECAY_MIN_INTERVAL",
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
#: Failures of the same batch after which it is abandoned (logged at ERROR) so a poison batch
#: cannot stall a source forever.
MAX_BATCH_ATTEMPTS = 3
#: Days summarised at most per run (the most recent ones).
MAX_SUMMARY_DAYS = 7
#: Facts kept for a retry after a failed vector write.
MAX_RETRY_MEMORIES = 1000
#: Graph writes (extracted items) kept for a retry while the graph is down.
MAX_RETRY_GRAPH_ITEMS = 20_000
_NODES_PER_BATCH = 6
_WORD = re.compile(r"[a-z0-9]+")


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


class Consolidator:
    """Turns a user's conversation trace into durable memory (graph + vectors).

    Args:
        memory: The :class:`~langgraph_prax_memory.PraxMemory` facade (vectors, graph, STM).
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
        max_batch_attempts: Failures of one batch before it is abandoned.

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
        memory: PraxMemory,
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
        self.memory = memory
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
        self.states = StateFile(memory.config)
        self.locks = UserRunLock(memory.config)
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
        out = self.graph.invoke(payload, config)
        result: ConsolidationResult = out["consolidation"]
        return result

    async def arun(
        self,
        user_id: str,
        source: TraceSource | Sequence[TraceSource] | None = None,
        *,
        now: datetime | None = None,
        wait: bool | float = True,
    ) -> ConsolidationResult:
        """:meth:`run` in a worker thread (file, lock and store IO block)."""
        return await asyncio.to_thread(self.run, user_id, source, now=now, wait=wait)

    def default_sources(self, user_id: str) -> list[TraceSource]:
        """Every source of the user the consolidator can find (see :meth:`run`)."""
        found: dict[str, TraceSource] = {}
        trace = self.memory.config.users_dir / user_dir_name(user_id) / "trace.log"
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
            created, dedup = self._write_memories(user_id, items)
        except (MemoryWriteError, BackendUnavailable, EmbeddingError) as exc:
            logger.warning("retry of %d queued memories failed again: %s", len(items), exc)
            return
        result.memories_retried += len(items)
        result.memories_created += created
        result.memories_deduplicated += dedup
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
        blocked = list(state.get("blocked", []))
        if ss.failed_attempts >= self.max_batch_attempts:
            logger.error(
                "batch %s[%d:%d] of %r failed %d times (%s); abandoning it: %d line(s), %d bytes "
                "are NOT consolidated",
                batch.source_key,
                batch.start,
                batch.end,
                user_id,
                ss.failed_attempts,
                exc,
                batch.lines,
                batch.bytes_seen,
            )
            result.batches_abandoned += 1
            self._advance(ss, batch, state["run_now"])
        else:
            logger.warning(
                "extraction of batch %s[%d:%d] of %r failed (attempt %d of %d): %s; the pointer "
                "stays before it",
                batch.source_key,
                batch.start,
                batch.end,
                user_id,
                ss.failed_attempts,
                self.max_batch_attempts,
                exc,
            )
            blocked.append(batch.source_key)
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
        for content, kind, importance in review:
            try:
                self.memory.stm.add_pending_review(
                    user_id,
                    content[: self.memory.config.max_content_chars],
                    importance=importance,
                    tags=["consolidation", kind],
                )
                result.pending_review += 1
            except Exception as exc:
                logger.error("could not queue a low-confidence %s for review: %s", kind, exc)
                result.errors.append(f"pending_review: {exc}")
        return {"result": result, "accepted": accepted}

    def _node_graph(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
        result = state["result"].model_copy(deep=True)
        user_id = state["user_id"]
        batch = state["plan"][state["index"]]
        accepted = state["accepted"]
        assert accepted is not None
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
            return {"result": result}
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
        return {"result": result}

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
        graph = self.memory.graph
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
        for ent in ext.entities:
            name = (ent.display_name or ent.name).strip()
            merge = p(graph.merge_entity, user_id, name, entity_type=etype(ent.type))
            if call("entity", p(merge, importance=ent.importance, now=when)) is not None:
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
            add = p(graph.add_relation, user_id, rel.source, rel.target, kind, weight=rel.weight)
            evidence = (rel.evidence or "")[:2000] or None
            if call("relation", p(add, evidence=evidence, valid_from=rel.valid_from, now=when)):
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
        if not accepted.facts:
            return {"result": result}
        items = self._memory_items(user_id, batch, accepted, state["run_now"], result)
        try:
            created, dedup = self._write_memories(user_id, items)
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
        result.memories_created += created
        result.memories_deduplicated += dedup
        return {"result": result}

    def _memory_items(
        self,
        user_id: str,
        batch: Batch,
        ext: Extraction,
        now: datetime,
        result: ConsolidationResult,
    ) -> list[dict[str, Any]]:
        names = {e.name.lower(): e.display_name or e.name for e in ext.entities}
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
                ids = self.memory.graph.entity_ids_for(user_id, every)
            except Exception as exc:
                logger.warning("entity ids for consolidated facts unavailable: %s", exc)
        limit = self.memory.config.max_content_chars
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

    def _write_memories(self, user_id: str, items: list[dict[str, Any]]) -> tuple[int, int]:
        """Store items; (created, deduplicated) by per-user content hash."""
        if not items:
            return 0, 0
        store = self.memory.vectors
        hashes = [content_hash(user_id, str(i["content"])) for i in items]
        existing = {
            p.payload.get("content_hash")
            for p in store.scroll(
                user_id,
                flt=ltm_filter(user_id, hashes=sorted(set(hashes))),
                limit=len(hashes) * 4,
            )
        }
        self.memory.remember_many(user_id, items)
        new = {h for h in hashes if h not in existing}
        return len(new), len(items) - len(new)

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
            victims = self.memory.decay(user_id, now=now)
            pruned = self.memory.graph.decay_graph(user_id, now=now)
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
        except Exception as exc:
            logger.error("daily summary of %r failed (%s); retried next run", user_id, exc)
            result.errors.append(f"daily summary: {exc}")
            return {"result": result}
        st = self.states.load(user_id)
        st.last_run_day = today
        if done:
            st.last_summary_day = max(done)
        self.states.save(user_id, st)
        return {"result": result}

    def _day_bounds(self, day: date) -> tuple[datetime, datetime]:
        start = datetime.combine(day, time.min, tzinfo=self.timezone)
        return start.astimezone(UTC), (start + timedelta(days=1)).astimezone(UTC)

    def _summaries(
        self, user_id: str, first: date, today: date, result: ConsolidationResult
    ) -> list[date]:
        """Summarise each day in ``[first, today)`` that has memories (the latest 7)."""
        lo, _ = self._day_bounds(first)
        hi, _ = self._day_bounds(today)
        flt = user_filter(
            user_id,
            *(ltm_filter(user_id).must or []),  # type: ignore[arg-type]
            qm.FieldCondition(
                key="created_ts", range=qm.Range(gte=lo.timestamp(), lt=hi.timestamp())
            ),
            must_not=[
                qm.FieldCondition(
                    key="summary_level", match=qm.MatchAny(any=["daily", "weekly", "global"])
                )
            ],
        )
        by_day: dict[date, list[Memory]] = {}
        for point in self.memory.vectors.scroll(user_id, flt=flt, limit=10_000):
            mem = Memory.from_payload(point.id, point.payload)
            by_day.setdefault(mem.created_at.astimezone(self.timezone).date(), []).append(mem)
        done: list[date] = []
        for day in sorted(by_day)[-MAX_SUMMARY_DAYS:]:
            memories = by_day[day]
            text = summarise_day(day, memories, self.chat_model)
            _, end = self._day_bounds(day)
            self.memory.remember_many(
                user_id,
                [
                    {
                        "content": text[: self.memory.config.max_content_chars],
                        "importance": min(1.0, max(m.importance for m in memories)),
                        "tags": ["daily_summary", "consolidation"],
                        "source": "consolidation",
                        "created_at": (end - timedelta(seconds=1)).isoformat(),
                        "key": f"daily_summary:{day.isoformat()}",
                        "summary_level": "daily",
                    }
                ],
            )
            result.daily_summary = text
            result.daily_summary_days.append(day)
            done.append(day)
        return done

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
