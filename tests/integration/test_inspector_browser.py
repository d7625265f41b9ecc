"""The inspector in a real browser: Debian's Chromium, headless, driven by Playwright.

The session finds Chromium on the machine, or installs it with apt-get when it runs as root
(Playwright's own browser download is never used); a browser that cannot be had fails the
tests, naming what is missing and how to provide it (tests/chromium.py).
The servers are real uvicorn servers on 127.0.0.1 over a real memory (embedded Qdrant, the
packaged model, SQLite graph, git notes), started by the tests.

``PRAX_INSPECTOR_SCREENSHOTS=DIR`` saves a screenshot of each page there (docs/img/ holds the
ones docs/inspector.md shows).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.context import build_memory_context
from langgraph_prax_memory.inspector import create_app
from tests.chromium import chromium

pytestmark = pytest.mark.integration

TOKEN = "browser-" + "k" * 30
PAGES = ["memories", "playground", "graph", "consolidation", "forget"]
QUESTION = "Can you help me set up a new Rust project?"


@pytest.fixture(scope="session")
def chromium_path(request: pytest.FixtureRequest) -> str:
    """The machine's Chromium, installed first when the session can (tests/chromium.py)."""
    return chromium(request.config)


@pytest.fixture(scope="module")  # its event loop must end with this module
def browser(chromium_path: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


@dataclass
class Watched:
    """A page with every console error, page error and failed response it saw."""

    page: Any
    problems: list[str] = field(default_factory=list)

    def goto(self, url: str) -> Any:
        return self.page.goto(url)


@pytest.fixture
def page(browser: Any) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    p = context.new_page()
    watched = Watched(p)
    p.on(
        "console",
        lambda m: (
            watched.problems.append(f"console {m.type}: {m.text}")
            if m.type in ("error", "warning")
            else None
        ),
    )
    p.on("pageerror", lambda e: watched.problems.append(f"page error: {e}"))
    p.on(
        "response",
        lambda r: watched.problems.append(f"{r.status} {r.url}") if r.status >= 400 else None,
    )
    yield watched
    context.close()


def seed(mem: PraxMemory) -> None:
    """The demo's facts plus a graph, a superseded fact, pending review and another user."""
    from langgraph_prax_memory.cli._memories import DEMO_FACTS, DEMO_USER

    for content, importance, tags in DEMO_FACTS:
        mem.remember(DEMO_USER, content, importance=importance, tags=tags.split(","))
    old = datetime.now(UTC) - timedelta(days=200)
    mem.remember(DEMO_USER, "User used Vim before Helix.", importance=0.3, created_at=old)
    g = mem.graph
    g.merge_entity(DEMO_USER, "User", entity_type="person", importance=0.9)
    for name, kind in (
        ("Rust", "topic"),
        ("Python", "topic"),
        ("Helix", "tool"),
        ("Vim", "tool"),
        ("NixOS", "tool"),
        ("FinCorp", "organization"),
        ("Fraud detection", "project"),
    ):
        g.merge_entity(DEMO_USER, name, entity_type=kind, importance=0.6)
    g.add_relation(DEMO_USER, "User", "Rust", "prefers", evidence="prefers Rust for systems")
    g.add_relation(DEMO_USER, "User", "Python", "prefers", evidence="Python for scripts")
    g.add_relation(DEMO_USER, "User", "Vim", "prefers", valid_from=old)
    g.supersede_relation(DEMO_USER, "User", "Vim", "prefers")
    g.add_relation(DEMO_USER, "User", "Helix", "prefers")
    g.add_relation(DEMO_USER, "User", "NixOS", "interested_in")
    g.add_relation(DEMO_USER, "User", "Fraud detection", "works_on")
    g.add_relation(DEMO_USER, "Fraud detection", "FinCorp", "part_of")
    g.merge_temporal_event(
        DEMO_USER, "User switched from Vim to Helix", participants=["User", "Helix", "Vim"]
    )
    g.add_causal_link(DEMO_USER, "fraud model retrained", "false positives dropped")
    mem.stm.add_pending_review(DEMO_USER, "User may be moving to Berlin", tags=["consolidation"])
    mem.notes.update(DEMO_USER, "- Prefers short answers\n- Uses Rust for systems work\n")
    mem.remember("other-user", "Other user's secret codename is Bluebird")
    mem.graph.merge_entity("other-user", "Bluebird", entity_type="project")


@dataclass
class Served:
    base: str
    mem: PraxMemory

    def url(self, path: str, token: str | None = TOKEN, **params: str) -> str:
        from urllib.parse import urlencode

        query = {**({"token": token} if token else {}), **params}
        return f"{self.base}{path}?{urlencode(query)}"


def _serve(mem: PraxMemory, **kwargs: Any) -> Iterator[Served]:
    import uvicorn

    app = create_app(mem, token=TOKEN, **kwargs)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the inspector did not start"
        time.sleep(0.05)
    try:
        yield Served(f"http://127.0.0.1:{sock.getsockname()[1]}", mem)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path_factory.mktemp("browser") / "data"))
    seed(mem)
    yield mem
    mem.close()


@pytest.fixture(scope="module")
def readonly(seeded: PraxMemory) -> Iterator[Served]:
    yield from _serve(seeded)


@pytest.fixture
def changeable(tmp_path: Path) -> Iterator[Served]:
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path / "data"))
    seed(mem)
    try:
        yield from _serve(mem, allow_changes=True)
    finally:
        mem.close()


def _shot(page: Any, name: str) -> None:
    folder = os.environ.get("PRAX_INSPECTOR_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"inspector-{name}.png"), full_page=False)


def test_each_page_loads_with_no_console_error(readonly: Served, page: Watched) -> None:
    resp = page.goto(readonly.url("/"))
    assert resp.status == 200
    assert page.page.locator("tr[data-user='demo-user']").count() == 1
    _shot(page.page, "users")
    # follow the links a person would click, from the users page
    page.page.click("tr[data-user='demo-user'] a")
    assert "Memories of demo-user" in page.page.inner_text("h1")
    assert page.page.locator("tr.memory").count() == 7
    assert page.page.locator("tr.memory.current").count() == 7
    _shot(page.page, "memories")
    for name, label in (
        ("playground", "Recall playground"),
        ("graph", "Graph"),
        ("consolidation", "Consolidation"),
        ("forget", "Forget user"),
    ):
        page.page.click(f"nav a:text-is('{label}')")
        page.page.wait_for_load_state()
        assert name in page.page.url
        assert page.page.locator("main h1").count() == 1
        if name == "graph":
            assert page.page.locator("svg.graph-svg g.node").count() == 8
            assert page.page.locator("svg.graph-svg g.edge.superseded").count() == 1
        _shot(page.page, name)
    assert page.problems == []
    # the stylesheet (a token-guarded static file) was applied
    color = page.page.evaluate("getComputedStyle(document.querySelector('header')).backgroundColor")
    assert color == "rgb(29, 35, 48)"


def test_the_playground_matches_recall_and_the_context_block(
    readonly: Served, page: Watched
) -> None:
    page.goto(readonly.url("/playground", user="demo-user"))
    page.page.fill("#question", QUESTION)
    page.page.fill("input[name=k]", "4")
    page.page.click("#ask")
    page.page.wait_for_selector("ol.hits")
    shown = page.page.eval_on_selector_all("li.hit", "els => els.map(e => e.dataset.id)")
    mem = readonly.mem
    want = [h.memory.id for h in mem.recall("demo-user", QUESTION, k=4, reinforce=False)]
    assert shown == want and len(shown) == 4
    context = page.page.inner_text("#context")
    expected = build_memory_context(mem, "demo-user", QUESTION, k=4)
    assert context.strip() == expected.strip()
    assert "Rust" in context
    _shot(page.page, "playground")
    assert page.problems == []


def test_a_request_without_the_token_is_refused(readonly: Served, page: Watched) -> None:
    for path in ("/", "/memories", "/static/inspector.css"):
        resp = page.goto(readonly.url(path, token=None, user="demo-user"))
        assert resp.status == 403
        assert "token" in page.page.inner_text("body")
        assert "Rust" not in page.page.content()
    resp = page.goto(readonly.url("/", token="browser-" + "x" * 30))
    assert resp.status == 403


def test_another_users_data_is_unreachable_by_editing_the_url(
    seeded: PraxMemory, page: Watched
) -> None:
    for served in _serve(seeded, users=["demo-user"]):
        page.goto(served.url("/"))
        assert "other-user" not in page.page.content()
        for name in PAGES:
            resp = page.goto(served.url(f"/{name}", user="other-user", q="secret codename"))
            assert resp.status == 404, name
            assert "Bluebird" not in page.page.content()
        resp = page.goto(served.url("/memories", user="demo-user", q="secret codename"))
        assert resp.status == 200 and "Bluebird" not in page.page.content()


def test_read_only_refuses_a_post_even_with_the_token(readonly: Served, page: Watched) -> None:
    page.goto(readonly.url("/consolidation", user="demo-user"))
    assert page.page.locator("button[value=approve]").count() == 0
    status = _post_form(
        page.page,
        "/review",
        {"token": TOKEN, "user": "demo-user", "key": "x", "decision": "reject"},
    )
    assert status == 403
    assert len(readonly.mem.stm.list_pending_review("demo-user")) == 1


def test_changes_need_allow_changes_a_post_and_the_token(changeable: Served, page: Watched) -> None:
    mem = changeable.mem
    page.goto(changeable.url("/consolidation", user="demo-user"))
    # a GET to the change route is not a change
    assert page.goto(changeable.url("/review", user="demo-user")).status == 405
    page.goto(changeable.url("/consolidation", user="demo-user"))
    # the same POST without the token in the form is refused
    status = _post_form(
        page.page,
        "/review?token=" + TOKEN,
        {"user": "demo-user", "key": "x", "decision": "reject"},
    )
    assert status == 403
    page.goto(changeable.url("/consolidation", user="demo-user"))
    _shot(page.page, "consolidation-changes")
    page.page.click("button[value=approve]")
    page.page.wait_for_selector("#notice")
    assert "approved" in page.page.inner_text("#notice")
    assert mem.stm.list_pending_review("demo-user") == []
    assert any(m.source == "review" for m in mem.list_memories("demo-user", limit=100))
    page.goto(changeable.url("/forget", user="demo-user"))
    page.page.fill("#confirm", "demo-use")
    page.page.click("#forget")
    assert "nothing was deleted" in page.page.inner_text("#notice")
    assert mem.count("demo-user") == 8
    page.page.fill("#confirm", "demo-user")
    page.page.click("#forget")
    page.page.wait_for_selector("dl.facts")
    assert "was forgotten" in page.page.inner_text("#notice")
    _shot(page.page, "forget-receipt")
    assert mem.count("demo-user") == 0
    assert mem.count("other-user") == 1
    # the refusals above (405, 403) and the wrong confirmation (400) are expected (the
    # browser logs each refused load); nothing else went wrong
    expected = re.compile(r"^(40[035] |console error: .* status of 40[035] )")
    assert [p for p in page.problems if not expected.search(p)] == []


def test_prax_memory_inspect_on_the_demo_folder(
    tmp_path: Path, page: Watched, browser: Any
) -> None:
    data = tmp_path / "demo"
    cli = [sys.executable, "-m", "langgraph_prax_memory.cli"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    done = subprocess.run(
        [*cli, "demo", "--data-dir", str(data)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    proc = subprocess.Popen(
        [*cli, "inspect", "--data-dir", str(data)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        match = re.fullmatch(r"http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]{32})", line)
        assert match, (line, proc.stderr.read() if proc.poll() is not None else "")
        port = int(match.group(1))
        # bound to the loopback only (read from the kernel's socket table, no traffic sent)
        assert _listening_addresses(port) == {"127.0.0.1"}
        deadline = time.monotonic() + 60
        while True:
            try:
                resp = page.goto(line)
                break
            except Exception:
                assert time.monotonic() < deadline
                time.sleep(0.3)
        assert resp.status == 200
        page.page.click("tr[data-user='demo-user'] a")
        assert page.page.locator("tr.memory").count() == 6
        page.page.click("nav a:text-is('Recall playground')")
        page.page.fill("#question", QUESTION)
        page.page.click("#ask")
        page.page.wait_for_selector("li.hit")
        assert "Rust" in page.page.inner_text("#context")
        bare = page.goto(line.split("?")[0])
        assert bare.status == 403
        assert page.problems[0] == "403 " + line.split("?")[0]
        assert all("403" in p for p in page.problems)  # and the browser's log of it
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _post_form(page: Any, action: str, fields: dict[str, str]) -> int:
    """Submit a form the page did not have (as a hostile page or a hand-edit would)."""
    page.evaluate(
        """([action, fields]) => {
            const form = document.createElement('form');
            form.method = 'post';
            form.action = action;
            for (const [name, value] of Object.entries(fields)) {
                const input = document.createElement('input');
                input.type = 'hidden'; input.name = name; input.value = value;
                form.appendChild(input);
            }
            document.body.appendChild(form);
        }""",
        [action, fields],
    )
    with page.expect_navigation() as nav:
        page.evaluate("document.forms[document.forms.length - 1].submit()")
    return int(nav.value.status)


def _listening_addresses(port: int) -> set[str]:
    """The IPv4/IPv6 addresses a socket listens on at ``port`` (from /proc/net/tcp*)."""
    found: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            addr, hex_port = local.split(":")
            if state != "0A" or int(hex_port, 16) != port:
                continue
            if len(addr) == 8:
                found.add(socket.inet_ntoa(bytes.fromhex(addr)[::-1]))
            else:
                found.add(addr)
    return found
