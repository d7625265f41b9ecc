"""The LangGraph server recipe (examples/server): the store loaded the way langgraph-api loads
it, and a real ``langgraph dev`` server driven through ``langgraph_sdk``: the store, its auth,
and a run of the example agent answering with the offline ``EchoChatModel``.

Both run in subprocesses: langgraph-api reads its configuration from the environment at
import time, and the server must own the embedded data folder while it runs. The server runs
as the docs say it runs offline: no API key of any provider in its environment, and every
outbound HTTP(S) request sent to a proxy that does not exist (only 127.0.0.1 is reachable).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "examples" / "server"
BIN = Path(sys.executable).parent


def _server_env(data_dir: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LANGSMITH", "LANGCHAIN", "PRAX_AGENT_MODEL"))
        and not k.endswith("_API_KEY")
        and k.lower() not in {"http_proxy", "https_proxy", "all_proxy", "no_proxy"}
    }
    dead = f"http://127.0.0.1:{_free_port()}"  # nothing listens: any request out fails
    env.update(
        MEMORY_DATA_DIR=str(data_dir),
        HTTP_PROXY=dead,
        HTTPS_PROXY=dead,
        ALL_PROXY=dead,
        NO_PROXY="127.0.0.1,localhost",
        HF_HUB_OFFLINE="1",
        LANGSMITH_TRACING="false",
        LANGGRAPH_CLI_NO_ANALYTICS="1",
        PYTHONPATH=str(ROOT),
    )
    return env


def test_generate_store_through_langgraph_apis_own_loader(tmp_path: Path) -> None:
    # langgraph-api's store module, configured as `langgraph dev` configures it from
    # langgraph.json: collect_store_from_env → get_store (enters the context manager) →
    # exit_store (leaves it).
    script = textwrap.dedent(
        """
        import asyncio, json
        from langgraph_api import store as api_store

        async def main():
            await api_store.collect_store_from_env()
            store = await api_store.get_store()
            out = {"type": type(store).__name__}
            await store.aput(("memories", "alice"), "tea", {"content": "Alice drinks green tea"})
            await store.aput(("memories", "bob"), "pin", {"content": "Bob hides his PIN"})
            out["namespaces"] = sorted(await store.alist_namespaces())
            hits = await store.asearch(("memories", "alice"), query="PIN")
            out["alice_search"] = [h.key for h in hits]
            # above the user label: the shared tenant's items only, never a user's
            above = await store.asearch(("memories",), query="PIN")
            out["above_user_search"] = [list(h.namespace) for h in above]
            await api_store.exit_store()
            print(json.dumps(out))

        asyncio.run(main())
        """
    )
    env = _server_env(tmp_path / "data")
    config = json.loads((SERVER / "langgraph.json").read_text())
    env.update(
        REDIS_URI="fake",
        DATABASE_URI=":memory:",
        MIGRATIONS_PATH="__inmem",
        LANGGRAPH_STORE=json.dumps(config["store"]),
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=_recipe_copy(tmp_path),
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["type"] == "PraxMemoryStore"
    assert out["namespaces"] == [["memories", "alice"], ["memories", "bob"]]
    assert out["alice_search"] == ["tea"]
    assert out["above_user_search"] == []
    # the server left the data folder free: a new memory opens it and finds what was put
    from langgraph_prax_memory import PraxMemoryStore

    with PraxMemoryStore.from_data_dir(tmp_path / "data") as store:
        item = store.get(("memories", "bob"), "pin")
        assert item is not None and item.value["content"] == "Bob hides his PIN"


def _recipe_copy(tmp_path: Path) -> Path:
    """A copy of examples/server to run in: the server writes its own state (.langgraph_api/)
    into its working folder, which must not be the repository."""
    target = tmp_path / "server"
    if not target.exists():
        shutil.copytree(SERVER, target, ignore=shutil.ignore_patterns(".langgraph_api"))
    return target


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _langgraph_dev(tmp_path: Path, **extra_env: str) -> Iterator[str]:
    """``langgraph dev`` on a free port, in a copy of the recipe; its URL while it runs."""
    port = _free_port()
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen(
        [
            str(BIN / "langgraph"),
            "dev",
            "--no-browser",
            "--no-reload",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        cwd=_recipe_copy(tmp_path),
        env={**_server_env(tmp_path / "data"), **extra_env},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 240
        while True:
            if proc.poll() is not None:
                log.flush()
                pytest.fail(
                    "langgraph dev exited:\n" + (tmp_path / "server.log").read_text()[-4000:]
                )
            try:
                if httpx.get(f"{url}/ok", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("langgraph dev did not answer within 240 s")
            time.sleep(1)
        yield url
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
        log.close()


@pytest.fixture
def dev_server(tmp_path: Path) -> Iterator[str]:
    with _langgraph_dev(tmp_path) as url:
        yield url


def test_langgraph_dev_serves_the_store_to_the_sdk(dev_server: str) -> None:
    from langgraph_sdk import get_sync_client
    from langgraph_sdk.errors import APIStatusError

    def client(token: str) -> Any:
        return get_sync_client(url=dev_server, headers={"Authorization": f"Bearer {token}"})

    alice = client("token-alice").store
    admin = client("token-admin").store
    alice.put_item(["memories", "alice"], "tea", {"content": "Alice drinks green tea"})
    alice.put_item(["memories", "alice"], "oslo", {"content": "Alice lives in Oslo"})
    admin.put_item(["memories", "admin"], "note", {"content": "The admin's own memory"})

    item = alice.get_item(["memories", "alice"], "tea")
    assert item["value"]["content"] == "Alice drinks green tea"
    found = alice.search_items(["memories", "alice"], query="What does Alice drink?", limit=1)
    assert [i["key"] for i in found["items"]] == ["tea"]
    assert alice.list_namespaces(prefix=["memories", "alice"])["namespaces"] == [
        ["memories", "alice"]
    ]
    # Studio's memory browser: the administrator lists every user's namespaces ...
    listed = admin.list_namespaces()["namespaces"]
    assert ["memories", "alice"] in listed and ["memories", "admin"] in listed
    # ... but reads only their own content; Alice can neither list nor read others'
    for call in (
        lambda: admin.get_item(["memories", "alice"], "tea"),
        lambda: admin.search_items(["memories", "alice"], query="tea"),
        lambda: alice.get_item(["memories", "admin"], "note"),
        lambda: alice.search_items(["memories"], query="memory"),
        lambda: alice.list_namespaces(),
        lambda: alice.put_item(["memories", "admin"], "x", {"content": "planted"}),
        lambda: client("token-nobody").store.get_item(["memories", "alice"], "tea"),
    ):
        with pytest.raises(APIStatusError) as refused:
            call()
        assert refused.value.status_code in (401, 403)
    assert admin.get_item(["memories", "admin"], "x") is None, "nothing was planted"

    alice.delete_item(["memories", "alice"], "oslo")
    assert alice.get_item(["memories", "alice"], "oslo") is None


def test_a_run_of_the_example_agent_answers_offline_from_the_callers_memory(
    dev_server: str,
) -> None:
    from langgraph_sdk import get_sync_client
    from langgraph_sdk.errors import APIStatusError

    def client(token: str) -> Any:
        return get_sync_client(url=dev_server, headers={"Authorization": f"Bearer {token}"})

    alice, admin = client("token-alice"), client("token-admin")
    alice.store.put_item(["memories", "alice"], "tea", {"content": "Alice drinks green tea"})
    admin.store.put_item(["memories", "admin"], "pin", {"content": "The admin's PIN is 4711"})
    question = {"messages": [{"role": "user", "content": "What do I drink?"}]}

    thread = alice.threads.create()
    state = alice.runs.wait(thread["thread_id"], "agent", input=question)
    answer = state["messages"][-1]
    assert answer["type"] == "ai"
    # the offline model answers with what the memory gave it: Alice's memory, never the admin's
    assert answer["content"].startswith('You asked: "What do I drink?".'), answer
    assert "Alice drinks green tea" in answer["content"]
    assert "4711" not in answer["content"]
    # a stateless run answers too, and the admin's run sees the admin's memory only
    other = admin.runs.wait(
        None, "agent", input={"messages": [{"role": "user", "content": "What is my PIN?"}]}
    )
    assert "4711" in other["messages"][-1]["content"]
    assert "green tea" not in other["messages"][-1]["content"]
    # the store's auth still holds after runs: Alice cannot read the admin's memory
    with pytest.raises(APIStatusError) as refused:
        alice.store.get_item(["memories", "admin"], "pin")
    assert refused.value.status_code == 403


def _client_snippet() -> str:
    """The README's client block (examples/server/README.md), as a reader copies it."""
    text = (SERVER / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.M | re.S)
    assert len(blocks) == 1, "the README has one Python block: the client"
    return blocks[0]


def test_the_readmes_client_snippet_runs_to_its_end(dev_server: str) -> None:
    """Copied as is (only the port changed), it prints the answer and the refusal: no
    traceback."""
    code = _client_snippet()
    assert "http://127.0.0.1:2024" in code
    done = subprocess.run(
        [sys.executable, "-c", code.replace("http://127.0.0.1:2024", dev_server)],
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    out = done.stdout.splitlines()
    assert out[0].startswith('You asked: "What do I drink?".') and "green tea" in out[0]
    assert out[-1] == "refused: 403"


def test_the_server_serves_the_inspector_over_its_own_memory(tmp_path: Path) -> None:
    """``PRAX_INSPECTOR_PORT``: the pages of a running server's memory, from its own process;
    the server keeps answering runs from that memory while they are read."""
    from langgraph_sdk import get_sync_client

    with _langgraph_dev(tmp_path, PRAX_INSPECTOR_PORT="0") as url:
        alice = get_sync_client(url=url, headers={"Authorization": "Bearer token-alice"})
        alice.store.put_item(["memories", "alice"], "tea", {"content": "Alice drinks green tea"})
        said = (tmp_path / "server.log").read_text()
        found = re.search(r"prax-memory inspector: (http://127\.0\.0\.1:\d+/\?token=\S+)", said)
        assert found, said[-3000:]
        page = found.group(1)
        base, token = page.split("/?token=")
        users = httpx.get(page, timeout=30)
        assert users.status_code == 200 and 'data-user="alice"' in users.text
        listed = httpx.get(f"{base}/memories", params={"token": token, "user": "alice"}, timeout=30)
        assert "Alice drinks green tea" in listed.text
        asked = {"token": token, "user": "alice", "q": "What do I drink?"}
        played = httpx.get(f"{base}/playground", params=asked, timeout=60)
        assert played.status_code == 200 and "green tea" in played.text
        assert httpx.get(base + "/", timeout=30).status_code == 403  # the token still needed
        question = {"messages": [{"role": "user", "content": "What do I drink?"}]}
        state = alice.runs.wait(None, "agent", input=question)
        assert "Alice drinks green tea" in state["messages"][-1]["content"]
