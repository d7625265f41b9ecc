"""The OpenAI embedding provider against a local OpenAI-compatible server (issue 12, point 12).

The server is a real HTTP server on 127.0.0.1 (stdlib ``http.server`` in a thread) answering
``/v1/embeddings`` with OpenAI's JSON shape; the machine is "offline" for tiktoken: its
vocabulary cannot be fetched (fault injection), so any attempt to tokenize fails the test.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import tiktoken

from langgraph_prax_memory import AsyncPraxMemory, ConfigError, MemoryConfig, PraxMemory
from langgraph_prax_memory.embeddings import create_dense_embeddings
from tests.fakes import HashEmbeddings

WIDTH = 1536  # the width of EMBEDDING_PROVIDER=openai
MODEL = "local-embedder"


class _FakeOpenAI(ThreadingHTTPServer):
    """An OpenAI-compatible embeddings endpoint: hashed bag-of-words vectors of ``WIDTH``."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict[str, Any]] = []
        self.headers_seen: list[dict[str, str]] = []
        self.vectors = HashEmbeddings(WIDTH)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: _FakeOpenAI

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def _reply(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path != "/v1/embeddings":
            self._reply(404, {"error": {"message": f"no route {self.path}"}})
            return
        self.server.requests.append(body)
        self.server.headers_seen.append({k.lower(): v for k, v in self.headers.items()})
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        if not all(isinstance(t, str) for t in texts):  # token ids: this server wants text
            self._reply(400, {"error": {"message": "input must be strings"}})
            return
        data = [
            {"object": "embedding", "index": i, "embedding": self.server.vectors.embed_query(t)}
            for i, t in enumerate(texts)
        ]
        usage = {"prompt_tokens": len(texts), "total_tokens": len(texts)}
        self._reply(200, {"object": "list", "data": data, "model": body["model"], "usage": usage})


@pytest.fixture
def server() -> Iterator[_FakeOpenAI]:
    srv = _FakeOpenAI()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(timeout=10)


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No OpenAI settings from the developer's shell, no proxy, and no tiktoken download."""
    for name in ("OPENAI_API_KEY", "OPENAI_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")

    def offline(*args: object, **kwargs: object) -> None:
        raise ConnectionError("offline: tiktoken cannot download its vocabulary file")

    monkeypatch.setattr(tiktoken, "get_encoding", offline)
    monkeypatch.setattr(tiktoken, "encoding_for_model", offline)


def test_memory_is_stored_with_a_dense_vector_from_a_local_endpoint_and_recalled(
    server: _FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EMBEDDING_PROVIDER", "openai")
    monkeypatch.setenv("EMBEDDING_MODEL", MODEL)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    config = MemoryConfig(data_dir=tmp_path, qdrant_url=":memory:")
    assert config.openai_base_url == server.base_url
    with PraxMemory(config) as mem:
        memory_id = mem.remember("alice", "Alice prefers dark mode in every editor")
        stored = mem.get("alice", memory_id)
        assert stored is not None
        point = mem.vectors.retrieve("alice", [memory_id])[0]
        assert point.payload["dense_pending"] is False  # not the sparse-only fallback
        assert point.payload["embedding_model"] == MODEL
        mem.remember("alice", "Bob keeps a vegetable garden behind the house")

        result = mem.recall_detailed("alice", "which theme does Alice like in editors?", k=1)
        assert result.errors == {}
        assert [h.memory.id for h in result.hits] == [memory_id]
        assert "dense" in result.hits[0].ranks  # found by the dense arm too

    assert server.requests, "the local server was never called"
    first = server.requests[0]
    assert first["model"] == MODEL
    assert first["input"] == ["Alice prefers dark mode in every editor"]  # text, not tokens
    assert first["encoding_format"] == "float"


def test_base_url_as_a_field_sends_the_configured_key(server: _FakeOpenAI, tmp_path: Path) -> None:
    config = MemoryConfig(
        data_dir=tmp_path,
        qdrant_url=":memory:",
        embedding_provider="openai",
        embedding_model=MODEL,
        openai_base_url=server.base_url,
        openai_api_key="sk-local",
    )
    emb = create_dense_embeddings(config)
    assert emb.dimension == WIDTH and emb.fallbacks == []
    assert emb.embed_query("dark mode") == server.vectors.embed_query("dark mode")
    assert server.headers_seen[-1]["authorization"] == "Bearer sk-local"


async def test_async_memory_uses_the_local_endpoint_without_a_key(
    server: _FakeOpenAI, tmp_path: Path
) -> None:
    config = MemoryConfig(  # no OPENAI_API_KEY: a local server needs none
        data_dir=tmp_path,
        qdrant_url=":memory:",
        embedding_provider="openai",
        embedding_model=MODEL,
        openai_base_url=server.base_url,
    )
    async with AsyncPraxMemory(config) as mem:
        memory_id = await mem.remember("bob", "Bob plays the cello on Sundays")
        vectors = await mem.sync.embeddings.aembed_documents(["cello on Sundays"])
        assert vectors == [server.vectors.embed_query("cello on Sundays")]
        hits = await mem.recall("bob", "cello", k=1)
        assert [h.memory.id for h in hits] == [memory_id]


def test_a_bad_base_url_names_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "localhost:8000/v1")
    with pytest.raises(ConfigError, match="OPENAI_BASE_URL"):
        MemoryConfig()
