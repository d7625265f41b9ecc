"""The inspector's listings and labels in a real browser (headless Chromium, Playwright).

What a person reads on each page: the playground says which rule put each line of the
context block there (a standing fact is never badged "left out"); a forgotten user leaves the
users page, also after the server is stopped and started again; 50,000 characters without a
break never widen a page (the notebook views included); invisible and direction-changing
characters are shown as escapes; a reload after a decision does not post it again; pages
are reached by number; graph labels neither overlap nor run off the picture; no "-0.000";
numeric headers align with their numbers; ``/favicon.ico`` answers.

Real servers (uvicorn on 127.0.0.1) over real memories (embedded Qdrant, the packaged
model, SQLite graph, git notes); the browser and its fixtures are
tests/integration/test_inspector_browser.py's.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.context import assemble_context
from langgraph_prax_memory.inspector import ContextView, GraphView, MemoryListView, RecallView
from tests.integration import test_inspector_browser as _browser_tests
from tests.integration.test_inspector_browser import QUESTION, Served, Watched, _serve, seed

pytestmark = pytest.mark.integration

# the browser and its fixtures, as the other browser tests have them
chromium_path = _browser_tests.chromium_path
browser = _browser_tests.browser
page = _browser_tests.page

RUN = "x" * 50_000  # one unbroken run of 50,000 characters
BIDI = "pay\u202eevil\u202c to\u200bgether"  # a right-to-left override and a zero-width space


def _widest(p: Any) -> int:
    """How far the page reaches to the right (px), beside the window's width."""
    return int(
        p.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
    )


def _fits(p: Any) -> None:
    width = int(p.evaluate("window.innerWidth"))
    assert _widest(p) <= width, f"{p.url}: {_widest(p)} px wide in a {width} px window"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    """The demo data plus long runs and invisible characters in every layer a page shows."""
    folder = tmp_path_factory.mktemp("pages") / "data"
    mem = PraxMemory(MemoryConfig(data_dir=folder, max_content_chars=60_000))
    seed(mem)
    user = "demo-user"
    mem.remember(user, "Rust note " + RUN, importance=0.5, tags=["t" + "g" * 127])
    mem.remember(user, "Bidi note: " + BIDI, importance=0.5, source="s" + "o" * 127)
    mem.stm.write(user, "long", "y" * 1400)
    mem.stm.add_pending_review(user, "Pending " + RUN, tags=["consolidation"])
    mem.graph.merge_entity(user, "E" + "n" * 400, entity_type="topic", importance=0.95)
    mem.graph.add_relation(user, "User", "E" + "n" * 400, "related_to", evidence="ev " + "z" * 1990)
    for i in range(40):  # a crowded picture with long names
        name = f"Crowded entity name number {i:02d}"
        mem.graph.merge_entity(user, name, importance=0.5)
        mem.graph.add_relation(user, "User", name, "mentioned_with")
    yield mem
    mem.close()


@pytest.fixture(scope="module")
def served(hostile: PraxMemory) -> Iterator[Served]:
    yield from _serve(hostile)


# -- item 2: the playground says why each line is in the block ------------------------------


def test_the_playground_says_which_rule_put_each_line_there(served: Served, page: Watched) -> None:
    mem = served.mem
    page.goto(served.url("/playground", user="demo-user", q=QUESTION, k="5"))
    page.page.wait_for_selector("ol.hits")
    ctx = assemble_context(mem, "demo-user", QUESTION, k=5)
    in_block = {line.hit.memory.id: line.tier for line in ctx.lines if line.hit is not None}
    assert "standing fact" in in_block.values()
    for hit in page.page.query_selector_all("li.hit"):
        memory_id = hit.get_attribute("data-id")
        text = hit.inner_text()
        assert "left out of the context" not in text or memory_id not in in_block
        if memory_id in in_block:
            badge = hit.query_selector(".badge.in")
            assert badge is not None, text
            assert badge.inner_text() == f"in the context: {in_block[memory_id]}"
        else:
            assert hit.query_selector(".badge.out") is not None, text
            assert "left out:" in hit.query_selector(".role").inner_text()  # type: ignore[union-attr]
    # every line of the block, in order, with its rule
    block = page.page.inner_text("#context")
    lines = [x for x in block.splitlines() if x and not x.startswith("## ")]
    rows = page.page.query_selector_all("table.context-lines tr.line")
    assert len(rows) == len(lines) == len(ctx.lines)
    for row, line in zip(rows, ctx.lines, strict=True):
        assert row.get_attribute("data-tier") == line.tier
        assert row.query_selector("td.why").inner_text().strip()  # type: ignore[union-attr]
    tiers = [r.get_attribute("data-tier") for r in rows]
    assert {"note", "scratchpad", "relevant", "standing fact"} <= set(tiers)
    assert "-0.000" not in page.page.inner_text("main")  # a recency of 0 is 0.000
    assert page.problems == []


# -- item 3: a forgotten user leaves the users page, across a restart ----------------------


def _inspect(data: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "langgraph_prax_memory.cli",
            "inspect",
            "--data-dir",
            str(data),
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:"), proc.stderr.read() if proc.poll() else url
    return proc, url


def _open(page: Watched, url: str) -> Any:
    deadline = time.monotonic() + 60
    while True:
        try:
            return page.goto(url)
        except Exception:
            assert time.monotonic() < deadline, f"{url} never answered"
            time.sleep(0.3)


def test_a_forgotten_user_leaves_the_users_page_also_after_a_restart(
    tmp_path: Path, page: Watched
) -> None:
    data = tmp_path / "data"
    with PraxMemory(MemoryConfig(data_dir=data)) as mem:
        seed(mem)
    proc, url = _inspect(data, "--allow-changes")
    try:
        _open(page, url)
        assert page.page.locator("tr[data-user='demo-user']").count() == 1
        page.goto(url.replace("/?", "/forget?user=demo-user&"))
        page.page.fill("#confirm", "demo-user")
        page.page.click("#forget")
        page.page.wait_for_selector("dl.facts")
        page.goto(url)
        assert page.page.locator("tr[data-user='demo-user']").count() == 0
        assert page.page.locator("tr[data-user='other-user']").count() == 1
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    again, url = _inspect(data)
    try:
        _open(page, url)
        assert page.page.locator("tr[data-user='demo-user']").count() == 0
        assert page.page.locator("tr[data-user='other-user']").count() == 1
    finally:
        again.send_signal(signal.SIGTERM)
        again.wait(timeout=60)


# -- item 4: long unbroken text never widens a page ----------------------------------------


def test_fifty_thousand_characters_never_widen_a_page(served: Served, page: Watched) -> None:
    for path, params in (
        ("/", {}),
        ("/memories", {"user": "demo-user"}),
        ("/memories", {"user": "demo-user", "q": "rust note"}),
        ("/playground", {"user": "demo-user", "q": "Rust note xxxx", "k": "10"}),
        ("/graph", {"user": "demo-user"}),
        ("/consolidation", {"user": "demo-user"}),
    ):
        assert page.goto(served.url(path, **params)).status == 200
        _fits(page.page)
    # the playground's context block stays on screen beside the hits
    page.goto(served.url("/playground", user="demo-user", q="Rust note xxxx", k="10"))
    box = page.page.locator("#context").bounding_box()
    assert box is not None and box["x"] + box["width"] <= 1280
    # a clipped text shows its start; "show all" opens the whole, still inside the page
    page.goto(served.url("/memories", user="demo-user", q="rust note"))
    row = page.page.locator("tr.memory").first
    assert len(row.locator("td.content").inner_text()) < 2000
    row.locator("td.content details.whole > summary").click()
    whole = row.locator("td.content .whole-text")
    assert len(whole.inner_text()) >= 50_000
    _fits(page.page)
    assert page.problems == []


def test_the_notebook_views_never_widen_their_cell(hostile: PraxMemory, browser: Any) -> None:
    views = {
        "memories": MemoryListView.of(hostile, "demo-user"),
        "recall": RecallView.of(hostile, "demo-user", "Rust note xxxx", k=10),
        "context": ContextView.of(hostile, "demo-user", "Rust note xxxx", k=10),
        "graph": GraphView.of(hostile, "demo-user"),
    }
    context = browser.new_context(viewport={"width": 900, "height": 800})
    try:
        p = context.new_page()
        for name, view in views.items():
            html = view._repr_html_()
            assert RUN in html or name in ("context", "graph"), name
            p.set_content(f"<!doctype html><html><body>{html}</body></html>")
            _fits(p)
            for summary in p.query_selector_all("details.whole > summary")[:3]:
                summary.click()
            _fits(p)
    finally:
        context.close()


# -- item 7: the smaller ones -------------------------------------------------------------


def test_invisible_and_direction_characters_are_shown_escaped(
    served: Served, page: Watched
) -> None:
    page.goto(served.url("/memories", user="demo-user", q="bidi note"))
    text = page.page.inner_text("tr.memory td.content")
    assert "\u202e" not in text and "\u200b" not in text
    assert "pay\\u202eevil\\u202c to\\u200bgether" in text
    page.goto(served.url("/playground", user="demo-user", q="Bidi note pay evil"))
    assert "\u202e" not in page.page.inner_text("ol.hits")
    assert "\\u202e" in page.page.inner_text("ol.hits")


def test_numeric_headers_are_right_aligned(served: Served, page: Watched) -> None:
    page.goto(served.url("/memories", user="demo-user"))
    heads = page.page.query_selector_all("table.memories th")
    align = {h.inner_text(): h.evaluate("e => getComputedStyle(e).textAlign") for h in heads}
    assert align["importance"] == align["effective"] == align["recalls"] == "right"
    assert align["content"] in ("left", "start")
    page.goto(served.url("/"))
    heads = page.page.query_selector_all("table.users th")
    align = {h.inner_text(): h.evaluate("e => getComputedStyle(e).textAlign") for h in heads}
    assert align["memories"] == align["entities"] == align["backlog lines"] == "right"


def test_graph_labels_neither_overlap_nor_leave_the_picture(served: Served, page: Watched) -> None:
    page.goto(served.url("/graph", user="demo-user"))
    boxes = page.page.evaluate(
        """() => {
            const svg = document.querySelector('svg.graph-svg');
            const s = svg.getBoundingClientRect();
            return {svg: [s.left, s.top, s.right, s.bottom],
                    labels: [...svg.querySelectorAll('text')].map(t => {
                        const r = t.getBoundingClientRect();
                        return [r.left, r.top, r.right, r.bottom, t.textContent];
                    })};
        }"""
    )
    left, top, right, bottom = boxes["svg"]
    labels = boxes["labels"]
    assert len(labels) >= 30  # most of the 49 entities and many edges keep a label
    for x0, y0, x1, y1, text in labels:
        assert left <= x0 and x1 <= right and top <= y0 and y1 <= bottom, text
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
            assert apart, (a[4], b[4])
    # a label left out of the picture keeps its full name in the node's hover title
    titles = page.page.eval_on_selector_all("svg.graph-svg g.node > title", "t => t.length")
    assert titles == page.page.locator("svg.graph-svg g.node").count()


def test_pages_are_reached_by_number(tmp_path: Path, page: Watched) -> None:
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path / "data"))
    try:
        mem.remember_many("pager", [f"Pager memory number {i}" for i in range(420)])
        for served in _serve(mem):
            page.goto(served.url("/memories", user="pager"))
            numbers = page.page.eval_on_selector_all(
                "nav.pager a.page", "a => a.map(x => x.textContent)"
            )
            assert "9" in numbers and "2" in numbers  # beyond previous / next
            page.page.click("nav.pager a.page:text-is('9')")
            assert "401–420 of 420 matching" in page.page.inner_text("#shown")
            page.page.fill("#goto-page", "4")
            page.page.click("#goto")
            assert "151–200 of 420 matching" in page.page.inner_text("#shown")
            assert page.page.inner_text("nav.pager .current") == "4"
            page.page.click("nav.pager a[rel=next]")
            assert "201–250 of 420 matching" in page.page.inner_text("#shown")
            page.page.click("nav.pager a[rel=prev]")
            assert "151–200 of 420 matching" in page.page.inner_text("#shown")
            assert page.problems == []
    finally:
        mem.close()


def test_a_reload_after_a_decision_does_not_post_it_again(tmp_path: Path, page: Watched) -> None:
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path / "data"))
    try:
        seed(mem)
        mem.stm.add_pending_review("demo-user", "User may adopt a cat", tags=["consolidation"])
        for served in _serve(mem, allow_changes=True):
            page.goto(served.url("/consolidation", user="demo-user"))
            page.page.click("tr[data-key] button[value=reject]")
            page.page.wait_for_selector("#notice")
            assert "rejected" in page.page.inner_text("#notice")
            assert "decided=reject" in page.page.url  # redirected to a page that is a GET
            left = len(mem.stm.list_pending_review("demo-user"))
            methods: list[str] = []
            page.page.on("request", lambda r, seen=methods: seen.append(r.method))
            response = page.page.reload()
            assert response is not None and response.status == 200
            assert methods and methods[0] == "GET"
            assert "rejected" in page.page.inner_text("#notice")
            assert len(mem.stm.list_pending_review("demo-user")) == left
            assert page.problems == []
    finally:
        mem.close()


def test_favicon_ico_answers_without_the_token(served: Served, page: Watched) -> None:
    response = page.goto(f"{served.base}/favicon.ico")
    assert response.status == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    # the icon is the only thing without the token
    assert page.goto(f"{served.base}/static/favicon.svg").status == 403
    page.problems.clear()
    page.goto(served.url("/memories", user="demo-user"))
    page.page.wait_for_timeout(500)  # the browser asks for its icon after the load
    assert page.problems == []
