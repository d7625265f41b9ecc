"""The embedded graph backend on the standard library's :mod:`sqlite3`.

The tables mirror the Neo4j labels (``entities``, ``relations`` for ``RELATES_TO``,
``temporal_events`` + ``participations``, ``causal_links`` + ``causal_edges``). The database is
one file (WAL mode, foreign keys on, ``ON DELETE CASCADE`` edges) or ``:memory:``.
Neighbourhoods are a recursive CTE over current relations. Times are stored twice: ISO-8601
text (what is returned) and epoch-second floats (what decay arithmetic uses).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from langgraph_prax_memory._text import append_evidence
from langgraph_prax_memory._validation import check_limit, check_user_id
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    MemoryValidationError,
    MemoryWriteError,
    PraxMemoryError,
)
from langgraph_prax_memory.graph._common import (
    CausalIn,
    EntityIn,
    EventIn,
    Moment,
    OutageLog,
    RelationIn,
    load_properties,
    merge_properties,
    name_map,
    prep_causal,
    prep_edge_key,
    prep_entity,
    prep_event,
    prep_relation,
    prep_search_text,
)
from langgraph_prax_memory.graph._decay import (
    DEFAULT_GRAPH_HALFLIFE_DAYS,
    ENTITY_PRUNE_THRESHOLD,
    RELATION_PRUNE_THRESHOLD,
    check_halflife,
    decay_lambda,
    effective_value,
)
from langgraph_prax_memory.graph._types import (
    CausalLink,
    DecayResult,
    Entity,
    EntityWithRelations,
    GraphStats,
    Neighbour,
    Relation,
    TemporalEvent,
    Vocabulary,
    check_hops,
    entity_id,
)

__all__ = ["SQLiteGraphStore"]

logger = logging.getLogger(__name__)

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entities (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL,
    name          TEXT NOT NULL,
    display_name  TEXT NOT NULL,
    type          TEXT NOT NULL,
    importance    REAL NOT NULL,
    mention_count INTEGER NOT NULL,
    first_seen    TEXT NOT NULL,
    first_seen_ts REAL NOT NULL,
    last_seen     TEXT NOT NULL,
    last_seen_ts  REAL NOT NULL,
    properties    TEXT NOT NULL DEFAULT '{}',
    UNIQUE (user_id, name)
);
CREATE TABLE IF NOT EXISTS relations (
    id             TEXT PRIMARY KEY,
    user_id        TEXT NOT NULL,
    source_id      TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    target_id      TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    type           TEXT NOT NULL,
    weight         REAL NOT NULL,
    evidence       TEXT NOT NULL DEFAULT '',
    first_seen     TEXT NOT NULL,
    first_seen_ts  REAL NOT NULL,
    last_seen      TEXT NOT NULL,
    last_seen_ts   REAL NOT NULL,
    valid_from     TEXT NOT NULL,
    valid_from_ts  REAL NOT NULL,
    valid_until    TEXT,
    valid_until_ts REAL
);
CREATE UNIQUE INDEX IF NOT EXISTS relations_one_current
    ON relations (source_id, target_id, type) WHERE valid_until IS NULL;
CREATE INDEX IF NOT EXISTS relations_source ON relations (source_id, valid_until);
CREATE INDEX IF NOT EXISTS relations_target ON relations (target_id, valid_until);
CREATE INDEX IF NOT EXISTS relations_user ON relations (user_id);
CREATE TABLE IF NOT EXISTS temporal_events (
    id             TEXT PRIMARY KEY,
    user_id        TEXT NOT NULL,
    description    TEXT NOT NULL,
    occurred_at    TEXT NOT NULL,
    occurred_at_ts REAL NOT NULL,
    importance     REAL NOT NULL,
    created_at     TEXT NOT NULL,
    created_at_ts  REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS temporal_events_user
    ON temporal_events (user_id, occurred_at_ts);
CREATE TABLE IF NOT EXISTS participations (
    entity_id TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    event_id  TEXT NOT NULL REFERENCES temporal_events(id) ON DELETE CASCADE,
    PRIMARY KEY (entity_id, event_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS participations_event ON participations (event_id);
CREATE TABLE IF NOT EXISTS causal_links (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL,
    cause         TEXT NOT NULL,
    effect        TEXT NOT NULL,
    importance    REAL NOT NULL,
    created_at    TEXT NOT NULL,
    created_at_ts REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS causal_links_user ON causal_links (user_id, created_at_ts);
CREATE TABLE IF NOT EXISTS causal_edges (
    link_id   TEXT NOT NULL REFERENCES causal_links(id) ON DELETE CASCADE,
    entity_id TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    direction TEXT NOT NULL CHECK (direction IN ('cause', 'effect')),
    PRIMARY KEY (link_id, entity_id, direction)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS causal_edges_entity ON causal_edges (entity_id);
"""

_ENTITY_COLS = (
    "e.id, e.user_id, e.name, e.display_name, e.type, e.importance, e.mention_count, "
    "e.first_seen, e.last_seen, e.properties"
)
_RELATION_COLS = (
    "r.id, r.user_id, s.name AS source, t.name AS target, r.source_id, r.target_id, r.type, "
    "r.weight, r.evidence, r.first_seen, r.last_seen, r.valid_from, r.valid_until"
)
_RELATION_FROM = (
    "FROM relations r JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id"
)
_RELATION_ORDER = "ORDER BY r.valid_from_ts, r.first_seen_ts, r.type, s.name, t.name"

_INSERT_ENTITY = """
INSERT INTO entities (id, user_id, name, display_name, type, importance, mention_count,
                      first_seen, first_seen_ts, last_seen, last_seen_ts, properties)
VALUES (:id, :user_id, :name, :display_name, :type, :importance, 1,
        :now, :now_ts, :now, :now_ts, :properties)
"""

_NEIGHBOURS = f"""
WITH RECURSIVE walk(id, depth) AS (
    SELECT :start, 0
    UNION
    SELECT CASE WHEN r.source_id = w.id THEN r.target_id ELSE r.source_id END, w.depth + 1
    FROM walk w
    JOIN relations r
      ON (r.source_id = w.id OR r.target_id = w.id) AND r.valid_until IS NULL
    WHERE w.depth < :hops
)
SELECT {_ENTITY_COLS}, MIN(w.depth) AS hops
FROM walk w JOIN entities e ON e.id = w.id
WHERE w.id <> :start AND e.user_id = :user_id
GROUP BY e.id
ORDER BY hops, e.importance DESC, e.name
LIMIT :limit
"""


def _dt(value: str) -> datetime:
    return datetime.fromisoformat(value)


def _entity(row: sqlite3.Row) -> Entity:
    return Entity(
        id=row["id"],
        user_id=row["user_id"],
        name=row["name"],
        display_name=row["display_name"],
        type=row["type"],
        importance=row["importance"],
        mention_count=row["mention_count"],
        first_seen=_dt(row["first_seen"]),
        last_seen=_dt(row["last_seen"]),
        properties=load_properties(row["properties"]),
    )


def _relation(row: sqlite3.Row) -> Relation:
    return Relation(
        id=row["id"],
        user_id=row["user_id"],
        source=row["source"],
        target=row["target"],
        source_id=row["source_id"],
        target_id=row["target_id"],
        type=row["type"],
        weight=row["weight"],
        evidence=row["evidence"],
        first_seen=_dt(row["first_seen"]),
        last_seen=_dt(row["last_seen"]),
        valid_from=_dt(row["valid_from"]),
        valid_until=None if row["valid_until"] is None else _dt(row["valid_until"]),
    )


class SQLiteGraphStore:
    """The knowledge graph in one SQLite file (or ``:memory:``): the embedded default backend.

    Thread-safe: one connection guarded by a lock; every multi-statement write runs in one
    ``BEGIN IMMEDIATE`` transaction, so a failure leaves nothing behind.

    Args:
        path: The database file (its folder is created), or ``":memory:"``.
        vocabulary: Allowed entity and relation types (the seed's by default).
        halflife_days: Half-life of the decay pass (14 days, twice the vector default).
        timeout: Seconds to wait for another process's write lock.

    Example:
        >>> from datetime import UTC, datetime
        >>> store = SQLiteGraphStore(":memory:")
        >>> t0 = datetime(2026, 1, 1, tzinfo=UTC)
        >>> _ = store.merge_entity("u1", "Alice", entity_type="person", now=t0)
        >>> rel = store.add_relation("u1", "Alice", "Prax", "works_on", now=t0)
        >>> (rel.source, rel.target, rel.weight)
        ('alice', 'prax', 1.0)
        >>> store.stats("u1").entities
        2
        >>> store.close()
    """

    def __init__(
        self,
        path: str | Path = ":memory:",
        *,
        vocabulary: Vocabulary | None = None,
        halflife_days: float = DEFAULT_GRAPH_HALFLIFE_DAYS,
        timeout: float = 10.0,
    ) -> None:
        self.vocabulary = vocabulary or Vocabulary()
        self.halflife_days = check_halflife(halflife_days)
        self._lock = threading.RLock()
        self._outage = OutageLog(logger, "SQLite graph")
        target = str(path)
        self.path = target
        if target != ":memory:":
            Path(target).expanduser().parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(
                target, timeout=timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise BackendUnavailable(f"cannot open the SQLite graph at {target}: {exc}") from exc
        self._conn.row_factory = sqlite3.Row
        self._conn.create_function("prax_decayed", 4, effective_value, deterministic=True)
        self._closed = False
        self.setup()

    # ------------------------------------------------------------------ plumbing

    def setup(self) -> None:
        """Create the tables and indexes (idempotent) and set WAL mode and foreign keys."""
        with self._lock:
            try:
                self._conn.execute("PRAGMA foreign_keys = ON")
                if self.path != ":memory:":
                    self._use_wal()
                    self._conn.execute("PRAGMA synchronous = NORMAL")
                self._conn.executescript(_SCHEMA)
                self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            except sqlite3.Error as exc:
                raise BackendUnavailable(f"cannot set up the SQLite graph: {exc}") from exc

    def _use_wal(self) -> None:
        """Switch the file to WAL once; it stays WAL (the mode is stored in the file).

        Switching needs the file to itself, and SQLite's busy timeout does not cover it: a
        second connection opening a fresh file at the same moment gets "database is locked"
        at once, so the switch is retried briefly.
        """
        row = self._conn.execute("PRAGMA journal_mode").fetchone()
        if row is not None and str(row[0]).lower() == "wal":
            return
        for attempt in range(50):
            try:
                self._conn.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or attempt == 49:
                    raise
                time.sleep(0.02 * (attempt + 1))

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()

    def __enter__(self) -> SQLiteGraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self, what: str) -> Iterator[sqlite3.Connection]:
        """One write transaction: commit on success, roll back everything on any error."""
        with self._lock:
            self._check_open()
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                self._outage.failed(exc)
                raise BackendUnavailable(f"SQLite graph: cannot start a write: {exc}") from exc
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException as exc:
                self._conn.execute("ROLLBACK")
                if isinstance(exc, PraxMemoryError) or not isinstance(exc, Exception):
                    raise
                raise MemoryWriteError(
                    f"{what} failed and was rolled back: {type(exc).__name__}: {exc}"
                ) from exc
            self._outage.ok()

    def _read(self, sql: str, params: Mapping[str, Any] | Sequence[Any]) -> list[sqlite3.Row]:
        with self._lock:
            self._check_open()
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                self._outage.failed(exc)
                raise BackendUnavailable(f"SQLite graph read failed: {exc}") from exc

    def _check_open(self) -> None:
        if self._closed:
            raise BackendUnavailable("the SQLite graph store is closed")

    # the public face of the plumbing, for the knowledge tables that share this file

    def transaction(self, what: str) -> AbstractContextManager[sqlite3.Connection]:
        """One write transaction on the graph's file: commit on success, roll back on error.

        Raises:
            BackendUnavailable: The store is closed or the file cannot be written.
            MemoryWriteError: The body failed (everything it wrote is rolled back).
        """
        return self._write(what)

    def query(self, sql: str, params: Mapping[str, Any] | Sequence[Any]) -> list[sqlite3.Row]:
        """Run one read statement under the store's lock.

        Raises:
            BackendUnavailable: The store is closed or the read failed.
        """
        return self._read(sql, params)

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """The open connection under the store's lock (schema set-up, several reads at once).

        Raises:
            BackendUnavailable: The store is closed.
        """
        with self._lock:
            self._check_open()
            yield self._conn

    # ------------------------------------------------------------------ write helpers

    @staticmethod
    def _ensure_entity(conn: sqlite3.Connection, ent: EntityIn) -> None:
        """Create an entity with defaults if it does not exist (no change otherwise)."""
        conn.execute(
            _INSERT_ENTITY + " ON CONFLICT DO NOTHING",
            {
                "id": ent.id,
                "user_id": ent.user_id,
                "name": ent.name,
                "display_name": ent.display_name,
                "type": ent.create_type,
                "importance": ent.create_importance,
                "now": ent.now.iso,
                "now_ts": ent.now.ts,
                "properties": ent.create_properties_json,
            },
        )

    def _link_participant(self, conn: sqlite3.Connection, entity_id: str, event_id: str) -> None:
        """Link one participant to an event (a separate step so tests can inject faults)."""
        conn.execute(
            "INSERT OR IGNORE INTO participations (entity_id, event_id) VALUES (?, ?)",
            (entity_id, event_id),
        )

    def _link_causal(
        self, conn: sqlite3.Connection, link_id: str, entity_id: str, direction: str
    ) -> None:
        """Link one entity to a causal link on the ``cause`` or ``effect`` side."""
        conn.execute(
            "INSERT OR IGNORE INTO causal_edges (link_id, entity_id, direction) VALUES (?, ?, ?)",
            (link_id, entity_id, direction),
        )

    def _relation_by_id(self, conn: sqlite3.Connection, rel_id: str) -> Relation:
        row = conn.execute(
            f"SELECT {_RELATION_COLS} {_RELATION_FROM} WHERE r.id = ?", (rel_id,)
        ).fetchone()
        return _relation(row)

    def _entity_by_id(self, conn: sqlite3.Connection, ent_id: str) -> Entity:
        row = conn.execute(f"SELECT {_ENTITY_COLS} FROM entities e WHERE e.id = ?", (ent_id,))
        return _entity(row.fetchone())

    # ------------------------------------------------------------------ entities

    def merge_entity(
        self,
        user_id: str,
        name: str,
        *,
        entity_type: str | None = None,
        importance: float | None = None,
        properties: Mapping[str, Any] | None = None,
        now: datetime | None = None,
    ) -> Entity:
        """Create or update an entity. See :meth:`GraphStore.merge_entity`.

        Example:
            >>> store = SQLiteGraphStore(":memory:")
            >>> store.merge_entity("u1", "Alice", importance=0.9).mention_count
            1
            >>> store.merge_entity("u1", "ALICE", importance=0.2).importance
            0.9
        """
        ent = prep_entity(
            self.vocabulary,
            user_id,
            name,
            entity_type=entity_type,
            importance=importance,
            properties=properties,
            now=Moment.of(now),
        )
        with self._write("merge_entity") as conn:
            row = conn.execute("SELECT properties FROM entities WHERE id = ?", (ent.id,)).fetchone()
            if row is None:
                self._ensure_entity(conn, ent)
            else:
                conn.execute(
                    """
                    UPDATE entities SET
                        mention_count = mention_count + 1,
                        type = COALESCE(:type, type),
                        importance = MAX(importance, COALESCE(:importance, importance)),
                        first_seen = CASE WHEN :now_ts < first_seen_ts THEN :now
                                          ELSE first_seen END,
                        first_seen_ts = MIN(first_seen_ts, :now_ts),
                        last_seen = CASE WHEN :now_ts > last_seen_ts THEN :now ELSE last_seen END,
                        last_seen_ts = MAX(last_seen_ts, :now_ts),
                        properties = :properties
                    WHERE id = :id
                    """,
                    {
                        "id": ent.id,
                        "type": ent.type,
                        "importance": ent.importance,
                        "now": ent.now.iso,
                        "now_ts": ent.now.ts,
                        "properties": merge_properties(row["properties"], ent.properties),
                    },
                )
            return self._entity_by_id(conn, ent.id)

    def get_entity(
        self, user_id: str, name: str, *, include_superseded: bool = False
    ) -> EntityWithRelations | None:
        """The entity and its relations. See :meth:`GraphStore.get_entity`."""
        check_user_id(user_id)
        ent_id = entity_id(user_id, name)
        with self._lock:
            rows = self._read(
                f"SELECT {_ENTITY_COLS} FROM entities e WHERE e.id = ? AND e.user_id = ?",
                (ent_id, user_id),
            )
            if not rows:
                return None
            current = "" if include_superseded else "AND r.valid_until IS NULL"
            rels = self._read(
                f"SELECT {_RELATION_COLS} {_RELATION_FROM} "
                f"WHERE (r.source_id = :id OR r.target_id = :id) {current} {_RELATION_ORDER}",
                {"id": ent_id},
            )
        return EntityWithRelations(entity=_entity(rows[0]), relations=[_relation(r) for r in rels])

    def entity_ids_for(self, user_id: str, names: Iterable[str]) -> dict[str, str]:
        """Ids of the named entities that exist. See :meth:`GraphStore.entity_ids_for`."""
        wanted = name_map(user_id, names)
        if not wanted:
            return {}
        ids = sorted(set(wanted.values()))
        found: set[str] = set()
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._read(
                f"SELECT id FROM entities WHERE user_id = ? AND id IN ({marks})",
                [user_id, *chunk],
            )
            found.update(r["id"] for r in rows)
        return {name: ent_id for name, ent_id in wanted.items() if ent_id in found}

    def search_entities(self, user_id: str, text: str, *, limit: int = 10) -> list[Entity]:
        """Case-insensitive substring search. See :meth:`GraphStore.search_entities`.

        Example:
            >>> store = SQLiteGraphStore(":memory:")
            >>> _ = store.merge_entity("u1", "LangGraph")
            >>> [e.display_name for e in store.search_entities("u1", "graph")]
            ['LangGraph']
        """
        check_user_id(user_id)
        needle = prep_search_text(text)
        limit = check_limit(limit)
        rows = self._read(
            f"""
            SELECT {_ENTITY_COLS} FROM entities e
            WHERE e.user_id = :user_id AND instr(e.name, :q) > 0
            ORDER BY (e.name = :q) DESC, (substr(e.name, 1, length(:q)) = :q) DESC,
                     e.importance DESC, e.mention_count DESC, e.name
            LIMIT :limit
            """,
            {"user_id": user_id, "q": needle, "limit": limit},
        )
        return [_entity(r) for r in rows]

    # ------------------------------------------------------------------ relations

    def add_relation(
        self,
        user_id: str,
        source: str,
        target: str,
        relation_type: str,
        *,
        weight: float = 1.0,
        evidence: str | None = None,
        valid_from: datetime | None = None,
        now: datetime | None = None,
    ) -> Relation:
        """Strengthen the current edge or open a new one. See :meth:`GraphStore.add_relation`."""
        rel = prep_relation(
            self.vocabulary,
            user_id,
            source,
            target,
            relation_type,
            weight=weight,
            evidence=evidence,
            valid_from=valid_from,
            now=now,
        )
        with self._write("add_relation") as conn:
            return self._add_relation(conn, rel)

    def _add_relation(self, conn: sqlite3.Connection, rel: RelationIn) -> Relation:
        self._ensure_entity(conn, rel.source)
        self._ensure_entity(conn, rel.target)
        row = conn.execute(
            "SELECT id, evidence FROM relations WHERE source_id = ? AND target_id = ? "
            "AND type = ? AND valid_until IS NULL",
            (rel.source.id, rel.target.id, rel.type),
        ).fetchone()
        if row is not None:
            conn.execute(
                """
                UPDATE relations SET
                    weight = weight + :weight,
                    evidence = :evidence,
                    last_seen = CASE WHEN :now_ts > last_seen_ts THEN :now ELSE last_seen END,
                    last_seen_ts = MAX(last_seen_ts, :now_ts)
                WHERE id = :id
                """,
                {
                    "id": row["id"],
                    "weight": rel.weight,
                    "evidence": append_evidence(row["evidence"], rel.evidence),
                    "now": rel.now.iso,
                    "now_ts": rel.now.ts,
                },
            )
            return self._relation_by_id(conn, row["id"])
        rel_id = str(uuid.uuid4())
        conn.execute(
            """
            INSERT INTO relations (id, user_id, source_id, target_id, type, weight, evidence,
                                   first_seen, first_seen_ts, last_seen, last_seen_ts,
                                   valid_from, valid_from_ts, valid_until, valid_until_ts)
            VALUES (:id, :user_id, :source_id, :target_id, :type, :weight, :evidence,
                    :now, :now_ts, :now, :now_ts, :valid_from, :valid_from_ts, NULL, NULL)
            """,
            {
                "id": rel_id,
                "user_id": rel.user_id,
                "source_id": rel.source.id,
                "target_id": rel.target.id,
                "type": rel.type,
                "weight": rel.weight,
                "evidence": rel.evidence,
                "now": rel.now.iso,
                "now_ts": rel.now.ts,
                "valid_from": rel.valid_from.iso,
                "valid_from_ts": rel.valid_from.ts,
            },
        )
        return self._relation_by_id(conn, rel_id)

    def supersede_relation(
        self,
        user_id: str,
        source: str,
        target: str,
        relation_type: str,
        *,
        now: datetime | None = None,
    ) -> Relation | None:
        """Close the current edge. See :meth:`GraphStore.supersede_relation`."""
        src, dst, rtype = prep_edge_key(self.vocabulary, user_id, source, target, relation_type)
        moment = Moment.of(now)
        with self._write("supersede_relation") as conn:
            row = conn.execute(
                "SELECT id, valid_from_ts FROM relations WHERE source_id = ? AND target_id = ? "
                "AND type = ? AND valid_until IS NULL",
                (src, dst, rtype),
            ).fetchone()
            if row is None:
                return None
            if moment.ts < row["valid_from_ts"]:
                raise MemoryValidationError(
                    "cannot supersede a relation before it became valid (now < valid_from)"
                )
            conn.execute(
                "UPDATE relations SET valid_until = ?, valid_until_ts = ? WHERE id = ?",
                (moment.iso, moment.ts, row["id"]),
            )
            return self._relation_by_id(conn, row["id"])

    def current_targets(self, user_id: str, source: str, relation_type: str) -> list[Entity]:
        """Targets of current edges. See :meth:`GraphStore.current_targets`."""
        check_user_id(user_id)
        src = entity_id(user_id, source)
        rtype = self.vocabulary.check_relation_type(relation_type)
        rows = self._read(
            f"""
            SELECT {_ENTITY_COLS} FROM relations r JOIN entities e ON e.id = r.target_id
            WHERE r.user_id = ? AND r.source_id = ? AND r.type = ? AND r.valid_until IS NULL
            ORDER BY r.weight DESC, e.name
            """,
            (user_id, src, rtype),
        )
        return [_entity(r) for r in rows]

    # ------------------------------------------------------------------ events / causal links

    def merge_temporal_event(
        self,
        user_id: str,
        description: str,
        *,
        participants: Iterable[str] = (),
        occurred_at: datetime | None = None,
        importance: float | None = None,
        now: datetime | None = None,
    ) -> TemporalEvent:
        """Create or update an event. See :meth:`GraphStore.merge_temporal_event`."""
        ev = prep_event(
            user_id,
            description,
            participants=participants,
            occurred_at=occurred_at,
            importance=importance,
            now=now,
        )
        with self._write("merge_temporal_event") as conn:
            self._merge_event(conn, ev)
            return self._events(conn, "t.id = :id", {"id": ev.id}, 1)[0]

    def _merge_event(self, conn: sqlite3.Connection, ev: EventIn) -> None:
        conn.execute(
            """
            INSERT INTO temporal_events (id, user_id, description, occurred_at, occurred_at_ts,
                                         importance, created_at, created_at_ts)
            VALUES (:id, :user_id, :description, :occurred_at, :occurred_at_ts,
                    :create_importance, :now, :now_ts)
            ON CONFLICT (id) DO UPDATE SET
                importance = MAX(importance, COALESCE(:importance, importance))
            """,
            {
                "id": ev.id,
                "user_id": ev.user_id,
                "description": ev.description,
                "occurred_at": ev.occurred_at.iso,
                "occurred_at_ts": ev.occurred_at.ts,
                "create_importance": 0.5 if ev.importance is None else ev.importance,
                "importance": ev.importance,
                "now": ev.now.iso,
                "now_ts": ev.now.ts,
            },
        )
        for ent in ev.participants:
            self._ensure_entity(conn, ent)
            self._link_participant(conn, ent.id, ev.id)

    def add_causal_link(
        self,
        user_id: str,
        cause: str,
        effect: str,
        *,
        cause_entities: Iterable[str] = (),
        effect_entities: Iterable[str] = (),
        importance: float | None = None,
        now: datetime | None = None,
    ) -> CausalLink:
        """Create or update a causal link. See :meth:`GraphStore.add_causal_link`."""
        link = prep_causal(
            user_id,
            cause,
            effect,
            cause_entities=cause_entities,
            effect_entities=effect_entities,
            importance=importance,
            now=now,
        )
        with self._write("add_causal_link") as conn:
            self._merge_causal(conn, link)
            return self._links(conn, "c.id = :id", {"id": link.id}, 1)[0]

    def _merge_causal(self, conn: sqlite3.Connection, link: CausalIn) -> None:
        conn.execute(
            """
            INSERT INTO causal_links (id, user_id, cause, effect, importance, created_at,
                                      created_at_ts)
            VALUES (:id, :user_id, :cause, :effect, :create_importance, :now, :now_ts)
            ON CONFLICT (id) DO UPDATE SET
                importance = MAX(importance, COALESCE(:importance, importance))
            """,
            {
                "id": link.id,
                "user_id": link.user_id,
                "cause": link.cause,
                "effect": link.effect,
                "create_importance": 0.5 if link.importance is None else link.importance,
                "importance": link.importance,
                "now": link.now.iso,
                "now_ts": link.now.ts,
            },
        )
        for ent in link.cause_entities:
            self._ensure_entity(conn, ent)
            self._link_causal(conn, link.id, ent.id, "cause")
        for ent in link.effect_entities:
            self._ensure_entity(conn, ent)
            self._link_causal(conn, link.id, ent.id, "effect")

    @staticmethod
    def _events(
        conn: sqlite3.Connection, where: str, params: dict[str, Any], limit: int
    ) -> list[TemporalEvent]:
        rows = conn.execute(
            f"""
            SELECT t.*, (SELECT json_group_array(name) FROM (
                    SELECT e.name FROM participations p JOIN entities e ON e.id = p.entity_id
                    WHERE p.event_id = t.id ORDER BY e.name)) AS participants
            FROM temporal_events t WHERE {where}
            ORDER BY t.occurred_at_ts DESC, t.created_at_ts DESC, t.id
            LIMIT :limit
            """,
            {**params, "limit": limit},
        ).fetchall()
        return [
            TemporalEvent(
                id=r["id"],
                user_id=r["user_id"],
                description=r["description"],
                occurred_at=_dt(r["occurred_at"]),
                importance=r["importance"],
                created_at=_dt(r["created_at"]),
                participants=sorted(json.loads(r["participants"])),
            )
            for r in rows
        ]

    @staticmethod
    def _links(
        conn: sqlite3.Connection, where: str, params: dict[str, Any], limit: int
    ) -> list[CausalLink]:
        side = """(SELECT json_group_array(name) FROM (
                    SELECT e.name FROM causal_edges x JOIN entities e ON e.id = x.entity_id
                    WHERE x.link_id = c.id AND x.direction = '{0}' ORDER BY e.name))"""
        rows = conn.execute(
            f"""
            SELECT c.*, {side.format("cause")} AS causes, {side.format("effect")} AS effects
            FROM causal_links c WHERE {where}
            ORDER BY c.created_at_ts DESC, c.id
            LIMIT :limit
            """,
            {**params, "limit": limit},
        ).fetchall()
        return [
            CausalLink(
                id=r["id"],
                user_id=r["user_id"],
                cause=r["cause"],
                effect=r["effect"],
                importance=r["importance"],
                created_at=_dt(r["created_at"]),
                cause_entities=sorted(json.loads(r["causes"])),
                effect_entities=sorted(json.loads(r["effects"])),
            )
            for r in rows
        ]

    def get_events(
        self, user_id: str, *, entity: str | None = None, limit: int = 50
    ) -> list[TemporalEvent]:
        """Events, newest first. See :meth:`GraphStore.get_events`."""
        check_user_id(user_id)
        limit = check_limit(limit)
        params: dict[str, Any] = {"user_id": user_id}
        where = "t.user_id = :user_id"
        if entity is not None:
            params["eid"] = entity_id(user_id, entity)
            where += (
                " AND EXISTS (SELECT 1 FROM participations p "
                "WHERE p.event_id = t.id AND p.entity_id = :eid)"
            )
        with self._lock:
            self._check_open()
            return self._events(self._conn, where, params, limit)

    def get_causal_links(
        self, user_id: str, *, entity: str | None = None, limit: int = 50
    ) -> list[CausalLink]:
        """Causal links, newest first. See :meth:`GraphStore.get_causal_links`."""
        check_user_id(user_id)
        limit = check_limit(limit)
        params: dict[str, Any] = {"user_id": user_id}
        where = "c.user_id = :user_id"
        if entity is not None:
            params["eid"] = entity_id(user_id, entity)
            where += (
                " AND EXISTS (SELECT 1 FROM causal_edges x "
                "WHERE x.link_id = c.id AND x.entity_id = :eid)"
            )
        with self._lock:
            self._check_open()
            return self._links(self._conn, where, params, limit)

    # ------------------------------------------------------------------ traversal

    def get_neighbours(
        self, user_id: str, name: str, *, hops: int = 1, limit: int = 25
    ) -> list[Neighbour]:
        """1–2 hop neighbourhood by recursive CTE. See :meth:`GraphStore.get_neighbours`.

        Example:
            >>> store = SQLiteGraphStore(":memory:")
            >>> _ = store.add_relation("u1", "Alice", "Prax", "works_on")
            >>> _ = store.add_relation("u1", "Prax", "LangGraph", "related_to")
            >>> [(n.entity.name, n.hops) for n in store.get_neighbours("u1", "Alice", hops=2)]
            [('prax', 1), ('langgraph', 2)]
        """
        check_user_id(user_id)
        start = entity_id(user_id, name)
        hops = check_hops(hops)
        limit = check_limit(limit)
        rows = self._read(
            _NEIGHBOURS, {"start": start, "hops": hops, "limit": limit, "user_id": user_id}
        )
        return [Neighbour(entity=_entity(r), hops=r["hops"]) for r in rows]

    # ------------------------------------------------------------------ maintenance

    def decay_graph(
        self,
        user_id: str,
        *,
        now: datetime | None = None,
        halflife_days: float | None = None,
        dry_run: bool = False,
    ) -> DecayResult:
        """Prune faded relations and orphaned faded entities. See :meth:`GraphStore.decay_graph`.

        Example:
            >>> from datetime import UTC, datetime, timedelta
            >>> store = SQLiteGraphStore(":memory:")
            >>> t0 = datetime(2026, 1, 1, tzinfo=UTC)
            >>> _ = store.merge_entity("u1", "Fleeting", importance=0.3, now=t0)
            >>> store.decay_graph("u1", now=t0 + timedelta(days=7)).entities
            []
            >>> store.decay_graph("u1", now=t0 + timedelta(days=45)).entities
            ['fleeting']
        """
        check_user_id(user_id)
        moment = Moment.of(now)
        half = self.halflife_days if halflife_days is None else check_halflife(halflife_days)
        params = {
            "user_id": user_id,
            "now_ts": moment.ts,
            "lam": decay_lambda(half),
            "rt": RELATION_PRUNE_THRESHOLD,
            "et": ENTITY_PRUNE_THRESHOLD,
        }
        with self._write("decay_graph") as conn:
            rel_rows = conn.execute(
                f"SELECT {_RELATION_COLS} {_RELATION_FROM} WHERE r.user_id = :user_id "
                "AND prax_decayed(r.weight, r.last_seen_ts, :now_ts, :lam) < :rt "
                f"{_RELATION_ORDER}",
                params,
            ).fetchall()
            ent_rows = conn.execute(
                """
                SELECT e.id, e.name FROM entities e
                WHERE e.user_id = :user_id
                  AND prax_decayed(e.importance, e.last_seen_ts, :now_ts, :lam) < :et
                  AND NOT EXISTS (
                      SELECT 1 FROM relations r
                      WHERE (r.source_id = e.id OR r.target_id = e.id)
                        AND prax_decayed(r.weight, r.last_seen_ts, :now_ts, :lam) >= :rt)
                ORDER BY e.name
                """,
                params,
            ).fetchall()
            if not dry_run:
                conn.executemany(
                    "DELETE FROM relations WHERE id = ?", [(r["id"],) for r in rel_rows]
                )
                conn.executemany(
                    "DELETE FROM entities WHERE id = ?", [(r["id"],) for r in ent_rows]
                )
        return DecayResult(
            dry_run=dry_run,
            halflife_days=half,
            entities=[r["name"] for r in ent_rows],
            relations=[_relation(r) for r in rel_rows],
        )

    def _stats(self, conn: sqlite3.Connection, user_id: str) -> GraphStats:
        row = conn.execute(
            """
            SELECT
              (SELECT COUNT(*) FROM entities WHERE user_id = :u) AS entities,
              (SELECT COUNT(*) FROM relations WHERE user_id = :u) AS relations,
              (SELECT COUNT(*) FROM relations WHERE user_id = :u AND valid_until IS NULL)
                  AS current_relations,
              (SELECT COUNT(*) FROM temporal_events WHERE user_id = :u) AS temporal_events,
              (SELECT COUNT(*) FROM causal_links WHERE user_id = :u) AS causal_links
            """,
            {"u": user_id},
        ).fetchone()
        return GraphStats(**{key: row[key] for key in row.keys()})  # noqa: SIM118

    def stats(self, user_id: str) -> GraphStats:
        """Counts of the user's graph. See :meth:`GraphStore.stats`."""
        check_user_id(user_id)
        with self._lock:
            self._check_open()
            try:
                return self._stats(self._conn, user_id)
            except sqlite3.Error as exc:
                raise BackendUnavailable(f"SQLite graph read failed: {exc}") from exc

    def delete_user(self, user_id: str) -> GraphStats:
        """Remove all of a user's graph. See :meth:`GraphStore.delete_user`."""
        check_user_id(user_id)
        with self._write("delete_user") as conn:
            removed = self._stats(conn, user_id)
            conn.execute("DELETE FROM relations WHERE user_id = ?", (user_id,))
            conn.execute("DELETE FROM causal_links WHERE user_id = ?", (user_id,))
            conn.execute("DELETE FROM temporal_events WHERE user_id = ?", (user_id,))
            conn.execute("DELETE FROM entities WHERE user_id = ?", (user_id,))
        return removed

    def compact(self) -> None:
        """Rewrite the file so that no byte of a deleted row remains on disk.

        A ``DELETE`` frees pages but leaves their bytes in the file (and, in WAL mode, in the
        ``-wal`` file) until they are reused. This checkpoints and empties the WAL, rebuilds
        the database (``VACUUM``), then empties the WAL again. The knowledge tables in the
        same file are compacted with it. A no-op for ``:memory:``.

        Raises:
            BackendUnavailable: SQLite refused (another connection is reading or writing).
        """
        with self._lock:
            self._check_open()
            if self.path == ":memory:":
                return
            try:
                self._truncate_wal()
                self._conn.execute("VACUUM")
                self._truncate_wal()
            except sqlite3.Error as exc:
                raise BackendUnavailable(f"SQLite graph: compaction failed: {exc}") from exc

    def _truncate_wal(self) -> None:
        row = self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if row is not None and int(row[0]) != 0:
            raise sqlite3.OperationalError(
                "the write-ahead log is in use by another connection; retry when it is idle"
            )
