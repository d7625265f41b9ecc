"""Recall's kept reads (term counts, absent fields) outlive a reinforcing recall and nothing
else (issue 41): strengthen-on-recall sets only ``access_count`` / ``last_accessed``, which
neither depends on, so it leaves the embedded client's content stamp where it was; every other
write moves it, and what recall then serves equals what a fresh recall computes."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from qdrant_client.http import models

from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryStore
from langgraph_prax_memory.retrieval._features import (
    AbsentFields,
    TermCounts,
    filter_key,
    kept_stamp,
)
from langgraph_prax_memory.retrieval._recall import ltm_filter
from langgraph_prax_memory.vectors import EdgeClient, StoredPoint
from langgraph_prax_memory.vectors._journal import BOOKKEEPING_FIELDS
from langgraph_prax_memory.vectors._plan import reinforce_plan
from tests.fakes import HashEmbeddings

ASK = "what does Alice grow in the garden"
NOW = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


def _open(path: Path) -> PraxMemory:
    return PraxMemory(
        MemoryConfig(data_dir=path), embeddings=HashEmbeddings(), embedding_dimension=384
    )


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[PraxMemory]:
    with _open(tmp_path) as m:
        alice = [f"note {i}: Alice grows tomatoes in the garden" for i in range(12)]
        m.remember_many("u", [*alice, *(f"the user drinks tea at {i} o'clock" for i in range(12))])
        yield m


class Calls:
    """How often recall read its kept things afresh: engine counts, the collection's schema."""

    def __init__(self, mem: PraxMemory, monkeypatch: pytest.MonkeyPatch) -> None:
        self.counts = self.schemas = 0
        store, client = mem.vectors, mem.vectors.client
        count, schema = store.count, client.get_collection

        def counted(*a: Any, **k: Any) -> Any:
            self.counts += 1
            return count(*a, **k)

        def read(*a: Any, **k: Any) -> Any:
            self.schemas += 1
            return schema(*a, **k)

        monkeypatch.setattr(store, "count", counted)
        monkeypatch.setattr(client, "get_collection", read)

    def since(self, before: tuple[int, int]) -> tuple[int, int]:
        return self.counts - before[0], self.schemas - before[1]

    @property
    def now(self) -> tuple[int, int]:
        return self.counts, self.schemas


def _seen(mem: PraxMemory, ask: str = ASK) -> tuple[list[tuple[str, float, float]], list[str]]:
    got = mem.ltm.recall_detailed("u", ask, k=5, now=NOW, reinforce=False)
    return [(h.memory.id, h.score, h.rank_score) for h in got.hits], got.shared_names


def _as_fresh(mem: PraxMemory, path: Path, ask: str = ASK) -> None:
    """What ``mem`` recalls, its kept reads and all, is what a recall with none kept finds."""
    with _open(path) as fresh:  # the same folder's client; a new recaller keeps nothing yet
        assert _seen(mem, ask) == _seen(fresh, ask)


def test_bookkeeping_is_what_reinforcement_writes() -> None:
    ops = reinforce_plan([StoredPoint(id="p", score=0.0, payload={"access_count": 2})], NOW)
    assert set(ops[0].set_payload.payload) == BOOKKEEPING_FIELDS == EdgeClient.BOOKKEEPING


def test_a_reinforcing_recall_keeps_the_counts_and_the_absent_fields(
    mem: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = Calls(mem, monkeypatch)
    client = mem.vectors.client
    assert isinstance(client, EdgeClient)
    mem.recall("u", ASK, k=3)  # reads what it keeps, then reinforces its hits
    mem.ltm.flush()
    stamp, content = client.write_stamp(), client.content_stamp()
    before = calls.now
    for _ in range(3):
        hits = mem.recall("u", ASK, k=3)
        mem.ltm.flush()
        assert hits
    # three reinforcing writes since, none of them read anything again
    assert client.write_stamp() != stamp and client.content_stamp() == content
    assert calls.since(before) == (0, 0)
    reinforced = mem.vectors.retrieve("u", [h.memory.id for h in hits])
    assert all(int(p.payload["access_count"]) >= 4 for p in reinforced)


@pytest.mark.parametrize(
    "write",
    ["remember", "forget", "ttl put", "supersede", "ttl refresh", "payload and bookkeeping"],
)
def test_every_other_write_reads_them_again_and_recall_is_as_fresh(
    mem: PraxMemory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, write: str
) -> None:
    calls = Calls(mem, monkeypatch)
    hits = mem.recall("u", ASK, k=3)
    mem.ltm.flush()
    _as_fresh(mem, tmp_path)
    alice = [h.memory.id for h in hits]
    store = mem.vectors
    if write == "remember":
        mem.remember_many("u", [f"Alice also grows beans, note {i}" for i in range(30)])
    elif write == "forget":
        mem.forget("u", alice[0])
    elif write == "ttl put":
        with PraxMemoryStore(mem, ttl={"default_ttl": None}) as s:
            s.put(("memories", "u"), "k", {"content": "Alice grows garden peas"}, ttl=10)
    elif write == "supersede":
        mem.ltm.classes.mark_superseded("u", alice[:1], NOW, "no more tomatoes")
    elif write == "ttl refresh":  # a single field, not a bookkeeping one
        store.set_payload("u", alice[:1], {"expires_at": NOW.timestamp() + 3600})
    else:  # bookkeeping and something else in one write: a content write
        mixed = [
            *reinforce_plan(store.retrieve("u", alice[:1]), NOW),
            models.SetPayloadOperation(
                set_payload=models.SetPayload(payload={"terms": ["peas"]}, points=alice[1:2])
            ),
        ]
        store.run_write("mixed", lambda: store.client.batch_update_points(store.collection, mixed))
    before = calls.now
    _as_fresh(mem, tmp_path)
    counts, schemas = calls.since(before)
    # the kept counts and the absent fields were read again by ``mem`` (the fresh one too)
    assert counts >= 4 and schemas >= 2


def _inside_writes(
    monkeypatch: pytest.MonkeyPatch, when: Callable[[frozenset[str] | None], bool], act: Callable
) -> None:
    """Run ``act`` once inside the first write whose payload fields satisfy ``when``."""
    stamped = EdgeClient._stamped  # fault injection: the write's own stamping
    armed = [True]

    @contextlib.contextmanager
    def racing(self: EdgeClient, *args: Any) -> Iterator[None]:
        fields = args[2] if len(args) > 2 else None
        with stamped(self, *args):
            if armed[0] and when(fields):
                armed[0] = False
                act()
            yield

    monkeypatch.setattr(EdgeClient, "_stamped", racing)


def _truth(mem: PraxMemory) -> tuple[int, frozenset[str]]:
    flt = ltm_filter("u")
    schema = mem.vectors.client.get_collection(mem.vectors.collection).payload_schema or {}
    absent = frozenset(f for f in ("expires_at", "valid_until_ts") if schema[f].points == 0)
    return mem.vectors.count("u", flt), absent


def _served(mem: PraxMemory, counts: TermCounts, absent: AbsentFields) -> tuple[Any, Any]:
    key = ("u", filter_key(ltm_filter("u")))
    return counts.known(key, kept_stamp(mem.vectors, key[1]), ())[0], absent.of(mem.vectors)


def _keep(mem: PraxMemory, counts: TermCounts, absent: AbsentFields) -> None:
    key = ("u", filter_key(ltm_filter("u")))
    stamp = kept_stamp(mem.vectors, key[1])
    total = mem.vectors.count("u", ltm_filter("u"))
    counts.keep(key, stamp, total, {})
    absent.of(mem.vectors)


def test_a_reinforcement_inside_a_content_write_leaves_nothing_stale(
    mem: PraxMemory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    client = mem.vectors.client
    assert isinstance(client, EdgeClient)
    hits = mem.recall("u", ASK, k=3, reinforce=False)
    counts, absent = TermCounts(), AbsentFields()
    seen: list[Any] = []

    def reinforce_and_read() -> None:
        # a reinforcement ends while the content write is under way, and reads are kept then
        done = threading.Thread(target=mem.vectors.reinforce, args=("u", [hits[0].memory.id]))
        done.start()
        done.join()
        seen.append(client.content_stamp())
        _keep(mem, counts, absent)
        _seen(mem)

    _inside_writes(monkeypatch, lambda fields: fields is None, reinforce_and_read)
    mem.ltm.classes.mark_superseded("u", [hits[0].memory.id], NOW, "gone")
    assert seen == [None]  # under way: nothing read then is kept
    monkeypatch.undo()
    served = _served(mem, counts, absent)
    assert served[0] in (None, _truth(mem)[0]) and served[1] == _truth(mem)[1]
    assert "valid_until_ts" not in absent.of(mem.vectors)
    _as_fresh(mem, tmp_path)


def test_a_content_write_inside_a_reinforcement_is_seen(
    mem: PraxMemory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    client = mem.vectors.client
    assert isinstance(client, EdgeClient)
    hits = mem.recall("u", ASK, k=3, reinforce=False)
    counts, absent = TermCounts(), AbsentFields()
    _keep(mem, counts, absent)
    before = client.content_stamp()

    def write() -> None:
        done = threading.Thread(
            target=mem.ltm.classes.mark_superseded, args=("u", [hits[1].memory.id], NOW, "x")
        )
        done.start()
        done.join()
        _seen(mem)  # a recall between the two ends keeps what it reads

    _inside_writes(monkeypatch, lambda f: f is not None and f <= BOOKKEEPING_FIELDS, write)
    mem.vectors.reinforce("u", [hits[0].memory.id])
    monkeypatch.undo()
    assert client.content_stamp() not in (None, before)
    assert _served(mem, counts, absent) == (None, _truth(mem)[1])
    _as_fresh(mem, tmp_path)


def test_reinforcements_racing_content_writes_never_serve_a_stale_read(
    mem: PraxMemory, tmp_path: Path
) -> None:
    hits = mem.recall("u", ASK, k=3, reinforce=False)
    ids = [h.memory.id for h in hits]
    stop = threading.Event()

    def reinforce() -> None:
        while not stop.is_set():
            mem.vectors.reinforce("u", ids, now=NOW + timedelta(seconds=1))

    racer = threading.Thread(target=reinforce)
    racer.start()
    try:
        for i in range(8):
            if i % 2 == 0:
                mem.remember_many("u", [f"Alice grows squash {i}", f"tea {i}"])
            else:
                extra = mem.vectors.scroll("u", limit=100)
                mem.forget("u", next(p.id for p in extra if "squash" in p.payload["content"]))
            _seen(mem)  # keeps its reads, the racer still reinforcing
            with _open(tmp_path) as fresh:
                kept = mem.ltm.recall_detailed("u", ASK, k=5, reinforce=False)
                afresh = fresh.ltm.recall_detailed("u", ASK, k=5, reinforce=False)
                # the ranking decays by last_accessed, which the racer moves: compare what the
                # kept reads decide (which memories, their keyword evidence, the shared names)
                assert kept.shared_names == afresh.shared_names
                assert {h.memory.id for h in kept.hits} == {h.memory.id for h in afresh.hits}
    finally:
        stop.set()
        racer.join()
    _as_fresh(mem, tmp_path)


def test_a_write_through_another_memory_of_the_folder_is_seen(tmp_path: Path) -> None:
    # two PraxMemory objects of one folder share its client: the stamp is the client's, so
    # what one recaller kept does not outlive a write through the other (as it could when
    # the store's own count of writes was the stamp, up to the counts' maximum age)
    with _open(tmp_path) as mem, _open(tmp_path) as other:
        mem.remember_many("u", [f"note {i} about the garden" for i in range(8)])
        ask = "What is Alice allergic to?"
        assert mem.ltm.recall_detailed("u", ask, k=3, reinforce=False).shared_names == []
        other.remember_many("u", [f"Alice note {i} about her day" for i in range(40)])
        assert mem.ltm.recall_detailed("u", ask, k=3, reinforce=False).shared_names == ["Alice"]
