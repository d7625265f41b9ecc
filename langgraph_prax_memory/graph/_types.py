"""Records and vocabularies of the knowledge graph, shared by every backend.

The records are plain pydantic models; both backends (SQLite and Neo4j) return exactly these,
with timestamps as aware UTC datetimes. Names are kept twice: ``name`` is the canonical,
lower-cased key the graph merges on, ``display_name`` the text as it was first given.
"""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from langgraph_prax_memory._validation import check_importance, check_unicode
from langgraph_prax_memory.errors import MemoryValidationError

__all__ = [
    "ENTITY_TYPES",
    "RELATION_TYPES",
    "DEFAULT_ENTITY_TYPE",
    "MAX_NAME_CHARS",
    "MAX_TEXT_CHARS",
    "CausalLink",
    "DecayResult",
    "Entity",
    "EntityWithRelations",
    "GraphLoad",
    "GraphStats",
    "Neighbour",
    "Relation",
    "TemporalEvent",
    "Vocabulary",
    "canonical_name",
    "causal_link_id",
    "entity_id",
    "event_id",
]

#: Relation types of the seed (``RELATES_TO.type``).
RELATION_TYPES: frozenset[str] = frozenset(
    {
        "works_on",
        "interested_in",
        "prefers",
        "related_to",
        "part_of",
        "caused_by",
        "mentioned_with",
        "lives_in",  # user-centred: "I moved to Japan" (one current value per subject)
        "works_at",  # user-centred: "I work at Acme Corp now" (one current employer)
        "partner_of",  # user-centred: "my new girlfriend Ana" (one current partner)
    }
)

#: Entity types of the seed (``Entity.type``).
ENTITY_TYPES: frozenset[str] = frozenset(
    {"person", "topic", "project", "tool", "url", "concept", "organization", "place"}
)

#: Type given to an entity created without one (also for relation endpoints created on the fly).
DEFAULT_ENTITY_TYPE = "concept"

#: Longest accepted entity name (characters). Names are stored verbatim, so this is generous.
MAX_NAME_CHARS = 20_000

#: Longest accepted event description, cause or effect text (characters).
MAX_TEXT_CHARS = 20_000

#: Longest accepted evidence snippet per call (characters).
MAX_EVIDENCE_CHARS = 2_000

_TYPE_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_NAMESPACE = uuid.UUID("6f1d7c4e-5b8a-4c9e-9a51-3d2f0e7b8c10")


def _check_type_name(value: str, what: str) -> str:
    if not isinstance(value, str) or not _TYPE_NAME.match(value):
        raise MemoryValidationError(
            f"{what} {value!r} is not a valid type name "
            "(lower-case letters, digits and '_', starting with a letter, at most 64 characters)"
        )
    return value


@dataclass(frozen=True)
class Vocabulary:
    """The allowed entity types and relation types of a graph store.

    The default is the seed's vocabulary. Extend it (never shrink it) with :meth:`extend` and
    pass the result to a store's constructor or to :func:`create_graph_store`.

    Example:
        >>> vocab = Vocabulary().extend(relation_types=["mentors"], entity_types=["place"])
        >>> vocab.check_relation_type("Mentors")
        'mentors'
        >>> "works_on" in vocab.relation_types
        True
    """

    entity_types: frozenset[str] = field(default=ENTITY_TYPES)
    relation_types: frozenset[str] = field(default=RELATION_TYPES)

    def __post_init__(self) -> None:
        for name in self.entity_types:
            _check_type_name(name, "entity type")
        for name in self.relation_types:
            _check_type_name(name, "relation type")

    def extend(
        self,
        *,
        entity_types: Iterable[str] = (),
        relation_types: Iterable[str] = (),
    ) -> Vocabulary:
        """Return a new vocabulary with extra types added (names are lower-cased)."""
        extra_entities = {str(t).strip().lower() for t in entity_types}
        extra_relations = {str(t).strip().lower() for t in relation_types}
        return Vocabulary(
            entity_types=self.entity_types | frozenset(extra_entities),
            relation_types=self.relation_types | frozenset(extra_relations),
        )

    def check_relation_type(self, value: object) -> str:
        """Return the normalised relation type, or raise :class:`MemoryValidationError`."""
        if not isinstance(value, str):
            raise MemoryValidationError(
                f"relation type must be a string, got {type(value).__name__}"
            )
        norm = value.strip().lower()
        if norm not in self.relation_types:
            raise MemoryValidationError(
                f"unknown relation type {value!r}; allowed: "
                f"{', '.join(sorted(self.relation_types))} (extend the store's Vocabulary)"
            )
        return norm

    def check_entity_type(self, value: object) -> str:
        """Return the normalised entity type, or raise :class:`MemoryValidationError`."""
        if not isinstance(value, str):
            raise MemoryValidationError(f"entity type must be a string, got {type(value).__name__}")
        norm = value.strip().lower()
        if norm not in self.entity_types:
            raise MemoryValidationError(
                f"unknown entity type {value!r}; allowed: "
                f"{', '.join(sorted(self.entity_types))} (extend the store's Vocabulary)"
            )
        return norm


def _check_plain_text(value: object, *, what: str, max_chars: int) -> str:
    if not isinstance(value, str):
        raise MemoryValidationError(f"{what} must be a string, got {type(value).__name__}")
    text = value.strip()
    if not text:
        raise MemoryValidationError(f"{what} must not be empty or whitespace")
    if len(text) > max_chars:
        raise MemoryValidationError(f"{what} is {len(text)} characters, over {max_chars}")
    if "\x00" in text:
        raise MemoryValidationError(f"{what} must not contain NUL characters")
    return check_unicode(text, what=what)


def check_display_name(value: object) -> str:
    """Return an entity name with outer whitespace removed, or raise."""
    return _check_plain_text(value, what="entity name", max_chars=MAX_NAME_CHARS)


def canonical_name(name: str) -> str:
    """The key an entity is merged on: outer whitespace removed, lower-cased.

    Example:
        >>> canonical_name("  Alice Smith ")
        'alice smith'
    """
    return check_display_name(name).lower()


def check_text(value: object, *, what: str) -> str:
    """Return a description / cause / effect text with outer whitespace removed, or raise."""
    return _check_plain_text(value, what=what, max_chars=MAX_TEXT_CHARS)


def check_evidence(value: object) -> str:
    """Return an evidence snippet ('' when ``None``), or raise."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise MemoryValidationError(f"evidence must be a string, got {type(value).__name__}")
    text = value.strip()
    if len(text) > MAX_EVIDENCE_CHARS:
        raise MemoryValidationError(f"evidence is over {MAX_EVIDENCE_CHARS} characters")
    if "\x00" in text:
        raise MemoryValidationError("evidence must not contain NUL characters")
    return check_unicode(text, what="evidence")


def check_weight(value: object) -> float:
    """Return a relation weight increment: a finite number > 0."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MemoryValidationError(f"weight must be a number, got {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise MemoryValidationError(f"weight must be a finite number above 0, got {value!r}")
    return number


def check_hops(value: object) -> int:
    """Return a traversal depth: 1 or 2."""
    if isinstance(value, bool) or value not in (1, 2):
        raise MemoryValidationError(f"hops must be 1 or 2, got {value!r}")
    assert isinstance(value, int)
    return value


def check_importance_or_default(value: object, default: float) -> float:
    """``check_importance`` with ``None`` meaning ``default``."""
    return default if value is None else check_importance(value)


def entity_id(user_id: str, name: str) -> str:
    """The stable id of an entity: uuid5 of the user id and the canonical name.

    The same entity has the same id in every backend, so ids can be stored in vector payloads.

    Example:
        >>> entity_id("u1", "Alice") == entity_id("u1", " alice ")
        True
    """
    return str(uuid.uuid5(_NAMESPACE, f"entity\x00{user_id}\x00{canonical_name(name)}"))


def event_id(user_id: str, description: str, occurred_at: datetime) -> str:
    """The stable id of a temporal event (same user, text and moment → same event)."""
    key = f"event\x00{user_id}\x00{description}\x00{occurred_at.isoformat()}"
    return str(uuid.uuid5(_NAMESPACE, key))


def causal_link_id(user_id: str, cause: str, effect: str) -> str:
    """The stable id of a causal link (same user, cause and effect → same link)."""
    return str(uuid.uuid5(_NAMESPACE, f"causal\x00{user_id}\x00{cause}\x00{effect}"))


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Entity(_Record):
    """A person, topic, project, tool, ... the user talked about (``(:Entity)``)."""

    id: str
    user_id: str
    name: str = Field(description="canonical key: stripped and lower-cased")
    display_name: str = Field(description="the name as first given (outer whitespace removed)")
    type: str
    importance: float
    mention_count: int
    first_seen: datetime
    last_seen: datetime
    properties: dict[str, Any] = Field(default_factory=dict)


class Relation(_Record):
    """A bi-temporal, typed, weighted edge ``(source)-[:RELATES_TO]->(target)``.

    ``valid_until is None`` means the edge is current; a superseded edge keeps its history.
    """

    id: str
    user_id: str
    source: str = Field(description="canonical name of the source entity")
    target: str = Field(description="canonical name of the target entity")
    source_id: str
    target_id: str
    type: str
    weight: float
    evidence: str
    first_seen: datetime
    last_seen: datetime
    valid_from: datetime
    valid_until: datetime | None = None

    @property
    def is_current(self) -> bool:
        """Whether the edge is currently valid (not superseded)."""
        return self.valid_until is None


class EntityWithRelations(_Record):
    """An entity with its relations in both directions (current only unless asked)."""

    entity: Entity
    relations: list[Relation]


class Neighbour(_Record):
    """An entity reached from a start entity over current relations, ``hops`` edges away."""

    entity: Entity
    hops: int


class TemporalEvent(_Record):
    """Something that happened at a moment (``(:TemporalEvent)``) and who took part."""

    id: str
    user_id: str
    description: str
    occurred_at: datetime
    importance: float
    created_at: datetime
    participants: list[str] = Field(
        default_factory=list, description="canonical names of entities, sorted"
    )


class CausalLink(_Record):
    """A cause → effect statement (``(:CausalLink)``) linked to the entities on each side."""

    id: str
    user_id: str
    cause: str
    effect: str
    importance: float
    created_at: datetime
    cause_entities: list[str] = Field(default_factory=list, description="canonical names, sorted")
    effect_entities: list[str] = Field(default_factory=list, description="canonical names, sorted")


class GraphStats(_Record):
    """Counts of one user's graph (``stats``), or of what ``delete_user`` removed."""

    entities: int = 0
    relations: int = 0
    current_relations: int = 0
    temporal_events: int = 0
    causal_links: int = 0

    @property
    def superseded_relations(self) -> int:
        """Relations with ``valid_until`` set."""
        return self.relations - self.current_relations

    @property
    def total(self) -> int:
        """Entities + relations + events + causal links."""
        return self.entities + self.relations + self.temporal_events + self.causal_links


class GraphLoad(_Record):
    """What ``load_records`` created: the ids of the new records, by kind.

    ``entities`` holds the given entities that were new and the endpoints (of relations,
    events and causal links) it had to create; a record the user already had is not listed.
    """

    entities: list[str] = Field(default_factory=list)
    relations: list[str] = Field(default_factory=list)
    temporal_events: list[str] = Field(default_factory=list)
    causal_links: list[str] = Field(default_factory=list)

    @property
    def total(self) -> int:
        """How many records were created."""
        return (
            len(self.entities)
            + len(self.relations)
            + len(self.temporal_events)
            + len(self.causal_links)
        )


class DecayResult(_Record):
    """What a decay pass pruned (or, with ``dry_run``, would prune)."""

    dry_run: bool
    halflife_days: float
    entities: list[str] = Field(default_factory=list, description="canonical names, sorted")
    relations: list[Relation] = Field(default_factory=list)

    @property
    def pruned(self) -> int:
        """Number of entities plus relations."""
        return len(self.entities) + len(self.relations)
