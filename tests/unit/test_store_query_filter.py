"""Query + filter: the filter runs in the engine on every arm, so nothing is dropped."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore

from langgraph_prax_memory import PraxMemory, PraxMemoryStore

NS = ("memories", "u1")
N = 500


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from langgraph_prax_memory import MemoryConfig
    from tests.fakes import HashEmbeddings

    folder = tmp_path_factory.mktemp("qf")
    mem = PraxMemory(
        MemoryConfig(qdrant_url=":memory:", data_dir=folder),
        embeddings=HashEmbeddings(),
        embedding_dimension=384,
    )
    ours, theirs = PraxMemoryStore(mem), InMemoryStore()
    ops = []
    for n in range(N):
        value = {"content": f"note number {n} about gardening", "n": n, "g": n % 3, "f": n / 2}
        value["meta"] = {"tier": "gold" if n % 10 == 0 else "plain"}
        ops.append((f"k{n}", value))
    for key, value in ops:
        ours.put(NS, key, value)
        theirs.put(NS, key, value)
    yield ours, theirs
    mem.close()


FILTERS = [
    {"n": {"$gt": 45}},
    {"n": {"$gte": 100, "$lt": 110}},
    {"g": 1, "n": {"$lte": 30}},
    {"f": 2.5},
    {"n": {"$ne": 3}, "g": 0},
    {"g": 1.0},  # a float equal to the stored ints
    {"meta": {"tier": "gold"}, "n": {"$lt": 200}},
    {"n": {"$gt": 498}},
    {"n": {"$gt": 10_000}},
]


@pytest.mark.parametrize("flt", FILTERS, ids=[str(f) for f in FILTERS])
def test_query_with_filter_finds_what_in_memory_store_finds(stores: Any, flt: Any) -> None:
    ours, theirs = stores
    expected = {i.key for i in theirs.search(NS, filter=flt, limit=N)}
    everything = ours.search(NS, query="gardening notes", filter=flt, limit=N)
    assert {i.key for i in everything} == expected
    assert all(i.score is not None for i in everything)
    few = ours.search(NS, query="gardening notes", filter=flt, limit=3)
    assert len(few) == min(3, len(expected))
    assert {i.key for i in few} <= expected


def test_the_issue_example(stores: Any) -> None:
    ours, _ = stores
    found = ours.search(NS, query="a note", filter={"n": {"$gt": 45}}, limit=3)
    assert len(found) == 3 and all(i.value["n"] > 45 for i in found)


def test_ne_keeps_lists_holding_the_value_and_scans_cast_strings(memory: PraxMemory) -> None:
    ours, theirs = PraxMemoryStore(memory), InMemoryStore()
    values = {
        "a": {"content": "a", "tags": ["x", "y"], "n": "5"},
        "b": {"content": "b", "tags": "x", "n": 3},
        "c": {"content": "c", "tags": "z", "n": 9.0},
    }
    for key, value in values.items():
        ours.put(NS, key, value)
        theirs.put(NS, key, value)
    for flt in ({"tags": {"$ne": "x"}}, {"n": {"$gt": 4}}, {"n": {"$gt": 2**60}}):
        expected = {i.key for i in theirs.search(NS, filter=flt)}
        assert {i.key for i in ours.search(NS, filter=flt)} == expected, flt
    assert {i.key for i in ours.search(NS, query="a", filter={"tags": {"$ne": "x"}})} == {"a", "c"}


def test_query_pages_run_on_into_unindexed_items(memory: PraxMemory) -> None:
    store = PraxMemoryStore(memory)
    ns = ("memories", "pager")
    for i in range(3):
        store.put(ns, f"v{i}", {"content": f"gardening note {i}"})
        store.put(ns, f"u{i}", {"content": f"plain note {i}"}, index=False)
    pages = [store.search(ns, query="gardening", limit=2, offset=o) for o in (0, 2, 4)]
    keys = [i.key for page in pages for i in page]
    assert sorted(keys) == ["u0", "u1", "u2", "v0", "v1", "v2"]  # every item once
    assert all(i.score is None for i in pages[2])  # the last page: items without vectors
