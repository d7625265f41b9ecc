"""Concept embeddings in the dedicated Qdrant collection ``prax_knowledge_concepts``.

One point per concept (point id = concept id), with the memory's named dense + sparse vectors
and a payload of ``user_id`` (the mandatory filter), ``namespace``, ``name``, ``kind``,
``importance`` and the embedded text. It lives beside ``prax_memories`` on the *same* Qdrant
client (local mode allows one client per folder), never in it, so memory recall cannot return
a concept. Writes and searches go through the long-term memory's write path and hybrid
search (:class:`~langgraph_prax_memory.ltm.LongTermMemory`), the one caller of the vector
store's upsert and search.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from qdrant_client.http import models

from langgraph_prax_memory._validation import check_user_id
from langgraph_prax_memory.errors import BackendUnavailable, MemoryWriteError
from langgraph_prax_memory.knowledge.models import KnowledgeConcept, check_namespace
from langgraph_prax_memory.ltm import LongTermMemory
from langgraph_prax_memory.vectors import QdrantVectorStore, user_filter

__all__ = ["KnowledgeVectors", "concept_text"]

logger = logging.getLogger(__name__)

#: The collection of concept embeddings (the seed's name).
KNOWLEDGE_COLLECTION = "prax_knowledge_concepts"


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

    The vectors are written and searched by the long-term memory's one write path and one
    hybrid search (:meth:`LongTermMemory.write_texts`, :meth:`LongTermMemory.search_texts`),
    on its own collection ``prax_knowledge_concepts`` of the memory's Qdrant client.

    Args:
        ltm: The long-term memory whose client, breaker and embedders to share.
        collection: The collection of concept vectors.

    Raises:
        BackendUnavailable: Long-term memory is disabled.

    Example:
        >>> from datetime import UTC, datetime
        >>> import tempfile
        >>> from langgraph_prax_memory import MemoryConfig
        >>> from langgraph_prax_memory.ltm import LongTermMemory
        >>> ltm = LongTermMemory(MemoryConfig(qdrant_url=":memory:", data_dir=tempfile.mkdtemp()))
        >>> vecs = KnowledgeVectors(ltm)
        >>> t = datetime(2026, 1, 1, tzinfo=UTC)
        >>> c = KnowledgeConcept(id="5b0d6c1e-0000-5000-8000-000000000001", user_id="u1",
        ...     namespace="docs", name="qdrant", display_name="Qdrant", created_at=t, updated_at=t)
        >>> vecs.index("u1", [c])
        1
        >>> [h.concept_id for h in vecs.search("u1", "Qdrant")] == [c.id]
        True
        >>> ltm.recall_detailed("u1", "Qdrant").hits  # memory recall never sees a concept
        []
        >>> ltm.close()
    """

    def __init__(self, ltm: LongTermMemory, *, collection: str = KNOWLEDGE_COLLECTION) -> None:
        self.ltm = ltm
        #: The vector store on the concepts' collection (same client and breaker as memory).
        self.store: QdrantVectorStore = ltm.open_collection(collection)

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
        points = []
        for c in mine:
            text = concept_text(c)
            payload = {
                "user_id": user_id,
                "namespace": c.namespace,
                "concept_id": c.id,
                "name": c.name,
                "kind": c.kind,
                "importance": c.importance,
                "content": text,
            }
            points.append((c.id, text, payload))
        return len(self.ltm.write_texts(self.store, user_id, points))

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
        points = self.ltm.search_texts(self.store, user_id, query, limit=limit, flt=flt)
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
