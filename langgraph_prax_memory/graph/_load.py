"""Loading records as they are, and deleting records by id: the ops of an import and its undo.

``GraphStore.load_records`` writes entities, relations, events and causal links exactly as
given (an export's, or another user's ``list_*`` pages): their mention counts, first and last
sightings, creation times and validity are kept, where the merge methods would count a new
sighting. A record the user already has is left as it is (matched by its stable id, a
relation by its ends, type and ``valid_from``), so loading the same records twice changes
nothing. ``GraphStore.delete_records`` removes records of one user by id (what a failed
import created). Each is one op, run in one transaction like every other.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from langgraph_prax_memory._validation import check_user_id
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.graph._inputs import (
    EntityIn,
    Moment,
    _check_properties,
    dump_properties,
    prep_endpoint,
    prep_endpoints,
)
from langgraph_prax_memory.graph._ops import GraphOp
from langgraph_prax_memory.graph._types import (
    CausalLink,
    Entity,
    GraphLoad,
    GraphStats,
    Relation,
    TemporalEvent,
    Vocabulary,
    causal_link_id,
    check_display_name,
    check_evidence,
    check_importance_or_default,
    check_text,
    check_weight,
    entity_id,
    event_id,
)

__all__ = [
    "DeleteRecords",
    "EntityLoad",
    "EventLoad",
    "LinkLoad",
    "LoadRecords",
    "RelationLoad",
    "build_delete_records",
    "build_load",
    "prep_load",
]

#: A record ``load_records`` takes: what the ``list_*`` methods return.
Record = Entity | Relation | TemporalEvent | CausalLink


@dataclass(frozen=True)
class EntityLoad:
    """A checked entity, to be stored as it is (its id is the target user's)."""

    id: str
    name: str
    display_name: str
    type: str
    importance: float
    mention_count: int
    first_seen: Moment
    last_seen: Moment
    properties_json: str


@dataclass(frozen=True)
class RelationLoad:
    """A checked relation; its ends are created with defaults when missing."""

    source: EntityIn
    target: EntityIn
    type: str
    weight: float
    evidence: str
    first_seen: Moment
    last_seen: Moment
    valid_from: Moment
    valid_until: Moment | None

    @property
    def key(self) -> tuple[str, str, str, float]:
        """What makes two relations the same one: ends, type and ``valid_from``."""
        return (self.source.id, self.target.id, self.type, self.valid_from.ts)


@dataclass(frozen=True)
class EventLoad:
    """A checked temporal event and its participants."""

    id: str
    description: str
    occurred_at: Moment
    importance: float
    created_at: Moment
    participants: tuple[EntityIn, ...]


@dataclass(frozen=True)
class LinkLoad:
    """A checked causal link and the entities on each side."""

    id: str
    cause: str
    effect: str
    importance: float
    created_at: Moment
    cause_entities: tuple[EntityIn, ...]
    effect_entities: tuple[EntityIn, ...]


Loaded = EntityLoad | RelationLoad | EventLoad | LinkLoad


@dataclass(frozen=True)
class LoadRecords(GraphOp[GraphLoad]):
    """Write the records that are new to the user, as they are, in one transaction.

    ``endpoints`` are the entities the relations, events and links name that are not among
    ``entities``: created with defaults (as the merge methods create them) when missing.
    """

    name = "load_records"
    writes = True
    slow = True
    user_id: str
    entities: tuple[EntityLoad, ...]
    endpoints: tuple[EntityIn, ...]
    relations: tuple[RelationLoad, ...]
    events: tuple[EventLoad, ...]
    links: tuple[LinkLoad, ...]


@dataclass(frozen=True)
class DeleteRecords(GraphOp[GraphStats]):
    """Delete records of one user by id (an entity with its edges); returns what went."""

    name = "delete_records"
    writes = True
    slow = True
    user_id: str
    entity_ids: tuple[str, ...]
    relation_ids: tuple[str, ...]
    event_ids: tuple[str, ...]
    link_ids: tuple[str, ...]


def _moment(value: object, what: str) -> Moment:
    if not isinstance(value, datetime):
        raise MemoryValidationError(f"{what} must be a datetime, got {type(value).__name__}")
    return Moment.of(value, what=what)


def _ordered(first: Moment, last: Moment, what: str, before: str) -> None:
    """Raise when ``last`` is before ``first`` (``what`` before ``before``)."""
    if last.ts < first.ts:
        raise MemoryValidationError(f"{what} is before {before}")


def _importance(value: object) -> float:
    return check_importance_or_default(value, 0.5)


def prep_load(vocabulary: Vocabulary, user_id: str, record: Record) -> Loaded:
    """Check one record for :meth:`GraphStore.load_records` and make it the user's.

    The record's ids and ``user_id`` are not used: its id is derived for ``user_id`` (an
    entity's from its name, an event's from its text and moment, a causal link's from its
    cause and effect); a relation's ends are its ``source`` and ``target`` names.

    Raises:
        MemoryValidationError: A field its write would refuse.
    """
    check_user_id(user_id)
    match record:
        case Entity():
            display = check_display_name(record.display_name)
            if check_display_name(record.name).lower() != display.lower():
                raise MemoryValidationError(
                    f"entity name {record.name!r} is not display_name {display!r} lower-cased"
                )
            if isinstance(record.mention_count, bool) or record.mention_count < 1:
                raise MemoryValidationError(
                    f"mention_count must be a whole number of at least 1, got "
                    f"{record.mention_count!r}"
                )
            first = _moment(record.first_seen, "first_seen")
            last = _moment(record.last_seen, "last_seen")
            _ordered(first, last, "last_seen", "first_seen")
            return EntityLoad(
                id=entity_id(user_id, display),
                name=display.lower(),
                display_name=display,
                type=vocabulary.check_entity_type(record.type),
                importance=_importance(record.importance),
                mention_count=record.mention_count,
                first_seen=first,
                last_seen=last,
                properties_json=dump_properties(_check_properties(record.properties) or {}),
            )
        case Relation():
            first = _moment(record.first_seen, "first_seen")
            last = _moment(record.last_seen, "last_seen")
            _ordered(first, last, "last_seen", "first_seen")
            valid_from = _moment(record.valid_from, "valid_from")
            until = None
            if record.valid_until is not None:
                until = _moment(record.valid_until, "valid_until")
                _ordered(valid_from, until, "valid_until", "valid_from")
            src = prep_endpoint(user_id, record.source, first)
            dst = prep_endpoint(user_id, record.target, first)
            if src.id == dst.id:
                raise MemoryValidationError("a relation needs two different entities")
            return RelationLoad(
                source=src,
                target=dst,
                type=vocabulary.check_relation_type(record.type),
                weight=check_weight(record.weight),
                evidence=check_evidence(record.evidence),
                first_seen=first,
                last_seen=last,
                valid_from=valid_from,
                valid_until=until,
            )
        case TemporalEvent():
            text = check_text(record.description, what="event description")
            when = _moment(record.occurred_at, "occurred_at")
            created = _moment(record.created_at, "created_at")
            return EventLoad(
                id=event_id(user_id, text, when.dt),
                description=text,
                occurred_at=when,
                importance=_importance(record.importance),
                created_at=created,
                participants=prep_endpoints(user_id, record.participants, created),
            )
        case CausalLink():
            cause = check_text(record.cause, what="cause")
            effect = check_text(record.effect, what="effect")
            created = _moment(record.created_at, "created_at")
            return LinkLoad(
                id=causal_link_id(user_id, cause, effect),
                cause=cause,
                effect=effect,
                importance=_importance(record.importance),
                created_at=created,
                cause_entities=prep_endpoints(user_id, record.cause_entities, created),
                effect_entities=prep_endpoints(user_id, record.effect_entities, created),
            )
    raise MemoryValidationError(
        f"load_records takes entities, relations, events and causal links, got "
        f"{type(record).__name__}"
    )


def _named(records: Iterable[Any], what: str) -> list[Any]:
    if isinstance(records, str | bytes):
        raise MemoryValidationError(f"{what} must be a list of records, not a string")
    return list(records)


def build_load(
    vocabulary: Vocabulary,
    user_id: str,
    *,
    entities: Iterable[Entity],
    relations: Iterable[Relation],
    events: Iterable[TemporalEvent],
    links: Iterable[CausalLink],
) -> LoadRecords:
    """The :class:`LoadRecords` of ``GraphStore.load_records``'s arguments.

    Records that are the same one twice (an entity's name, a relation's ends, type and
    ``valid_from``, or two current relations of the same ends and type; an event's text and
    moment; a causal link's cause and effect) are loaded once, the first given.
    """
    check_user_id(user_id)
    kinds = (
        (entities, Entity, "entities"),
        (relations, Relation, "relations"),
        (events, TemporalEvent, "events"),
        (links, CausalLink, "links"),
    )
    out: dict[type, dict[Any, Any]] = {}
    for records, kind, what in kinds:
        seen: dict[Any, Any] = out.setdefault(kind, {})
        current: set[tuple[str, str, str]] = set()
        for record in _named(records, what):
            if not isinstance(record, kind):
                raise MemoryValidationError(
                    f"{what} must be {kind.__name__} records, got {type(record).__name__}"
                )
            loaded = prep_load(vocabulary, user_id, record)
            if isinstance(loaded, RelationLoad):
                triple = loaded.key[:3]
                if loaded.valid_until is None:
                    if triple in current:
                        continue
                    current.add(triple)
                seen.setdefault(loaded.key, loaded)
            else:
                seen.setdefault(loaded.id, loaded)
    given = {e.id for e in out[Entity].values()}
    endpoints: dict[str, EntityIn] = {}
    for rel in out[Relation].values():
        for end in (rel.source, rel.target):
            endpoints.setdefault(end.id, end)
    for ev in out[TemporalEvent].values():
        for end in ev.participants:
            endpoints.setdefault(end.id, end)
    for link in out[CausalLink].values():
        for end in (*link.cause_entities, *link.effect_entities):
            endpoints.setdefault(end.id, end)
    return LoadRecords(
        user_id=user_id,
        entities=tuple(out[Entity].values()),
        endpoints=tuple(e for i, e in endpoints.items() if i not in given),
        relations=tuple(out[Relation].values()),
        events=tuple(out[TemporalEvent].values()),
        links=tuple(out[CausalLink].values()),
    )


def _ids(values: Iterable[str], what: str) -> tuple[str, ...]:
    found = _named(values, what)
    for value in found:
        if not isinstance(value, str):
            raise MemoryValidationError(f"{what} must be strings, got {type(value).__name__}")
    return tuple(sorted(set(found)))


def build_delete_records(
    user_id: str,
    *,
    entity_ids: Iterable[str],
    relation_ids: Iterable[str],
    event_ids: Iterable[str],
    link_ids: Iterable[str],
) -> DeleteRecords:
    """The :class:`DeleteRecords` of ``GraphStore.delete_records``'s arguments."""
    return DeleteRecords(
        check_user_id(user_id),
        _ids(entity_ids, "entity_ids"),
        _ids(relation_ids, "relation_ids"),
        _ids(event_ids, "event_ids"),
        _ids(link_ids, "link_ids"),
    )
