"""Pseudo-relevance feedback in the sparse arm, and what each vector indexes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_qdrant import SparseVector

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.config import RetrievalConfig
from langgraph_prax_memory.errors import BackendUnavailable
from langgraph_prax_memory.retrieval._feedback import expand_sparse, indexed_text
from tests.fakes import HashEmbeddings


def test_expand_sparse_by_hand() -> None:
    q = SparseVector(indices=[1, 5], values=[1.0, 0.5])
    d1 = SparseVector(indices=[1, 2], values=[1.0, 1.0])
    d2 = SparseVector(indices=[3], values=[0.5])
    v = expand_sparse(q, [d1, d2], 0.4)
    # each document weighs 0.4 / 2 = 0.2
    assert v.indices == [1, 2, 3, 5]
    assert v.values == pytest.approx([1.2, 0.2, 0.1, 0.5])


def test_expand_sparse_without_feedback_is_the_query() -> None:
    q = SparseVector(indices=[2, 7], values=[1.0, 0.5])
    assert expand_sparse(q, [], 0.5) == q
    d = SparseVector(indices=[9], values=[1.0])
    assert expand_sparse(q, [d], 0.0) == q


def test_indexed_text_puts_the_context_first() -> None:
    assert indexed_text({"content": "Yes!"}) == "Yes!"
    assert indexed_text({"content": "Yes!", "value": {"context": "Tea?"}}) == "Tea?\nYes!"


def _memory(config: MemoryConfig, client: Any = None, **retrieval: Any) -> PraxMemory:
    cfg = config.model_copy(update={"retrieval": RetrievalConfig(**retrieval)})
    return PraxMemory(
        cfg, embeddings=HashEmbeddings(), embedding_dimension=384, qdrant_client=client
    )


@pytest.fixture
def seeded(config: MemoryConfig) -> Iterator[tuple[PraxMemory, PraxMemory, dict[str, str]]]:
    on = _memory(config, feedback_docs=1, feedback_weight=1.0)
    off = _memory(config, on.vectors.client, feedback_docs=0)  # one collection, two rankers
    ids = {
        "dog": on.remember("alice", "Alice adopted a greyhound called Pixel"),
        "beach": on.remember("alice", "Pixel sprints along the beach every morning"),
        "tax": on.remember("alice", "The tax return is due in April"),
    }
    yield on, off, ids
    off.ltm._recaller().close()
    off.ltm._background.shutdown()
    on.close()


def test_feedback_brings_in_what_the_best_hit_talks_about(
    seeded: tuple[PraxMemory, PraxMemory, dict[str, str]],
) -> None:
    on, off, ids = seeded
    plain = off.recall_detailed("alice", "greyhound", k=3, reinforce=False)
    assert [h.memory.id for h in plain.hits if "sparse" in h.ranks] == [ids["dog"]]
    fed = on.recall_detailed("alice", "greyhound", k=3, reinforce=False)
    sparse = sorted((h.ranks["sparse"], h.memory.id) for h in fed.hits if "sparse" in h.ranks)
    # "Pixel" came in with the first hit: the beach memory now has a keyword rank too
    assert [pid for _, pid in sparse] == [ids["dog"], ids["beach"]]
    assert ids["tax"] not in {pid for _, pid in sparse}


def test_a_failed_feedback_search_keeps_the_plain_order(
    seeded: tuple[PraxMemory, PraxMemory, dict[str, str]],
) -> None:
    on, _, ids = seeded
    store = on.ltm._recaller().store
    original = store.search_sparse
    calls = [0]

    def second_call_fails(*a: Any, **k: Any) -> Any:
        calls[0] += 1
        if calls[0] == 2:
            raise BackendUnavailable("injected: Qdrant went away")
        return original(*a, **k)

    store.search_sparse = second_call_fails  # type: ignore[method-assign]
    try:
        result = on.recall_detailed("alice", "greyhound", k=3, reinforce=False)
    finally:
        store.search_sparse = original  # type: ignore[method-assign]
    assert calls[0] == 2 and not result.errors
    assert [h.memory.id for h in result.hits if "sparse" in h.ranks] == [ids["dog"]]


def test_context_feeds_the_keywords_not_the_dense_vector(memory: PraxMemory) -> None:
    emb = HashEmbeddings()
    mid = memory.remember_many(
        "alice",
        [{"content": "Yes, last May!", "context": "Bob: When did you visit Oslo?", "key": "t"}],
    )[0]
    vs = memory.vectors
    [point] = vs.client.retrieve(vs.collection, [mid], with_vectors=True)
    dense = point.vector["dense"]  # type: ignore[index]
    assert dense == pytest.approx(emb.embed_query("Yes, last May!"), abs=1e-5)
    hit = memory.recall("alice", "Oslo visit", k=1, reinforce=False)[0]
    assert hit.memory.id == mid and hit.ranks.get("sparse") == 1


def test_feedback_terms_are_capped_and_the_query_terms_stay() -> None:
    q = SparseVector(indices=[1], values=[1.0])
    doc = SparseVector(indices=[1, 2, 3, 4], values=[0.1, 0.9, 0.5, 0.7])
    v = expand_sparse(q, [doc], 1.0, max_terms=2)
    assert v.indices == [1, 2, 4]  # the query's own term, then the two heaviest new ones
    assert v.values == pytest.approx([1.1, 0.9, 0.7])


def _counting(memory: PraxMemory) -> list[int]:
    store = memory.ltm._recaller().store
    original = store.search_sparse
    calls: list[int] = []

    def counted(*a: Any, **k: Any) -> Any:
        calls.append(1)
        return original(*a, **k)

    store.search_sparse = counted  # type: ignore[method-assign]
    return calls


def test_no_second_search_without_enough_hits_or_weight(config: MemoryConfig) -> None:
    mem = _memory(config, feedback_docs=2, feedback_weight=0.5)
    try:
        mem.remember("alice", "Alice drinks green tea")
        mem.remember("alice", "Green tea with jasmine is Alice's favourite")
        calls = _counting(mem)
        mem.recall("alice", "volcano", k=3, reinforce=False)
        assert len(calls) == 1  # nothing matched: nothing to learn from
        mem.recall("alice", "drinks", k=3, reinforce=False)
        assert len(calls) == 2  # one hit, fewer than feedback_docs: it is the answer
        mem.recall("alice", "green tea", k=3, reinforce=False)
        assert len(calls) == 4  # two hits: plain search, then the expanded one
    finally:
        mem.close()
    off = _memory(config, feedback_docs=5, feedback_weight=0.0)
    try:
        off.remember("alice", "Alice drinks green tea")
        calls = _counting(off)
        off.recall("alice", "green tea", k=3, reinforce=False)
        assert len(calls) == 1
    finally:
        off.close()


def test_feedback_never_crosses_users(config: MemoryConfig) -> None:
    mem = _memory(config, feedback_docs=3, feedback_weight=2.0)
    try:
        mem.remember("alice", "Alice adopted a greyhound called Pixel")
        bob_pixel = mem.remember("bob", "Pixel is the name of my phone")
        bob_dog = mem.remember("bob", "Bob walks a greyhound")
        result = mem.recall_detailed("bob", "greyhound", k=5, reinforce=False)
        ids = {h.memory.id for h in result.hits}
        assert bob_dog in ids and all(h.memory.user_id == "bob" for h in result.hits)
        # Alice's "Pixel" cannot be a feedback term for Bob: his Pixel memory gets no keyword rank
        assert bob_pixel not in {h.memory.id for h in result.hits if "sparse" in h.ranks}
    finally:
        mem.close()


def test_a_lone_match_keeps_its_lead(config: MemoryConfig) -> None:
    """The notebook case: feedback from one hit would rank every "User prefers ..." memory."""
    mem = _memory(config)
    try:
        facts = [
            ("User prefers Rust for systems projects and Python for scripts.", 0.8),
            ("User prefers polars over pandas for large datasets because of performance.", 0.7),
            ("User mentioned having coffee before the standup.", 0.2),
        ]
        ids = [mem.remember("alice", text, importance=imp) for text, imp in facts]
        hits = mem.recall("alice", "polars", k=3, reinforce=False)
        assert [h.memory.id for h in hits if "sparse" in h.ranks] == [ids[1]]
    finally:
        mem.close()
