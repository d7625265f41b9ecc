"""More of LangGraph's store test cases, adapted (issue 17, point 7).

Our own versions (nothing vendored) of upstream cases that ``test_langgraph_store_cases.py``
does not carry: from ``libs/checkpoint-sqlite/tests/test_store.py``
(``test_search_namespace_is_case_sensitive``, ``test_search_namespace_wildcard_chars_are_literal``,
``test_list_namespaces_metacharacter_labels``), ``libs/checkpoint-postgres/tests/
test_async_store.py`` (``test_search_sorting``, ``test_no_running_loop``) and
``libs/checkpoint/tests/test_store.py`` (``test_async_batch_store_handles_cancellation``,
``test_async_batch_store_resilience``), run on ``PraxMemoryStore`` under the default tenancy.
Departures are named where asserted and listed in docs/store.md.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from langgraph.store.base import GetOp

from langgraph_prax_memory import PraxMemory, PraxMemoryStore


@pytest.fixture
def store(memory: PraxMemory) -> PraxMemoryStore:
    return PraxMemoryStore(memory)


@pytest.fixture
def admin(memory: PraxMemory) -> PraxMemoryStore:
    return PraxMemoryStore(memory, allow_cross_tenant_listing=True)


def test_search_namespace_is_case_sensitive(store: PraxMemoryStore) -> None:
    store.put(("Foo",), "k", {"v": "upper"})
    store.put(("foo",), "k", {"v": "lower"})
    assert {i.namespace for i in store.search(("foo",), limit=100)} == {("foo",)}
    assert {i.namespace for i in store.search(("Foo",), limit=100)} == {("Foo",)}
    # and at the user level: ("m", "Alice") and ("m", "alice") are two users
    store.put(("m", "Alice"), "k", {"v": "upper"})
    store.put(("m", "alice"), "k", {"v": "lower"})
    assert [i.value["v"] for i in store.search(("m", "alice"))] == ["lower"]
    assert [i.value["v"] for i in store.search(("m", "Alice"))] == ["upper"]


def test_search_namespace_wildcard_chars_are_literal(store: PraxMemoryStore) -> None:
    for ns in [
        ("user_1",),
        ("user_1", "child"),
        ("userX1",),
        ("a%b",),
        ("axxb",),
        ("star*",),
        ("starX",),
    ]:
        store.put(ns, "k", {"v": 1})

    def found(prefix: tuple[str, ...]) -> set[tuple[str, ...]]:
        return {i.namespace for i in store.search(prefix, limit=100)}

    # departure (tenancy): ("user_1", "child") is user "child"'s, not the shared tenant's
    assert found(("user_1",)) == {("user_1",)}
    assert found(("user_1", "child")) == {("user_1", "child")}
    assert found(("a%b",)) == {("a%b",)}
    assert found(("star*",)) == {("star*",)}


PAIRS = [
    ("star*", "starX"),
    ("q?m", "qXm"),
    ("br[ack]et", "brXacXket"),
    ("user_1", "userX1"),
    ("a%b", "axxb"),
    ("plus+", "plusX"),
]


def test_list_namespaces_metacharacter_labels(
    store: PraxMemoryStore, admin: PraxMemoryStore
) -> None:
    for label, decoy in PAIRS:
        store.put((label,), "k", {"v": 1})
        store.put((decoy,), "k", {"v": 1})
        store.put((label, "child"), "k", {"v": 1})
    for label, decoy in PAIRS:
        listed = set(admin.list_namespaces(prefix=[label], limit=100))  # type: ignore[arg-type]
        assert listed == {(label,), (label, "child")}
        assert (decoy,) not in listed
        pinned = set(store.list_namespaces(prefix=[label, "child"], limit=100))  # type: ignore[arg-type]
        assert pinned == {(label, "child")}
        # departure (tenancy): the default store lists the shared tenant for a one-label prefix
        assert set(store.list_namespaces(prefix=[label], limit=100)) == {(label,)}  # type: ignore[arg-type]


def test_search_sorting(memory: PraxMemory) -> None:
    store = PraxMemoryStore(memory, index={"fields": ["key1"]})
    # departure (tenancy): upstream's ("test", "M") / ("test", "A") are three users here,
    # and a search of ("test",) would read none of them; one user ("u") holds all three
    store.put(("test", "u", "M"), "M", {"key1": "mmm"})
    for i in range(100):
        store.put(("test", "u", "A"), f"A{i}", {"key1": "no"})
    for i in range(100):
        store.put(("test", "u", "Z"), f"Z{i}", {"key1": "no"})
    results = store.search(("test", "u"), query="mmm", limit=10)
    assert len(results) == 10
    assert len({r.key for r in results}) == 10
    assert results[0].key == "M"
    assert results[0].score is not None and results[1].score is not None
    assert results[0].score > results[1].score


def test_sync_methods_inside_a_running_loop(store: PraxMemoryStore) -> None:
    """Departure: AsyncPostgresStore raises InvalidStateError for sync calls on its loop;
    this store is sync and async at once (like InMemoryStore), so they simply work."""

    async def main() -> None:
        ns = ("foo", "bar")
        store.put(ns, "baz", {"val": "baz"})
        got = store.get(ns, "baz")
        assert got is not None and got.value == {"val": "baz"}
        assert [i.key for i in store.search(ns)] == ["baz"]
        assert store.list_namespaces(prefix=ns) == [ns]
        with ThreadPoolExecutor(max_workers=1) as pool:  # and from a worker thread
            item = await asyncio.wrap_future(pool.submit(store.get, ns, "baz"))
            assert item is not None and item.value == {"val": "baz"}
        store.delete(ns, "baz")
        assert await store.aget(ns, "baz") is None

    asyncio.run(main())


def test_abatch_survives_a_cancelled_caller(store: PraxMemoryStore) -> None:
    ns = ("c", "d")
    store.put(ns, "d", {"v": 1})

    async def main() -> None:
        task = asyncio.create_task(store.aget(("a", "b"), "b"))
        await asyncio.sleep(0)
        task.cancel()
        await asyncio.sleep(0)
        got = await store.aget(ns, "d")
        assert got is not None and got.value == {"v": 1}
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


def test_abatch_recovers_after_its_worker_task_is_cancelled(store: PraxMemoryStore) -> None:
    ns = ("foo", "langgraph", "foo")

    async def main() -> None:
        await store.aput(ns, "bar", {"foo": "bar"})
        loop = asyncio.get_running_loop()
        waiting = asyncio.ensure_future(store.abatch([GetOp(ns, "bar")]))
        await asyncio.sleep(0)  # the call is queued and its worker task started
        worker = store._queues[loop].task
        assert worker is not None
        worker.cancel()  # before its first step: it never runs
        with pytest.raises(asyncio.CancelledError):
            await waiting  # the waiting call is cancelled with it, not left hanging
        assert store._queues[loop].task is None
        found = await store.asearch(ns)  # a new call starts a new worker
        assert [i.value for i in found] == [{"foo": "bar"}]
        await store.aput(("test", "namespace"), "key", {"baz": "qux"})
        got = await store.aget(("test", "namespace"), "key")
        assert got is not None and got.value == {"baz": "qux"}

    asyncio.run(asyncio.wait_for(main(), 60))  # a regression fails, it does not hang
