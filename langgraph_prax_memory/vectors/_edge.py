"""The embedded vector engine: ``qdrant-edge`` behind the ``QdrantClient`` calls we make.

``qdrant-edge-py`` runs Qdrant's Rust engine in-process (an ``EdgeShard`` per folder): payload
indexes, the sparse IDF modifier, prefetch + fusion and filters are the server's own code, so
the tenant filter is an index lookup instead of qdrant-client local mode's point-by-point
Python check. :class:`EdgeClient` takes and returns qdrant-client ``models`` objects and covers
exactly the methods this package calls on a client; anything else it is handed (a query,
condition or schema type it does not translate) raises ``NotImplementedError`` naming it,
never a silent change of meaning.

Layout: ``<root>/.lock`` (one process per folder, like local mode; ``<root>/.lock.owner``
names the holder's pid) and one folder per
collection, ``<root>/<collection>/collection.json`` (the vectors config as qdrant-client JSON)
plus ``<root>/<collection>/shard/`` (the edge shard).

A deleted point leaves the engine's results at once, but its payload and vectors stay in the
shard's write-ahead log and segment files until they are rewritten. :meth:`EdgeClient.compact`
rewrites them: it copies the live points into a fresh shard (``shard.compacting``), marks the
copy complete (``shard.compacting.done``), swaps the folders (the old one becomes
``shard.stale``) and deletes the old files. Opening a collection finishes an interrupted swap
or discards an unfinished copy, so a crash at any point leaves either the old shard or the
complete new one, never a mix.

Why one module: :class:`EdgeClient` is one class, the qdrant-client surface this package
calls (collections, points, queries, scrolls, facets, compaction), and every method runs on
the same per-folder state: the open shards, the process lock of the folder, the in-use
counts compaction waits for, the background optimiser's counters and threads, and the
disk-space guard. Split by method family, each part would reach into that state. The pure
translations between qdrant-client ``models`` and the engine's types need none of it and live
in ``_edge_convert.py`` and ``_edge_filters.py``.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import json
import logging
import math
import os
import re
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import filelock
import numpy as np
import qdrant_edge as qe
from qdrant_client.http import models
from qdrant_client.http.models import QueryResponse
from qdrant_client.hybrid.fusion import distribution_based_score_fusion, reciprocal_rank_fusion

from langgraph_prax_memory._cores import available_cores
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    DiskFullError,
    MemoryWriteError,
    StoreLockedError,
)
from langgraph_prax_memory.vectors._edge_convert import (
    _SCHEMA_TYPES_BACK,
    _check_sparse,
    _delete,
    _edge_config,
    _id_out,
    _index_plan,
    _index_schema,
    _Operation,
    _operation,
    _order_by,
    _point,
    _prefetches,
    _query,
    _record,
    _schema_json,
    _scored,
    _search_params,
    _Selector,
    _set_payload,
    _value_order,
    _vectors_in,
    _with_payload,
    _with_vectors,
)
from langgraph_prax_memory.vectors._edge_filters import (
    _and,
    _filter,
    _id_in,
    _newer,
)
from langgraph_prax_memory.vectors._journal import (
    BOOKKEEPING_FIELDS,
    PointIds,
    Touched,
    WriteJournal,
    fields_set_by_operations,
    touched_by_operations,
    touched_by_selector,
)

__all__ = ["EdgeClient", "open_shared_edge"]

logger = logging.getLogger(__name__)
T = TypeVar("T")


_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


_META = "collection.json"


_SHARD = "shard"


_LOCK = ".lock"


_OWNER = ".lock.owner"


#: Write stamps (:meth:`EdgeClient.write_stamp`): unique in the process, whichever client.
_STAMPS = itertools.count(1)


#: Free space kept besides the sparse files' holes (see :class:`EdgeClient`).
DEFAULT_HEADROOM = 100 * 1024 * 1024


_DEBT_TTL = 2.0


_FACET_DEPTH = 10_000


#: Compaction: the copy being built, its completion mark, the old shard being removed.
_FRESH = "shard.compacting"


_FRESH_DONE = "shard.compacting.done"


_STALE = "shard.stale"


_COPY_PAGE = 256
#: Points written to a collection between two background optimisations (see EdgeClient).
DEFAULT_OPTIMIZE_EVERY = 10_000


def _engine_error(exc: BaseException) -> bool:
    """An error of the engine: an exception, or a Rust panic surfaced by pyo3.

    pyo3's ``PanicException`` derives from ``BaseException`` (``except Exception`` misses it)
    and cannot be imported, so it is recognised by name; interrupts are never caught.
    """
    return isinstance(exc, Exception) or type(exc).__name__ == "PanicException"


class EdgeClient:
    """The ``QdrantClient`` methods this package uses, served by an in-process qdrant-edge.

    One ``EdgeShard`` per collection under ``path``; ``":memory:"`` uses a temporary folder that
    :meth:`close` removes. Opening a folder another client holds (this process or another)
    raises :class:`StoreLockedError`. Safe to share between threads: the shards are Rust
    objects with their own locking, and the registry of open shards is guarded here. Writes
    are applied (and logged to the shard's write-ahead log) before a method returns, whatever
    ``wait`` says; a write that does not land raises.

    **Disk space.** The engine writes through memory-mapped, sparsely allocated files: when the
    file system cannot back a page the engine touches, the kernel kills the whole process with
    ``SIGBUS`` — no exception is possible. So before every write (and before a shard is
    loaded) the client checks the free space of the folder's file system against what the
    engine may still touch without asking for it (the holes of its sparse files) plus
    ``min_free_bytes`` of headroom, and refuses with
    :class:`~langgraph_prax_memory.errors.DiskFullError` (a ``MemoryWriteError`` and a
    ``BackendUnavailable``) while there is not enough. Nothing is written by a refused call.

    **Optimisation.** A Qdrant server's optimizer merges segments and builds indexes in the
    background; the edge shard does it only when asked. For a collection whose dense vectors
    have no HNSW graph (``hnsw_config.m == 0``: exact scans, the package's plan for the
    embedded engine, over int8 copies when quantized), this client asks: after every
    ``optimize_every`` written points, and once when such a shard of at least that size is
    opened, :meth:`optimize` runs on a background thread while queries and writes go on
    (about 2 s per 100k points of 384 dimensions here). Collections with an HNSW graph are
    never optimised implicitly: building the graph takes minutes; call :meth:`optimize`.

    Args:
        path: The data folder, or ``":memory:"``.
        min_free_bytes: Headroom kept free besides the sparse files' holes (default 100 MiB,
            ``MEMORY_DISK_HEADROOM_MB``); ``0`` turns the check off.
        optimize_every: Written points between two background optimisations of a collection
            without an HNSW graph (default 10,000); ``0`` turns them off.
        search_threads: Threads of each shard's search pool, which reads its segments side
            by side (``MEMORY_ENGINE_SEARCH_THREADS``; at most 256); ``0``: one per core
            this process may run on; ``None`` (default): the count the shard last saved (the
            engine keeps a load's setting in the shard's folder). The results are the same
            whatever the count; only the time and the CPU spent change (see
            docs/retrieval.md, Latency).

    Example:
        >>> from qdrant_client import models
        >>> client = EdgeClient(":memory:")
        >>> client.create_collection(
        ...     "demo",
        ...     vectors_config={"dense": models.VectorParams(size=2, distance=models.Distance.DOT)},
        ... )
        True
        >>> pid = "6f1c2b7e-8d0a-4c55-9d5e-2f6a0b4e9c31"
        >>> client.upsert(
        ...     "demo", [models.PointStruct(id=pid, vector={"dense": [1.0, 0.0]}, payload={})]
        ... ).status
        <UpdateStatus.COMPLETED: 'completed'>
        >>> client.query_points("demo", query=[1.0, 0.0], using="dense").points[0].id == pid
        True
        >>> client.close()
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        min_free_bytes: int = DEFAULT_HEADROOM,
        optimize_every: int = DEFAULT_OPTIMIZE_EVERY,
        search_threads: int | None = None,
    ) -> None:
        if min_free_bytes < 0:
            raise ValueError("min_free_bytes must be >= 0")
        if optimize_every < 0:
            raise ValueError("optimize_every must be >= 0")
        if search_threads is not None and (
            isinstance(search_threads, bool) or not isinstance(search_threads, int)
        ):
            raise TypeError(f"search_threads must be an int, got {type(search_threads).__name__}")
        if search_threads is not None and not 0 <= search_threads <= MAX_SEARCH_THREADS:
            raise ValueError(
                f"search_threads must be in [0, {MAX_SEARCH_THREADS}] (0: one per core), "
                f"got {search_threads}"
            )
        #: Threads of each shard's search pool (``None``: the count the shard last saved).
        self.search_threads = available_cores() if search_threads == 0 else search_threads
        self.min_free_bytes = min_free_bytes
        self.optimize_every = optimize_every
        # background optimisation: points written since the last one, collections under way
        self._written: dict[str, int] = {}
        self._optimizing: dict[str, threading.Thread] = {}
        #: Optimisations completed by this client (background or asked for).
        self.optimizations = 0
        self._debt: tuple[float, int] = (-math.inf, 0)  # (measured at, bytes), cached briefly
        self._temporary = str(path) == ":memory:"
        root = Path(tempfile.mkdtemp(prefix="prax-qdrant-edge-")) if self._temporary else Path(path)
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _unwritable(root, exc) from exc
        self.path = root
        self._registry = threading.RLock()
        self._shards: dict[str, qe.EdgeShard] = {}
        self._closed = False
        # calls in flight, and a compaction that waits for them and holds new ones back
        self._gate = threading.Condition(self._registry)
        self._active = 0
        self._compacting = False
        # write stamps (write_stamp): writes under way, and the stamp of the last one done
        self._stamp_lock = threading.Lock()
        self._writing = 0
        self._stamp = next(_STAMPS)
        self._journal = WriteJournal(self._stamp)
        # content stamps (content_stamp): the same, less writes of bookkeeping fields only
        self._content_writing = 0
        self._content_stamp = self._stamp
        # not thread-local: AsyncPraxMemory closes from a worker thread, and a finaliser may run
        # on any thread; the lock must be released by whichever thread closes
        self._file_lock = filelock.FileLock(str(root / _LOCK), timeout=0, thread_local=False)
        try:
            self._file_lock.acquire()
        except filelock.Timeout as exc:
            if self._temporary:
                shutil.rmtree(root, ignore_errors=True)
            raise _locked(root) from exc
        except OSError as exc:  # the lock file cannot be made: read-only, no permission, full
            raise _unwritable(root, exc) from exc
        _write_owner(root)
        #: Holders of a shared client (:func:`open_shared_edge`); the last close releases it.
        self._holders = 1
        # A client dropped without close() still flushes, unlocks and removes its temporary
        # folder when it is garbage-collected or the interpreter exits.
        self._release = weakref.finalize(
            self, _release, self._shards, self._file_lock, root, self._temporary
        )

    def write_stamp(self) -> int | None:
        """A number that changes with every write of this client; ``None`` while one runs.

        Only this client writes its folder (the folder's lock), so two equal stamps, taken
        before and after some reads, mean no point, payload or vector changed in between:
        what the reads saw can be kept until the stamp changes (the inspector keeps a user's
        listing columns so). Stamps are unique in the process: another client, or this
        folder opened again, never gives a stamp seen before.
        """
        with self._stamp_lock:
            return None if self._writing else self._stamp

    #: Payload fields whose writes leave :meth:`content_stamp` as it was (strengthen-on-recall).
    BOOKKEEPING: frozenset[str] = BOOKKEEPING_FIELDS

    def content_stamp(self) -> int | None:
        """:meth:`write_stamp`, less the writes that set only :attr:`BOOKKEEPING` fields.

        Moves with every write except one that does nothing but set ``access_count`` /
        ``last_accessed`` / ``last_accessed_ts`` of points (a reinforcing recall): what was
        read at one content stamp — which points exist, their vectors and every other payload
        field — holds until it changes, unless the read depended on those fields (a filter
        or count naming them). ``None`` while a write other than such a one runs. Unique in
        the process, as write stamps are (it is the stamp of the last content write).
        """
        with self._stamp_lock:
            return None if self._content_writing else self._content_stamp

    def changed_since(
        self, stamp: int, collection_name: str, user_id: str | None = None
    ) -> tuple[int, PointIds] | None:
        """The stamp now, and the points of the collection written since ``stamp``.

        The points are those whose payload or existence a write after ``stamp`` may have
        changed (upserted, deleted, their payload set or cleared; a write of vectors only
        changes none), as they were named to the write (ids: an unsigned int, or a UUID as
        text or ``uuid.UUID``). So what was read at ``stamp`` and kept stays exact once
        those points alone are read again (``vectors/_journal.py``).

        Args:
            stamp: A stamp :meth:`write_stamp` gave.
            collection_name: The collection the kept reads were of.
            user_id: The kept reads were of this user's points only: a write by a filter
                over other users' points alone (forgetting another user) changed none.

        Returns:
            ``None`` when it cannot tell: a write under way, a write not pinned to ids since
            (by a filter without ``has_id`` that names no user, or names ``user_id`` or
            any user when ``user_id`` is not given; a payload index, a compaction), or more
            writes since than the journal keeps (the last 4,096, 50,000 ids).
        """
        with self._stamp_lock:
            if self._writing:
                return None
            ids = self._journal.since(stamp, collection_name, user_id)
            return None if ids is None else (self._stamp, ids)

    @contextlib.contextmanager
    def _stamped(
        self,
        collection_name: str | None = None,
        touched: Touched = None,
        fields: frozenset[str] | None = None,
    ) -> Iterator[None]:
        """A write (or a compaction): under way while inside, a new stamp once out.

        ``touched``: the points of ``collection_name`` (``None``: of any) whose payload or
        existence it may change (``None``: not known), recorded in the journal with the new
        stamp (:meth:`changed_since`). ``fields``: the payload fields it sets when that is
        all it does (``None``: anything); within :attr:`BOOKKEEPING` the content stamp
        stays (:meth:`content_stamp`).
        """
        content = fields is None or not fields <= self.BOOKKEEPING
        with self._stamp_lock:
            self._writing += 1
            self._content_writing += content
        try:
            yield
        finally:
            with self._stamp_lock:
                self._writing -= 1
                self._stamp = next(_STAMPS)
                self._journal.record(self._stamp, collection_name, touched)
                if content:
                    self._content_writing -= 1
                    self._content_stamp = self._stamp

    # -- collections -------------------------------------------------------------------
    def collection_exists(self, collection_name: str) -> bool:
        """Whether the collection was created in this folder."""
        return (self._dir(collection_name) / _META).is_file()

    def create_collection(
        self,
        collection_name: str,
        vectors_config: models.VectorParams | Mapping[str, models.VectorParams] | None = None,
        sparse_vectors_config: Mapping[str, models.SparseVectorParams] | None = None,
        optimizers_config: models.OptimizersConfigDiff | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> bool:
        """Create a collection of named dense and sparse vectors (an unnamed dense one too).

        ``metadata`` is the collection's JSON metadata, as on a Qdrant server (1.16+):
        kept beside the shard and returned by :meth:`get_collection`.

        Of ``optimizers_config`` the engine takes ``default_segment_number``,
        ``max_segment_size``, ``indexing_threshold`` and ``deleted_threshold``.

        Raises:
            ValueError: The collection exists (as in local mode).
            NotImplementedError: A vector option edge is not given here (multivectors,
                datatypes, quantization other than scalar int8, HNSW's ``payload_m``).
        """
        with self._registry:
            self._check_open()
            if self.collection_exists(collection_name):
                raise ValueError(f"Collection {collection_name} already exists")
            dense: dict[str, Any] = {}
            if isinstance(vectors_config, models.VectorParams):
                dense[""] = vectors_config
            elif vectors_config is not None:
                dense.update(vectors_config)
            sparse = dict(sparse_vectors_config or {})
            meta = {
                "vectors": {
                    k: v.model_dump(mode="json", exclude_none=True) for k, v in dense.items()
                },
                "sparse_vectors": {
                    k: v.model_dump(mode="json", exclude_none=True) for k, v in sparse.items()
                },
            }
            if optimizers_config is not None:
                meta["optimizers"] = optimizers_config.model_dump(mode="json", exclude_none=True)
            if metadata is not None:
                meta["metadata"] = json.loads(json.dumps(dict(metadata)))
            config = _edge_config(meta, self.search_threads)  # validates before any write
            self._check_space("create a collection")
            folder = self._dir(collection_name)
            folder.mkdir(parents=True, exist_ok=True)
            if (folder / _SHARD).exists():  # a shard without metadata: an interrupted create
                shutil.rmtree(folder / _SHARD)
            shard = qe.EdgeShard.create(str(folder / _SHARD), config)
            self._debt = (-math.inf, 0)  # new mapped files: measure again at the next write
            tmp = folder / f"{_META}.tmp"
            tmp.write_text(json.dumps(meta, indent=1), encoding="utf-8")
            tmp.replace(folder / _META)
            self._shards[collection_name] = shard
            return True

    def get_collection(self, collection_name: str) -> models.CollectionInfo:
        """The collection's vectors config, point counts and payload indexes.

        HNSW, optimizer and WAL settings are reported as Qdrant's defaults, which is what the
        edge shard runs with.
        """
        meta = self._meta(collection_name)
        info = self._read(collection_name, "info", lambda s: s.info())
        vectors_meta = meta["vectors"]
        vectors: models.VectorParams | dict[str, models.VectorParams]
        if set(vectors_meta) == {""}:
            vectors = models.VectorParams.model_validate(vectors_meta[""])
        else:
            vectors = {k: models.VectorParams.model_validate(v) for k, v in vectors_meta.items()}
        sparse = {
            k: models.SparseVectorParams.model_validate(v)
            for k, v in meta["sparse_vectors"].items()
        }
        return models.CollectionInfo(
            status=models.CollectionStatus.GREEN,
            optimizer_status=models.OptimizersStatusOneOf.OK,
            indexed_vectors_count=info.indexed_vectors_count,
            points_count=info.points_count,
            segments_count=info.segments_count,
            config=models.CollectionConfig(
                metadata=meta.get("metadata"),
                params=models.CollectionParams(vectors=vectors, sparse_vectors=sparse or None),
                hnsw_config=models.HnswConfig(m=16, ef_construct=100, full_scan_threshold=10_000),
                optimizer_config=models.OptimizersConfig(
                    default_segment_number=0, flush_interval_sec=5
                ),
            ),
            payload_schema={
                key: models.PayloadIndexInfo(
                    data_type=_SCHEMA_TYPES_BACK[idx.data_type], params=None, points=idx.points
                )
                for key, idx in info.payload_schema.items()
            },
        )

    def update_collection(
        self, collection_name: str, metadata: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> bool:
        """Merge ``metadata`` into the collection's metadata (Qdrant's semantics).

        Raises:
            NotImplementedError: Any other change (vectors, optimizers, HNSW settings).
        """
        if kwargs:
            raise NotImplementedError(f"qdrant-edge collections cannot change {sorted(kwargs)}")
        with self._registry:
            self._check_open()
            meta = self._meta(collection_name)
            if metadata is not None:
                merged = dict(meta.get("metadata") or {})
                merged.update(json.loads(json.dumps(dict(metadata))))
                meta["metadata"] = merged
                _write_meta(self._dir(collection_name), meta)
            return True

    def create_payload_index(
        self,
        collection_name: str,
        field_name: str,
        field_schema: models.PayloadSchemaType
        | models.KeywordIndexParams
        | models.IntegerIndexParams
        | models.FloatIndexParams
        | models.BoolIndexParams
        | models.DatetimeIndexParams
        | models.UuidIndexParams
        | str,
        wait: bool = True,
    ) -> models.UpdateResult:
        """Index a payload field (filters on it become index lookups; facets need one).

        The schema is also recorded in ``collection.json``, so that :meth:`compact` rebuilds
        the index with the same parameters.
        """
        schema = _index_schema(field_schema)
        result = self._update(
            collection_name,
            "payload index",
            [qe.UpdateOperation.create_field_index(field_name, schema)],
            None,
        )[0]
        with self._registry:
            meta = self._meta(collection_name)
            meta.setdefault("payload_indexes", {})[field_name] = _schema_json(field_schema)
            _write_meta(self._dir(collection_name), meta)
        return result

    # -- writes ------------------------------------------------------------------------
    def upsert(
        self, collection_name: str, points: Sequence[models.PointStruct], wait: bool = True
    ) -> models.UpdateResult:
        """Insert or replace points; raises unless the write landed."""
        if isinstance(points, models.Batch):
            raise NotImplementedError("EdgeClient.upsert takes PointStruct lists, not a Batch")
        self._check_vectors(collection_name, [p.vector for p in points])
        op = qe.UpdateOperation.upsert_points([_point(p) for p in points])
        touched = frozenset(p.id for p in points)
        result = self._update(collection_name, "upsert", [op], touched)[0]
        self._wrote(collection_name, len(points))
        return result

    def update_vectors(
        self,
        collection_name: str,
        points: Sequence[models.PointVectors],
        wait: bool = True,
        update_filter: models.Filter | None = None,
    ) -> models.UpdateResult:
        """Replace the given vectors of existing points (those matching ``update_filter``)."""
        self._check_vectors(collection_name, [p.vector for p in points])
        op = qe.UpdateOperation.update_vectors(
            [qe.PointVectors(_id_in(p.id), _vectors_in(p.vector)) for p in points],
            condition=_filter(update_filter),
        )
        result = self._update(collection_name, "vector update", [op], frozenset())[0]
        self._wrote(collection_name, len(points))
        return result

    def set_payload(
        self,
        collection_name: str,
        payload: dict[str, Any],
        points: _Selector,
        key: str | None = None,
        wait: bool = True,
    ) -> models.UpdateResult:
        """Merge ``payload`` into the selected points (a key set to ``None`` is removed)."""
        op = _set_payload(payload, points, key, overwrite=False)
        touched = touched_by_selector(points)
        fields = frozenset(payload) if key is None else None
        return self._update(collection_name, "payload update", [op], touched, fields)[0]

    def delete(
        self, collection_name: str, points_selector: _Selector, wait: bool = True
    ) -> models.UpdateResult:
        """Delete the selected points (ids that do not exist are ignored)."""
        touched = touched_by_selector(points_selector)
        return self._update(collection_name, "delete", [_delete(points_selector)], touched)[0]

    def batch_update_points(
        self,
        collection_name: str,
        update_operations: Sequence[_Operation],
        wait: bool = True,
    ) -> list[models.UpdateResult]:
        """Apply operations in order; the first that fails raises (earlier ones stay applied).

        Every vector of every operation is checked before the first one is applied.
        """
        vectors: list[Any] = []
        for op in update_operations:
            if isinstance(op, models.UpsertOperation) and isinstance(op.upsert, models.PointsList):
                vectors.extend(p.vector for p in op.upsert.points)
            elif isinstance(op, models.UpdateVectorsOperation):
                vectors.extend(p.vector for p in op.update_vectors.points)
        self._check_vectors(collection_name, vectors)
        ops = [_operation(op) for op in update_operations]
        touched = touched_by_operations(update_operations)
        fields = fields_set_by_operations(update_operations)
        return self._update(collection_name, "batch update", ops, touched, fields)

    # -- reads -------------------------------------------------------------------------
    def query_points(
        self,
        collection_name: str,
        query: Any = None,
        using: str | None = None,
        prefetch: models.Prefetch | Sequence[models.Prefetch] | None = None,
        query_filter: models.Filter | None = None,
        search_params: models.SearchParams | None = None,
        limit: int = 10,
        offset: int | None = None,
        with_payload: Any = True,
        with_vectors: bool | Sequence[str] = False,
        score_threshold: float | None = None,
    ) -> QueryResponse:
        """Nearest-vector, fusion (RRF / DBSF over prefetches) or order-by queries.

        A fusion of prefetches is computed here, not in the engine: the prefetches run as one
        batch in qdrant-edge (each scoped by ``query_filter`` and its own filter, as on a
        server) and qdrant-client's own fusion functions merge them, so scores and the order
        of tied scores are local mode's. (The engine's fusion orders ties differently from
        one call to the next.)
        """
        if prefetch and isinstance(query, (models.FusionQuery, _newer("RrfQuery"))):
            return self._fused(
                collection_name,
                query,
                [prefetch] if isinstance(prefetch, models.Prefetch) else list(prefetch),
                query_filter,
                limit=limit,
                offset=offset or 0,
                with_payload=with_payload,
                with_vectors=with_vectors,
                score_threshold=score_threshold,
            )
        request = qe.QueryRequest(
            limit=limit,
            offset=offset,
            query=_query(query, using),
            prefetches=_prefetches(prefetch),
            with_vector=_with_vectors(with_vectors),
            with_payload=_with_payload(with_payload),
            filter=_filter(query_filter),
            score_threshold=score_threshold,
            params=_search_params(search_params),
        )
        found = self._read(collection_name, "query", lambda s: s.query(request))
        return QueryResponse(points=[_scored(p) for p in found])

    def _fused(
        self,
        collection_name: str,
        query: Any,
        prefetches: list[models.Prefetch],
        query_filter: models.Filter | None,
        *,
        limit: int,
        offset: int,
        with_payload: Any,
        with_vectors: bool | Sequence[str],
        score_threshold: float | None,
    ) -> QueryResponse:
        top = _filter(query_filter)
        arms = []
        for p in prefetches:
            if p.lookup_from is not None:
                raise NotImplementedError("EdgeClient does not translate lookup_from")
            arms.append(
                qe.QueryRequest(
                    limit=p.limit if p.limit is not None else 10,
                    query=_query(p.query, p.using),
                    prefetches=_prefetches(p.prefetch),
                    filter=_and(top, _filter(p.filter)),
                    score_threshold=p.score_threshold,
                    params=_search_params(p.params),
                    with_payload=False,
                    with_vector=False,
                )
            )
        batch = qe.QueryBatchRequest(arms)
        found = self._read(collection_name, "query", lambda s: s.query_batch(batch))
        sources = [[_scored(p) for p in arm] for arm in found]
        if not isinstance(query, models.FusionQuery):  # an RrfQuery: its own k and weights
            fused = reciprocal_rank_fusion(
                sources,
                limit=limit + offset,
                ranking_constant_k=query.rrf.k,
                weights=query.rrf.weights,
            )
        elif query.fusion == models.Fusion.RRF:
            fused = reciprocal_rank_fusion(sources, limit=limit + offset)
        else:
            fused = distribution_based_score_fusion(sources, limit=limit + offset)
        if score_threshold is not None:
            fused = [f for f in fused if f.score >= score_threshold]
        fused = fused[offset:]
        if not fused:
            return QueryResponse(points=[])
        records = {
            r.id: r
            for r in self.retrieve(
                collection_name, [f.id for f in fused], with_payload, with_vectors
            )
        }
        out = []
        for point in fused:
            record = records.get(point.id)
            if record is None:  # deleted between the two calls
                continue
            point.payload, point.vector = record.payload, record.vector
            out.append(point)
        return QueryResponse(points=out)

    def scroll(
        self,
        collection_name: str,
        scroll_filter: models.Filter | None = None,
        limit: int = 10,
        order_by: str | models.OrderBy | None = None,
        offset: models.ExtendedPointId | None = None,
        with_payload: Any = True,
        with_vectors: bool | Sequence[str] = False,
    ) -> tuple[list[models.Record], models.ExtendedPointId | None]:
        """A page of points in id order (or ``order_by`` a range-indexed field) and the next id."""
        records, next_id = self._scroll(
            collection_name,
            scroll_filter,
            limit,
            offset,
            _with_payload(with_payload),
            _with_vectors(with_vectors),
            _order_by(order_by) if order_by is not None else None,
        )
        return [_record(r) for r in records], next_id

    def scroll_payloads(
        self,
        collection_name: str,
        scroll_filter: models.Filter | None,
        fields: Sequence[str],
        limit: int,
        offset: models.ExtendedPointId | None = None,
    ) -> tuple[list[tuple[models.ExtendedPointId, dict[str, Any]]], models.ExtendedPointId | None]:
        """:meth:`scroll` in id order as ``(id, payload)`` pairs, with only ``fields``.

        No qdrant-client model is built per point: for scans of many points (the inspector
        sorts 10,000 memories by a few fields), where building them costs more than the read.
        """
        wanted = [str(f) for f in fields]
        records, next_id = self._scroll(
            collection_name, scroll_filter, limit, offset, wanted, False, None
        )
        return [(_id_out(r.id), r.payload or {}) for r in records], next_id

    def scroll_records(
        self,
        collection_name: str,
        scroll_filter: models.Filter | None,
        limit: int,
        offset: models.ExtendedPointId | None = None,
        with_payload: bool | list[str] = False,
        order_by: str | models.OrderBy | None = None,
    ) -> tuple[list[qe.Record], models.ExtendedPointId | None]:
        """:meth:`scroll` without vectors, as the engine's own records and the next id.

        A record's ``id`` is the engine's (a ``UUID`` or an unsigned integer), its
        ``payload`` a plain dict (only ``with_payload``'s fields), and ``order_value`` the
        ``order_by`` field's value. No qdrant-client model is built per point: for listings
        of many points (the inspector's memories page), where building them costs more than
        the read.
        """
        return self._scroll(
            collection_name,
            scroll_filter,
            limit,
            offset,
            with_payload,
            False,
            _order_by(order_by) if order_by is not None else None,
        )

    def _scroll(
        self,
        collection_name: str,
        scroll_filter: models.Filter | None,
        limit: int,
        offset: models.ExtendedPointId | None,
        with_payload: qe.WithPayloadType,
        with_vector: qe.WithVectorType,
        order_by: Any,
    ) -> tuple[list[qe.Record], models.ExtendedPointId | None]:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        request = qe.ScrollRequest(
            offset=None if offset is None else _id_in(offset),
            limit=limit,
            filter=_filter(scroll_filter),
            with_payload=with_payload,
            with_vector=with_vector,
            order_by=order_by,
        )
        records, next_id = self._read(collection_name, "scroll", lambda s: s.scroll(request))
        return list(records), None if next_id is None else _id_out(next_id)

    def retrieve(
        self,
        collection_name: str,
        ids: Sequence[models.ExtendedPointId],
        with_payload: Any = True,
        with_vectors: bool | Sequence[str] = False,
    ) -> list[models.Record]:
        """The points among ``ids`` that exist."""
        wanted = [_id_in(i) for i in ids]
        payload, vectors = _with_payload(with_payload), _with_vectors(with_vectors)
        records = self._read(
            collection_name, "retrieve", lambda s: s.retrieve(wanted, payload, vectors)
        )
        return [_record(r) for r in records]

    def count(
        self, collection_name: str, count_filter: models.Filter | None = None, exact: bool = True
    ) -> models.CountResult:
        """How many points match (always an exact count, as in local mode)."""
        request = qe.CountRequest(exact=True, filter=_filter(count_filter))
        return models.CountResult(
            count=self._read(collection_name, "count", lambda s: s.count(request))
        )

    def facet(
        self,
        collection_name: str,
        key: str,
        facet_filter: models.Filter | None = None,
        limit: int = 10,
        exact: bool = False,
    ) -> models.FacetResponse:
        """Distinct values of an indexed field with exact counts, most frequent first.

        Ties are ordered by value, as local mode orders them (values are fetched beyond
        ``limit`` so that a tie at the cut is decided the same way). Unlike local mode the
        field needs a payload index (as on a server).
        """
        wide = max(limit, _FACET_DEPTH)
        request = qe.FacetRequest(key, limit=wide, exact=True, filter=_filter(facet_filter))
        res = self._read(collection_name, "facet", lambda s: s.facet(request))
        hits = sorted(res.hits, key=lambda h: (-h.count, _value_order(h.value)))[:limit]
        return models.FacetResponse(
            hits=[models.FacetValueHit(value=h.value, count=h.count) for h in hits]
        )

    def collection_names(self) -> list[str]:
        """The collections created in this folder, sorted."""
        self._check_open()
        return sorted(
            d.name for d in self.path.iterdir() if _NAME.match(d.name) and (d / _META).is_file()
        )

    def optimize(self, collection_name: str) -> None:
        """Merge the collection's segments and build their indexes now.

        What a Qdrant server's optimizer does in the background: small appendable segments
        become one optimised segment (with the int8 copies of a quantized dense vector, the
        sparse vectors' inverted index, and an HNSW graph only where the collection asks for
        one). Queries and writes go on meanwhile; a compaction waits for it.

        Raises:
            ValueError: The collection does not exist.
            DiskFullError: The disk cannot hold the rewritten segments.
            RuntimeError: The engine failed (the collection is unchanged).
        """
        self._check_space("optimize a collection")
        self._read(collection_name, "optimize", lambda shard: shard.optimize())
        with self._registry:
            self.optimizations += 1

    def wait_optimized(self, timeout: float | None = None) -> bool:
        """Wait until no background optimisation runs; ``False`` if ``timeout`` ran out."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._registry:
                running = list(self._optimizing.values())
            if not running:
                return True
            for thread in running:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                thread.join(left)
                if thread.is_alive():
                    return False

    def _flat(self, collection_name: str) -> bool:
        """Whether every dense vector of the collection is scanned without an HNSW graph."""
        dense = self._meta(collection_name)["vectors"].values()
        return bool(dense) and all((v.get("hnsw_config") or {}).get("m") == 0 for v in dense)

    def _wrote(self, collection_name: str, count: int) -> None:
        if not self.optimize_every:
            return
        with self._registry:
            total = self._written.get(collection_name, 0) + count
            self._written[collection_name] = total
            if total >= self.optimize_every:
                self._optimize_later(collection_name)

    def _optimize_later(self, collection_name: str) -> None:
        """Start a background :meth:`optimize` of a graph-less collection (one at a time)."""
        with self._registry:
            if self._closed or collection_name in self._optimizing:
                return
            if not self._flat(collection_name):
                return
            self._written[collection_name] = 0
            # not a daemon: the interpreter waits for it before the finaliser closes shards
            thread = threading.Thread(
                target=self._optimize_in_background,
                args=(collection_name,),
                name=f"prax-edge-optimize-{collection_name}",
            )
            self._optimizing[collection_name] = thread
            thread.start()

    def _optimize_in_background(self, collection_name: str) -> None:
        try:
            if not self._closed:
                self.optimize(collection_name)
        except Exception as exc:  # queries still work on unoptimised segments
            log = logger.debug if self._closed else logger.warning
            log("background optimisation of %r skipped: %s", collection_name, exc)
        except BaseException as exc:
            if not _engine_error(exc):
                raise
            logger.warning("background optimisation of %r failed: %s", collection_name, exc)
        finally:
            with self._registry:
                self._optimizing.pop(collection_name, None)

    def compact(self, collection_name: str) -> int:
        """Rewrite the collection's files without the bytes of deleted points.

        qdrant-edge has no in-process vacuum that reaches its write-ahead log, so the
        collection is rebuilt: every live point (its vectors and payload) and every payload
        index is copied into a fresh shard beside the old one, the copy is flushed and marked
        complete, the folders are swapped and the old shard's files deleted. Until the mark
        is written the old shard is the collection, and a crash only leaves a partial copy
        that the next open discards; after it, the next open finishes the swap. Other calls
        on this client wait while a compaction runs (writes during the copy would be lost).

        Args:
            collection_name: The collection to compact.

        Returns:
            How many points the compacted collection holds.

        Raises:
            ValueError: The collection does not exist.
            RuntimeError: The engine failed; the old shard is kept unchanged.
        """
        with self._gate:
            self._check_open()
            while self._compacting:
                self._gate.wait()
            self._compacting = True
            try:
                while self._active:
                    self._gate.wait()
            except BaseException:
                self._compacting = False
                self._gate.notify_all()
                raise
        try:
            with self._stamped(collection_name, None):
                return self._rebuild(collection_name)
        finally:
            with self._gate:
                self._compacting = False
                self._gate.notify_all()

    def _rebuild(self, collection_name: str) -> int:
        meta = self._meta(collection_name)
        folder = self._dir(collection_name)
        old = self._shard(collection_name)  # finishes an interrupted compaction first
        fresh_dir, done = folder / _FRESH, folder / _FRESH_DONE
        if fresh_dir.exists():
            shutil.rmtree(fresh_dir)
        self._check_copy_space(folder / _SHARD, collection_name)
        try:
            indexes = _index_plan(meta, old.info())
            fresh = qe.EdgeShard.create(str(fresh_dir), _edge_config(meta, self.search_threads))
            try:
                for field, schema in indexes.items():
                    fresh.update(qe.UpdateOperation.create_field_index(field, schema))
                copied = _copy_points(old, fresh)
                expected = old.count(qe.CountRequest(exact=True))
                if copied != expected:
                    raise RuntimeError(f"copied {copied} points of {expected}")
                fresh.flush()
            finally:
                fresh.close()
        except BaseException as exc:
            shutil.rmtree(fresh_dir, ignore_errors=True)
            if not _engine_error(exc):
                raise
            raise RuntimeError(
                f"qdrant-edge compaction of {collection_name!r} failed (the collection is "
                f"unchanged): {exc}"
            ) from exc
        _fsync_tree(fresh_dir)
        with open(done, "wb") as fh:
            os.fsync(fh.fileno())
        _fsync_dir(folder)
        with self._registry:
            self._shards.pop(collection_name, None)
            for step in (old.flush, old.close):
                try:
                    step()
                except BaseException as exc:  # the copy is complete: swap all the same
                    if not _engine_error(exc):
                        raise
            _finish_compaction(folder)
            self._debt = (-math.inf, 0)  # the files changed: measure the disk again
        return copied

    def _check_copy_space(self, shard: Path, collection_name: str) -> None:
        """Refuse a compaction the disk cannot hold: the copy may fill as much as the original.

        The engine's files are sparse and memory-mapped (a page the disk cannot back kills
        the process), so the copy needs the original's full apparent size free, plus the
        headroom the writes keep (``MEMORY_DISK_HEADROOM_MB``; ``0`` turns this off too).
        """
        if self.min_free_bytes == 0:
            return
        need = self.min_free_bytes + sum(p.stat().st_size for p in shard.rglob("*") if p.is_file())
        free = shutil.disk_usage(self.path).free
        if free < need:
            mib = 1024 * 1024
            raise DiskFullError(
                f"not enough free disk space to compact {collection_name!r} in the embedded "
                f"Qdrant store at {self.path}: {free / mib:.0f} MiB free, {need / mib:.0f} MiB "
                "needed for the copy and the headroom. Nothing was changed; free some space "
                "and retry"
            )

    def close(self) -> None:
        """Flush and close every shard, release the folder (delete it for ``":memory:"``).

        A client shared by :func:`open_shared_edge` stays open until its last holder closes.
        """
        with _SHARED_LOCK, self._registry:
            if self._closed:
                return
            self._holders -= 1
            if self._holders > 0:
                return
            if _SHARED.get(self.path) is self:
                del _SHARED[self.path]
            self._closed = True  # new calls are refused from here on ...
            while self._active or self._compacting:  # ... and calls under way finish first
                self._gate.wait()
            running = [t for t in self._optimizing.values() if t is not threading.current_thread()]
        for thread in running:  # a background optimisation ends (or is refused) first
            thread.join()
        with _SHARED_LOCK, self._registry:
            errors: list[Exception] = self._release() or []
            if errors:
                raise _close_error(self.path, errors[0]) from errors[0]

    # -- internals ---------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"the embedded Qdrant client at {self.path} is closed")

    def _dir(self, collection_name: str) -> Path:
        if not _NAME.match(collection_name):
            raise ValueError(
                f"collection name {collection_name!r}: use letters, digits, '_' and '-' only"
            )
        return self.path / collection_name

    def _meta(self, collection_name: str) -> dict[str, Any]:
        path = self._dir(collection_name) / _META
        if not path.is_file():
            raise ValueError(f"Collection {collection_name} not found")
        meta: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return meta

    def _check_vectors(self, collection_name: str, vectors: Sequence[Any]) -> None:
        """Names, widths and values of a write's vectors, all checked before anything is written.

        qdrant-edge applies a batch point by point and stops at the first bad one, and a
        malformed sparse vector panics the engine after it reached the write-ahead log (which
        then panics on every replay): so nothing it could refuse is handed to it.
        """
        meta = self._meta(collection_name)
        dense = {n: int(v["size"]) for n, v in meta["vectors"].items()}
        sparse = set(meta["sparse_vectors"])
        for vector in vectors:
            named = vector if isinstance(vector, Mapping) else {"": vector}
            for name, value in named.items():
                if isinstance(value, models.SparseVector):
                    if name not in sparse:
                        raise ValueError(f"no sparse vector named {name!r} in {collection_name!r}")
                    _check_sparse(value)
                    continue
                if name not in dense:
                    raise ValueError(f"no dense vector named {name!r} in {collection_name!r}")
                values = np.asarray(value, dtype=np.float64)
                if values.ndim != 1 or values.shape[0] != dense[name]:
                    raise ValueError(
                        f"vector {name!r} has {values.size} values; {collection_name!r} "
                        f"takes {dense[name]}"
                    )
                if not np.isfinite(values).all():
                    raise ValueError(f"vector {name!r} holds NaN or infinity")

    def _load(self, folder: Path, meta: Mapping[str, Any]) -> qe.EdgeShard:
        """Load a shard, with this client's search threads when it sets them."""
        if self.search_threads is None:
            return qe.EdgeShard.load(str(folder))
        try:
            return qe.EdgeShard.load(str(folder), _edge_config(meta, self.search_threads))
        except BaseException as exc:
            if not _engine_error(exc) or "incompatible" not in str(exc).casefold():
                raise
            # the threads only time the searches: a shard the config does not fit still opens
            logger.warning("opening %s with its own search threads: %s", folder, exc)
            return qe.EdgeShard.load(str(folder))

    def _shard(self, collection_name: str) -> qe.EdgeShard:
        with self._registry:
            self._check_open()
            shard = self._shards.get(collection_name)
            if shard is not None:
                return shard
            meta = self._meta(collection_name)
            _finish_compaction(self._dir(collection_name))  # before measuring the disk
            self._check_space("open the collection")  # loading touches the mapped files
            folder = self._dir(collection_name) / _SHARD
            try:
                if folder.is_dir() and any(folder.iterdir()):
                    shard = self._load(folder, meta)
                else:  # metadata written, shard creation interrupted: create it now
                    config = _edge_config(meta, self.search_threads)
                    shard = qe.EdgeShard.create(str(folder), config)
            except Exception as exc:
                if "WouldBlock" in str(exc):
                    raise _locked(self.path) from exc
                raise RuntimeError(f"cannot open the qdrant-edge shard at {folder}: {exc}") from exc
            self._debt = (-math.inf, 0)  # loading may map new files: measure again
            self._shards[collection_name] = shard
            if self.optimize_every and self._flat(collection_name):
                try:  # a large shard written without optimising (another client, a crash)
                    if shard.info().points_count >= self.optimize_every:
                        self._optimize_later(collection_name)
                except BaseException as exc:  # the shard still serves queries as it is
                    if not _engine_error(exc):
                        raise
                    logger.warning("could not check %r for optimisation: %s", collection_name, exc)
            return shard

    @contextlib.contextmanager
    def _using(self, collection_name: str) -> Iterator[qe.EdgeShard]:
        """The collection's shard for one call; a compaction waits until the call is done."""
        with self._gate:
            while self._compacting:
                self._gate.wait()
            shard = self._shard(collection_name)
            self._active += 1
        try:
            yield shard
        finally:
            with self._gate:
                self._active -= 1
                if not self._active:
                    self._gate.notify_all()

    def _read(self, collection_name: str, what: str, fn: Callable[[qe.EdgeShard], T]) -> T:
        with self._using(collection_name) as shard:
            try:
                return fn(shard)
            except BaseException as exc:
                if not _engine_error(exc):
                    raise
                raise RuntimeError(
                    f"qdrant-edge {what} on {collection_name!r} failed: {exc}"
                ) from exc

    def _check_space(self, what: str) -> None:
        """Refuse (:class:`DiskFullError`) unless the disk can back every page it may touch."""
        if self.min_free_bytes == 0:
            return
        free = shutil.disk_usage(self.path).free
        debt = self._sparse_debt()
        if free >= debt + self.min_free_bytes:
            return
        mib = 1024 * 1024
        raise DiskFullError(
            f"not enough free disk space to {what} in the embedded Qdrant store at {self.path}: "
            f"{free / mib:.0f} MiB free, {(debt + self.min_free_bytes) / mib:.0f} MiB needed "
            f"({debt / mib:.0f} MiB its memory-mapped files may still fill, plus "
            f"{self.min_free_bytes / mib:.0f} MiB headroom, MEMORY_DISK_HEADROOM_MB). Nothing "
            "was written; free some space and retry (writing on would crash the process)"
        )

    def _sparse_debt(self) -> int:
        """Bytes the engine's files may still fill (size beyond allocated blocks), cached 2 s."""
        now = time.monotonic()
        measured, debt = self._debt
        if now - measured < _DEBT_TTL:
            return debt
        debt = 0
        for root, _dirs, files in os.walk(self.path):
            for name in files:
                try:
                    st = os.stat(os.path.join(root, name))
                except OSError:
                    continue
                debt += max(0, st.st_size - st.st_blocks * 512)
        self._debt = (now, debt)
        return debt

    def _update(
        self,
        collection_name: str,
        what: str,
        ops: Sequence[qe.UpdateOperation],
        touched: Touched,
        fields: frozenset[str] | None = None,
    ) -> list[models.UpdateResult]:
        """Apply ``ops``; ``touched`` / ``fields``: what they may change (``_stamped``)."""
        self._check_space(what)
        done = []
        stamped = self._stamped(collection_name, touched, fields)
        with self._using(collection_name) as shard, stamped:
            for op in ops:
                try:
                    shard.update(op)
                except BaseException as exc:
                    if not _engine_error(exc):
                        raise
                    raise RuntimeError(
                        f"qdrant-edge {what} on {collection_name!r} failed: {exc}"
                    ) from exc
                done.append(
                    models.UpdateResult(operation_id=0, status=models.UpdateStatus.COMPLETED)
                )
        return done


#: Clients shared within this process, by resolved folder (see :func:`open_shared_edge`).
_SHARED: weakref.WeakValueDictionary[Path, EdgeClient] = weakref.WeakValueDictionary()


_SHARED_LOCK = threading.RLock()
#: The most threads a shard's search pool may be given (a typo must not spawn thousands,
#: and the engine keeps the count in the shard's folder).
MAX_SEARCH_THREADS = 256


def open_shared_edge(
    path: str | os.PathLike[str],
    *,
    min_free_bytes: int = DEFAULT_HEADROOM,
    search_threads: int | None = None,
) -> EdgeClient:
    """The process's client for the folder ``path``, opened on first use and then shared.

    The engine allows one client per folder, so several ``PraxMemory`` objects of one process
    (a notebook, a server with several stores) share one. Each call counts as a holder and
    must be matched by one :meth:`EdgeClient.close`; the folder is released when the last
    holder closes. Another process still gets :class:`StoreLockedError` naming the holder.
    ``search_threads`` is the first opener's: later holders share its client.

    Example:
        >>> import tempfile
        >>> folder = tempfile.mkdtemp()
        >>> a, b = open_shared_edge(folder), open_shared_edge(folder)
        >>> a is b
        True
        >>> a.close(); b.collection_exists("x")
        False
        >>> b.close()
    """
    key = Path(path).resolve()
    with _SHARED_LOCK:
        client = _SHARED.get(key)
        if client is not None and not client._closed:
            with client._registry:
                client._holders += 1
            return client
        client = EdgeClient(key, min_free_bytes=min_free_bytes, search_threads=search_threads)
        _SHARED[key] = client
        return client


def _write_owner(root: Path) -> None:
    """Record who holds the folder, for the error another process gets (best effort)."""
    import socket

    owner = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()}
    # a read-only or full disk: the lock still holds, only the error says less
    with contextlib.suppress(OSError):
        (root / _OWNER).write_text(json.dumps(owner), encoding="utf-8")


def _holder(root: Path) -> str:
    """``" (held by pid N on host H since T)"`` from the owner file, or ``""``."""
    try:
        owner = json.loads((root / _OWNER).read_text(encoding="utf-8"))
        since = datetime.fromtimestamp(float(owner["since"])).isoformat(timespec="seconds")
        return f" (held by pid {int(owner['pid'])} on host {owner['host']} since {since})"
    except (OSError, ValueError, KeyError, TypeError):
        return ""


def _write_meta(folder: Path, meta: Mapping[str, Any]) -> None:
    tmp = folder / f"{_META}.tmp"
    tmp.write_text(json.dumps(meta, indent=1), encoding="utf-8")
    tmp.replace(folder / _META)


def _fsync_dir(folder: Path) -> None:
    """Make renames and new files in ``folder`` durable (best effort where unsupported)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_tree(root: Path) -> None:
    """Make every file and folder under ``root`` durable (``fsync``), before the swap."""
    for folder, _, files in os.walk(root):
        for name in files:
            with contextlib.suppress(OSError), open(os.path.join(folder, name), "rb") as fh:
                os.fsync(fh.fileno())
        _fsync_dir(Path(folder))


def _finish_compaction(folder: Path) -> None:
    """Bring a collection folder left by an interrupted :meth:`EdgeClient.compact` to one shard.

    With the completion mark the copy is whole: swap it in (the old shard becomes
    ``shard.stale``). Without it, a copy is partial and is discarded. A stale shard left
    behind is deleted, or, if it is the only shard there, put back.
    """
    shard, fresh, stale, done = (folder / n for n in (_SHARD, _FRESH, _STALE, _FRESH_DONE))
    if not (fresh.exists() or stale.exists() or done.exists()):
        return
    if done.exists() and fresh.is_dir():
        if shard.exists():
            if stale.exists():
                shutil.rmtree(stale)
            os.rename(shard, stale)
        os.rename(fresh, shard)
        _fsync_dir(folder)
    done.unlink(missing_ok=True)
    _fsync_dir(folder)
    if fresh.exists():
        shutil.rmtree(fresh)
    if stale.exists():
        if shard.exists():
            shutil.rmtree(stale)
        else:
            os.rename(stale, shard)
    _fsync_dir(folder)


def _copy_points(src: qe.EdgeShard, dst: qe.EdgeShard) -> int:
    """Copy every point of ``src`` (vectors and payload) into ``dst``; how many."""
    copied = 0
    offset: qe.PointId | None = None
    while True:
        records, offset = src.scroll(
            qe.ScrollRequest(offset=offset, limit=_COPY_PAGE, with_payload=True, with_vector=True)
        )
        if records:
            points = [qe.Point(r.id, r.vector or {}, r.payload) for r in records]
            dst.update(qe.UpdateOperation.upsert_points(points))
            copied += len(points)
        if offset is None or not records:
            return copied


def _release(
    shards: dict[str, qe.EdgeShard], lock: filelock.BaseFileLock, root: Path, temporary: bool
) -> list[Exception]:
    """Flush and close the shards, unlock the folder, remove it if temporary; the errors."""
    errors: list[Exception] = []
    try:
        for shard in shards.values():
            try:
                shard.flush()
            except BaseException as exc:  # still close it and the others, then report
                if not _engine_error(exc):
                    raise
                errors.append(RuntimeError(f"qdrant-edge flush failed: {exc}"))
            try:
                shard.close()
            except BaseException as exc:
                if not _engine_error(exc):
                    raise
                errors.append(RuntimeError(f"qdrant-edge close failed: {exc}"))
        shards.clear()
    finally:
        if not temporary:
            with contextlib.suppress(OSError):
                (root / _OWNER).unlink(missing_ok=True)
        lock.release()
        if temporary:
            shutil.rmtree(root, ignore_errors=True)
    return errors


def _close_error(root: Path, exc: Exception) -> MemoryWriteError:
    """What closing raises when a shard's final flush or close failed.

    The folder is released either way. Every write acknowledged before is in the engine's
    write-ahead log, which the next open replays, so nothing acknowledged is lost.
    """
    said = str(exc)
    then = (
        "the store is closed and its folder released; every write acknowledged before is in "
        "its write-ahead log, which the next open replays, so nothing is lost"
    )
    if any(sign in said.lower() for sign in ("no space left", "os error 28", "quota exceeded")):
        return DiskFullError(
            f"closing the embedded Qdrant store at {root} could not write its final flush: not "
            f"enough free disk space ({said}); {then}. Free some space before opening it again"
        )
    return MemoryWriteError(f"closing the embedded Qdrant store at {root} failed ({said}); {then}")


def _unwritable(root: Path, exc: OSError) -> BackendUnavailable:
    """The error for a store folder the disk does not let this process write (its lock)."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return DiskFullError(
            f"the embedded Qdrant store at {root} cannot be opened: not enough free disk space "
            f"for its lock file ({exc}). Free some space and retry"
        )
    why = {errno.EROFS: "is read-only", errno.EACCES: "is not writable by this user"}
    return BackendUnavailable(
        f"the embedded Qdrant store at {root} cannot be opened: its folder "
        f"{why.get(exc.errno or 0, 'cannot be written')} ({exc}). Long-term memory writes its "
        "lock and write-ahead log there, even to read: mount the data folder read-write, or "
        "set MEMORY_DATA_DIR (--data-dir) to a writable folder"
    )


def _locked(root: Path) -> StoreLockedError:
    return StoreLockedError(
        f"the embedded Qdrant store at {root} is open in another process{_holder(root)} or in "
        "an EdgeClient of this one that is not shared (the embedded engine allows one client "
        "per folder; PraxMemory objects of one process share it). Close the other one, give "
        "this one its own MEMORY_DATA_DIR, or run a Qdrant server and set QDRANT_URL so several "
        "processes can share it."
    )
