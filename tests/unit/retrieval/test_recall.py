"""The recall pipeline on real Qdrant (local mode) and the real SQLite graph."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory._parts import MemoryParts
from langgraph_prax_memory.config import RetrievalConfig
from langgraph_prax_memory.embeddings import PackagedMiniLMEmbeddings
from langgraph_prax_memory.retrieval._recaller import Recaller
from tests.fakes import HashEmbeddings


def test_graph_arm_finds_memories_linked_to_neighbours(memory: PraxMemory) -> None:
    g = memory.graph
    g.add_relation("alice", "Alice", "FinCorp", "works_on")
    g.add_relation("alice", "FinCorp", "XGBoost", "related_to")
    ids = g.entity_ids_for("alice", ["XGBoost"])
    mid = memory.remember(
        "alice", "The fraud model reached 0.93 AUC last sprint", entity_ids=list(ids.values())
    )
    memory.remember("alice", "Lunch was pasta")
    result = memory.recall_detailed("alice", "What is Alice working on?", k=3, reinforce=False)
    assert result.intent == "entity"
    assert result.arms["graph"] == 1
    top = result.hits[0]
    assert top.memory.id == mid and top.ranks.get("graph") == 1
    assert top.weights["graph"] == 1.4


def test_graph_arm_is_tenant_scoped(memory: PraxMemory) -> None:
    memory.graph.add_relation("bob", "Bob", "Secret Project", "works_on")
    ids = memory.graph.entity_ids_for("bob", ["Secret Project"])
    memory.remember("bob", "Secret Project budget is 2M", entity_ids=list(ids.values()))
    result = memory.recall_detailed("alice", "Secret Project budget", k=5)
    assert result.hits == []


def test_a_failed_arm_is_reported_and_recall_goes_on(
    memory: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory.remember("alice", "Alice uses Helix as her editor")

    class BrokenGraph:
        def search_entities(self, *a: Any, **k: Any) -> Any:
            raise ConnectionError("neo4j is down")

    monkeypatch.setattr(MemoryParts, "graph", property(lambda self: BrokenGraph()))
    result = memory.recall_detailed("alice", "Which editor does Alice use?", k=3)
    assert "graph" in result.errors and "neo4j is down" in result.errors["graph"]
    assert result.hits[0].memory.content == "Alice uses Helix as her editor"


def test_arms_run_concurrently(memory: PraxMemory) -> None:
    memory.remember("alice", "Alice likes tea")
    recaller = memory.ltm._recaller()
    active: list[int] = []
    peak = [0]
    lock = threading.Lock()

    def slow(orig: Any) -> Any:
        def run(*a: Any, **k: Any) -> Any:
            with lock:
                active.append(1)
                peak[0] = max(peak[0], len(active))
            time.sleep(0.2)
            with lock:
                active.pop()
            return orig(*a, **k)

        return run

    recaller.dense_arm = slow(recaller.dense_arm)  # type: ignore[method-assign]
    recaller.sparse_arm = slow(recaller.sparse_arm)  # type: ignore[method-assign]
    recaller.graph_arm = slow(recaller.graph_arm)  # type: ignore[method-assign]
    memory.recall("alice", "tea", reinforce=False)
    assert peak[0] == 3


def test_reinforcement_moves_a_memory_up(config: MemoryConfig) -> None:
    # the hand-set cosine scale this arithmetic was written for (hash embeddings have no
    # semantic scale to measure)
    pinned = RetrievalConfig(relevance_floor=False, unrelated_cosine=0.0, min_cosine=0.3)
    cfg = config.model_copy(update={"retrieval": pinned})
    with PraxMemory(cfg, embeddings=HashEmbeddings(), embedding_dimension=384) as memory:
        _reinforcement_moves_a_memory_up(memory)


def _reinforcement_moves_a_memory_up(memory: PraxMemory) -> None:
    t0 = datetime(2024, 3, 1, tzinfo=UTC)
    a = memory.remember("alice", "Alice plays chess on Sundays", created_at=t0)
    b = memory.remember("alice", "Alice plays chess at the club", created_at=t0)
    # two months on, recency takes its full share (0.1) from the memory nobody recalled:
    # enough to reorder these two near-equal memories, never a clear relevance gap
    later = t0 + timedelta(days=60)
    first = memory.recall("alice", "chess", k=2, now=later, reinforce=False)
    loser = first[1].memory.id
    # recall the lower one specifically, at `later`: its clock restarts
    memory.recall("alice", "club" if loser == b else "Sundays", k=1, now=later)
    memory.flush()
    again = memory.recall("alice", "chess", k=2, now=later, reinforce=False)
    assert again[0].memory.id == loser
    assert {a, b} == {h.memory.id for h in again}


def test_query_expansion_unions_variant_hits(config: MemoryConfig) -> None:
    cfg = config.model_copy(update={"retrieval": RetrievalConfig(query_expansion=True)})
    model = FakeListChatModel(responses=['{"variants": ["favourite hot drink", "green tea"]}'])
    mem = PraxMemory(
        cfg, embeddings=HashEmbeddings(), embedding_dimension=384, expansion_model=model
    )
    try:
        tea = mem.remember("alice", "green tea every morning")
        mem.remember("alice", "Alice's car is blue")
        result = mem.recall_detailed("alice", "beverage preference", k=1, reinforce=False)
        assert result.hits[0].memory.id == tea
    finally:
        mem.close()


def test_expansion_variants_are_embedded_as_questions(config: MemoryConfig) -> None:
    # models with a query prefix (e5, bge) embed a question apart from a stored text; each
    # variant is a question, so it must go through embed_query, as the question itself does
    # (the real packaged model, with a record of which texts went through which call)
    class Questions(PackagedMiniLMEmbeddings):
        def __init__(self) -> None:
            super().__init__(config.data_dir / "models")
            self.asked: list[str] = []
            self.stored: list[str] = []

        def embed_query(self, text: str) -> list[float]:
            self.asked.append(text)
            return super().embed_query(text)

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            self.stored += texts
            return super().embed_documents(texts)

    emb = Questions()
    cfg = config.model_copy(update={"retrieval": RetrievalConfig(query_expansion=True)})
    variants = '{"variants": ["favourite hot drink", "green tea"]}'
    model = FakeListChatModel(responses=['{"variants": []}', variants])
    mem = PraxMemory(cfg, embeddings=emb, embedding_dimension=384, expansion_model=model)
    try:
        mem.remember("alice", "green tea every morning")
        mem.recall("alice", "warm-up", k=1, reinforce=False)  # the scale is measured here
        emb.asked.clear()
        emb.stored.clear()
        hits = mem.recall_detailed("alice", "beverage preference", k=1, reinforce=False).hits
        assert emb.asked == ["beverage preference", "favourite hot drink", "green tea"]
        assert emb.stored == []  # no question embedded as a stored text
        assert hits[0].memory.content == "green tea every morning"
    finally:
        mem.close()


def test_failed_expansion_and_rerank_degrade_to_plain_order(config: MemoryConfig) -> None:
    cfg = config.model_copy(
        update={"retrieval": RetrievalConfig(query_expansion=True, rerank=True)}
    )
    broken = FakeListChatModel(responses=["this is not json"])
    plain = PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384)
    mem = PraxMemory(
        cfg,
        embeddings=HashEmbeddings(),
        embedding_dimension=384,
        expansion_model=broken,
        rerank_model=broken,
        qdrant_client=plain.vectors.client,
    )
    try:
        for text in ["chess on Sundays", "chess club", "tea in the morning"]:
            plain.remember("alice", text)
        want = [h.memory.id for h in plain.recall("alice", "chess", k=3, reinforce=False)]
        got = [h.memory.id for h in mem.recall("alice", "chess", k=3, reinforce=False)]
        assert got == want
    finally:
        mem.ltm._background.shutdown()
        plain.close()


def test_rerank_reorders_by_the_judge(config: MemoryConfig) -> None:
    cfg = config.model_copy(update={"retrieval": RetrievalConfig(rerank=True)})
    judge = FakeListChatModel(responses=['{"scores": {"0": 1, "1": 9}}'])
    plain = PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384)
    mem = PraxMemory(
        cfg,
        embeddings=HashEmbeddings(),
        embedding_dimension=384,
        rerank_model=judge,
        qdrant_client=plain.vectors.client,
    )
    try:
        plain.remember("alice", "chess chess chess on Sundays")
        plain.remember("alice", "a chess club downtown")
        fused = [h.memory.id for h in plain.recall("alice", "chess", k=2, reinforce=False)]
        reranked = [h.memory.id for h in mem.recall("alice", "chess", k=2, reinforce=False)]
        assert reranked == [fused[1], fused[0]]
    finally:
        mem.ltm._background.shutdown()
        plain.close()


def test_recaller_has_no_graph_arm_when_disabled(config: MemoryConfig) -> None:
    mem = PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384, graph_arm=False)
    try:
        mem.remember("alice", "x y z")
        assert "graph" not in mem.recall_detailed("alice", "x").arms
        assert isinstance(mem.ltm._recaller(), Recaller)
    finally:
        mem.close()
