"""Inspecting a running agent: the inspector served from the agent's own process.

Two processes, as a person debugging a live agent has them: the agent (a real
``PraxMemory`` on the embedded store, recalling, building its context block and writing in a
loop, with ``inspector.serve(memory)`` started beside it) and this test, reading the pages
over HTTP while the agent works, then trying ``prax-memory inspect`` on the same folder.
The agent must never get ``StoreLockedError`` and its context block must never lose its
long-term memories (the warning that says so is counted).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.integration

AGENT = textwrap.dedent(
    """
    import json, logging, sys, threading, time
    from langgraph_prax_memory import MemoryConfig, PraxMemory, build_memory_context
    from langgraph_prax_memory.inspector import serve

    warnings = []

    class Count(logging.Handler):
        def emit(self, record):
            warnings.append(record.getMessage())

    logging.getLogger("langgraph_prax_memory").addHandler(Count(level=logging.WARNING))
    memory = PraxMemory(MemoryConfig(data_dir=sys.argv[1]))
    memory.remember("alice", "Alice prefers dark mode in every editor", importance=0.8,
                    tags=["preference"])
    inspector = serve(memory)
    print(inspector.url, flush=True)
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()
    turns, errors, without = 0, [], 0
    while not stop.is_set():
        try:
            hits = memory.recall("alice", "which theme does Alice like?", k=3)
            block = build_memory_context(memory, "alice", "which theme does Alice like?")
            if not hits or "dark mode" not in block:
                without += 1
            if turns % 5 == 0:
                memory.remember("alice", f"Alice wrote agent note number {turns}")
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
        turns += 1
        time.sleep(0.05)
    inspector.close()
    memory.close()
    print(json.dumps({"turns": turns, "errors": errors, "without": without,
                      "warnings": warnings}), flush=True)
    """
)


def test_a_running_agent_is_inspected_from_its_own_process(tmp_path: Path) -> None:
    data = tmp_path / "data"
    script = tmp_path / "agent.py"
    script.write_text(AGENT, encoding="utf-8")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    agent = subprocess.Popen(
        [sys.executable, str(script), str(data)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert agent.stdout is not None and agent.stdin is not None
        url = agent.stdout.readline().strip()
        found = re.fullmatch(r"(http://127\.0\.0\.1:\d+)/\?token=([A-Za-z0-9_-]{32})", url)
        assert found, (url, agent.stderr.read() if agent.poll() is not None else "")
        base, token = found.groups()

        def get(path: str, **params: str) -> httpx.Response:
            return httpx.get(f"{base}{path}", params={"token": token, **params}, timeout=30)

        assert 'data-user="alice"' in get("/").text
        # the agent keeps writing: a memory it stored after the page was first read shows
        first = get("/memories", user="alice").text
        assert "Alice prefers dark mode" in first
        deadline = time.monotonic() + 60
        notes: set[str] = set()
        while len(notes) < 3:
            assert time.monotonic() < deadline, "the agent's new memories never showed"
            text = get("/memories", user="alice").text
            notes = set(re.findall(r"agent note number \d+", text))
            time.sleep(0.3)
        played = get("/playground", user="alice", q="which theme does Alice like?").text
        assert '<pre id="context">' in played and "dark mode" in played
        assert 'data-tier="standing fact"' in played or 'data-tier="relevant"' in played
        assert get("/static/inspector.css").status_code == 200
        assert get("/", token="").status_code == 403  # still behind the token
        # a second process on the same folder does not take the store from the agent
        cli = subprocess.run(
            [sys.executable, "-m", "langgraph_prax_memory.cli", "inspect", "--data-dir", str(data)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert cli.returncode == 3, cli.stderr
        said = " ".join(cli.stderr.split())
        assert "open in another process" in said
        assert "serve(memory)" in said and "Inspect a running agent" in said
        assert cli.stdout == ""  # no URL: nothing was served
        time.sleep(1.0)  # the agent keeps working after the refused second process
        assert "agent note number" in get("/memories", user="alice").text
    finally:
        if agent.poll() is None and agent.stdin is not None:
            agent.stdin.write("stop\n")
            agent.stdin.flush()
        out, err = agent.communicate(timeout=120)
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["turns"] >= 20, (summary, err)
    assert summary["errors"] == [], summary["errors"]
    assert summary["without"] == 0, "the context block lost its long-term memory"
    assert not [w for w in summary["warnings"] if "long-term" in w], summary["warnings"]


def test_serve_refuses_a_port_it_cannot_bind(tmp_path: Path) -> None:
    import socket

    from langgraph_prax_memory import MemoryConfig, PraxMemory
    from langgraph_prax_memory.errors import MemoryValidationError
    from langgraph_prax_memory.inspector import serve

    with socket.socket() as taken, PraxMemory(MemoryConfig(data_dir=tmp_path / "d")) as memory:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(MemoryValidationError, match=r"cannot listen on 127\.0\.0\.1"):
            serve(memory, port=port)
        with serve(memory) as running:
            assert running.url.startswith("http://127.0.0.1:")
            assert httpx.get(running.url, timeout=30).status_code == 200
            assert httpx.get(running.url.split("?")[0], timeout=30).status_code == 403
