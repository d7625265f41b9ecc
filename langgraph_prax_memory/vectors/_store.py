"""The Qdrant vector store: one class over ``qdrant-client`` (or the embedded engine).

It serves a server URL, ``:memory:`` or an embedded folder: qdrant-edge
(:class:`~langgraph_prax_memory.vectors.EdgeClient`, the default) or qdrant-client's local mode.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from qdrant_client.http import models

from langgraph_prax_memory._breaker import CircuitBreaker
from langgraph_prax_memory._validation import check_user_id, utcnow
from langgraph_prax_memory.config import DEFAULT_BREAKER_COOLDOWN, DEFAULT_BREAKER_FAILURES
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    ConfigError,
    DiskFullError,
    MemoryWriteError,
)
from langgraph_prax_memory.vectors._client import (
    _why,
    is_edge_client,
    is_local_client,
    is_remote_client,
    qdrant_unavailable,
    scroll_payloads,
)
from langgraph_prax_memory.vectors._model import MODEL_KEY, model_mismatch, same_model
from langgraph_prax_memory.vectors._payload import FOLDED_CONTENT
from langgraph_prax_memory.vectors._plan import (
    DENSE,
    DENSE_SEARCH,
    PAYLOAD_INDEXES,
    SPARSE,
    OwnedElsewhere,
    StoredPoint,
    VectorRecord,
    assert_pinned,
    collection_plan,
    decay_victims,
    existing_dimension,
    hybrid_query_plan,
    ids_condition,
    qsparse,
    reinforce_plan,
    to_stored,
    user_filter,
)
from langgraph_prax_memory.vectors._scroll import scroll_points

if TYPE_CHECKING:
    from langgraph_prax_memory.vectors._client import VectorClient

__all__ = ["QdrantVectorStore"]

logger = logging.getLogger(__name__)
T = TypeVar("T")
_SCAN_PAGE = 10_000  # points per request of scan (a few payload fields each)


class QdrantVectorStore:
    """Memories as Qdrant points with named dense + sparse vectors, always scoped by user.

    Args:
        client: An open ``QdrantClient`` or embedded ``EdgeClient`` (see
            :func:`open_qdrant_client`).
        collection: Collection name (``prax_memories`` by default).
        dimension: Width of the dense vector; checked against an existing collection.
        model_stamp: The embedding model (``name``, ``dimension``, ``fingerprint``) recorded
            in a new collection's metadata; opening a collection recorded with another
            model is a :class:`ConfigError` (one model per collection).
        breaker: The circuit breaker of the server, to share one between stores on the same
            client; by default a server client gets its own and the embedded engines, which
            cannot hang, none.
        breaker_failures: Consecutive failures that open a new breaker.
        breaker_cooldown: Seconds a new breaker stays open before a health check.

    Example:
        >>> from qdrant_client import QdrantClient
        >>> store = QdrantVectorStore(QdrantClient(":memory:"), dimension=384)
        >>> store.count("alice")
        0
    """

    def __init__(
        self,
        client: VectorClient,
        *,
        collection: str = "prax_memories",
        dimension: int,
        breaker: CircuitBreaker | None = None,
        breaker_failures: int = DEFAULT_BREAKER_FAILURES,
        breaker_cooldown: float = DEFAULT_BREAKER_COOLDOWN,
        model_stamp: Mapping[str, Any] | None = None,
    ) -> None:
        self.client = client
        #: The embedding model this store writes with (``name``, ``dimension``,
        #: ``fingerprint``): recorded in a new collection's metadata and checked against an
        #: existing one's (``None``: not checked).
        self.model_stamp = dict(model_stamp) if model_stamp is not None else None
        #: Open a collection of another model without raising (the migration sets it).
        self.allow_model_change = False
        self.collection = collection
        self.dimension = dimension
        #: Fails calls fast while the Qdrant server is down (``None``: an embedded engine).
        self.breaker = breaker
        if breaker is None and is_remote_client(client):
            self.breaker = CircuitBreaker(
                "Qdrant",
                failures=breaker_failures,
                cooldown=breaker_cooldown,
                is_failure=qdrant_unavailable,
                probe=lambda: self.client.collection_exists(self.collection),
                explain=_why,
            )
        self.local = is_local_client(client)
        #: Rescoring of quantized dense scans (local mode scans exactly and warns about any).
        self._dense_params = None if self.local else DENSE_SEARCH
        self._ready = False
        self._closed = False
        #: Writes made through this store (what recall counted stays valid until it moves).
        self.writes = 0
        self._lock = threading.Lock()
        # Qdrant's local mode is plain Python without locking: serialise calls into it so the
        # concurrent arms and background reinforcement never interleave inside its structures.
        self._io: threading.RLock | contextlib.nullcontext[None] = (
            threading.RLock() if self.local else contextlib.nullcontext()
        )

    # -- setup -------------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        """Whether the collection has been checked (or created) in this process."""
        return self._ready

    def ensure_collection(self) -> None:
        """Create the collection and its payload indexes, or check the existing one's width.

        An existing collection that lacks some of the payload indexes (an interrupted first
        run) gets them: the embedded engine, like a server, facets and orders only by indexed
        fields.
        """
        if self._ready:
            return
        with self._lock:
            if self._ready:
                return
            try:
                with self.guard():
                    indexed: set[str] = set()
                    if self.client.collection_exists(self.collection):
                        info = self.client.get_collection(self.collection)
                        self._check_width(info)
                        self._check_model(info)
                        indexed = set(info.payload_schema)
                    else:
                        plan = collection_plan(self.dimension, embedded=is_edge_client(self.client))
                        self.client.create_collection(self.collection, **plan)
                        if self.model_stamp is not None:  # apart: a server < 1.16 has none
                            self.merge_metadata({MODEL_KEY: self.model_stamp}, checked=True)
                    if not self.local:
                        for name, schema in PAYLOAD_INDEXES.items():
                            if name not in indexed:
                                self.client.create_payload_index(self.collection, name, schema)
            except (ConfigError, BackendUnavailable):
                raise
            except Exception as exc:
                raise BackendUnavailable(f"Qdrant is not usable: {_why(exc)}") from exc
            self._ready = True

    def _check_width(self, info: models.CollectionInfo) -> None:
        width = existing_dimension(info)
        if width != self.dimension:
            raise ConfigError(
                f"collection '{self.collection}' holds {width}-dimensional dense vectors but "
                f"the embedding provider produces {self.dimension} (EMBEDDING_PROVIDER / "
                "EMBEDDING_MODEL). Use the provider the collection was built with, or set "
                "MEMORY_COLLECTION to a new collection and re-import."
            )

    def _check_model(self, info: models.CollectionInfo) -> None:
        """One model per collection: the recorded model must be this store's.

        A collection from before models were recorded adopts this store's model, unless its
        points say they were embedded by another one.
        """
        if self.model_stamp is None:
            return
        stored = (info.config.metadata or {}).get(MODEL_KEY)
        if isinstance(stored, Mapping):
            if same_model(stored, self.model_stamp) or self.allow_model_change:
                return
            raise ConfigError(model_mismatch(self.collection, stored, self.model_stamp))
        recorded = self._recorded_models()
        if recorded and self.model_stamp["name"] not in recorded and not self.allow_model_change:
            raise ConfigError(
                model_mismatch(
                    self.collection, {"name": ", ".join(sorted(recorded))}, self.model_stamp
                )
            )
        self.merge_metadata({MODEL_KEY: self.model_stamp}, checked=True)

    def record_model(self, stamp: Mapping[str, Any] | None = None) -> None:
        """Record ``stamp`` (default: this store's) as the collection's model (a migration)."""
        if stamp is not None:
            self.model_stamp = dict(stamp)
        self.merge_metadata({MODEL_KEY: self.model_stamp})

    def _recorded_models(self) -> set[str]:
        """The ``embedding_model`` of a sample of points (any tenant; names only)."""
        records, _ = self.client.scroll(
            self.collection, limit=32, with_payload=["embedding_model"], with_vectors=False
        )
        return {
            str(r.payload["embedding_model"])
            for r in records
            if r.payload and r.payload.get("embedding_model")
        }

    def metadata(self) -> dict[str, Any]:
        """The collection's metadata (the recorded model, its cosine scale)."""
        info = self.call("collection info", lambda: self.client.get_collection(self.collection))
        return dict(info.config.metadata or {})

    def merge_metadata(self, values: Mapping[str, Any], *, checked: bool = False) -> bool:
        """Merge ``values`` into the collection's metadata; ``False`` when the server cannot.

        A Qdrant server older than 1.16 keeps no metadata: the model is then not recorded
        (logged), and nothing else changes.
        """
        if not checked:
            self.ensure_collection()
        try:  # best effort, outside the breaker: an old server refusing it is not an outage
            with self._io:
                self.client.update_collection(self.collection, metadata=dict(values))
        except Exception as exc:
            logger.warning(
                "could not record metadata of collection %r (%s): one model per collection "
                "is not enforced there",
                self.collection,
                _why(exc),
            )
            return False
        return True

    def guard(self) -> contextlib.AbstractContextManager[None]:
        """The server's circuit breaker around one call (nothing for an embedded engine)."""
        return self.breaker.guard() if self.breaker is not None else contextlib.nullcontext()

    def call(self, what: str, fn: Callable[[], T]) -> T:
        """Run one read ``fn`` on the client behind the breaker.

        Raises:
            BackendUnavailable: ``fn`` failed (the message names ``what``).
        """
        self.ensure_collection()
        try:
            with self.guard(), self._io:
                return fn()
        except (ConfigError, BackendUnavailable):
            raise
        except Exception as exc:
            raise BackendUnavailable(f"Qdrant {what} failed: {_why(exc)}") from exc

    # -- writes ------------------------------------------------------------------------
    def upsert(self, user_id: str, records: Sequence[VectorRecord]) -> list[str]:
        """Write points; raises :class:`MemoryWriteError` unless every write landed."""
        check_user_id(user_id)
        if not records:
            return []
        for r in records:
            if r.payload.get("user_id") != user_id:
                raise MemoryWriteError("a record's user_id does not match the writer's")
        try:
            self.ensure_collection()
            with self.guard(), self._io:
                # point ids are per namespace and key, not per user: a writer whose namespace
                # maps to another user (a store with another tenant_index) must not take over
                # a point someone else owns
                owners = self.client.retrieve(
                    self.collection, ids=[r.id for r in records], with_payload=True
                )
                taken = [str(o.id) for o in owners if (o.payload or {}).get("user_id") != user_id]
                if taken:
                    raise OwnedElsewhere(taken)
                result = self.client.upsert(
                    self.collection, points=[r.to_point() for r in records], wait=True
                )
        except OwnedElsewhere as exc:
            raise MemoryWriteError(
                f"refusing to write {len(exc.ids)} point(s) that belong to another user "
                "(the same namespace and key stored under another tenant); nothing was written"
            ) from None
        except (ConfigError, DiskFullError):
            raise
        except Exception as exc:
            raise MemoryWriteError(
                f"Qdrant upsert of {len(records)} point(s) failed: {_why(exc)}"
            ) from exc
        self.writes += 1
        if result.status != models.UpdateStatus.COMPLETED:
            raise MemoryWriteError(f"Qdrant upsert did not complete: {result.status}")
        return [r.id for r in records]

    def set_dense(self, user_id: str, vectors: dict[str, list[float]], model: str) -> None:
        """Fill in dense vectors of existing points (``reembed``) and clear their pending mark."""
        if not vectors:
            return
        flt = user_filter(user_id, ids_condition(list(vectors)))
        points = [models.PointVectors(id=i, vector={DENSE: v}) for i, v in vectors.items()]
        self.run_write(
            "vector update",
            lambda: self.client.update_vectors(
                self.collection, points=points, update_filter=flt, wait=True
            ),
        )
        self.run_write(
            "payload update",
            lambda: self.client.set_payload(
                self.collection,
                payload={"dense_pending": False, "embedding_model": model, "hubness": None},
                points=flt,
                wait=True,
            ),
        )

    def set_payload(
        self, user_id: str, ids: Sequence[str], payload: dict[str, Any], *, key: str | None = None
    ) -> None:
        """Merge ``payload`` into points of ``user_id`` (others' points are never touched).

        ``key`` merges into a nested object (``"value"``) instead of the top level (marking a
        superseded memory's ``valid_until`` / ``superseded_by``). A new ``content`` brings its
        case-folded copy (:data:`FOLDED_CONTENT`) with it.
        """
        if not ids:
            return
        if key is None and "content" in payload:
            payload = {**payload, FOLDED_CONTENT: str(payload["content"]).casefold()}
        flt = user_filter(user_id, ids_condition(list(ids)))
        self.run_write(
            "payload update",
            lambda: self.client.set_payload(
                self.collection, payload=payload, points=flt, key=key, wait=True
            ),
        )

    def run_write(self, what: str, fn: Callable[[], Any]) -> None:
        """Run one write ``fn`` on the client behind the breaker.

        Raises:
            MemoryWriteError: ``fn`` failed (the message names ``what``).
        """
        try:
            self.ensure_collection()
            with self.guard(), self._io:
                fn()
                self.writes += 1
        except (ConfigError, DiskFullError):
            raise
        except Exception as exc:
            raise MemoryWriteError(f"Qdrant {what} failed: {_why(exc)}") from exc

    def delete(self, user_id: str, ids: Sequence[str]) -> int:
        """Delete points of ``user_id`` by id; returns how many existed."""
        if not ids:
            return 0
        found = self.retrieve(user_id, ids)
        if not found:
            return 0
        selector = models.FilterSelector(
            filter=user_filter(user_id, ids_condition([p.id for p in found]))
        )
        self.run_write(
            "delete",
            lambda: self.client.delete(self.collection, points_selector=selector, wait=True),
        )
        return len(found)

    def delete_user(self, user_id: str) -> int:
        """Delete every point of ``user_id`` and nothing else; returns how many."""
        n = self.count(user_id)
        selector = models.FilterSelector(filter=user_filter(user_id))
        self.run_write(
            "delete",
            lambda: self.client.delete(self.collection, points_selector=selector, wait=True),
        )
        return n

    def reinforce(self, user_id: str, ids: Sequence[str], *, now: datetime | None = None) -> None:
        """Bump ``access_count`` and ``last_accessed`` of the points (strengthen on recall)."""
        points = self.retrieve(user_id, ids)
        if not points:
            return
        ops = reinforce_plan(points, now or utcnow())
        self.call("reinforce", lambda: self.client.batch_update_points(self.collection, ops))

    def decay_memories(
        self,
        user_id: str,
        *,
        halflife_days: float,
        now: datetime | None = None,
        dry_run: bool = False,
    ) -> list[str]:
        """Prune memories whose decayed importance fell below 0.02; returns their ids.

        ``importance × exp(−λ·days_since_last_access)``; nothing is written back, so two
        passes at the same ``now`` prune the same set.
        """
        when = now or utcnow()
        victims = decay_victims(list(self.iter_points(user_id)), when, halflife_days)
        if victims and not dry_run:
            self.delete(user_id, victims)
        return victims

    # -- reads -------------------------------------------------------------------------
    def retrieve(self, user_id: str, ids: Sequence[str]) -> list[StoredPoint]:
        """Points of ``user_id`` among ``ids`` (others' points are invisible)."""
        if not ids:
            return []
        flt = user_filter(user_id, ids_condition(list(ids)))
        return self.scroll(user_id, flt=flt, limit=len(ids))

    def scroll(
        self,
        user_id: str,
        *,
        flt: models.Filter | None = None,
        limit: int = 100,
        order_by: str | None = None,
        start_from: int | None = None,
        with_vector: bool = False,
    ) -> list[StoredPoint]:
        """Up to ``limit`` points matching ``flt`` (which must pin ``user_id``).

        With ``order_by`` (an integer payload field) points come in ascending order of it,
        starting at ``start_from``; ``with_vector``: dense vectors in ``extras["vector"]``.
        """
        flt = flt or user_filter(user_id)
        assert_pinned(flt, user_id)
        return scroll_points(
            self._scroll_page,
            flt,
            limit=limit,
            order_by=order_by,
            start_from=start_from,
            with_vector=with_vector,
        )

    def _scroll_page(self, kwargs: dict[str, Any]) -> tuple[list[Any], Any]:
        records, offset = self.call("scroll", lambda: self.client.scroll(self.collection, **kwargs))
        return list(records), offset

    def scan(
        self, user_id: str, fields: Sequence[str], *, flt: models.Filter | None = None
    ) -> list[tuple[str, dict[str, Any]]]:
        """``(id, payload)`` of every point of ``user_id`` matching ``flt``, only ``fields``.

        For listings that sort many points by a few fields, then read one page in full (the
        inspector): five numbers of 10,000 points cost a fraction of their payloads.
        """
        flt = flt or user_filter(user_id)
        assert_pinned(flt, user_id)
        out: list[tuple[str, dict[str, Any]]] = []
        offset, wanted = None, list(fields)
        while True:
            page = functools.partial(
                scroll_payloads, self.client, self.collection, flt, wanted, _SCAN_PAGE, offset
            )
            pairs, offset = self.call("scroll", page)
            out.extend((str(i), p) for i, p in pairs)
            if not pairs or offset is None:
                return out

    def iter_points(self, user_id: str, flt: models.Filter | None = None) -> list[StoredPoint]:
        """Every point of ``user_id`` matching ``flt``."""
        return self.scroll(user_id, flt=flt, limit=10**9)

    def count(self, user_id: str, flt: models.Filter | None = None) -> int:
        """How many points ``user_id`` has (matching ``flt``)."""
        flt = flt or user_filter(user_id)
        assert_pinned(flt, user_id)
        result = self.call("count", lambda: self.client.count(self.collection, count_filter=flt))
        return int(result.count)

    def search_dense(
        self,
        user_id: str,
        vector: list[float],
        *,
        limit: int,
        flt: models.Filter | None = None,
        with_vector: bool = False,
    ) -> list[StoredPoint]:
        """Cosine search on ``user_id``'s dense vectors (``with_vector``: in ``extras``)."""
        flt = flt or user_filter(user_id)
        assert_pinned(flt, user_id)
        res = self.call(
            "dense search",
            lambda: self.client.query_points(
                self.collection,
                query=vector,
                using=DENSE,
                query_filter=flt,
                limit=limit,
                search_params=self._dense_params,
                with_vectors=[DENSE] if with_vector else False,
            ),
        )
        return [to_stored(p, with_vector=with_vector) for p in res.points]

    def search_sparse(
        self,
        user_id: str,
        vector: Any,
        *,
        limit: int,
        flt: models.Filter | None = None,
    ) -> list[StoredPoint]:
        """TF-IDF keyword search on the sparse vectors of ``user_id``."""
        if not vector.indices:
            return []
        flt = flt or user_filter(user_id)
        assert_pinned(flt, user_id)
        res = self.call(
            "sparse search",
            lambda: self.client.query_points(
                self.collection, query=qsparse(vector), using=SPARSE, query_filter=flt, limit=limit
            ),
        )
        return [to_stored(p) for p in res.points]

    def search_hybrid(
        self,
        user_id: str,
        dense: list[float] | None,
        sparse: Any | None,
        *,
        limit: int,
        flt: models.Filter | None = None,
        candidates: int | None = None,
    ) -> list[StoredPoint]:
        """Dense + sparse prefetch fused by RRF inside Qdrant."""
        flt = flt or user_filter(user_id)
        assert_pinned(flt, user_id)
        plan = hybrid_query_plan(
            dense,
            sparse,
            flt,
            limit=limit,
            candidates=candidates or 2 * limit,
            dense_params=self._dense_params,
        )
        if not plan:
            return []
        res = self.call("hybrid search", lambda: self.client.query_points(self.collection, **plan))
        return [to_stored(p) for p in res.points]

    def facet(
        self, key: str, *, user_id: str | None = None, limit: int = 100_000
    ) -> dict[str, int]:
        """Distinct values of a keyword payload field with counts (for namespace listing).

        ``user_id=None`` spans tenants: only the store's explicit cross-tenant listing uses it.
        """
        flt = user_filter(user_id) if user_id is not None else None
        res = self.call(
            "facet",
            lambda: self.client.facet(self.collection, key=key, facet_filter=flt, limit=limit),
        )
        return {str(h.value): int(h.count) for h in res.hits}

    def close(self) -> None:
        """Close the client (releases the embedded store's folder lock); idempotent.

        A shared embedded client is released when its last store closes.
        """
        if self._closed:
            return
        self._closed = True
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.client.close()
