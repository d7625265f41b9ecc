"""The knowledge operations as op objects (LangGraph ``BaseStore`` style).

A public method of :class:`~langgraph_prax_memory.knowledge.KnowledgeStore` (or its async
face) builds one of these and hands it to the store's runner. Building an op validates and
normalises its arguments, so a bad argument never reaches a backend and both backends see
the same values; each backend then turns the op into its queries (``_cypher.py``,
``_sql.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import ClassVar, Generic, TypeVar

from langgraph_prax_memory._validation import check_limit, check_user_id
from langgraph_prax_memory.graph import Entity, Moment
from langgraph_prax_memory.knowledge._rows import PreparedBatch, check_direction
from langgraph_prax_memory.knowledge._terms import exact_key, search_terms
from langgraph_prax_memory.knowledge.models import (
    ConceptHit,
    KnowledgeConcept,
    KnowledgeDocument,
    KnowledgeRelation,
    KnowledgeStats,
    NamespaceInfo,
    WriteResult,
    check_namespace,
    check_relation_type,
    concept_id,
)

T = TypeVar("T")
_MAX_PAGE = 100_000


class KnowledgeOp(Generic[T]):
    """An operation whose answer is a ``T``; ``write`` ops run in a write transaction."""

    #: The operation's name in error messages (``knowledge <name> failed``).
    name: ClassVar[str]
    #: Whether the op writes (a write transaction) or only reads.
    write: ClassVar[bool] = False

    @property
    def what(self) -> str:
        """What the op does, as an error message names it."""
        return self.name


def _set(op: object, name: str, value: object) -> None:
    object.__setattr__(op, name, value)


def _check_optional_namespace(namespace: str | None) -> None:
    if namespace is not None:
        check_namespace(namespace)


@dataclass(frozen=True)
class WriteBatch(KnowledgeOp[WriteResult]):
    """Merge a prepared batch (concepts, relations, a document) in one transaction."""

    name = "write_batch"
    write = True
    batch: PreparedBatch


@dataclass(frozen=True)
class GetConcepts(KnowledgeOp[list[KnowledgeConcept]]):
    """Concepts of a user by id, in the order given (repeats dropped)."""

    name = "get_concepts"
    user_id: str
    ids: Sequence[str]

    def __post_init__(self) -> None:
        check_user_id(self.user_id)
        _set(self, "ids", list(dict.fromkeys(self.ids)))


@dataclass(frozen=True)
class ListConcepts(KnowledgeOp[list[KnowledgeConcept]]):
    """A page of concepts by id, after ``after_id``."""

    name = "list_concepts"
    user_id: str
    namespace: str | None = None
    limit: int = 1000
    after_id: str | None = None

    def __post_init__(self) -> None:
        check_user_id(self.user_id)
        _check_optional_namespace(self.namespace)
        _set(self, "limit", check_limit(self.limit, maximum=_MAX_PAGE))


@dataclass(frozen=True)
class GetRelations(KnowledgeOp[list[KnowledgeRelation]]):
    """Relations of a namespace, or of one concept in a direction."""

    name = "get_relations"
    user_id: str
    namespace: str
    concept: str | None = None
    direction: str = "both"
    relation_type: str | None = None
    limit: int = 1000
    concept_id: str | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        check_user_id(self.user_id)
        check_namespace(self.namespace)
        check_direction(self.direction)
        if self.relation_type is not None:
            _set(self, "relation_type", check_relation_type(self.relation_type))
        _set(self, "limit", check_limit(self.limit, maximum=_MAX_PAGE))
        if self.concept is not None:
            _set(self, "concept_id", concept_id(self.user_id, self.namespace, self.concept))


@dataclass(frozen=True)
class KeywordSearch(KnowledgeOp[list[ConceptHit]]):
    """The keyword arm: ``terms`` (lists of variants) matched against the concepts' text."""

    name = "keyword_search"
    user_id: str
    query: str
    namespace: str | None = None
    limit: int = 10
    terms: list[list[str]] = field(init=False, default_factory=list)
    exact: str = field(init=False, default="")

    def __post_init__(self) -> None:
        check_user_id(self.user_id)
        _set(self, "limit", check_limit(self.limit))
        _check_optional_namespace(self.namespace)
        _set(self, "terms", search_terms(self.query))
        _set(self, "exact", exact_key(self.query))


@dataclass(frozen=True)
class GetDocument(KnowledgeOp["KnowledgeDocument | None"]):
    """One document by id."""

    name = "get_document"
    user_id: str
    document_id: str

    def __post_init__(self) -> None:
        check_user_id(self.user_id)


@dataclass(frozen=True)
class ListDocuments(KnowledgeOp[list[KnowledgeDocument]]):
    """Documents, newest first."""

    name = "list_documents"
    user_id: str
    namespace: str | None = None
    limit: int = 1000

    def __post_init__(self) -> None:
        check_user_id(self.user_id)
        _check_optional_namespace(self.namespace)
        _set(self, "limit", check_limit(self.limit, maximum=_MAX_PAGE))


@dataclass(frozen=True)
class ConceptDocuments(KnowledgeOp[list[KnowledgeDocument]]):
    """The documents a concept was extracted from."""

    name = "concept_documents"
    user_id: str
    concept_id: str

    def __post_init__(self) -> None:
        check_user_id(self.user_id)


@dataclass(frozen=True)
class Namespaces(KnowledgeOp[list[NamespaceInfo]]):
    """The user's namespaces with their counts."""

    name = "namespaces"
    user_id: str

    def __post_init__(self) -> None:
        check_user_id(self.user_id)


@dataclass(frozen=True)
class Stats(KnowledgeOp[KnowledgeStats]):
    """Counts of the user's knowledge graph."""

    name = "stats"
    user_id: str

    def __post_init__(self) -> None:
        check_user_id(self.user_id)


@dataclass(frozen=True)
class Delete(KnowledgeOp[KnowledgeStats]):
    """Delete one namespace, or (``namespace=None``) the user's whole knowledge graph."""

    name = "delete"
    write = True
    user_id: str
    namespace: str | None

    def __post_init__(self) -> None:
        check_user_id(self.user_id)
        _check_optional_namespace(self.namespace)

    @property
    def what(self) -> str:
        """``delete_namespace`` or ``delete_user``."""
        return "delete_user" if self.namespace is None else "delete_namespace"


@dataclass(frozen=True)
class DeleteItems(KnowledgeOp[KnowledgeStats]):
    """Delete concepts, relations and documents of one namespace by id."""

    name = "delete_items"
    write = True
    user_id: str
    namespace: str
    concepts: Sequence[str] = ()
    relations: Sequence[str] = ()
    documents: Sequence[str] = ()

    def __post_init__(self) -> None:
        check_user_id(self.user_id)
        check_namespace(self.namespace)
        for name in ("concepts", "relations", "documents"):
            _set(self, name, sorted(set(getattr(self, name))))

    @property
    def empty(self) -> bool:
        """Whether there is nothing to delete."""
        return not (self.concepts or self.relations or self.documents)


@dataclass(frozen=True)
class ConnectEntity(KnowledgeOp[bool]):
    """Link a concept to a memory entity (``REFERENCES_ENTITY``); ``True`` when new."""

    name = "connect_entity"
    write = True
    user_id: str
    namespace: str
    concept: str
    entity_id: str
    now: datetime | None = None
    concept_id: str = field(init=False, default="")
    when: str = field(init=False, default="")

    def __post_init__(self) -> None:
        _set(self, "concept_id", concept_id(self.user_id, self.namespace, self.concept))
        _set(self, "when", Moment.of(self.now).iso)

    @property
    def label(self) -> str:
        """The concept as an error message names it."""
        return f"{self.concept!r} in namespace {self.namespace!r}"


@dataclass(frozen=True)
class DisconnectEntity(KnowledgeOp[bool]):
    """Remove a ``REFERENCES_ENTITY`` link; ``True`` when one existed."""

    name = "disconnect_entity"
    write = True
    user_id: str
    namespace: str
    concept: str
    entity_id: str
    concept_id: str = field(init=False, default="")

    def __post_init__(self) -> None:
        _set(self, "concept_id", concept_id(self.user_id, self.namespace, self.concept))


@dataclass(frozen=True)
class ReferencedEntities(KnowledgeOp[list[Entity]]):
    """The memory entities a concept references."""

    name = "referenced_entities"
    user_id: str
    namespace: str
    concept: str
    concept_id: str = field(init=False, default="")

    def __post_init__(self) -> None:
        _set(self, "concept_id", concept_id(self.user_id, self.namespace, self.concept))


@dataclass(frozen=True)
class ConceptsForEntities(KnowledgeOp[list[KnowledgeConcept]]):
    """Concepts that reference any of the entities (the cross-namespace join)."""

    name = "concepts_for_entities"
    user_id: str
    entity_ids: Sequence[str]
    namespace: str | None = None

    def __post_init__(self) -> None:
        check_user_id(self.user_id)
        _check_optional_namespace(self.namespace)
        _set(self, "entity_ids", list(dict.fromkeys(self.entity_ids)))
