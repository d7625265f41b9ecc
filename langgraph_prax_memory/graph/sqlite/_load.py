"""``load_records`` and ``delete_records`` on SQLite: records written as they are, or removed.

A mixin of :class:`~langgraph_prax_memory.graph.SQLiteGraphStore`; its runner calls
:meth:`SQLiteLoading.load` / :meth:`SQLiteLoading.delete_records_in` inside the op's one
``BEGIN IMMEDIATE`` transaction, so a failure half-way leaves nothing behind.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from typing import Any

from langgraph_prax_memory.graph._inputs import EntityIn
from langgraph_prax_memory.graph._load import DeleteRecords, LoadRecords
from langgraph_prax_memory.graph._types import GraphLoad, GraphStats
from langgraph_prax_memory.graph.sqlite import _sql as sql

__all__ = ["SQLiteLoading", "ensure_params"]


def _stats(conn: sqlite3.Connection, user_id: str) -> GraphStats:
    row = conn.execute(sql.STATS, {"u": user_id}).fetchone()
    return GraphStats(**{key: row[key] for key in row.keys()})  # noqa: SIM118


def ensure_params(ent: EntityIn) -> dict[str, Any]:
    """The parameters of ``ENSURE_ENTITY``: the entity as it is created when missing."""
    return {
        "id": ent.id,
        "user_id": ent.user_id,
        "name": ent.name,
        "display_name": ent.display_name,
        "type": ent.create_type,
        "importance": ent.create_importance,
        "now": ent.now.iso,
        "now_ts": ent.now.ts,
        "properties": ent.create_properties_json,
    }


class SQLiteLoading:
    """Runs :class:`LoadRecords` and :class:`DeleteRecords` on an open transaction.

    Every record goes through :meth:`_load_row`, one statement, so tests can make a load
    fail half-way and check that the transaction left nothing behind.
    """

    def _load_row(self, conn: sqlite3.Connection, text: str, params: dict[str, Any]) -> bool:
        """Run one insert of a load; whether it wrote a row."""
        return conn.execute(text, params).rowcount > 0

    def load(self, conn: sqlite3.Connection, op: LoadRecords) -> GraphLoad:
        """Write the records of ``op`` the user does not have; the ids of those written."""
        user = op.user_id
        entities: list[str] = []
        for ent in op.entities:
            row = {
                "id": ent.id,
                "user_id": user,
                "name": ent.name,
                "display_name": ent.display_name,
                "type": ent.type,
                "importance": ent.importance,
                "mention_count": ent.mention_count,
                "first_seen": ent.first_seen.iso,
                "first_seen_ts": ent.first_seen.ts,
                "last_seen": ent.last_seen.iso,
                "last_seen_ts": ent.last_seen.ts,
                "properties": ent.properties_json,
            }
            if self._load_row(conn, sql.LOAD_ENTITY, row):
                entities.append(ent.id)
        for end in op.endpoints:
            if self._load_row(conn, sql.ENSURE_ENTITY, ensure_params(end)):
                entities.append(end.id)
        relations: list[str] = []
        for rel in op.relations:
            key = {
                "source_id": rel.source.id,
                "target_id": rel.target.id,
                "type": rel.type,
                "valid_from_ts": rel.valid_from.ts,
            }
            there = conn.execute(sql.RELATION_THERE, {**key, "current": rel.valid_until is None})
            if there.fetchone() is not None:
                continue
            rel_id = str(uuid.uuid4())
            until = rel.valid_until
            row = {
                **key,
                "id": rel_id,
                "user_id": user,
                "weight": rel.weight,
                "evidence": rel.evidence,
                "first_seen": rel.first_seen.iso,
                "first_seen_ts": rel.first_seen.ts,
                "last_seen": rel.last_seen.iso,
                "last_seen_ts": rel.last_seen.ts,
                "valid_from": rel.valid_from.iso,
                "valid_until": None if until is None else until.iso,
                "valid_until_ts": None if until is None else until.ts,
            }
            if self._load_row(conn, sql.LOAD_RELATION, row):
                relations.append(rel_id)
        events: list[str] = []
        for ev in op.events:
            row = {
                "id": ev.id,
                "user_id": user,
                "description": ev.description,
                "occurred_at": ev.occurred_at.iso,
                "occurred_at_ts": ev.occurred_at.ts,
                "importance": ev.importance,
                "created_at": ev.created_at.iso,
                "created_at_ts": ev.created_at.ts,
            }
            if self._load_row(conn, sql.LOAD_EVENT, row):
                events.append(ev.id)
                for who in ev.participants:
                    conn.execute(sql.LINK_PARTICIPANT, (who.id, ev.id))
        links: list[str] = []
        for link in op.links:
            row = {
                "id": link.id,
                "user_id": user,
                "cause": link.cause,
                "effect": link.effect,
                "importance": link.importance,
                "created_at": link.created_at.iso,
                "created_at_ts": link.created_at.ts,
            }
            if self._load_row(conn, sql.LOAD_LINK, row):
                links.append(link.id)
                for who in link.cause_entities:
                    conn.execute(sql.LINK_CAUSAL, (link.id, who.id, "cause"))
                for who in link.effect_entities:
                    conn.execute(sql.LINK_CAUSAL, (link.id, who.id, "effect"))
        return GraphLoad(
            entities=entities, relations=relations, temporal_events=events, causal_links=links
        )

    @staticmethod
    def delete_records_in(conn: sqlite3.Connection, op: DeleteRecords) -> GraphStats:
        """Delete the records of ``op`` (scoped to its user); the counts of what went."""
        before = _stats(conn, op.user_id)
        for field, text in sql.DELETE_RECORDS:
            ids = getattr(op, field)
            if ids:
                conn.execute(text, {"user_id": op.user_id, "ids": json.dumps(list(ids))})
        after = _stats(conn, op.user_id)
        return GraphStats(
            **{
                name: getattr(before, name) - getattr(after, name)
                for name in GraphStats.model_fields
            }
        )
