"""The "due" state as the engine's filter selects exactly what a forgetting pass prunes.

``inspector/_due.py`` cuts importance into bands and lets the engine take the memories surely
due by two ranges per band; those near a band's bounds are read and tested with the pass's
arithmetic. These tests put memories right at the bounds (a millisecond either side of the
instant each becomes due, at the bands' edges, at the threshold, at the user's highest
importance, recalled in the future) and check that the engine's page of "due" is the one
reading every memory gives, by number and by cursor, and that it reads no column.

Real parts: the embedded engine (qdrant-edge) and ``PraxMemory``; dense vectors from
``HashEmbeddings`` (tests/fakes.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.inspector._data import memory_page
from langgraph_prax_memory.vectors import VECTOR_PRUNE_THRESHOLD, EdgeClient
from tests.fakes import HashEmbeddings

NOW = datetime(2026, 3, 1, tzinfo=UTC)
THRESHOLD = VECTOR_PRUNE_THRESHOLD


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[PraxMemory]:
    m = PraxMemory(
        MemoryConfig(data_dir=tmp_path / "data"),
        embeddings=HashEmbeddings(),
        embedding_dimension=384,
    )
    rate = math.log(2) / (m.config.decay_halflife_days * 86400.0)
    now = NOW.timestamp()
    top = 0.9
    # importance: below, at and just above the threshold, band edges (geometric, as the
    # filter cuts them), the highest, and values between
    edges = [THRESHOLD * (top / THRESHOLD) ** (k / 24) for k in range(25)]
    values = [0.001, THRESHOLD, THRESHOLD * 1.0001, *edges, 0.05, 0.3, 0.5, top]
    shifts = [-86400.0, -2.0, -1e-3, 1e-3, 2.0, 86400.0]  # seconds from becoming due
    rows: list[tuple[float, float]] = []
    for value in values:
        turn = now - math.log(max(value, THRESHOLD) / THRESHOLD) / rate
        rows += [(value, turn + s) for s in shifts]
    rows.append((0.4, now + 3600.0))  # recalled "in the future": never decayed
    ids = m.remember_many(
        "erin",
        [
            {"content": f"Erin memory {i}", "importance": min(v, 1.0)}
            for i, (v, _) in enumerate(rows)
        ],
    )
    for point, (value, last) in zip(ids, rows, strict=True):
        m.vectors.set_payload("erin", [point], {"importance": value, "last_accessed_ts": last})
    m.remember("erin", "Erin's standing fact", importance=0.001)
    standing = m.list_memories("erin", limit=1000)
    fact = next(x.id for x in standing if x.content == "Erin's standing fact")
    m.vectors.set_payload("erin", [fact], {"fact_class": "standing"})
    m.flush()
    yield m
    m.close()


def _walk(mem: PraxMemory, **kwargs: Any) -> list[str]:
    """Every page of ``kwargs`` by the next links (cursors), in order."""
    got = memory_page(mem, "erin", now=NOW, page_size=13, **kwargs)
    seen = [r.memory.id for r in got.rows]
    while got.last is not None and got.start + len(got.rows) < got.matched:
        got = memory_page(mem, "erin", now=NOW, page_size=13, after=got.last.text(), **kwargs)
        seen += [r.memory.id for r in got.rows]
    return seen


@pytest.mark.parametrize("sort", ["newest", "oldest", "importance"])
def test_the_engines_due_filter_is_the_pass_at_every_bound(mem: PraxMemory, sort: str) -> None:
    want = memory_page(mem, "erin", now=NOW, state="due", sort=sort, page_size=500, how="scan")
    table = memory_page(mem, "erin", now=NOW, state="due", sort=sort, page_size=500, how="index")
    got = memory_page(mem, "erin", now=NOW, state="due", sort=sort, page_size=500)
    assert got.how == "engine"
    ids = [r.memory.id for r in want.rows]
    assert [r.memory.id for r in got.rows] == ids == [r.memory.id for r in table.rows]
    assert 0 < got.matched == want.matched < got.total  # some due, some not
    assert "Erin's standing fact" not in {r.memory.content for r in got.rows}
    assert _walk(mem, state="due", sort=sort) == ids
    for page in (1, 2, 4):
        one = memory_page(mem, "erin", now=NOW, state="due", sort=sort, page_size=13, page=page)
        assert [r.memory.id for r in one.rows] == ids[(page - 1) * 13 : page * 13]


def test_a_due_page_reads_no_column(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the page, the few memories near a band's bounds, and counts are read."""
    m = PraxMemory(
        MemoryConfig(data_dir=tmp_path / "spread"),
        embeddings=HashEmbeddings(),
        embedding_dimension=384,
    )
    try:
        m.remember_many(
            "erin",
            [
                {
                    "content": f"Erin memory {i}",
                    "importance": round(0.05 + (i * 37 % 100) / 105, 3),
                    "created_at": (NOW - timedelta(days=400 * i / 300)).isoformat(),
                }
                for i in range(300)
            ],
        )
        points: list[int] = []
        real = EdgeClient.scroll_records

        def counted(client: EdgeClient, *args: Any, **kwargs: Any) -> Any:
            got = real(client, *args, **kwargs)
            points.append(len(got[0]))
            return got

        monkeypatch.setattr(EdgeClient, "scroll_records", counted)
        got = memory_page(m, "erin", now=NOW, state="due", page_size=20)
        want = memory_page(m, "erin", now=NOW, state="due", page_size=20, how="scan")
        assert got.how == "engine" and len(got.rows) == 20
        assert [r.memory.id for r in got.rows] == [r.memory.id for r in want.rows]
        assert 20 < got.matched == want.matched < 280
        points.clear()
        memory_page(m, "erin", now=NOW, state="due", page_size=20)
        assert sum(points) < 100, points  # not every memory: the page and a few near bounds
    finally:
        m.close()


def test_due_by_an_index_sort_takes_the_filter_first_then_keeps_the_column(
    mem: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first view of "due" by recall reads no importance column; a view again keeps it."""
    orders: list[str] = []  # the fields read in order of every memory (columns)
    real = EdgeClient.scroll_records

    def noted(client: EdgeClient, *args: Any, **kwargs: Any) -> Any:
        order = args[5] if len(args) > 5 else kwargs.get("order_by")
        got = real(client, *args, **kwargs)
        if len(got[0]) > 1:
            orders.append(getattr(order, "key", "") or "")
        return got

    monkeypatch.setattr(EdgeClient, "scroll_records", noted)
    want = memory_page(mem, "erin", now=NOW, state="due", sort="recalled", how="scan")
    for view in range(3):
        orders.clear()
        got = memory_page(mem, "erin", now=NOW, state="due", sort="recalled")
        assert got.how == "index"
        assert [r.memory.id for r in got.rows] == [r.memory.id for r in want.rows], view
        assert ("importance" in orders) == (view == 1), (view, orders)
        if view == 2:
            assert orders == []  # every column kept
