"""The SQL of the knowledge operations in the SQLite graph database, one function per op.

Tables beside the memory graph's: ``knowledge_concepts`` (``UNIQUE(user_id, namespace, name)``),
``knowledge_documents``, ``knowledge_relations`` (``KNOWLEDGE_RELATES``),
``knowledge_extracted_from`` (``EXTRACTED_FROM``) and ``knowledge_entity_refs``
(``REFERENCES_ENTITY``, a foreign key to the memory graph's ``entities`` with
``ON DELETE CASCADE``, so pruning or deleting an entity drops its links). The memory graph's
queries never read these tables, so concepts cannot leak into memory recall.

Writes are ``INSERT … ON CONFLICT DO UPDATE`` (never ``INSERT OR REPLACE``, whose delete would
cascade to a concept's relations and links). Each function takes the graph store's public
plumbing (``transaction``, ``query``, ``connection``) and one op object; :func:`sql_op`
picks the function of an op.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar, cast

from langgraph_prax_memory.graph import Entity, SQLiteGraphStore
from langgraph_prax_memory.knowledge import _ops
from langgraph_prax_memory.knowledge._rows import (
    chunked,
    document_row,
    dump_json,
    load_json,
    merge_concepts,
    merge_relations,
    namespace_infos,
    to_concept,
    to_document,
    to_relation,
    write_result,
)
from langgraph_prax_memory.knowledge.models import (
    ConceptHit,
    KnowledgeConcept,
    KnowledgeDocument,
    KnowledgeNotFound,
    KnowledgeRelation,
    KnowledgeStats,
    NamespaceInfo,
    WriteResult,
)

__all__ = ["SCHEMA", "sql_op"]

T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS knowledge_concepts (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL,
    namespace     TEXT NOT NULL,
    name          TEXT NOT NULL,
    display_name  TEXT NOT NULL,
    description   TEXT NOT NULL DEFAULT '',
    kind          TEXT NOT NULL,
    importance    REAL NOT NULL,
    source        TEXT NOT NULL DEFAULT '',
    source_type   TEXT NOT NULL DEFAULT '',
    tags          TEXT NOT NULL DEFAULT '[]',
    properties    TEXT NOT NULL DEFAULT '{}',
    created_at    TEXT NOT NULL,
    created_at_ts REAL NOT NULL,
    updated_at    TEXT NOT NULL,
    updated_at_ts REAL NOT NULL,
    search_text   TEXT NOT NULL,
    UNIQUE (user_id, namespace, name)
);
CREATE INDEX IF NOT EXISTS knowledge_concepts_user_id ON knowledge_concepts (user_id, id);
CREATE TABLE IF NOT EXISTS knowledge_documents (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL,
    namespace     TEXT NOT NULL,
    title         TEXT NOT NULL,
    source        TEXT NOT NULL DEFAULT '',
    source_type   TEXT NOT NULL DEFAULT '',
    content_hash  TEXT NOT NULL,
    chunks        INTEGER NOT NULL DEFAULT 0,
    properties    TEXT NOT NULL DEFAULT '{}',
    created_at    TEXT NOT NULL,
    created_at_ts REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS knowledge_documents_user
    ON knowledge_documents (user_id, namespace, created_at_ts);
CREATE TABLE IF NOT EXISTS knowledge_relations (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL,
    namespace     TEXT NOT NULL,
    source_id     TEXT NOT NULL REFERENCES knowledge_concepts(id) ON DELETE CASCADE,
    target_id     TEXT NOT NULL REFERENCES knowledge_concepts(id) ON DELETE CASCADE,
    type          TEXT NOT NULL,
    weight        REAL NOT NULL,
    evidence      TEXT NOT NULL DEFAULT '',
    created_at    TEXT NOT NULL,
    created_at_ts REAL NOT NULL,
    updated_at    TEXT NOT NULL,
    updated_at_ts REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS knowledge_relations_source ON knowledge_relations (source_id, type);
CREATE INDEX IF NOT EXISTS knowledge_relations_target ON knowledge_relations (target_id, type);
CREATE INDEX IF NOT EXISTS knowledge_relations_user ON knowledge_relations (user_id, namespace);
CREATE TABLE IF NOT EXISTS knowledge_extracted_from (
    concept_id  TEXT NOT NULL REFERENCES knowledge_concepts(id) ON DELETE CASCADE,
    document_id TEXT NOT NULL REFERENCES knowledge_documents(id) ON DELETE CASCADE,
    user_id     TEXT NOT NULL,
    PRIMARY KEY (concept_id, document_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS knowledge_extracted_from_doc
    ON knowledge_extracted_from (document_id);
CREATE TABLE IF NOT EXISTS knowledge_entity_refs (
    concept_id TEXT NOT NULL REFERENCES knowledge_concepts(id) ON DELETE CASCADE,
    entity_id  TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (concept_id, entity_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS knowledge_entity_refs_entity ON knowledge_entity_refs (entity_id);
"""

_CONCEPT_COLS = (
    "c.id, c.user_id, c.namespace, c.name, c.display_name, c.description, c.kind, "
    "c.importance, c.source, c.source_type, c.tags, c.properties, c.created_at, "
    "c.created_at_ts, c.updated_at, c.updated_at_ts, c.search_text"
)
_REL_COLS = (
    "r.id, r.user_id, r.namespace, r.source_id, r.target_id, r.type, r.weight, r.evidence, "
    "r.created_at, r.created_at_ts, r.updated_at, r.updated_at_ts, s.name AS source, "
    "t.name AS target"
)
_REL_FROM = (
    "FROM knowledge_relations r JOIN knowledge_concepts s ON s.id = r.source_id "
    "JOIN knowledge_concepts t ON t.id = r.target_id"
)
_DOC_COLS = (
    "d.id, d.user_id, d.namespace, d.title, d.source, d.source_type, d.content_hash, "
    "d.chunks, d.properties, d.created_at, d.created_at_ts"
)
_UPSERT_CONCEPT = """
INSERT INTO knowledge_concepts
    (id, user_id, namespace, name, display_name, description, kind, importance, source,
     source_type, tags, properties, created_at, created_at_ts, updated_at, updated_at_ts,
     search_text)
VALUES (:id, :user_id, :namespace, :name, :display_name, :description, :kind, :importance,
        :source, :source_type, :tags, :properties, :created_at, :created_at_ts, :updated_at,
        :updated_at_ts, :search_text)
ON CONFLICT (id) DO UPDATE SET
    display_name = excluded.display_name, description = excluded.description,
    kind = excluded.kind, importance = excluded.importance, source = excluded.source,
    source_type = excluded.source_type, tags = excluded.tags, properties = excluded.properties,
    updated_at = excluded.updated_at, updated_at_ts = excluded.updated_at_ts,
    search_text = excluded.search_text
"""
_UPSERT_RELATION = """
INSERT INTO knowledge_relations
    (id, user_id, namespace, source_id, target_id, type, weight, evidence, created_at,
     created_at_ts, updated_at, updated_at_ts)
VALUES (:id, :user_id, :namespace, :source_id, :target_id, :type, :weight, :evidence,
        :created_at, :created_at_ts, :updated_at, :updated_at_ts)
ON CONFLICT (id) DO UPDATE SET
    weight = excluded.weight, evidence = excluded.evidence,
    updated_at = excluded.updated_at, updated_at_ts = excluded.updated_at_ts
"""
_INSERT_DOCUMENT = """
INSERT OR IGNORE INTO knowledge_documents
    (id, user_id, namespace, title, source, source_type, content_hash, chunks, properties,
     created_at, created_at_ts)
VALUES (:id, :user_id, :namespace, :title, :source, :source_type, :content_hash, :chunks,
        :properties, :created_at, :created_at_ts)
"""
_ENTITY_COLS = (
    "e.id, e.user_id, e.name, e.display_name, e.type, e.importance, e.mention_count, "
    "e.first_seen, e.last_seen, e.properties"
)


def _concept_row(row: sqlite3.Row) -> dict[str, Any]:
    out = dict(row)
    out["tags"] = json.loads(out["tags"])
    out["properties"] = load_json(out["properties"])
    return out


def _encode_concept(row: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(row)
    out["tags"] = json.dumps(list(row["tags"]), ensure_ascii=False)
    out["properties"] = dump_json(row["properties"])
    return out


def _doc(row: sqlite3.Row) -> KnowledgeDocument:
    out = dict(row)
    out["properties"] = load_json(out["properties"])
    return to_document(out)


def _rel(row: sqlite3.Row) -> KnowledgeRelation:
    return to_relation(dict(row), row["source"], row["target"])


def _entity(row: sqlite3.Row) -> Entity:
    return Entity(
        id=row["id"],
        user_id=row["user_id"],
        name=row["name"],
        display_name=row["display_name"],
        type=row["type"],
        importance=row["importance"],
        mention_count=row["mention_count"],
        first_seen=datetime.fromisoformat(row["first_seen"]),
        last_seen=datetime.fromisoformat(row["last_seen"]),
        properties=load_json(row["properties"]),
    )


def _concepts_by_id(
    read: Callable[[str, list[Any]], list[sqlite3.Row]], user_id: str, ids: list[str]
) -> dict[str, dict[str, Any]]:
    """The stored concept rows of ``ids`` (chunked under SQLite's variable limit)."""
    found: dict[str, dict[str, Any]] = {}
    for part in chunked(ids):
        marks = ",".join("?" * len(part))
        rows = read(
            f"SELECT {_CONCEPT_COLS} FROM knowledge_concepts c "
            f"WHERE c.user_id = ? AND c.id IN ({marks})",
            [user_id, *part],
        )
        found.update((r["id"], _concept_row(r)) for r in rows)
    return found


def _write(db: SQLiteGraphStore, op: _ops.WriteBatch) -> WriteResult:
    batch = op.batch
    with db.transaction("knowledge write_batch") as conn:

        def read(sql: str, params: list[Any]) -> list[sqlite3.Row]:
            return conn.execute(sql, params).fetchall()

        existing = _concepts_by_id(read, batch.user_id, batch.concept_ids)
        written, final = merge_concepts(batch, existing)
        conn.executemany(_UPSERT_CONCEPT, [_encode_concept(r) for r in written])
        rel_existing: dict[str, dict[str, Any]] = {}
        for ids in chunked([r.id for r in batch.relations]):
            marks = ",".join("?" * len(ids))
            rows = read(
                f"SELECT r.* FROM knowledge_relations r WHERE r.user_id = ? AND r.id IN ({marks})",
                [batch.user_id, *ids],
            )
            rel_existing.update((r["id"], dict(r)) for r in rows)
        rel_rows = merge_relations(batch, rel_existing)
        conn.executemany(_UPSERT_RELATION, rel_rows)
        doc = None
        drow = document_row(batch)
        if drow is not None:
            conn.execute(_INSERT_DOCUMENT, {**drow, "properties": dump_json(drow["properties"])})
            conn.executemany(
                "INSERT OR IGNORE INTO knowledge_extracted_from (concept_id, document_id, "
                "user_id) VALUES (?, ?, ?)",
                [(c.id, drow["id"], batch.user_id) for c in batch.concepts if not c.placeholder],
            )
            stored = conn.execute(
                f"SELECT {_DOC_COLS} FROM knowledge_documents d WHERE d.id = ?", (drow["id"],)
            ).fetchone()
            doc = _doc(stored)
    return write_result(batch, final, rel_rows, doc)


def _get_concepts(db: SQLiteGraphStore, op: _ops.GetConcepts) -> list[KnowledgeConcept]:
    found = _concepts_by_id(db.query, op.user_id, list(op.ids))
    return [to_concept(found[i]) for i in op.ids if i in found]


def _list_concepts(db: SQLiteGraphStore, op: _ops.ListConcepts) -> list[KnowledgeConcept]:
    rows = db.query(
        f"SELECT {_CONCEPT_COLS} FROM knowledge_concepts c WHERE c.user_id = :u "
        "AND (:ns IS NULL OR c.namespace = :ns) AND (:after IS NULL OR c.id > :after) "
        "ORDER BY c.id LIMIT :limit",
        {"u": op.user_id, "ns": op.namespace, "after": op.after_id, "limit": op.limit},
    )
    return [to_concept(_concept_row(r)) for r in rows]


def _get_relations(db: SQLiteGraphStore, op: _ops.GetRelations) -> list[KnowledgeRelation]:
    rows = db.query(
        f"SELECT {_REL_COLS} {_REL_FROM} WHERE r.user_id = :u AND r.namespace = :ns "
        "AND (:type IS NULL OR r.type = :type) AND (:cid IS NULL "
        "OR (:dir IN ('out', 'both') AND r.source_id = :cid) "
        "OR (:dir IN ('in', 'both') AND r.target_id = :cid)) "
        "ORDER BY r.weight DESC, s.name, t.name, r.type LIMIT :limit",
        {
            "u": op.user_id,
            "ns": op.namespace,
            "type": op.relation_type,
            "cid": op.concept_id,
            "dir": op.direction,
            "limit": op.limit,
        },
    )
    return [_rel(r) for r in rows]


def _keyword(db: SQLiteGraphStore, op: _ops.KeywordSearch) -> list[ConceptHit]:
    params: dict[str, Any] = {"u": op.user_id, "ns": op.namespace, "limit": op.limit}
    matched: list[str] = []
    named: list[str] = []
    for i, variants in enumerate(op.terms):
        text_any, name_any = [], []
        for j, variant in enumerate(variants):
            key = f"t{i}_{j}"
            params[key] = variant
            text_any.append(f"instr(c.search_text, :{key}) > 0")
            name_any.append(f"instr(c.name, :{key}) > 0")
        matched.append(f"({' OR '.join(text_any)})")
        named.append(f"({' OR '.join(name_any)})")
    params["exact"] = op.exact
    rows = db.query(
        f"SELECT * FROM (SELECT {_CONCEPT_COLS}, ({' + '.join(matched)}) AS matched, "
        f"({' + '.join(named)}) AS name_matched, (c.name = :exact OR "
        "substr(c.name, -length(:exact) - 1) = '.' || :exact) AS exact "
        "FROM knowledge_concepts c "
        "WHERE c.user_id = :u AND (:ns IS NULL OR c.namespace = :ns)) "
        "WHERE matched > 0 "
        "ORDER BY matched DESC, exact DESC, name_matched DESC, importance DESC, name "
        "LIMIT :limit",
        params,
    )
    return [
        ConceptHit(
            concept=to_concept(_concept_row(r)),
            score=float(r["matched"]),
            matched_terms=int(r["matched"]),
            ranks={"keyword": rank},
        )
        for rank, r in enumerate(rows, start=1)
    ]


def _get_document(db: SQLiteGraphStore, op: _ops.GetDocument) -> KnowledgeDocument | None:
    rows = db.query(
        f"SELECT {_DOC_COLS} FROM knowledge_documents d WHERE d.id = ? AND d.user_id = ?",
        (op.document_id, op.user_id),
    )
    return _doc(rows[0]) if rows else None


def _list_documents(db: SQLiteGraphStore, op: _ops.ListDocuments) -> list[KnowledgeDocument]:
    rows = db.query(
        f"SELECT {_DOC_COLS} FROM knowledge_documents d WHERE d.user_id = :u "
        "AND (:ns IS NULL OR d.namespace = :ns) ORDER BY d.created_at_ts DESC, d.id "
        "LIMIT :limit",
        {"u": op.user_id, "ns": op.namespace, "limit": op.limit},
    )
    return [_doc(r) for r in rows]


def _concept_documents(db: SQLiteGraphStore, op: _ops.ConceptDocuments) -> list[KnowledgeDocument]:
    rows = db.query(
        f"SELECT {_DOC_COLS} FROM knowledge_extracted_from x "
        "JOIN knowledge_documents d ON d.id = x.document_id "
        "WHERE x.concept_id = ? AND x.user_id = ? AND d.user_id = ? "
        "ORDER BY d.created_at_ts, d.id",
        (op.concept_id, op.user_id, op.user_id),
    )
    return [_doc(r) for r in rows]


def _namespaces(db: SQLiteGraphStore, op: _ops.Namespaces) -> list[NamespaceInfo]:
    counts: dict[str, dict[str, int]] = {}
    for table, field in (
        ("knowledge_concepts", "concepts"),
        ("knowledge_relations", "relations"),
        ("knowledge_documents", "documents"),
    ):
        rows = db.query(
            f"SELECT namespace, COUNT(*) AS n FROM {table} WHERE user_id = ? GROUP BY namespace",
            (op.user_id,),
        )
        for r in rows:
            counts.setdefault(r["namespace"], {})[field] = int(r["n"])
    return namespace_infos(counts)


def _counts(conn: sqlite3.Connection, user_id: str, namespace: str | None) -> KnowledgeStats:
    params = (user_id, namespace, namespace)
    scope = "user_id = ? AND (? IS NULL OR namespace = ?)"

    def one(table: str) -> int:
        row = conn.execute(f"SELECT COUNT(*) FROM {table} WHERE {scope}", params).fetchone()
        return int(row[0])

    links = conn.execute(
        "SELECT COUNT(*) FROM knowledge_entity_refs x JOIN knowledge_concepts c "
        "ON c.id = x.concept_id WHERE c.user_id = ? AND (? IS NULL OR c.namespace = ?)",
        params,
    ).fetchone()
    return KnowledgeStats(
        concepts=one("knowledge_concepts"),
        relations=one("knowledge_relations"),
        documents=one("knowledge_documents"),
        entity_links=int(links[0]),
    )


def _stats(db: SQLiteGraphStore, op: _ops.Stats) -> KnowledgeStats:
    with db.connection() as conn:
        return _counts(conn, op.user_id, None)


def _delete(db: SQLiteGraphStore, op: _ops.Delete) -> KnowledgeStats:
    uid, ns = op.user_id, op.namespace
    with db.transaction(f"knowledge {op.what}") as conn:
        counts = _counts(conn, uid, ns)
        if ns is None:
            for table in (
                "knowledge_entity_refs",
                "knowledge_extracted_from",
                "knowledge_relations",
                "knowledge_concepts",
                "knowledge_documents",
            ):
                conn.execute(f"DELETE FROM {table} WHERE user_id = ?", (uid,))
        else:
            for table in ("knowledge_relations", "knowledge_concepts", "knowledge_documents"):
                conn.execute(f"DELETE FROM {table} WHERE user_id = ? AND namespace = ?", (uid, ns))
    return counts


def _delete_items(db: SQLiteGraphStore, op: _ops.DeleteItems) -> KnowledgeStats:
    counts = {"concepts": 0, "relations": 0, "documents": 0, "entity_links": 0}
    with db.transaction("knowledge delete_items") as conn:
        for table, key, ids in (
            ("knowledge_relations", "relations", op.relations),
            ("knowledge_concepts", "concepts", op.concepts),
            ("knowledge_documents", "documents", op.documents),
        ):
            for chunk in chunked(ids):
                marks = ",".join("?" * len(chunk))
                scope = f"user_id = ? AND namespace = ? AND id IN ({marks})"
                if key == "concepts":
                    row = conn.execute(
                        "SELECT COUNT(*) FROM knowledge_entity_refs WHERE user_id = ? AND "
                        f"concept_id IN ({marks})",
                        (op.user_id, *chunk),
                    ).fetchone()
                    counts["entity_links"] += int(row[0])
                cur = conn.execute(
                    f"DELETE FROM {table} WHERE {scope}", (op.user_id, op.namespace, *chunk)
                )
                counts[key] += cur.rowcount
    return KnowledgeStats(**counts)


def _connect(db: SQLiteGraphStore, op: _ops.ConnectEntity) -> bool:
    with db.transaction("knowledge connect_entity") as conn:
        if not conn.execute(
            "SELECT 1 FROM knowledge_concepts WHERE id = ? AND user_id = ?",
            (op.concept_id, op.user_id),
        ).fetchone():
            raise KnowledgeNotFound(f"no concept {op.label}")
        if not conn.execute(
            "SELECT 1 FROM entities WHERE id = ? AND user_id = ?", (op.entity_id, op.user_id)
        ).fetchone():
            raise KnowledgeNotFound(f"no memory entity with id {op.entity_id!r}")
        cur = conn.execute(
            "INSERT OR IGNORE INTO knowledge_entity_refs (concept_id, entity_id, user_id, "
            "created_at) VALUES (?, ?, ?, ?)",
            (op.concept_id, op.entity_id, op.user_id, op.when),
        )
        return cur.rowcount == 1


def _disconnect(db: SQLiteGraphStore, op: _ops.DisconnectEntity) -> bool:
    with db.transaction("knowledge disconnect_entity") as conn:
        cur = conn.execute(
            "DELETE FROM knowledge_entity_refs WHERE concept_id = ? AND entity_id = ? "
            "AND user_id = ?",
            (op.concept_id, op.entity_id, op.user_id),
        )
        return cur.rowcount > 0


def _referenced(db: SQLiteGraphStore, op: _ops.ReferencedEntities) -> list[Entity]:
    rows = db.query(
        f"SELECT {_ENTITY_COLS} FROM knowledge_entity_refs x "
        "JOIN entities e ON e.id = x.entity_id "
        "WHERE x.concept_id = ? AND x.user_id = ? AND e.user_id = ? ORDER BY e.name",
        (op.concept_id, op.user_id, op.user_id),
    )
    return [_entity(r) for r in rows]


def _for_entities(db: SQLiteGraphStore, op: _ops.ConceptsForEntities) -> list[KnowledgeConcept]:
    out: dict[str, KnowledgeConcept] = {}
    for part in chunked(list(op.entity_ids)):
        marks = ",".join("?" * len(part))
        rows = db.query(
            f"SELECT DISTINCT {_CONCEPT_COLS} FROM knowledge_entity_refs x "
            "JOIN knowledge_concepts c ON c.id = x.concept_id "
            f"WHERE x.user_id = ? AND c.user_id = ? AND x.entity_id IN ({marks}) "
            "AND (? IS NULL OR c.namespace = ?) ORDER BY c.importance DESC, c.name",
            [op.user_id, op.user_id, *part, op.namespace, op.namespace],
        )
        for r in rows:
            out.setdefault(r["id"], to_concept(_concept_row(r)))
    return sorted(out.values(), key=lambda c: (-c.importance, c.name))


_RUNNERS: dict[type[Any], Callable[[SQLiteGraphStore, Any], Any]] = {
    _ops.WriteBatch: _write,
    _ops.GetConcepts: _get_concepts,
    _ops.ListConcepts: _list_concepts,
    _ops.GetRelations: _get_relations,
    _ops.KeywordSearch: _keyword,
    _ops.GetDocument: _get_document,
    _ops.ListDocuments: _list_documents,
    _ops.ConceptDocuments: _concept_documents,
    _ops.Namespaces: _namespaces,
    _ops.Stats: _stats,
    _ops.Delete: _delete,
    _ops.DeleteItems: _delete_items,
    _ops.ConnectEntity: _connect,
    _ops.DisconnectEntity: _disconnect,
    _ops.ReferencedEntities: _referenced,
    _ops.ConceptsForEntities: _for_entities,
}


def sql_op(db: SQLiteGraphStore, op: _ops.KnowledgeOp[T]) -> T:
    """Run ``op`` on the graph store's database: a write op in one ``BEGIN IMMEDIATE``."""
    return cast("T", _RUNNERS[type(op)](db, op))
