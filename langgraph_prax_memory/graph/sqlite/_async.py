"""The async face of the SQLite graph.

:mod:`sqlite3` has no native async API (every call blocks the calling thread), so
:class:`AsyncSQLiteGraphStore` runs the synchronous :class:`SQLiteGraphStore` in a worker thread
with :func:`asyncio.to_thread`, keeping the event loop free. An :class:`asyncio.Lock` admits one
call at a time, so concurrent coroutines queue on the loop instead of each parking a worker
thread on the store's internal lock (SQLite serialises writers anyway).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from langgraph_prax_memory.graph._decay import DEFAULT_GRAPH_HALFLIFE_DAYS
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
from langgraph_prax_memory.graph.sqlite._store import SQLiteGraphStore

__all__ = ["AsyncSQLiteGraphStore"]

T = TypeVar("T")


class AsyncSQLiteGraphStore:
    """Async :class:`SQLiteGraphStore`: the same methods, run in a worker thread.

    Args:
        path: The database file, or ``":memory:"``. Ignored when ``store`` is given.
        vocabulary: Allowed entity and relation types.
        halflife_days: Half-life of the decay pass.
        store: An existing synchronous store to wrap (shares its connection).

    Example:
        >>> import asyncio
        >>> async def demo() -> list[str]:
        ...     store = AsyncSQLiteGraphStore(":memory:")
        ...     await store.add_relation("u1", "Alice", "Prax", "works_on")
        ...     found = await store.search_entities("u1", "pra")
        ...     await store.close()
        ...     return [e.name for e in found]
        >>> asyncio.run(demo())
        ['prax']
    """

    def __init__(
        self,
        path: str | Path = ":memory:",
        *,
        vocabulary: Vocabulary | None = None,
        halflife_days: float = DEFAULT_GRAPH_HALFLIFE_DAYS,
        store: SQLiteGraphStore | None = None,
    ) -> None:
        self.sync_store = store or SQLiteGraphStore(
            path, vocabulary=vocabulary, halflife_days=halflife_days
        )
        self._lock: asyncio.Lock | None = None

    @property
    def vocabulary(self) -> Vocabulary:
        """The allowed entity and relation types."""
        return self.sync_store.vocabulary

    @vocabulary.setter
    def vocabulary(self, value: Vocabulary) -> None:
        self.sync_store.vocabulary = value

    @property
    def halflife_days(self) -> float:
        """The default decay half-life (days)."""
        return self.sync_store.halflife_days

    @halflife_days.setter
    def halflife_days(self, value: float) -> None:
        self.sync_store.halflife_days = value

    async def _call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            return await asyncio.to_thread(fn, *args, **kwargs)

    async def setup(self) -> None:
        """See :meth:`SQLiteGraphStore.setup`."""
        await self._call(self.sync_store.setup)

    async def close(self) -> None:
        """See :meth:`SQLiteGraphStore.close`."""
        await self._call(self.sync_store.close)

    async def __aenter__(self) -> AsyncSQLiteGraphStore:
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
        """See :meth:`SQLiteGraphStore.merge_entity`."""
        return await self._call(
            self.sync_store.merge_entity,
            user_id,
            name,
            entity_type=entity_type,
            importance=importance,
            properties=properties,
            now=now,
        )

    async def get_entity(
        self, user_id: str, name: str, *, include_superseded: bool = False
    ) -> EntityWithRelations | None:
        """See :meth:`SQLiteGraphStore.get_entity`."""
        return await self._call(
            self.sync_store.get_entity, user_id, name, include_superseded=include_superseded
        )

    async def entity_ids_for(self, user_id: str, names: Iterable[str]) -> dict[str, str]:
        """See :meth:`SQLiteGraphStore.entity_ids_for`."""
        return await self._call(self.sync_store.entity_ids_for, user_id, list(names))

    async def search_entities(self, user_id: str, text: str, *, limit: int = 10) -> list[Entity]:
        """See :meth:`SQLiteGraphStore.search_entities`."""
        return await self._call(self.sync_store.search_entities, user_id, text, limit=limit)

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
        """See :meth:`SQLiteGraphStore.add_relation`."""
        return await self._call(
            self.sync_store.add_relation,
            user_id,
            source,
            target,
            relation_type,
            weight=weight,
            evidence=evidence,
            valid_from=valid_from,
            now=now,
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
        """See :meth:`SQLiteGraphStore.supersede_relation`."""
        return await self._call(
            self.sync_store.supersede_relation, user_id, source, target, relation_type, now=now
        )

    async def current_targets(self, user_id: str, source: str, relation_type: str) -> list[Entity]:
        """See :meth:`SQLiteGraphStore.current_targets`."""
        return await self._call(self.sync_store.current_targets, user_id, source, relation_type)

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
        """See :meth:`SQLiteGraphStore.merge_temporal_event`."""
        return await self._call(
            self.sync_store.merge_temporal_event,
            user_id,
            description,
            participants=list(participants),
            occurred_at=occurred_at,
            importance=importance,
            now=now,
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
        """See :meth:`SQLiteGraphStore.add_causal_link`."""
        return await self._call(
            self.sync_store.add_causal_link,
            user_id,
            cause,
            effect,
            cause_entities=list(cause_entities),
            effect_entities=list(effect_entities),
            importance=importance,
            now=now,
        )

    async def get_events(
        self, user_id: str, *, entity: str | None = None, limit: int = 50
    ) -> list[TemporalEvent]:
        """See :meth:`SQLiteGraphStore.get_events`."""
        return await self._call(self.sync_store.get_events, user_id, entity=entity, limit=limit)

    async def get_causal_links(
        self, user_id: str, *, entity: str | None = None, limit: int = 50
    ) -> list[CausalLink]:
        """See :meth:`SQLiteGraphStore.get_causal_links`."""
        return await self._call(
            self.sync_store.get_causal_links, user_id, entity=entity, limit=limit
        )

    async def get_neighbours(
        self, user_id: str, name: str, *, hops: int = 1, limit: int = 25
    ) -> list[Neighbour]:
        """See :meth:`SQLiteGraphStore.get_neighbours`."""
        return await self._call(
            self.sync_store.get_neighbours, user_id, name, hops=hops, limit=limit
        )

    async def decay_graph(
        self,
        user_id: str,
        *,
        now: datetime | None = None,
        halflife_days: float | None = None,
        dry_run: bool = False,
    ) -> DecayResult:
        """See :meth:`SQLiteGraphStore.decay_graph`."""
        return await self._call(
            self.sync_store.decay_graph,
            user_id,
            now=now,
            halflife_days=halflife_days,
            dry_run=dry_run,
        )

    async def stats(self, user_id: str) -> GraphStats:
        """See :meth:`SQLiteGraphStore.stats`."""
        return await self._call(self.sync_store.stats, user_id)

    async def delete_user(self, user_id: str) -> GraphStats:
        """See :meth:`SQLiteGraphStore.delete_user`."""
        return await self._call(self.sync_store.delete_user, user_id)
