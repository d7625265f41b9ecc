"""``PraxMemoryStore``: a LangGraph ``BaseStore`` on the Prax long-term memory.

Any namespace works, so LangMem's tools and LangGraph's ``get_store()`` use it unchanged;
``("memories", user_id)`` is the long-term memory of that user, the same points
:class:`~langgraph_prax_memory.PraxMemory` reads and writes.

The class keeps the ``BaseStore`` surface, ``batch`` / ``abatch`` and tenancy; its parts are
private modules beside it: ``_filters`` (store filters: the exact Python check and what the
engine applies), ``_plan`` (checks and planned puts, the write), ``_reads`` (query search,
scans, namespace listing), ``_stm`` (the scratchpad namespace), ``_ttl`` (expiry, sweeps,
the sweeper thread) and ``_embed`` (``index["embed"]`` as an embedder).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
import time
import weakref
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TypedDict, Unpack

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)
from qdrant_client.http import models

from langgraph_prax_memory._validation import check_user_id
from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.errors import BackendUnavailable, ConfigError, MemoryValidationError
from langgraph_prax_memory.memory import PraxMemory
from langgraph_prax_memory.store._batching import _Queue, _worker_done, drain, run_batches
from langgraph_prax_memory.store._embed import _embedder, _width
from langgraph_prax_memory.store._filters import (
    HISTORY_FILTER_KEYS as HISTORY_FILTER_KEYS,
)
from langgraph_prax_memory.store._filters import (
    _engine_filter,
    _history_option,
    _prefix_condition,
)
from langgraph_prax_memory.store._plan import (
    _check_namespace,
    _item,
    _Put,
    check_reads,
    plan_puts,
    write_puts,
)
from langgraph_prax_memory.store._reads import fetch_gets, list_namespaces, query_user, scan
from langgraph_prax_memory.store._stm import STM_ROOT as STM_ROOT
from langgraph_prax_memory.store._stm import _is_stm, _stm_item, stm_search
from langgraph_prax_memory.store._ttl import (
    TTL_MINUTES as TTL_MINUTES,
)
from langgraph_prax_memory.store._ttl import (
    Sweeper,
    _check_ttl,
    _expired,
    _facet,
    refresh,
    sweep_expired,
)
from langgraph_prax_memory.vectors import EXPIRES_AT as EXPIRES_AT
from langgraph_prax_memory.vectors import StoredPoint, point_id, unexpired, user_filter

__all__ = ["PraxMemoryStore", "StoreOptions"]

logger = logging.getLogger(__name__)

#: Tenant of the namespaces too short to name a user (``("memories",)`` with the default
#: ``tenant_index=1``). Namespace labels cannot hold a ``.``, so no namespace names it as a user.
SHARED_TENANT = ".shared"


class StoreOptions(TypedDict, total=False):
    """The keyword options of :class:`PraxMemoryStore`, as its one-line constructors take them."""

    index: IndexConfig | None
    ttl: TTLConfig | None
    tenant_index: int
    allow_cross_tenant: bool
    allow_cross_tenant_listing: bool
    shared_tenant: str


_STORE_OPTIONS = frozenset(StoreOptions.__annotations__)


class PraxMemoryStore(BaseStore):
    """A LangGraph ``BaseStore`` backed by Prax memory (Qdrant, dense + sparse vectors).

    Behaves like LangGraph's ``InMemoryStore`` / ``PostgresStore`` for ``get``/``put``/
    ``delete``/``list_namespaces`` and filter-only ``search`` (namespace prefixes matched by
    segment, ``$eq/$ne/$gt/$gte/$lt/$lte`` filters, ``limit``/``offset``, ``index=False``,
    ``index`` fields, TTL). ``search`` with a ``query`` ranks with the same pipeline as
    ``PraxMemory.recall`` (without reinforcing) and returns its scores: calibrated relevance in
    [0, 1], comparable across queries and users (0.5 is the relevance floor; see
    :class:`~langgraph_prax_memory.MemoryHit`), so a cross-tenant search merges them as is.

    **Scratchpad.** ``("stm", user_id)`` is routed to the user's STM file (entries
    ``{content, importance, tags}``), not to Qdrant: it works even when LTM is down.

    **Tenancy.** Each item belongs to the user at position ``tenant_index`` of its namespace
    (``("memories", user_id)`` → ``user_id``). A namespace too short to have that label
    (``("memories",)``) belongs to the store's *shared* tenant (:data:`SHARED_TENANT`), and so
    does every read whose prefix stops above the user label: ``search(("memories",))`` and
    ``list_namespaces()`` see the shared namespaces, never a user's items. Reads that span
    users need ``allow_cross_tenant=True`` (admin tools: run once per user and merged);
    ``allow_cross_tenant_listing=True`` opens only ``list_namespaces`` to every tenant (what
    LangGraph Studio's memory browser needs), while content reads stay pinned to one user.

    **TTL.** ``put(..., ttl=minutes)`` and ``ttl=TTLConfig(default_ttl=..., refresh_on_read=...,
    sweep_interval_minutes=...)`` work as in ``PostgresStore``: the expiry is stored with the
    item, expired items are invisible at once (the engine filters them out), reads with
    ``refresh_ttl`` extend them, and :meth:`start_ttl_sweeper` deletes them in the background.

    **Time.** An item may carry its own ``created_at`` (ISO string, datetime or epoch seconds)
    in its value: imported history keeps its time, and decay and the store's ``created_at`` use
    it. Updates keep the first write's ``created_at`` otherwise.

    Args:
        memory: The :class:`PraxMemory` to store into (never closed by the store). A
            :class:`MemoryConfig`, or nothing (the environment), makes the store build one
            (with ``index["embed"]``, if given) that it owns and closes on :meth:`close`.
        index: LangGraph's index config. ``embed`` (an ``Embeddings``, a function, or a
            ``"provider:model"`` string) and ``dims`` become the memory's dense embedder when
            the store builds the memory; with a given ``memory`` they must name its embedder
            and width (``ConfigError`` otherwise). ``fields``: the paths to index. Without
            ``fields``, a string ``content`` field or else the whole value is embedded.
        ttl: LangGraph's ``TTLConfig``.
        tenant_index: Namespace position of the user id.
        allow_cross_tenant: Permit reads whose prefix does not name a user (across users).
        allow_cross_tenant_listing: Permit ``list_namespaces`` across users (content reads
            stay pinned).
        shared_tenant: The tenant of namespaces without a user label.

    Example:
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryStore
        >>> store = PraxMemoryStore(PraxMemory(MemoryConfig(qdrant_url=":memory:")))
        >>> store.put(("memories", "alice"), "m1", {"content": "Alice likes tea"})
        >>> store.search(("memories", "alice"), query="drinks")[0].key
        'm1'
    """

    supports_ttl = True

    def __init__(
        self,
        memory: PraxMemory | MemoryConfig | None = None,
        *,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        tenant_index: int = 1,
        allow_cross_tenant: bool = False,
        allow_cross_tenant_listing: bool = False,
        shared_tenant: str = SHARED_TENANT,
    ) -> None:
        if isinstance(tenant_index, bool) or not isinstance(tenant_index, int) or tenant_index < 0:
            raise MemoryValidationError("tenant_index must be an integer >= 0")
        if ttl is not None and not isinstance(ttl, Mapping):
            raise MemoryValidationError("ttl must be a TTLConfig (a dict)")
        self.ttl_config = TTLConfig(**ttl) if ttl else None  # type: ignore[typeddict-item]
        if self.ttl_config and self.ttl_config.get("default_ttl") is not None:
            _check_ttl(self.ttl_config["default_ttl"])
        self.tenant_index = tenant_index
        self.allow_cross_tenant = allow_cross_tenant
        self.allow_cross_tenant_listing = allow_cross_tenant_listing
        self.shared_tenant = check_user_id(shared_tenant)
        self.index_config: IndexConfig | None = IndexConfig(**index) if index else None  # type: ignore[typeddict-item]
        fields = index.get("fields") if index else None
        self.index_fields: list[str] | None = list(fields) if fields else None
        embed = index.get("embed") if index else None
        dims = index.get("dims") if index else None
        if dims is not None and (isinstance(dims, bool) or not isinstance(dims, int) or dims < 1):
            raise ConfigError(f"index['dims'] must be a positive integer, got {dims!r}")
        self._owns_memory = not isinstance(memory, PraxMemory)
        if not isinstance(memory, PraxMemory):
            emb = _embedder(embed) if embed is not None else None
            if emb is not None:
                width = _width(emb)
                if dims is not None and width != dims:
                    raise ConfigError(
                        f"index['dims'] is {dims} but index['embed'] returns {width}-dimensional "
                        "vectors"
                    )
                dims = width
            memory = PraxMemory(memory, embeddings=emb, embedding_dimension=dims if emb else None)
        elif embed is not None and not self._is_memory_embedder(memory, embed):
            raise ConfigError(
                "index['embed'] names another embedder than the given PraxMemory's: one "
                "collection holds one vector space. Pass the embedder to PraxMemory("
                "embeddings=..., embedding_dimension=...), or let the store build the memory "
                "(PraxMemoryStore(index=...), PraxMemoryStore.from_data_dir(path, index=...))."
            )
        self.memory = memory
        self._queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Queue] = (
            weakref.WeakKeyDictionary()
        )
        self._sweeper = Sweeper()
        try:
            if dims is not None and dims != memory.embeddings.dimension:
                raise ConfigError(
                    f"index['dims'] is {dims} but the memory's embedder produces "
                    f"{memory.embeddings.dimension}-dimensional vectors"
                )
            if index is not None and (embed is not None or dims is not None):
                self._check_collection_width()
        except BaseException:
            if self._owns_memory:  # release the folder of a memory nobody else holds
                memory.close()
            raise

    @staticmethod
    def _is_memory_embedder(memory: PraxMemory, embed: object) -> bool:
        dense = memory.embeddings
        return embed is dense or embed is dense.primary

    def _check_collection_width(self) -> None:
        """A ``ConfigError`` now if the collection holds vectors of another width."""
        try:
            self.setup()
        except ConfigError as exc:
            raise ConfigError(
                f"index['dims'] = {self.memory.embeddings.dimension} does not fit the "
                f"existing collection: {exc}"
            ) from exc
        except BackendUnavailable as exc:  # checked again on first use
            logger.warning("could not check the collection width yet: %s", exc)

    # -- construction and lifecycle -----------------------------------------------------
    @classmethod
    def from_config(
        cls, config: MemoryConfig | None = None, **options: Unpack[StoreOptions]
    ) -> PraxMemoryStore:
        """A store over a memory built from ``config`` (the environment when omitted).

        ``options`` are the constructor's keyword arguments (``index``, ``ttl``, ...). The
        store owns that memory: :meth:`close` (or leaving ``with`` / ``async with``) closes it.

        Example:
            >>> from langgraph_prax_memory import MemoryConfig, PraxMemoryStore
            >>> with PraxMemoryStore.from_config(MemoryConfig(qdrant_url=":memory:")) as store:
            ...     store.put(("memories", "alice"), "k", {"content": "likes tea"})
        """
        return cls(config, **options)

    @classmethod
    def from_data_dir(cls, path: str | Path, **kwargs: Any) -> PraxMemoryStore:
        """A store whose memory lives in ``path`` (the embedded defaults: offline).

        Keyword arguments named like the constructor's (``index``, ``ttl``, ...) configure
        the store; the others are :class:`MemoryConfig` fields, and the rest of the
        configuration comes from the environment, as for ``MemoryConfig()``. The store owns
        the memory it built.

        Example:
            >>> import tempfile
            >>> from langgraph_prax_memory import PraxMemoryStore
            >>> with PraxMemoryStore.from_data_dir(tempfile.mkdtemp()) as store:
            ...     store.put(("memories", "alice"), "k", {"content": "likes tea"})
            ...     print(store.get(("memories", "alice"), "k").value["content"])
            likes tea
        """
        options = {k: kwargs.pop(k) for k in _STORE_OPTIONS if k in kwargs}
        return cls(MemoryConfig(data_dir=Path(path), **kwargs), **options)

    def setup(self) -> None:
        """Create the collection (or check its width) now; idempotent, safe to call twice.

        Without it the collection is created on first use. Raises ``ConfigError`` if the
        existing collection holds vectors of another width, ``BackendUnavailable`` if Qdrant
        cannot be reached (or LTM is disabled).
        """
        self.memory.vectors.ensure_collection()

    async def asetup(self) -> None:
        """:meth:`setup` off the event loop."""
        await asyncio.to_thread(self.setup)

    def close(self) -> None:
        """Stop the TTL sweeper and close the memory if the store built it; idempotent."""
        self.stop_ttl_sweeper()
        if self._owns_memory:
            self.memory.close()

    async def aclose(self) -> None:
        """:meth:`close` off the event loop."""
        await asyncio.to_thread(self.close)

    def __enter__(self) -> PraxMemoryStore:
        self._start_configured_sweeper()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> PraxMemoryStore:
        self._start_configured_sweeper()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def _start_configured_sweeper(self) -> None:
        if self.ttl_config and self.ttl_config.get("sweep_interval_minutes"):
            self.start_ttl_sweeper()

    # -- TTL ----------------------------------------------------------------------------
    def sweep_ttl(self) -> int:
        """Delete every expired item now (all users); returns how many were deleted.

        An administrative pass, like ``PostgresStore.sweep_ttl``: it finds expired points
        across tenants, then deletes them with one user-pinned delete per user.
        """
        return sweep_expired(self.memory.vectors)

    async def asweep_ttl(self) -> int:
        """:meth:`sweep_ttl` off the event loop."""
        return await asyncio.to_thread(self.sweep_ttl)

    def start_ttl_sweeper(
        self, sweep_interval_minutes: float | None = None
    ) -> concurrent.futures.Future[None]:
        """Delete expired items in a background thread every ``sweep_interval_minutes``.

        The interval defaults to ``ttl["sweep_interval_minutes"]``, else 5 minutes. Starting
        it twice keeps the running thread. A failed sweep is logged and retried at the next
        interval. Returns a future that completes when the sweeper stops (cancel it to stop).

        Example:
            >>> from langgraph_prax_memory import MemoryConfig, PraxMemoryStore
            >>> store = PraxMemoryStore.from_config(
            ...     MemoryConfig(qdrant_url=":memory:"), ttl={"default_ttl": 60}
            ... )
            >>> _ = store.start_ttl_sweeper(sweep_interval_minutes=1)
            >>> store.stop_ttl_sweeper()
            True
            >>> store.close()
        """
        configured = (self.ttl_config or {}).get("sweep_interval_minutes")
        interval = float(sweep_interval_minutes or configured or 5) * 60.0
        return self._sweeper.start(self.sweep_ttl, interval)

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper thread; ``True`` once it has stopped (or was not running)."""
        return self._sweeper.stop(timeout)

    async def astart_ttl_sweeper(
        self, sweep_interval_minutes: float | None = None
    ) -> concurrent.futures.Future[None]:
        """:meth:`start_ttl_sweeper` from async code (the sweeper is a thread either way)."""
        return self.start_ttl_sweeper(sweep_interval_minutes)

    async def astop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """:meth:`stop_ttl_sweeper` off the event loop."""
        return await asyncio.to_thread(self.stop_ttl_sweeper, timeout)

    def _refresh(self, touched: Sequence[tuple[str, StoredPoint]]) -> None:
        """Extend the expiry of items read with ``refresh_ttl`` (those that have a TTL)."""
        refresh(self.memory, touched)

    # -- tenancy ----------------------------------------------------------------------
    def tenant_of(self, namespace: tuple[str, ...]) -> str:
        """The user id an item in ``namespace`` (or a read of that prefix) belongs to.

        The label at ``tenant_index``; the shared tenant for a namespace too short to have it.
        """
        if len(namespace) > self.tenant_index:
            return check_user_id(namespace[self.tenant_index])
        return self.shared_tenant

    def _tenants_for(self, prefix: tuple[str, ...]) -> list[str]:
        if len(prefix) > self.tenant_index or not self.allow_cross_tenant:
            return [self.tenant_of(prefix)]
        flt = models.Filter(must=[_prefix_condition(prefix)]) if prefix else None
        return sorted(_facet(self.memory.vectors, "user_id", flt))

    # -- batch ------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Execute operations; reads see the state before this batch's writes."""
        ops = list(ops)
        check_reads(ops)  # and every read's namespace, key, filter, query: bad input runs nothing
        puts = self._plan_puts(ops)  # validates every write before anything runs
        found = self._fetch_gets(ops)  # one engine call per user for all the batch's gets
        results: list[Result] = []
        touched: list[tuple[str, StoredPoint]] = []  # read with refresh_ttl
        for op in ops:
            if isinstance(op, GetOp):
                results.append(
                    self._stm_get(op) if _is_stm(op.namespace) else self._get(op, found, touched)
                )
            elif isinstance(op, SearchOp):
                results.append(
                    self._stm_search(op)
                    if _is_stm(op.namespace_prefix)
                    else self._search(op, touched)
                )
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            elif isinstance(op, PutOp):
                results.append(None)
            else:
                raise MemoryValidationError(f"unknown store operation: {type(op).__name__}")
        if touched:
            self._refresh(touched)
        self._apply_puts(puts)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Execute operations off the event loop (same semantics as :meth:`batch`).

        Concurrent calls are coalesced: the calls that queue up while the worker thread is
        busy are run by its next trip, one batch after another in arrival order (each with
        its own result or error), so many small concurrent operations cost one thread hop
        instead of one each.
        """
        ops = list(ops)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[list[Result]] = loop.create_future()
        queue = self._queues.get(loop)
        if queue is None:
            queue = self._queues[loop] = _Queue()
        queue.pending.append((ops, future))
        if queue.task is None or queue.task.done():
            queue.task = loop.create_task(self._drain(queue))
            queue.task.add_done_callback(functools.partial(_worker_done, queue))
        return await future

    async def _drain(self, queue: _Queue) -> None:
        await drain(queue, self._run_batches)

    def _run_batches(self, batches: Sequence[list[Op]]) -> list[tuple[bool, Any]]:
        """Run queued batches in order, each with its own result or error (see ``run_batches``)."""
        return run_batches(self.batch, batches)

    # -- writes -----------------------------------------------------------------------
    def _plan_puts(self, ops: Sequence[Op]) -> list[_Put]:
        return plan_puts(
            ops,
            tenant_of=self.tenant_of,
            max_chars=self.memory.config.max_content_chars,
            default_ttl=(self.ttl_config or {}).get("default_ttl"),
            index_fields=self.index_fields,
        )

    def _apply_puts(self, puts: Sequence[_Put]) -> None:
        if not puts:
            return
        by_user: dict[str, list[_Put]] = defaultdict(list)
        for p in puts:
            if _is_stm(p.namespace):
                if p.value is None:
                    self.memory.stm.delete(p.user_id, p.key)
                else:
                    self.memory.stm.put(p.user_id, p.key, p.value)
            else:
                by_user[p.user_id].append(p)
        vs = self.memory.vectors if by_user else None
        for user, items in by_user.items():
            assert vs is not None
            deletes = [point_id(p.namespace, p.key) for p in items if p.value is None]
            writes = [p for p in items if p.value is not None]
            if writes:
                write_puts(self.memory, user, writes)
            if deletes:
                vs.delete(user, deletes)

    # -- scratchpad ---------------------------------------------------------------------
    def _stm_get(self, op: GetOp) -> Item | None:
        entry = self.memory.stm.get(self.tenant_of(_check_namespace(op.namespace)), op.key)
        return _stm_item(op.namespace, entry) if entry else None

    def _stm_search(self, op: SearchOp) -> list[SearchItem]:
        ns = _check_namespace(op.namespace_prefix)
        return stm_search(ns, self.memory.stm.all(self.tenant_of(ns)), op)

    # -- reads ------------------------------------------------------------------------
    def _fetch_gets(self, ops: Sequence[Op]) -> dict[tuple[str, str], StoredPoint]:
        return fetch_gets(self.memory, ops, self.tenant_of)

    def _get(
        self,
        op: GetOp,
        found: Mapping[tuple[str, str], StoredPoint],
        touched: list[tuple[str, StoredPoint]],
    ) -> Item | None:
        ns = _check_namespace(op.namespace)
        user = self.tenant_of(ns)
        point = found.get((user, point_id(ns, op.key)))
        if point is None or _expired(point.payload, time.time()):
            return None
        if op.refresh_ttl:
            touched.append((user, point))
        return _item(point)

    def _prefix_filter(
        self,
        user: str,
        prefix: tuple[str, ...],
        flt: Mapping[str, Any] | None,
        *extra: models.Condition,
        ranges: bool = True,
    ) -> models.Filter:
        conds: list[models.Condition] = [*extra, unexpired(time.time())]
        if prefix:
            conds.append(_prefix_condition(prefix))
        must, must_not = _engine_filter(flt, ranges=ranges)
        conds.extend(must)
        return user_filter(user, *conds, must_not=must_not)

    def _search(self, op: SearchOp, touched: list[tuple[str, StoredPoint]]) -> list[SearchItem]:
        items = self._search_points(op)
        if op.refresh_ttl:
            touched.extend((str(p.payload.get("user_id")), p) for _, p in items)
        return [_item(p, s, search=True) for s, p in items]  # type: ignore[misc]

    def _search_points(self, op: SearchOp) -> list[tuple[float | None, StoredPoint]]:
        op, history = _history_option(op)
        prefix = _check_namespace(op.namespace_prefix, allow_empty=True)
        if op.limit < 0 or op.offset < 0:
            raise MemoryValidationError("limit and offset must be >= 0")
        tenants = self._tenants_for(prefix)
        want = op.offset + op.limit
        if op.query:
            if not isinstance(op.query, str):
                raise MemoryValidationError("query must be a string")
            scored: list[tuple[float, StoredPoint]] = []
            for user in tenants:
                flt = self._prefix_filter(user, prefix, op.filter)
                scored.extend(query_user(self.memory, user, flt, op, want, history))
            scored.sort(key=lambda t: -t[0])
            out: list[tuple[float | None, StoredPoint]] = list(scored[op.offset : want])
            if len(out) < op.limit:  # like InMemoryStore: fill with items that have no vectors
                # they come after every scored item, so the page's offset runs on into them
                skip = max(0, op.offset - len(scored))
                extra = self._scan(tenants, prefix, op.filter, unindexed=True)
                page = extra[skip : skip + op.limit - len(out)]
                out.extend((None, p) for p in page)
            return out
        points = self._scan(tenants, prefix, op.filter, stop=want)
        return [(None, p) for p in points[op.offset : want]]

    def _scan(
        self,
        tenants: Sequence[str],
        prefix: tuple[str, ...],
        flt: Mapping[str, Any] | None,
        *,
        stop: int | None = None,
        unindexed: bool = False,
    ) -> list[StoredPoint]:
        """Matching points in first-write order (like InMemoryStore's insertion order)."""
        extra = (
            [models.FieldCondition(key="indexed", match=models.MatchValue(value=False))]
            if unindexed
            else []
        )
        filters = {
            user: self._prefix_filter(user, prefix, flt, *extra, ranges=False) for user in tenants
        }
        return scan(self.memory.vectors, filters, flt, stop=stop)

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        return list_namespaces(
            self.memory,
            op,
            tenant_index=self.tenant_index,
            shared_tenant=self.shared_tenant,
            cross_tenant=self.allow_cross_tenant or self.allow_cross_tenant_listing,
        )
