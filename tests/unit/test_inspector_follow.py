"""A kept table follows the writes: only the written memories are read again, exactly.

The embedded engine's client names, for each write, the points whose payload or existence
it may have changed (``EdgeClient.changed_since``, ``vectors/_journal.py``). A user's kept
table (``inspector/_table.py``) then reads only those points again after a write instead of
every memory. These tests pin what the journal says for each kind of write (and when it
cannot tell), that a page after a write reads only the written memories, and that every
page after every kind of write is the one reading every memory gives; a write landing while
the table is followed is not mixed in; and what other processes can and cannot do.

Real parts: the embedded engine (qdrant-edge) and ``PraxMemory``; dense vectors from
``HashEmbeddings`` (tests/fakes.py). The read counter wraps the engine's real scroll (and
lands a write after a read: fault injection).
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from qdrant_client import models

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.inspector._data import memory_page
from langgraph_prax_memory.vectors import EdgeClient
from langgraph_prax_memory.vectors._journal import WriteJournal
from tests.fakes import HashEmbeddings

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NOW = datetime(2026, 3, 1, tzinfo=UTC)
#: Pages that read the table (search, decay sorts, states, masks, deep pages).
CASES: list[dict[str, Any]] = [
    {"sort": "effective"},
    {"sort": "recalled"},
    {"sort": "recalls", "tag": "odd"},
    {"q": "rust", "sort": "importance"},
    {"q": "erin note", "sort": "effective", "state": "due"},
    {"state": "due", "sort": "oldest"},
    {"state": "current", "sort": "recalled"},
    {"state": "superseded", "sort": "effective"},
    {"sort": "newest", "page": 42},  # past row 1,000: read from the table
    {"sort": "importance", "page": 30, "source": "import"},
]


def _memory(folder: Path) -> PraxMemory:
    return PraxMemory(
        MemoryConfig(data_dir=folder), embeddings=HashEmbeddings(), embedding_dimension=384
    )


def _seed(m: PraxMemory, n: int = 60) -> list[str]:
    ids = m.remember_many(
        "erin",
        [
            {
                "content": f"Erin note {i}" + (" about Rust" if i % 3 == 0 else ""),
                "importance": (i % 5) / 5 + 0.1,
                "tags": ["even" if i % 2 == 0 else "odd"],
                "source": "import" if i % 4 == 0 else "conversation",
                "created_at": (T0 + timedelta(hours=i // 3)).isoformat(),
            }
            for i in range(n)
        ],
    )
    m.vectors.reinforce("erin", ids[::4], now=T0 + timedelta(days=10))
    m.remember("frank", "Frank's own note about Rust")
    m.flush()
    return ids


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[PraxMemory]:
    m = _memory(tmp_path / "data")
    _seed(m)
    yield m
    m.close()


class _Reads:
    """Counts the engine's listing reads and the points they return; can write after one."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = self.points = 0
        self.then: Any = None
        real = EdgeClient.scroll_records

        def counted(client: EdgeClient, *args: Any, **kwargs: Any) -> Any:
            got = real(client, *args, **kwargs)
            self.calls += 1
            self.points += len(got[0])
            then, self.then = self.then, None
            if then is not None:  # a write lands just after this read
                then()
            return got

        monkeypatch.setattr(EdgeClient, "scroll_records", counted)

    def reset(self) -> None:
        self.calls = self.points = 0


def _check(mem: PraxMemory, what: str) -> None:
    """Every case, as the table gives it, is the page reading every memory gives."""
    for kwargs in CASES:
        got = memory_page(mem, "erin", now=NOW, page_size=7, **kwargs)
        want = memory_page(mem, "erin", now=NOW, page_size=7, how="scan", **kwargs)
        assert [r.memory.id for r in got.rows] == [r.memory.id for r in want.rows], (what, kwargs)
        assert (got.matched, got.total, got.tags, got.sources) == (
            want.matched,
            want.total,
            want.tags,
            want.sources,
        ), (what, kwargs)
        assert [r.memory.content for r in got.rows] == [r.memory.content for r in want.rows]


# -- the journal ------------------------------------------------------------------------


def _point(i: int | str, **payload: Any) -> models.PointStruct:
    return models.PointStruct(id=i, vector={"dense": [1.0, 0.5]}, payload=payload)


def test_the_journal_names_the_points_each_write_may_change(tmp_path: Path) -> None:
    client = EdgeClient(tmp_path / "edge")
    try:
        dense = models.VectorParams(size=2, distance=models.Distance.DOT)
        for name in ("c", "other"):
            client.create_collection(name, vectors_config={"dense": dense})
        a, b = str(uuid.uuid4()), str(uuid.uuid4())
        client.upsert("c", [_point(i) for i in range(1, 13)])

        def since(write: Any, collection: str = "c") -> Any:
            stamp = client.write_stamp()
            assert stamp is not None
            write()
            got = client.changed_since(stamp, collection)
            if got is not None:
                assert got[0] == client.write_stamp() != stamp
                return set(got[1])
            return None

        assert since(lambda: client.upsert("c", [_point(1), _point(a, n=1)])) == {1, a}
        assert since(lambda: client.set_payload("c", {"n": 2}, [1])) == {1}
        pinned = models.Filter(
            must=[
                models.FieldCondition(key="n", match=models.MatchValue(value=1)),
                models.HasIdCondition(has_id=[a, b]),
            ]
        )
        assert since(lambda: client.set_payload("c", {"n": 3}, pinned)) == {a, b}
        assert since(lambda: client.delete("c", models.FilterSelector(filter=pinned))) == {a, b}
        assert since(lambda: client.delete("c", models.PointIdsList(points=[7]))) == {7}
        batch = [
            models.SetPayloadOperation(set_payload=models.SetPayload(payload={}, points=[2])),
            models.UpsertOperation(upsert=models.PointsList(points=[_point(3)])),
            models.DeletePayloadOperation(
                delete_payload=models.DeletePayload(keys=["n"], points=[4])
            ),
            models.UpdateVectorsOperation(
                update_vectors=models.UpdateVectors(
                    points=[models.PointVectors(id=9, vector={"dense": [0.0, 1.0]})]
                )
            ),
        ]
        assert since(lambda: client.batch_update_points("c", batch)) == {2, 3, 4}
        vectors = [models.PointVectors(id=1, vector={"dense": [0.0, 1.0]})]
        assert since(lambda: client.update_vectors("c", vectors)) == set()  # no payload
        assert since(lambda: client.upsert("other", [_point(5)])) == set()  # another collection
        # not pinned to ids: cannot tell
        anyone = models.Filter(must=[models.FieldCondition(key="n", range=models.Range(gte=0))])
        assert since(lambda: client.set_payload("c", {"n": 4}, anyone)) is None
        assert since(lambda: client.delete("c", models.FilterSelector(filter=anyone))) is None
        assert since(lambda: client.compact("c")) is None
        # a filter naming its users: none of another user's points, unknown for theirs
        bob = models.Filter(
            must=[models.FieldCondition(key="user_id", match=models.MatchValue(value="bob"))]
        )
        for user, want in (("ann", set()), ("bob", None), (None, None)):
            stamp = client.write_stamp()
            assert stamp is not None
            client.delete("c", models.FilterSelector(filter=bob))
            got = client.changed_since(stamp, "c", user)
            assert (None if got is None else set(got[1])) == want, user
        stamp = client.write_stamp()
        assert stamp is not None
        forget_bob = models.DeleteOperation(delete=models.FilterSelector(filter=bob))
        client.batch_update_points("c", [forget_bob, *batch[:2]])  # and points by id
        assert client.changed_since(stamp, "c", "ann") == (client.write_stamp(), {2, 3})
        assert client.changed_since(stamp, "c", "bob") is None
        assert (
            since(lambda: client.create_payload_index("c", "n", models.PayloadSchemaType.INTEGER))
            is None
        )
        # writes accumulate; a stamp before an unknown write stays unknown
        stamp = client.write_stamp()
        assert stamp is not None
        client.upsert("c", [_point(11)])
        client.set_payload("c", {"n": 1}, [12])
        assert client.changed_since(stamp, "c") == (client.write_stamp(), frozenset({11, 12}))
        client.set_payload("c", {"n": 1}, anyone)
        assert client.changed_since(stamp, "c") is None
        with client._stamped():  # a write under way: cannot tell
            assert client.changed_since(client._stamp, "c") is None
    finally:
        client.close()


def test_the_journal_forgets_old_writes_and_says_so() -> None:
    journal = WriteJournal(10, writes=3, ids=5)
    for stamp, ids in ((11, {1}), (12, {2}), (13, {3})):
        journal.record(stamp, "c", frozenset(ids))
    assert journal.since(10, "c") == {1, 2, 3}
    journal.record(14, "c", frozenset({4}))  # four writes: the first is forgotten
    assert journal.since(10, "c") is None
    assert journal.since(11, "c") == {2, 3, 4}
    journal.record(15, "c", frozenset({5, 6, 7}))  # four writes again
    assert journal.since(11, "c") is None and journal.since(12, "c") == {3, 4, 5, 6, 7}
    journal.record(16, "other", frozenset({8}))  # six ids: the oldest write goes
    assert journal.since(12, "c") is None and journal.since(13, "c") == {4, 5, 6, 7}
    journal.record(17, "c", frozenset(range(100, 110)))  # more ids than kept: unknown
    assert journal.since(16, "c") is None


# -- following a kept table ---------------------------------------------------------------


def test_a_write_reads_only_the_written_memories_again(
    mem: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = _Reads(monkeypatch)
    kinds = (
        {"q": "rust", "sort": "recalls"},
        {"sort": "effective"},
        {"state": "due", "sort": "recalled"},
    )
    for kwargs in kinds:
        memory_page(mem, "erin", now=NOW, **kwargs)
    table_points = reads.points
    assert table_points > 120  # columns of 60 memories (two at least)
    everything = [m.id for m in mem.list_memories("erin", limit=100)]
    writes = [
        lambda: mem.vectors.reinforce("erin", everything[:2], now=NOW),
        lambda: mem.remember("erin", "Erin took up Rust and pottery", tags=["new"]),
        lambda: mem.vectors.delete("erin", [everything[3]]),
        lambda: mem.remember("frank", "Frank writes too"),
        lambda: mem.delete_user("frank"),  # by a filter over frank's points: none of erin's
    ]
    for write in writes:
        write()
        reads.reset()
        pages = [memory_page(mem, "erin", now=NOW, page_size=500, **kw) for kw in kinds]
        # the written memories (and a page's own engine reads), not 60 memories again
        assert reads.points <= 12, f"read {reads.points} points again after one write"
        for got, kwargs in zip(pages, kinds, strict=True):
            want = memory_page(mem, "erin", now=NOW, page_size=500, how="scan", **kwargs)
            assert got.how == "index"
            assert [r.memory.id for r in got.rows] == [r.memory.id for r in want.rows]


def test_every_kind_of_write_is_followed_exactly(mem: PraxMemory) -> None:
    _check(mem, "before any write")
    everything = sorted(m.id for m in mem.list_memories("erin", limit=100))
    writes: list[tuple[str, Any]] = [
        ("recalled", lambda: mem.vectors.reinforce("erin", everything[5:9], now=NOW)),
        ("deleted", lambda: mem.vectors.delete("erin", [everything[10]])),
        (
            "superseded",
            lambda: mem.vectors.set_payload(
                "erin", everything[11:13], {"valid_until": NOW.isoformat(), "valid_until_ts": 1.0}
            ),
        ),
        ("new memory, new tag", lambda: mem.remember("erin", "Erin's Rust", tags=["t-new"])),
        (
            "new memories, new source",
            lambda: mem.remember_many(
                "erin",
                [
                    {"content": f"Erin batch {i} rust", "source": "s-new", "importance": 0.02}
                    for i in range(3)
                ],
            ),
        ),
        ("content", lambda: mem.vectors.set_payload("erin", everything[14:15], {"content": "X"})),
        (
            "standing",
            lambda: mem.vectors.set_payload("erin", everything[20:24], {"fact_class": "standing"}),
        ),
        (
            "importance",
            lambda: mem.vectors.set_payload("erin", everything[25:27], {"importance": 0.001}),
        ),
        ("tags", lambda: mem.vectors.set_payload("erin", everything[30:31], {"tags": ["odd"]})),
        ("another user", lambda: mem.remember("frank", "Frank likes Rust")),
        ("forget another user", lambda: mem.delete_user("frank")),
        ("vectors only", lambda: mem.vectors.set_dense("erin", {everything[40]: [0.1] * 384}, "m")),
        ("forgotten", lambda: mem.forget("erin", everything[41])),
    ]
    for what, write in writes:
        write()
        _check(mem, what)
    assert memory_page(mem, "erin", sort="effective").total == 60 - 2 + 4


def test_a_written_memory_without_a_column_value_makes_the_page_a_scan(
    mem: PraxMemory,
) -> None:
    _check(mem, "before")
    one = mem.list_memories("erin", limit=1)[0].id
    mem.vectors.set_payload("erin", [one], {"importance": None})  # no importance now
    got = memory_page(mem, "erin", now=NOW, sort="effective", page_size=100)
    want = memory_page(mem, "erin", now=NOW, sort="effective", page_size=100, how="scan")
    assert got.how == "scan"
    assert [r.memory.id for r in got.rows] == [r.memory.id for r in want.rows]


def test_a_written_expiry_leaves_the_page_on_time(mem: PraxMemory) -> None:
    _check(mem, "before")
    everything = sorted(m.id for m in mem.list_memories("erin", limit=100))
    soon = time.time() + 1.5
    mem.vectors.set_payload("erin", everything[:2], {"expires_at": soon})
    shown = [r.memory.id for r in memory_page(mem, "erin", q="erin", page_size=100).rows]
    assert set(everything[:2]) <= set(shown) and len(shown) == 60
    time.sleep(max(0.0, soon - time.time()) + 0.1)
    shown = [r.memory.id for r in memory_page(mem, "erin", q="erin", page_size=100).rows]
    assert not set(everything[:2]) & set(shown) and len(shown) == 58
    _check(mem, "expired")


def test_a_write_while_the_table_is_followed_is_not_mixed_in(
    mem: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = _Reads(monkeypatch)
    _check(mem, "before")
    mem.remember("erin", "Erin's first write")
    reads.then = lambda: mem.remember("erin", "Erin wrote this while the table was followed")
    got = memory_page(mem, "erin", now=NOW, page_size=500, q="erin", sort="recalled")
    assert reads.then is None, "the write ran"
    want = memory_page(mem, "erin", now=NOW, page_size=500, q="erin", sort="recalled", how="scan")
    assert [r.memory.id for r in got.rows] == [r.memory.id for r in want.rows]
    assert got.total == 62 and got.how == "index"
    _check(mem, "after")


# -- other writers ------------------------------------------------------------------------


def test_another_memory_of_this_process_writes_through_the_same_client(
    mem: PraxMemory,
) -> None:
    """Two ``PraxMemory`` on one folder share the engine's client: its writes are followed."""
    _check(mem, "before")
    other = _memory(mem.config.data_dir)
    try:
        assert other.vectors.client is mem.vectors.client
        other.remember("erin", "Written by another memory of this process about Rust")
        other.vectors.reinforce("erin", [mem.list_memories("erin", limit=1)[0].id], now=NOW)
        _check(mem, "another memory wrote")
        assert memory_page(mem, "erin", q="another memory").matched == 1
    finally:
        other.close()


_WRITER = """
import sys
from langgraph_prax_memory import MemoryConfig, PraxMemory
from tests.fakes import HashEmbeddings
try:
    m = PraxMemory(MemoryConfig(data_dir=sys.argv[1]), embeddings=HashEmbeddings(),
                   embedding_dimension=384)
    m.remember("erin", "Erin's note written by another process about Rust")
    m.close()
except Exception as exc:
    print(type(exc).__name__)
    sys.exit(3)
print("written")
"""


def _write_from_another_process(folder: Path) -> subprocess.CompletedProcess[str]:
    root = Path(__file__).resolve().parents[2]
    return subprocess.run(
        [sys.executable, "-c", _WRITER, str(folder)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_another_process_cannot_write_while_the_pages_keep_a_table(tmp_path: Path) -> None:
    """The folder's lock keeps every other writer out while tables are kept; once this
    process lets go, the other process writes and a memory opened again shows it."""
    folder = tmp_path / "data"
    first = _memory(folder)
    try:
        _seed(first)
        _check(first, "before")
        refused = _write_from_another_process(folder)
        assert refused.returncode == 3 and "StoreLockedError" in refused.stdout, refused
        _check(first, "after a refused write")
        assert memory_page(first, "erin", q="another process").matched == 0
    finally:
        first.close()
    done = _write_from_another_process(folder)
    assert done.returncode == 0 and "written" in done.stdout, done
    again = _memory(folder)
    try:
        assert memory_page(again, "erin", q="another process").matched == 1
        _check(again, "reopened")
    finally:
        again.close()
