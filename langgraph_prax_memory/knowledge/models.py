"""Records of the world-knowledge namespace, shared by every backend.

Memory is about the *user* (``Entity`` nodes); this namespace is about the *world*: concepts
extracted from papers, docs and code (``KnowledgeConcept``), the documents they came from
(``KnowledgeDocument``), typed concept-to-concept relations (``KNOWLEDGE_RELATES``), provenance
(``EXTRACTED_FROM``) and the one cross-namespace edge, ``REFERENCES_ENTITY``.

Both backends return exactly these frozen pydantic records, with aware UTC datetimes.
Ids are uuid5 of their merge keys, so a concept has the same id in SQLite and Neo4j and in the
``prax_knowledge_concepts`` vector collection.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from langgraph_prax_memory._validation import check_relation_type, check_user_id
from langgraph_prax_memory.errors import MemoryValidationError, PraxMemoryError

__all__ = [
    "ConceptHit",
    "ConceptInput",
    "DocumentInput",
    "FolderIngestResult",
    "IngestResult",
    "KnowledgeConcept",
    "KnowledgeDocument",
    "KnowledgeNotFound",
    "KnowledgeRelation",
    "KnowledgeSearchResult",
    "KnowledgeStats",
    "NamespaceInfo",
    "RelationInput",
    "SkippedFile",
    "WriteResult",
    "canonical_concept_name",
    "check_kind",
    "check_namespace",
    "check_relation_type",
    "concept_id",
    "document_id",
    "relation_id",
]

#: The namespaces of the seed; any other name matching :data:`_NAMESPACE_RE` is user-defined.
KNOWN_NAMESPACES: tuple[str, ...] = ("papers", "docs", "codebase", "uploads", "custom")
DEFAULT_CONCEPT_KIND = "concept"
MAX_CONCEPT_NAME_CHARS = 512
MAX_DESCRIPTION_CHARS = 20_000
_NAMESPACE_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
_SPACES = re.compile(r"\s+")
_KNOWLEDGE_NS = uuid.UUID("8a4c3d52-1f7e-4b9a-a6d1-3c2e9f0b7d15")


def check_namespace(namespace: object) -> str:
    """Return ``namespace`` if it is a valid namespace name, else raise.

    A namespace is 1–64 characters of lower-case letters, digits, ``_``, ``.`` and ``-``,
    starting with a letter or digit: ``papers``, ``docs``, ``codebase``, ``uploads``,
    ``custom`` or any user-defined name of that shape.

    Example:
        >>> check_namespace("papers")
        'papers'
    """
    if not isinstance(namespace, str) or not _NAMESPACE_RE.match(namespace):
        raise MemoryValidationError(
            f"namespace must match {_NAMESPACE_RE.pattern} (e.g. one of {KNOWN_NAMESPACES}), "
            f"got {namespace!r}"
        )
    return namespace


def canonical_concept_name(name: object) -> str:
    """The merge key of a concept name: trimmed, inner whitespace collapsed, lower-cased.

    Example:
        >>> canonical_concept_name("  Multi-Head   Attention ")
        'multi-head attention'
    """
    if not isinstance(name, str):
        raise MemoryValidationError(f"a concept name must be a string, got {type(name).__name__}")
    text = _SPACES.sub(" ", name).strip()
    if not text:
        raise MemoryValidationError("a concept name must not be empty")
    if "\x00" in text:
        raise MemoryValidationError("a concept name must not contain NUL characters")
    if len(text) > MAX_CONCEPT_NAME_CHARS:
        raise MemoryValidationError(
            f"a concept name is longer than {MAX_CONCEPT_NAME_CHARS} characters"
        )
    return text.lower()


def display_text(name: str) -> str:
    """The name as shown: trimmed, inner whitespace collapsed, case kept."""
    return _SPACES.sub(" ", name).strip()


def check_kind(value: object) -> str:
    """Normalise a concept kind (``concept``, ``module``, ``class``, ``function``, …)."""
    if value is None:
        return DEFAULT_CONCEPT_KIND
    try:
        return check_relation_type(value)
    except MemoryValidationError as exc:
        raise MemoryValidationError(f"invalid concept kind {value!r}") from exc


def _uuid(*parts: str) -> str:
    return str(uuid.uuid5(_KNOWLEDGE_NS, "\x1f".join(parts)))


def concept_id(user_id: str, namespace: str, name: str) -> str:
    """The id of a concept: uuid5 of ``(user_id, namespace, canonical name)``.

    Example:
        >>> concept_id("u1", "papers", "Attention") == concept_id("u1", "papers", " attention ")
        True
    """
    check_user_id(user_id)
    return _uuid("concept", user_id, check_namespace(namespace), canonical_concept_name(name))


def document_id(user_id: str, namespace: str, content_hash: str) -> str:
    """The id of a document: uuid5 of ``(user_id, namespace, content hash)``."""
    check_user_id(user_id)
    return _uuid("document", user_id, check_namespace(namespace), content_hash)


def relation_id(source_id: str, target_id: str, relation_type: str) -> str:
    """The id of a ``KNOWLEDGE_RELATES`` edge: uuid5 of its endpoints and type."""
    return _uuid("relation", source_id, target_id, relation_type)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class KnowledgeConcept(_Frozen):
    """A ``(:KnowledgeConcept)``: something the world knows, scoped by user and namespace."""

    id: str
    user_id: str
    namespace: str
    name: str
    """The canonical, lower-cased merge key."""
    display_name: str
    description: str = ""
    kind: str = DEFAULT_CONCEPT_KIND
    """``concept``, or for code ``module`` / ``class`` / ``function`` / ``method`` / …"""
    importance: float = 0.5
    source: str = ""
    """Where it came from: a file path, URL or document title."""
    source_type: str = ""
    """``text`` / ``markdown`` / ``pdf`` / ``code`` / ``okf`` / ``manual`` …"""
    tags: list[str] = Field(default_factory=list)
    properties: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime
    updated_at: datetime


class KnowledgeDocument(_Frozen):
    """A ``(:KnowledgeDocument)``: one ingested source, identified by its content hash."""

    id: str
    user_id: str
    namespace: str
    title: str
    source: str = ""
    source_type: str = ""
    content_hash: str
    chunks: int = 0
    properties: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime


class KnowledgeRelation(_Frozen):
    """A ``[:KNOWLEDGE_RELATES]`` edge between two concepts of one user and namespace."""

    id: str
    user_id: str
    namespace: str
    source: str
    target: str
    source_id: str
    target_id: str
    type: str
    weight: float = 1.0
    evidence: str = ""
    created_at: datetime
    updated_at: datetime


class NamespaceInfo(_Frozen):
    """One namespace of a user with its counts."""

    namespace: str
    concepts: int
    relations: int = 0
    documents: int = 0


class KnowledgeStats(_Frozen):
    """Counts of a user's knowledge graph (or of what a delete removed)."""

    concepts: int = 0
    relations: int = 0
    documents: int = 0
    entity_links: int = 0


class ConceptHit(_Frozen):
    """A search result: the concept, its fused score and the rank each arm gave it."""

    concept: KnowledgeConcept
    score: float
    matched_terms: int = 0
    ranks: dict[str, int] = Field(default_factory=dict)


class KnowledgeSearchResult(_Frozen):
    """Hits plus which arms ran and why an arm contributed nothing."""

    hits: list[ConceptHit]
    arms: list[str]
    errors: dict[str, str] = Field(default_factory=dict)

    @property
    def keyword_only(self) -> bool:
        """Whether only the keyword arm ran (the vector side was unavailable or disabled)."""
        return self.arms == ["keyword"]


class ConceptInput(_Frozen):
    """A concept to write (merged by canonical name within its namespace)."""

    name: str
    display_name: str | None = None
    description: str = ""
    kind: str | None = None
    importance: float | None = None
    source: str = ""
    source_type: str = ""
    tags: list[str] = Field(default_factory=list)
    properties: dict[str, Any] = Field(default_factory=dict)


class RelationInput(_Frozen):
    """A relation to write between two concept names of the same namespace."""

    source: str
    target: str
    type: str = "related_to"
    weight: float = 1.0
    evidence: str = ""


class DocumentInput(_Frozen):
    """A document to record as the provenance of the concepts written with it."""

    title: str
    content_hash: str
    source: str = ""
    source_type: str = ""
    chunks: int = 0
    properties: dict[str, Any] = Field(default_factory=dict)


class WriteResult(_Frozen):
    """What one batch write stored."""

    concepts: list[KnowledgeConcept]
    relations: list[KnowledgeRelation]
    document: KnowledgeDocument | None = None


class IngestResult(_Frozen):
    """What an ingestion stored (or ``skipped=True`` when the same content was ingested)."""

    namespace: str
    document: KnowledgeDocument | None = None
    documents: int = 0
    concepts: int = 0
    relations: int = 0
    chunks: int = 0
    skipped: bool = False
    indexed: int = 0
    """Concepts written to the vector collection (0 when the vector side is unavailable)."""
    index_error: str | None = None
    extractor_fallbacks: int = 0
    """Chunks the LLM extractor failed on, extracted by the rule-based one instead."""
    pruned: KnowledgeStats = Field(default_factory=KnowledgeStats)
    """What a codebase re-ingestion removed because the code no longer has it."""
    warnings: list[str] = Field(default_factory=list)


class SkippedFile(_Frozen):
    """A file or folder a folder ingestion left out, and why (``reason`` is for people)."""

    path: str
    """Relative to the ingested folder (a folder ends with ``/``)."""
    reason: str


class FolderIngestResult(_Frozen):
    """What :meth:`KnowledgeBase.ingest_folder` did with a folder.

    ``codebase`` is the source-tree ingestion (``None`` when the folder has no Python,
    JavaScript or TypeScript file), ``documents`` one result per document (Markdown, text,
    PDF) by its path relative to the folder, ``skipped`` every file it left out and why.
    """

    root: str
    codebase: IngestResult | None = None
    documents: dict[str, IngestResult] = Field(default_factory=dict)
    skipped: list[SkippedFile] = Field(default_factory=list)

    @property
    def found_nothing(self) -> bool:
        """No source file, and no document ingested or already there (unchanged)."""
        return self.codebase is None and not self.documents


class KnowledgeNotFound(PraxMemoryError, LookupError):
    """A concept, document or memory entity named in a knowledge call does not exist."""
