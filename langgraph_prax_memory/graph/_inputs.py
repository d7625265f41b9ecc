"""The checked, normalised inputs of the graph operations, and the checks that make them.

Each public method of a store turns its arguments into these frozen records (inside the op
objects of ``_ops.py``) *before* touching the database, so bad input never reaches a query and
every backend sees exactly the same normalised values (canonical names, ids, UTC times, epoch
seconds).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from langgraph_prax_memory._validation import check_user_id, to_utc, utcnow
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.graph._types import (
    DEFAULT_ENTITY_TYPE,
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

DEFAULT_IMPORTANCE = 0.5
MAX_PARTICIPANTS = 200
MAX_PROPERTIES_CHARS = 100_000


@dataclass(frozen=True)
class Moment:
    """A UTC instant with its ISO text and epoch seconds (the form decay arithmetic uses)."""

    dt: datetime
    iso: str
    ts: float

    @classmethod
    def of(cls, value: datetime | None, *, what: str = "now") -> Moment:
        """``value`` (``None`` → the current time) as a :class:`Moment`."""
        dt = utcnow() if value is None else to_utc(value, what=what)
        return cls(dt=dt, iso=dt.isoformat(), ts=dt.timestamp())


@dataclass(frozen=True)
class EntityIn:
    """A normalised entity write (``type``/``importance``/``properties`` ``None`` = not given)."""

    user_id: str
    id: str
    name: str
    display_name: str
    type: str | None
    importance: float | None
    properties: dict[str, Any] | None
    now: Moment

    @property
    def create_type(self) -> str:
        """The type to store when the entity is created."""
        return self.type or DEFAULT_ENTITY_TYPE

    @property
    def create_importance(self) -> float:
        """The importance to store when the entity is created."""
        return DEFAULT_IMPORTANCE if self.importance is None else self.importance

    @property
    def create_properties_json(self) -> str:
        """The properties (JSON text) to store when the entity is created."""
        return dump_properties(self.properties or {})


@dataclass(frozen=True)
class RelationIn:
    """A normalised relation write."""

    user_id: str
    source: EntityIn
    target: EntityIn
    type: str
    weight: float
    evidence: str
    valid_from: Moment
    now: Moment


@dataclass(frozen=True)
class EventIn:
    """A normalised temporal-event write."""

    user_id: str
    id: str
    description: str
    occurred_at: Moment
    importance: float | None
    participants: tuple[EntityIn, ...]
    now: Moment


@dataclass(frozen=True)
class CausalIn:
    """A normalised causal-link write."""

    user_id: str
    id: str
    cause: str
    effect: str
    importance: float | None
    cause_entities: tuple[EntityIn, ...]
    effect_entities: tuple[EntityIn, ...]
    now: Moment


def dump_properties(props: Mapping[str, Any]) -> str:
    """Serialise entity properties to JSON text (keys sorted), or raise on bad input."""
    try:
        text = json.dumps(dict(props), sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise MemoryValidationError(f"entity properties must be JSON-serialisable: {exc}") from exc
    if len(text) > MAX_PROPERTIES_CHARS:
        raise MemoryValidationError(f"entity properties are over {MAX_PROPERTIES_CHARS} characters")
    return text


def load_properties(text: object) -> dict[str, Any]:
    """Parse stored properties JSON text (anything unreadable becomes ``{}``)."""
    if not isinstance(text, str) or not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def merge_properties(stored: object, update: Mapping[str, Any] | None) -> str:
    """Shallow-merge ``update`` into stored properties JSON; return the new JSON text."""
    merged = load_properties(stored)
    if update:
        merged.update(update)
    return dump_properties(merged)


def _check_properties(props: object) -> dict[str, Any] | None:
    if props is None:
        return None
    if not isinstance(props, Mapping):
        raise MemoryValidationError(f"properties must be a mapping, got {type(props).__name__}")
    out: dict[str, Any] = {}
    for key, value in props.items():
        if not isinstance(key, str):
            raise MemoryValidationError("property names must be strings")
        out[key] = value
    dump_properties(out)
    return out


def prep_entity(
    vocabulary: Vocabulary,
    user_id: str,
    name: str,
    *,
    entity_type: str | None,
    importance: float | None,
    properties: Mapping[str, Any] | None,
    now: Moment,
) -> EntityIn:
    """Check and normalise an entity write."""
    check_user_id(user_id)
    display = check_display_name(name)
    return EntityIn(
        user_id=user_id,
        id=entity_id(user_id, display),
        name=display.lower(),
        display_name=display,
        type=None if entity_type is None else vocabulary.check_entity_type(entity_type),
        importance=None if importance is None else check_importance_or_default(importance, 0.5),
        properties=_check_properties(properties),
        now=now,
    )


def prep_endpoint(user_id: str, name: str, now: Moment) -> EntityIn:
    """An entity referenced by a relation, event or causal link (created with defaults)."""
    display = check_display_name(name)
    return EntityIn(
        user_id=user_id,
        id=entity_id(user_id, display),
        name=display.lower(),
        display_name=display,
        type=None,
        importance=None,
        properties=None,
        now=now,
    )


def prep_endpoints(user_id: str, names: Iterable[str], now: Moment) -> tuple[EntityIn, ...]:
    """Distinct endpoints (by canonical name, first spelling wins), in the order given."""
    if isinstance(names, str):
        raise MemoryValidationError("pass a list of entity names, not a single string")
    seen: dict[str, EntityIn] = {}
    for name in names:
        ent = prep_endpoint(user_id, name, now)
        seen.setdefault(ent.name, ent)
    if len(seen) > MAX_PARTICIPANTS:
        raise MemoryValidationError(f"at most {MAX_PARTICIPANTS} linked entities per call")
    return tuple(seen.values())


def prep_relation(
    vocabulary: Vocabulary,
    user_id: str,
    source: str,
    target: str,
    relation_type: str,
    *,
    weight: float,
    evidence: str | None,
    valid_from: datetime | None,
    now: datetime | None,
) -> RelationIn:
    """Check and normalise a relation write."""
    check_user_id(user_id)
    moment = Moment.of(now)
    src = prep_endpoint(user_id, source, moment)
    dst = prep_endpoint(user_id, target, moment)
    if src.id == dst.id:
        raise MemoryValidationError("a relation needs two different entities")
    return RelationIn(
        user_id=user_id,
        source=src,
        target=dst,
        type=vocabulary.check_relation_type(relation_type),
        weight=check_weight(weight),
        evidence=check_evidence(evidence),
        valid_from=moment if valid_from is None else Moment.of(valid_from, what="valid_from"),
        now=moment,
    )


def prep_edge_key(
    vocabulary: Vocabulary, user_id: str, source: str, target: str, relation_type: str
) -> tuple[str, str, str]:
    """``(source id, target id, type)`` of an edge, checked."""
    check_user_id(user_id)
    return (
        entity_id(user_id, source),
        entity_id(user_id, target),
        vocabulary.check_relation_type(relation_type),
    )


def prep_event(
    user_id: str,
    description: str,
    *,
    participants: Iterable[str],
    occurred_at: datetime | None,
    importance: float | None,
    now: datetime | None,
) -> EventIn:
    """Check and normalise a temporal-event write."""
    check_user_id(user_id)
    moment = Moment.of(now)
    text = check_text(description, what="event description")
    when = moment if occurred_at is None else Moment.of(occurred_at, what="occurred_at")
    return EventIn(
        user_id=user_id,
        id=event_id(user_id, text, when.dt),
        description=text,
        occurred_at=when,
        importance=None if importance is None else check_importance_or_default(importance, 0.5),
        participants=prep_endpoints(user_id, participants, moment),
        now=moment,
    )


def prep_causal(
    user_id: str,
    cause: str,
    effect: str,
    *,
    cause_entities: Iterable[str],
    effect_entities: Iterable[str],
    importance: float | None,
    now: datetime | None,
) -> CausalIn:
    """Check and normalise a causal-link write."""
    check_user_id(user_id)
    moment = Moment.of(now)
    cause_text = check_text(cause, what="cause")
    effect_text = check_text(effect, what="effect")
    return CausalIn(
        user_id=user_id,
        id=causal_link_id(user_id, cause_text, effect_text),
        cause=cause_text,
        effect=effect_text,
        importance=None if importance is None else check_importance_or_default(importance, 0.5),
        cause_entities=prep_endpoints(user_id, cause_entities, moment),
        effect_entities=prep_endpoints(user_id, effect_entities, moment),
        now=moment,
    )


def prep_search_text(text: object) -> str:
    """The lower-cased needle of a substring search."""
    if not isinstance(text, str):
        raise MemoryValidationError(f"search text must be a string, got {type(text).__name__}")
    needle = text.strip().lower()
    if not needle:
        raise MemoryValidationError("search text must not be empty")
    if "\x00" in needle:
        raise MemoryValidationError("search text must not contain NUL characters")
    return needle


def name_map(user_id: str, names: Iterable[str]) -> dict[str, str]:
    """``{name as given: entity id}`` for a list of names (checked)."""
    check_user_id(user_id)
    if isinstance(names, str):
        raise MemoryValidationError("pass a list of entity names, not a single string")
    return {name: entity_id(user_id, name) for name in names}


#: At most this many entity ids in one ``relations_among`` call (the largest page).
MAX_ENTITY_IDS = 1000


def prep_entity_ids(ids: Iterable[str]) -> tuple[str, ...]:
    """The distinct entity ids of ``ids``, sorted (checked: strings, at most 1,000)."""
    if isinstance(ids, str):
        raise MemoryValidationError("pass a list of entity ids, not a single string")
    distinct: set[str] = set()
    for value in ids:
        if not isinstance(value, str):
            raise MemoryValidationError(f"entity ids must be strings, got {type(value).__name__}")
        distinct.add(value)
    if len(distinct) > MAX_ENTITY_IDS:
        raise MemoryValidationError(
            f"at most {MAX_ENTITY_IDS} entity ids at a time, got {len(distinct)}"
        )
    return tuple(sorted(distinct))
