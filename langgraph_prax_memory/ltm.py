"""Long-term memory: the one write path and the one search path of the package.

:class:`LongTermMemory` owns the vector store, the dense and sparse encoders, the ranking
pipeline (:class:`~langgraph_prax_memory.retrieval.Recaller`) and background reinforcement.
Every long-term write goes validate → deduplicate → embed → upsert through
:meth:`LongTermMemory.remember_many` (or :meth:`LongTermMemory.write` for callers that build
their own payloads, as the LangGraph store does), and every ranked read through
:meth:`LongTermMemory.recall_detailed`. Services (consolidation, knowledge, admin) take this
object, never the :class:`~langgraph_prax_memory.PraxMemory` facade.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import TYPE_CHECKING, Any

from qdrant_client.http import models

from langgraph_prax_memory._classes import MemoryClasses
from langgraph_prax_memory._prepare import PreparedMemory, prepare_memory
from langgraph_prax_memory._progress import ProgressCallback, notify
from langgraph_prax_memory._reembed import reembed_user
from langgraph_prax_memory._validation import (
    check_text,
    check_user_id,
    to_utc,
    utcnow,
)
from langgraph_prax_memory.config import MemoryConfig, RetrievalConfig
from langgraph_prax_memory.embeddings import (
    CosineCalibration,
    Hubness,
    ResilientEmbeddings,
    ScaleKeeper,
    SparseTFEncoder,
    apply_scale,
    create_dense_embeddings,
    hubness_of,
    model_stamp,
)
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    EmbeddingError,
    MemoryValidationError,
    StoreLockedError,
)
from langgraph_prax_memory.graph import GraphStore
from langgraph_prax_memory.models import Memory, MemoryHit
from langgraph_prax_memory.retrieval import (
    Recaller,
    RecallResult,
    ltm_filter,
    ltm_namespace,
    profile_filter,
    write_hubness,
)
from langgraph_prax_memory.vectors import (
    QdrantVectorStore,
    StoredPoint,
    VectorRecord,
    build_payload,
    content_hash,
    decay_victims,
    open_qdrant_client,
    point_id,
)

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel

    from langgraph_prax_memory.vectors import VectorClient

__all__ = ["LongTermMemory", "PreparedMemory", "prepare_memory"]

logger = logging.getLogger(__name__)
_UPSERT_CHUNK = 256
_MAX_K = 1000


class LongTermMemory:
    """Long-term memories of every user: validate, deduplicate, embed, store, rank, forget.

    Built by :class:`~langgraph_prax_memory.PraxMemory` (its ``ltm``); services below the
    facade take this object.

    Args:
        config: Settings (the vector store, the models, limits, ranking).
        embeddings: A LangChain ``Embeddings`` to use instead of the configured provider.
        embedding_dimension: Width of ``embeddings`` (required with it).
        qdrant_client: An open client to use instead of opening one from ``config``.
        graph: Gives the knowledge graph to the graph arm of recall (``None``: no graph arm).
        expansion_model: Chat model for query expansion.
        rerank_model: Chat model for the rerank pass.

    Example:
        >>> from langgraph_prax_memory import MemoryConfig
        >>> ltm = LongTermMemory(MemoryConfig(qdrant_url=":memory:", data_dir="/tmp/prax-ltm"))
        >>> [mid] = ltm.remember_many("alice", ["Alice prefers dark mode"])
        >>> ltm.recall("alice", "which theme?", k=1)[0].memory.id == mid
        True
        >>> ltm.close()
    """

    def __init__(
        self,
        config: MemoryConfig | None = None,
        *,
        embeddings: Embeddings | None = None,
        embedding_dimension: int | None = None,
        qdrant_client: VectorClient | None = None,
        graph: Callable[[], GraphStore] | None = None,
        expansion_model: BaseChatModel | None = None,
        rerank_model: BaseChatModel | None = None,
    ) -> None:
        self.config = config or MemoryConfig()
        self.sparse = SparseTFEncoder(self.config.sparse_scheme, stem=self.config.sparse_stem)
        self.dense: ResilientEmbeddings = create_dense_embeddings(
            self.config, primary=embeddings, dimension=embedding_dimension
        )
        self.enabled = self.config.enabled
        self._vectors: QdrantVectorStore | None = None
        self._opening = threading.Lock()
        self._lazy = threading.Lock()
        self._graph = graph
        self._expansion_model = expansion_model
        self._rerank_model = rerank_model
        self._recaller_obj: Recaller | None = None
        self._scales: ScaleKeeper | None = None
        self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prax-reinforce")
        self.classes = MemoryClasses(self)  #: classes, attributes, replacement (issues 37, 38)
        if self.enabled:
            try:
                self._open(qdrant_client)
            except StoreLockedError as exc:
                # Another process holds the embedded folder: scratchpad, notes, graph and
                # doctor still work; long-term calls retry it and raise this while held.
                logger.warning("long-term memory unavailable for now: %s", exc)

    def write(
        self,
        user_id: str,
        records: Sequence[VectorRecord],
        *,
        chunk_size: int | None = _UPSERT_CHUNK,
        into: QdrantVectorStore | None = None,
    ) -> list[str]:
        """Upsert records built elsewhere (the LangGraph store's items), in chunks.

        The one place long-term points are inserted; :meth:`remember_many` ends here too.
        ``chunk_size=None`` sends them in one request (the store's batch: it is refused as a
        whole when one of its points belongs to another tenant); ``into``: another collection.

        Raises:
            MemoryWriteError: Qdrant did not take a chunk (the chunks before it are stored).
        """
        store = into or self.store()
        if into is None:  # each memory keeps its dot with the hubness centroid (issue 41)
            hub = self._written_hubness()
            write_hubness([r.payload for r in records], [r.dense for r in records], hub)
        size = chunk_size or max(1, len(records))
        written: list[str] = []
        for start in range(0, len(records), size):
            written.extend(store.upsert(user_id, records[start : start + size]))
        return written

    def open_collection(self, name: str) -> QdrantVectorStore:
        """A store on another collection: same client, breaker and width (knowledge concepts)."""
        main = self.store()
        return QdrantVectorStore(
            main.client, collection=name, dimension=self.dense.dimension, breaker=main.breaker
        )

    def _dense_or_pending(self, texts: list[str], what: str) -> list[list[float]] | None:
        try:
            return self.dense.embed_documents(texts)
        except EmbeddingError as exc:
            logger.warning("storing %s without dense vectors: %s", what, exc)
            return None

    def write_texts(
        self, store: QdrantVectorStore, user_id: str, points: Sequence[tuple[str, str, Any]]
    ) -> list[str]:
        """Embed (dense, else sparse alone: ``dense_pending``) and :meth:`write` into ``store``."""
        texts = [text for _, text, _ in points]
        dense = self._dense_or_pending(texts, f"{len(texts)} point(s) of {store.collection}")
        sparse = self.sparse.embed_documents(texts)
        records = [
            VectorRecord(
                pid, {**payload, "dense_pending": not dense}, dense[i] if dense else None, v
            )
            for i, ((pid, _, payload), v) in enumerate(zip(points, sparse, strict=True))
        ]
        return self.write(user_id, records, into=store)

    def search_texts(
        self, store: QdrantVectorStore, user_id: str, query: str, *, limit: int, flt: Any = None
    ) -> list[StoredPoint]:
        """Dense + sparse search of ``store``'s collection fused by RRF (dense may fail)."""
        try:
            dense: list[float] | None = self.dense.embed_query(query)
        except EmbeddingError as exc:
            logger.warning("query embedding failed (%s); searching sparse only", exc)
            dense = None
        sparse = self.sparse.embed_query(query)
        return store.search_hybrid(user_id, dense, sparse, limit=limit, flt=flt)

    def _open(self, client: VectorClient | None = None) -> QdrantVectorStore:
        with self._opening:
            if self._vectors is None:
                self._vectors = QdrantVectorStore(
                    client or open_qdrant_client(self.config),
                    collection=self.config.collection_name,
                    dimension=self.dense.dimension,
                    breaker_failures=self.config.breaker_failures,
                    breaker_cooldown=self.config.breaker_cooldown,
                    model_stamp=self.model_stamp(),
                )
            return self._vectors

    def model_stamp(self) -> dict[str, Any]:
        """The embedding model recorded with the collection: name, width, weights id."""
        return model_stamp(self.dense)

    @property
    def cosine_scale(self) -> CosineCalibration | None:
        """The model's measured cosine scale (``None`` until it can be measured)."""
        with self._lazy:
            return self._scale_locked()

    def _scale_locked(self) -> CosineCalibration | None:
        keeper = self._keeper_locked()
        return keeper.get() if keeper is not None else None

    def _keeper_locked(self) -> ScaleKeeper | None:
        if not self.enabled:
            return None
        if self._scales is None:
            # the machine's model cache, shared by every data folder (issue 41)
            store, cache = self.store(), self.config.models_dir / "scales"
            self._scales = ScaleKeeper(store.metadata, store.merge_metadata, self.dense, cache)
        return self._scales

    def _written_hubness(self) -> Hubness | None:
        """Recall's hubness correction if known without measuring; never waits for a recall."""
        if not self._lazy.acquire(blocking=False):
            return None
        try:
            if self._recaller_obj is not None:
                return self._recaller_obj.hubness
            keeper = self._keeper_locked()
            known = keeper.known() if keeper else None  # stored now if known (issue 41):
            known = keeper.get() if keeper and known and not keeper.scale else known
            return hubness_of(self.config.retrieval, known)  # the first search reads it
        finally:
            self._lazy.release()

    @property
    def retrieval_config(self) -> RetrievalConfig:
        """The ranking settings recall uses: the measured cosine settings where not set."""
        with self._lazy:
            return apply_scale(self.config.retrieval, self._scale_locked())

    def reset_calibration(self) -> None:
        """Measure the cosine scale again before the next recall (after a model change)."""
        with self._lazy:
            self._scales = None
            if self._recaller_obj is not None:
                self._recaller_obj.close()
                self._recaller_obj = None

    @property
    def available(self) -> bool:
        """Whether long-term memory is enabled (``MEMORY_ENABLED``)."""
        return self.enabled

    @property
    def vectors(self) -> QdrantVectorStore:
        """The vector store (raises :class:`BackendUnavailable` when LTM is disabled)."""
        return self.store()

    @property
    def embeddings(self) -> ResilientEmbeddings:
        """The dense embedder (with its cache and fallbacks)."""
        return self.dense

    @property
    def sparse_encoder(self) -> SparseTFEncoder:
        """The sparse term encoder."""
        return self.sparse

    def store(self) -> QdrantVectorStore:
        """The vector store, opened on first use (its first use upgrades memory classes)."""
        if not self.enabled:
            raise BackendUnavailable("Memory system not available: MEMORY_ENABLED is false")
        store = self._vectors if self._vectors is not None else self._open()
        self.classes.upgrade_once(store)
        return store

    def _records(
        self,
        user_id: str,
        prepared: Sequence[PreparedMemory],
        dense: list[list[float]] | None,
        previous: Mapping[str, StoredPoint],
        now: datetime,
    ) -> list[VectorRecord]:
        ns = ltm_namespace(user_id)
        sparse = self.sparse.embed_documents([p.index_text for p in prepared])
        out = []
        for i, p in enumerate(prepared):
            pid = point_id(ns, p.key)
            prev = previous.get(pid)
            payload = build_payload(
                user_id=user_id,
                namespace=ns,
                key=p.key,
                value=p.value,
                text=p.text,
                now=now,
                previous=prev.payload if prev else None,
                embedding_model=self.dense.last_model if dense is not None else None,
                dense_pending=dense is None,
            )
            out.append(VectorRecord(pid, payload, dense[i] if dense else None, sparse[i]))
        self.classes.annotate([r.payload for r in out], dense)
        return out

    def remember_many(self, user_id: str, items: Sequence[Mapping[str, Any] | str]) -> list[str]:
        """Store several memories with batched embedding; every item is validated first.

        The item fields are those of :meth:`~langgraph_prax_memory.PraxMemory.remember_many`.
        Returns the ids in order (an item already stored gives the existing id).

        Raises:
            MemoryValidationError: A bad item; nothing was stored.
            MemoryWriteError: Qdrant did not take the write.
        """
        if isinstance(items, str):
            raise MemoryValidationError("items must be a list of memories, not one string")
        check_user_id(user_id)
        store = self.store()
        prepared = [prepare_memory(user_id, it, self.config.max_content_chars) for it in items]
        if not prepared:
            return []
        ids, todo, alias = self._dedupe(user_id, prepared, store)
        if todo:
            dense = self._dense_or_pending([p.text for _, p in todo], f"{len(todo)} memories")
            ns = ltm_namespace(user_id)
            previous = {
                p.id: p
                for p in store.retrieve(user_id, [point_id(ns, prep.key) for _, prep in todo])
            }
            records = self._records(user_id, [p for _, p in todo], dense, previous, utcnow())
            self.write(user_id, records)
            for (slot, _), rec in zip(todo, records, strict=True):
                ids[slot] = rec.id
        for slot, first in alias.items():
            ids[slot] = ids[first]
        return [i for i in ids if i is not None]

    def _dedupe(
        self, user_id: str, prepared: list[PreparedMemory], store: QdrantVectorStore
    ) -> tuple[list[str | None], list[tuple[int, PreparedMemory]], dict[int, int]]:
        """Split items into stored (by content hash, context included), repeats and new."""
        hashes = [content_hash(user_id, p.index_text) for p in prepared]
        existing: dict[str, str] = {}
        for point in store.scroll(
            user_id, flt=ltm_filter(user_id, hashes=sorted(set(hashes))), limit=len(hashes) * 4
        ):
            existing.setdefault(point.payload["content_hash"], point.id)
        ids: list[str | None] = [None] * len(prepared)
        todo: list[tuple[int, PreparedMemory]] = []
        first: dict[str, int] = {}
        alias: dict[int, int] = {}
        for i, (p, h) in enumerate(zip(prepared, hashes, strict=True)):
            if p.explicit_key:
                todo.append((i, p))
            elif h in existing:
                ids[i] = existing[h]
            elif h in first:
                alias[i] = first[h]
            else:
                first[h] = i
                todo.append((i, p))
        return ids, todo, alias

    def forget(self, user_id: str, memory_id: str) -> bool:
        """Delete one memory of ``user_id``; ``False`` when it does not exist (for this user)."""
        check_user_id(user_id)
        if not isinstance(memory_id, str) or not memory_id.strip():
            raise MemoryValidationError("memory_id must be a non-empty string")
        try:
            uuid.UUID(memory_id)
        except ValueError:
            return False
        return self.store().delete(user_id, [memory_id]) > 0

    def decay(
        self,
        user_id: str,
        *,
        now: datetime | None = None,
        dry_run: bool = False,
        progress: ProgressCallback | None = None,
    ) -> list[str]:
        """The forgetting pass: prune memories with ``importance·exp(−λ·days) < 0.02``.

        ``progress(done, total, label)`` is told the memories scanned (``"scanned"``) and
        then the ones pruned (``"pruned"``, not called on a ``dry_run``).
        """
        check_user_id(user_id)
        store = self.store()
        if progress is None:
            return store.decay_memories(
                user_id, halflife_days=self.config.decay_halflife_days, now=now, dry_run=dry_run
            )
        notify(progress, 0, None, "scanned")
        points = store.iter_points(user_id)
        notify(progress, len(points), len(points), "scanned")
        victims = decay_victims(points, now or utcnow(), self.config.decay_halflife_days)
        if dry_run:
            return victims
        for start in range(0, len(victims), _UPSERT_CHUNK):
            store.delete(user_id, victims[start : start + _UPSERT_CHUNK])
            notify(progress, min(start + _UPSERT_CHUNK, len(victims)), len(victims), "pruned")
        return victims

    def reembed(
        self, user_id: str, *, force: bool = False, progress: ProgressCallback | None = None
    ) -> int:
        """Add dense vectors to memories stored without one (or by a fallback model).

        ``force=True`` re-embeds every memory of the user: after a model change that kept the
        same name, or for conversation turns stored before the dense vector left the context
        out (earlier builds encoded context + content). ``progress(done, total,
        "memories")`` is called after each chunk of 256.

        Raises:
            EmbeddingError: The configured model failed (naming it and where it is served);
                the memories done so far keep their new vectors.
        """
        return reembed_user(self, user_id, force=force, progress=progress)

    def get(self, user_id: str, memory_id: str) -> Memory | None:
        """One memory of ``user_id`` by id (``None`` if absent or another user's)."""
        check_user_id(user_id)
        try:
            uuid.UUID(memory_id)
        except (ValueError, TypeError, AttributeError):
            return None
        found = self.store().retrieve(user_id, [memory_id])
        return Memory.from_payload(found[0].id, found[0].payload) if found else None

    def count(self, user_id: str) -> int:
        """How many long-term memories ``user_id`` has."""
        check_user_id(user_id)
        return self.store().count(user_id, ltm_filter(user_id))

    def list_memories(self, user_id: str, *, limit: int = 100) -> list[Memory]:
        """Memories of ``user_id`` in the order they were first written."""
        check_user_id(user_id)
        points = self.store().scroll(user_id, flt=ltm_filter(user_id), limit=limit, order_by="seq")
        return [Memory.from_payload(p.id, p.payload) for p in points]

    def recall(
        self,
        user_id: str,
        query: str,
        *,
        k: int = 5,
        now: datetime | None = None,
        reinforce: bool = True,
        tags: Sequence[str] | None = None,
        include_history: bool = False,
        as_of: datetime | None = None,
    ) -> list[MemoryHit]:
        """The best ``k`` memories of ``user_id`` for ``query``, best first.

        The ranking, the clock (``now``), reinforcement and the history options are those of
        :meth:`~langgraph_prax_memory.PraxMemory.recall`, which documents them.
        """
        return self.recall_detailed(
            user_id,
            query,
            k=k,
            now=now,
            reinforce=reinforce,
            tags=tags,
            include_history=include_history,
            as_of=as_of,
        ).hits

    def recall_detailed(
        self,
        user_id: str,
        query: str,
        *,
        k: int = 5,
        now: datetime | None = None,
        reinforce: bool = True,
        tags: Sequence[str] | None = None,
        where: models.Filter | None = None,
        include_history: bool = False,
        as_of: datetime | None = None,
    ) -> RecallResult:
        """Like :meth:`recall`, with diagnostics and an engine filter ``where``.

        See :meth:`~langgraph_prax_memory.PraxMemory.recall_detailed`.
        """
        text = _check_query(user_id, query, k)
        when = to_utc(now) if now is not None else utcnow()
        if include_history and as_of is not None:
            raise MemoryValidationError("give include_history or as_of, not both")
        moment = to_utc(as_of, what="as_of") if as_of is not None else None
        result = self._recaller().recall(
            user_id,
            text,
            k=k,
            now=when,
            tags=tags,
            flt=where,
            include_history=include_history,
            as_of=moment,
        )
        if reinforce:
            self.reinforce_later(user_id, [h.memory.id for h in result.hits], when)
        return result

    def reinforce_later(self, user_id: str, ids: Sequence[str], now: datetime) -> None:
        """Strengthen these memories of ``user_id`` (recalled at ``now``) in the background."""
        if ids:
            self._background.submit(self._reinforce, check_user_id(user_id), list(ids), now)

    def standing_facts(
        self, user_id: str, query: str, *, k: int | None = None, now: datetime | None = None
    ) -> list[MemoryHit]:
        """The user's standing facts scored for ``query`` (docs/context.md, "Memory classes").

        In the ranker's order, at most ``k`` (``profile_candidates``), nothing reinforced.
        """
        cfg = self.config.retrieval
        where = profile_filter(
            check_user_id(user_id), tags=cfg.profile_tags, min_importance=cfg.profile_min_importance
        )
        k = k or cfg.profile_candidates
        return self.recall_detailed(user_id, query, k=k, now=now, reinforce=False, where=where).hits

    def _recaller(self) -> Recaller:
        with self._lazy:
            keeper, built = self._scales, self._recaller_obj  # while the model was down:
            if built is not None and keeper is not None and keeper.due() and keeper.get():
                built.close()  # it is back, rank on its measured scale from now on
                self._recaller_obj = None
            if self._recaller_obj is None:
                scale = self._scale_locked()
                self._recaller_obj = Recaller(
                    self.store(),
                    self.dense,
                    self.sparse,
                    self._graph,
                    apply_scale(self.config.retrieval, scale),
                    halflife_days=self.config.decay_halflife_days,
                    expansion_model=self._expansion_model,
                    rerank_model=self._rerank_model,
                    hubness=hubness_of(self.config.retrieval, scale),
                    partial=scale.partial_scale() if scale is not None else None,
                )
            return self._recaller_obj

    def _reinforce(self, user_id: str, ids: list[str], now: datetime) -> None:
        try:
            self.store().reinforce(user_id, ids, now=now)
        except Exception as exc:  # best effort: a failed reinforcement never fails a recall
            logger.warning("reinforcement of %d memories failed: %s", len(ids), exc)

    def flush(self) -> None:
        """Wait for background reinforcement to finish (tests, shutdown)."""
        self._background.submit(lambda: None).result()

    def close(self) -> None:
        """Finish background reinforcement and release the vector store (its folder lock)."""
        self._background.shutdown(wait=True)
        if self._recaller_obj is not None:
            self._recaller_obj.close()
        if self._vectors is not None:
            self._vectors.close()


def _check_query(user_id: str, query: object, k: int) -> str:
    check_user_id(user_id)
    text = check_text(query, max_chars=10_000, what="query")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= _MAX_K:
        raise MemoryValidationError(f"k must be an integer between 1 and {_MAX_K}")
    return text
