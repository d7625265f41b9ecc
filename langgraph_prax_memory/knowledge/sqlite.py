"""The knowledge namespace in the SQLite graph database (same file, same connection).

Writes are ``INSERT … ON CONFLICT DO UPDATE`` (never ``INSERT OR REPLACE``, whose delete would
cascade to a concept's relations and links).

Tables beside the memory graph's: ``knowledge_concepts`` (``UNIQUE(user_id, namespace, name)``),
``knowledge_documents``, ``knowledge_relations`` (``KNOWLEDGE_RELATES``),
``knowledge_extracted_from`` (``EXTRACTED_FROM``) and ``knowledge_entity_refs``
(``REFERENCES_ENTITY``, a foreign key to the memory graph's ``entities`` with
``ON DELETE CASCADE``, so pruning or deleting an entity drops its links). The memory graph's
queries never read these tables, so concepts cannot leak into memory recall.

The store shares the :class:`~langgraph_prax_memory.graph.SQLiteGraphStore`'s connection and
lock (one SQLite writer per file) and uses its transaction helper: every batch is one
``BEGIN IMMEDIATE`` transaction, rolled back on any error.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import Any

from langgraph_prax_memory._validation import check_limit, check_user_id
from langgraph_prax_memory.errors import BackendUnavailable
from langgraph_prax_memory.graph import Entity, Moment, SQLiteGraphStore
from langgraph_prax_memory.knowledge._batch import BatchWriter
from langgraph_prax_memory.knowledge._rows import (
    PreparedBatch,
    check_direction,
    chunked,
    document_row,
    dump_json,
    load_json,
    merge_concept_row,
    merge_relation_row,
    to_concept,
    to_document,
    to_relation,
)
from langgraph_prax_memory.knowledge._terms import exact_key, search_terms
from langgraph_prax_memory.knowledge.models import (
    ConceptHit,
    ConceptInput,
    DocumentInput,
    KnowledgeConcept,
    KnowledgeDocument,
    KnowledgeNotFound,
    KnowledgeRelation,
    KnowledgeStats,
    NamespaceInfo,
    RelationInput,
    WriteResult,
    check_namespace,
    check_relation_type,
    concept_id,
)

__all__ = ["AsyncSQLiteKnowledgeStore", "SQLiteKnowledgeStore"]

_SCHEMA = """
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


class SQLiteKnowledgeStore(BatchWriter):
    """The concept graph in the memory graph's SQLite database.

    Args:
        graph: The :class:`~langgraph_prax_memory.graph.SQLiteGraphStore` whose database file
            and connection to share (``REFERENCES_ENTITY`` needs its ``entities`` table).

    Example:
        >>> from langgraph_prax_memory.graph import SQLiteGraphStore
        >>> store = SQLiteKnowledgeStore(SQLiteGraphStore(":memory:"))
        >>> c = store.merge_concept("u1", "papers", "Attention", description="Weighs tokens")
        >>> (c.name, c.display_name, c.namespace)
        ('attention', 'Attention', 'papers')
        >>> [h.concept.display_name for h in store.keyword_search("u1", "attention")]
        ['Attention']
    """

    def __init__(self, graph: SQLiteGraphStore) -> None:
        if not isinstance(graph, SQLiteGraphStore):
            raise TypeError("SQLiteKnowledgeStore needs the SQLiteGraphStore it shares a file with")
        self.graph = graph
        self.setup()

    # ------------------------------------------------------------------ plumbing
    # The graph store's transaction and read helpers: one writer per SQLite file.

    def _tx(self, what: str) -> AbstractContextManager[sqlite3.Connection]:
        return self.graph.transaction(f"knowledge {what}")

    def _read(self, sql: str, params: Mapping[str, Any] | Sequence[Any]) -> list[sqlite3.Row]:
        return self.graph.query(sql, params)

    def setup(self) -> None:
        """Create the knowledge tables and indexes (idempotent)."""
        with self.graph.connection() as conn:
            try:
                conn.executescript(_SCHEMA)
            except sqlite3.Error as exc:
                raise BackendUnavailable(
                    f"cannot set up the SQLite knowledge tables: {exc}"
                ) from exc

    def close(self) -> None:
        """Nothing to release: the connection belongs to the graph store."""

    # ------------------------------------------------------------------ writes

    def _write_prepared(self, batch: PreparedBatch) -> WriteResult:
        with self._tx("write_batch") as conn:
            existing: dict[str, dict[str, Any]] = {}
            for ids in chunked(batch.concept_ids):
                marks = ",".join("?" * len(ids))
                rows = conn.execute(
                    f"SELECT {_CONCEPT_COLS} FROM knowledge_concepts c "
                    f"WHERE c.user_id = ? AND c.id IN ({marks})",
                    [batch.user_id, *ids],
                ).fetchall()
                existing.update((r["id"], _concept_row(r)) for r in rows)
            written: list[dict[str, Any]] = []
            final: dict[str, dict[str, Any]] = {}
            for c in batch.concepts:
                row = merge_concept_row(existing.get(c.id), c, batch)
                if row is not None:
                    written.append(row)
                final[c.id] = row if row is not None else existing[c.id]
            conn.executemany(_UPSERT_CONCEPT, [_encode_concept(r) for r in written])
            rel_existing: dict[str, dict[str, Any]] = {}
            rel_ids = [r.id for r in batch.relations]
            for ids in chunked(rel_ids):
                marks = ",".join("?" * len(ids))
                rows = conn.execute(
                    "SELECT r.* FROM knowledge_relations r "
                    f"WHERE r.user_id = ? AND r.id IN ({marks})",
                    [batch.user_id, *ids],
                ).fetchall()
                rel_existing.update((r["id"], dict(r)) for r in rows)
            rel_rows = [
                merge_relation_row(rel_existing.get(r.id), r, batch) for r in batch.relations
            ]
            conn.executemany(_UPSERT_RELATION, rel_rows)
            doc = None
            drow = document_row(batch)
            if drow is not None:
                conn.execute(
                    _INSERT_DOCUMENT, {**drow, "properties": dump_json(drow["properties"])}
                )
                conn.executemany(
                    "INSERT OR IGNORE INTO knowledge_extracted_from (concept_id, document_id, "
                    "user_id) VALUES (?, ?, ?)",
                    [
                        (c.id, drow["id"], batch.user_id)
                        for c in batch.concepts
                        if not c.placeholder
                    ],
                )
                stored = conn.execute(
                    f"SELECT {_DOC_COLS} FROM knowledge_documents d WHERE d.id = ?", (drow["id"],)
                ).fetchone()
                doc = _doc(stored)
        names = {cid: row["name"] for cid, row in final.items()}
        return WriteResult(
            concepts=[to_concept(final[c.id]) for c in batch.concepts if not c.placeholder],
            relations=[
                to_relation(r, names[r["source_id"]], names[r["target_id"]]) for r in rel_rows
            ],
            document=doc,
        )

    # ------------------------------------------------------------------ reads

    def get_concept(self, user_id: str, namespace: str, name: str) -> KnowledgeConcept | None:
        """The concept ``name`` of ``namespace``. See ``KnowledgeStore.get_concept``."""
        cid = concept_id(user_id, namespace, name)
        rows = self._read(
            f"SELECT {_CONCEPT_COLS} FROM knowledge_concepts c WHERE c.id = ? AND c.user_id = ?",
            (cid, user_id),
        )
        return to_concept(_concept_row(rows[0])) if rows else None

    def get_concepts(self, user_id: str, ids: Sequence[str]) -> list[KnowledgeConcept]:
        """Concepts by id, in order. See ``KnowledgeStore.get_concepts``."""
        check_user_id(user_id)
        found: dict[str, KnowledgeConcept] = {}
        for part in chunked(list(dict.fromkeys(ids))):
            marks = ",".join("?" * len(part))
            rows = self._read(
                f"SELECT {_CONCEPT_COLS} FROM knowledge_concepts c "
                f"WHERE c.user_id = ? AND c.id IN ({marks})",
                [user_id, *part],
            )
            found.update((r["id"], to_concept(_concept_row(r))) for r in rows)
        return [found[i] for i in dict.fromkeys(ids) if i in found]

    def list_concepts(
        self,
        user_id: str,
        namespace: str | None = None,
        *,
        limit: int = 1000,
        after_id: str | None = None,
    ) -> list[KnowledgeConcept]:
        """A page of concepts by id. See ``KnowledgeStore.list_concepts``."""
        check_user_id(user_id)
        limit = check_limit(limit, maximum=100_000)
        if namespace is not None:
            check_namespace(namespace)
        rows = self._read(
            f"SELECT {_CONCEPT_COLS} FROM knowledge_concepts c WHERE c.user_id = :u "
            "AND (:ns IS NULL OR c.namespace = :ns) AND (:after IS NULL OR c.id > :after) "
            "ORDER BY c.id LIMIT :limit",
            {"u": user_id, "ns": namespace, "after": after_id, "limit": limit},
        )
        return [to_concept(_concept_row(r)) for r in rows]

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
        """Relations of a namespace or one concept. See ``KnowledgeStore.get_relations``."""
        check_user_id(user_id)
        check_namespace(namespace)
        check_direction(direction)
        limit = check_limit(limit, maximum=100_000)
        rtype = None if relation_type is None else check_relation_type(relation_type)
        cid = None if name is None else concept_id(user_id, namespace, name)
        rows = self._read(
            f"SELECT {_REL_COLS} {_REL_FROM} WHERE r.user_id = :u AND r.namespace = :ns "
            "AND (:type IS NULL OR r.type = :type) AND (:cid IS NULL "
            "OR (:dir IN ('out', 'both') AND r.source_id = :cid) "
            "OR (:dir IN ('in', 'both') AND r.target_id = :cid)) "
            "ORDER BY r.weight DESC, s.name, t.name, r.type LIMIT :limit",
            {
                "u": user_id,
                "ns": namespace,
                "type": rtype,
                "cid": cid,
                "dir": direction,
                "limit": limit,
            },
        )
        return [_rel(r) for r in rows]

    def keyword_search(
        self, user_id: str, query: str, *, namespace: str | None = None, limit: int = 10
    ) -> list[ConceptHit]:
        """Multi-variant substring search. See ``KnowledgeStore.keyword_search``."""
        check_user_id(user_id)
        limit = check_limit(limit)
        if namespace is not None:
            check_namespace(namespace)
        terms = search_terms(query)
        if not terms:
            return []
        params: dict[str, Any] = {"u": user_id, "ns": namespace, "limit": limit}
        matched: list[str] = []
        named: list[str] = []
        for i, variants in enumerate(terms):
            text_any, name_any = [], []
            for j, variant in enumerate(variants):
                key = f"t{i}_{j}"
                params[key] = variant
                text_any.append(f"instr(c.search_text, :{key}) > 0")
                name_any.append(f"instr(c.name, :{key}) > 0")
            matched.append(f"({' OR '.join(text_any)})")
            named.append(f"({' OR '.join(name_any)})")
        params["exact"] = exact_key(query)
        rows = self._read(
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

    def get_document(self, user_id: str, document_id: str) -> KnowledgeDocument | None:
        """A document by id. See ``KnowledgeStore.get_document``."""
        check_user_id(user_id)
        rows = self._read(
            f"SELECT {_DOC_COLS} FROM knowledge_documents d WHERE d.id = ? AND d.user_id = ?",
            (document_id, user_id),
        )
        return _doc(rows[0]) if rows else None

    def list_documents(
        self, user_id: str, namespace: str | None = None, *, limit: int = 1000
    ) -> list[KnowledgeDocument]:
        """Documents, newest first. See ``KnowledgeStore.list_documents``."""
        check_user_id(user_id)
        limit = check_limit(limit, maximum=100_000)
        if namespace is not None:
            check_namespace(namespace)
        rows = self._read(
            f"SELECT {_DOC_COLS} FROM knowledge_documents d WHERE d.user_id = :u "
            "AND (:ns IS NULL OR d.namespace = :ns) ORDER BY d.created_at_ts DESC, d.id "
            "LIMIT :limit",
            {"u": user_id, "ns": namespace, "limit": limit},
        )
        return [_doc(r) for r in rows]

    def concept_documents(self, user_id: str, concept_id: str) -> list[KnowledgeDocument]:
        """Provenance of a concept. See ``KnowledgeStore.concept_documents``."""
        check_user_id(user_id)
        rows = self._read(
            f"SELECT {_DOC_COLS} FROM knowledge_extracted_from x "
            "JOIN knowledge_documents d ON d.id = x.document_id "
            "WHERE x.concept_id = ? AND x.user_id = ? AND d.user_id = ? "
            "ORDER BY d.created_at_ts, d.id",
            (concept_id, user_id, user_id),
        )
        return [_doc(r) for r in rows]

    def namespaces(self, user_id: str) -> list[NamespaceInfo]:
        """Namespaces with counts. See ``KnowledgeStore.namespaces``."""
        check_user_id(user_id)
        counts: dict[str, dict[str, int]] = {}
        for table, field in (
            ("knowledge_concepts", "concepts"),
            ("knowledge_relations", "relations"),
            ("knowledge_documents", "documents"),
        ):
            rows = self._read(
                f"SELECT namespace, COUNT(*) AS n FROM {table} WHERE user_id = ? "
                "GROUP BY namespace",
                (user_id,),
            )
            for r in rows:
                counts.setdefault(r["namespace"], {})[field] = int(r["n"])
        return [
            NamespaceInfo(
                namespace=ns,
                concepts=c.get("concepts", 0),
                relations=c.get("relations", 0),
                documents=c.get("documents", 0),
            )
            for ns, c in sorted(counts.items())
        ]

    # ------------------------------------------------------------------ deletes

    @staticmethod
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

    def delete_namespace(self, user_id: str, namespace: str) -> KnowledgeStats:
        """Remove one namespace. See ``KnowledgeStore.delete_namespace``."""
        check_user_id(user_id)
        check_namespace(namespace)
        where = "user_id = ? AND namespace = ?"
        params = (user_id, namespace)
        with self._tx("delete_namespace") as conn:
            counts = self._counts(conn, user_id, namespace)
            conn.execute(f"DELETE FROM knowledge_relations WHERE {where}", params)
            conn.execute(f"DELETE FROM knowledge_concepts WHERE {where}", params)
            conn.execute(f"DELETE FROM knowledge_documents WHERE {where}", params)
        return counts

    def delete_items(
        self,
        user_id: str,
        namespace: str,
        *,
        concepts: Sequence[str] = (),
        relations: Sequence[str] = (),
        documents: Sequence[str] = (),
    ) -> KnowledgeStats:
        """Remove items by id. See ``KnowledgeStore.delete_items``."""
        check_user_id(user_id)
        check_namespace(namespace)
        counts = {"concepts": 0, "relations": 0, "documents": 0, "entity_links": 0}
        if not (concepts or relations or documents):
            return KnowledgeStats()
        with self._tx("delete_items") as conn:
            for table, key, ids in (
                ("knowledge_relations", "relations", relations),
                ("knowledge_concepts", "concepts", concepts),
                ("knowledge_documents", "documents", documents),
            ):
                unique = sorted(set(ids))
                for start in range(0, len(unique), 500):
                    chunk = unique[start : start + 500]
                    marks = ",".join("?" * len(chunk))
                    scope = f"user_id = ? AND namespace = ? AND id IN ({marks})"
                    if key == "concepts":
                        row = conn.execute(
                            "SELECT COUNT(*) FROM knowledge_entity_refs WHERE user_id = ? AND "
                            f"concept_id IN ({marks})",
                            (user_id, *chunk),
                        ).fetchone()
                        counts["entity_links"] += int(row[0])
                    cur = conn.execute(
                        f"DELETE FROM {table} WHERE {scope}", (user_id, namespace, *chunk)
                    )
                    counts[key] += cur.rowcount
        return KnowledgeStats(**counts)

    def delete_user(self, user_id: str) -> KnowledgeStats:
        """Remove the user's knowledge graph. See ``KnowledgeStore.delete_user``."""
        check_user_id(user_id)
        with self._tx("delete_user") as conn:
            counts = self._counts(conn, user_id, None)
            conn.execute("DELETE FROM knowledge_entity_refs WHERE user_id = ?", (user_id,))
            conn.execute("DELETE FROM knowledge_extracted_from WHERE user_id = ?", (user_id,))
            conn.execute("DELETE FROM knowledge_relations WHERE user_id = ?", (user_id,))
            conn.execute("DELETE FROM knowledge_concepts WHERE user_id = ?", (user_id,))
            conn.execute("DELETE FROM knowledge_documents WHERE user_id = ?", (user_id,))
        return counts

    def stats(self, user_id: str) -> KnowledgeStats:
        """Counts. See ``KnowledgeStore.stats``."""
        check_user_id(user_id)
        with self.graph.connection() as conn:
            return self._counts(conn, user_id, None)

    # ------------------------------------------------------------------ REFERENCES_ENTITY

    def connect_entity(
        self,
        user_id: str,
        namespace: str,
        name: str,
        entity_id: str,
        *,
        now: datetime | None = None,
    ) -> bool:
        """Link a concept to a memory entity. See ``KnowledgeStore.connect_entity``."""
        cid = concept_id(user_id, namespace, name)
        moment = Moment.of(now)
        with self._tx("connect_entity") as conn:
            if not conn.execute(
                "SELECT 1 FROM knowledge_concepts WHERE id = ? AND user_id = ?", (cid, user_id)
            ).fetchone():
                raise KnowledgeNotFound(f"no concept {name!r} in namespace {namespace!r}")
            if not conn.execute(
                "SELECT 1 FROM entities WHERE id = ? AND user_id = ?", (entity_id, user_id)
            ).fetchone():
                raise KnowledgeNotFound(f"no memory entity with id {entity_id!r}")
            cur = conn.execute(
                "INSERT OR IGNORE INTO knowledge_entity_refs (concept_id, entity_id, user_id, "
                "created_at) VALUES (?, ?, ?, ?)",
                (cid, entity_id, user_id, moment.iso),
            )
            return cur.rowcount == 1

    def disconnect_entity(self, user_id: str, namespace: str, name: str, entity_id: str) -> bool:
        """Remove a link. See ``KnowledgeStore.disconnect_entity``."""
        cid = concept_id(user_id, namespace, name)
        with self._tx("disconnect_entity") as conn:
            cur = conn.execute(
                "DELETE FROM knowledge_entity_refs WHERE concept_id = ? AND entity_id = ? "
                "AND user_id = ?",
                (cid, entity_id, user_id),
            )
            return cur.rowcount > 0

    def referenced_entities(self, user_id: str, namespace: str, name: str) -> list[Entity]:
        """Entities a concept references. See ``KnowledgeStore.referenced_entities``."""
        cid = concept_id(user_id, namespace, name)
        rows = self._read(
            f"SELECT {_ENTITY_COLS} FROM knowledge_entity_refs x "
            "JOIN entities e ON e.id = x.entity_id "
            "WHERE x.concept_id = ? AND x.user_id = ? AND e.user_id = ? ORDER BY e.name",
            (cid, user_id, user_id),
        )
        return [_entity(r) for r in rows]

    def concepts_for_entities(
        self, user_id: str, entity_ids: Sequence[str], *, namespace: str | None = None
    ) -> list[KnowledgeConcept]:
        """The cross-namespace join. See ``KnowledgeStore.concepts_for_entities``."""
        check_user_id(user_id)
        if namespace is not None:
            check_namespace(namespace)
        ids = list(dict.fromkeys(entity_ids))
        out: dict[str, KnowledgeConcept] = {}
        for part in chunked(ids):
            marks = ",".join("?" * len(part))
            rows = self._read(
                f"SELECT DISTINCT {_CONCEPT_COLS} FROM knowledge_entity_refs x "
                "JOIN knowledge_concepts c ON c.id = x.concept_id "
                f"WHERE x.user_id = ? AND c.user_id = ? AND x.entity_id IN ({marks}) "
                "AND (? IS NULL OR c.namespace = ?) ORDER BY c.importance DESC, c.name",
                [user_id, user_id, *part, namespace, namespace],
            )
            for r in rows:
                out.setdefault(r["id"], to_concept(_concept_row(r)))
        return sorted(out.values(), key=lambda c: (-c.importance, c.name))


class AsyncSQLiteKnowledgeStore:
    """The async face of :class:`SQLiteKnowledgeStore` (same method names, coroutines).

    ``sqlite3`` has no async API, so each call runs the sync store in a worker thread, one at
    a time behind an :class:`asyncio.Lock` (SQLite serialises writers anyway).

    Example:
        >>> import asyncio
        >>> from langgraph_prax_memory.graph import SQLiteGraphStore
        >>> store = AsyncSQLiteKnowledgeStore(SQLiteKnowledgeStore(SQLiteGraphStore(":memory:")))
        >>> c = asyncio.run(store.merge_concept("u1", "docs", "LangGraph"))
        >>> c.name
        'langgraph'
    """

    def __init__(self, store: SQLiteKnowledgeStore | SQLiteGraphStore | str | Path) -> None:
        if isinstance(store, SQLiteKnowledgeStore):
            self.sync_store = store
        elif isinstance(store, SQLiteGraphStore):
            self.sync_store = SQLiteKnowledgeStore(store)
        else:
            self.sync_store = SQLiteKnowledgeStore(SQLiteGraphStore(store))
        self._lock = asyncio.Lock()

    async def _run(self, name: str, *args: Any, **kwargs: Any) -> Any:
        async with self._lock:
            return await asyncio.to_thread(getattr(self.sync_store, name), *args, **kwargs)

    async def setup(self) -> None:
        """See :meth:`SQLiteKnowledgeStore.setup`."""
        await self._run("setup")

    async def close(self) -> None:
        """See :meth:`SQLiteKnowledgeStore.close`."""
        await self._run("close")

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
        """See :meth:`SQLiteKnowledgeStore.write_batch`."""
        result: WriteResult = await self._run(
            "write_batch",
            user_id,
            namespace,
            list(concepts),
            list(relations),
            document=document,
            now=now,
        )
        return result

    async def merge_concept(
        self, user_id: str, namespace: str, name: str, **kwargs: Any
    ) -> KnowledgeConcept:
        """See :meth:`SQLiteKnowledgeStore.merge_concept`."""
        result: KnowledgeConcept = await self._run(
            "merge_concept", user_id, namespace, name, **kwargs
        )
        return result

    async def add_relation(
        self,
        user_id: str,
        namespace: str,
        source: str,
        target: str,
        relation_type: str = "related_to",
        **kwargs: Any,
    ) -> KnowledgeRelation:
        """See :meth:`SQLiteKnowledgeStore.add_relation`."""
        result: KnowledgeRelation = await self._run(
            "add_relation", user_id, namespace, source, target, relation_type, **kwargs
        )
        return result

    async def get_concept(self, user_id: str, namespace: str, name: str) -> KnowledgeConcept | None:
        """See :meth:`SQLiteKnowledgeStore.get_concept`."""
        result: KnowledgeConcept | None = await self._run("get_concept", user_id, namespace, name)
        return result

    async def get_concepts(self, user_id: str, ids: Sequence[str]) -> list[KnowledgeConcept]:
        """See :meth:`SQLiteKnowledgeStore.get_concepts`."""
        return list(await self._run("get_concepts", user_id, ids))

    async def list_concepts(
        self, user_id: str, namespace: str | None = None, **kwargs: Any
    ) -> list[KnowledgeConcept]:
        """See :meth:`SQLiteKnowledgeStore.list_concepts`."""
        return list(await self._run("list_concepts", user_id, namespace, **kwargs))

    async def get_relations(
        self, user_id: str, namespace: str, **kwargs: Any
    ) -> list[KnowledgeRelation]:
        """See :meth:`SQLiteKnowledgeStore.get_relations`."""
        return list(await self._run("get_relations", user_id, namespace, **kwargs))

    async def keyword_search(self, user_id: str, query: str, **kwargs: Any) -> list[ConceptHit]:
        """See :meth:`SQLiteKnowledgeStore.keyword_search`."""
        return list(await self._run("keyword_search", user_id, query, **kwargs))

    async def get_document(self, user_id: str, document_id: str) -> KnowledgeDocument | None:
        """See :meth:`SQLiteKnowledgeStore.get_document`."""
        result: KnowledgeDocument | None = await self._run("get_document", user_id, document_id)
        return result

    async def list_documents(
        self, user_id: str, namespace: str | None = None, **kwargs: Any
    ) -> list[KnowledgeDocument]:
        """See :meth:`SQLiteKnowledgeStore.list_documents`."""
        return list(await self._run("list_documents", user_id, namespace, **kwargs))

    async def concept_documents(self, user_id: str, concept_id: str) -> list[KnowledgeDocument]:
        """See :meth:`SQLiteKnowledgeStore.concept_documents`."""
        return list(await self._run("concept_documents", user_id, concept_id))

    async def namespaces(self, user_id: str) -> list[NamespaceInfo]:
        """See :meth:`SQLiteKnowledgeStore.namespaces`."""
        return list(await self._run("namespaces", user_id))

    async def delete_namespace(self, user_id: str, namespace: str) -> KnowledgeStats:
        """See :meth:`SQLiteKnowledgeStore.delete_namespace`."""
        result: KnowledgeStats = await self._run("delete_namespace", user_id, namespace)
        return result

    async def delete_items(self, user_id: str, namespace: str, **kwargs: Any) -> KnowledgeStats:
        """See :meth:`SQLiteKnowledgeStore.delete_items`."""
        result: KnowledgeStats = await self._run("delete_items", user_id, namespace, **kwargs)
        return result

    async def connect_entity(
        self, user_id: str, namespace: str, name: str, entity_id: str, **kwargs: Any
    ) -> bool:
        """See :meth:`SQLiteKnowledgeStore.connect_entity`."""
        return bool(
            await self._run("connect_entity", user_id, namespace, name, entity_id, **kwargs)
        )

    async def disconnect_entity(
        self, user_id: str, namespace: str, name: str, entity_id: str
    ) -> bool:
        """See :meth:`SQLiteKnowledgeStore.disconnect_entity`."""
        return bool(await self._run("disconnect_entity", user_id, namespace, name, entity_id))

    async def referenced_entities(self, user_id: str, namespace: str, name: str) -> list[Entity]:
        """See :meth:`SQLiteKnowledgeStore.referenced_entities`."""
        return list(await self._run("referenced_entities", user_id, namespace, name))

    async def concepts_for_entities(
        self, user_id: str, entity_ids: Sequence[str], **kwargs: Any
    ) -> list[KnowledgeConcept]:
        """See :meth:`SQLiteKnowledgeStore.concepts_for_entities`."""
        return list(await self._run("concepts_for_entities", user_id, entity_ids, **kwargs))

    async def stats(self, user_id: str) -> KnowledgeStats:
        """See :meth:`SQLiteKnowledgeStore.stats`."""
        result: KnowledgeStats = await self._run("stats", user_id)
        return result

    async def delete_user(self, user_id: str) -> KnowledgeStats:
        """See :meth:`SQLiteKnowledgeStore.delete_user`."""
        result: KnowledgeStats = await self._run("delete_user", user_id)
        return result
