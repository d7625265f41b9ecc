"""The load stage: trace sources, reconciliation with the state file, the retry queues."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from langchain_core.runnables import RunnableConfig

from langgraph_prax_memory._validation import check_user_id, to_utc, user_dir_name, utcnow
from langgraph_prax_memory.consolidation._base import (
    MAX_BATCH_ATTEMPTS,
    MAX_RETRY_GRAPH_ITEMS,
    SOURCES_CONFIG_KEY,
    ConsolidatorBase,
    _item_hash,
    _State,
    logger,
)
from langgraph_prax_memory.consolidation._batching import (
    backlog,
    plan_batches,
)
from langgraph_prax_memory.consolidation._models import (
    Batch,
    ConsolidationResult,
    ConsolidationState,
    GraphRetry,
    SourceState,
    TraceItem,
)
from langgraph_prax_memory.consolidation._sources import (
    CheckpointTraceSource,
    MessagesTraceSource,
    TraceLogSource,
    TraceSource,
    describe,
    fingerprint,
)
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    EmbeddingError,
    MemoryValidationError,
    MemoryWriteError,
)


class LoadStage(ConsolidatorBase):
    """The load stage: trace sources, reconciliation with the state file, the retry queues."""

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

    def node_load(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
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
        """Write the queued facts again; retire what those that replace memories replace."""
        items = st.retry_memories
        try:
            written = self._write_memories(user_id, items, result)
            replaced = [
                (list(i["_replaces"]), to_utc(i.get("created_at") or utcnow()), str(i["content"]))
                for i in items
                if i.get("_replaces")
            ]
            retired = self._retire_replaced(user_id, replaced, written.landed, result)
            if retired:
                self._rebuild_summaries(user_id, [], result, retired=retired)
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
