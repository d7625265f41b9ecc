"""The ``KnowledgeStore`` / ``AsyncKnowledgeStore`` protocols every backend implements.

Both have identical method names; the async one returns awaitables. Every data method takes
``user_id`` first and filters by it: no query ever runs unscoped. Memory queries (the
``GraphStore``) never see concepts and these never return memory entities, except through
the explicit ``REFERENCES_ENTITY`` methods.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from langgraph_prax_memory.graph import Entity
from langgraph_prax_memory.knowledge.models import (
    ConceptHit,
    ConceptInput,
    DocumentInput,
    KnowledgeConcept,
    KnowledgeDocument,
    KnowledgeRelation,
    KnowledgeStats,
    NamespaceInfo,
    RelationInput,
    WriteResult,
)

__all__ = ["AsyncKnowledgeStore", "KnowledgeStore"]


@runtime_checkable
class KnowledgeStore(Protocol):
    """A per-user concept graph, separate from the memory graph it shares a backend with.

    Example:
        >>> from langgraph_prax_memory.graph import SQLiteGraphStore
        >>> from langgraph_prax_memory.knowledge import SQLiteKnowledgeStore
        >>> store: KnowledgeStore = SQLiteKnowledgeStore(SQLiteGraphStore(":memory:"))
        >>> _ = store.add_relation("u1", "papers", "Transformer", "Attention", "uses")
        >>> [r.target for r in store.get_relations("u1", "papers", name="transformer")]
        ['attention']
    """

    def setup(self) -> None:
        """Create the knowledge tables / constraints and indexes. Idempotent."""
        ...

    def close(self) -> None:
        """Release what the store opened itself (a shared graph connection stays open)."""
        ...

    def write_batch(
        self,
        user_id: str,
        namespace: str,
        concepts: Iterable[ConceptInput],
        relations: Iterable[RelationInput] = (),
        *,
        document: DocumentInput | None = None,
        now: datetime | None = None,
    ) -> WriteResult:
        """Merge concepts and relations (and record their document) in one transaction.

        Concepts merge on ``(user_id, namespace, canonical name)``: the longest description,
        the highest importance, a specific kind, the first source, the union of tags win.
        Relations merge on ``(source, target, type)``: the weight grows, evidence is appended.
        Relation endpoints that do not exist are created. Concepts written with a document
        get an ``EXTRACTED_FROM`` edge to it.
        """
        ...

    def merge_concept(
        self,
        user_id: str,
        namespace: str,
        name: str,
        *,
        display_name: str | None = None,
        description: str = "",
        kind: str | None = None,
        importance: float | None = None,
        source: str = "",
        source_type: str = "",
        tags: Sequence[str] = (),
        properties: Mapping[str, Any] | None = None,
        now: datetime | None = None,
    ) -> KnowledgeConcept:
        """Create or update one concept (the rules of :meth:`write_batch`)."""
        ...

    def add_relation(
        self,
        user_id: str,
        namespace: str,
        source: str,
        target: str,
        relation_type: str = "related_to",
        *,
        weight: float = 1.0,
        evidence: str = "",
        now: datetime | None = None,
    ) -> KnowledgeRelation:
        """Create or strengthen ``source -[KNOWLEDGE_RELATES {type}]-> target``."""
        ...

    def get_concept(self, user_id: str, namespace: str, name: str) -> KnowledgeConcept | None:
        """The concept ``name`` (any case / spacing) of ``namespace``, or ``None``."""
        ...

    def get_concepts(self, user_id: str, ids: Sequence[str]) -> list[KnowledgeConcept]:
        """Concepts of ``user_id`` by id, in the order given (unknown ids are skipped)."""
        ...

    def list_concepts(
        self,
        user_id: str,
        namespace: str | None = None,
        *,
        limit: int = 1000,
        after_id: str | None = None,
    ) -> list[KnowledgeConcept]:
        """A page of concepts ordered by id (``after_id``: the last id of the previous page)."""
        ...

    def get_relations(
        self,
        user_id: str,
        namespace: str,
        *,
        name: str | None = None,
        direction: str = "both",
        relation_type: str | None = None,
        limit: int = 1000,
    ) -> list[KnowledgeRelation]:
        """Relations of a namespace, or of one concept (``direction`` ``in``/``out``/``both``).

        ``direction="in"`` with ``relation_type="imports"`` answers "what depends on X?".
        """
        ...

    def keyword_search(
        self, user_id: str, query: str, *, namespace: str | None = None, limit: int = 10
    ) -> list[ConceptHit]:
        """Multi-variant substring match over name, display name, description and tags.

        Ordered by the number of query terms matched, then name matches, importance, name.
        """
        ...

    def get_document(self, user_id: str, document_id: str) -> KnowledgeDocument | None:
        """A document by id, or ``None``."""
        ...

    def list_documents(
        self, user_id: str, namespace: str | None = None, *, limit: int = 1000
    ) -> list[KnowledgeDocument]:
        """Documents, newest first."""
        ...

    def concept_documents(self, user_id: str, concept_id: str) -> list[KnowledgeDocument]:
        """The documents a concept was extracted from (its ``EXTRACTED_FROM`` provenance)."""
        ...

    def namespaces(self, user_id: str) -> list[NamespaceInfo]:
        """The user's namespaces with concept, relation and document counts, by name."""
        ...

    def delete_namespace(self, user_id: str, namespace: str) -> KnowledgeStats:
        """Remove a namespace's concepts, relations, documents and entity links, nothing else."""
        ...

    def delete_items(
        self,
        user_id: str,
        namespace: str,
        *,
        concepts: Sequence[str] = (),
        relations: Sequence[str] = (),
        documents: Sequence[str] = (),
    ) -> KnowledgeStats:
        """Remove concepts, relations and documents of one namespace by id; return what went.

        A concept goes with its relations, provenance and entity links, a document with its
        provenance edges. Ids of other users or namespaces are ignored. Codebase re-ingestion
        uses it to prune what the code no longer has.
        """
        ...

    def connect_entity(
        self,
        user_id: str,
        namespace: str,
        name: str,
        entity_id: str,
        *,
        now: datetime | None = None,
    ) -> bool:
        """Link a concept to a memory ``Entity`` (``REFERENCES_ENTITY``).

        Returns ``True`` when the link is new. Raises
        :class:`~langgraph_prax_memory.knowledge.models.KnowledgeNotFound` when the concept
        or the user's entity does not exist.
        """
        ...

    def disconnect_entity(self, user_id: str, namespace: str, name: str, entity_id: str) -> bool:
        """Remove a ``REFERENCES_ENTITY`` link; ``True`` when one existed."""
        ...

    def referenced_entities(self, user_id: str, namespace: str, name: str) -> list[Entity]:
        """The memory entities a concept references."""
        ...

    def concepts_for_entities(
        self, user_id: str, entity_ids: Sequence[str], *, namespace: str | None = None
    ) -> list[KnowledgeConcept]:
        """Concepts that reference any of the entities: the cross-namespace join."""
        ...

    def stats(self, user_id: str) -> KnowledgeStats:
        """Counts of the user's concepts, relations, documents and entity links."""
        ...

    def delete_user(self, user_id: str) -> KnowledgeStats:
        """Remove the user's whole knowledge graph (memory entities are untouched)."""
        ...


@runtime_checkable
class AsyncKnowledgeStore(Protocol):
    """The async face of :class:`KnowledgeStore`: the same methods, as coroutines."""

    async def setup(self) -> None:
        """See :meth:`KnowledgeStore.setup`."""
        ...

    async def close(self) -> None:
        """See :meth:`KnowledgeStore.close`."""
        ...

    async def write_batch(
        self,
        user_id: str,
        namespace: str,
        concepts: Iterable[ConceptInput],
        relations: Iterable[RelationInput] = (),
        *,
        document: DocumentInput | None = None,
        now: datetime | None = None,
    ) -> WriteResult:
        """See :meth:`KnowledgeStore.write_batch`."""
        ...

    async def merge_concept(
        self, user_id: str, namespace: str, name: str, **kwargs: Any
    ) -> KnowledgeConcept:
        """See :meth:`KnowledgeStore.merge_concept`."""
        ...

    async def add_relation(
        self,
        user_id: str,
        namespace: str,
        source: str,
        target: str,
        relation_type: str = "related_to",
        **kwargs: Any,
    ) -> KnowledgeRelation:
        """See :meth:`KnowledgeStore.add_relation`."""
        ...

    async def get_concept(self, user_id: str, namespace: str, name: str) -> KnowledgeConcept | None:
        """See :meth:`KnowledgeStore.get_concept`."""
        ...

    async def get_concepts(self, user_id: str, ids: Sequence[str]) -> list[KnowledgeConcept]:
        """See :meth:`KnowledgeStore.get_concepts`."""
        ...

    async def list_concepts(
        self, user_id: str, namespace: str | None = None, **kwargs: Any
    ) -> list[KnowledgeConcept]:
        """See :meth:`KnowledgeStore.list_concepts`."""
        ...

    async def get_relations(
        self, user_id: str, namespace: str, **kwargs: Any
    ) -> list[KnowledgeRelation]:
        """See :meth:`KnowledgeStore.get_relations`."""
        ...

    async def keyword_search(self, user_id: str, query: str, **kwargs: Any) -> list[ConceptHit]:
        """See :meth:`KnowledgeStore.keyword_search`."""
        ...

    async def get_document(self, user_id: str, document_id: str) -> KnowledgeDocument | None:
        """See :meth:`KnowledgeStore.get_document`."""
        ...

    async def list_documents(
        self, user_id: str, namespace: str | None = None, **kwargs: Any
    ) -> list[KnowledgeDocument]:
        """See :meth:`KnowledgeStore.list_documents`."""
        ...

    async def concept_documents(self, user_id: str, concept_id: str) -> list[KnowledgeDocument]:
        """See :meth:`KnowledgeStore.concept_documents`."""
        ...

    async def namespaces(self, user_id: str) -> list[NamespaceInfo]:
        """See :meth:`KnowledgeStore.namespaces`."""
        ...

    async def delete_namespace(self, user_id: str, namespace: str) -> KnowledgeStats:
        """See :meth:`KnowledgeStore.delete_namespace`."""
        ...

    async def delete_items(
        self,
        user_id: str,
        namespace: str,
        *,
        concepts: Sequence[str] = (),
        relations: Sequence[str] = (),
        documents: Sequence[str] = (),
    ) -> KnowledgeStats:
        """See :meth:`KnowledgeStore.delete_items`."""
        ...

    async def connect_entity(
        self, user_id: str, namespace: str, name: str, entity_id: str, **kwargs: Any
    ) -> bool:
        """See :meth:`KnowledgeStore.connect_entity`."""
        ...

    async def disconnect_entity(
        self, user_id: str, namespace: str, name: str, entity_id: str
    ) -> bool:
        """See :meth:`KnowledgeStore.disconnect_entity`."""
        ...

    async def referenced_entities(self, user_id: str, namespace: str, name: str) -> list[Entity]:
        """See :meth:`KnowledgeStore.referenced_entities`."""
        ...

    async def concepts_for_entities(
        self, user_id: str, entity_ids: Sequence[str], **kwargs: Any
    ) -> list[KnowledgeConcept]:
        """See :meth:`KnowledgeStore.concepts_for_entities`."""
        ...

    async def stats(self, user_id: str) -> KnowledgeStats:
        """See :meth:`KnowledgeStore.stats`."""
        ...

    async def delete_user(self, user_id: str) -> KnowledgeStats:
        """See :meth:`KnowledgeStore.delete_user`."""
        ...
