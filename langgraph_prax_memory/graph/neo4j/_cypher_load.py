"""``load_records`` and ``delete_records`` in Cypher: records written as they are, or removed.

A mixin of :class:`~langgraph_prax_memory.graph.neo4j._cypher_ops.CypherOps`: query
generators like the other operations, run in the op's one managed transaction, so a failure
half-way leaves nothing behind. Rows go in batches of :data:`BATCH` (``UNWIND``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from typing import Any

from langgraph_prax_memory.graph._inputs import EntityIn
from langgraph_prax_memory.graph._load import DeleteRecords, LoadRecords
from langgraph_prax_memory.graph._types import GraphLoad, GraphStats
from langgraph_prax_memory.graph.neo4j import _cypher as cy
from langgraph_prax_memory.graph.neo4j._connection import Op, Query

__all__ = ["CypherLoad", "create_props"]

#: Rows per query of a load or a deletion.
BATCH = 500


def _batches(rows: Sequence[Any]) -> Iterator[list[Any]]:
    for start in range(0, len(rows), BATCH):
        yield list(rows[start : start + BATCH])


def create_props(ent: EntityIn) -> dict[str, Any]:
    """The properties of an entity node as a merge creates it (first seen now, one mention)."""
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


class CypherLoad:
    """The query generators of :class:`LoadRecords` and :class:`DeleteRecords`.

    Every batch goes through :meth:`_load_batch`, so tests can make a load fail half-way
    and check that the transaction left nothing behind.
    """

    def _load_batch(self, text: str, rows: list[dict[str, Any]], user_id: str) -> Query:
        """The query that writes one batch of a load."""
        return Query(text, {"rows": rows, "user_id": user_id})

    def _load_all(self, text: str, rows: Sequence[dict[str, Any]], user_id: str) -> Op[list[str]]:
        """Write ``rows`` batch after batch; the ids the queries return (those written)."""
        written: list[str] = []
        for batch in _batches(rows):
            result = yield self._load_batch(text, batch, user_id)
            written.extend(row["id"] for row in result if "id" in row)
        return written

    def op_load(self, op: LoadRecords) -> Op[GraphLoad]:
        """Write the records of ``op`` the user does not have; the ids of those written."""
        user = op.user_id
        given = [
            {
                "id": e.id,
                "user_id": user,
                "name": e.name,
                "display_name": e.display_name,
                "type": e.type,
                "importance": e.importance,
                "mention_count": e.mention_count,
                "first_seen": e.first_seen.dt,
                "first_seen_ts": e.first_seen.ts,
                "last_seen": e.last_seen.dt,
                "last_seen_ts": e.last_seen.ts,
                "properties": e.properties_json,
            }
            for e in op.entities
        ]
        entities = yield from self._load_all(cy.LOAD_ENTITIES, given, user)
        entities += yield from self._load_all(
            cy.LOAD_ENTITIES, [create_props(e) for e in op.endpoints], user
        )
        rels = []
        for rel in op.relations:
            props: dict[str, Any] = {
                "id": str(uuid.uuid4()),
                "user_id": user,
                "type": rel.type,
                "weight": rel.weight,
                "evidence": rel.evidence,
                "first_seen": rel.first_seen.dt,
                "first_seen_ts": rel.first_seen.ts,
                "last_seen": rel.last_seen.dt,
                "last_seen_ts": rel.last_seen.ts,
                "valid_from": rel.valid_from.dt,
                "valid_from_ts": rel.valid_from.ts,
            }
            if rel.valid_until is not None:
                props["valid_until"] = rel.valid_until.dt
                props["valid_until_ts"] = rel.valid_until.ts
            rels.append(
                {
                    "source_id": rel.source.id,
                    "target_id": rel.target.id,
                    "current": rel.valid_until is None,
                    "props": props,
                }
            )
        relations = yield from self._load_all(cy.LOAD_RELATIONS, rels, user)
        event_rows = [
            {
                "id": ev.id,
                "user_id": user,
                "description": ev.description,
                "occurred_at": ev.occurred_at.dt,
                "occurred_at_ts": ev.occurred_at.ts,
                "importance": ev.importance,
                "created_at": ev.created_at.dt,
                "created_at_ts": ev.created_at.ts,
            }
            for ev in op.events
        ]
        events = yield from self._load_all(cy.LOAD_EVENTS, event_rows, user)
        new = set(events)
        taking_part = [
            {"entity_id": ent.id, "event_id": ev.id}
            for ev in op.events
            if ev.id in new
            for ent in ev.participants
        ]
        yield from self._load_all(cy.LOAD_PARTICIPANTS, taking_part, user)
        link_rows = [
            {
                "id": link.id,
                "user_id": user,
                "cause": link.cause,
                "effect": link.effect,
                "importance": link.importance,
                "created_at": link.created_at.dt,
                "created_at_ts": link.created_at.ts,
            }
            for link in op.links
        ]
        links = yield from self._load_all(cy.LOAD_LINKS, link_rows, user)
        new = set(links)
        for text, side in ((cy.LOAD_CAUSES, "cause"), (cy.LOAD_EFFECTS, "effect")):
            rows = [
                {"entity_id": ent.id, "link_id": link.id}
                for link in op.links
                if link.id in new
                for ent in (link.cause_entities if side == "cause" else link.effect_entities)
            ]
            yield from self._load_all(text, rows, user)
        return GraphLoad(
            entities=entities, relations=relations, temporal_events=events, causal_links=links
        )

    def op_delete_records(self, op: DeleteRecords) -> Op[GraphStats]:
        """Delete the records of ``op`` (scoped to its user); the counts of what went."""
        before = yield Query(cy.STATS, {"user_id": op.user_id})
        for text, ids in (
            (cy.DELETE_RELATIONS, op.relation_ids),
            (cy.DELETE_LINKS, op.link_ids),
            (cy.DELETE_EVENTS, op.event_ids),
            (cy.DELETE_ENTITIES, op.entity_ids),
        ):
            for batch in _batches(ids):
                yield Query(text, {"user_id": op.user_id, "ids": batch})
        after = yield Query(cy.STATS, {"user_id": op.user_id})
        return GraphStats(**{key: before[0][key] - after[0][key] for key in before[0]})
