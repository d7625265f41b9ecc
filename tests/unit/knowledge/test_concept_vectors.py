"""Concept vectors go through the long-term memory's write path and hybrid search."""

from __future__ import annotations

from typing import Any

import pytest

from langgraph_prax_memory import PraxMemory
from langgraph_prax_memory.errors import EmbeddingError
from langgraph_prax_memory.knowledge import KNOWLEDGE_COLLECTION, KnowledgeBase, KnowledgeVectors

DOC = "# Vector Search\nHNSW is a graph index. Qdrant uses HNSW for approximate search."


def test_concepts_share_the_memory_client_and_breaker_in_their_own_collection(
    memory: PraxMemory,
) -> None:
    vectors = KnowledgeVectors(memory.ltm)
    assert vectors.store.collection == KNOWLEDGE_COLLECTION
    assert vectors.store.client is memory.ltm.vectors.client
    assert vectors.store.breaker is memory.ltm.vectors.breaker
    assert vectors.store.dimension == memory.ltm.embeddings.dimension


def test_concept_writes_and_searches_go_through_the_long_term_memory(
    memory: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = KnowledgeBase(memory)
    seen: dict[str, list[str]] = {"write": [], "search": []}
    write, search = memory.ltm.write, memory.ltm.search_texts

    def spy_write(user_id: str, records: Any, **kw: Any) -> list[str]:
        seen["write"].append(kw["into"].collection)
        return write(user_id, records, **kw)

    def spy_search(store: Any, user_id: str, query: str, **kw: Any) -> Any:
        seen["search"].append(store.collection)
        return search(store, user_id, query, **kw)

    monkeypatch.setattr(memory.ltm, "write", spy_write)
    monkeypatch.setattr(memory.ltm, "search_texts", spy_search)
    result = kb.ingest_document("u1", DOC, namespace="docs")
    assert result.indexed == result.concepts > 0
    hits = kb.search_detailed("u1", "HNSW graph index", k=3)
    assert hits.arms == ["keyword", "semantic"]
    assert seen == {"write": [KNOWLEDGE_COLLECTION], "search": [KNOWLEDGE_COLLECTION]}
    # memory recall never returns a concept: its collection holds none
    assert memory.ltm.count("u1") == 0
    assert memory.recall("u1", "HNSW graph index", k=5) == []


def test_a_failing_dense_model_stores_sparse_only_and_search_still_finds_them(
    memory: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = KnowledgeBase(memory)

    def down(*args: Any, **kwargs: Any) -> Any:
        raise EmbeddingError("the dense model is down")

    monkeypatch.setattr(memory.ltm.dense, "embed_documents", down)
    monkeypatch.setattr(memory.ltm.dense, "embed_query", down)
    result = kb.ingest_document("u1", DOC, namespace="docs")
    assert result.indexed == result.concepts > 0 and result.index_error is None
    assert kb.vectors is not None
    points = kb.vectors.store.client.scroll(KNOWLEDGE_COLLECTION, limit=100)[0]
    assert points and all((p.payload or {})["dense_pending"] for p in points)
    hits = kb.vectors.search("u1", "HNSW")
    assert hits and {h.concept_id for h in hits} <= {str(p.id) for p in points}
