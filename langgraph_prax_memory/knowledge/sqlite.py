"""The knowledge namespace in the SQLite graph database (same file, same connection).

The public methods are :class:`~langgraph_prax_memory.knowledge.KnowledgeStore`'s, written
once over op objects; :class:`SQLiteKnowledgeStore` runs an op's SQL (``_sql.py``) on the
:class:`~langgraph_prax_memory.graph.SQLiteGraphStore`'s public plumbing: its
``transaction`` (one ``BEGIN IMMEDIATE`` per write, rolled back on any error, under the
store's lock: one SQLite writer per file), ``query`` and ``connection``.
:class:`AsyncSQLiteKnowledgeStore` is the async face's default: the sync store in a worker
thread (``sqlite3`` has no async API).
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import TypeVar

from langgraph_prax_memory.errors import BackendUnavailable
from langgraph_prax_memory.graph import SQLiteGraphStore
from langgraph_prax_memory.knowledge._ops import KnowledgeOp
from langgraph_prax_memory.knowledge._sql import SCHEMA, sql_op
from langgraph_prax_memory.knowledge._store import AsyncKnowledgeStore, KnowledgeStore

__all__ = ["AsyncSQLiteKnowledgeStore", "SQLiteKnowledgeStore"]

T = TypeVar("T")


class SQLiteKnowledgeStore(KnowledgeStore):
    """The concept graph in the memory graph's SQLite database.

    Args:
        graph: The :class:`~langgraph_prax_memory.graph.SQLiteGraphStore` whose database file
            and connection to share (``REFERENCES_ENTITY`` needs its ``entities`` table).

    Example:
        >>> from langgraph_prax_memory.graph import SQLiteGraphStore
        >>> store = SQLiteKnowledgeStore(SQLiteGraphStore(":memory:"))
        >>> c = store.merge_concept("u1", "papers", "Attention", description="Weighs tokens")
        >>> (c.name, c.display_name, c.namespace)
        ('attention', 'Attention', 'papers')
        >>> [h.concept.display_name for h in store.keyword_search("u1", "attention")]
        ['Attention']
    """

    def __init__(self, graph: SQLiteGraphStore) -> None:
        if not isinstance(graph, SQLiteGraphStore):
            raise TypeError("SQLiteKnowledgeStore needs the SQLiteGraphStore it shares a file with")
        self.graph = graph
        self.setup()

    def setup(self) -> None:
        """Create the knowledge tables and indexes (idempotent)."""
        with self.graph.connection() as conn:
            try:
                conn.executescript(SCHEMA)
            except sqlite3.Error as exc:
                raise BackendUnavailable(
                    f"cannot set up the SQLite knowledge tables: {exc}"
                ) from exc

    def close(self) -> None:
        """Nothing to release: the connection belongs to the graph store."""

    def run(self, op: KnowledgeOp[T]) -> T:
        """Run one op on the graph's database (a write op in one transaction)."""
        return sql_op(self.graph, op)


class AsyncSQLiteKnowledgeStore(AsyncKnowledgeStore):
    """The async face of :class:`SQLiteKnowledgeStore` (same method names, coroutines).

    ``sqlite3`` has no async API, so each call runs the sync store in a worker thread, one at
    a time behind an :class:`asyncio.Lock` (SQLite serialises writers anyway).

    Args:
        store: The sync store, the graph store to build it on, or a database path.

    Example:
        >>> import asyncio
        >>> from langgraph_prax_memory.graph import SQLiteGraphStore
        >>> store = AsyncSQLiteKnowledgeStore(SQLiteKnowledgeStore(SQLiteGraphStore(":memory:")))
        >>> c = asyncio.run(store.merge_concept("u1", "docs", "LangGraph"))
        >>> c.name
        'langgraph'
    """

    def __init__(self, store: SQLiteKnowledgeStore | SQLiteGraphStore | str | Path) -> None:
        if isinstance(store, SQLiteKnowledgeStore):
            sync_store = store
        elif isinstance(store, SQLiteGraphStore):
            sync_store = SQLiteKnowledgeStore(store)
        else:
            sync_store = SQLiteKnowledgeStore(SQLiteGraphStore(store))
        super().__init__(sync_store)
        #: The sync store every call runs on.
        self.sync_store: SQLiteKnowledgeStore = sync_store
        self._lock = asyncio.Lock()

    async def arun(self, op: KnowledgeOp[T]) -> T:
        """Run one op on the sync store in a worker thread, one at a time."""
        async with self._lock:
            return await super().arun(op)
