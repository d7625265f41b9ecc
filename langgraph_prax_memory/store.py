"""``PraxMemoryStore``: a LangGraph ``BaseStore`` on the Prax long-term memory.

Any namespace works, so LangMem's tools and LangGraph's ``get_store()`` use it unchanged;
``("memories", user_id)`` is the long-term memory of that user, the same points
:class:`~langgraph_prax_memory.PraxMemory` reads and writes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import heapq
import logging
import math
import re
import threading
import time
import weakref
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, TypedDict, Unpack

from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    ensure_embeddings,
)
from qdrant_client import models

from langgraph_prax_memory._validation import (
    check_importance,
    check_tags,
    check_text,
    check_user_id,
    to_utc,
    utcnow,
)
from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.embeddings import tokenize
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    ConfigError,
    EmbeddingError,
    MemoryValidationError,
)
from langgraph_prax_memory.memory import PraxMemory
from langgraph_prax_memory.stm import StmEntry
from langgraph_prax_memory.vectors import (
    EXPIRES_AT,
    NS_SEP,
    QdrantVectorStore,
    StoredPoint,
    VectorRecord,
    build_payload,
    extract_text,
    ids_condition,
    point_id,
    unexpired,
    user_filter,
)

__all__ = ["PraxMemoryStore", "StoreOptions"]

logger = logging.getLogger(__name__)

#: Namespace root of the scratchpad: ``("stm", user_id)`` is that user's STM.
STM_ROOT = "stm"
#: Tenant of the namespaces too short to name a user (``("memories",)`` with the default
#: ``tenant_index=1``). Namespace labels cannot hold a ``.``, so no namespace names it as a user.
SHARED_TENANT = ".shared"
#: Payload fields of TTL: the expiry (epoch seconds) and the TTL it was computed from (minutes).
TTL_MINUTES = "ttl_minutes"
_STM_FIELDS = frozenset({"content", "importance", "tags"})

_MAX_KEY_CHARS = 1024
_SCAN_PAGE = 256
#: Deepest ranking a query search asks for (``recall``'s own limit).
_MAX_RANK = 1000


@dataclass(frozen=True)
class _Put:
    namespace: tuple[str, ...]
    key: str
    user_id: str
    value: dict[str, Any] | None
    text: str | None  # None: not indexed
    ttl: float | None = None  # minutes


@dataclass
class _Queue:
    """``abatch`` calls of one event loop waiting for the worker thread (coalesced)."""

    pending: list[tuple[list[Op], asyncio.Future[list[Result]]]] = field(default_factory=list)
    task: asyncio.Task[None] | None = None


class StoreOptions(TypedDict, total=False):
    """The keyword options of :class:`PraxMemoryStore`, as its one-line constructors take them."""

    index: IndexConfig | None
    ttl: TTLConfig | None
    tenant_index: int
    allow_cross_tenant: bool
    allow_cross_tenant_listing: bool
    shared_tenant: str


_STORE_OPTIONS = frozenset(StoreOptions.__annotations__)


def _expired(payload: Mapping[str, Any], now: float) -> bool:
    expires = payload.get(EXPIRES_AT)
    return isinstance(expires, int | float) and expires <= now


def _check_ttl(ttl: object) -> float | None:
    if ttl is None:
        return None
    if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not math.isfinite(ttl):
        raise MemoryValidationError(f"ttl must be a number of minutes, got {ttl!r}")
    if ttl <= 0:
        raise MemoryValidationError(f"ttl must be positive (minutes), got {ttl!r}")
    return float(ttl)


class _SyncOverAsync(Embeddings):
    """An async-only embedding function (LangGraph accepts one) for the sync pipeline.

    The memory embeds in worker threads; each call runs the coroutine to completion there
    (in a fresh thread when the calling thread already runs an event loop).
    """

    def __init__(self, inner: Embeddings) -> None:
        self.inner = inner

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        def run() -> list[list[float]]:
            return asyncio.run(self.inner.aembed_documents(texts))

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return run()
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(run).result()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return await self.inner.aembed_documents(texts)

    async def aembed_query(self, text: str) -> list[float]:
        return (await self.inner.aembed_documents([text]))[0]


def _embedder(embed: object) -> Embeddings:
    """LangGraph's ``index["embed"]`` (``Embeddings``, function or ``"provider:model"``)."""
    try:
        emb = ensure_embeddings(embed)  # type: ignore[arg-type]
    except Exception as exc:
        raise ConfigError(f"index['embed'] = {embed!r} cannot be used: {exc}") from exc
    if hasattr(emb, "afunc") and getattr(emb, "func", None) is None:  # an async function
        return _SyncOverAsync(emb)
    return emb


def _width(emb: Embeddings) -> int:
    try:
        return len(emb.embed_query("dimension probe"))
    except Exception as exc:
        raise ConfigError(f"index['embed'] failed on a probe text: {exc}") from exc


def _check_namespace(namespace: object, *, allow_empty: bool = False) -> tuple[str, ...]:
    if not isinstance(namespace, tuple):
        raise MemoryValidationError(f"namespace must be a tuple of strings, got {namespace!r}")
    if not namespace and not allow_empty:
        raise MemoryValidationError("namespace must not be empty")
    for label in namespace:
        if not isinstance(label, str):
            raise MemoryValidationError(f"namespace labels must be strings, got {label!r}")
        if not label or not label.strip():
            raise MemoryValidationError(f"namespace {namespace!r} has an empty label")
        if "." in label:
            raise MemoryValidationError(f"namespace label {label!r} contains a '.'")
        if any(ord(c) < 32 for c in label):
            raise MemoryValidationError(f"namespace label {label!r} contains a control character")
    if namespace and namespace[0] == "langgraph":
        raise MemoryValidationError('the root namespace label "langgraph" is reserved')
    return namespace


def _compare(item_value: Any, filter_value: Any) -> bool:
    """InMemoryStore's filter semantics (JSONB-like, with ``$eq/$ne/$gt/$gte/$lt/$lte``)."""
    if isinstance(filter_value, dict):
        if any(k.startswith("$") for k in filter_value):
            return all(_apply(item_value, op, v) for op, v in filter_value.items())
        if not isinstance(item_value, dict):
            return False
        return all(_compare(item_value.get(k), v) for k, v in filter_value.items())
    if isinstance(filter_value, list | tuple):
        return (
            isinstance(item_value, list | tuple)
            and len(item_value) == len(filter_value)
            and all(_compare(i, f) for i, f in zip(item_value, filter_value, strict=True))
        )
    return bool(item_value == filter_value)


def _apply(value: Any, op: str, target: Any) -> bool:
    if op == "$eq":
        return bool(value == target)
    if op == "$ne":
        return bool(value != target)
    if op in ("$gt", "$gte", "$lt", "$lte"):
        try:
            a, b = float(value), float(target)
        except (TypeError, ValueError):
            return False
        return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]
    raise MemoryValidationError(f"unsupported filter operator: {op}")


_SIMPLE_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: Integers the engine compares exactly (its numbers are 64-bit floats and integers).
_EXACT_INT = 2**53


def _number(value: Any) -> float | None:
    """``value`` as a float if the engine can compare it exactly, else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int) and abs(value) >= _EXACT_INT:
        return None  # (and float() of a huge int would overflow)
    number = float(value)
    if not math.isfinite(number) or abs(number) >= _EXACT_INT:
        return None
    return number


def _engine_filter(
    flt: Mapping[str, Any] | None, path: str = "value", *, ranges: bool = True
) -> tuple[list[models.Condition], list[models.Condition]]:
    """The ``must`` / ``must_not`` conditions the engine applies for a store filter.

    Every filter is still checked exactly in Python afterwards (InMemoryStore's semantics);
    these conditions make the engine return only candidates that can match, on every arm of
    a query search and in every scan, so a selective filter never empties a short candidate
    list. Translated: string and boolean equality, numeric equality (int and float alike, as
    a range ``[v, v]``: ``1`` finds ``1.0``), ``$gt/$gte/$lt/$lte`` on numbers (with
    ``ranges``), and nested objects. Left to the Python check only: ``$ne`` (the engine's
    must-not drops a list holding the value, which InMemoryStore keeps), list equality, keys
    that are not plain identifiers (a JSON-path character would change the meaning), numbers
    beyond 2**53. Range filters in the engine match numeric values only, so filter-only
    scans (which cast, as InMemoryStore does) leave ranges to the Python check
    (``ranges=False``); a query search runs them in the engine (docs/store.md).
    """
    must: list[models.Condition] = []
    must_not: list[models.Condition] = []
    for key, want in (flt or {}).items():
        if not isinstance(key, str) or not _SIMPLE_KEY.match(key):
            continue
        field = f"{path}.{key}"
        if isinstance(want, dict) and want and not any(k.startswith("$") for k in want):
            inner_must, inner_not = _engine_filter(want, field, ranges=ranges)
            must.extend(inner_must)
            must_not.extend(inner_not)
            continue
        ops = want if isinstance(want, dict) else {"$eq": want}
        for op, target in ops.items():
            if op == "$ne" or (not ranges and op not in ("$eq",)):
                continue
            cond = _condition(field, op, target)
            if cond is None:
                continue
            (must_not if op == "$ne" else must).append(cond)
    return must, must_not


def _condition(field: str, op: str, target: Any) -> models.Condition | None:
    if op in ("$eq", "$ne"):
        if isinstance(target, str | bool):
            return models.FieldCondition(key=field, match=models.MatchValue(value=target))
        number = _number(target)
        if number is None:
            return None
        return models.FieldCondition(key=field, range=models.Range(gte=number, lte=number))
    if op in ("$gt", "$gte", "$lt", "$lte"):
        number = _number(target)
        if number is None:
            return None
        return models.FieldCondition(key=field, range=models.Range(**{op[1:]: number}))
    return None


def _item(point: StoredPoint, score: float | None = None, *, search: bool = False) -> Item:
    p = point.payload
    created = to_utc(p.get("created_at") or p.get("created_ts") or 0)
    updated = to_utc(p.get("updated_at") or created)
    ns = tuple(p.get("ns") or ())
    if search:
        return SearchItem(ns, p["key"], dict(p.get("value") or {}), created, updated, score)
    return Item(
        value=dict(p.get("value") or {}),
        key=p["key"],
        namespace=ns,
        created_at=created,
        updated_at=updated,
    )


#: Reserved filter keys of a query search (stripped before the value filter): superseded
#: memories leave a query search like ``recall``; ``{"$include_history": True}`` brings them
#: back, ``{"$as_of": <datetime or ISO string>}`` searches what was current then.
HISTORY_FILTER_KEYS = ("$include_history", "$as_of")


def _history_option(op: SearchOp) -> tuple[SearchOp, dict[str, Any]]:
    """``op`` without the reserved history keys, and the recall arguments they ask for."""
    if not op.filter or not any(k in op.filter for k in HISTORY_FILTER_KEYS):
        return op, {}
    rest = {k: v for k, v in op.filter.items() if k not in HISTORY_FILTER_KEYS}
    history: dict[str, Any] = {}
    if op.filter.get("$include_history"):
        history["include_history"] = True
    if op.filter.get("$as_of") is not None:
        history["as_of"] = to_utc(op.filter["$as_of"], what="$as_of")
    return op._replace(filter=rest or None), history


class PraxMemoryStore(BaseStore):
    """A LangGraph ``BaseStore`` backed by Prax memory (Qdrant, dense + sparse vectors).

    Behaves like LangGraph's ``InMemoryStore`` / ``PostgresStore`` for ``get``/``put``/
    ``delete``/``list_namespaces`` and filter-only ``search`` (namespace prefixes matched by
    segment, ``$eq/$ne/$gt/$gte/$lt/$lte`` filters, ``limit``/``offset``, ``index=False``,
    ``index`` fields, TTL). ``search`` with a ``query`` ranks with the same pipeline as
    ``PraxMemory.recall`` (without reinforcing) and returns its scores (fused relevance, not
    cosine similarities).

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
        self._sweeper: threading.Thread | None = None
        self._sweeper_stop = threading.Event()
        self._sweeper_lock = threading.Lock()
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
        vs = self.memory.vectors
        now = time.time()
        expired = models.FieldCondition(key=EXPIRES_AT, range=models.Range(lte=now))
        scan = models.Filter(must=[expired])
        by_user: dict[str, list[str]] = defaultdict(list)
        offset: Any = None

        def scan_page(start: Any) -> tuple[list[models.Record], Any]:
            return vs.client.scroll(
                vs.collection,
                scroll_filter=scan,
                limit=_SCAN_PAGE,
                offset=start,
                with_payload=["user_id"],
                with_vectors=False,
            )

        while True:
            page, offset = vs.call("ttl sweep", functools.partial(scan_page, offset))
            for point in page:
                by_user[str((point.payload or {}).get("user_id"))].append(str(point.id))
            if offset is None or not page:
                break

        def delete(selector: models.FilterSelector) -> None:
            vs.client.delete(vs.collection, points_selector=selector, wait=True)

        deleted = 0
        for user, ids in by_user.items():
            selector = models.FilterSelector(filter=user_filter(user, ids_condition(ids), expired))
            vs.run_write("ttl sweep delete", functools.partial(delete, selector))
            deleted += len(ids)
        return deleted

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
        future: concurrent.futures.Future[None] = concurrent.futures.Future()
        with self._sweeper_lock:
            if self._sweeper is not None and self._sweeper.is_alive():
                future.add_done_callback(
                    lambda f: self._sweeper_stop.set() if f.cancelled() else None
                )
                return future
            configured = (self.ttl_config or {}).get("sweep_interval_minutes")
            interval = float(sweep_interval_minutes or configured or 5) * 60.0
            if not math.isfinite(interval) or interval <= 0:
                raise MemoryValidationError("sweep_interval_minutes must be positive")
            self._sweeper_stop.clear()
            stop = self._sweeper_stop

            def loop() -> None:
                try:
                    while not stop.wait(interval):
                        try:
                            n = self.sweep_ttl()
                            if n:
                                logger.info("TTL sweep deleted %d expired item(s)", n)
                        except Exception as exc:  # retried at the next interval
                            logger.warning("TTL sweep failed: %s", exc)
                    future.set_result(None)
                except BaseException as exc:  # pragma: no cover - interpreter shutdown
                    future.set_exception(exc)

            thread = threading.Thread(target=loop, name="prax-ttl-sweeper", daemon=True)
            self._sweeper = thread
            thread.start()
        future.add_done_callback(lambda f: stop.set() if f.cancelled() else None)
        return future

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper thread; ``True`` once it has stopped (or was not running)."""
        with self._sweeper_lock:
            thread = self._sweeper
            if thread is None:
                return True
            self._sweeper_stop.set()
        thread.join(timeout)
        if thread.is_alive():
            return False
        with self._sweeper_lock:
            if self._sweeper is thread:
                self._sweeper = None
        return True

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
        groups: dict[tuple[str, float], list[str]] = defaultdict(list)
        for user, point in touched:
            minutes = point.payload.get(TTL_MINUTES)
            if isinstance(minutes, int | float) and minutes > 0:
                groups[(user, float(minutes))].append(point.id)
        if not groups:
            return
        vs = self.memory.vectors
        now = time.time()

        def extend(flt: models.Filter, minutes: float) -> None:
            payload = {EXPIRES_AT: now + minutes * 60.0}
            vs.client.set_payload(vs.collection, payload=payload, points=flt, wait=True)

        for (user, minutes), ids in groups.items():
            flt = user_filter(user, ids_condition(sorted(set(ids))), unexpired(now))
            vs.run_write("ttl refresh", functools.partial(extend, flt, minutes))

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
        taken: list[tuple[list[Op], asyncio.Future[list[Result]]]] = []
        try:
            while queue.pending:
                taken, queue.pending = [t for t in queue.pending if not t[1].done()], []
                if not taken:
                    continue
                outcomes = await asyncio.to_thread(self._run_batches, [ops for ops, _ in taken])
                for (_, fut), (ok, value) in zip(taken, outcomes, strict=True):
                    if fut.done():
                        continue
                    if ok:
                        fut.set_result(value)
                    else:
                        fut.set_exception(value)
                taken = []
        except BaseException as exc:  # cancelled (loop shutting down): fail what is waiting
            for _, fut in [*taken, *queue.pending]:
                if fut.done():
                    continue
                if isinstance(exc, Exception):
                    fut.set_exception(exc)
                else:
                    fut.cancel()
            queue.pending = []
            raise
        finally:
            queue.task = None

    def _run_batches(self, batches: Sequence[list[Op]]) -> list[tuple[bool, Any]]:
        """Run queued batches in order, each with its own result or error.

        Consecutive batches that only read, or only write, run as one combined batch (the
        same outcome as one after another: reads change nothing, and later writes win), so
        their gets, embeddings and upserts share engine calls. If a combined run fails, its
        batches are run again one by one (writes are idempotent), so each gets its own error.
        """
        out: list[tuple[bool, Any]] = []
        i = 0
        while i < len(batches):
            kind = _kind(batches[i])
            j = i + 1
            if kind is not None:
                while j < len(batches) and _kind(batches[j]) == kind:
                    j += 1
            run = batches[i:j]
            if len(run) > 1:
                try:
                    results = self.batch([op for ops in run for op in ops])
                except Exception:
                    out.extend(self._run_each(run))
                else:
                    start = 0
                    for ops in run:
                        out.append((True, results[start : start + len(ops)]))
                        start += len(ops)
            else:
                out.extend(self._run_each(run))
            i = j
        return out

    def _run_each(self, batches: Sequence[list[Op]]) -> list[tuple[bool, Any]]:
        out: list[tuple[bool, Any]] = []
        for ops in batches:
            try:
                out.append((True, self.batch(ops)))
            except Exception as exc:
                out.append((False, exc))
        return out

    # -- writes -----------------------------------------------------------------------
    def _plan_puts(self, ops: Sequence[Op]) -> list[_Put]:
        planned: dict[tuple[tuple[str, ...], str], _Put] = {}
        max_chars = self.memory.config.max_content_chars
        default_ttl = (self.ttl_config or {}).get("default_ttl")
        for op in ops:
            if not isinstance(op, PutOp):
                continue
            ns = _check_namespace(op.namespace)
            if not isinstance(op.key, str) or not op.key or len(op.key) > _MAX_KEY_CHARS:
                raise MemoryValidationError(f"key must be a non-empty string, got {op.key!r}")
            user = self.tenant_of(ns)
            ttl = _check_ttl(op.ttl) if op.value is not None else None
            if _is_stm(ns) and op.value is not None:
                _check_stm_value(op.value, max_chars)
                if ttl is not None and ttl != default_ttl:
                    raise MemoryValidationError(
                        "the scratchpad namespace ('stm', user) has no TTL: its entries are "
                        "compacted by the scratchpad itself"
                    )
                ttl = None
            if op.value is None:
                planned[(ns, op.key)] = _Put(ns, op.key, user, None, None)
                continue
            if not isinstance(op.value, Mapping):
                raise MemoryValidationError("value must be a dict")
            value = dict(op.value)
            text: str | None = None
            if op.index is not False:
                fields = op.index if isinstance(op.index, list) else self.index_fields
                text = extract_text(value, fields)
                if len(text) > max_chars:
                    raise MemoryValidationError(
                        f"the text to index is {len(text)} characters, over the limit of "
                        f"{max_chars} (MEMORY_MAX_CONTENT_CHARS)"
                    )
                if not text.strip():
                    text = None
            # validate memory fields now so a bad item stores nothing
            build_payload(
                user_id=user,
                namespace=ns,
                key=op.key,
                value=value,
                text=text or "",
                now=utcnow(),
                previous=None,
                embedding_model=None,
                dense_pending=False,
            )
            planned[(ns, op.key)] = _Put(ns, op.key, user, value, text, ttl)
        return list(planned.values())

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
                self._write(vs, user, writes)
            if deletes:
                vs.delete(user, deletes)

    def _write(self, vs: QdrantVectorStore, user: str, writes: Sequence[_Put]) -> None:
        ids = [point_id(p.namespace, p.key) for p in writes]
        stamp = time.time()
        # an expired item that the sweeper has not deleted yet is gone: a put starts afresh
        previous = {
            p.id: p.payload for p in vs.retrieve(user, ids) if not _expired(p.payload, stamp)
        }
        texts = [p.text for p in writes if p.text is not None]
        dense_by_text: dict[str, list[float]] = {}
        pending = False
        if texts:
            try:
                vectors = self.memory.embeddings.embed_documents(texts)
                dense_by_text = dict(zip(texts, vectors, strict=True))
            except EmbeddingError:
                pending = True
        sparse = self.memory.sparse_encoder
        now = utcnow()
        records = []
        for pid, p in zip(ids, writes, strict=True):
            assert p.value is not None
            payload = build_payload(
                user_id=user,
                namespace=p.namespace,
                key=p.key,
                value=p.value,
                text=p.text or "",
                now=now,
                previous=previous.get(pid),
                embedding_model=self.memory.embeddings.last_model
                if p.text and not pending
                else None,
                dense_pending=bool(p.text) and pending,
            )
            payload["indexed"] = p.text is not None
            payload[TTL_MINUTES] = p.ttl
            payload[EXPIRES_AT] = stamp + p.ttl * 60.0 if p.ttl is not None else None
            dense = dense_by_text.get(p.text) if p.text else None
            sv = sparse.encode(p.text) if p.text else None
            records.append(VectorRecord(pid, payload, dense, sv))
        self.memory.ltm.write(user, records, chunk_size=None)

    # -- scratchpad ---------------------------------------------------------------------
    def _stm_get(self, op: GetOp) -> Item | None:
        entry = self.memory.stm.get(self.tenant_of(_check_namespace(op.namespace)), op.key)
        return _stm_item(op.namespace, entry) if entry else None

    def _stm_search(self, op: SearchOp) -> list[SearchItem]:
        ns = _check_namespace(op.namespace_prefix)
        entries = self.memory.stm.all(self.tenant_of(ns))
        items = [_stm_search_item(ns, e) for e in entries]
        if op.filter:
            items = [
                i for i in items if all(_compare(i.value.get(k), v) for k, v in op.filter.items())
            ]
        if op.query:
            words = set(tokenize(op.query))
            for item in items:
                text = set(tokenize(f"{item.key} {item.value['content']}"))
                item.score = len(words & text) / len(words) if words else 0.0
            items.sort(key=lambda i: -(i.score or 0.0))
        return items[op.offset : op.offset + op.limit]

    # -- reads ------------------------------------------------------------------------
    def _fetch_gets(self, ops: Sequence[Op]) -> dict[tuple[str, str], StoredPoint]:
        """The stored points the batch's (non-scratchpad) gets ask for, by (user, point id)."""
        wanted: dict[str, set[str]] = defaultdict(set)
        for op in ops:
            if isinstance(op, GetOp) and not _is_stm(op.namespace):
                ns = _check_namespace(op.namespace)
                wanted[self.tenant_of(ns)].add(point_id(ns, op.key))
        found: dict[tuple[str, str], StoredPoint] = {}
        vs = self.memory.vectors if wanted else None
        for user, ids in wanted.items():
            assert vs is not None
            for point in vs.retrieve(user, sorted(ids)):
                found[(user, point.id)] = point
        return found

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
                scored.extend(self._query_user(user, prefix, op, want, history))
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

    def _query_user(
        self,
        user: str,
        prefix: tuple[str, ...],
        op: SearchOp,
        want: int,
        history: Mapping[str, Any] | None = None,
    ) -> list[tuple[float, StoredPoint]]:
        """The user's best ``want`` items for the query: the same ranking as ``recall``.

        The namespace prefix and the filter run inside the engine on every arm; the exact
        filter check runs on what comes back, and the search goes deeper while it dropped
        candidates and more may exist. A store search does not reinforce (BaseStore reads
        have no side effects).
        """
        assert op.query is not None
        flt = self._prefix_filter(user, prefix, op.filter)
        k = min(max(want, 1), _MAX_RANK)
        while True:
            result = self.memory.recall_detailed(
                user, op.query, k=k, reinforce=False, where=flt, **(history or {})
            )
            out = []
            now = time.time()
            for hit in result.hits:
                point = result.points[hit.memory.id]
                if _expired(point.payload, now):
                    continue
                value = point.payload.get("value") or {}
                if op.filter and not all(_compare(value.get(f), v) for f, v in op.filter.items()):
                    continue
                out.append((hit.score, point))
            if len(out) >= want or len(result.hits) < k or k >= _MAX_RANK:
                return out[:want]
            k = min(k * 4, _MAX_RANK)

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
        vs = self.memory.vectors
        streams = []
        for user in tenants:
            extra = (
                [models.FieldCondition(key="indexed", match=models.MatchValue(value=False))]
                if unindexed
                else []
            )
            streams.append(
                self._scan_user(
                    vs, user, self._prefix_filter(user, prefix, flt, *extra, ranges=False), flt
                )
            )
        out: list[StoredPoint] = []
        for p in heapq.merge(*streams, key=lambda p: int(p.payload.get("seq", 0))):
            out.append(p)
            if stop is not None and len(out) >= stop:
                break
        return out

    @staticmethod
    def _scan_user(
        vs: QdrantVectorStore, user: str, qflt: models.Filter, flt: Mapping[str, Any] | None
    ) -> Iterable[StoredPoint]:
        start: int | None = None
        while True:
            page = vs.scroll(user, flt=qflt, limit=_SCAN_PAGE, order_by="seq", start_from=start)
            for p in page:
                value = p.payload.get("value") or {}
                if not flt or all(_compare(value.get(k), v) for k, v in flt.items()):
                    yield p
            if len(page) < _SCAN_PAGE:
                return
            start = int(page[-1].payload["seq"]) + 1

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions: Sequence[MatchCondition] = op.match_conditions or ()
        pinned: str | None = None
        for cond in conditions:
            path = tuple(cond.path)
            if (
                cond.match_type == "prefix"
                and len(path) > self.tenant_index
                and path[self.tenant_index] != "*"
            ):
                pinned = check_user_id(path[self.tenant_index])
        live = unexpired(time.time())
        if pinned is None and (self.allow_cross_tenant or self.allow_cross_tenant_listing):
            flt = models.Filter(must=[live])  # an administrator's listing: every tenant
        else:
            pinned = pinned if pinned is not None else self.shared_tenant
            flt = user_filter(pinned, live)
        paths = _facet(self.memory.vectors, "ns_path", flt)
        namespaces = [tuple(path.split(NS_SEP)) for path in paths]
        if pinned is not None and pinned != self.shared_tenant and self.memory.stm.all(pinned):
            namespaces.append((STM_ROOT, pinned))
        namespaces = [ns for ns in namespaces if all(_matches(c, ns) for c in conditions)]
        if op.max_depth is not None:
            namespaces = sorted({ns[: op.max_depth] for ns in namespaces})
        else:
            namespaces = sorted(namespaces)
        return namespaces[op.offset : op.offset + op.limit]


def _facet(vs: QdrantVectorStore, key: str, flt: models.Filter | None) -> list[str]:
    """Distinct values of ``key`` among the points ``flt`` selects (guarded engine call)."""

    def run() -> list[str]:
        res = vs.client.facet(vs.collection, key=key, facet_filter=flt, limit=1_000_000)
        return [str(h.value) for h in res.hits]

    return vs.call("facet", run)


def _worker_done(queue: _Queue, task: asyncio.Task[None]) -> None:
    """Fail the calls a worker leaves behind if it was cancelled before it started.

    A worker that ran cleans up itself (its ``finally`` clears ``queue.task``); one cancelled
    before its first step never ran that code, and without this its callers would wait
    forever and every later call on the loop would queue behind a dead task.
    """
    if queue.task is not task:  # it ran, or a later call already started a new worker
        return
    queue.task = None
    pending, queue.pending = queue.pending, []
    for _, fut in pending:
        if not fut.done():
            fut.cancel()


def _prefix_condition(prefix: tuple[str, ...]) -> models.FieldCondition:
    """Points whose namespace starts with ``prefix`` (matched by whole labels)."""
    return models.FieldCondition(
        key="ns_prefixes", match=models.MatchValue(value=NS_SEP.join(prefix))
    )


def _kind(ops: Sequence[Op]) -> str | None:
    """``"read"`` / ``"write"`` for a batch of reads only / puts only (else ``None``)."""
    if ops and all(isinstance(op, PutOp) for op in ops):
        return "write"
    if ops and all(isinstance(op, GetOp | SearchOp | ListNamespacesOp) for op in ops):
        return "read"
    return None


def _is_stm(namespace: tuple[str, ...]) -> bool:
    return len(namespace) == 2 and namespace[0] == STM_ROOT


def _check_stm_value(value: Mapping[str, Any], max_chars: int) -> None:
    if not isinstance(value, Mapping):
        raise MemoryValidationError("value must be a dict")
    unknown = set(value) - _STM_FIELDS
    if unknown:
        raise MemoryValidationError(
            f"scratchpad values take {sorted(_STM_FIELDS)}, not {sorted(unknown)}"
        )
    check_text(value.get("content"), max_chars=max_chars)
    if value.get("importance") is not None:
        check_importance(value["importance"])
    check_tags(value.get("tags"))


def _stm_value(entry: StmEntry) -> dict[str, Any]:
    return {
        "content": entry.content,
        "importance": entry.importance,
        "tags": list(entry.tags),
        "access_count": entry.access_count,
    }


def _stm_item(namespace: tuple[str, ...], entry: StmEntry) -> Item:
    return Item(
        value=_stm_value(entry),
        key=entry.key,
        namespace=tuple(namespace),
        created_at=entry.created_at,
        updated_at=entry.created_at,
    )


def _stm_search_item(namespace: tuple[str, ...], entry: StmEntry) -> SearchItem:
    return SearchItem(
        tuple(namespace), entry.key, _stm_value(entry), entry.created_at, entry.created_at
    )


def _matches(cond: MatchCondition, ns: tuple[str, ...]) -> bool:
    path = tuple(cond.path)
    if len(ns) < len(path):
        return False
    pairs = (
        zip(ns, path, strict=False)
        if cond.match_type == "prefix"
        else zip(reversed(ns), reversed(path), strict=False)
    )
    return all(p == "*" or k == p for k, p in pairs)
