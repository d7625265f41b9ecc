"""The graph operations in Cypher: each one written once, as a query generator.

Every operation *yields* :class:`Query` objects (the constant texts of ``_cypher.py`` and
their parameters) and receives each query's rows (a list of dicts) back; it *returns* the
operation's result. :meth:`CypherOps.cypher` picks the generator of an op object;
``Neo4jConnection.execute`` (sync) and ``aexecute`` (async) drive it inside one managed
transaction, so the two stores cannot drift apart.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any

from langgraph_prax_memory._text import append_evidence
from langgraph_prax_memory._time import to_datetime
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.graph._decay import (
    ENTITY_PRUNE_THRESHOLD,
    RELATION_PRUNE_THRESHOLD,
    SECONDS_PER_DAY,
)
from langgraph_prax_memory.graph._inputs import (
    DEFAULT_IMPORTANCE,
    CausalIn,
    EntityIn,
    EventIn,
    Moment,
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
    Page,
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
)
from langgraph_prax_memory.graph.neo4j import _cypher as cy
from langgraph_prax_memory.graph.neo4j._connection import Op, Query
from langgraph_prax_memory.graph.neo4j._cypher_load import CypherLoad, create_props

# --------------------------------------------------------------------------- conversions


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
        first_seen=to_datetime(props["first_seen"]),
        last_seen=to_datetime(props["last_seen"]),
        properties=load_properties(props.get("properties")),
    )


def to_relation(row: Mapping[str, Any]) -> Relation:
    """Build a :class:`Relation` from a row of ``cy.RETURN_RELATION`` shape."""
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
        first_seen=to_datetime(r["first_seen"]),
        last_seen=to_datetime(r["last_seen"]),
        valid_from=to_datetime(r["valid_from"]),
        valid_until=None if until is None else to_datetime(until),
    )


def to_event(row: Mapping[str, Any]) -> TemporalEvent:
    """Build a :class:`TemporalEvent` from an ``cy.EVENTS_TAIL`` row."""
    t = row["t"]
    return TemporalEvent(
        id=t["id"],
        user_id=t["user_id"],
        description=t["description"],
        occurred_at=to_datetime(t["occurred_at"]),
        importance=float(t["importance"]),
        created_at=to_datetime(t["created_at"]),
        participants=sorted(row["participants"]),
    )


def to_link(row: Mapping[str, Any]) -> CausalLink:
    """Build a :class:`CausalLink` from a ``cy.LINKS_TAIL`` row."""
    c = row["c"]
    return CausalLink(
        id=c["id"],
        user_id=c["user_id"],
        cause=c["cause"],
        effect=c["effect"],
        importance=float(c["importance"]),
        created_at=to_datetime(c["created_at"]),
        cause_entities=sorted(row["causes"]),
        effect_entities=sorted(row["effects"]),
    )


def _ensure_row(ent: EntityIn) -> dict[str, Any]:
    return {"id": ent.id, "props": create_props(ent)}


# --------------------------------------------------------------------------- operations


class CypherOps(CypherLoad):
    """The operations of a Neo4j graph store as query generators (see the module docstring).

    ``_link_participant`` is a method (not a constant) so tests can make a multi-statement
    write fail half-way and check that the transaction left nothing behind.
    """

    def cypher(self, op: GraphOp[Any]) -> Op[Any]:
        """The query generator that runs ``op``."""
        match op:
            case MergeEntity():
                return self.op_merge_entity(op.entity)
            case GetEntity():
                return self.op_get_entity(op.user_id, op.entity_id, op.include_superseded)
            case EntityIdsFor():
                return self.op_entity_ids(op)
            case SearchEntities():
                return self.op_search(op.user_id, op.needle, op.limit)
            case TopEntities():
                return self.op_top_entities(op.user_id, op.limit)
            case ListEntities() | ListRelations() | ListEvents() | ListCausalLinks():
                return self.op_page(op)
            case RelationsAmong():
                return self.op_relations_among(op)
            case AddRelation():
                return self.op_add_relation(op.relation)
            case SupersedeRelation():
                return self.op_supersede(op.source_id, op.target_id, op.type, op.now)
            case CurrentTargets():
                return self.op_current_targets(op.user_id, op.source_id, op.type)
            case MergeEvent():
                return self.op_merge_event(op.event)
            case AddCausalLink():
                return self.op_add_causal(op.link)
            case GetEvents():
                return self.op_events(op.user_id, op.entity_id, op.limit)
            case GetCausalLinks():
                return self.op_links(op.user_id, op.entity_id, op.limit)
            case GetNeighbours():
                return self.op_neighbours(op.user_id, op.entity_id, op.hops, op.limit)
            case DecayGraph():
                return self.op_decay(op.user_id, op.now, op.lam, op.halflife_days, op.dry_run)
            case Stats():
                return self.op_stats(op.user_id)
            case DeleteUser():
                return self.op_delete_user(op.user_id)
            case LoadRecords():
                return self.op_load(op)
            case DeleteRecords():
                return self.op_delete_records(op)
        raise TypeError(f"no Cypher for {type(op).__name__}")

    def _link_participant(self, entity: EntityIn, event_id: str) -> Query:
        """Create the participant if missing and link it to the event (one statement)."""
        return Query(cy.LINK_PARTICIPANT, {"entity": _ensure_row(entity), "event_id": event_id})

    def _link_causal(self, link_id: str, entity: EntityIn, direction: str) -> Query:
        """Create the entity if missing and link it on the ``cause`` or ``effect`` side."""
        text = cy.LINK_CAUSE if direction == "cause" else cy.LINK_EFFECT
        return Query(text, {"entity": _ensure_row(entity), "link_id": link_id})

    # writes ---------------------------------------------------------------

    def op_merge_entity(self, ent: EntityIn) -> Op[Entity]:
        rows = yield Query(
            cy.MERGE_ENTITY,
            {
                "id": ent.id,
                "create": create_props(ent),
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
                rows = yield Query(cy.SET_PROPERTIES, {"id": ent.id, "properties": merged})
                props = rows[0]["e"]
        return to_entity(props)

    def op_add_relation(self, rel: RelationIn) -> Op[Relation]:
        key = {"source_id": rel.source.id, "target_id": rel.target.id}
        rows = yield Query(
            cy.ENSURE_LOCK_AND_FIND_CURRENT,
            {
                **key,
                "type": rel.type,
                "entities": [_ensure_row(rel.source), _ensure_row(rel.target)],
            },
        )
        current = rows[0] if rows else {"id": None}
        if current["id"] is not None:
            rows = yield Query(
                cy.STRENGTHEN,
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
            rows = yield Query(cy.CREATE_RELATION, {**key, "props": props})
        return to_relation(rows[0])

    def op_supersede(
        self, source_id: str, target_id: str, rel_type: str, now: Moment
    ) -> Op[Relation | None]:
        key = {"source_id": source_id, "target_id": target_id}
        rows = yield Query(cy.LOCK_AND_FIND_CURRENT, {**key, "type": rel_type})
        if not rows or rows[0]["id"] is None:
            return None
        if now.ts < float(rows[0]["valid_from_ts"]):
            raise MemoryValidationError(
                "cannot supersede a relation before it became valid (now < valid_from)"
            )
        rows = yield Query(
            cy.SUPERSEDE, {**key, "id": rows[0]["id"], "now": now.dt, "now_ts": now.ts}
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
        yield Query(cy.MERGE_EVENT, {"id": ev.id, "create": create, "importance": ev.importance})
        for ent in ev.participants:
            yield self._link_participant(ent, ev.id)
        rows = yield Query(cy.EVENT_BY_ID, {"id": ev.id, "limit": 1})
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
        yield Query(
            cy.MERGE_CAUSAL, {"id": link.id, "create": create, "importance": link.importance}
        )
        for ent in link.cause_entities:
            yield self._link_causal(link.id, ent, "cause")
        for ent in link.effect_entities:
            yield self._link_causal(link.id, ent, "effect")
        rows = yield Query(cy.LINK_BY_ID, {"id": link.id, "limit": 1})
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
        rel_rows = yield Query(cy.DECAY_RELATIONS, params)
        ent_rows = yield Query(cy.DECAY_ENTITIES, params)
        if not dry_run:
            if rel_rows:
                ids = [row["r"]["id"] for row in rel_rows]
                yield Query(cy.DELETE_RELATIONS, {"user_id": user_id, "ids": ids})
            if ent_rows:
                ids = [row["id"] for row in ent_rows]
                yield Query(cy.DELETE_ENTITIES, {"user_id": user_id, "ids": ids})
        return DecayResult(
            dry_run=dry_run,
            halflife_days=halflife,
            entities=[row["name"] for row in ent_rows],
            relations=[to_relation(row) for row in rel_rows],
        )

    def op_delete_user(self, user_id: str) -> Op[GraphStats]:
        rows = yield Query(cy.STATS, {"user_id": user_id})
        for text in cy.DELETE_USER:
            yield Query(text, {"user_id": user_id})
        return GraphStats(**rows[0])

    # reads ----------------------------------------------------------------

    def op_get_entity(
        self, user_id: str, ent_id: str, include_superseded: bool
    ) -> Op[EntityWithRelations | None]:
        rows = yield Query(cy.GET_ENTITY, {"id": ent_id, "user_id": user_id})
        if not rows:
            return None
        rels = yield Query(cy.ENTITY_RELATIONS, {"id": ent_id, "all": include_superseded})
        return EntityWithRelations(
            entity=to_entity(rows[0]["e"]), relations=[to_relation(r) for r in rels]
        )

    def op_entity_ids(self, op: EntityIdsFor) -> Op[dict[str, str]]:
        found = yield from self.op_ids_exist(op.user_id, op.ids)
        return op.found(found)

    def op_ids_exist(self, user_id: str, ids: list[str]) -> Op[set[str]]:
        rows = yield Query(cy.IDS_EXIST, {"ids": ids, "user_id": user_id})
        return {row["id"] for row in rows}

    def op_search(self, user_id: str, needle: str, limit: int) -> Op[list[Entity]]:
        rows = yield Query(cy.SEARCH, {"user_id": user_id, "q": needle, "limit": limit})
        return [to_entity(row["e"]) for row in rows]

    def op_top_entities(self, user_id: str, limit: int) -> Op[list[Entity]]:
        rows = yield Query(cy.TOP_ENTITIES, {"user_id": user_id, "limit": limit})
        return [to_entity(row["e"]) for row in rows]

    def op_page(self, op: Page) -> Op[list[Any]]:
        params = {"user_id": op.user_id, "after": op.after, "limit": op.limit}
        convert: Callable[[Mapping[str, Any]], Any]
        match op:
            case ListEntities():
                text, convert = cy.ENTITIES_PAGE, lambda row: to_entity(row["e"])
            case ListRelations():
                text, convert = cy.RELATIONS_PAGE, to_relation
            case ListEvents():
                text, convert = cy.EVENTS_PAGE, to_event
            case ListCausalLinks():
                text, convert = cy.LINKS_PAGE, to_link
        rows = yield Query(text, params)
        return [convert(row) for row in rows]

    def op_relations_among(self, op: RelationsAmong) -> Op[list[Relation]]:
        rows = yield Query(
            cy.RELATIONS_AMONG,
            {
                "user_id": op.user_id,
                "ids": list(op.entity_ids),
                "both": op.both_ends,
                "all": op.include_superseded,
                "limit": op.limit,
            },
        )
        return [to_relation(row) for row in rows]

    def op_current_targets(self, user_id: str, source_id: str, rel_type: str) -> Op[list[Entity]]:
        rows = yield Query(
            cy.CURRENT_TARGETS, {"user_id": user_id, "source_id": source_id, "type": rel_type}
        )
        return [to_entity(row["e"]) for row in rows]

    def op_events(self, user_id: str, entity_id: str | None, limit: int) -> Op[list[TemporalEvent]]:
        if entity_id is None:
            query = Query(cy.EVENTS_OF_USER, {"user_id": user_id, "limit": limit})
        else:
            query = Query(
                cy.EVENTS_OF_ENTITY, {"user_id": user_id, "entity_id": entity_id, "limit": limit}
            )
        rows = yield query
        return [to_event(row) for row in rows]

    def op_links(self, user_id: str, entity_id: str | None, limit: int) -> Op[list[CausalLink]]:
        if entity_id is None:
            query = Query(cy.LINKS_OF_USER, {"user_id": user_id, "limit": limit})
        else:
            query = Query(
                cy.LINKS_OF_ENTITY, {"user_id": user_id, "entity_id": entity_id, "limit": limit}
            )
        rows = yield query
        return [to_link(row) for row in rows]

    def op_neighbours(
        self, user_id: str, ent_id: str, hops: int, limit: int
    ) -> Op[list[Neighbour]]:
        rows = yield Query(cy.NEIGHBOURS[hops], {"id": ent_id, "user_id": user_id, "limit": limit})
        return [Neighbour(entity=to_entity(row["e"]), hops=int(row["hops"])) for row in rows]

    def op_stats(self, user_id: str) -> Op[GraphStats]:
        rows = yield Query(cy.STATS, {"user_id": user_id})
        return GraphStats(**rows[0])
