"""The GraphStore contract on the embedded SQLite backend: a file, ``:memory:``, and async."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from langgraph_prax_memory.graph import AsyncSQLiteGraphStore, SQLiteGraphStore
from tests.contract.graph import AsyncGraphStoreContract, GraphStoreContract, awaited


class TestSQLiteFileContract(GraphStoreContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[SQLiteGraphStore]:
        store = SQLiteGraphStore(tmp_path / "data" / "graph.sqlite3")
        yield store
        store.close()


class TestSQLiteMemoryContract(GraphStoreContract):
    @pytest.fixture
    def store(self) -> Iterator[SQLiteGraphStore]:
        store = SQLiteGraphStore(":memory:")
        yield store
        store.close()


class TestAsyncSQLiteContract(AsyncGraphStoreContract):
    @pytest.fixture
    async def astore(self, tmp_path: Path) -> AsyncIterator[AsyncSQLiteGraphStore]:
        store = AsyncSQLiteGraphStore(tmp_path / "graph.sqlite3")
        yield store
        await store.close()


class TestAsyncSQLiteFullContract(GraphStoreContract):
    """The whole contract through the async face (the generic one: a worker thread per call)."""

    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[Any]:
        yield from awaited(lambda: AsyncSQLiteGraphStore(tmp_path / "graph.sqlite3"))
