"""The async twins of LangGraph's store test cases, adapted to PraxMemoryStore.

Our own versions of the async cases in langgraph's ``libs/checkpoint/tests/test_store.py``
and ``libs/checkpoint-postgres/tests/test_async_store.py`` (nothing vendored), under the
default tenancy; departures are named where asserted and listed in docs/store.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    PutOp,
    SearchOp,
)

from langgraph_prax_memory import MemoryConfig, PraxMemoryStore
from langgraph_prax_memory.embeddings import PackagedMiniLMEmbeddings
from tests.unit.test_langgraph_store_cases import DOCS, NON_ASCII


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Embeddings:
    return PackagedMiniLMEmbeddings(tmp_path_factory.mktemp("models"))


@pytest.fixture
def store(model: Embeddings, tmp_path: Path) -> Iterator[PraxMemoryStore]:
    cfg = MemoryConfig(qdrant_url=":memory:", data_dir=tmp_path / "s")
    with PraxMemoryStore.from_config(cfg, index={"dims": 384, "embed": model}) as s:
        yield s


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_abatch_order(store: PraxMemoryStore) -> None:
    async def main() -> None:
        await store.aput(("test", "foo"), "key1", {"data": "value1"})
        await store.aput(("test", "bar"), "key2", {"data": "value2"})
        results = await store.abatch(
            [
                GetOp(("test", "foo"), "key1"),
                PutOp(("test", "bar"), "key2", {"data": "value2"}),
                SearchOp(("test", "foo"), filter={"data": "value1"}, limit=10, offset=0),
                ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0),
                GetOp(("test",), "key3"),
            ]
        )
        assert isinstance(results[0], Item) and results[0].value == {"data": "value1"}
        assert results[1] is None and len(results[2]) == 1  # type: ignore[arg-type]
        assert results[3] == []  # departure (tenancy): the shared tenant's namespaces
        assert results[4] is None
        assert await store.alist_namespaces(prefix=("test", "foo")) == [("test", "foo")]

    run(main())


def test_cannot_put_invalid_namespaces(store: PraxMemoryStore) -> None:
    async def main() -> None:
        for ns in [(), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo")]:
            with pytest.raises(InvalidNamespaceError):
                await store.aput(ns, "foo", {"foo": "bar"})
        ns = ("foo", "langgraph", "foo")
        await store.aput(ns, "bar", {"foo": "bar"})
        assert (await store.aget(ns, "bar")).value == {"foo": "bar"}  # type: ignore[union-attr]
        assert (await store.asearch(ns, query="bar"))[0].value == {"foo": "bar"}
        await store.adelete(ns, "bar")
        assert await store.aget(ns, "bar") is None

    run(main())


def test_async_vector_insert_with_auto_embedding(store: PraxMemoryStore) -> None:
    async def main() -> None:
        for key, value in DOCS:
            await store.aput(("test",), key, value)
        keys = [r.key for r in await store.asearch(("test",), query="long text")]
        assert "doc2" in keys and "doc3" in keys

    run(main())


def test_async_vector_update_with_embedding(store: PraxMemoryStore) -> None:
    async def main() -> None:
        await store.aput(("test",), "doc1", {"text": "zany zebra Xerxes"})
        await store.aput(("test",), "doc2", {"text": "something about dogs"})
        await store.aput(("test",), "doc3", {"text": "text about birds"})
        initial = await store.asearch(("test",), query="Zany Xerxes")
        assert initial[0].key == "doc1" and initial[0].score is not None
        await store.aput(("test",), "doc1", {"text": "new text about dogs"})
        after = next(
            r.score for r in await store.asearch(("test",), query="Zany Xerxes") if r.key == "doc1"
        )
        assert after is not None and after < initial[0].score
        await store.aput(("test",), "doc4", {"text": "new text about dogs"}, index=False)
        found = await store.asearch(("test",), query="new text about dogs", limit=3)
        assert "doc4" not in [r.key for r in found]

    run(main())


def test_async_vector_search_with_filters(store: PraxMemoryStore) -> None:
    async def main() -> None:
        for key, value in [
            ("doc1", {"text": "red apple", "color": "red", "score": 4.5}),
            ("doc2", {"text": "red car", "color": "red", "score": 3.0}),
            ("doc3", {"text": "green apple", "color": "green", "score": 4.0}),
            ("doc4", {"text": "blue car", "color": "blue", "score": 3.5}),
        ]:
            await store.aput(("test",), key, value)
        found = await store.asearch(("test",), query="apple", filter={"color": "red"})
        assert [r.key for r in found] == ["doc1", "doc2"]
        found = await store.asearch(("test",), query="blue", filter={"score": {"$gt": 3.2}})
        assert len(found) == 3 and found[0].key == "doc4"
        found = await store.asearch(
            ("test",), query="apple", filter={"score": {"$gte": 4.0}, "color": "green"}
        )
        assert [r.key for r in found] == ["doc3"]

    run(main())


def test_async_batched_vector_search_concurrent(store: PraxMemoryStore) -> None:
    colors = ["red", "blue", "green", "yellow", "purple"]
    items = ["apple", "car", "house", "book", "phone"]
    scores = [3.0, 3.5, 4.0, 4.5, 5.0]
    docs = [
        (
            f"doc{i}",
            {
                "text": f"{colors[i % 5]} {items[i % 5]}",
                "color": colors[i % 5],
                "score": scores[i % 5],
                "index": i,
            },
        )
        for i in range(50)
    ]
    queries: list[tuple[str, dict[str, Any]]] = [
        ("apple", {"color": "red"}),
        ("car", {"color": "blue"}),
        ("house", {"color": "green"}),
        ("phone", {"score": {"$gt": 4.99}}),
        ("book", {"score": {"$lte": 3.5}}),
        ("apple", {"score": {"$gte": 3.0}, "color": "red"}),
        ("car", {"score": {"$lt": 5.1}, "color": "blue"}),
        ("house", {"index": {"$gt": 25}}),
        ("phone", {"index": {"$lte": 10}}),
    ]
    ops = {"$gt": float.__gt__, "$gte": float.__ge__, "$lt": float.__lt__, "$lte": float.__le__}

    async def main() -> list[list[Any]]:
        await asyncio.gather(
            *[store.aput(("test",), k, v) for k, v in docs],
            *[store.adelete(("test",), k) for k, _ in docs],
            *[store.aput(("test",), k, v) for k, v in docs],  # arrival order: all present
        )
        assert len(await store.asearch(("test",), limit=100)) == 50
        return await asyncio.gather(
            *[store.asearch(("test",), query=q, filter=f) for q, f in queries]
        )

    for results, (query, flt) in zip(run(main()), queries, strict=True):
        assert results, f"no results for {query!r} with {flt}"
        for r in results:
            if "color" in flt:
                assert r.value["color"] == flt["color"]
            for name in ("score", "index"):
                for op, target in flt.get(name, {}).items():
                    assert ops[op](float(r.value[name]), float(target))


def test_async_vector_search_pagination(store: PraxMemoryStore) -> None:
    async def main() -> None:
        for i in range(5):
            await store.aput(("test",), f"doc{i}", {"text": f"test document number {i}"})
        page1 = await store.asearch(("test",), query="test", limit=2)
        page2 = await store.asearch(("test",), query="test", limit=2, offset=2)
        assert len(page1) == 2 and len(page2) == 2
        assert not {r.key for r in page1} & {r.key for r in page2}
        assert len(await store.asearch(("test",), query="test", limit=10)) == 5

    run(main())


def test_async_embed_with_path_operation_level(store: PraxMemoryStore) -> None:
    async def main() -> None:
        await store.aput(("test",), "doc3", {"key0": "aaa", "key1": "bbb"}, index=["key0"])
        await store.aput(("test",), "doc4", {"key0": "eee", "key3": "ggg"}, index=["key3"])
        await store.aput(("test",), "doc5", {"key0": "hhh"}, index=False)
        assert (await store.asearch(("test",), query="aaa"))[0].key == "doc3"
        assert (await store.asearch(("test",), query="ggg"))[0].key == "doc4"
        found = await store.asearch(("test",), query="hhh")
        assert len(found) == 3 and next(r for r in found if r.key == "doc5").score is None

    run(main())


def test_large_batches_async(store: PraxMemoryStore) -> None:
    """Upstream runs 60,000 concurrent calls against Postgres; 1,200 here."""
    n, m = 100, 2

    async def main() -> list[Any]:
        coros = []
        for j in range(m):
            ns = ("test", "foo", "bar", "baz", str(j % 2))
            for i in range(n):
                coros += [
                    store.aput(ns, f"key{i}", {"foo": f"bar{i}"}),
                    store.aget(ns, f"key{i}"),
                    store.alist_namespaces(prefix=None, max_depth=j + 1),
                    store.asearch(("test",)),
                    store.aput(ns, f"key{i}", {"foo": f"bar{i}"}),
                    store.adelete(ns, f"key{i}"),
                ]
        return await asyncio.gather(*coros)

    results = run(main())
    assert len(results) == n * m * 6
    assert all(results[k] is not None for k in range(1, len(results), 6))  # get after put
    assert store.search(("test", "foo"), limit=1000) == []  # every key deleted last


def test_large_batches_from_threads(store: PraxMemoryStore) -> None:
    n = 50
    ns = ("test", "foo", "bar")
    with ThreadPoolExecutor(max_workers=10) as pool:
        futures = []
        for i in range(n):
            futures += [
                pool.submit(store.put, ns, f"key{i}", {"foo": f"bar{i}"}),
                pool.submit(store.get, ns, f"key{i}"),
                pool.submit(store.list_namespaces, prefix=None, max_depth=2),
                pool.submit(store.search, ("test",)),
            ]
        results = [f.result() for f in futures]
    assert len(results) == n * 4
    assert len(store.search(ns, limit=100)) == n


def test_async_non_ascii(store: PraxMemoryStore) -> None:
    async def main() -> None:
        ns = ("user_123", "memories")
        for key, text in NON_ASCII.items():
            await store.aput(ns, key, {"text": text})
        for key, text in NON_ASCII.items():
            assert (await store.asearch(ns, query=text))[0].key == key, text

    run(main())


def test_async_store_ttl(model: Embeddings, tmp_path: Path) -> None:
    cfg = MemoryConfig(qdrant_url=":memory:", data_dir=tmp_path / "t")

    async def main() -> None:
        async with PraxMemoryStore.from_config(
            cfg, index={"dims": 384, "embed": model}, ttl={"default_ttl": 0.04}
        ) as s:
            ns = ("foo",)
            await s.aput(ns, "item1", {"foo": "bar"})  # 2.4 s
            await asyncio.sleep(1.5)
            assert await s.aget(ns, "item1", refresh_ttl=True) is not None
            await asyncio.sleep(1.5)
            assert len(await s.asearch(ns, query="foo", refresh_ttl=True)) == 1
            await asyncio.sleep(1.5)
            assert await s.aget(ns, "item1", refresh_ttl=False) is not None
            await asyncio.sleep(1.5)
            assert await s.asearch(ns, query="bar", refresh_ttl=False) == []

    run(main())
