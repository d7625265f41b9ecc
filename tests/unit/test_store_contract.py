"""The BaseStore contract: the same operations on LangGraph's InMemoryStore and on
PraxMemoryStore give the same results (timestamps and score values aside)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langgraph.store.base import BaseStore, Item
from langgraph.store.memory import InMemoryStore

from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryStore
from tests.fakes import HashEmbeddings


@pytest.fixture(params=["inmemory", "prax"])
def store(request: pytest.FixtureRequest, config: MemoryConfig) -> Iterator[BaseStore]:
    emb = HashEmbeddings()
    if request.param == "inmemory":
        yield InMemoryStore(index={"dims": 384, "embed": emb})
        return
    mem = PraxMemory(config, embeddings=emb, embedding_dimension=384)
    yield PraxMemoryStore(mem, allow_cross_tenant=True)
    mem.close()


def _view(items: list[Any]) -> list[tuple[tuple[str, ...], str, dict[str, Any]]]:
    return [(i.namespace, i.key, i.value) for i in items]


def _seed(store: BaseStore) -> None:
    store.put(
        ("memories", "alice"),
        "tea",
        {"content": "Alice drinks green tea", "n": 1, "kind": "pref", "tags": ["drink"]},
    )
    store.put(
        ("memories", "alice"),
        "jazz",
        {"content": "Alice loves jazz music", "n": 5, "kind": "pref", "meta": {"src": "chat"}},
    )
    store.put(
        ("memories", "alice", "work"),
        "job",
        {"content": "Alice works at FinCorp", "n": 3, "kind": "fact"},
    )
    store.put(
        ("memories", "bob"), "tea", {"content": "Bob drinks black tea", "n": 2, "kind": "pref"}
    )
    store.put(("docs", "alice"), "raw", {"x": [1, 2]}, index=False)


def test_get_put_update_delete(store: BaseStore) -> None:
    _seed(store)
    item = store.get(("memories", "alice"), "tea")
    assert isinstance(item, Item)
    assert item.value["content"] == "Alice drinks green tea" and item.key == "tea"
    assert item.namespace == ("memories", "alice")
    store.put(("memories", "alice"), "tea", {"content": "Alice switched to coffee", "n": 9})
    updated = store.get(("memories", "alice"), "tea")
    assert updated is not None and updated.value == {"content": "Alice switched to coffee", "n": 9}
    store.delete(("memories", "alice"), "tea")
    assert store.get(("memories", "alice"), "tea") is None
    assert store.get(("memories", "nobody"), "tea") is None


def test_filter_only_search_prefix_limit_offset(store: BaseStore) -> None:
    _seed(store)
    assert [i.key for i in store.search(("memories", "alice"))] == ["tea", "jazz", "job"]
    assert [i.key for i in store.search(("memories", "alice"), limit=2)] == ["tea", "jazz"]
    assert [i.key for i in store.search(("memories", "alice"), offset=1, limit=1)] == ["jazz"]
    assert [i.key for i in store.search(("memories", "alice", "work"))] == ["job"]
    assert store.search(("memories", "ali")) == []
    everything = _view(store.search((), limit=100))
    assert sorted((ns, k) for ns, k, _ in everything) == sorted(
        [
            (("memories", "alice"), "tea"),
            (("memories", "alice"), "jazz"),
            (("memories", "alice", "work"), "job"),
            (("memories", "bob"), "tea"),
            (("docs", "alice"), "raw"),
        ]
    )
    for item in store.search(("memories", "alice")):
        assert item.score is None


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        ({"kind": "pref"}, ["tea", "jazz"]),
        ({"kind": {"$eq": "fact"}}, ["job"]),
        ({"kind": {"$ne": "pref"}}, ["job"]),
        ({"n": {"$gt": 1}}, ["jazz", "job"]),
        ({"n": {"$gte": 3}}, ["jazz", "job"]),
        ({"n": {"$lt": 3}}, ["tea"]),
        ({"n": {"$lte": 3, "$gt": 1}}, ["job"]),
        ({"n": 5, "kind": "pref"}, ["jazz"]),
        ({"meta": {"src": "chat"}}, ["jazz"]),
        ({"tags": ["drink"]}, ["tea"]),
        ({"tags": "drink"}, []),
        ({"missing": "x"}, []),
    ],
)
def test_filters(store: BaseStore, flt: dict[str, Any], expected: list[str]) -> None:
    _seed(store)
    assert [i.key for i in store.search(("memories", "alice"), filter=flt)] == expected


def test_list_namespaces(store: BaseStore) -> None:
    _seed(store)
    assert store.list_namespaces() == [
        ("docs", "alice"),
        ("memories", "alice"),
        ("memories", "alice", "work"),
        ("memories", "bob"),
    ]
    assert store.list_namespaces(prefix=("memories",)) == [
        ("memories", "alice"),
        ("memories", "alice", "work"),
        ("memories", "bob"),
    ]
    assert store.list_namespaces(suffix=("work",)) == [("memories", "alice", "work")]
    assert store.list_namespaces(prefix=("memories", "*")) == [
        ("memories", "alice"),
        ("memories", "alice", "work"),
        ("memories", "bob"),
    ]
    assert store.list_namespaces(max_depth=1) == [("docs",), ("memories",)]
    assert store.list_namespaces(prefix=("memories",), max_depth=2) == [
        ("memories", "alice"),
        ("memories", "bob"),
    ]
    assert store.list_namespaces(limit=2, offset=1) == [
        ("memories", "alice"),
        ("memories", "alice", "work"),
    ]


def test_query_search_ranks_the_relevant_item_first(store: BaseStore) -> None:
    _seed(store)
    hits = store.search(("memories", "alice"), query="jazz music")
    assert hits[0].key == "jazz"
    assert hits[0].score is not None
    assert {h.key for h in hits} == {"tea", "jazz", "job"}
    filtered = store.search(("memories", "alice"), query="tea", filter={"kind": "fact"})
    assert [h.key for h in filtered] == ["job"]


def test_unindexed_items_fill_query_results_without_score(store: BaseStore) -> None:
    _seed(store)
    hits = store.search(("docs", "alice"), query="anything")
    assert [(h.key, h.score) for h in hits] == [("raw", None)]


def test_index_fields(store: BaseStore) -> None:
    store.put(("memories", "carol"), "a", {"title": "gardening", "body": "roses"}, index=["title"])
    store.put(("memories", "carol"), "b", {"title": "cooking", "body": "pasta"}, index=["title"])
    assert store.search(("memories", "carol"), query="gardening")[0].key == "a"


def test_batch_reads_see_state_before_writes(store: BaseStore) -> None:
    from langgraph.store.base import GetOp, PutOp

    store.put(("memories", "dave"), "k", {"content": "old"})
    res = store.batch(
        [
            PutOp(("memories", "dave"), "k", {"content": "new"}),
            GetOp(("memories", "dave"), "k"),
        ]
    )
    assert res[0] is None and res[1] is not None and res[1].value == {"content": "old"}
    got = store.get(("memories", "dave"), "k")
    assert got is not None and got.value == {"content": "new"}


async def test_async_operations(store: BaseStore) -> None:
    await store.aput(("memories", "erin"), "k", {"content": "Erin plays chess"})
    got = await store.aget(("memories", "erin"), "k")
    assert got is not None and got.value == {"content": "Erin plays chess"}
    assert [i.key for i in await store.asearch(("memories", "erin"), query="chess")] == ["k"]
    await store.adelete(("memories", "erin"), "k")
    assert await store.aget(("memories", "erin"), "k") is None
