"""The inspector's app over a real memory (embedded Qdrant, the packaged model, SQLite graph).

Requests go through Starlette's test client (in-process, no socket); the browser tests in
tests/integration/test_inspector_browser.py drive the served pages in headless Chromium.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.context import build_memory_context
from langgraph_prax_memory.errors import BackendUnavailable, MemoryValidationError
from langgraph_prax_memory.inspector import (
    ContextView,
    GraphView,
    MemoryListView,
    RecallView,
    create_app,
)
from langgraph_prax_memory.inspector._data import (
    SORTS,
    STATES,
    MemoryPage,
    graph_data,
    memory_page,
)
from langgraph_prax_memory.inspector._render import (
    GRAPH_NODE_CAP,
    GraphData,
    MemoryRow,
    memory_row,
)
from langgraph_prax_memory.models import Memory

TOKEN = "t0k3n-" + "a" * 26
PAGES = ["/memories", "/playground", "/graph", "/consolidation", "/forget"]


def _fill(mem: PraxMemory) -> None:
    mem.remember("alice", "Alice prefers dark mode in every editor", importance=0.8, tags=["ui"])
    mem.remember("alice", "Alice works at Acme on the billing team", tags=["work"])
    mem.remember("alice", "Alice's cat is called <script>alert(1)</script> Miso")
    mem.remember("bob", "Bob's secret project is codenamed Bluebird")
    mem.graph.merge_entity("alice", "Alice", entity_type="person", importance=0.9)
    mem.graph.merge_entity("alice", "Acme", entity_type="organization")
    mem.graph.add_relation("alice", "Alice", "Acme", "works_on")
    mem.graph.add_relation("alice", "Alice", "Dark mode", "prefers")
    mem.graph.supersede_relation("alice", "Alice", "Dark mode", "prefers")
    mem.graph.merge_temporal_event("alice", "Alice joined Acme", participants=["Alice", "Acme"])
    mem.graph.add_causal_link("alice", "deadline moved", "team works weekends")
    mem.graph.merge_entity("bob", "Bluebird", entity_type="project")
    mem.stm.add_pending_review("alice", "Alice may move to Berlin")
    mem.stm.add_pending_review("bob", "Bob may sell Bluebird")


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path_factory.mktemp("inspect") / "data"))
    _fill(mem)
    yield mem
    mem.close()


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[PraxMemory]:
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path / "fresh"))
    _fill(mem)
    yield mem
    mem.close()


def client(mem: PraxMemory, **kwargs: object) -> TestClient:
    return TestClient(create_app(mem, token=TOKEN, **kwargs), base_url="http://127.0.0.1:8765")  # type: ignore[arg-type]


def get(c: TestClient, path: str, **params: str) -> object:
    return c.get(path, params={"token": TOKEN, **params})


# -- the token, the host, the methods ------------------------------------------------------


def test_every_page_and_static_file_needs_the_token(shared: PraxMemory) -> None:
    c = client(shared)
    paths = ["/", *PAGES, "/static/inspector.css", "/static/favicon.svg"]
    for path in paths:
        ok = c.get(path, params={"token": TOKEN, "user": "alice"})
        assert ok.status_code == 200, (path, ok.text[:300])
        missing = c.get(path, params={"user": "alice"})
        wrong = c.get(path, params={"token": TOKEN[:-1] + "b", "user": "alice"})
        for refused in (missing, wrong):
            assert refused.status_code == 403, path
            assert "alice" not in refused.text.lower() or "token" in refused.text
            assert "Alice" not in refused.text
    head = c.head("/", params={"token": "nope"})
    assert head.status_code == 403


def test_a_token_in_a_header_or_cookie_is_not_enough(shared: PraxMemory) -> None:
    c = client(shared)
    c.cookies.set("token", TOKEN)
    assert c.get("/", headers={"Authorization": f"token {TOKEN}"}).status_code == 403


def test_every_response_forbids_framing_referrers_and_foreign_scripts(shared: PraxMemory) -> None:
    c = client(shared)
    r = c.get("/", params={"token": TOKEN})
    csp = r.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
    assert "script-src" not in csp  # no script at all (default-src 'none')
    assert r.headers["referrer-policy"] == "same-origin"  # the token never leaves the origin
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["cache-control"] == "no-store"
    assert "set-cookie" not in r.headers


def test_a_foreign_host_header_is_refused(shared: PraxMemory) -> None:
    # DNS rebinding: a page on evil.example resolving its name to 127.0.0.1
    c = client(shared)
    r = c.get("/", params={"token": TOKEN}, headers={"host": "evil.example:8765"})
    assert r.status_code == 403
    for host in ("127.0.0.1:9", "localhost:9", "[::1]:9"):
        assert c.get("/", params={"token": TOKEN}, headers={"host": host}).status_code == 200


def test_other_methods_are_refused(shared: PraxMemory) -> None:
    c = client(shared, allow_changes=True)
    for method in ("PUT", "DELETE", "PATCH"):
        r = c.request(method, "/forget", params={"token": TOKEN, "user": "alice"})
        assert r.status_code == 405


def test_a_short_token_is_refused(shared: PraxMemory) -> None:
    with pytest.raises(MemoryValidationError, match="16 characters"):
        create_app(shared, token="short")


# -- read-only by default ------------------------------------------------------------------


def test_read_only_refuses_every_change_and_changes_nothing(fresh: PraxMemory) -> None:
    c = client(fresh)
    key = fresh.stm.list_pending_review("alice")[0].key
    before = fresh.count("alice")
    for path, form in (
        ("/review", {"token": TOKEN, "user": "alice", "key": key, "decision": "approve"}),
        ("/forget", {"token": TOKEN, "user": "alice", "confirm": "alice"}),
    ):
        r = c.post(path, data=form)
        assert r.status_code == 403
        assert "--allow-changes" in r.text
    assert fresh.count("alice") == before
    assert [e.key for e in fresh.stm.list_pending_review("alice")] == [key]
    page = get(c, "/consolidation", user="alice")
    assert '<form method="post"' not in page.text  # type: ignore[attr-defined]
    assert "--allow-changes" in get(c, "/forget", user="alice").text  # type: ignore[attr-defined]


def test_browsing_writes_nothing(fresh: PraxMemory) -> None:
    c = client(fresh)
    counts = {m.id: m.access_count for m in fresh.list_memories("alice")}
    for path in PAGES:
        assert get(c, path, user="alice", q="which editor theme?").status_code == 200  # type: ignore[attr-defined]
    fresh.flush()
    assert {m.id: m.access_count for m in fresh.list_memories("alice")} == counts


# -- changes: --allow-changes + POST + the token in the form --------------------------------


def test_a_change_needs_the_token_in_the_form(fresh: PraxMemory) -> None:
    c = client(fresh, allow_changes=True)
    key = fresh.stm.list_pending_review("alice")[0].key
    form = {"user": "alice", "key": key, "decision": "reject"}
    assert c.post("/review", data=form, params={"token": TOKEN}).status_code == 403
    assert c.post("/review", data={**form, "token": "x" * 32}).status_code == 403
    assert c.post("/review", json={**form, "token": TOKEN}).status_code == 415
    cross = c.post(
        "/review", data={**form, "token": TOKEN}, headers={"origin": "http://evil.example"}
    )
    assert cross.status_code == 403
    for origin in ("null", "http://127.0.0.1:9999"):
        r = c.post("/review", data={**form, "token": TOKEN}, headers={"origin": origin})
        assert r.status_code == 403
    sited = c.post(
        "/review", data={**form, "token": TOKEN}, headers={"sec-fetch-site": "cross-site"}
    )
    assert sited.status_code == 403
    assert [e.key for e in fresh.stm.list_pending_review("alice")] == [key]
    same = c.post(
        "/review", data={**form, "token": TOKEN}, headers={"origin": "http://127.0.0.1:8765"}
    )
    assert same.status_code == 200
    assert fresh.stm.list_pending_review("alice") == []


def test_approving_stores_the_item_as_a_memory(fresh: PraxMemory) -> None:
    c = client(fresh, allow_changes=True)
    key = fresh.stm.list_pending_review("alice")[0].key
    r = c.post("/review", data={"token": TOKEN, "user": "alice", "key": key, "decision": "approve"})
    assert r.status_code == 200 and "approved" in r.text
    assert fresh.stm.list_pending_review("alice") == []
    stored = [m for m in fresh.list_memories("alice") if m.content == "Alice may move to Berlin"]
    assert len(stored) == 1 and stored[0].source == "review"
    assert "pending_review" not in stored[0].tags


def test_forgetting_needs_the_typed_confirmation(fresh: PraxMemory) -> None:
    c = client(fresh, allow_changes=True)
    assert "type the user id" in get(c, "/forget", user="alice").text  # type: ignore[attr-defined]
    wrong = c.post("/forget", data={"token": TOKEN, "user": "alice", "confirm": "alic"})
    assert wrong.status_code == 400 and "nothing was deleted" in wrong.text
    assert fresh.count("alice") == 3
    done = c.post("/forget", data={"token": TOKEN, "user": "alice", "confirm": "alice"})
    assert done.status_code == 200 and "Receipt" in done.text
    assert fresh.count("alice") == 0
    assert fresh.count("bob") == 1  # nobody else is touched


# -- tenants --------------------------------------------------------------------------------


def test_a_restricted_inspector_never_shows_another_user(shared: PraxMemory) -> None:
    c = client(shared, users=["alice"])
    assert "bob" not in get(c, "/").text  # type: ignore[attr-defined]
    for path in PAGES:
        r = get(c, path, user="bob", q="secret project")
        assert r.status_code == 404, path  # type: ignore[attr-defined]
        assert "Bluebird" not in r.text  # type: ignore[attr-defined]
    assert "Alice prefers dark mode" in get(c, "/memories", user="alice").text  # type: ignore[attr-defined]


def test_each_page_shows_only_the_named_users_data(shared: PraxMemory) -> None:
    c = client(shared)
    for path in PAGES:
        text = get(c, path, user="alice", q="secret project codename").text  # type: ignore[attr-defined]
        assert "Bluebird" not in text, path
    bob = get(c, "/memories", user="bob").text  # type: ignore[attr-defined]
    assert "Bluebird" in bob and "Alice prefers" not in bob


def test_a_pending_item_of_another_user_cannot_be_decided(fresh: PraxMemory) -> None:
    c = client(fresh, allow_changes=True)
    bobs = fresh.stm.list_pending_review("bob")[0].key
    r = c.post("/review", data={"token": TOKEN, "user": "alice", "key": bobs, "decision": "reject"})
    assert r.status_code == 400
    assert [e.key for e in fresh.stm.list_pending_review("bob")] == [bobs]


def test_a_bad_user_id_is_a_clear_error(shared: PraxMemory) -> None:
    c = client(shared)
    assert get(c, "/memories").status_code == 400  # type: ignore[attr-defined]
    r = get(c, "/memories", user="a\x00b")
    assert r.status_code == 400 and "user" in r.text.lower()  # type: ignore[attr-defined]


# -- what the pages show --------------------------------------------------------------------


def test_the_users_page_counts_each_layer(shared: PraxMemory) -> None:
    text = get(client(shared), "/").text  # type: ignore[attr-defined]
    row = re.search(r'<tr data-user="alice">(.*?)</tr>', text, re.S)
    assert row is not None
    cells = re.findall(r'<td class="n">(\d+)</td>', row.group(1))
    # memories, entities, relations, notes lines, scratchpad, pending review, backlog
    assert cells[:3] == ["3", "3", "2"]
    assert cells[4:6] == ["1", "1"]


def test_stored_text_is_escaped(shared: PraxMemory) -> None:
    text = get(client(shared), "/memories", user="alice").text  # type: ignore[attr-defined]
    assert "<script>alert(1)</script>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text


def test_the_playground_shows_recall_order_and_the_context_block(shared: PraxMemory) -> None:
    q = "which theme does Alice like in her editor?"
    text = get(client(shared), "/playground", user="alice", q=q, k="3").text  # type: ignore[attr-defined]
    ids = re.findall(r'<li class="hit[^"]*" data-id="([^"]+)"', text)
    want = [h.memory.id for h in shared.recall("alice", q, k=3, reinforce=False)]
    assert ids == want and ids
    block = build_memory_context(shared, "alice", q, k=3)
    assert "dark mode" in block
    shown = re.search(r'<pre id="context">(.*?)</pre>', text, re.S)
    assert shown is not None
    import html

    assert html.unescape(shown.group(1)) == block


def test_the_graph_page_draws_current_and_superseded_edges(shared: PraxMemory) -> None:
    text = get(client(shared), "/graph", user="alice").text  # type: ignore[attr-defined]
    assert text.count('<g class="node"') == 3
    assert '<g class="edge current">' in text and '<g class="edge superseded">' in text
    assert 'stroke-dasharray="6 4"' in text
    assert "Alice joined Acme" in text and "team works weekends" in text
    assert "3 of 3 entities drawn" in text


def test_the_memories_page_filters_sorts_and_pages(shared: PraxMemory) -> None:
    c = client(shared)
    text = get(c, "/memories", user="alice", q="acme billing").text  # type: ignore[attr-defined]
    assert text.count('<tr class="memory') == 1
    assert "1–1 of 1 matching" in text
    tagged = get(c, "/memories", user="alice", tag="ui").text  # type: ignore[attr-defined]
    assert "dark mode" in tagged and "Acme" not in tagged
    bad = get(c, "/memories", user="alice", sort="nope")
    assert bad.status_code == 400 and "unknown sort" in bad.text  # type: ignore[attr-defined]


def _memory(i: int, importance: float, days_ago: float, now: datetime) -> Memory:
    t = now - timedelta(days=days_ago)
    return Memory(
        id=str(i),
        user_id="u",
        content=f"m{i}",
        importance=importance,
        created_at=t,
        last_accessed=t,
    )


def test_effective_importance_and_prune_date_follow_the_forgetting_pass() -> None:
    now = datetime(2026, 6, 1, tzinfo=UTC)
    row = memory_row(_memory(1, 0.64, 30, now), now, halflife_days=30)
    assert row.effective == pytest.approx(0.32)
    # 0.64 · 2^(−d/30) = 0.02  ⇔  d = 30 · log2(32) = 150 days after the last access
    assert row.prune_at == now - timedelta(days=30) + timedelta(days=150)
    assert not row.due
    old = memory_row(_memory(2, 0.64, 200, now), now, halflife_days=30)
    assert old.due and old.prune_at is not None and old.prune_at < now


def test_pages_of_fifty(fresh: PraxMemory) -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    fresh.remember_many(
        "dave",
        [
            {"content": f"Dave note {i}", "created_at": (t0 + timedelta(hours=i)).isoformat()}
            for i in range(120)
        ],
    )
    for how in ("scan", "auto"):
        third = memory_page(fresh, "dave", page=3, sort="newest", how=how)
        assert third.pages == 3 and len(third.rows) == 20 and third.page == 3
        assert third.rows[-1].memory.content == "Dave note 0"
        assert memory_page(fresh, "dave", page=99, how=how).page == 3
        assert memory_page(fresh, "nobody-here", how=how).rows == []


# -- notebook views ---------------------------------------------------------------------------


def test_notebook_views_render_from_the_same_fragments(shared: PraxMemory) -> None:
    q = "which theme does Alice like?"
    recall = RecallView.of(shared, "alice", q)._repr_html_()
    assert recall.startswith('<div class="prax"><style>') and "dark mode" in recall
    assert "score" in recall and "<svg" in recall
    listing = MemoryListView.of(shared, "alice")._repr_html_()
    assert listing.count('<tr class="memory') == 3
    graph = GraphView.of(shared, "alice")._repr_html_()
    assert graph.count('<g class="node"') == 3
    context = ContextView.of(shared, "alice", q)
    assert str(context) == build_memory_context(shared, "alice", q)
    assert "Relevant Memories" in context._repr_html_()


def test_the_graph_picture_is_capped_and_says_so() -> None:
    from langgraph_prax_memory.graph import Entity

    t = datetime(2026, 1, 1, tzinfo=UTC)
    many = [
        Entity(
            id=str(i),
            user_id="u",
            name=f"e{i}",
            display_name=f"E{i}",
            type="topic",
            importance=i / 200,
            mention_count=1,
            first_seen=t,
            last_seen=t,
        )
        for i in range(GRAPH_NODE_CAP + 20)
    ]
    html = GraphView(GraphData(entities=many))._repr_html_()
    assert html.count('<g class="node"') == GRAPH_NODE_CAP
    assert f"{GRAPH_NODE_CAP} of {GRAPH_NODE_CAP + 20} entities drawn" in html
    assert f"capped at {GRAPH_NODE_CAP}" in html


def test_the_graph_page_of_a_large_graph_reads_the_cap_and_says_so(tmp_path: Path) -> None:
    """More entities than the cap: the most important are drawn, with the totals shown."""
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path / "large"))
    try:
        n = GRAPH_NODE_CAP + 40
        t0 = datetime(2026, 1, 1, tzinfo=UTC)
        for i in range(n):  # topic 119 is the most important, topic 000 the least
            mem.graph.merge_entity("carol", f"topic {i:03d}", importance=i / n, now=t0)
        for i in range(n - 1):  # a chain: topic 039 -> topic 040 is the only edge half in
            mem.graph.add_relation("carol", f"topic {i:03d}", f"topic {i + 1:03d}", "related_to")
        mem.graph.merge_entity("dave", "topic 999", importance=1.0)
        data = graph_data(mem, "carol")
        assert [e.name for e in data.entities] == [f"topic {i:03d}" for i in range(n - 1, 39, -1)]
        assert len(data.relations) == GRAPH_NODE_CAP  # the 79 among them and 039 -> 040

        text = get(client(mem), "/graph", user="carol").text  # type: ignore[attr-defined]
        assert text.count('<g class="node"') == GRAPH_NODE_CAP
        assert f"{GRAPH_NODE_CAP} of {n} entities drawn" in text
        assert f"capped at {GRAPH_NODE_CAP}" in text
        assert f"the graph counts {n} entities, {n - 1} current" in text
        drawn = set(re.findall(r'<g class="node" data-name="([^"]+)"', text))
        assert drawn == {f"topic {i:03d}" for i in range(40, n)}
        assert text.count('<g class="edge current">') == GRAPH_NODE_CAP - 1
        assert f"{GRAPH_NODE_CAP} of {n - 1} shown: those touching the entities drawn" in text
        assert "topic 999" not in text
    finally:
        mem.close()


def test_the_memories_page_sees_a_new_memory_at_once(fresh: PraxMemory) -> None:
    c = client(fresh)
    assert "Alice rides a red bicycle" not in get(c, "/memories", user="alice").text  # type: ignore[attr-defined]
    fresh.remember("alice", "Alice rides a red bicycle")  # the count changes: read again
    assert "Alice rides a red bicycle" in get(c, "/memories", user="alice").text  # type: ignore[attr-defined]


def test_a_review_decision_shows_on_the_memories_page(fresh: PraxMemory) -> None:
    c = client(fresh, allow_changes=True)
    assert "Alice may move to Berlin" not in get(c, "/memories", user="alice").text  # type: ignore[attr-defined]
    key = fresh.stm.list_pending_review("alice")[0].key
    c.post("/review", data={"token": TOKEN, "user": "alice", "key": key, "decision": "approve"})
    assert "Alice may move to Berlin" in get(c, "/memories", user="alice").text  # type: ignore[attr-defined]


def test_a_recall_shows_on_the_next_page_view(fresh: PraxMemory) -> None:
    # sorted by effective importance: not an engine page; nothing is kept between views
    c = client(fresh)
    m = next(m for m in fresh.list_memories("alice") if "dark mode" in m.content)
    row = rf'data-id="{m.id}">.*?<td class="n">(\d+)</td>\n<td>'
    before = re.search(row, get(c, "/memories", user="alice", sort="effective").text, re.S)  # type: ignore[attr-defined]
    fresh.recall("alice", "dark mode editor", k=1)  # reinforces: same count, new last recall
    fresh.flush()
    again = fresh.get("alice", m.id)
    assert again is not None and again.access_count == m.access_count + 1
    after = re.search(row, get(c, "/memories", user="alice", sort="effective").text, re.S)  # type: ignore[attr-defined]
    assert before and after
    assert int(after.group(1)) == int(before.group(1)) + 1


def _reference(
    rows: list[MemoryRow],
    *,
    q: str = "",
    source: str = "",
    tag: str = "",
    state: str = "all",
    sort: str = "newest",
) -> list[str]:
    """Every matching id in the sort's order, from every memory read in full (the reference)."""
    words = q.casefold().split()
    chosen = [
        r
        for r in rows
        if all(w in r.memory.content.casefold() for w in words)
        and (not source or r.memory.source == source)
        and (not tag or tag in r.memory.tags)
        and (
            state == "all"
            or (state == "current" and r.memory.valid_until is None)
            or (state == "superseded" and r.memory.valid_until is not None)
            or (state == "due" and r.due)
        )
    ]
    # every sort is total: its key, then the memory id (ascending) among equal keys
    keys = {
        "newest": lambda r: (-r.memory.created_at.timestamp(),),
        "oldest": lambda r: (r.memory.created_at.timestamp(),),
        "importance": lambda r: (-r.memory.importance,),
        "effective": lambda r: (r.effective,),
        "recalled": lambda r: (
            0 if r.memory.access_count > 0 else 1,
            -r.memory.last_accessed.timestamp(),
        ),
        "recalls": lambda r: (-r.memory.access_count,),
    }
    chosen.sort(key=lambda r: (keys[sort](r), r.memory.id))
    return [r.memory.id for r in chosen]


def _page_of(everything: list[str], page: int, size: int = 50) -> tuple[list[str], int, int]:
    """The ids of page ``page`` (clamped), how many match, how many pages."""
    pages = max(1, -(-len(everything) // size))
    page = min(max(1, page), pages)
    return everything[(page - 1) * size : page * size], len(everything), pages


def _same(got: MemoryPage, want: tuple[list[str], int, int]) -> None:
    assert [r.memory.id for r in got.rows] == want[0]
    assert (got.matched, got.pages) == want[1:]


@pytest.mark.parametrize("engine", ["edge", "local"])
def test_every_page_agrees_with_reading_every_memory(tmp_path: Path, engine: str) -> None:
    """Every sort, filter, search and state, read every way, by page number and by cursor."""
    fresh = PraxMemory(MemoryConfig(data_dir=tmp_path / "data", vector_engine=engine))  # type: ignore[arg-type]
    try:
        _pages_agree(fresh, engine)
    finally:
        fresh.close()


#: The read each sort takes besides the scan (the "due" state: the index read).
_WAYS = {
    "newest": "engine",
    "oldest": "engine",
    "importance": "engine",
    "effective": "index",
    "recalled": "index",
    "recalls": "index",
}


def _pages_agree(fresh: PraxMemory, engine: str) -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    now = datetime(2026, 3, 1, tzinfo=UTC)
    ids = fresh.remember_many(
        "carol",
        [
            {
                "content": f"Carol note number {i}" + (" about Rust" if i % 4 == 0 else ""),
                "importance": (i % 10) / 10 + 0.01,
                "tags": ["even" if i % 2 == 0 else "odd"],
                "source": "import" if i % 3 == 0 else "conversation",
                # every creation time shared by three memories: ties at every page's edge
                "created_at": (t0 + timedelta(hours=i // 3)).isoformat(),
            }
            for i in range(130)
        ],
    )
    fresh.remember_many(  # case folding beyond ASCII: what casefold() matches, the index does
        "carol",
        [
            {"content": c, "created_at": (t0 + timedelta(hours=1)).isoformat()}
            for c in ("Carol's STRASSE note", "Carol: die Straße", "ΣΊΣΥΦΟΣ, Carol's note", "RuSt")
        ],
    )
    fresh.vectors.reinforce(  # some recalled (ties in last recall and count, too)
        "carol", ids[5:40:3], now=t0 + timedelta(days=20)
    )
    fresh.vectors.reinforce("carol", ids[5:20:3], now=t0 + timedelta(days=30))
    fresh.flush()
    total = fresh.count("carol")
    halflife = fresh.config.decay_halflife_days
    rows = [memory_row(m, now, halflife) for m in fresh.list_memories("carol", limit=10_000)]
    cases: list[dict[str, str]] = [
        {},
        {"tag": "odd"},
        {"source": "import", "tag": "even"},
        {"q": "RUST note"},
        {"q": "nothing-like-this"},
        {"q": "Strasse", "tag": "odd"},
        {"q": "strasse"},
        {"q": "σίσυφος note"},
        {"q": "rust", "state": "due"},
        *({"state": s} for s in STATES),
    ]
    if engine == "local":  # pure Python, slow: the same reads on fewer cases
        cases = [{}, {"source": "import", "tag": "even"}, {"q": "RUST note"}, {"state": "due"}]
    for sort in SORTS:
        for kwargs in cases:
            everything = _reference(rows, sort=sort, **kwargs)
            ways = ["scan", "auto"]
            if "q" not in kwargs and engine == "edge":
                ways.append("index" if kwargs.get("state") == "due" else _WAYS[sort])
                if kwargs.get("state") == "due" and _WAYS[sort] == "engine":
                    ways.append("engine")  # the engine's filter of "due" (inspector/_due.py)
            elif engine == "edge":  # a search: the engine's keyword index, either way
                ways.append("index")
                if _WAYS[sort] == "engine":
                    ways.append("engine")
            for how in ways:
                try:
                    for page in (1, 2, 3, 9):
                        want = _page_of(everything, page)
                        got = memory_page(
                            fresh, "carol", sort=sort, page=page, now=now, how=how, **kwargs
                        )
                        _same(got, want)
                        assert got.total == total and got.page == min(page, want[2])
                        if how not in ("scan", "auto"):
                            assert got.how == how
                    if engine == "edge" or how == "auto":  # local mode is slow: one walk
                        _cursors_walk(fresh, everything, sort, how, now, kwargs)
                except BackendUnavailable:  # pragma: no cover - reported by the assertion
                    pytest.fail(f"{sort} {kwargs} could not be read as {how!r}")
    if engine == "edge":
        top = memory_page(fresh, "carol", sort="importance")
        assert top.how == "engine"
        assert [r.memory.importance for r in top.rows] == sorted(
            (r.memory.importance for r in top.rows), reverse=True
        )
        assert memory_page(fresh, "nobody-here", sort="newest").rows == []
    with pytest.raises(MemoryValidationError, match="unknown sort"):
        memory_page(fresh, "carol", sort="nope")
    with pytest.raises(MemoryValidationError, match="unknown state"):
        memory_page(fresh, "carol", state="nope")
    with pytest.raises(MemoryValidationError, match="not a cursor"):
        memory_page(fresh, "carol", sort="recalled", after="1.0,abc")


def _cursors_walk(
    mem: PraxMemory,
    everything: list[str],
    sort: str,
    how: str,
    now: datetime,
    kwargs: dict[str, str],
) -> None:
    """Next links (``after=``) walk every memory once, in order; previous links walk back."""
    seen: list[str] = []
    got = memory_page(mem, "carol", sort=sort, now=now, how=how, page_size=17, **kwargs)
    seen += [r.memory.id for r in got.rows]
    while got.last is not None and got.start + len(got.rows) < got.matched:
        after = got.last.text()
        got = memory_page(
            mem, "carol", sort=sort, now=now, how=how, after=after, page_size=17, **kwargs
        )
        assert got.start == len(seen)
        seen += [r.memory.id for r in got.rows]
    assert seen == everything
    back = [r.memory.id for r in got.rows]
    while got.first is not None and got.start > 0:
        before = got.first.text()
        got = memory_page(
            mem, "carol", sort=sort, now=now, how=how, before=before, page_size=17, **kwargs
        )
        back = [r.memory.id for r in got.rows if r.memory.id not in back] + back
    assert back == everything


def test_the_cli_serves_only_the_named_user(
    shared: PraxMemory, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import uvicorn

    from langgraph_prax_memory.cli import main

    seen: dict[str, object] = {}

    def serve(self: uvicorn.Server, sockets: list[object]) -> None:  # the real app, no loop
        seen["app"] = self.config.app
        seen["host"] = sockets[0].getsockname()[0]  # type: ignore[attr-defined]

    monkeypatch.setattr(uvicorn.Server, "run", serve)
    assert main(["inspect", "-u", "alice"], memory=shared) == 0
    assert seen["host"] == "127.0.0.1"
    url = capsys.readouterr().out.strip()
    token = re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=(\S{32})", url)
    assert token, url
    c = TestClient(seen["app"], base_url="http://127.0.0.1")  # type: ignore[arg-type]
    assert c.get("/memories", params={"user": "bob"}).status_code == 403  # no token
    ok = {"token": token.group(1)}
    assert c.get("/memories", params={**ok, "user": "bob"}).status_code == 404
    assert c.get("/memories", params={**ok, "user": "alice"}).status_code == 200
    assert main(["inspect", "--only-user", "a\x00b"], memory=shared) == 1
