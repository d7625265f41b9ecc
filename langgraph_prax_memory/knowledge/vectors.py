"""Concept embeddings in the dedicated Qdrant collection ``prax_knowledge_concepts``.

One point per concept (point id = concept id), with the memory's named dense + sparse vectors
and a payload of ``user_id`` (the mandatory filter), ``namespace``, ``name``, ``kind``,
``importance`` and the embedded text. It lives beside ``prax_memories`` on the *same* Qdrant
client (local mode allows one client per folder), never in it, so memory recall cannot return
a concept.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.embeddings import Embeddings
from qdrant_client import models

from langgraph_prax_memory._validation import check_user_id
from langgraph_prax_memory.embeddings import SparseTFEncoder
from langgraph_prax_memory.errors import BackendUnavailable, MemoryWriteError
from langgraph_prax_memory.knowledge.models import KnowledgeConcept, check_namespace
from langgraph_prax_memory.vectors import QdrantVectorStore, VectorRecord, user_filter

__all__ = ["KnowledgeVectors", "concept_text"]

logger = logging.getLogger(__name__)

#: The collection of concept embeddings (the seed's name).
KNOWLEDGE_COLLECTION = "prax_knowledge_concepts"
_UPSERT_CHUNK = 256


def concept_text(concept: KnowledgeConcept) -> str:
    """The text embedded for a concept: its name, kind, description and tags."""
    parts = [concept.display_name]
    if concept.kind not in ("concept", ""):
        parts.append(f"({concept.kind})")
    text = " ".join(parts)
    if concept.description:
        text += f": {concept.description}"
    if concept.tags:
        text += "\n" + " ".join(concept.tags)
    return text[:8000]


@dataclass(frozen=True)
class VectorHit:
    """A concept id found by the semantic arm and its fused Qdrant score."""

    concept_id: str
    score: float


class KnowledgeVectors:
    """Index and search concept embeddings (dense + sparse, fused by Qdrant's RRF).

    Args:
        store: A :class:`~langgraph_prax_memory.vectors.QdrantVectorStore` on the collection
            ``prax_knowledge_concepts`` (sharing the memory's client).
        dense: The dense embedder (the memory's, with its cache and fallbacks).
        sparse: The sparse TF encoder.

    Example:
        >>> from datetime import UTC, datetime
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> from qdrant_client import QdrantClient
        >>> store = QdrantVectorStore(
        ...     QdrantClient(":memory:"), collection=KNOWLEDGE_COLLECTION, dimension=16
        ... )
        >>> vecs = KnowledgeVectors(store, DeterministicFakeEmbedding(size=16), SparseTFEncoder())
        >>> t = datetime(2026, 1, 1, tzinfo=UTC)
        >>> c = KnowledgeConcept(id="5b0d6c1e-0000-5000-8000-000000000001", user_id="u1",
        ...     namespace="docs", name="qdrant", display_name="Qdrant", created_at=t, updated_at=t)
        >>> vecs.index("u1", [c])
        1
        >>> [h.concept_id for h in vecs.search("u1", "Qdrant")] == [c.id]
        True
    """

    def __init__(
        self, store: QdrantVectorStore, dense: Embeddings, sparse: SparseTFEncoder
    ) -> None:
        self.store = store
        self.dense = dense
        self.sparse = sparse

    def ensure(self) -> None:
        """Create the collection (and a ``namespace`` index on a server)."""
        fresh = not self.store.ready
        self.store.ensure_collection()
        if fresh and not self.store.local:
            try:
                self.store.client.create_payload_index(
                    self.store.collection, "namespace", models.PayloadSchemaType.KEYWORD
                )
            except Exception as exc:  # an existing index is fine
                logger.debug("namespace index on %s: %s", self.store.collection, exc)

    def index(self, user_id: str, concepts: Sequence[KnowledgeConcept]) -> int:
        """Embed and upsert concepts; returns how many points were written.

        When the dense embedder fails the points are written with their sparse vector only
        (``dense_pending``), so the keyword-like sparse side still finds them; a Qdrant
        failure raises :class:`MemoryWriteError`.
        """
        check_user_id(user_id)
        mine = [c for c in concepts if c.user_id == user_id]
        if not mine:
            return 0
        self.ensure()
        written = 0
        for start in range(0, len(mine), _UPSERT_CHUNK):
            part = mine[start : start + _UPSERT_CHUNK]
            texts = [concept_text(c) for c in part]
            dense: list[list[float]] | None
            try:
                dense = self.dense.embed_documents(texts)
            except Exception as exc:
                logger.warning("concept embeddings failed (%s); indexing sparse only", exc)
                dense = None
            sparse = self.sparse.embed_documents(texts)
            records = [
                VectorRecord(
                    c.id,
                    {
                        "user_id": user_id,
                        "namespace": c.namespace,
                        "concept_id": c.id,
                        "name": c.name,
                        "kind": c.kind,
                        "importance": c.importance,
                        "content": texts[i],
                        "dense_pending": dense is None,
                    },
                    dense[i] if dense is not None else None,
                    sparse[i],
                )
                for i, c in enumerate(part)
            ]
            written += len(self.store.upsert(user_id, records))
        return written

    def search(
        self, user_id: str, query: str, *, namespace: str | None = None, limit: int = 20
    ) -> list[VectorHit]:
        """Dense + sparse search of the user's concepts (optionally of one namespace).

        A failing dense embedder leaves the sparse side; a Qdrant failure raises
        :class:`BackendUnavailable`.
        """
        extra: list[models.Condition] = []
        if namespace is not None:
            extra.append(
                models.FieldCondition(
                    key="namespace", match=models.MatchValue(value=check_namespace(namespace))
                )
            )
        flt = user_filter(user_id, *extra)
        try:
            dense: list[float] | None = self.dense.embed_query(query)
        except Exception as exc:
            logger.warning("query embedding failed (%s); semantic arm uses sparse only", exc)
            dense = None
        sparse = self.sparse.embed_query(query)
        points = self.store.search_hybrid(user_id, dense, sparse, limit=limit, flt=flt)
        return [VectorHit(str(p.payload.get("concept_id", p.id)), p.score or 0.0) for p in points]

    def delete_namespace(self, user_id: str, namespace: str) -> None:
        """Drop the vectors of one namespace of one user."""
        flt = user_filter(
            user_id,
            models.FieldCondition(
                key="namespace", match=models.MatchValue(value=check_namespace(namespace))
            ),
        )
        self._delete(flt)

    def delete_ids(self, user_id: str, ids: Sequence[str]) -> None:
        """Drop the vectors of some concepts of one user."""
        if ids:
            self._delete(user_filter(user_id, models.HasIdCondition(has_id=list(ids))))

    def delete_user(self, user_id: str) -> None:
        """Drop every concept vector of one user."""
        self._delete(user_filter(user_id))

    def _delete(self, flt: models.Filter) -> None:
        try:
            self.ensure()
            self.store.client.delete(
                self.store.collection,
                points_selector=models.FilterSelector(filter=flt),
                wait=True,
            )
        except BackendUnavailable:
            raise
        except Exception as exc:
            raise MemoryWriteError(f"Qdrant delete of concept vectors failed: {exc}") from exc
