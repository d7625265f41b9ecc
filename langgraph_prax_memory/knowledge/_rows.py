"""Knowledge rows: a write validated, merged with the stored row, decoded into a record.

The normalisation and merge rules shared by the SQLite and Neo4j knowledge stores. Every
write is turned into a :class:`PreparedBatch` before any query runs, so bad input never
reaches a backend, and both backends apply the *same* merge functions to the rows they read
back (:func:`merge_concept_row`, :func:`merge_relation_row`). Rows are plain dicts: ISO times
plus epoch seconds, ``tags`` a list, ``properties`` a dict (each backend encodes them).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from langgraph_prax_memory._text import append_evidence as _append_evidence
from langgraph_prax_memory._time import to_datetime
from langgraph_prax_memory._validation import (
    check_importance,
    check_tags,
    check_user_id,
)
from langgraph_prax_memory.errors import MemoryValidationError, PraxMemoryError
from langgraph_prax_memory.graph import Moment
from langgraph_prax_memory.knowledge.models import (
    DEFAULT_CONCEPT_KIND,
    MAX_DESCRIPTION_CHARS,
    ConceptInput,
    DocumentInput,
    KnowledgeConcept,
    KnowledgeDocument,
    KnowledgeRelation,
    NamespaceInfo,
    RelationInput,
    WriteResult,
    canonical_concept_name,
    check_kind,
    check_namespace,
    check_relation_type,
    concept_id,
    display_text,
    document_id,
    relation_id,
)

DEFAULT_IMPORTANCE = 0.5
MAX_PROPERTIES_CHARS = 100_000
MAX_EVIDENCE_CHARS = 4_000
MAX_BATCH = 50_000


def dump_json(value: Mapping[str, Any], *, what: str = "properties") -> str:
    """JSON text of a mapping, or a :class:`MemoryValidationError` when it is not JSON data."""
    try:
        text = json.dumps(dict(value), ensure_ascii=False, sort_keys=True, default=_no_default)
    except (TypeError, ValueError) as exc:
        raise MemoryValidationError(f"{what} must be JSON-serialisable: {exc}") from exc
    if len(text) > MAX_PROPERTIES_CHARS:
        raise MemoryValidationError(f"{what} are larger than {MAX_PROPERTIES_CHARS} characters")
    return text


def _no_default(value: object) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON data")


def load_json(text: str | None) -> dict[str, Any]:
    """The mapping stored as JSON text (``{}`` for empty)."""
    if not text:
        return {}
    value = json.loads(text)
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class PreparedConcept:
    """A validated concept write. ``placeholder``: only an endpoint of a relation."""

    id: str
    name: str
    display_name: str
    description: str
    kind: str | None
    importance: float | None
    source: str
    source_type: str
    tags: list[str]
    properties: dict[str, Any]
    placeholder: bool = False


@dataclass(frozen=True)
class PreparedRelation:
    """A validated relation write."""

    id: str
    source_id: str
    target_id: str
    source: str
    target: str
    type: str
    weight: float
    evidence: str


@dataclass(frozen=True)
class PreparedDocument:
    """A validated document write."""

    id: str
    title: str
    source: str
    source_type: str
    content_hash: str
    chunks: int
    properties: dict[str, Any]


@dataclass(frozen=True)
class PreparedBatch:
    """One transaction's worth of knowledge writes, normalised and deduplicated."""

    user_id: str
    namespace: str
    concepts: list[PreparedConcept]
    relations: list[PreparedRelation]
    document: PreparedDocument | None
    now: Moment
    concept_order: list[str] = field(default_factory=list)

    @property
    def concept_ids(self) -> list[str]:
        """Ids of every concept the batch touches (placeholders included)."""
        return [c.id for c in self.concepts]


def _prep_concept(user_id: str, namespace: str, item: ConceptInput) -> PreparedConcept:
    name = canonical_concept_name(item.name)
    display = display_text(item.display_name or "") or display_text(item.name)
    if "\x00" in display:
        raise MemoryValidationError("a display name must not contain NUL characters")
    display = display[:MAX_DESCRIPTION_CHARS]
    description = item.description.strip()
    if len(description) > MAX_DESCRIPTION_CHARS:
        description = description[: MAX_DESCRIPTION_CHARS - 1] + "…"
    if "\x00" in description:
        raise MemoryValidationError("a concept description must not contain NUL characters")
    dump_json(item.properties)
    return PreparedConcept(
        id=concept_id(user_id, namespace, name),
        name=name,
        display_name=display,
        description=description,
        kind=None if item.kind is None else check_kind(item.kind),
        importance=None if item.importance is None else check_importance(item.importance),
        source=item.source.strip()[:2000],
        source_type=item.source_type.strip()[:64],
        tags=check_tags(list(item.tags)),
        properties=dict(item.properties),
    )


def _merge_inputs(a: PreparedConcept, b: PreparedConcept) -> PreparedConcept:
    """Two writes of one concept within a batch, merged with the store's rules."""
    if a.placeholder:
        return b
    if b.placeholder:
        return a
    imps = [i for i in (a.importance, b.importance) if i is not None]
    return PreparedConcept(
        id=a.id,
        name=a.name,
        display_name=a.display_name,
        description=b.description if len(b.description) > len(a.description) else a.description,
        kind=b.kind if b.kind not in (None, DEFAULT_CONCEPT_KIND) else a.kind,
        importance=max(imps) if imps else None,
        source=a.source or b.source,
        source_type=a.source_type or b.source_type,
        tags=a.tags + [t for t in b.tags if t not in a.tags],
        properties={**a.properties, **b.properties},
    )


def prepare_batch(
    user_id: str,
    namespace: str,
    concepts: Iterable[ConceptInput],
    relations: Iterable[RelationInput] = (),
    *,
    document: DocumentInput | None = None,
    now: datetime | None = None,
) -> PreparedBatch:
    """Validate and normalise a batch write (nothing is written when this raises).

    Concepts named more than once are merged; relation endpoints that are not among the
    concepts become placeholder concepts (created if missing, left alone if they exist);
    relations repeated in the batch are summed.
    """
    check_user_id(user_id)
    check_namespace(namespace)
    by_id: dict[str, PreparedConcept] = {}
    for item in concepts:
        if not isinstance(item, ConceptInput):
            raise MemoryValidationError("concepts must be ConceptInput records")
        prepared = _prep_concept(user_id, namespace, item)
        prev = by_id.get(prepared.id)
        by_id[prepared.id] = prepared if prev is None else _merge_inputs(prev, prepared)
    rels: dict[str, PreparedRelation] = {}
    for rel in relations:
        if not isinstance(rel, RelationInput):
            raise MemoryValidationError("relations must be RelationInput records")
        rtype = check_relation_type(rel.type)
        weight = float(rel.weight)
        if not math.isfinite(weight) or weight <= 0:
            raise MemoryValidationError(f"relation weight must be positive, got {rel.weight!r}")
        ends = []
        for end in (rel.source, rel.target):
            cname = canonical_concept_name(end)
            cid = concept_id(user_id, namespace, cname)
            if cid not in by_id:
                by_id[cid] = PreparedConcept(
                    id=cid,
                    name=cname,
                    display_name=display_text(end),
                    description="",
                    kind=None,
                    importance=None,
                    source="",
                    source_type="",
                    tags=[],
                    properties={},
                    placeholder=True,
                )
            ends.append((cid, cname))
        (sid, sname), (tid, tname) = ends
        if sid == tid:
            continue
        rid = relation_id(sid, tid, rtype)
        evidence = rel.evidence.strip()[:MAX_EVIDENCE_CHARS]
        prev_rel = rels.get(rid)
        if prev_rel is not None:
            weight += prev_rel.weight
            evidence = append_evidence(prev_rel.evidence, evidence)
        rels[rid] = PreparedRelation(rid, sid, tid, sname, tname, rtype, weight, evidence)
    doc = None
    if document is not None:
        if not isinstance(document, DocumentInput):
            raise MemoryValidationError("document must be a DocumentInput record")
        if not document.content_hash:
            raise MemoryValidationError("a document needs its content hash")
        dump_json(document.properties)
        doc = PreparedDocument(
            id=document_id(user_id, namespace, document.content_hash),
            title=display_text(document.title)[:1000] or "untitled",
            source=document.source[:2000],
            source_type=document.source_type[:64],
            content_hash=document.content_hash,
            chunks=int(document.chunks),
            properties=dict(document.properties),
        )
    if len(by_id) > MAX_BATCH or len(rels) > MAX_BATCH:
        raise MemoryValidationError(f"a batch holds at most {MAX_BATCH} concepts and relations")
    return PreparedBatch(
        user_id=user_id,
        namespace=namespace,
        concepts=list(by_id.values()),
        relations=list(rels.values()),
        document=doc,
        now=Moment.of(now),
    )


def append_evidence(old: str, new: str) -> str:
    """``old; new`` unless ``new`` is empty or already there (capped)."""
    return _append_evidence(old, new, max_chars=MAX_EVIDENCE_CHARS)


def search_text(display_name: str, description: str, tags: Sequence[str]) -> str:
    """The lower-cased text the keyword arm matches against."""
    return "\n".join([display_name.lower(), description.lower(), " ".join(tags).lower()])


def merge_concept_row(
    existing: Mapping[str, Any] | None, c: PreparedConcept, batch: PreparedBatch
) -> dict[str, Any] | None:
    """The row to store for ``c`` given the stored one (``None`` = no change needed).

    Rules: the longest description wins; the highest importance is kept; a specific kind
    replaces ``concept``; the first source is kept; tags are unioned; properties are
    shallow-merged; ``updated_at`` advances. A placeholder never changes an existing concept.
    """
    now = batch.now
    if existing is None:
        desc = c.description
        return {
            "id": c.id,
            "user_id": batch.user_id,
            "namespace": batch.namespace,
            "name": c.name,
            "display_name": c.display_name,
            "description": desc,
            "kind": c.kind or DEFAULT_CONCEPT_KIND,
            "importance": DEFAULT_IMPORTANCE if c.importance is None else c.importance,
            "source": c.source,
            "source_type": c.source_type,
            "tags": list(c.tags),
            "properties": dict(c.properties),
            "created_at": now.iso,
            "created_at_ts": now.ts,
            "updated_at": now.iso,
            "updated_at_ts": now.ts,
            "search_text": search_text(c.display_name, desc, c.tags),
        }
    if c.placeholder:
        return None
    row = dict(existing)
    if len(c.description) > len(row["description"]):
        row["description"] = c.description
    if c.importance is not None and c.importance > row["importance"]:
        row["importance"] = c.importance
    if c.kind is not None and (c.kind != DEFAULT_CONCEPT_KIND or not row["kind"]):
        row["kind"] = c.kind
    row["source"] = row["source"] or c.source
    row["source_type"] = row["source_type"] or c.source_type
    row["tags"] = list(row["tags"]) + [t for t in c.tags if t not in row["tags"]]
    row["properties"] = {**row["properties"], **c.properties}
    if now.ts > row["updated_at_ts"]:
        row["updated_at"], row["updated_at_ts"] = now.iso, now.ts
    row["search_text"] = search_text(row["display_name"], row["description"], row["tags"])
    return row


def merge_relation_row(
    existing: Mapping[str, Any] | None, r: PreparedRelation, batch: PreparedBatch
) -> dict[str, Any]:
    """The row to store for ``r``: a new edge, or the stored one strengthened."""
    now = batch.now
    if existing is None:
        return {
            "id": r.id,
            "user_id": batch.user_id,
            "namespace": batch.namespace,
            "source_id": r.source_id,
            "target_id": r.target_id,
            "type": r.type,
            "weight": r.weight,
            "evidence": r.evidence,
            "created_at": now.iso,
            "created_at_ts": now.ts,
            "updated_at": now.iso,
            "updated_at_ts": now.ts,
        }
    row = dict(existing)
    row["weight"] = float(row["weight"]) + r.weight
    row["evidence"] = append_evidence(row["evidence"], r.evidence)
    if now.ts > row["updated_at_ts"]:
        row["updated_at"], row["updated_at_ts"] = now.iso, now.ts
    return row


def merge_concepts(
    batch: PreparedBatch, existing: Mapping[str, dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """``(rows to write, every concept's final row)`` for the batch, given the stored rows."""
    written: list[dict[str, Any]] = []
    final: dict[str, dict[str, Any]] = {}
    for c in batch.concepts:
        row = merge_concept_row(existing.get(c.id), c, batch)
        if row is not None:
            written.append(row)
        final[c.id] = row if row is not None else dict(existing[c.id])
    return written, final


def merge_relations(
    batch: PreparedBatch, existing: Mapping[str, Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The rows to write for the batch's relations, given the stored ones."""
    return [merge_relation_row(existing.get(r.id), r, batch) for r in batch.relations]


def write_result(
    batch: PreparedBatch,
    final: Mapping[str, Mapping[str, Any]],
    relation_rows: Sequence[Mapping[str, Any]],
    document: KnowledgeDocument | None,
) -> WriteResult:
    """What a batch write returns: its concepts (placeholders left out), relations, document."""
    names = {cid: row["name"] for cid, row in final.items()}
    return WriteResult(
        concepts=[to_concept(final[c.id]) for c in batch.concepts if not c.placeholder],
        relations=[
            to_relation(r, names[r["source_id"]], names[r["target_id"]]) for r in relation_rows
        ],
        document=document,
    )


def namespace_infos(counts: Mapping[str, Mapping[str, int]]) -> list[NamespaceInfo]:
    """:class:`NamespaceInfo` records by name from ``{namespace: {field: count}}``."""
    return [
        NamespaceInfo(
            namespace=ns,
            concepts=c.get("concepts", 0),
            relations=c.get("relations", 0),
            documents=c.get("documents", 0),
        )
        for ns, c in sorted(counts.items())
    ]


def document_row(batch: PreparedBatch) -> dict[str, Any] | None:
    """The row of the batch's document (``None`` when it has none)."""
    d = batch.document
    if d is None:
        return None
    return {
        "id": d.id,
        "user_id": batch.user_id,
        "namespace": batch.namespace,
        "title": d.title,
        "source": d.source,
        "source_type": d.source_type,
        "content_hash": d.content_hash,
        "chunks": d.chunks,
        "properties": dict(d.properties),
        "created_at": batch.now.iso,
        "created_at_ts": batch.now.ts,
    }


def to_concept(row: Mapping[str, Any]) -> KnowledgeConcept:
    """A :class:`KnowledgeConcept` from a decoded row."""
    return KnowledgeConcept(
        id=row["id"],
        user_id=row["user_id"],
        namespace=row["namespace"],
        name=row["name"],
        display_name=row["display_name"],
        description=row["description"],
        kind=row["kind"],
        importance=float(row["importance"]),
        source=row["source"],
        source_type=row["source_type"],
        tags=list(row["tags"]),
        properties=dict(row["properties"]),
        created_at=to_datetime(row["created_at"]),
        updated_at=to_datetime(row["updated_at"]),
    )


def to_relation(row: Mapping[str, Any], source: str, target: str) -> KnowledgeRelation:
    """A :class:`KnowledgeRelation` from a decoded row and its endpoint names."""
    return KnowledgeRelation(
        id=row["id"],
        user_id=row["user_id"],
        namespace=row["namespace"],
        source=source,
        target=target,
        source_id=row["source_id"],
        target_id=row["target_id"],
        type=row["type"],
        weight=float(row["weight"]),
        evidence=row["evidence"],
        created_at=to_datetime(row["created_at"]),
        updated_at=to_datetime(row["updated_at"]),
    )


def to_document(row: Mapping[str, Any]) -> KnowledgeDocument:
    """A :class:`KnowledgeDocument` from a decoded row."""
    return KnowledgeDocument(
        id=row["id"],
        user_id=row["user_id"],
        namespace=row["namespace"],
        title=row["title"],
        source=row["source"],
        source_type=row["source_type"],
        content_hash=row["content_hash"],
        chunks=int(row["chunks"]),
        properties=dict(row["properties"]),
        created_at=to_datetime(row["created_at"]),
    )


def check_direction(direction: object) -> str:
    """``in`` / ``out`` / ``both``."""
    if direction not in ("in", "out", "both"):
        raise MemoryValidationError("direction must be 'in', 'out' or 'both'")
    return str(direction)


def chunked(items: Sequence[Any], size: int = 500) -> Iterable[Sequence[Any]]:
    """``items`` in slices of ``size``."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def valid_concepts(items: list[ConceptInput], warnings: list[str]) -> list[ConceptInput]:
    """The items that pass validation (an extractor's bad item must not sink the batch)."""
    out = []
    for item in items:
        try:
            prepare_batch("_", "custom", [item])
        except PraxMemoryError as exc:
            warnings.append(f"concept {item.name[:60]!r} dropped: {exc}")
            continue
        out.append(item)
    return out


def valid_relations(items: list[RelationInput], warnings: list[str]) -> list[RelationInput]:
    """The relations that pass validation (self-loops are dropped by the store)."""
    out = []
    for item in items:
        try:
            prepare_batch("_", "custom", [], [item])
        except PraxMemoryError as exc:
            warnings.append(f"relation {item.source[:40]!r}->{item.target[:40]!r} dropped: {exc}")
            continue
        out.append(item)
    return out
