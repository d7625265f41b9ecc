"""The ``GraphStore`` / ``AsyncGraphStore`` protocols every graph backend implements.

Both protocols have identical method names and arguments; the async one returns awaitables.
Every data method takes ``user_id`` first and validates it (``check_user_id``): no query ever
runs unscoped. Writes and the decay pass accept ``now`` so callers (and tests) control the
clock; ``None`` means the current UTC time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

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
)

__all__ = ["AsyncGraphStore", "GraphStore"]


@runtime_checkable
class GraphStore(Protocol):
    """A per-user knowledge graph: entities, bi-temporal relations, events, causal links.

    Example:
        >>> from langgraph_prax_memory.graph import SQLiteGraphStore
        >>> store: GraphStore = SQLiteGraphStore(":memory:")
        >>> _ = store.add_relation("u1", "Alice", "Prax", "works_on")
        >>> [n.entity.display_name for n in store.get_neighbours("u1", "alice")]
        ['Prax']
    """

    vocabulary: Vocabulary
    halflife_days: float

    def setup(self) -> None:
        """Create constraints / tables and indexes. Idempotent."""
        ...

    def close(self) -> None:
        """Release connections (a store passed an existing driver leaves it open)."""
        ...

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
        """
        ...

    def get_entity(
        self, user_id: str, name: str, *, include_superseded: bool = False
    ) -> EntityWithRelations | None:
        """The entity and its relations in both directions (superseded ones only if asked)."""
        ...

    def entity_ids_for(self, user_id: str, names: Iterable[str]) -> dict[str, str]:
        """Map each given name that exists as an entity to its id (keys as given)."""
        ...

    def search_entities(self, user_id: str, text: str, *, limit: int = 10) -> list[Entity]:
        """Entities whose name contains ``text`` (case-insensitive), best matches first."""
        ...

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
        ...

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
        ...

    def current_targets(self, user_id: str, source: str, relation_type: str) -> list[Entity]:
        """Targets of the current ``source -[type]->`` edges, heaviest first."""
        ...

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
        ...

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
        ...

    def get_events(
        self, user_id: str, *, entity: str | None = None, limit: int = 50
    ) -> list[TemporalEvent]:
        """Events (of one entity, when given), most recent ``occurred_at`` first."""
        ...

    def get_causal_links(
        self, user_id: str, *, entity: str | None = None, limit: int = 50
    ) -> list[CausalLink]:
        """Causal links (touching one entity, when given), newest first."""
        ...

    def get_neighbours(
        self, user_id: str, name: str, *, hops: int = 1, limit: int = 25
    ) -> list[Neighbour]:
        """Entities 1 or 2 current edges away (either direction), nearest then most important."""
        ...

    def decay_graph(
        self,
        user_id: str,
        *,
        now: datetime | None = None,
        halflife_days: float | None = None,
        dry_run: bool = False,
    ) -> DecayResult:
        """Prune faded relations, then faded entities left without relations."""
        ...

    def stats(self, user_id: str) -> GraphStats:
        """Counts of the user's graph."""
        ...

    def delete_user(self, user_id: str) -> GraphStats:
        """Remove every node and edge of the user (and nothing else); return what was removed."""
        ...


@runtime_checkable
class AsyncGraphStore(Protocol):
    """The async face of :class:`GraphStore`: the same methods, awaitable.

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

    vocabulary: Vocabulary
    halflife_days: float

    async def setup(self) -> None:
        """See :meth:`GraphStore.setup`."""
        ...

    async def close(self) -> None:
        """See :meth:`GraphStore.close`."""
        ...

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
        ...

    async def get_entity(
        self, user_id: str, name: str, *, include_superseded: bool = False
    ) -> EntityWithRelations | None:
        """See :meth:`GraphStore.get_entity`."""
        ...

    async def entity_ids_for(self, user_id: str, names: Iterable[str]) -> dict[str, str]:
        """See :meth:`GraphStore.entity_ids_for`."""
        ...

    async def search_entities(self, user_id: str, text: str, *, limit: int = 10) -> list[Entity]:
        """See :meth:`GraphStore.search_entities`."""
        ...

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
        ...

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
        ...

    async def current_targets(self, user_id: str, source: str, relation_type: str) -> list[Entity]:
        """See :meth:`GraphStore.current_targets`."""
        ...

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
        ...

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
        ...

    async def get_events(
        self, user_id: str, *, entity: str | None = None, limit: int = 50
    ) -> list[TemporalEvent]:
        """See :meth:`GraphStore.get_events`."""
        ...

    async def get_causal_links(
        self, user_id: str, *, entity: str | None = None, limit: int = 50
    ) -> list[CausalLink]:
        """See :meth:`GraphStore.get_causal_links`."""
        ...

    async def get_neighbours(
        self, user_id: str, name: str, *, hops: int = 1, limit: int = 25
    ) -> list[Neighbour]:
        """See :meth:`GraphStore.get_neighbours`."""
        ...

    async def decay_graph(
        self,
        user_id: str,
        *,
        now: datetime | None = None,
        halflife_days: float | None = None,
        dry_run: bool = False,
    ) -> DecayResult:
        """See :meth:`GraphStore.decay_graph`."""
        ...

    async def stats(self, user_id: str) -> GraphStats:
        """See :meth:`GraphStore.stats`."""
        ...

    async def delete_user(self, user_id: str) -> GraphStats:
        """See :meth:`GraphStore.delete_user`."""
        ...
