"""The graph operations as op objects, and the builders that check arguments into them.

Each public method of a store (:class:`~langgraph_prax_memory.graph.GraphStore`, written once
in ``_base.py``) checks its arguments and turns them into one frozen op object below *before*
touching the database, then hands it to the backend's runner (``run`` / ``arun``), as
LangGraph's ``BaseStore`` does with its ``GetOp`` / ``PutOp``. So bad input never reaches a
query, every backend sees exactly the same normalised values, and a backend only knows how to
run each op.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, Generic, TypeVar

from langgraph_prax_memory._validation import check_limit, check_user_id
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.graph._decay import check_halflife, decay_lambda
from langgraph_prax_memory.graph._inputs import (
    CausalIn,
    EntityIn,
    EventIn,
    Moment,
    RelationIn,
    prep_edge_key,
    prep_entity,
    prep_entity_ids,
    prep_relation,
    prep_search_text,
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

# --------------------------------------------------------------------------- op objects

T = TypeVar("T")


class GraphOp(Generic[T]):
    """One graph operation with its checked arguments; running it returns a ``T``.

    ``name`` says what failed in an error message; ``write`` whether it needs a write
    transaction.
    """

    name: ClassVar[str]
    writes: ClassVar[bool] = False
    #: A maintenance op that may be busy a while on a large graph (a longer deadline on a
    #: server backend).
    slow: ClassVar[bool] = False

    @property
    def write(self) -> bool:
        """Whether the op writes (runs in a write transaction)."""
        return self.writes


@dataclass(frozen=True)
class MergeEntity(GraphOp[Entity]):
    """Create or update one entity."""

    name = "merge_entity"
    writes = True
    entity: EntityIn


@dataclass(frozen=True)
class GetEntity(GraphOp[EntityWithRelations | None]):
    """One entity and its relations."""

    name = "get_entity"
    user_id: str
    entity_id: str
    include_superseded: bool


@dataclass(frozen=True)
class EntityIdsFor(GraphOp[dict[str, str]]):
    """Which of the named entities exist: ``{name as given: id}`` of those that do."""

    name = "entity_ids_for"
    user_id: str
    wanted: Mapping[str, str]

    @property
    def ids(self) -> list[str]:
        """The distinct ids asked for, sorted."""
        return sorted(set(self.wanted.values()))

    def found(self, ids: Iterable[str]) -> dict[str, str]:
        """The result, given the ids that exist."""
        present = set(ids)
        return {name: ent_id for name, ent_id in self.wanted.items() if ent_id in present}


@dataclass(frozen=True)
class SearchEntities(GraphOp[list[Entity]]):
    """Entities whose name contains ``needle``."""

    name = "search_entities"
    user_id: str
    needle: str
    limit: int


@dataclass(frozen=True)
class TopEntities(GraphOp[list[Entity]]):
    """The ``limit`` most important entities (then most mentioned, then by name)."""

    name = "top_entities"
    user_id: str
    limit: int


@dataclass(frozen=True)
class ListEntities(GraphOp[list[Entity]]):
    """A page of the user's entities in id order: ids after ``after``, at most ``limit``."""

    name = "list_entities"
    user_id: str
    after: str
    limit: int


@dataclass(frozen=True)
class ListRelations(GraphOp[list[Relation]]):
    """A page of the user's relations (superseded ones too) in id order."""

    name = "list_relations"
    user_id: str
    after: str
    limit: int


@dataclass(frozen=True)
class ListEvents(GraphOp[list[TemporalEvent]]):
    """A page of the user's temporal events in id order."""

    name = "list_events"
    user_id: str
    after: str
    limit: int


@dataclass(frozen=True)
class ListCausalLinks(GraphOp[list[CausalLink]]):
    """A page of the user's causal links in id order."""

    name = "list_causal_links"
    user_id: str
    after: str
    limit: int


#: The page ops, by the kind of record they list.
Page = ListEntities | ListRelations | ListEvents | ListCausalLinks


@dataclass(frozen=True)
class RelationsAmong(GraphOp[list[Relation]]):
    """Relations with both ends (or, unless ``both_ends``, either end) among ``entity_ids``.

    Ordered current first, then heaviest, then oldest ``valid_from`` / ``first_seen``, type,
    source and target name, id.
    """

    name = "relations_among"
    user_id: str
    entity_ids: tuple[str, ...]
    both_ends: bool
    include_superseded: bool
    limit: int


@dataclass(frozen=True)
class AddRelation(GraphOp[Relation]):
    """Strengthen the current edge or open a new one."""

    name = "add_relation"
    writes = True
    relation: RelationIn


@dataclass(frozen=True)
class SupersedeRelation(GraphOp[Relation | None]):
    """Close the current edge."""

    name = "supersede_relation"
    writes = True
    source_id: str
    target_id: str
    type: str
    now: Moment


@dataclass(frozen=True)
class CurrentTargets(GraphOp[list[Entity]]):
    """Targets of the current edges of one type."""

    name = "current_targets"
    user_id: str
    source_id: str
    type: str


@dataclass(frozen=True)
class MergeEvent(GraphOp[TemporalEvent]):
    """Create or update a temporal event and link its participants."""

    name = "merge_temporal_event"
    writes = True
    event: EventIn


@dataclass(frozen=True)
class AddCausalLink(GraphOp[CausalLink]):
    """Create or update a causal link and its sides."""

    name = "add_causal_link"
    writes = True
    link: CausalIn


@dataclass(frozen=True)
class GetEvents(GraphOp[list[TemporalEvent]]):
    """Events (of one entity when ``entity_id`` is set), newest first."""

    name = "get_events"
    user_id: str
    entity_id: str | None
    limit: int


@dataclass(frozen=True)
class GetCausalLinks(GraphOp[list[CausalLink]]):
    """Causal links (touching one entity when ``entity_id`` is set), newest first."""

    name = "get_causal_links"
    user_id: str
    entity_id: str | None
    limit: int


@dataclass(frozen=True)
class GetNeighbours(GraphOp[list[Neighbour]]):
    """Entities ``hops`` current edges away."""

    name = "get_neighbours"
    user_id: str
    entity_id: str
    hops: int
    limit: int


@dataclass(frozen=True)
class DecayGraph(GraphOp[DecayResult]):
    """Prune faded relations, then faded entities left without relations."""

    name = "decay_graph"
    slow = True
    user_id: str
    now: Moment
    halflife_days: float
    dry_run: bool

    @property
    def write(self) -> bool:
        """A dry run only reads."""
        return not self.dry_run

    @property
    def lam(self) -> float:
        """The decay rate of ``halflife_days``."""
        return decay_lambda(self.halflife_days)


@dataclass(frozen=True)
class Stats(GraphOp[GraphStats]):
    """Counts of one user's graph."""

    name = "stats"
    user_id: str


@dataclass(frozen=True)
class DeleteUser(GraphOp[GraphStats]):
    """Remove every node and edge of one user; the result counts what was removed."""

    name = "delete_user"
    writes = True
    slow = True
    user_id: str


# --------------------------------------------------------------------------- builders
# one per public method: check the arguments, build the op (the sync and async faces share them)


def build_merge_entity(
    vocabulary: Vocabulary,
    user_id: str,
    name: str,
    *,
    entity_type: str | None,
    importance: float | None,
    properties: Mapping[str, Any] | None,
    now: datetime | None,
) -> MergeEntity:
    """The :class:`MergeEntity` of ``GraphStore.merge_entity``'s arguments."""
    return MergeEntity(
        prep_entity(
            vocabulary,
            user_id,
            name,
            entity_type=entity_type,
            importance=importance,
            properties=properties,
            now=Moment.of(now),
        )
    )


def build_get_entity(user_id: str, name: str, include_superseded: bool) -> GetEntity:
    """The :class:`GetEntity` of ``GraphStore.get_entity``'s arguments."""
    check_user_id(user_id)
    return GetEntity(user_id, entity_id(user_id, name), bool(include_superseded))


def build_search(user_id: str, text: str, limit: int) -> SearchEntities:
    """The :class:`SearchEntities` of ``GraphStore.search_entities``'s arguments."""
    check_user_id(user_id)
    return SearchEntities(user_id, prep_search_text(text), check_limit(limit))


def build_top_entities(user_id: str, limit: int) -> TopEntities:
    """The :class:`TopEntities` of ``GraphStore.top_entities``'s arguments."""
    check_user_id(user_id)
    return TopEntities(user_id, check_limit(limit))


P = TypeVar("P", ListEntities, ListRelations, ListEvents, ListCausalLinks)


def build_page(kind: type[P], user_id: str, after: str | None, limit: int) -> P:
    """The page op ``kind`` of a ``list_*`` method's arguments (``after=None``: the first)."""
    check_user_id(user_id)
    if after is not None and not isinstance(after, str):
        raise MemoryValidationError(
            f"after must be the id of the last record of the previous page, got "
            f"{type(after).__name__}"
        )
    return kind(user_id, after or "", check_limit(limit))


def build_relations_among(
    user_id: str,
    entity_ids: Iterable[str],
    *,
    both_ends: bool,
    include_superseded: bool,
    limit: int,
) -> RelationsAmong:
    """The :class:`RelationsAmong` of ``GraphStore.relations_among``'s arguments."""
    check_user_id(user_id)
    ids = prep_entity_ids(entity_ids)
    return RelationsAmong(
        user_id, ids, bool(both_ends), bool(include_superseded), check_limit(limit)
    )


def build_add_relation(
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
) -> AddRelation:
    """The :class:`AddRelation` of ``GraphStore.add_relation``'s arguments."""
    return AddRelation(
        prep_relation(
            vocabulary,
            user_id,
            source,
            target,
            relation_type,
            weight=weight,
            evidence=evidence,
            valid_from=valid_from,
            now=now,
        )
    )


def build_supersede(
    vocabulary: Vocabulary,
    user_id: str,
    source: str,
    target: str,
    relation_type: str,
    now: datetime | None,
) -> SupersedeRelation:
    """The :class:`SupersedeRelation` of ``GraphStore.supersede_relation``'s arguments."""
    src, dst, rtype = prep_edge_key(vocabulary, user_id, source, target, relation_type)
    return SupersedeRelation(src, dst, rtype, Moment.of(now))


def build_current_targets(
    vocabulary: Vocabulary, user_id: str, source: str, relation_type: str
) -> CurrentTargets:
    """The :class:`CurrentTargets` of ``GraphStore.current_targets``'s arguments."""
    check_user_id(user_id)
    src = entity_id(user_id, source)
    return CurrentTargets(user_id, src, vocabulary.check_relation_type(relation_type))


def build_events(user_id: str, entity: str | None, limit: int) -> GetEvents:
    """The :class:`GetEvents` of ``GraphStore.get_events``'s arguments."""
    check_user_id(user_id)
    limit = check_limit(limit)
    return GetEvents(user_id, None if entity is None else entity_id(user_id, entity), limit)


def build_links(user_id: str, entity: str | None, limit: int) -> GetCausalLinks:
    """The :class:`GetCausalLinks` of ``GraphStore.get_causal_links``'s arguments."""
    check_user_id(user_id)
    limit = check_limit(limit)
    return GetCausalLinks(user_id, None if entity is None else entity_id(user_id, entity), limit)


def build_neighbours(user_id: str, name: str, hops: int, limit: int) -> GetNeighbours:
    """The :class:`GetNeighbours` of ``GraphStore.get_neighbours``'s arguments."""
    check_user_id(user_id)
    start = entity_id(user_id, name)
    return GetNeighbours(user_id, start, check_hops(hops), check_limit(limit))


def build_decay(
    user_id: str, now: datetime | None, halflife_days: float | None, default: float, dry_run: bool
) -> DecayGraph:
    """The :class:`DecayGraph` of ``GraphStore.decay_graph``'s arguments."""
    check_user_id(user_id)
    moment = Moment.of(now)
    half = default if halflife_days is None else check_halflife(halflife_days)
    return DecayGraph(user_id, moment, half, bool(dry_run))


def build_stats(user_id: str) -> Stats:
    """The :class:`Stats` of ``GraphStore.stats``'s arguments."""
    return Stats(check_user_id(user_id))


def build_delete_user(user_id: str) -> DeleteUser:
    """The :class:`DeleteUser` of ``GraphStore.delete_user``'s arguments."""
    return DeleteUser(check_user_id(user_id))
