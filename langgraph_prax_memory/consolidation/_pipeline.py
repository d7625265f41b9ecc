"""The consolidation pipeline: a LangGraph ``StateGraph`` with one node per step.

``load → extract → gate → graph_upsert → vector_upsert → commit`` (repeated per batch) ``→
decay → daily_summary → finish``. :class:`Consolidator` owns the collaborators (the memory's
parts, the extractor, the state file, the per-user lock) and builds the graph; ``run`` invokes
it. Its stages live in ``_load``, ``_extract`` (extract and gate), ``_write`` (on
``_supersede``) and ``_maintain``. The graph can also be invoked directly or added to a user's
graph as a subgraph: its input is ``{"user_id"?, "messages"?, "thread_id"?, "trace_path"?,
"now"?, "wait"?}`` (``user_id`` and ``thread_id`` default to ``config["configurable"]``) and
its output ``{"consolidation": ConsolidationResult}``.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph

from langgraph_prax_memory._atomic import disk_write_error
from langgraph_prax_memory._parts import HasParts, MemoryParts, parts_of
from langgraph_prax_memory._progress import ProgressCallback, notify
from langgraph_prax_memory._validation import check_user_id, utcnow
from langgraph_prax_memory.consolidation._base import (
    _NODES_PER_BATCH,
    CONFIDENCE_THRESHOLD,
    DECAY_MIN_INTERVAL,
    MAX_BATCH_ATTEMPTS,
    NEAR_DUPLICATE_COSINE,
    SOURCES_CONFIG_KEY,
    ConsolidationInput,
    ConsolidationOutput,
    _State,
    logger,
)
from langgraph_prax_memory.consolidation._batching import (
    MAX_BATCHES_PER_RUN,
)
from langgraph_prax_memory.consolidation._extract import ExtractStage
from langgraph_prax_memory.consolidation._llm import (
    Extractor,
    LLMExtractor,
    load_chat_model,
)
from langgraph_prax_memory.consolidation._load import LoadStage
from langgraph_prax_memory.consolidation._maintain import MaintainStage
from langgraph_prax_memory.consolidation._models import (
    Batch,
    ConsolidationResult,
    ConsolidationState,
    SourceState,
)
from langgraph_prax_memory.consolidation._rules import RuleBasedExtractor
from langgraph_prax_memory.consolidation._sources import (
    DEFAULT_ROLES,
    TraceSource,
)
from langgraph_prax_memory.consolidation._state import StateFile, user_run_lock
from langgraph_prax_memory.consolidation._write import WriteStage
from langgraph_prax_memory.errors import (
    MemoryValidationError,
)

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


class Consolidator(LoadStage, ExtractStage, WriteStage, MaintainStage):
    """Turns a user's conversation trace into durable memory (graph + vectors).

    Args:
        memory: A :class:`~langgraph_prax_memory.PraxMemory` or its
            :class:`~langgraph_prax_memory._parts.MemoryParts` (long-term memory, graph, STM).
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
                LLMExtractor(
                    self.chat_model,
                    timeout=self.parts.config.consolidation_extraction_timeout,
                )
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
        self.locks = user_run_lock(self.parts.config)
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

        Raises:
            MemoryWriteError: A file of the run (its lock, its state) could not be written;
                a :class:`~langgraph_prax_memory.errors.DiskFullError` when the disk is full.
                Nothing is lost: the trace not yet committed is read again by the next run.

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
        try:
            if progress is None:
                out = self.graph.invoke(payload, config)
            else:
                out = self._stream(payload, config, progress)
        except OSError as exc:  # a full or read-only disk under a file of the run
            raise disk_write_error(
                f"consolidating user {user_id!r} stopped",
                exc,
                "nothing is lost: the pointer stays before every batch not committed, so the "
                "next run (once the disk has room) reads that trace again",
            ) from exc
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
                elif node == "commit" or (
                    node in ("extract", "gate")
                    and "extraction" in values
                    and values.get("extraction") is None
                ):
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

    def node_commit(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
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
        return {
            "result": result,
            "index": state["index"] + 1,
            "extraction": None,
            "accepted": None,
            "candidates": [],
            "judged": [],
        }

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

    def node_finish(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
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

    def after_gate(state: _State) -> Literal["graph_upsert", "extract", "decay"]:
        if state.get("accepted") is not None:
            return "graph_upsert"
        return "extract" if c._next_batch(state) is not None else "decay"

    def after_commit(state: _State) -> Literal["extract", "decay"]:
        return "extract" if c._next_batch(state) is not None else "decay"

    def extract(state: _State, config: RunnableConfig) -> dict[str, Any]:
        index = c._next_batch(state)
        assert index is not None
        return c.node_extract({**state, "index": index}, config)  # type: ignore[typeddict-item]

    builder = StateGraph(_State, input_schema=ConsolidationInput, output_schema=ConsolidationOutput)
    steps: list[tuple[str, Callable[[_State, RunnableConfig], dict[str, Any]]]] = [
        ("load", c.node_load),
        ("extract", extract),
        ("gate", c.node_gate),
        ("graph_upsert", c.node_graph),
        ("vector_upsert", c.node_vector),
        ("commit", c.node_commit),
        ("decay", c.node_decay),
        ("daily_summary", c.node_summary),
        ("finish", c.node_finish),
    ]
    for name, fn in steps:
        node: Any = _guarded(c, fn)  # typed loosely: LangGraph's node protocols match by name
        builder.add_node(name, node)
    builder.add_edge(START, "load")
    builder.add_conditional_edges("load", after_load, ["extract", "decay", "finish"])
    builder.add_conditional_edges("extract", after_extract, ["gate", "extract", "decay"])
    builder.add_conditional_edges("gate", after_gate, ["graph_upsert", "extract", "decay"])
    builder.add_edge("graph_upsert", "vector_upsert")
    builder.add_edge("vector_upsert", "commit")
    builder.add_conditional_edges("commit", after_commit, ["extract", "decay"])
    builder.add_edge("decay", "daily_summary")
    builder.add_edge("daily_summary", "finish")
    builder.add_edge("finish", END)
    graph = builder.compile(checkpointer=checkpointer, name="prax_consolidation")
    return graph.with_config(recursion_limit=c.recursion_limit)  # type: ignore[return-value]
