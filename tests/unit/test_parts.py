"""The composition: PraxMemory builds LongTermMemory and MemoryParts; services take the parts."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from langgraph_prax_memory import ConfigError, MemoryConfig, PraxMemory, PraxMemoryStore
from langgraph_prax_memory._parts import MemoryParts, parts_of
from langgraph_prax_memory.consolidation import Consolidator
from langgraph_prax_memory.graph import SQLiteGraphStore
from langgraph_prax_memory.knowledge import KnowledgeBase
from langgraph_prax_memory.vectors import QdrantVectorStore


class CallableGraph(SQLiteGraphStore):
    """A graph store that happens to be callable: it must be used as given, not called."""

    def __call__(self) -> Any:
        raise AssertionError("a graph store was called as if it were a factory")


def test_the_facade_is_built_from_its_parts(memory: PraxMemory) -> None:
    assert memory.parts.ltm is memory.ltm
    assert memory.stm is memory.parts.stm and memory.notes is memory.parts.notes
    assert memory.vectors is memory.ltm.vectors and memory.embeddings is memory.ltm.embeddings
    assert parts_of(memory) is memory.parts and parts_of(memory.parts) is memory.parts
    assert Consolidator(memory).parts is memory.parts
    assert KnowledgeBase(memory).parts is memory.parts


def test_parts_of_refuses_anything_else() -> None:
    with pytest.raises(ConfigError, match="PraxMemory or its MemoryParts"):
        parts_of(object())  # type: ignore[arg-type]


def test_the_graph_is_built_once_on_first_use(config: MemoryConfig) -> None:
    built: list[SQLiteGraphStore] = []

    def make() -> SQLiteGraphStore:
        built.append(SQLiteGraphStore(":memory:"))
        return built[-1]

    with PraxMemory(config) as mem:
        parts = MemoryParts(mem.config, mem.ltm, mem.stm, mem.notes, graph=make)
        assert not parts.graph_opened and built == []
        seen: list[object] = []
        threads = [threading.Thread(target=lambda: seen.append(parts.graph)) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(built) == 1 and all(g is built[0] for g in seen) and parts.graph_opened
        built[0].close()


def test_a_callable_graph_store_is_used_as_given(config: MemoryConfig) -> None:
    graph = CallableGraph(":memory:")
    with PraxMemory(config, graph=graph) as mem:
        assert mem.graph is graph and mem.parts.graph_opened


def test_a_store_batch_is_one_upsert_request(
    memory: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    original = QdrantVectorStore.upsert

    def counting(self: QdrantVectorStore, user_id: str, records: Any) -> list[str]:
        calls.append(len(records))
        return original(self, user_id, records)

    monkeypatch.setattr(QdrantVectorStore, "upsert", counting)
    store = PraxMemoryStore(memory)
    from langgraph.store.base import PutOp

    store.batch([PutOp(("memories", "u1"), f"k{i}", {"content": f"fact {i}"}) for i in range(300)])
    assert calls == [300]  # the store's batch is not split (it is refused or taken whole)
    memory.remember_many("u1", [f"note {i}" for i in range(300)])
    assert calls[1:] == [256, 44]  # remember_many writes in chunks of 256
