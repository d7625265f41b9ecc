"""The memories page never loses or repeats a memory, whatever ties its sort key has.

2,000 memories stored in one batch share one creation time and one importance; 10,000 share
a handful of each. Every sort, walked page by page (by number, and by the next / previous
links' cursors), shows each memory exactly once, in the sort's order.

The memories are real points in the embedded engine (qdrant-edge), written through
``remember_many``. Their dense vectors come from ``HashEmbeddings`` (tests/fakes.py): the
listing never reads a vector, and embedding 12,000 texts with the packaged model would take
minutes here.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.inspector import create_app
from langgraph_prax_memory.inspector._data import SORTS, memory_page
from tests.fakes import HashEmbeddings

pytestmark = pytest.mark.integration

TOKEN = "paging-" + "p" * 30
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _memory(folder: Path) -> PraxMemory:
    return PraxMemory(
        MemoryConfig(data_dir=folder), embeddings=HashEmbeddings(), embedding_dimension=384
    )


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    """2,000 plain memories in one batch: one creation time, one importance, none recalled."""
    mem = _memory(tmp_path_factory.mktemp("plain") / "data")
    mem.remember_many("plain", [f"Plain memory number {i}" for i in range(2000)])
    yield mem
    mem.close()


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    """10,000 memories: 10 creation times, 5 importances, recall counts 0-2 (ties everywhere)."""
    mem = _memory(tmp_path_factory.mktemp("large") / "data")
    for batch in range(10):
        mem.remember_many(
            "large",
            [
                {
                    "content": f"Large memory {batch}-{i}",
                    "importance": (1 + i % 5) / 5 - 0.1,
                    "created_at": (T0 + timedelta(days=batch)).isoformat(),
                }
                for i in range(1000)
            ],
        )
    ids = [p.id for p in mem.vectors.iter_points("large")]
    mem.vectors.reinforce("large", ids[::7], now=T0 + timedelta(days=20))
    mem.vectors.reinforce("large", ids[::14], now=T0 + timedelta(days=20))
    mem.flush()
    assert mem.count("large") == 10_000
    yield mem
    mem.close()


def _walk_numbers(mem: PraxMemory, user: str, sort: str, size: int) -> list[str]:
    first = memory_page(mem, user, sort=sort, page_size=size)
    seen = [r.memory.id for r in first.rows]
    for n in range(2, first.pages + 1):
        got = memory_page(mem, user, sort=sort, page=n, page_size=size)
        assert got.page == n
        seen += [r.memory.id for r in got.rows]
    return seen


def _walk_cursors(mem: PraxMemory, user: str, sort: str, size: int) -> list[str]:
    got = memory_page(mem, user, sort=sort, page_size=size)
    seen = [r.memory.id for r in got.rows]
    while got.last is not None and got.start + len(got.rows) < got.matched:
        got = memory_page(mem, user, sort=sort, after=got.last.text(), page_size=size)
        seen += [r.memory.id for r in got.rows]
    back = [r.memory.id for r in got.rows]
    while got.first is not None and got.start > 0:
        got = memory_page(mem, user, sort=sort, before=got.first.text(), page_size=size)
        back = [r.memory.id for r in got.rows] + back
    assert back == seen, "walking back shows the same memories in the same order"
    return seen


def _in_order(mem: PraxMemory, user: str, sort: str, ids: list[str]) -> None:
    """``ids`` follow the sort's key, ties by id."""
    by_id = {m.id: m for m in mem.list_memories(user, limit=20_000)}
    rate = math.log(2) / (mem.config.decay_halflife_days * 86400.0)
    keys = {
        "newest": lambda m: (-m.created_at.timestamp(),),
        "oldest": lambda m: (m.created_at.timestamp(),),
        "importance": lambda m: (-m.importance,),
        "recalls": lambda m: (-m.access_count,),
        "recalled": lambda m: (0 if m.access_count else 1, -m.last_accessed.timestamp()),
        # effective importance, importance·2^(-age/halflife), orders as its logarithm
        "effective": lambda m: (math.log(m.importance) + rate * m.last_accessed.timestamp(),),
    }
    ordered = [(keys[sort](by_id[i]), i) for i in ids]
    assert ordered == sorted(ordered)


@pytest.mark.parametrize("sort", list(SORTS))
def test_2000_plain_memories_each_shown_once_in_every_sort(plain: PraxMemory, sort: str) -> None:
    everything = {p.id for p in plain.vectors.iter_points("plain")}
    assert len(everything) == 2000
    by_number = _walk_numbers(plain, "plain", sort, 50)
    assert len(by_number) == 2000 and set(by_number) == everything
    assert by_number == sorted(by_number)  # every key ties: the ids decide
    assert _walk_cursors(plain, "plain", sort, 50) == by_number


@pytest.mark.parametrize("sort", list(SORTS))
def test_10000_memories_each_shown_once_in_every_sort(large: PraxMemory, sort: str) -> None:
    everything = {p.id for p in large.vectors.iter_points("large")}
    by_number = _walk_numbers(large, "large", sort, 50 if sort == "importance" else 250)
    assert len(by_number) == 10_000 and set(by_number) == everything
    _in_order(large, "large", sort, by_number)
    assert _walk_cursors(large, "large", sort, 500) == by_number


def test_the_pages_links_walk_every_memory_once(plain: PraxMemory) -> None:
    """Through the page itself: the numbered links and the next / previous links."""
    c = TestClient(create_app(plain, token=TOKEN), base_url="http://127.0.0.1")
    everything = {p.id for p in plain.vectors.iter_points("plain")}
    seen: list[str] = []
    url = f"/memories?token={TOKEN}&user=plain&sort=importance"
    pages = 0
    while url:
        text = c.get(url).text
        seen += re.findall(r'<tr class="memory [a-z]+" data-id="([^"]+)"', text)
        pages += 1
        nxt = re.search(r'<a href="([^"]+)" rel="next">', text)
        url = html.unescape(nxt.group(1)) if nxt else ""
    assert pages == 40 and len(seen) == 2000 and set(seen) == everything
    # a numbered link from the pager: page 23 is rows 1,101-1,150
    first = c.get(f"/memories?token={TOKEN}&user=plain&sort=importance").text
    assert 'aria-current="page">1<' in first
    assert re.search(r'<a href="[^"]*page=40[^"]*" rel="last">', first)
    deep = c.get(f"/memories?token={TOKEN}&user=plain&sort=importance&page=23").text
    assert "1101–1150 of 2000 matching" in deep
    assert re.findall(r'data-id="([^"]+)"', deep)[:50] == seen[1100:1150]
    for n in (1, 2, 21, 22, 24, 25, 39, 40):
        assert re.search(rf'<a href="[^"]*page={n}[^"]*" class="page">{n}</a>', deep), n
    bad = c.get(f"/memories?token={TOKEN}&user=plain&sort=importance&after=oops")
    assert bad.status_code == 400 and "not a cursor" in bad.text
