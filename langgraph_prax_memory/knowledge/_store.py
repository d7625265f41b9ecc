"""The knowledge store's public methods, written once over op objects, and its async face.

:class:`KnowledgeStore` is the sync face: each public method validates its arguments into an
op object (``_ops.py``) and hands it to :meth:`KnowledgeStore.run`, the one method a backend
implements (LangGraph ``BaseStore`` style). :class:`AsyncKnowledgeStore` is the async face
with the same methods as coroutines over :meth:`AsyncKnowledgeStore.arun`, which by default
runs a sync store's :meth:`~KnowledgeStore.run` in a worker thread; a backend with a native
async driver overrides ``arun`` alone (Neo4j). Every data method takes ``user_id`` first and
filters by it: no query ever runs unscoped. Memory queries (the ``GraphStore``) never see
concepts and these never return memory entities, except through the explicit
``REFERENCES_ENTITY`` methods.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.graph import Entity
from langgraph_prax_memory.knowledge._ops import (
    ConceptDocuments,
    ConceptsForEntities,
    ConnectEntity,
    Delete,
    DeleteItems,
    DisconnectEntity,
    GetConcepts,
    GetDocument,
    GetRelations,
    KeywordSearch,
    KnowledgeOp,
    ListConcepts,
    ListDocuments,
    Namespaces,
    ReferencedEntities,
    Stats,
    WriteBatch,
)
from langgraph_prax_memory.knowledge._rows import prepare_batch
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
    concept_id,
)

__all__ = ["AsyncKnowledgeStore", "KnowledgeStore"]

T = TypeVar("T")


def concept_input(
    name: str,
    display_name: str | None,
    description: str,
    kind: str | None,
    importance: float | None,
    source: str,
    source_type: str,
    tags: Sequence[str],
    properties: Mapping[str, Any] | None,
) -> ConceptInput:
    """The :class:`ConceptInput` of ``merge_concept``'s arguments."""
    return ConceptInput(
        name=name,
        display_name=display_name,
        description=description,
        kind=kind,
        importance=importance,
        source=source,
        source_type=source_type,
        tags=list(tags),
        properties=dict(properties or {}),
    )


def only_relation(result: WriteResult) -> KnowledgeRelation:
    """The relation ``add_relation`` wrote (a self-loop writes none: an error)."""
    if not result.relations:
        raise MemoryValidationError("a relation needs two different concepts")
    return result.relations[0]


class KnowledgeStore(ABC):
    """A per-user concept graph, separate from the memory graph it shares a backend with.

    A backend implements :meth:`run` (one op in one transaction), :meth:`setup` and
    :meth:`close`; the public methods are written here once.

    Example:
        >>> from langgraph_prax_memory.graph import SQLiteGraphStore
        >>> from langgraph_prax_memory.knowledge import SQLiteKnowledgeStore
        >>> store: KnowledgeStore = SQLiteKnowledgeStore(SQLiteGraphStore(":memory:"))
        >>> _ = store.add_relation("u1", "papers", "Transformer", "Attention", "uses")
        >>> [r.target for r in store.get_relations("u1", "papers", name="transformer")]
        ['attention']
    """

    @abstractmethod
    def run(self, op: KnowledgeOp[T]) -> T:
        """Run one validated operation in one transaction (a write one when ``op.write``)."""

    @abstractmethod
    def setup(self) -> None:
        """Create the knowledge tables / constraints and indexes. Idempotent."""

    @abstractmethod
    def close(self) -> None:
        """Release what the store opened itself (a shared graph connection stays open)."""

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
        batch = prepare_batch(user_id, namespace, concepts, relations, document=document, now=now)
        return self.run(WriteBatch(batch))

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
        item = concept_input(
            name, display_name, description, kind, importance, source, source_type, tags, properties
        )
        batch = prepare_batch(user_id, namespace, [item], now=now)
        return self.run(WriteBatch(batch)).concepts[0]

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
        rel = RelationInput(
            source=source, target=target, type=relation_type, weight=weight, evidence=evidence
        )
        batch = prepare_batch(user_id, namespace, [], [rel], now=now)
        return only_relation(self.run(WriteBatch(batch)))

    def get_concept(self, user_id: str, namespace: str, name: str) -> KnowledgeConcept | None:
        """The concept ``name`` (any case / spacing) of ``namespace``, or ``None``."""
        op = GetConcepts(user_id, [concept_id(user_id, namespace, name)])
        found = self.run(op)
        return found[0] if found else None

    def get_concepts(self, user_id: str, ids: Sequence[str]) -> list[KnowledgeConcept]:
        """Concepts of ``user_id`` by id, in the order given (unknown ids are skipped)."""
        return self.run(GetConcepts(user_id, ids))

    def list_concepts(
        self,
        user_id: str,
        namespace: str | None = None,
        *,
        limit: int = 1000,
        after_id: str | None = None,
    ) -> list[KnowledgeConcept]:
        """A page of concepts ordered by id (``after_id``: the last id of the previous page)."""
        return self.run(ListConcepts(user_id, namespace, limit, after_id))

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
        return self.run(GetRelations(user_id, namespace, name, direction, relation_type, limit))

    def keyword_search(
        self, user_id: str, query: str, *, namespace: str | None = None, limit: int = 10
    ) -> list[ConceptHit]:
        """Multi-variant substring match over name, display name, description and tags.

        Ordered by the number of query terms matched, then name matches, importance, name.
        """
        op = KeywordSearch(user_id, query, namespace, limit)
        return self.run(op) if op.terms else []

    def get_document(self, user_id: str, document_id: str) -> KnowledgeDocument | None:
        """A document by id, or ``None``."""
        return self.run(GetDocument(user_id, document_id))

    def list_documents(
        self, user_id: str, namespace: str | None = None, *, limit: int = 1000
    ) -> list[KnowledgeDocument]:
        """Documents, newest first."""
        return self.run(ListDocuments(user_id, namespace, limit))

    def concept_documents(self, user_id: str, concept_id: str) -> list[KnowledgeDocument]:
        """The documents a concept was extracted from (its ``EXTRACTED_FROM`` provenance)."""
        return self.run(ConceptDocuments(user_id, concept_id))

    def namespaces(self, user_id: str) -> list[NamespaceInfo]:
        """The user's namespaces with concept, relation and document counts, by name."""
        return self.run(Namespaces(user_id))

    def delete_namespace(self, user_id: str, namespace: str) -> KnowledgeStats:
        """Remove a namespace's concepts, relations, documents and entity links, nothing else."""
        return self.run(Delete(user_id, namespace))

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
        op = DeleteItems(user_id, namespace, concepts, relations, documents)
        return KnowledgeStats() if op.empty else self.run(op)

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
        return self.run(ConnectEntity(user_id, namespace, name, entity_id, now))

    def disconnect_entity(self, user_id: str, namespace: str, name: str, entity_id: str) -> bool:
        """Remove a ``REFERENCES_ENTITY`` link; ``True`` when one existed."""
        return self.run(DisconnectEntity(user_id, namespace, name, entity_id))

    def referenced_entities(self, user_id: str, namespace: str, name: str) -> list[Entity]:
        """The memory entities a concept references."""
        return self.run(ReferencedEntities(user_id, namespace, name))

    def concepts_for_entities(
        self, user_id: str, entity_ids: Sequence[str], *, namespace: str | None = None
    ) -> list[KnowledgeConcept]:
        """Concepts that reference any of the entities: the cross-namespace join."""
        return self.run(ConceptsForEntities(user_id, entity_ids, namespace))

    def stats(self, user_id: str) -> KnowledgeStats:
        """Counts of the user's concepts, relations, documents and entity links."""
        return self.run(Stats(user_id))

    def delete_user(self, user_id: str) -> KnowledgeStats:
        """Remove the user's whole knowledge graph (memory entities are untouched)."""
        return self.run(Delete(user_id, None))


class AsyncKnowledgeStore:
    """The async face of :class:`KnowledgeStore`: the same methods, as coroutines.

    By default each operation runs the sync store's :meth:`KnowledgeStore.run` in a worker
    thread; a backend with a native async driver overrides :meth:`arun` (and :meth:`setup`).

    Args:
        sync_store: The sync store the operations run on (``None`` when :meth:`arun` is
            overridden).

    Example:
        >>> import asyncio
        >>> from langgraph_prax_memory.graph import SQLiteGraphStore
        >>> from langgraph_prax_memory.knowledge import SQLiteKnowledgeStore
        >>> store = AsyncKnowledgeStore(SQLiteKnowledgeStore(SQLiteGraphStore(":memory:")))
        >>> asyncio.run(store.merge_concept("u1", "docs", "LangGraph")).name
        'langgraph'
    """

    def __init__(self, sync_store: KnowledgeStore | None = None) -> None:
        self.sync_store = sync_store

    def _sync(self) -> KnowledgeStore:
        if self.sync_store is None:
            raise TypeError(f"{type(self).__name__} has no sync store to run on")
        return self.sync_store

    async def arun(self, op: KnowledgeOp[T]) -> T:
        """Run one operation: the sync store's :meth:`KnowledgeStore.run` in a thread."""
        return await asyncio.to_thread(self._sync().run, op)

    async def setup(self) -> None:
        """See :meth:`KnowledgeStore.setup`."""
        await asyncio.to_thread(self._sync().setup)

    async def close(self) -> None:
        """See :meth:`KnowledgeStore.close`."""
        if self.sync_store is not None:
            await asyncio.to_thread(self.sync_store.close)

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
        batch = prepare_batch(user_id, namespace, concepts, relations, document=document, now=now)
        return await self.arun(WriteBatch(batch))

    async def merge_concept(
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
        """See :meth:`KnowledgeStore.merge_concept`."""
        item = concept_input(
            name, display_name, description, kind, importance, source, source_type, tags, properties
        )
        batch = prepare_batch(user_id, namespace, [item], now=now)
        return (await self.arun(WriteBatch(batch))).concepts[0]

    async def add_relation(
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
        """See :meth:`KnowledgeStore.add_relation`."""
        rel = RelationInput(
            source=source, target=target, type=relation_type, weight=weight, evidence=evidence
        )
        batch = prepare_batch(user_id, namespace, [], [rel], now=now)
        return only_relation(await self.arun(WriteBatch(batch)))

    async def get_concept(self, user_id: str, namespace: str, name: str) -> KnowledgeConcept | None:
        """See :meth:`KnowledgeStore.get_concept`."""
        op = GetConcepts(user_id, [concept_id(user_id, namespace, name)])
        found = await self.arun(op)
        return found[0] if found else None

    async def get_concepts(self, user_id: str, ids: Sequence[str]) -> list[KnowledgeConcept]:
        """See :meth:`KnowledgeStore.get_concepts`."""
        return await self.arun(GetConcepts(user_id, ids))

    async def list_concepts(
        self,
        user_id: str,
        namespace: str | None = None,
        *,
        limit: int = 1000,
        after_id: str | None = None,
    ) -> list[KnowledgeConcept]:
        """See :meth:`KnowledgeStore.list_concepts`."""
        return await self.arun(ListConcepts(user_id, namespace, limit, after_id))

    async def get_relations(
        self,
        user_id: str,
        namespace: str,
        *,
        name: str | None = None,
        direction: str = "both",
        relation_type: str | None = None,
        limit: int = 1000,
    ) -> list[KnowledgeRelation]:
        """See :meth:`KnowledgeStore.get_relations`."""
        return await self.arun(
            GetRelations(user_id, namespace, name, direction, relation_type, limit)
        )

    async def keyword_search(
        self, user_id: str, query: str, *, namespace: str | None = None, limit: int = 10
    ) -> list[ConceptHit]:
        """See :meth:`KnowledgeStore.keyword_search`."""
        op = KeywordSearch(user_id, query, namespace, limit)
        return (await self.arun(op)) if op.terms else []

    async def get_document(self, user_id: str, document_id: str) -> KnowledgeDocument | None:
        """See :meth:`KnowledgeStore.get_document`."""
        return await self.arun(GetDocument(user_id, document_id))

    async def list_documents(
        self, user_id: str, namespace: str | None = None, *, limit: int = 1000
    ) -> list[KnowledgeDocument]:
        """See :meth:`KnowledgeStore.list_documents`."""
        return await self.arun(ListDocuments(user_id, namespace, limit))

    async def concept_documents(self, user_id: str, concept_id: str) -> list[KnowledgeDocument]:
        """See :meth:`KnowledgeStore.concept_documents`."""
        return await self.arun(ConceptDocuments(user_id, concept_id))

    async def namespaces(self, user_id: str) -> list[NamespaceInfo]:
        """See :meth:`KnowledgeStore.namespaces`."""
        return await self.arun(Namespaces(user_id))

    async def delete_namespace(self, user_id: str, namespace: str) -> KnowledgeStats:
        """See :meth:`KnowledgeStore.delete_namespace`."""
        return await self.arun(Delete(user_id, namespace))

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
        op = DeleteItems(user_id, namespace, concepts, relations, documents)
        return KnowledgeStats() if op.empty else (await self.arun(op))

    async def connect_entity(
        self,
        user_id: str,
        namespace: str,
        name: str,
        entity_id: str,
        *,
        now: datetime | None = None,
    ) -> bool:
        """See :meth:`KnowledgeStore.connect_entity`."""
        return await self.arun(ConnectEntity(user_id, namespace, name, entity_id, now))

    async def disconnect_entity(
        self, user_id: str, namespace: str, name: str, entity_id: str
    ) -> bool:
        """See :meth:`KnowledgeStore.disconnect_entity`."""
        return await self.arun(DisconnectEntity(user_id, namespace, name, entity_id))

    async def referenced_entities(self, user_id: str, namespace: str, name: str) -> list[Entity]:
        """See :meth:`KnowledgeStore.referenced_entities`."""
        return await self.arun(ReferencedEntities(user_id, namespace, name))

    async def concepts_for_entities(
        self, user_id: str, entity_ids: Sequence[str], *, namespace: str | None = None
    ) -> list[KnowledgeConcept]:
        """See :meth:`KnowledgeStore.concepts_for_entities`."""
        return await self.arun(ConceptsForEntities(user_id, entity_ids, namespace))

    async def stats(self, user_id: str) -> KnowledgeStats:
        """See :meth:`KnowledgeStore.stats`."""
        return await self.arun(Stats(user_id))

    async def delete_user(self, user_id: str) -> KnowledgeStats:
        """See :meth:`KnowledgeStore.delete_user`."""
        return await self.arun(Delete(user_id, None))
