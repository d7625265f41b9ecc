"""Triggers: consolidate every N completed turns, from the checkpointer or from a graph node."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
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

from langgraph_prax_memory.consolidation._models import ConsolidationResult
from langgraph_prax_memory.consolidation._pipeline import Consolidator
from langgraph_prax_memory.consolidation._sources import (
    CheckpointTraceSource,
    MessagesTraceSource,
    TraceSource,
)

if TYPE_CHECKING:
    from langgraph_prax_memory.memory import PraxMemory

__all__ = ["ConsolidatingCheckpointer", "consolidate_if_due", "is_turn_end"]

logger = logging.getLogger(__name__)

#: Turns between two automatic consolidations (the seed's ``_CONSOLIDATE_EVERY_N_TURNS``).
DEFAULT_EVERY_N_TURNS = 5
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

    Args:
        saver: The checkpointer to wrap (``InMemorySaver``, ``SqliteSaver``, ...).
        memory: A :class:`~langgraph_prax_memory.PraxMemory` (a :class:`Consolidator` is built)
            or a ready :class:`Consolidator`.
        every_n_turns: Completed turns per user between consolidations (5).
        inline: Consolidate synchronously inside ``put`` instead of in the background.
        user_id_key: The ``configurable`` key holding the user id.

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
        memory: PraxMemory | Consolidator,
        *,
        every_n_turns: int = DEFAULT_EVERY_N_TURNS,
        inline: bool = False,
        user_id_key: str = "user_id",
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
            due = self._turns[user] >= self.every_n_turns and user not in self._running
            if due:
                self._running.add(user)
        return user if due else None

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
        """Wait for background work and stop the worker threads."""
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
) -> Callable[[dict[str, Any], RunnableConfig], dict[str, Any]]:
    """A graph node that consolidates the thread when ``every_n_turns`` user turns are new.

    Put it on the edge that ends a turn (``agent → consolidate_if_due → END``). It reads the
    messages from the node's state and the user from ``config["configurable"][user_id_key]``
    (or ``state[user_id_key]``); "due" means at least ``every_n_turns`` user messages past the
    thread's pointer in the state file, so the count survives restarts. It returns no state
    update. The thread's pointer is shared with :class:`ConsolidatingCheckpointer`.

    Args:
        consolidator: The :class:`Consolidator` to run.
        every_n_turns: User turns between consolidations.
        messages_key: The state key of the messages.
        user_id_key: Where the user id is found.
        background: Run the consolidation in a daemon thread instead of inside the node.

    Example:
        >>> node = consolidate_if_due(Consolidator(memory))             # doctest: +SKIP
        >>> builder.add_node("consolidate", node)                       # doctest: +SKIP
        >>> builder.add_edge("agent", "consolidate")                     # doctest: +SKIP
    """
    if every_n_turns < 1:
        raise ValueError("every_n_turns must be at least 1")

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
            if consolidator.pending_turns(user, source) < every_n_turns:
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
