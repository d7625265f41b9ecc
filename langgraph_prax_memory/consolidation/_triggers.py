"""Triggers: consolidate every N completed turns, from the checkpointer or from a graph node."""

from __future__ import annotations

import asyncio
import builtins
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)

from langgraph_prax_memory._validation import to_utc, utcnow
from langgraph_prax_memory.consolidation._models import ConsolidationResult
from langgraph_prax_memory.consolidation._pipeline import Consolidator
from langgraph_prax_memory.consolidation._sources import (
    CheckpointTraceSource,
    MessagesTraceSource,
    TraceSource,
)

if TYPE_CHECKING:
    from langgraph_prax_memory._parts import HasParts, MemoryParts

__all__ = ["ConsolidatingCheckpointer", "consolidate_if_due", "is_turn_end"]

logger = logging.getLogger(__name__)

#: Turns between two automatic consolidations (the seed's ``_CONSOLIDATE_EVERY_N_TURNS``).
DEFAULT_EVERY_N_TURNS = 5
#: Longest pause of the background timer between two checks for due users (seconds).
TIMER_POLL_SECONDS = 60.0


def _interval(value: float | timedelta | None, parts: MemoryParts) -> timedelta | None:
    """The time-based schedule: explicit, else ``MEMORY_CONSOLIDATION_INTERVAL`` (0 = off)."""
    if value is None:
        value = float(getattr(parts.config, "consolidation_interval", 0) or 0)
    seconds = value.total_seconds() if isinstance(value, timedelta) else float(value)
    if seconds < 0:
        raise ValueError("interval must be >= 0 seconds")
    return timedelta(seconds=seconds) if seconds > 0 else None


_PENDING_CHANNELS = ("branch:to:", "__start__", "__pregel_tasks")


def is_turn_end(checkpoint: Checkpoint, metadata: CheckpointMetadata | None) -> bool:
    """Whether ``checkpoint`` is the last one of a graph run (nothing left to execute).

    LangGraph saves a ``source="loop"`` checkpoint after every super-step; ``updated_channels``
    of that checkpoint contains a ``branch:to:<node>`` trigger (or a ``Send``) exactly when
    another step follows. Without ``updated_channels`` (old checkpoints) the last message is
    checked instead: an AI message without tool calls ends a turn.
    """
    if (metadata or {}).get("source") != "loop":
        return False
    updated = checkpoint.get("updated_channels")
    if updated is not None:
        return not any(str(c).startswith(_PENDING_CHANNELS) for c in updated)
    messages = checkpoint.get("channel_values", {}).get("messages") or []
    last = messages[-1] if messages else None
    return isinstance(last, AIMessage) and not last.tool_calls


class ConsolidatingCheckpointer(BaseCheckpointSaver[Any]):
    """A checkpointer wrapper that consolidates every ``every_n_turns`` completed turns per user.

    Wraps any ``BaseCheckpointSaver``: every call is delegated. When a checkpoint that ends a
    turn (see :func:`is_turn_end`) is saved for a top-level thread whose config carries
    ``configurable[user_id_key]``, the user's turn count goes up; at ``every_n_turns`` the
    user's touched threads are consolidated from their checkpoints in a background thread
    (``inline=True`` runs it inside ``put``, for tests). A run that finds the user busy leaves
    the count as it is, so the next turn tries again. Saved checkpoint metadata is stamped with
    ``user_id`` so :meth:`Consolidator.run` can find a user's threads later.

    **Time-based schedule.** Besides every N turns, a user with at least one unconsolidated
    turn is consolidated once ``interval`` has passed since their last consolidation (or
    since their first counted turn): at their next turn, or by the background timer (a daemon
    thread checking every ``min(interval, 60 s)``, started with the first counted turn;
    ``timer=False`` leaves it to :meth:`run_due`, e.g. from a cron job). The default
    interval is ``MEMORY_CONSOLIDATION_INTERVAL`` (3,600 s; 0 turns the schedule off), read
    when the wrapper is built.

    Args:
        saver: The checkpointer to wrap (``InMemorySaver``, ``SqliteSaver``, ...).
        memory: A :class:`~langgraph_prax_memory.PraxMemory` (a :class:`Consolidator` is built)
            or a ready :class:`Consolidator`.
        every_n_turns: Completed turns per user between consolidations (5).
        inline: Consolidate synchronously inside ``put`` instead of in the background.
        user_id_key: The ``configurable`` key holding the user id.
        interval: Seconds (or a ``timedelta``) after which pending turns are consolidated
            anyway; ``None`` reads ``config.consolidation_interval``; 0 disables it.
        clock: The current time (injectable for tests).
        timer: Run the background timer (ignored when there is no interval or ``inline``).

    Example:
        >>> from langgraph.checkpoint.memory import InMemorySaver
        >>> saver = ConsolidatingCheckpointer(InMemorySaver(), memory)   # doctest: +SKIP
        >>> graph = builder.compile(checkpointer=saver)                  # doctest: +SKIP
        >>> graph.invoke(inputs, {"configurable": {"thread_id": "t1", "user_id": "alice"}})
        ... # doctest: +SKIP
    """

    def __init__(
        self,
        saver: BaseCheckpointSaver[Any],
        memory: MemoryParts | HasParts | Consolidator,
        *,
        every_n_turns: int = DEFAULT_EVERY_N_TURNS,
        inline: bool = False,
        user_id_key: str = "user_id",
        interval: float | timedelta | None = None,
        clock: Callable[[], datetime] = utcnow,
        timer: bool = True,
    ) -> None:
        super().__init__(serde=saver.serde)
        if every_n_turns < 1:
            raise ValueError("every_n_turns must be at least 1")
        self.saver = saver
        if isinstance(memory, Consolidator):
            self.consolidator = memory
            if memory.checkpointer is None:
                memory.checkpointer = saver
        else:
            self.consolidator = Consolidator(memory, checkpointer=saver)
        #: Time after which a user's pending turns are consolidated anyway (``None``: off).
        self.interval = _interval(interval, self.consolidator.parts)
        self.clock = clock
        self.timer = timer and self.interval is not None and not inline
        self._since: dict[str, datetime] = {}
        self._stop = threading.Event()
        self._timer_thread: threading.Thread | None = None
        self.every_n_turns = every_n_turns
        self.inline = inline
        self.user_id_key = user_id_key
        self._guard = threading.Lock()
        self._turns: dict[str, int] = {}
        self._threads: dict[str, set[tuple[str, str]]] = {}
        self._running: set[str] = set()
        self._futures: set[Future[Any]] = set()
        self._executor: ThreadPoolExecutor | None = None
        #: The last result per user (background runs report here and in the log).
        self.last_results: dict[str, ConsolidationResult] = {}

    # -- delegation ------------------------------------------------------------------------
    @property
    def config_specs(self) -> list[Any]:
        """The wrapped saver's config specs."""
        return list(self.saver.config_specs)

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Delegated."""
        return self.saver.get_tuple(config)

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """Delegated."""
        return self.saver.list(config, filter=filter, before=before, limit=limit)

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Delegated."""
        self.saver.put_writes(config, writes, task_id, task_path)

    def delete_thread(self, thread_id: str) -> None:
        """Delegated."""
        self.saver.delete_thread(thread_id)

    def get_next_version(self, current: Any, channel: None) -> Any:
        """Delegated."""
        return self.saver.get_next_version(current, channel)

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Delegated."""
        return await self.saver.aget_tuple(config)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """Delegated."""
        async for item in self.saver.alist(config, filter=filter, before=before, limit=limit):
            yield item

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Delegated."""
        await self.saver.aput_writes(config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        """Delegated."""
        await self.saver.adelete_thread(thread_id)

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Delegated."""
        self.saver.copy_thread(source_thread_id, target_thread_id)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Delegated."""
        await self.saver.acopy_thread(source_thread_id, target_thread_id)

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delegated."""
        self.saver.delete_for_runs(run_ids)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delegated."""
        await self.saver.adelete_for_runs(run_ids)

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """Delegated."""
        self.saver.prune(thread_ids, strategy=strategy)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """Delegated."""
        await self.saver.aprune(thread_ids, strategy=strategy)

    def get_delta_channel_history(self, *, config: RunnableConfig, channels: Sequence[str]) -> Any:
        """Delegated."""
        return self.saver.get_delta_channel_history(config=config, channels=channels)

    async def aget_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Any:
        """Delegated."""
        return await self.saver.aget_delta_channel_history(config=config, channels=channels)

    def __getattr__(self, name: str) -> Any:
        # Anything else the wrapped saver offers (setup(), conn, ...).
        if name == "saver":
            raise AttributeError(name)
        return getattr(self.saver, name)

    # -- the hook --------------------------------------------------------------------------
    def _stamp(self, config: RunnableConfig, metadata: CheckpointMetadata) -> CheckpointMetadata:
        user = (config.get("configurable") or {}).get(self.user_id_key)
        if isinstance(user, str) and user and metadata.get("user_id") != user:  # type: ignore[typeddict-item]
            stamped = dict(metadata)
            stamped["user_id"] = user
            return stamped  # type: ignore[return-value]
        return metadata

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Save through the wrapped saver, then count the turn if this checkpoint ends one."""
        saved = self.saver.put(config, checkpoint, self._stamp(config, metadata), new_versions)
        user = self._observe(config, checkpoint, metadata)
        if user is not None:
            self._fire(user)
        return saved

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Async :meth:`put`; an inline consolidation runs in a worker thread."""
        stamped = self._stamp(config, metadata)
        saved = await self.saver.aput(config, checkpoint, stamped, new_versions)
        user = self._observe(config, checkpoint, metadata)
        if user is not None:
            if self.inline:
                await asyncio.to_thread(self._fire, user)
            else:
                self._fire(user)
        return saved

    def _observe(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata
    ) -> str | None:
        """Count a completed turn; the user id when a consolidation is due."""
        conf = config.get("configurable") or {}
        if conf.get("checkpoint_ns") or not is_turn_end(checkpoint, metadata):
            return None
        user = conf.get(self.user_id_key)
        thread = conf.get("thread_id")
        if not isinstance(user, str) or not user or thread is None:
            return None
        with self._guard:
            self._turns[user] = self._turns.get(user, 0) + 1
            self._threads.setdefault(user, set()).add((str(thread), ""))
            self._since.setdefault(user, to_utc(self.clock()))
            due = (
                self._turns[user] >= self.every_n_turns or self._elapsed(user)
            ) and user not in self._running
            if due:
                self._running.add(user)
        self._start_timer()
        return user if due else None

    def _elapsed(self, user: str, now: datetime | None = None) -> bool:
        """Whether ``interval`` has passed since ``user``'s last consolidation (lock held)."""
        if self.interval is None or self._turns.get(user, 0) < 1:
            return False
        since = self._since.get(user)
        return since is not None and to_utc(now or self.clock()) - since >= self.interval

    def run_due(self, now: datetime | None = None) -> builtins.list[str]:
        """Consolidate every user whose interval has passed with turns pending.

        Called by the background timer; call it yourself (a cron job, a test with an
        injected clock) with ``timer=False``. Runs go through the same path as the turn
        trigger (background unless ``inline``). Returns the users started.

        Example:
            >>> saver = ConsolidatingCheckpointer(InMemorySaver(), memory, interval=60,
            ...                                   timer=False)          # doctest: +SKIP
            >>> saver.run_due()                                          # doctest: +SKIP
            ['alice']
        """
        with self._guard:
            due = [u for u in self._turns if u not in self._running and self._elapsed(u, now)]
            self._running.update(due)
        for user in due:
            self._fire(user)
        return due

    def _start_timer(self) -> None:
        if not self.timer or self._timer_thread is not None or self._stop.is_set():
            return
        with self._guard:
            if self._timer_thread is not None:
                return
            thread = threading.Thread(
                target=self._tick, name="prax-consolidation-timer", daemon=True
            )
            self._timer_thread = thread
        thread.start()

    def _tick(self) -> None:
        assert self.interval is not None
        pause = min(self.interval.total_seconds(), TIMER_POLL_SECONDS)
        while not self._stop.wait(pause):
            try:
                self.run_due()
            except Exception:  # the timer never dies of one failed run
                logger.exception("scheduled consolidation check failed")

    def _fire(self, user: str) -> None:
        if self.inline:
            self._consolidate(user)
            return
        with self._guard:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    max_workers=2, thread_name_prefix="prax-consolidate"
                )
            future = self._executor.submit(self._consolidate, user)
            self._futures.add(future)
        future.add_done_callback(self._futures.discard)

    def _consolidate(self, user: str) -> ConsolidationResult | None:
        with self._guard:
            threads = sorted(self._threads.get(user, set()))
            turns = self._turns.get(user, 0)
        sources: list[TraceSource] = [
            CheckpointTraceSource(
                self.saver,
                thread,
                checkpoint_ns=ns,
                messages_key=self.consolidator.messages_key,
                roles=self.consolidator.roles,
            )
            for thread, ns in threads
        ]
        result: ConsolidationResult | None = None
        try:
            result = self.consolidator.run(user, sources, wait=False)
        except Exception:
            logger.exception("automatic consolidation of %r failed", user)
        finally:
            with self._guard:
                self._running.discard(user)
                if result is not None and result.skipped is None:
                    self._turns[user] = max(0, self._turns.get(user, 0) - turns)
                    self._threads[user] -= set(threads)
                    self._since[user] = to_utc(self.clock())
        if result is not None:
            self.last_results[user] = result
        return result

    def turns(self, user_id: str) -> int:
        """Completed turns of ``user_id`` since its last automatic consolidation."""
        with self._guard:
            return self._turns.get(user_id, 0)

    def flush(self, timeout: float | None = None) -> None:
        """Wait for background consolidations to finish (tests, shutdown)."""
        with self._guard:
            pending = list(self._futures)
        for future in pending:
            future.result(timeout=timeout)

    def close(self) -> None:
        """Stop the timer, wait for background work and stop the worker threads."""
        self._stop.set()
        thread = self._timer_thread
        if thread is not None:
            thread.join(timeout=5)
        self.flush()
        with self._guard:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)


def consolidate_if_due(
    consolidator: Consolidator,
    *,
    every_n_turns: int = DEFAULT_EVERY_N_TURNS,
    messages_key: str = "messages",
    user_id_key: str = "user_id",
    background: bool = False,
    interval: float | timedelta | None = None,
    clock: Callable[[], datetime] = utcnow,
) -> Callable[[dict[str, Any], RunnableConfig], dict[str, Any]]:
    """A graph node that consolidates the thread when ``every_n_turns`` user turns are new.

    Put it on the edge that ends a turn (``agent → consolidate_if_due → END``). It reads the
    messages from the node's state and the user from ``config["configurable"][user_id_key]``
    (or ``state[user_id_key]``); "due" means at least ``every_n_turns`` user messages past the
    thread's pointer in the state file, so the count survives restarts. It is also due when
    at least one user message is pending and ``interval`` has passed since the user's last
    consolidation (``last_run_at`` in the state file; for a user never consolidated, since
    the oldest pending message's time). It returns no state update. The thread's pointer is
    shared with :class:`ConsolidatingCheckpointer`.

    Args:
        consolidator: The :class:`Consolidator` to run.
        every_n_turns: User turns between consolidations.
        messages_key: The state key of the messages.
        user_id_key: Where the user id is found.
        background: Run the consolidation in a daemon thread instead of inside the node.
        interval: Seconds (or a ``timedelta``) after which pending turns are due anyway;
            ``None`` reads ``MEMORY_CONSOLIDATION_INTERVAL`` (``config.consolidation_interval``,
            at construction); 0 disables it.
        clock: The current time (injectable for tests).

    Example:
        >>> node = consolidate_if_due(Consolidator(memory))             # doctest: +SKIP
        >>> builder.add_node("consolidate", node)                       # doctest: +SKIP
        >>> builder.add_edge("agent", "consolidate")                     # doctest: +SKIP
    """
    if every_n_turns < 1:
        raise ValueError("every_n_turns must be at least 1")
    schedule = _interval(interval, consolidator.parts)

    def due_by_time(user: str, source: TraceSource) -> bool:
        if schedule is None:
            return False
        state = consolidator.state(user)
        since = state.last_run_at
        if since is None:
            pointer = state.sources.get(source.key)
            pending = source.read(since=pointer.pointer if pointer else 0)
            known = [i.timestamp for i in pending if i.timestamp is not None]
            since = min(known) if known else None
        return since is not None and to_utc(clock()) - to_utc(since) >= schedule

    def node(state: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        conf = config.get("configurable") or {}
        user = conf.get(user_id_key) or state.get(user_id_key)
        messages = state.get(messages_key) or []
        if not isinstance(user, str) or not user or not messages:
            return {}
        source = MessagesTraceSource(
            messages,
            thread_id=str(conf.get("thread_id") or "default"),
            roles=consolidator.roles,
        )
        try:
            pending = consolidator.pending_turns(user, source)
            if pending < 1 or (pending < every_n_turns and not due_by_time(user, source)):
                return {}
        except Exception as exc:
            logger.warning("could not check whether consolidation is due for %r: %s", user, exc)
            return {}

        def work() -> None:
            try:
                consolidator.run(user, source, wait=False)
            except Exception:
                logger.exception("consolidation of %r from a graph node failed", user)

        if background:
            threading.Thread(target=work, name="prax-consolidate-node", daemon=True).start()
        else:
            work()
        return {}

    return node
