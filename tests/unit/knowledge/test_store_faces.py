"""The knowledge store's two faces: the same methods, written once over op objects."""

from __future__ import annotations

import asyncio
import inspect

import pytest

from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.graph import SQLiteGraphStore
from langgraph_prax_memory.knowledge import (
    AsyncKnowledgeStore,
    AsyncNeo4jKnowledgeStore,
    AsyncSQLiteKnowledgeStore,
    KnowledgeStore,
    Neo4jKnowledgeStore,
    SQLiteKnowledgeStore,
)


def public(cls: type) -> dict[str, object]:
    return {n: m for n, m in vars(cls).items() if not n.startswith("_") and callable(m)}


def test_the_async_face_has_every_method_with_the_same_signature() -> None:
    sync, face = public(KnowledgeStore), public(AsyncKnowledgeStore)
    assert set(sync) - {"run"} == set(face) - {"arun"}
    drift = []
    for name, member in sync.items():
        if name == "run":
            continue
        assert inspect.iscoroutinefunction(face[name]), f"{name} is not async"
        a, b = inspect.signature(member), inspect.signature(face[name])  # type: ignore[arg-type]
        if list(a.parameters.values()) != list(b.parameters.values()):
            drift.append(f"{name}: {a} != {b}")
    assert drift == []


def test_backends_implement_only_the_runner() -> None:
    # the public methods live in the faces; a backend adds its runner, setup and close
    for cls in (SQLiteKnowledgeStore, Neo4jKnowledgeStore):
        assert set(public(cls)) <= {"run", "setup", "close"}, cls
    for cls in (AsyncSQLiteKnowledgeStore, AsyncNeo4jKnowledgeStore):
        assert set(public(cls)) <= {"arun", "setup", "close"}, cls


def test_bad_arguments_fail_before_the_backend_on_both_faces() -> None:
    store = SQLiteKnowledgeStore(SQLiteGraphStore(":memory:"))
    face = AsyncKnowledgeStore(store)
    with pytest.raises(MemoryValidationError):
        store.get_relations("u1", "docs", direction="sideways")
    with pytest.raises(MemoryValidationError):
        asyncio.run(face.get_relations("u1", "docs", direction="sideways"))
    assert store.keyword_search("u1", "   ") == []
    assert asyncio.run(face.delete_items("u1", "docs")).concepts == 0


def test_the_default_async_face_runs_the_sync_store_in_a_thread() -> None:
    store = SQLiteKnowledgeStore(SQLiteGraphStore(":memory:"))
    face = AsyncKnowledgeStore(store)

    async def main() -> None:
        rel = await face.add_relation("u1", "docs", "LangGraph", "LangChain", "uses")
        assert (rel.source, rel.target, rel.type) == ("langgraph", "langchain", "uses")
        hits = await face.keyword_search("u1", "langgraph")
        assert [h.concept.name for h in hits] == ["langgraph"]
        assert (await face.stats("u1")).relations == 1

    asyncio.run(main())
    assert store.get_concept("u1", "docs", "LangChain") is not None
    with pytest.raises(TypeError):
        asyncio.run(AsyncKnowledgeStore().stats("u1"))
