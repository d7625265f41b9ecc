"""The graph store's public methods, written once over op objects (LangGraph ``BaseStore`` style).

:class:`GraphStore` holds every public method once: it checks the arguments, builds one op
object (``_ops.py``) and hands it to :meth:`GraphStore.run`, the backend's runner. Its async
face, :class:`~langgraph_prax_memory.graph.AsyncGraphStore` (``_async_base.py``), has the
same methods written once too, over the same op builders.

Both classes also recognise duck-typed stores: ``isinstance(x, GraphStore)`` holds for any
object with every public member, as the runtime-checkable protocols they replace did.

Every data method takes ``user_id`` first and validates it (``check_user_id``): no query ever
runs unscoped. Writes and the decay pass accept ``now`` so callers (and tests) control the
clock; ``None`` means the current UTC time.
"""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Self, TypeVar

from langgraph_prax_memory.graph._inputs import name_map, prep_causal, prep_event
from langgraph_prax_memory.graph._load import build_delete_records, build_load
from langgraph_prax_memory.graph._ops import (
    AddCausalLink,
    EntityIdsFor,
    GraphOp,
    ListCausalLinks,
    ListEntities,
    ListEvents,
    ListRelations,
    MergeEvent,
    build_add_relation,
    build_current_targets,
    build_decay,
    build_delete_user,
    build_events,
    build_get_entity,
    build_links,
    build_merge_entity,
    build_neighbours,
    build_page,
    build_relations_among,
    build_search,
    build_stats,
    build_supersede,
    build_top_entities,
)
from langgraph_prax_memory.graph._types import (
    CausalLink,
    DecayResult,
    Entity,
    EntityWithRelations,
    GraphLoad,
    GraphStats,
    Neighbour,
    Relation,
    TemporalEvent,
    Vocabulary,
)

__all__ = ["GraphStore"]

T = TypeVar("T")

#: The members a duck-typed store needs to pass for a graph store (sync or async alike).
MEMBERS = frozenset(
    [
        "vocabulary",
        "halflife_days",
        "setup",
        "close",
        "merge_entity",
        "get_entity",
        "entity_ids_for",
        "search_entities",
        "top_entities",
        "relations_among",
        "add_relation",
        "supersede_relation",
        "current_targets",
        "merge_temporal_event",
        "add_causal_link",
        "get_events",
        "get_causal_links",
        "get_neighbours",
        "decay_graph",
        "stats",
        "delete_user",
    ]
)


class StructuralMeta(ABCMeta):
    """``isinstance`` also accepts an object with every member of :data:`MEMBERS`.

    Only for :class:`GraphStore` and :class:`AsyncGraphStore` themselves (a backend class is
    checked by inheritance alone), as a ``runtime_checkable`` protocol checks.
    """

    def __instancecheck__(cls, instance: Any) -> bool:
        if super().__instancecheck__(instance):
            return True
        if not cls.__dict__.get("_duck_typed", False):
            return False
        return all(hasattr(instance, member) for member in MEMBERS)


class GraphStore(metaclass=StructuralMeta):
    """A per-user knowledge graph: entities, bi-temporal relations, events, causal links.

    A backend implements :meth:`run` (and :meth:`setup`, :meth:`close`); every public method
    below checks its arguments, builds one op and runs it.

    Example:
        >>> from langgraph_prax_memory.graph import SQLiteGraphStore
        >>> store: GraphStore = SQLiteGraphStore(":memory:")
        >>> _ = store.add_relation("u1", "Alice", "Prax", "works_on")
        >>> [n.entity.display_name for n in store.get_neighbours("u1", "alice")]
        ['Prax']
    """

    _duck_typed = True
    vocabulary: Vocabulary
    halflife_days: float

    @abstractmethod
    def run(self, op: GraphOp[T]) -> T:
        """Run one op in one transaction and return its result (the backend's runner)."""

    @abstractmethod
    def setup(self) -> None:
        """Create constraints / tables and indexes. Idempotent."""

    @abstractmethod
    def close(self) -> None:
        """Release connections (a store passed an existing driver leaves it open)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
        """Create or update the entity ``(user_id, lower(name))``.

        On a match: ``mention_count`` + 1, ``last_seen`` advanced, the highest importance kept,
        ``properties`` shallow-merged, the type replaced only when ``entity_type`` is given.

        Example:
            >>> from langgraph_prax_memory.graph import SQLiteGraphStore
            >>> store = SQLiteGraphStore(":memory:")
            >>> store.merge_entity("u1", "Alice", importance=0.9).mention_count
            1
            >>> store.merge_entity("u1", "ALICE", importance=0.2).importance
            0.9
        """
        return self.run(
            build_merge_entity(
                self.vocabulary,
                user_id,
                name,
                entity_type=entity_type,
                importance=importance,
                properties=properties,
                now=now,
            )
        )

    def get_entity(
        self, user_id: str, name: str, *, include_superseded: bool = False
    ) -> EntityWithRelations | None:
        """The entity and its relations in both directions (superseded ones only if asked)."""
        return self.run(build_get_entity(user_id, name, include_superseded))

    def entity_ids_for(self, user_id: str, names: Iterable[str]) -> dict[str, str]:
        """Map each given name that exists as an entity to its id (keys as given)."""
        op = EntityIdsFor(user_id, name_map(user_id, names))
        return self.run(op) if op.wanted else {}

    def search_entities(self, user_id: str, text: str, *, limit: int = 10) -> list[Entity]:
        """Entities whose name contains ``text`` (case-insensitive), best matches first.

        Exact match first, then prefix matches, then by importance, mentions, name.

        Example:
            >>> from langgraph_prax_memory.graph import SQLiteGraphStore
            >>> store = SQLiteGraphStore(":memory:")
            >>> _ = store.merge_entity("u1", "LangGraph")
            >>> [e.display_name for e in store.search_entities("u1", "graph")]
            ['LangGraph']
        """
        return self.run(build_search(user_id, text, limit))

    def top_entities(self, user_id: str, *, limit: int = 80) -> list[Entity]:
        """The ``limit`` most important entities: by importance, then mentions, then name.

        Exactly ``limit`` of them when the user has that many (all of them otherwise): the
        capped listing a picture of a large graph draws, read without listing the rest.

        Example:
            >>> from langgraph_prax_memory.graph import SQLiteGraphStore
            >>> store = SQLiteGraphStore(":memory:")
            >>> _ = store.merge_entity("u1", "Alice", importance=0.9)
            >>> _ = store.merge_entity("u1", "Bob", importance=0.4)
            >>> _ = store.merge_entity("u1", "Prax", importance=0.9)
            >>> [e.name for e in store.top_entities("u1", limit=2)]
            ['alice', 'prax']
        """
        return self.run(build_top_entities(user_id, limit))

    def list_entities(
        self, user_id: str, *, after: str | None = None, limit: int = 1000
    ) -> list[Entity]:
        """A page of the user's entities in id order: those whose id sorts after ``after``.

        Pass the id of the last entity of one page as ``after`` to read the next; a page
        shorter than ``limit`` is the last. Every entity is listed once, whatever its name is
        written in (what :func:`~langgraph_prax_memory.export_user` reads).

        Example:
            >>> from langgraph_prax_memory.graph import SQLiteGraphStore
            >>> store = SQLiteGraphStore(":memory:")
            >>> for name in ("Alice", "東京", "Москва"):
            ...     _ = store.merge_entity("u1", name)
            >>> first = store.list_entities("u1", limit=2)
            >>> rest = store.list_entities("u1", after=first[-1].id, limit=2)
            >>> sorted(e.display_name for e in first + rest)
            ['Alice', 'Москва', '東京']
        """
        return self.run(build_page(ListEntities, user_id, after, limit))

    def list_relations(
        self, user_id: str, *, after: str | None = None, limit: int = 1000
    ) -> list[Relation]:
        """A page of the user's relations, superseded ones too, in id order (see above)."""
        return self.run(build_page(ListRelations, user_id, after, limit))

    def list_events(
        self, user_id: str, *, after: str | None = None, limit: int = 1000
    ) -> list[TemporalEvent]:
        """A page of the user's temporal events in id order (as :meth:`list_entities`)."""
        return self.run(build_page(ListEvents, user_id, after, limit))

    def list_causal_links(
        self, user_id: str, *, after: str | None = None, limit: int = 1000
    ) -> list[CausalLink]:
        """A page of the user's causal links in id order (as :meth:`list_entities`)."""
        return self.run(build_page(ListCausalLinks, user_id, after, limit))

    def relations_among(
        self,
        user_id: str,
        entity_ids: Iterable[str],
        *,
        both_ends: bool = True,
        include_superseded: bool = False,
        limit: int = 100,
    ) -> list[Relation]:
        """Relations between the given entities (by id), of ``user_id`` only.

        With ``both_ends`` (the default) a relation is returned when its source *and* its
        target are among ``entity_ids`` (the edges of the picture of those entities);
        otherwise when either end is (the relations touching them). Ids of other users'
        entities, or of no entity, match nothing. Current relations first, then the
        heaviest, then the oldest ``valid_from`` / ``first_seen``, type, source and target
        name. At most 1,000 ids; superseded relations only when asked.

        Example:
            >>> from langgraph_prax_memory.graph import SQLiteGraphStore
            >>> store = SQLiteGraphStore(":memory:")
            >>> _ = store.merge_entity("u1", "Alice", importance=0.9)
            >>> _ = store.merge_entity("u1", "Prax", importance=0.8)
            >>> _ = store.add_relation("u1", "Alice", "Prax", "works_on", weight=2.0)
            >>> _ = store.add_relation("u1", "Prax", "LangGraph", "related_to")
            >>> ids = [e.id for e in store.top_entities("u1", limit=2)]
            >>> [(r.source, r.target) for r in store.relations_among("u1", ids)]
            [('alice', 'prax')]
            >>> touching = store.relations_among("u1", ids, both_ends=False)
            >>> [(r.source, r.target) for r in touching]
            [('alice', 'prax'), ('prax', 'langgraph')]
        """
        op = build_relations_among(
            user_id,
            entity_ids,
            both_ends=both_ends,
            include_superseded=include_superseded,
            limit=limit,
        )
        return self.run(op) if op.entity_ids else []

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
        """Strengthen the current ``source -[type]-> target`` edge, or open a new one.

        Missing endpoints are created (type ``concept``). A superseded edge is never reopened.
        """
        return self.run(
            build_add_relation(
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
        )

    def supersede_relation(
        self,
        user_id: str,
        source: str,
        target: str,
        relation_type: str,
        *,
        now: datetime | None = None,
    ) -> Relation | None:
        """Close the current edge (``valid_until = now``); ``None`` when there is none."""
        return self.run(
            build_supersede(self.vocabulary, user_id, source, target, relation_type, now)
        )

    def current_targets(self, user_id: str, source: str, relation_type: str) -> list[Entity]:
        """Targets of the current ``source -[type]->`` edges, heaviest first."""
        return self.run(build_current_targets(self.vocabulary, user_id, source, relation_type))

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
        """Create or update an event and link its participants (``PARTICIPATED_IN``)."""
        return self.run(
            MergeEvent(
                prep_event(
                    user_id,
                    description,
                    participants=participants,
                    occurred_at=occurred_at,
                    importance=importance,
                    now=now,
                )
            )
        )

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
        """Create or update a causal link and its ``CAUSED_BY {direction}`` edges."""
        return self.run(
            AddCausalLink(
                prep_causal(
                    user_id,
                    cause,
                    effect,
                    cause_entities=cause_entities,
                    effect_entities=effect_entities,
                    importance=importance,
                    now=now,
                )
            )
        )

    def get_events(
        self, user_id: str, *, entity: str | None = None, limit: int = 50
    ) -> list[TemporalEvent]:
        """Events (of one entity, when given), most recent ``occurred_at`` first."""
        return self.run(build_events(user_id, entity, limit))

    def get_causal_links(
        self, user_id: str, *, entity: str | None = None, limit: int = 50
    ) -> list[CausalLink]:
        """Causal links (touching one entity, when given), newest first."""
        return self.run(build_links(user_id, entity, limit))

    def get_neighbours(
        self, user_id: str, name: str, *, hops: int = 1, limit: int = 25
    ) -> list[Neighbour]:
        """Entities 1 or 2 current edges away (either direction), nearest then most important.

        Example:
            >>> from langgraph_prax_memory.graph import SQLiteGraphStore
            >>> store = SQLiteGraphStore(":memory:")
            >>> _ = store.add_relation("u1", "Alice", "Prax", "works_on")
            >>> _ = store.add_relation("u1", "Prax", "LangGraph", "related_to")
            >>> [(n.entity.name, n.hops) for n in store.get_neighbours("u1", "Alice", hops=2)]
            [('prax', 1), ('langgraph', 2)]
        """
        return self.run(build_neighbours(user_id, name, hops, limit))

    def decay_graph(
        self,
        user_id: str,
        *,
        now: datetime | None = None,
        halflife_days: float | None = None,
        dry_run: bool = False,
    ) -> DecayResult:
        """Prune faded relations, then faded entities left without relations.

        Example:
            >>> from datetime import UTC, datetime, timedelta
            >>> from langgraph_prax_memory.graph import SQLiteGraphStore
            >>> store = SQLiteGraphStore(":memory:")
            >>> t0 = datetime(2026, 1, 1, tzinfo=UTC)
            >>> _ = store.merge_entity("u1", "Fleeting", importance=0.3, now=t0)
            >>> store.decay_graph("u1", now=t0 + timedelta(days=7)).entities
            []
            >>> store.decay_graph("u1", now=t0 + timedelta(days=45)).entities
            ['fleeting']
        """
        return self.run(build_decay(user_id, now, halflife_days, self.halflife_days, dry_run))

    def stats(self, user_id: str) -> GraphStats:
        """Counts of the user's graph."""
        return self.run(build_stats(user_id))

    def delete_user(self, user_id: str) -> GraphStats:
        """Remove every node and edge of the user (and nothing else); return what was removed."""
        return self.run(build_delete_user(user_id))

    def load_records(
        self,
        user_id: str,
        *,
        entities: Iterable[Entity] = (),
        relations: Iterable[Relation] = (),
        events: Iterable[TemporalEvent] = (),
        links: Iterable[CausalLink] = (),
    ) -> GraphLoad:
        """Write records as they are (an import): mentions, sightings and times kept.

        The records are those the ``list_*`` methods return (of any user: their ids are
        derived again for ``user_id``). One the user already has is left as it is: an
        entity of the same name, an event of the same text and moment, a causal link of the
        same cause and effect, a relation of the same ends, type and ``valid_from`` (or a
        current one of the same ends and type, when the given one is current). Ends of
        relations, events and links that are missing are created with defaults. Everything
        is written in one transaction: all of it or, on an error, none.

        Example:
            >>> from langgraph_prax_memory.graph import SQLiteGraphStore
            >>> store = SQLiteGraphStore(":memory:")
            >>> for _ in range(3):
            ...     _ = store.merge_entity("u1", "Alice")
            >>> done = store.load_records("u2", entities=store.list_entities("u1"))
            >>> [(e.name, e.mention_count) for e in store.list_entities("u2")]
            [('alice', 3)]
            >>> store.load_records("u2", entities=store.list_entities("u1")).total
            0

        Raises:
            MemoryValidationError: A record its write would refuse (nothing is written).
        """
        return self.run(
            build_load(
                self.vocabulary,
                user_id,
                entities=entities,
                relations=relations,
                events=events,
                links=links,
            )
        )

    def delete_records(
        self,
        user_id: str,
        *,
        entity_ids: Iterable[str] = (),
        relation_ids: Iterable[str] = (),
        event_ids: Iterable[str] = (),
        link_ids: Iterable[str] = (),
    ) -> GraphStats:
        """Delete records of ``user_id`` by id, in one transaction; return what was removed.

        An entity goes with its relations and its links to events and causal links (as in
        :meth:`delete_user`); ids of other users' records, or of none, are ignored. What a
        failed import undoes with the ids :meth:`load_records` returned.
        """
        return self.run(
            build_delete_records(
                user_id,
                entity_ids=entity_ids,
                relation_ids=relation_ids,
                event_ids=event_ids,
                link_ids=link_ids,
            )
        )
