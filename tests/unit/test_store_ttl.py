"""TTL the BaseStore way (issue 17, point 1): ``ttl`` on put, ``TTLConfig``, refresh, sweeping."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph.store.base import GetOp, PutOp
from qdrant_client import models

from langgraph_prax_memory import MemoryConfig, MemoryValidationError, PraxMemory, PraxMemoryStore
from langgraph_prax_memory.store import EXPIRES_AT, TTL_MINUTES
from langgraph_prax_memory.vectors._plan import point_id
from tests.fakes import HashEmbeddings

NS = ("memories", "alice")


@pytest.fixture
def store(memory: PraxMemory) -> Iterator[PraxMemoryStore]:
    with PraxMemoryStore(memory, ttl={"default_ttl": None, "refresh_on_read": True}) as s:
        yield s


def _payload(store: PraxMemoryStore, ns: tuple[str, ...], key: str) -> dict[str, object] | None:
    vs = store.memory.vectors
    found = vs.client.retrieve(vs.collection, ids=[point_id(ns, key)], with_payload=True)
    return dict(found[0].payload or {}) if found else None


def _expire_now(store: PraxMemoryStore, ns: tuple[str, ...], key: str) -> None:
    """Backdate an item's expiry without deleting it (expired, not yet swept)."""
    vs = store.memory.vectors
    vs.client.set_payload(
        vs.collection,
        payload={EXPIRES_AT: time.time() - 60},
        points=[point_id(ns, key)],
        wait=True,
    )


def test_supports_ttl_and_put_stores_the_expiry(store: PraxMemoryStore) -> None:
    assert store.supports_ttl is True
    before = time.time()
    store.put(NS, "k", {"content": "short-lived"}, ttl=10)
    payload = _payload(store, NS, "k")
    assert payload is not None and payload[TTL_MINUTES] == 10.0
    expires = payload[EXPIRES_AT]
    assert isinstance(expires, float) and before + 600 <= expires <= time.time() + 600
    store.put(NS, "forever", {"content": "no ttl"})
    assert _payload(store, NS, "forever")[EXPIRES_AT] is None  # type: ignore[index]


def test_expired_items_are_invisible_at_once(store: PraxMemoryStore) -> None:
    store.put(NS, "gone", {"content": "the parking spot is B12"}, ttl=5)
    store.put(NS, "kept", {"content": "the parking garage is on Elm street"}, ttl=5)
    store.put(("shared-ns",), "gone", {"content": "shared and gone"}, ttl=5)
    _expire_now(store, NS, "gone")
    _expire_now(store, ("shared-ns",), "gone")
    assert _payload(store, NS, "gone") is not None  # not swept: still stored
    assert store.get(NS, "gone") is None
    assert [i.key for i in store.search(NS)] == ["kept"]
    assert [i.key for i in store.search(NS, query="parking spot B12")] == ["kept"]
    assert store.list_namespaces(prefix=NS) == [NS]
    assert ("shared-ns",) not in store.list_namespaces()
    # a new put over an expired item starts afresh
    store.put(NS, "gone", {"content": "back again"})
    item = store.get(NS, "gone")
    assert item is not None and item.value == {"content": "back again"}


def test_refresh_on_get_and_search_and_not_without(store: PraxMemoryStore) -> None:
    store.put(NS, "a", {"content": "apples"}, ttl=1)
    store.put(NS, "b", {"content": "bananas"}, ttl=1)
    first_a = _payload(store, NS, "a")[EXPIRES_AT]  # type: ignore[index]
    first_b = _payload(store, NS, "b")[EXPIRES_AT]  # type: ignore[index]
    time.sleep(0.05)
    assert store.get(NS, "a", refresh_ttl=False) is not None
    assert _payload(store, NS, "a")[EXPIRES_AT] == first_a  # type: ignore[index]
    assert store.get(NS, "a") is not None  # refresh_on_read=True by default
    assert _payload(store, NS, "a")[EXPIRES_AT] > first_a  # type: ignore[index,operator]
    assert [i.key for i in store.search(NS, query="bananas", limit=1, refresh_ttl=False)] == ["b"]
    assert _payload(store, NS, "b")[EXPIRES_AT] == first_b  # type: ignore[index]
    assert [i.key for i in store.search(NS, query="bananas", limit=1)] == ["b"]
    assert _payload(store, NS, "b")[EXPIRES_AT] > first_b  # type: ignore[index,operator]
    # an expired item is not resurrected by a refreshing read
    _expire_now(store, NS, "a")
    stale = _payload(store, NS, "a")[EXPIRES_AT]  # type: ignore[index]
    assert store.get(NS, "a", refresh_ttl=True) is None
    assert _payload(store, NS, "a")[EXPIRES_AT] == stale  # type: ignore[index]


def test_refresh_on_read_false_in_config(memory: PraxMemory) -> None:
    store = PraxMemoryStore(memory, ttl={"refresh_on_read": False})
    store.put(NS, "k", {"content": "x"}, ttl=1)
    first = _payload(store, NS, "k")[EXPIRES_AT]  # type: ignore[index]
    time.sleep(0.02)
    store.get(NS, "k")
    assert _payload(store, NS, "k")[EXPIRES_AT] == first  # type: ignore[index]
    store.get(NS, "k", refresh_ttl=True)  # the per-call flag wins
    assert _payload(store, NS, "k")[EXPIRES_AT] > first  # type: ignore[index,operator]


def test_default_ttl_applies_and_explicit_none_opts_out(memory: PraxMemory) -> None:
    store = PraxMemoryStore(memory, ttl={"default_ttl": 30})
    store.put(NS, "default", {"content": "x"})
    store.put(NS, "never", {"content": "y"}, ttl=None)
    assert _payload(store, NS, "default")[TTL_MINUTES] == 30.0  # type: ignore[index]
    assert _payload(store, NS, "never")[TTL_MINUTES] is None  # type: ignore[index]
    # the scratchpad has no TTL: a default TTL does not stop it, an explicit one is refused
    store.put(("stm", "alice"), "tz", {"content": "Europe/Paris"})
    assert store.get(("stm", "alice"), "tz") is not None
    with pytest.raises(MemoryValidationError, match="scratchpad"):
        store.put(("stm", "alice"), "tz", {"content": "UTC"}, ttl=5)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "5", True])
def test_bad_ttl_is_refused_and_stores_nothing(store: PraxMemoryStore, bad: object) -> None:
    with pytest.raises(MemoryValidationError, match="ttl"):
        store.batch(
            [PutOp(NS, "ok", {"content": "valid"}), PutOp(NS, "bad", {"content": "x"}, ttl=bad)]  # type: ignore[arg-type]
        )
    assert store.batch([GetOp(NS, "ok")]) == [None]


def test_sweep_deletes_expired_items_of_every_user(store: PraxMemoryStore) -> None:
    store.put(NS, "old", {"content": "x"}, ttl=5)
    store.put(("memories", "bob"), "old", {"content": "y"}, ttl=5)
    store.put(NS, "live", {"content": "z"}, ttl=5)
    store.put(NS, "plain", {"content": "w"})
    _expire_now(store, NS, "old")
    _expire_now(store, ("memories", "bob"), "old")
    assert store.sweep_ttl() == 2
    assert _payload(store, NS, "old") is None
    assert _payload(store, ("memories", "bob"), "old") is None
    assert {i.key for i in store.search(NS)} == {"live", "plain"}
    assert store.sweep_ttl() == 0


def test_background_sweeper_deletes_and_stops(memory: PraxMemory) -> None:
    store = PraxMemoryStore(memory, ttl={"sweep_interval_minutes": 0.005})  # every 0.3 s
    store.put(NS, "brief", {"content": "x"}, ttl=0.001)  # 0.06 s
    with store:  # entering starts the configured sweeper
        deadline = time.monotonic() + 20
        while _payload(store, NS, "brief") is not None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _payload(store, NS, "brief") is None
        future = store.start_ttl_sweeper()  # already running: the same thread
        assert not future.done()
    assert store.stop_ttl_sweeper() is True
    assert memory.count("alice") == 0  # the memory the store did not build is still open


def test_async_sweeper(memory: PraxMemory) -> None:
    async def main() -> None:
        store = PraxMemoryStore(memory, ttl={"default_ttl": 0.001})
        await store.aput(NS, "brief", {"content": "x"})
        await asyncio.sleep(0.1)
        assert await store.aget(NS, "brief") is None
        future = await store.astart_ttl_sweeper(sweep_interval_minutes=0.003)
        for _ in range(200):
            if _payload(store, NS, "brief") is None:
                break
            await asyncio.sleep(0.05)
        assert _payload(store, NS, "brief") is None
        assert await store.astop_ttl_sweeper(timeout=10) is True
        assert future.done()
        assert await store.asweep_ttl() == 0

    asyncio.run(main())


def test_expiry_survives_a_restart(tmp_path: Path) -> None:
    cfg = MemoryConfig(data_dir=tmp_path / "d")  # the embedded default engine, on disk
    store = PraxMemoryStore(PraxMemory(cfg, embeddings=HashEmbeddings(), embedding_dimension=384))
    store.put(NS, "brief", {"content": "see you soon"}, ttl=0.001)
    store.put(NS, "long", {"content": "see you later"}, ttl=60)
    store.memory.close()
    time.sleep(0.1)
    with PraxMemoryStore.from_config(cfg, index={"embed": HashEmbeddings(), "dims": 384}) as again:
        assert again.get(NS, "brief") is None
        assert [i.key for i in again.search(NS, query="see you")] == ["long"]
        assert again.sweep_ttl() == 1
        assert again.get(NS, "long") is not None


def test_the_engine_filter_excludes_expired_points(store: PraxMemoryStore) -> None:
    """The expiry condition runs in the engine: a count with it sees only live points."""
    store.put(NS, "a", {"content": "x"}, ttl=5)
    store.put(NS, "b", {"content": "y"}, ttl=5)
    _expire_now(store, NS, "a")
    vs = store.memory.vectors
    flt = store._prefix_filter("alice", NS, None)
    assert vs.client.count(vs.collection, count_filter=flt, exact=True).count == 1
    everything = models.Filter(
        must=[models.FieldCondition(key="user_id", match=models.MatchValue(value="alice"))]
    )
    assert vs.client.count(vs.collection, count_filter=everything, exact=True).count == 2


def test_the_facade_reads_apply_the_expiry_at_once(store: PraxMemoryStore) -> None:
    """recall, count and list_memories see what the store sees: an expired item is gone."""
    memory = store.memory
    store.put(NS, "gone", {"content": "the parking spot is B12"}, ttl=5)
    store.put(NS, "kept", {"content": "the parking garage is on Elm street"})
    assert memory.count("alice") == 2
    _expire_now(store, NS, "gone")
    assert _payload(store, NS, "gone") is not None  # not swept yet
    assert memory.count("alice") == 1
    assert [m.content for m in memory.list_memories("alice")] == [
        "the parking garage is on Elm street"
    ]
    hits = memory.recall("alice", "parking spot B12", k=5, reinforce=False)
    assert [h.memory.content for h in hits] == ["the parking garage is on Elm street"]
    assert (
        memory.recall("alice", "B12", k=5, include_history=True, reinforce=False)[0].memory.content
        != "the parking spot is B12"
    )  # history is not expiry: still gone
