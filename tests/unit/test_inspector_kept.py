"""The memories page keeps a user's columns between views, and never shows them stale.

What a page reads of every memory (``inspector/_table.py``) is kept until the embedded
engine's write stamp changes or a memory of the user reaches its expiry. These tests pin
that: the stamp moves with every write and only then; a second view reads no column again; a
view after any write, after an expiry, or while an agent writes in the middle of the page's
reads shows the memories as they are; numbered pages past the twentieth (read from the
table) and the next / previous links (read by the engine) walk one total order.

Real parts: the embedded engine (qdrant-edge) and ``PraxMemory``; dense vectors from
``HashEmbeddings`` (tests/fakes.py: the listing never reads a vector).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from qdrant_client import models

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.inspector._data import memory_page
from langgraph_prax_memory.vectors import EdgeClient
from tests.fakes import HashEmbeddings

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NOW = datetime(2026, 3, 1, tzinfo=UTC)


def _memory(folder: Path) -> PraxMemory:
    return PraxMemory(
        MemoryConfig(data_dir=folder), embeddings=HashEmbeddings(), embedding_dimension=384
    )


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[PraxMemory]:
    m = _memory(tmp_path / "data")
    ids = m.remember_many(
        "erin",
        [
            {
                "content": f"Erin note {i}" + (" about Rust" if i % 3 == 0 else ""),
                "importance": (i % 5) / 5 + 0.1,
                "tags": ["even" if i % 2 == 0 else "odd"],
                # three memories per creation time: ties at the pages' edges
                "created_at": (T0 + timedelta(hours=i // 3)).isoformat(),
            }
            for i in range(60)
        ],
    )
    m.vectors.reinforce("erin", ids[::4], now=T0 + timedelta(days=10))
    m.flush()
    yield m
    m.close()


class _Reads:
    """Counts the embedded engine's listing reads (``scroll_records``), and can write once."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        self.then: Any = None
        real = EdgeClient.scroll_records

        def counted(client: EdgeClient, *args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            got = real(client, *args, **kwargs)
            then, self.then = self.then, None
            if then is not None:  # a write lands just after this read
                then()
            return got

        monkeypatch.setattr(EdgeClient, "scroll_records", counted)


def _ids(mem: PraxMemory, **kwargs: Any) -> list[str]:
    got = memory_page(mem, "erin", now=NOW, page_size=500, **kwargs)
    assert got.how != "scan"  # a search too: the table, or the engine's order and index
    return [r.memory.id for r in got.rows]


def _reference(mem: PraxMemory, **kwargs: Any) -> list[str]:
    """The same listing, every memory's payload read (the scan)."""
    got = memory_page(mem, "erin", now=NOW, page_size=500, how="scan", **kwargs)
    return [r.memory.id for r in got.rows]


def test_the_write_stamp_moves_with_every_write_and_only_then(tmp_path: Path) -> None:
    client = EdgeClient(tmp_path / "edge")
    other = EdgeClient(":memory:")
    try:
        dense = models.VectorParams(size=2, distance=models.Distance.DOT)
        client.create_collection("c", vectors_config={"dense": dense})
        seen = {client.write_stamp(), other.write_stamp()}
        assert None not in seen and len(seen) == 2  # unique in the process

        def point(i: int, **payload: Any) -> models.PointStruct:
            return models.PointStruct(id=i, vector={"dense": [1.0, float(i)]}, payload=payload)

        writes = [
            lambda: client.upsert("c", [point(1, n=1), point(2, n=2)]),
            lambda: client.set_payload("c", {"n": 5}, models.PointIdsList(points=[1])),
            lambda: client.update_vectors(
                "c", [models.PointVectors(id=1, vector={"dense": [0.0, 1.0]})]
            ),
            lambda: client.batch_update_points(
                "c", [models.UpsertOperation(upsert=models.PointsList(points=[point(3)]))]
            ),
            lambda: client.delete("c", models.PointIdsList(points=[2])),
            lambda: client.create_payload_index("c", "n", models.PayloadSchemaType.INTEGER),
            lambda: client.compact("c"),
        ]
        for write in writes:
            before = client.write_stamp()
            client.scroll("c", limit=10)
            client.count("c")
            client.query_points("c", query=[1.0, 0.0], using="dense")
            assert client.write_stamp() == before, "a read moved the stamp"
            write()
            assert client.write_stamp() not in seen
            seen.add(client.write_stamp())
        with client._stamped():  # a write under way: no stamp to keep anything by
            assert client.write_stamp() is None
        assert client.write_stamp() not in seen
    finally:
        client.close()
        other.close()


def test_a_second_view_reads_no_column_again_until_a_write(
    mem: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = _Reads(monkeypatch)
    cases: list[dict[str, Any]] = [
        {"sort": "effective"},
        {"q": "rust", "sort": "recalls"},
        {"state": "due", "sort": "effective"},
    ]
    for kwargs in cases:
        first = _ids(mem, **kwargs)
        assert reads.calls > 0, kwargs
        reads.calls = 0
        assert _ids(mem, **kwargs) == first
        assert reads.calls == 0, f"{kwargs}: read again with nothing written"
        assert first == _reference(mem, **kwargs)
    rust = _ids(mem, q="rust", sort="recalls")
    reads.calls = 0
    mem.remember("erin", "Erin took up Rust and pottery")  # any write: read again
    after = _ids(mem, q="rust", sort="recalls")
    assert reads.calls > 0
    assert after == _reference(mem, q="rust", sort="recalls") and len(after) == len(rust) + 1


def test_every_view_after_a_write_shows_it(mem: PraxMemory) -> None:
    cases: list[dict[str, Any]] = [
        {"sort": "effective"},
        {"sort": "recalled"},
        {"sort": "recalls", "tag": "odd"},
        {"q": "rust", "sort": "importance"},
        {"state": "due", "sort": "oldest"},
        {"state": "current", "sort": "recalled"},
        {"state": "superseded", "sort": "effective"},
        {"sort": "newest", "page": 42},  # past row 1,000: read from the table
    ]

    def check() -> None:
        for kwargs in cases:
            got = memory_page(mem, "erin", now=NOW, page_size=25, **kwargs)
            want = memory_page(mem, "erin", now=NOW, page_size=25, how="scan", **kwargs)
            assert [r.memory.id for r in got.rows] == [r.memory.id for r in want.rows], kwargs
            assert (got.matched, got.total, got.tags) == (want.matched, want.total, want.tags)

    check()
    everything = [m.id for m in mem.list_memories("erin", limit=100)]
    mem.vectors.reinforce("erin", everything[5:9], now=T0 + timedelta(days=40))
    check()
    mem.vectors.delete("erin", [everything[10]])
    check()
    mem.vectors.set_payload(
        "erin", everything[11:13], {"valid_until": NOW.isoformat(), "valid_until_ts": 1.0}
    )
    check()
    mem.remember("erin", "Erin's new Rust note", tags=["new-tag"], importance=0.01)
    check()
    assert "new-tag" in memory_page(mem, "erin", sort="effective").tags


def test_a_write_in_the_middle_of_a_pages_reads_is_not_mixed_in(
    mem: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent writes between two of the page's reads: the page is read again, whole."""
    reads = _Reads(monkeypatch)
    before = _ids(mem, sort="recalled")
    assert len(before) == 60
    reads.then = lambda: mem.remember("erin", "Erin wrote this while the page was read")
    during = memory_page(mem, "erin", now=NOW, page_size=500, sort="recalled", state="due")
    assert reads.then is None, "the write ran"
    assert during.how == "index", "read again from a new table (not scanned)"
    want = _reference(mem, sort="recalled", state="due")
    assert [r.memory.id for r in during.rows] == want
    assert during.total == 61
    # and what is kept afterwards is the new state, not a mix
    assert _ids(mem, sort="recalled") == _reference(mem, sort="recalled")
    assert len(_ids(mem, sort="recalled")) == 61


def test_a_memory_past_its_expiry_leaves_the_page_without_a_write(mem: PraxMemory) -> None:
    everything = sorted(m.id for m in mem.list_memories("erin", limit=100))
    soon = time.time() + 1.5
    mem.vectors.set_payload("erin", everything[:2], {"expires_at": soon})
    for kwargs in ({"sort": "effective"}, {"q": "erin"}):
        shown = _ids(mem, **kwargs)
        assert set(everything[:2]) <= set(shown) and len(shown) == 60
    time.sleep(max(0.0, soon - time.time()) + 0.1)
    for kwargs in ({"sort": "effective"}, {"q": "erin"}):
        shown = _ids(mem, **kwargs)
        assert not set(everything[:2]) & set(shown) and len(shown) == 58
        assert shown == _reference(mem, **kwargs)
    assert memory_page(mem, "erin", sort="effective").total == 58


@pytest.mark.parametrize("sort", ["newest", "importance"])
def test_deep_pages_and_the_links_walk_one_order(tmp_path: Path, sort: str) -> None:
    """Page 21 on (the table) and the next / previous links (the engine) agree, ties by id."""
    m = _memory(tmp_path / "deep")
    try:
        m.remember_many(
            "erin",
            [
                {
                    "content": f"Deep note {i}",
                    "importance": (i % 4) / 4 + 0.1,
                    "created_at": (T0 + timedelta(days=i // 40)).isoformat(),
                }
                for i in range(1200)
            ],
        )
        want = _everything(m, sort)
        deep = memory_page(m, "erin", sort=sort, page=21)
        assert deep.how == "index" and deep.start == 1000
        assert [r.memory.id for r in deep.rows] == want[1000:1050]
        shown = [r.memory.id for r in deep.rows]
        got = deep
        while got.last is not None and got.start + len(got.rows) < got.matched:
            got = memory_page(m, "erin", sort=sort, after=got.last.text())
            assert got.how == "engine"
            shown += [r.memory.id for r in got.rows]
        assert shown == want[1000:]
        back: list[str] = []
        got = deep
        while got.first is not None and got.start > 950:
            got = memory_page(m, "erin", sort=sort, before=got.first.text())
            back = [r.memory.id for r in got.rows] + back
        assert back == want[950:1000]
        engine = memory_page(m, "erin", sort=sort, page=21, how="engine")
        assert [r.memory.id for r in engine.rows] == want[1000:1050]
    finally:
        m.close()


def _everything(m: PraxMemory, sort: str) -> list[str]:
    memories = list({x.id: x for x in m.list_memories("erin", limit=5000)}.values())
    assert len(memories) == 1200
    if sort == "newest":
        memories.sort(key=lambda x: (-x.created_at.timestamp(), x.id))
    else:
        memories.sort(key=lambda x: (-x.importance, x.id))
    return [x.id for x in memories]


def test_a_search_reads_no_content_and_memories_without_the_folded_copy_are_read(
    mem: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine's keyword index finds the words; a memory written without it: the content."""
    asked: list[Any] = []
    real = EdgeClient.scroll_records

    def noted(client: EdgeClient, *args: Any, **kwargs: Any) -> Any:
        asked.append(args[4] if len(args) > 4 else kwargs.get("with_payload"))
        return real(client, *args, **kwargs)

    monkeypatch.setattr(EdgeClient, "scroll_records", noted)
    mem.remember("erin", "ERIN'S RUST, shouted")
    cases: list[dict[str, Any]] = [
        {"q": "rust"},
        {"q": "RUST note", "sort": "effective"},
        {"q": "rust", "state": "due", "sort": "oldest"},
        {"q": "'s rust", "page": 1},
    ]
    for kwargs in cases:
        asked.clear()
        got = _ids(mem, **kwargs)
        assert asked and not [p for p in asked if p and "content" in p], kwargs
        assert got == _reference(mem, **kwargs), kwargs
    # a memory stored before the folded copy existed: found by reading every content
    one = next(m.id for m in mem.list_memories("erin", limit=100) if "Rust" in m.content)
    forget = models.DeletePayloadOperation(
        delete_payload=models.DeletePayload(keys=["content_folded"], points=[one])
    )
    mem.vectors.client.batch_update_points(mem.vectors.collection, [forget])
    asked.clear()
    assert one in _ids(mem, **cases[0])
    assert any(p and "content" in p for p in asked)  # then kept in the table
    for kwargs in cases:
        assert _ids(mem, **kwargs) == _reference(mem, **kwargs), kwargs
