"""The async face of the SQLite graph: the generic one, over the sync store.

:mod:`sqlite3` has no native async API (every call blocks the calling thread), so
:class:`AsyncSQLiteGraphStore` is :class:`~langgraph_prax_memory.graph.AsyncGraphStore` as it
is: each op runs on the synchronous :class:`SQLiteGraphStore` in a worker thread, one at a
time.
"""

from __future__ import annotations

from pathlib import Path

from langgraph_prax_memory.graph._async_base import AsyncGraphStore
from langgraph_prax_memory.graph._decay import DEFAULT_GRAPH_HALFLIFE_DAYS
from langgraph_prax_memory.graph._types import Vocabulary
from langgraph_prax_memory.graph.sqlite._store import SQLiteGraphStore

__all__ = ["AsyncSQLiteGraphStore"]


class AsyncSQLiteGraphStore(AsyncGraphStore):
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

    sync_store: SQLiteGraphStore

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

    @property  # type: ignore[override]
    def vocabulary(self) -> Vocabulary:
        """The allowed entity and relation types (the sync store's)."""
        return self.sync_store.vocabulary

    @vocabulary.setter
    def vocabulary(self, value: Vocabulary) -> None:
        self.sync_store.vocabulary = value

    @property  # type: ignore[override]
    def halflife_days(self) -> float:
        """The default decay half-life in days (the sync store's)."""
        return self.sync_store.halflife_days

    @halflife_days.setter
    def halflife_days(self, value: float) -> None:
        self.sync_store.halflife_days = value
