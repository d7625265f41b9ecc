"""The KnowledgeStore contract on the embedded SQLite backend (a file and ``:memory:``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from langgraph_prax_memory.graph import SQLiteGraphStore
from langgraph_prax_memory.knowledge import AsyncSQLiteKnowledgeStore, SQLiteKnowledgeStore
from tests.unit.knowledge.contract import KnowledgeStoreContract


class TestSQLiteFileKnowledgeContract(KnowledgeStoreContract):
    @pytest.fixture
    def graph(self, tmp_path: Path) -> Iterator[SQLiteGraphStore]:
        store = SQLiteGraphStore(tmp_path / "graph.sqlite3")
        yield store
        store.close()

    @pytest.fixture
    def kstore(self, graph: SQLiteGraphStore) -> SQLiteKnowledgeStore:
        return SQLiteKnowledgeStore(graph)


class TestSQLiteMemoryKnowledgeContract(KnowledgeStoreContract):
    @pytest.fixture
    def graph(self) -> Iterator[SQLiteGraphStore]:
        store = SQLiteGraphStore(":memory:")
        yield store
        store.close()

    @pytest.fixture
    def kstore(self, graph: SQLiteGraphStore) -> SQLiteKnowledgeStore:
        return SQLiteKnowledgeStore(graph)


def test_same_database_file_as_the_graph(tmp_path: Path) -> None:
    path = tmp_path / "graph.sqlite3"
    graph = SQLiteGraphStore(path)
    SQLiteKnowledgeStore(graph).merge_concept("u1", "docs", "Persisted")
    graph.close()
    reopened = SQLiteGraphStore(path)
    try:
        store = SQLiteKnowledgeStore(reopened)
        assert store.get_concept("u1", "docs", "persisted") is not None
        tables = {
            r[0]
            for r in reopened._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        assert {"entities", "knowledge_concepts", "knowledge_entity_refs"} <= tables
    finally:
        reopened.close()


def test_a_failed_batch_leaves_nothing_behind(tmp_path: Path) -> None:
    graph = SQLiteGraphStore(tmp_path / "g.sqlite3")
    store = SQLiteKnowledgeStore(graph)
    original = graph._conn

    class Failing:
        def __getattr__(self, name: str) -> object:
            return getattr(original, name)

        def executemany(self, sql: str, rows: object) -> object:
            if "knowledge_relations" in sql:
                raise RuntimeError("injected fault")
            return original.executemany(sql, rows)  # type: ignore[arg-type]

    from langgraph_prax_memory.errors import MemoryWriteError
    from langgraph_prax_memory.knowledge import ConceptInput, RelationInput

    graph._conn = Failing()  # type: ignore[assignment]
    try:
        with pytest.raises(MemoryWriteError):
            store.write_batch(
                "u1", "docs", [ConceptInput(name="A")], [RelationInput(source="A", target="B")]
            )
    finally:
        graph._conn = original
    assert store.stats("u1").concepts == 0
    graph.close()


async def test_async_face_has_the_same_behaviour(tmp_path: Path) -> None:
    store = AsyncSQLiteKnowledgeStore(tmp_path / "g.sqlite3")
    c = await store.merge_concept("u1", "docs", "LangGraph", description="graphs of agents")
    rel = await store.add_relation("u1", "docs", "LangGraph", "LangChain", "based_on")
    assert rel.source_id == c.id
    hits = await store.keyword_search("u1", "agents")
    assert [h.concept.name for h in hits] == ["langgraph"]
    assert [n.namespace for n in await store.namespaces("u1")] == ["docs"]
    assert (await store.stats("u1")).relations == 1
    assert (await store.delete_namespace("u1", "docs")).concepts == 2
    await store.close()
