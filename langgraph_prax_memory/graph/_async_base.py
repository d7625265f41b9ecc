"""The async face of the graph store: :class:`AsyncGraphStore`, its methods written once.

The same public methods as :class:`~langgraph_prax_memory.graph.GraphStore` (``_base.py``),
awaitable, built from the same op builders (``_ops.py``) and run by
:meth:`AsyncGraphStore.arun`, which by default runs a sync store's runner in a worker thread
(``asyncio.to_thread``); a backend with a native async driver overrides ``arun`` alone.
Duck-typed stores pass ``isinstance`` as they do for the sync class (``StructuralMeta``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, Self, TypeVar

from langgraph_prax_memory.graph._base import GraphStore, StructuralMeta
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

__all__ = ["AsyncGraphStore"]

T = TypeVar("T")
R = TypeVar("R")


class AsyncGraphStore(metaclass=StructuralMeta):
    """The async face of :class:`GraphStore`: the same methods, awaitable, written once.

    :meth:`arun` runs :attr:`sync_store`'s runner in a worker thread, one call at a time (an
    :class:`asyncio.Lock`, so queued coroutines wait on the loop instead of each parking a
    thread); a backend with a native async driver overrides :meth:`arun`, :meth:`setup` and
    :meth:`close` instead.

    Attributes:
        sync_store: The synchronous store the default runner calls in a worker thread (a
            subclass sets it in its constructor, as :class:`AsyncSQLiteGraphStore` does).

    Example:
        >>> import asyncio
        >>> from langgraph_prax_memory.graph import AsyncSQLiteGraphStore
        >>> async def demo() -> int:
        ...     store: AsyncGraphStore = AsyncSQLiteGraphStore(":memory:")
        ...     await store.merge_entity("u1", "Alice")
        ...     return (await store.stats("u1")).entities
        >>> asyncio.run(demo())
        1
    """

    _duck_typed = True
    vocabulary: Vocabulary
    halflife_days: float
    #: The synchronous store the default :meth:`arun` runs in a worker thread (set by a
    #: subclass that uses the default runner; a native runner has none).
    sync_store: GraphStore
    _call_lock: asyncio.Lock | None = None

    async def arun(self, op: GraphOp[T]) -> T:
        """Run one op: by default the sync store's :meth:`GraphStore.run` in a worker thread."""
        return await self._in_thread(self._sync().run, op)

    async def setup(self) -> None:
        """See :meth:`GraphStore.setup`."""
        await self._in_thread(self._sync().setup)

    async def close(self) -> None:
        """See :meth:`GraphStore.close`."""
        await self._in_thread(self._sync().close)

    def _sync(self) -> GraphStore:
        store: GraphStore | None = getattr(self, "sync_store", None)
        if store is None:
            raise NotImplementedError(f"{type(self).__name__} has no sync_store: override arun")
        return store

    async def _in_thread(self, fn: Callable[..., R], *args: Any) -> R:
        if self._call_lock is None:
            self._call_lock = asyncio.Lock()
        async with self._call_lock:
            return await asyncio.to_thread(fn, *args)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def merge_entity(
        self,
        user_id: str,
        name: str,
        *,
        entity_type: str | None = None,
        importance: float | None = None,
        properties: Mapping[str, Any] | None = None,
        now: datetime | None = None,
    ) -> Entity:
        """See :meth:`GraphStore.merge_entity`."""
        return await self.arun(
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

    async def get_entity(
        self, user_id: str, name: str, *, include_superseded: bool = False
    ) -> EntityWithRelations | None:
        """See :meth:`GraphStore.get_entity`."""
        return await self.arun(build_get_entity(user_id, name, include_superseded))

    async def entity_ids_for(self, user_id: str, names: Iterable[str]) -> dict[str, str]:
        """See :meth:`GraphStore.entity_ids_for`."""
        op = EntityIdsFor(user_id, name_map(user_id, names))
        return await self.arun(op) if op.wanted else {}

    async def search_entities(self, user_id: str, text: str, *, limit: int = 10) -> list[Entity]:
        """See :meth:`GraphStore.search_entities`."""
        return await self.arun(build_search(user_id, text, limit))

    async def top_entities(self, user_id: str, *, limit: int = 80) -> list[Entity]:
        """See :meth:`GraphStore.top_entities`."""
        return await self.arun(build_top_entities(user_id, limit))

    async def list_entities(
        self, user_id: str, *, after: str | None = None, limit: int = 1000
    ) -> list[Entity]:
        """See :meth:`GraphStore.list_entities`."""
        return await self.arun(build_page(ListEntities, user_id, after, limit))

    async def list_relations(
        self, user_id: str, *, after: str | None = None, limit: int = 1000
    ) -> list[Relation]:
        """See :meth:`GraphStore.list_relations`."""
        return await self.arun(build_page(ListRelations, user_id, after, limit))

    async def list_events(
        self, user_id: str, *, after: str | None = None, limit: int = 1000
    ) -> list[TemporalEvent]:
        """See :meth:`GraphStore.list_events`."""
        return await self.arun(build_page(ListEvents, user_id, after, limit))

    async def list_causal_links(
        self, user_id: str, *, after: str | None = None, limit: int = 1000
    ) -> list[CausalLink]:
        """See :meth:`GraphStore.list_causal_links`."""
        return await self.arun(build_page(ListCausalLinks, user_id, after, limit))

    async def relations_among(
        self,
        user_id: str,
        entity_ids: Iterable[str],
        *,
        both_ends: bool = True,
        include_superseded: bool = False,
        limit: int = 100,
    ) -> list[Relation]:
        """See :meth:`GraphStore.relations_among`."""
        op = build_relations_among(
            user_id,
            entity_ids,
            both_ends=both_ends,
            include_superseded=include_superseded,
            limit=limit,
        )
        return await self.arun(op) if op.entity_ids else []

    async def add_relation(
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
        """See :meth:`GraphStore.add_relation`."""
        return await self.arun(
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

    async def supersede_relation(
        self,
        user_id: str,
        source: str,
        target: str,
        relation_type: str,
        *,
        now: datetime | None = None,
    ) -> Relation | None:
        """See :meth:`GraphStore.supersede_relation`."""
        return await self.arun(
            build_supersede(self.vocabulary, user_id, source, target, relation_type, now)
        )

    async def current_targets(self, user_id: str, source: str, relation_type: str) -> list[Entity]:
        """See :meth:`GraphStore.current_targets`."""
        return await self.arun(
            build_current_targets(self.vocabulary, user_id, source, relation_type)
        )

    async def merge_temporal_event(
        self,
        user_id: str,
        description: str,
        *,
        participants: Iterable[str] = (),
        occurred_at: datetime | None = None,
        importance: float | None = None,
        now: datetime | None = None,
    ) -> TemporalEvent:
        """See :meth:`GraphStore.merge_temporal_event`."""
        return await self.arun(
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

    async def add_causal_link(
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
        """See :meth:`GraphStore.add_causal_link`."""
        return await self.arun(
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

    async def get_events(
        self, user_id: str, *, entity: str | None = None, limit: int = 50
    ) -> list[TemporalEvent]:
        """See :meth:`GraphStore.get_events`."""
        return await self.arun(build_events(user_id, entity, limit))

    async def get_causal_links(
        self, user_id: str, *, entity: str | None = None, limit: int = 50
    ) -> list[CausalLink]:
        """See :meth:`GraphStore.get_causal_links`."""
        return await self.arun(build_links(user_id, entity, limit))

    async def get_neighbours(
        self, user_id: str, name: str, *, hops: int = 1, limit: int = 25
    ) -> list[Neighbour]:
        """See :meth:`GraphStore.get_neighbours`."""
        return await self.arun(build_neighbours(user_id, name, hops, limit))

    async def decay_graph(
        self,
        user_id: str,
        *,
        now: datetime | None = None,
        halflife_days: float | None = None,
        dry_run: bool = False,
    ) -> DecayResult:
        """See :meth:`GraphStore.decay_graph`."""
        return await self.arun(
            build_decay(user_id, now, halflife_days, self.halflife_days, dry_run)
        )

    async def stats(self, user_id: str) -> GraphStats:
        """See :meth:`GraphStore.stats`."""
        return await self.arun(build_stats(user_id))

    async def delete_user(self, user_id: str) -> GraphStats:
        """See :meth:`GraphStore.delete_user`."""
        return await self.arun(build_delete_user(user_id))

    async def load_records(
        self,
        user_id: str,
        *,
        entities: Iterable[Entity] = (),
        relations: Iterable[Relation] = (),
        events: Iterable[TemporalEvent] = (),
        links: Iterable[CausalLink] = (),
    ) -> GraphLoad:
        """See :meth:`GraphStore.load_records`."""
        return await self.arun(
            build_load(
                self.vocabulary,
                user_id,
                entities=entities,
                relations=relations,
                events=events,
                links=links,
            )
        )

    async def delete_records(
        self,
        user_id: str,
        *,
        entity_ids: Iterable[str] = (),
        relation_ids: Iterable[str] = (),
        event_ids: Iterable[str] = (),
        link_ids: Iterable[str] = (),
    ) -> GraphStats:
        """See :meth:`GraphStore.delete_records`."""
        return await self.arun(
            build_delete_records(
                user_id,
                entity_ids=entity_ids,
                relation_ids=relation_ids,
                event_ids=event_ids,
                link_ids=link_ids,
            )
        )
