"""The embedded graph backend on the standard library's :mod:`sqlite3`: the op runner.

The tables mirror the Neo4j labels (``entities``, ``relations`` for ``RELATES_TO``,
``temporal_events`` + ``participations``, ``causal_links`` + ``causal_edges``). The database is
one file (WAL mode, foreign keys on, ``ON DELETE CASCADE`` edges) or ``:memory:``.
Neighbourhoods are a recursive CTE over current relations. Times are stored twice: ISO-8601
text (what is returned) and epoch-second floats (what decay arithmetic uses).

Three modules: ``_database.py`` (the file, its lock and transactions), ``_sql.py`` (the SQL
text) and this one, which runs each op object of the graph's base class on them.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path
from typing import Any, TypeVar

from langgraph_prax_memory._text import append_evidence
from langgraph_prax_memory._time import to_datetime
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.graph._base import GraphStore
from langgraph_prax_memory.graph._decay import (
    DEFAULT_GRAPH_HALFLIFE_DAYS,
    ENTITY_PRUNE_THRESHOLD,
    RELATION_PRUNE_THRESHOLD,
    check_halflife,
)
from langgraph_prax_memory.graph._inputs import (
    DEFAULT_IMPORTANCE,
    CausalIn,
    EntityIn,
    EventIn,
    RelationIn,
    load_properties,
    merge_properties,
)
from langgraph_prax_memory.graph._load import DeleteRecords, LoadRecords
from langgraph_prax_memory.graph._ops import (
    AddCausalLink,
    AddRelation,
    CurrentTargets,
    DecayGraph,
    DeleteUser,
    EntityIdsFor,
    GetCausalLinks,
    GetEntity,
    GetEvents,
    GetNeighbours,
    GraphOp,
    ListCausalLinks,
    ListEntities,
    ListEvents,
    ListRelations,
    MergeEntity,
    MergeEvent,
    RelationsAmong,
    SearchEntities,
    Stats,
    SupersedeRelation,
    TopEntities,
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
)
from langgraph_prax_memory.graph.sqlite import _sql as sql
from langgraph_prax_memory.graph.sqlite._database import SQLiteDatabase
from langgraph_prax_memory.graph.sqlite._load import SQLiteLoading, ensure_params

__all__ = ["SQLiteGraphStore"]

T = TypeVar("T")
Conn = sqlite3.Connection


def _entity(row: sqlite3.Row) -> Entity:
    return Entity(
        id=row["id"],
        user_id=row["user_id"],
        name=row["name"],
        display_name=row["display_name"],
        type=row["type"],
        importance=row["importance"],
        mention_count=row["mention_count"],
        first_seen=to_datetime(row["first_seen"]),
        last_seen=to_datetime(row["last_seen"]),
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
        first_seen=to_datetime(row["first_seen"]),
        last_seen=to_datetime(row["last_seen"]),
        valid_from=to_datetime(row["valid_from"]),
        valid_until=None if row["valid_until"] is None else to_datetime(row["valid_until"]),
    )


class SQLiteGraphStore(SQLiteLoading, SQLiteDatabase, GraphStore):
    """The knowledge graph in one SQLite file (or ``:memory:``): the embedded default backend.

    Thread-safe: one connection guarded by a lock; every multi-statement write runs in one
    ``BEGIN IMMEDIATE`` transaction, so a failure leaves nothing behind. The public methods
    are :class:`~langgraph_prax_memory.graph.GraphStore`'s; this class runs their ops
    (:meth:`run`). ``transaction`` / ``query`` / ``connection`` / ``compact`` are the file's.

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
        super().__init__(path, timeout=timeout)

    def run(self, op: GraphOp[T]) -> T:
        """Run one op: a write in one ``BEGIN IMMEDIATE`` transaction, a read under the lock.

        Raises:
            BackendUnavailable: The store is closed or SQLite failed to read.
            MemoryWriteError: A write failed (everything it wrote is rolled back).
        """
        if op.write:
            with self._write(op.name) as conn:
                result: T = self._apply(conn, op)
        else:
            with self._reading() as conn:
                result = self._apply(conn, op)
        return result

    def _apply(self, conn: Conn, op: GraphOp[Any]) -> Any:
        match op:
            case MergeEntity():
                return self._merge_entity(conn, op.entity)
            case GetEntity():
                return self._get_entity(conn, op)
            case EntityIdsFor():
                return self._entity_ids_for(conn, op)
            case SearchEntities():
                params = {"user_id": op.user_id, "q": op.needle, "limit": op.limit}
                return [_entity(r) for r in conn.execute(sql.SEARCH, params)]
            case TopEntities():
                params = {"user_id": op.user_id, "limit": op.limit}
                return [_entity(r) for r in conn.execute(sql.TOP_ENTITIES, params)]
            case ListEntities():
                params = {"user_id": op.user_id, "after": op.after, "limit": op.limit}
                return [_entity(r) for r in conn.execute(sql.ENTITIES_PAGE, params)]
            case ListRelations():
                params = {"user_id": op.user_id, "after": op.after, "limit": op.limit}
                return [_relation(r) for r in conn.execute(sql.RELATIONS_PAGE, params)]
            case ListEvents():
                page = {"user_id": op.user_id, "after": op.after}
                return self._events(conn, "page", page, op.limit)
            case ListCausalLinks():
                page = {"user_id": op.user_id, "after": op.after}
                return self._links(conn, "page", page, op.limit)
            case RelationsAmong():
                text = sql.RELATIONS_AMONG[op.both_ends, op.include_superseded]
                ids = json.dumps(op.entity_ids)
                params = {"user_id": op.user_id, "ids": ids, "limit": op.limit}
                return [_relation(r) for r in conn.execute(text, params)]
            case AddRelation():
                return self._add_relation(conn, op.relation)
            case SupersedeRelation():
                return self._supersede(conn, op)
            case CurrentTargets():
                rows = conn.execute(sql.CURRENT_TARGETS, (op.user_id, op.source_id, op.type))
                return [_entity(r) for r in rows]
            case MergeEvent():
                self._merge_event(conn, op.event)
                return self._events(conn, "id", {"id": op.event.id}, 1)[0]
            case AddCausalLink():
                self._merge_causal(conn, op.link)
                return self._links(conn, "id", {"id": op.link.id}, 1)[0]
            case GetEvents():
                where, params = self._of_entity(op.user_id, op.entity_id)
                return self._events(conn, where, params, op.limit)
            case GetCausalLinks():
                where, params = self._of_entity(op.user_id, op.entity_id)
                return self._links(conn, where, params, op.limit)
            case GetNeighbours():
                params = {
                    "start": op.entity_id,
                    "hops": op.hops,
                    "limit": op.limit,
                    "user_id": op.user_id,
                }
                rows = conn.execute(sql.NEIGHBOURS, params)
                return [Neighbour(entity=_entity(r), hops=r["hops"]) for r in rows]
            case DecayGraph():
                return self._decay(conn, op)
            case Stats():
                return self._stats(conn, op.user_id)
            case DeleteUser():
                removed = self._stats(conn, op.user_id)
                for text in sql.DELETE_USER:
                    conn.execute(text, (op.user_id,))
                return removed
            case LoadRecords():
                return self.load(conn, op)
            case DeleteRecords():
                return self.delete_records_in(conn, op)
        raise TypeError(f"SQLiteGraphStore cannot run {type(op).__name__}")

    # ------------------------------------------------------------------ entities

    @staticmethod
    def _ensure_entity(conn: Conn, ent: EntityIn) -> None:
        """Create an entity with defaults if it does not exist (no change otherwise)."""
        conn.execute(sql.ENSURE_ENTITY, ensure_params(ent))

    def _merge_entity(self, conn: Conn, ent: EntityIn) -> Entity:
        row = conn.execute(sql.ENTITY_PROPERTIES, (ent.id,)).fetchone()
        if row is None:
            self._ensure_entity(conn, ent)
        else:
            conn.execute(
                sql.UPDATE_ENTITY,
                {
                    "id": ent.id,
                    "type": ent.type,
                    "importance": ent.importance,
                    "now": ent.now.iso,
                    "now_ts": ent.now.ts,
                    "properties": merge_properties(row["properties"], ent.properties),
                },
            )
        return _entity(conn.execute(sql.ENTITY_BY_ID, (ent.id,)).fetchone())

    @staticmethod
    def _get_entity(conn: Conn, op: GetEntity) -> EntityWithRelations | None:
        row = conn.execute(sql.ENTITY_OF_USER, (op.entity_id, op.user_id)).fetchone()
        if row is None:
            return None
        rels = conn.execute(sql.ENTITY_RELATIONS[op.include_superseded], {"id": op.entity_id})
        return EntityWithRelations(entity=_entity(row), relations=[_relation(r) for r in rels])

    @staticmethod
    def _entity_ids_for(conn: Conn, op: EntityIdsFor) -> dict[str, str]:
        ids = op.ids
        found: set[str] = set()
        for start in range(0, len(ids), sql.IDS_CHUNK):
            chunk = ids[start : start + sql.IDS_CHUNK]
            rows = conn.execute(sql.ids_exist(len(chunk)), [op.user_id, *chunk])
            found.update(r["id"] for r in rows)
        return op.found(found)

    # ------------------------------------------------------------------ relations

    def _add_relation(self, conn: Conn, rel: RelationIn) -> Relation:
        self._ensure_entity(conn, rel.source)
        self._ensure_entity(conn, rel.target)
        row = conn.execute(sql.CURRENT_EDGE, (rel.source.id, rel.target.id, rel.type)).fetchone()
        if row is not None:
            rel_id = row["id"]
            conn.execute(
                sql.STRENGTHEN,
                {
                    "id": rel_id,
                    "weight": rel.weight,
                    "evidence": append_evidence(row["evidence"], rel.evidence),
                    "now": rel.now.iso,
                    "now_ts": rel.now.ts,
                },
            )
        else:
            rel_id = str(uuid.uuid4())
            conn.execute(
                sql.INSERT_RELATION,
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
        return _relation(conn.execute(sql.RELATION_BY_ID, (rel_id,)).fetchone())

    @staticmethod
    def _supersede(conn: Conn, op: SupersedeRelation) -> Relation | None:
        row = conn.execute(sql.CURRENT_EDGE, (op.source_id, op.target_id, op.type)).fetchone()
        if row is None:
            return None
        if op.now.ts < row["valid_from_ts"]:
            raise MemoryValidationError(
                "cannot supersede a relation before it became valid (now < valid_from)"
            )
        conn.execute(sql.SUPERSEDE, (op.now.iso, op.now.ts, row["id"]))
        return _relation(conn.execute(sql.RELATION_BY_ID, (row["id"],)).fetchone())

    # ------------------------------------------------------------------ events / causal links

    def _link_participant(self, conn: Conn, entity_id: str, event_id: str) -> None:
        """Link one participant to an event (a separate step so tests can inject faults)."""
        conn.execute(sql.LINK_PARTICIPANT, (entity_id, event_id))

    def _link_causal(self, conn: Conn, link_id: str, entity_id: str, direction: str) -> None:
        """Link one entity to a causal link on the ``cause`` or ``effect`` side."""
        conn.execute(sql.LINK_CAUSAL, (link_id, entity_id, direction))

    def _merge_event(self, conn: Conn, ev: EventIn) -> None:
        conn.execute(
            sql.MERGE_EVENT,
            {
                "id": ev.id,
                "user_id": ev.user_id,
                "description": ev.description,
                "occurred_at": ev.occurred_at.iso,
                "occurred_at_ts": ev.occurred_at.ts,
                "create_importance": DEFAULT_IMPORTANCE if ev.importance is None else ev.importance,
                "importance": ev.importance,
                "now": ev.now.iso,
                "now_ts": ev.now.ts,
            },
        )
        for ent in ev.participants:
            self._ensure_entity(conn, ent)
            self._link_participant(conn, ent.id, ev.id)

    def _merge_causal(self, conn: Conn, link: CausalIn) -> None:
        importance = link.importance
        conn.execute(
            sql.MERGE_CAUSAL,
            {
                "id": link.id,
                "user_id": link.user_id,
                "cause": link.cause,
                "effect": link.effect,
                "create_importance": DEFAULT_IMPORTANCE if importance is None else importance,
                "importance": importance,
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
    def _of_entity(user_id: str, entity_id: str | None) -> tuple[str, dict[str, Any]]:
        if entity_id is None:
            return "user", {"user_id": user_id}
        return "entity", {"user_id": user_id, "eid": entity_id}

    @staticmethod
    def _events(conn: Conn, where: str, params: dict[str, Any], limit: int) -> list[TemporalEvent]:
        rows = conn.execute(sql.events(where), {**params, "limit": limit}).fetchall()
        return [
            TemporalEvent(
                id=r["id"],
                user_id=r["user_id"],
                description=r["description"],
                occurred_at=to_datetime(r["occurred_at"]),
                importance=r["importance"],
                created_at=to_datetime(r["created_at"]),
                participants=sorted(json.loads(r["participants"])),
            )
            for r in rows
        ]

    @staticmethod
    def _links(conn: Conn, where: str, params: dict[str, Any], limit: int) -> list[CausalLink]:
        rows = conn.execute(sql.links(where), {**params, "limit": limit}).fetchall()
        return [
            CausalLink(
                id=r["id"],
                user_id=r["user_id"],
                cause=r["cause"],
                effect=r["effect"],
                importance=r["importance"],
                created_at=to_datetime(r["created_at"]),
                cause_entities=sorted(json.loads(r["causes"])),
                effect_entities=sorted(json.loads(r["effects"])),
            )
            for r in rows
        ]

    # ------------------------------------------------------------------ maintenance

    @staticmethod
    def _decay(conn: Conn, op: DecayGraph) -> DecayResult:
        params = {
            "user_id": op.user_id,
            "now_ts": op.now.ts,
            "lam": op.lam,
            "rt": RELATION_PRUNE_THRESHOLD,
            "et": ENTITY_PRUNE_THRESHOLD,
        }
        rel_rows = conn.execute(sql.DECAYED_RELATIONS, params).fetchall()
        ent_rows = conn.execute(sql.DECAYED_ENTITIES, params).fetchall()
        if not op.dry_run:
            conn.executemany(sql.DELETE_RELATION, [(r["id"],) for r in rel_rows])
            conn.executemany(sql.DELETE_ENTITY, [(r["id"],) for r in ent_rows])
        return DecayResult(
            dry_run=op.dry_run,
            halflife_days=op.halflife_days,
            entities=[r["name"] for r in ent_rows],
            relations=[_relation(r) for r in rel_rows],
        )

    @staticmethod
    def _stats(conn: Conn, user_id: str) -> GraphStats:
        row = conn.execute(sql.STATS, {"u": user_id}).fetchone()
        return GraphStats(**{key: row[key] for key in row.keys()})  # noqa: SIM118
