"""Cypher and transaction logic shared by the sync and async Neo4j stores.

Every operation is written once, as a generator that *yields* :class:`Query` objects and
receives each query's rows (a list of dicts) back; it *returns* the operation's result. A sync
runner (``tx.run``) and an async runner (``await tx.run``) drive the same generator inside a
managed transaction, so the two stores cannot drift apart.

All user text travels as query parameters: no value is ever formatted into a query string. The
relation type is stored as the ``type`` property of ``RELATES_TO`` (as the seed does) and is
checked against the store's :class:`~langgraph_prax_memory.graph.Vocabulary` allow-list first.
"""

from __future__ import annotations

import uuid
from collections.abc import Generator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from langgraph_prax_memory._text import append_evidence
from langgraph_prax_memory._validation import to_utc
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.graph._common import (
    DEFAULT_IMPORTANCE,
    CausalIn,
    EntityIn,
    EventIn,
    Moment,
    RelationIn,
    load_properties,
    merge_properties,
)
from langgraph_prax_memory.graph._decay import (
    ENTITY_PRUNE_THRESHOLD,
    RELATION_PRUNE_THRESHOLD,
    SECONDS_PER_DAY,
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
)

T = TypeVar("T")
Rows = list[dict[str, Any]]


@dataclass(frozen=True)
class Query:
    """A Cypher text (a constant of this module) and its parameters."""

    text: str
    params: Mapping[str, Any]


#: An operation: yields queries, receives their rows, returns a result.
Op = Generator[Query, Rows, T]

SETUP_QUERIES: tuple[str, ...] = (
    "CREATE CONSTRAINT prax_entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE",
    "CREATE INDEX prax_entity_user IF NOT EXISTS FOR (e:Entity) ON (e.user_id)",
    "CREATE CONSTRAINT prax_event_id IF NOT EXISTS FOR (t:TemporalEvent) REQUIRE t.id IS UNIQUE",
    "CREATE INDEX prax_event_user IF NOT EXISTS FOR (t:TemporalEvent) ON (t.user_id)",
    "CREATE CONSTRAINT prax_causal_id IF NOT EXISTS FOR (c:CausalLink) REQUIRE c.id IS UNIQUE",
    "CREATE INDEX prax_causal_user IF NOT EXISTS FOR (c:CausalLink) ON (c.user_id)",
    "CREATE INDEX prax_relates_user IF NOT EXISTS FOR ()-[r:RELATES_TO]-() ON (r.user_id)",
    # Also registers the ``valid_until`` property key, so queries on a fresh database do not
    # draw "property does not exist" notifications before the first edge is superseded.
    "CREATE INDEX prax_relates_validity IF NOT EXISTS FOR ()-[r:RELATES_TO]-() ON (r.valid_until)",
)

_ENSURE_ENTITIES = """
UNWIND $entities AS x
MERGE (e:Entity {id: x.id})
ON CREATE SET e += x.props
"""

_MERGE_ENTITY = """
MERGE (e:Entity {id: $id})
ON CREATE SET e += $create
ON MATCH SET
    e.mention_count = e.mention_count + 1,
    e.type = coalesce($type, e.type),
    e.importance = CASE WHEN $importance IS NOT NULL AND $importance > e.importance
                        THEN $importance ELSE e.importance END,
    e.first_seen = CASE WHEN $now_ts < e.first_seen_ts THEN $now ELSE e.first_seen END,
    e.first_seen_ts = CASE WHEN $now_ts < e.first_seen_ts THEN $now_ts ELSE e.first_seen_ts END,
    e.last_seen = CASE WHEN $now_ts > e.last_seen_ts THEN $now ELSE e.last_seen END,
    e.last_seen_ts = CASE WHEN $now_ts > e.last_seen_ts THEN $now_ts ELSE e.last_seen_ts END
RETURN e {.*} AS e
"""

_SET_PROPERTIES = """
MATCH (e:Entity {id: $id})
SET e.properties = $properties
RETURN e {.*} AS e
"""

_GET_ENTITY = "MATCH (e:Entity {id: $id}) WHERE e.user_id = $user_id RETURN e {.*} AS e"

_ENTITY_RELATIONS = """
MATCH (e:Entity {id: $id})-[r:RELATES_TO]-(:Entity)
WHERE $all OR r.valid_until IS NULL
WITH r, startNode(r) AS s, endNode(r) AS t
RETURN r {.*} AS r, s.name AS source, t.name AS target, s.id AS source_id, t.id AS target_id
ORDER BY r.valid_from_ts, r.first_seen_ts, r.type, s.name, t.name
"""

_IDS_EXIST = """
UNWIND $ids AS id
MATCH (e:Entity {id: id})
WHERE e.user_id = $user_id
RETURN e.id AS id
"""

_SEARCH = """
MATCH (e:Entity {user_id: $user_id})
WHERE e.name CONTAINS $q
RETURN e {.*} AS e
ORDER BY (e.name = $q) DESC, (e.name STARTS WITH $q) DESC, e.importance DESC,
         e.mention_count DESC, e.name
LIMIT $limit
"""

_FIND_CURRENT_TAIL = """
MATCH (a:Entity {id: $source_id})
SET a.prax_lock = true
REMOVE a.prax_lock
WITH a
MATCH (b:Entity {id: $target_id})
OPTIONAL MATCH (a)-[r:RELATES_TO {type: $type}]->(b)
WHERE r.valid_until IS NULL
RETURN r.id AS id, r.evidence AS evidence, r.valid_from_ts AS valid_from_ts
"""
# Lock the source node (a no-op write takes its write lock until commit, so two concurrent
# add_relation calls cannot both open a "current" edge), then find the current edge.
_LOCK_AND_FIND_CURRENT = _FIND_CURRENT_TAIL
# The same, after creating missing endpoints: one round trip instead of two.
_ENSURE_LOCK_AND_FIND_CURRENT = _ENSURE_ENTITIES + "WITH count(*) AS ensured\n" + _FIND_CURRENT_TAIL

_RETURN_RELATION = (
    "RETURN r {.*} AS r, a.name AS source, b.name AS target, a.id AS source_id, b.id AS target_id"
)

_STRENGTHEN = f"""
MATCH (a:Entity {{id: $source_id}})-[r:RELATES_TO {{id: $id}}]->(b:Entity {{id: $target_id}})
SET r.weight = r.weight + $weight,
    r.evidence = $evidence,
    r.last_seen = CASE WHEN $now_ts > r.last_seen_ts THEN $now ELSE r.last_seen END,
    r.last_seen_ts = CASE WHEN $now_ts > r.last_seen_ts THEN $now_ts ELSE r.last_seen_ts END
{_RETURN_RELATION}
"""

_CREATE_RELATION = f"""
MATCH (a:Entity {{id: $source_id}}), (b:Entity {{id: $target_id}})
CREATE (a)-[r:RELATES_TO]->(b)
SET r = $props
{_RETURN_RELATION}
"""

_SUPERSEDE = f"""
MATCH (a:Entity {{id: $source_id}})-[r:RELATES_TO {{id: $id}}]->(b:Entity {{id: $target_id}})
SET r.valid_until = $now, r.valid_until_ts = $now_ts
{_RETURN_RELATION}
"""

_CURRENT_TARGETS = """
MATCH (a:Entity {id: $source_id})-[r:RELATES_TO {type: $type}]->(b:Entity)
WHERE r.valid_until IS NULL AND a.user_id = $user_id
RETURN b {.*} AS e
ORDER BY r.weight DESC, b.name
"""

_MERGE_EVENT = """
MERGE (t:TemporalEvent {id: $id})
ON CREATE SET t += $create
ON MATCH SET t.importance = CASE WHEN $importance IS NOT NULL AND $importance > t.importance
                                 THEN $importance ELSE t.importance END
"""

_LINK_PARTICIPANT = """
MERGE (e:Entity {id: $entity.id})
ON CREATE SET e += $entity.props
WITH e
MATCH (t:TemporalEvent {id: $event_id})
MERGE (e)-[:PARTICIPATED_IN]->(t)
"""

_MERGE_CAUSAL = """
MERGE (c:CausalLink {id: $id})
ON CREATE SET c += $create
ON MATCH SET c.importance = CASE WHEN $importance IS NOT NULL AND $importance > c.importance
                                 THEN $importance ELSE c.importance END
"""

_LINK_CAUSE = """
MERGE (e:Entity {id: $entity.id})
ON CREATE SET e += $entity.props
WITH e
MATCH (c:CausalLink {id: $link_id})
MERGE (e)-[:CAUSED_BY {direction: 'cause'}]->(c)
"""

_LINK_EFFECT = """
MERGE (e:Entity {id: $entity.id})
ON CREATE SET e += $entity.props
WITH e
MATCH (c:CausalLink {id: $link_id})
MERGE (c)-[:CAUSED_BY {direction: 'effect'}]->(e)
"""

_EVENTS_TAIL = """
WITH t ORDER BY t.occurred_at_ts DESC, t.created_at_ts DESC, t.id LIMIT $limit
OPTIONAL MATCH (p:Entity)-[:PARTICIPATED_IN]->(t)
WITH t, collect(p.name) AS participants
RETURN t {.*} AS t, participants
ORDER BY t.occurred_at_ts DESC, t.created_at_ts DESC, t.id
"""
_EVENT_BY_ID = "MATCH (t:TemporalEvent {id: $id})" + _EVENTS_TAIL
_EVENTS_OF_USER = "MATCH (t:TemporalEvent {user_id: $user_id})" + _EVENTS_TAIL
_EVENTS_OF_ENTITY = (
    "MATCH (:Entity {id: $entity_id})-[:PARTICIPATED_IN]->(t:TemporalEvent {user_id: $user_id})"
    + _EVENTS_TAIL
)

_LINKS_TAIL = """
WITH DISTINCT c ORDER BY c.created_at_ts DESC, c.id LIMIT $limit
OPTIONAL MATCH (ce:Entity)-[:CAUSED_BY {direction: 'cause'}]->(c)
WITH c, collect(DISTINCT ce.name) AS causes
OPTIONAL MATCH (c)-[:CAUSED_BY {direction: 'effect'}]->(ee:Entity)
WITH c, causes, collect(DISTINCT ee.name) AS effects
RETURN c {.*} AS c, causes, effects
ORDER BY c.created_at_ts DESC, c.id
"""
_LINK_BY_ID = "MATCH (c:CausalLink {id: $id})" + _LINKS_TAIL
_LINKS_OF_USER = "MATCH (c:CausalLink {user_id: $user_id})" + _LINKS_TAIL
_LINKS_OF_ENTITY = (
    "MATCH (:Entity {id: $entity_id})-[:CAUSED_BY]-(c:CausalLink {user_id: $user_id})" + _LINKS_TAIL
)

_NEIGHBOURS_TAIL = """
WHERE n <> s AND n.user_id = $user_id AND all(r IN rels WHERE r.valid_until IS NULL)
WITH n, min(size(rels)) AS hops
RETURN n {.*} AS e, hops
ORDER BY hops, n.importance DESC, n.name
LIMIT $limit
"""
# Variable-length bounds cannot be parameters; ``hops`` is checked to be 1 or 2 and picks one
# of these two constant texts.
NEIGHBOURS: dict[int, str] = {
    1: "MATCH (s:Entity {id: $id})-[rels:RELATES_TO*1..1]-(n:Entity)" + _NEIGHBOURS_TAIL,
    2: "MATCH (s:Entity {id: $id})-[rels:RELATES_TO*1..2]-(n:Entity)" + _NEIGHBOURS_TAIL,
}

_AGE_DAYS = (
    "(CASE WHEN $now_ts > {0}.last_seen_ts THEN $now_ts - {0}.last_seen_ts ELSE 0.0 END) / $day"
)
_DECAY_RELATIONS = f"""
MATCH (a:Entity {{user_id: $user_id}})-[r:RELATES_TO]->(b:Entity)
WHERE r.weight * exp(-$lam * {_AGE_DAYS.format("r")}) < $rt
{_RETURN_RELATION}
ORDER BY r.valid_from_ts, r.first_seen_ts, r.type, a.name, b.name
"""
_DECAY_ENTITIES = f"""
MATCH (e:Entity {{user_id: $user_id}})
WHERE e.importance * exp(-$lam * {_AGE_DAYS.format("e")}) < $et
  AND NOT EXISTS {{
      MATCH (e)-[r:RELATES_TO]-()
      WHERE r.weight * exp(-$lam * {_AGE_DAYS.format("r")}) >= $rt
  }}
RETURN e.id AS id, e.name AS name
ORDER BY e.name
"""
_DELETE_RELATIONS = """
MATCH (:Entity {user_id: $user_id})-[r:RELATES_TO]->()
WHERE r.id IN $ids
DELETE r
"""
_DELETE_ENTITIES = """
UNWIND $ids AS id
MATCH (e:Entity {id: id})
WHERE e.user_id = $user_id
DETACH DELETE e
"""

_STATS = """
RETURN
  COUNT { MATCH (e:Entity {user_id: $user_id}) } AS entities,
  COUNT { MATCH (:Entity {user_id: $user_id})-[r:RELATES_TO]->() } AS relations,
  COUNT { MATCH (:Entity {user_id: $user_id})-[r:RELATES_TO]->() WHERE r.valid_until IS NULL }
      AS current_relations,
  COUNT { MATCH (t:TemporalEvent {user_id: $user_id}) } AS temporal_events,
  COUNT { MATCH (c:CausalLink {user_id: $user_id}) } AS causal_links
"""
_DELETE_USER: tuple[str, ...] = (
    "MATCH (e:Entity {user_id: $user_id}) DETACH DELETE e",
    "MATCH (t:TemporalEvent {user_id: $user_id}) DETACH DELETE t",
    "MATCH (c:CausalLink {user_id: $user_id}) DETACH DELETE c",
)


# --------------------------------------------------------------------------- conversions


def _dt(value: Any) -> datetime:
    native = value.to_native() if hasattr(value, "to_native") else value
    return to_utc(native)


def to_entity(props: Mapping[str, Any]) -> Entity:
    """Build an :class:`Entity` from the property map of an ``Entity`` node."""
    return Entity(
        id=props["id"],
        user_id=props["user_id"],
        name=props["name"],
        display_name=props["display_name"],
        type=props["type"],
        importance=float(props["importance"]),
        mention_count=int(props["mention_count"]),
        first_seen=_dt(props["first_seen"]),
        last_seen=_dt(props["last_seen"]),
        properties=load_properties(props.get("properties")),
    )


def to_relation(row: Mapping[str, Any]) -> Relation:
    """Build a :class:`Relation` from a row of ``_RETURN_RELATION`` shape."""
    r = row["r"]
    until = r.get("valid_until")
    return Relation(
        id=r["id"],
        user_id=r["user_id"],
        source=row["source"],
        target=row["target"],
        source_id=row["source_id"],
        target_id=row["target_id"],
        type=r["type"],
        weight=float(r["weight"]),
        evidence=r.get("evidence") or "",
        first_seen=_dt(r["first_seen"]),
        last_seen=_dt(r["last_seen"]),
        valid_from=_dt(r["valid_from"]),
        valid_until=None if until is None else _dt(until),
    )


def to_event(row: Mapping[str, Any]) -> TemporalEvent:
    """Build a :class:`TemporalEvent` from an ``_EVENTS_TAIL`` row."""
    t = row["t"]
    return TemporalEvent(
        id=t["id"],
        user_id=t["user_id"],
        description=t["description"],
        occurred_at=_dt(t["occurred_at"]),
        importance=float(t["importance"]),
        created_at=_dt(t["created_at"]),
        participants=sorted(row["participants"]),
    )


def to_link(row: Mapping[str, Any]) -> CausalLink:
    """Build a :class:`CausalLink` from a ``_LINKS_TAIL`` row."""
    c = row["c"]
    return CausalLink(
        id=c["id"],
        user_id=c["user_id"],
        cause=c["cause"],
        effect=c["effect"],
        importance=float(c["importance"]),
        created_at=_dt(c["created_at"]),
        cause_entities=sorted(row["causes"]),
        effect_entities=sorted(row["effects"]),
    )


def _create_props(ent: EntityIn) -> dict[str, Any]:
    return {
        "id": ent.id,
        "user_id": ent.user_id,
        "name": ent.name,
        "display_name": ent.display_name,
        "type": ent.create_type,
        "importance": ent.create_importance,
        "mention_count": 1,
        "first_seen": ent.now.dt,
        "first_seen_ts": ent.now.ts,
        "last_seen": ent.now.dt,
        "last_seen_ts": ent.now.ts,
        "properties": ent.create_properties_json,
    }


def _ensure_row(ent: EntityIn) -> dict[str, Any]:
    return {"id": ent.id, "props": _create_props(ent)}


# --------------------------------------------------------------------------- operations


class CypherOps:
    """The operations of a Neo4j graph store as query generators (see the module docstring).

    ``_link_participant`` is a method (not a constant) so tests can make a multi-statement
    write fail half-way and check that the transaction left nothing behind.
    """

    def _link_participant(self, entity: EntityIn, event_id: str) -> Query:
        """Create the participant if missing and link it to the event (one statement)."""
        return Query(_LINK_PARTICIPANT, {"entity": _ensure_row(entity), "event_id": event_id})

    def _link_causal(self, link_id: str, entity: EntityIn, direction: str) -> Query:
        """Create the entity if missing and link it on the ``cause`` or ``effect`` side."""
        text = _LINK_CAUSE if direction == "cause" else _LINK_EFFECT
        return Query(text, {"entity": _ensure_row(entity), "link_id": link_id})

    # writes ---------------------------------------------------------------

    def op_merge_entity(self, ent: EntityIn) -> Op[Entity]:
        rows = yield Query(
            _MERGE_ENTITY,
            {
                "id": ent.id,
                "create": _create_props(ent),
                "type": ent.type,
                "importance": ent.importance,
                "now": ent.now.dt,
                "now_ts": ent.now.ts,
            },
        )
        props = rows[0]["e"]
        if ent.properties:
            merged = merge_properties(props.get("properties"), ent.properties)
            if merged != props.get("properties"):
                rows = yield Query(_SET_PROPERTIES, {"id": ent.id, "properties": merged})
                props = rows[0]["e"]
        return to_entity(props)

    def op_add_relation(self, rel: RelationIn) -> Op[Relation]:
        key = {"source_id": rel.source.id, "target_id": rel.target.id}
        rows = yield Query(
            _ENSURE_LOCK_AND_FIND_CURRENT,
            {
                **key,
                "type": rel.type,
                "entities": [_ensure_row(rel.source), _ensure_row(rel.target)],
            },
        )
        current = rows[0] if rows else {"id": None}
        if current["id"] is not None:
            rows = yield Query(
                _STRENGTHEN,
                {
                    **key,
                    "id": current["id"],
                    "weight": rel.weight,
                    "evidence": append_evidence(current["evidence"] or "", rel.evidence),
                    "now": rel.now.dt,
                    "now_ts": rel.now.ts,
                },
            )
        else:
            props = {
                "id": str(uuid.uuid4()),
                "user_id": rel.user_id,
                "type": rel.type,
                "weight": rel.weight,
                "evidence": rel.evidence,
                "first_seen": rel.now.dt,
                "first_seen_ts": rel.now.ts,
                "last_seen": rel.now.dt,
                "last_seen_ts": rel.now.ts,
                "valid_from": rel.valid_from.dt,
                "valid_from_ts": rel.valid_from.ts,
            }
            rows = yield Query(_CREATE_RELATION, {**key, "props": props})
        return to_relation(rows[0])

    def op_supersede(
        self, source_id: str, target_id: str, rel_type: str, now: Moment
    ) -> Op[Relation | None]:
        key = {"source_id": source_id, "target_id": target_id}
        rows = yield Query(_LOCK_AND_FIND_CURRENT, {**key, "type": rel_type})
        if not rows or rows[0]["id"] is None:
            return None
        if now.ts < float(rows[0]["valid_from_ts"]):
            raise MemoryValidationError(
                "cannot supersede a relation before it became valid (now < valid_from)"
            )
        rows = yield Query(
            _SUPERSEDE, {**key, "id": rows[0]["id"], "now": now.dt, "now_ts": now.ts}
        )
        return to_relation(rows[0])

    def op_merge_event(self, ev: EventIn) -> Op[TemporalEvent]:
        create = {
            "id": ev.id,
            "user_id": ev.user_id,
            "description": ev.description,
            "occurred_at": ev.occurred_at.dt,
            "occurred_at_ts": ev.occurred_at.ts,
            "importance": DEFAULT_IMPORTANCE if ev.importance is None else ev.importance,
            "created_at": ev.now.dt,
            "created_at_ts": ev.now.ts,
        }
        yield Query(_MERGE_EVENT, {"id": ev.id, "create": create, "importance": ev.importance})
        for ent in ev.participants:
            yield self._link_participant(ent, ev.id)
        rows = yield Query(_EVENT_BY_ID, {"id": ev.id, "limit": 1})
        return to_event(rows[0])

    def op_add_causal(self, link: CausalIn) -> Op[CausalLink]:
        create = {
            "id": link.id,
            "user_id": link.user_id,
            "cause": link.cause,
            "effect": link.effect,
            "importance": DEFAULT_IMPORTANCE if link.importance is None else link.importance,
            "created_at": link.now.dt,
            "created_at_ts": link.now.ts,
        }
        yield Query(_MERGE_CAUSAL, {"id": link.id, "create": create, "importance": link.importance})
        for ent in link.cause_entities:
            yield self._link_causal(link.id, ent, "cause")
        for ent in link.effect_entities:
            yield self._link_causal(link.id, ent, "effect")
        rows = yield Query(_LINK_BY_ID, {"id": link.id, "limit": 1})
        return to_link(rows[0])

    def op_decay(
        self, user_id: str, now: Moment, lam: float, halflife: float, dry_run: bool
    ) -> Op[DecayResult]:
        params = {
            "user_id": user_id,
            "now_ts": now.ts,
            "lam": lam,
            "day": SECONDS_PER_DAY,
            "rt": RELATION_PRUNE_THRESHOLD,
            "et": ENTITY_PRUNE_THRESHOLD,
        }
        rel_rows = yield Query(_DECAY_RELATIONS, params)
        ent_rows = yield Query(_DECAY_ENTITIES, params)
        if not dry_run:
            if rel_rows:
                ids = [row["r"]["id"] for row in rel_rows]
                yield Query(_DELETE_RELATIONS, {"user_id": user_id, "ids": ids})
            if ent_rows:
                ids = [row["id"] for row in ent_rows]
                yield Query(_DELETE_ENTITIES, {"user_id": user_id, "ids": ids})
        return DecayResult(
            dry_run=dry_run,
            halflife_days=halflife,
            entities=[row["name"] for row in ent_rows],
            relations=[to_relation(row) for row in rel_rows],
        )

    def op_delete_user(self, user_id: str) -> Op[GraphStats]:
        rows = yield Query(_STATS, {"user_id": user_id})
        for text in _DELETE_USER:
            yield Query(text, {"user_id": user_id})
        return GraphStats(**rows[0])

    # reads ----------------------------------------------------------------

    def op_get_entity(
        self, user_id: str, ent_id: str, include_superseded: bool
    ) -> Op[EntityWithRelations | None]:
        rows = yield Query(_GET_ENTITY, {"id": ent_id, "user_id": user_id})
        if not rows:
            return None
        rels = yield Query(_ENTITY_RELATIONS, {"id": ent_id, "all": include_superseded})
        return EntityWithRelations(
            entity=to_entity(rows[0]["e"]), relations=[to_relation(r) for r in rels]
        )

    def op_ids_exist(self, user_id: str, ids: list[str]) -> Op[set[str]]:
        rows = yield Query(_IDS_EXIST, {"ids": ids, "user_id": user_id})
        return {row["id"] for row in rows}

    def op_search(self, user_id: str, needle: str, limit: int) -> Op[list[Entity]]:
        rows = yield Query(_SEARCH, {"user_id": user_id, "q": needle, "limit": limit})
        return [to_entity(row["e"]) for row in rows]

    def op_current_targets(self, user_id: str, source_id: str, rel_type: str) -> Op[list[Entity]]:
        rows = yield Query(
            _CURRENT_TARGETS, {"user_id": user_id, "source_id": source_id, "type": rel_type}
        )
        return [to_entity(row["e"]) for row in rows]

    def op_events(self, user_id: str, entity_id: str | None, limit: int) -> Op[list[TemporalEvent]]:
        if entity_id is None:
            query = Query(_EVENTS_OF_USER, {"user_id": user_id, "limit": limit})
        else:
            query = Query(
                _EVENTS_OF_ENTITY, {"user_id": user_id, "entity_id": entity_id, "limit": limit}
            )
        rows = yield query
        return [to_event(row) for row in rows]

    def op_links(self, user_id: str, entity_id: str | None, limit: int) -> Op[list[CausalLink]]:
        if entity_id is None:
            query = Query(_LINKS_OF_USER, {"user_id": user_id, "limit": limit})
        else:
            query = Query(
                _LINKS_OF_ENTITY, {"user_id": user_id, "entity_id": entity_id, "limit": limit}
            )
        rows = yield query
        return [to_link(row) for row in rows]

    def op_neighbours(
        self, user_id: str, ent_id: str, hops: int, limit: int
    ) -> Op[list[Neighbour]]:
        rows = yield Query(NEIGHBOURS[hops], {"id": ent_id, "user_id": user_id, "limit": limit})
        return [Neighbour(entity=to_entity(row["e"]), hops=int(row["hops"])) for row in rows]

    def op_stats(self, user_id: str) -> Op[GraphStats]:
        rows = yield Query(_STATS, {"user_id": user_id})
        return GraphStats(**rows[0])
