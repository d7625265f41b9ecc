"""Unclear errors made clear (issue 12, point 11).

Every bad environment value and every backend error reaches the user as a
``PraxMemoryError`` subclass naming the setting or backend; unknown keys are errors; the tools
turn a disk that refuses a file into a message for the model; ``doctor`` reports a failing
check instead of aborting. Real components throughout; faults are injected only where a real
one cannot be made here (a read-only or full disk, as root).
"""

from __future__ import annotations

import errno
import json
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import requests
from langchain_core.embeddings import Embeddings

from langgraph_prax_memory import (
    ConfigError,
    MemoryConfig,
    MemoryValidationError,
    PraxMemory,
    PraxMemoryError,
)
from langgraph_prax_memory.cli import EXIT_BACKEND, main
from langgraph_prax_memory.config import RetrievalConfig
from langgraph_prax_memory.errors import EmbeddingError
from langgraph_prax_memory.graph.neo4j import Neo4jGraphStore
from langgraph_prax_memory.tools import create_memory_tools
from tests.fakes import HashEmbeddings

SURROGATE = "\ud800"


def _closed_port() -> int:
    """A local port nothing listens on (connections to it are refused at once)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


# ------------------------------------------------------------------ lone surrogates


@pytest.mark.parametrize(
    ("what", "call"),
    [
        ("content", lambda m: m.remember("alice", f"likes tea {SURROGATE}")),
        ("user_id", lambda m: m.remember(f"alice{SURROGATE}", "likes tea")),
        ("key", lambda m: m.remember("alice", "likes tea", key=f"k{SURROGATE}")),
        ("a tag", lambda m: m.remember("alice", "likes tea", tags=[f"t{SURROGATE}"])),
        ("source", lambda m: m.remember("alice", "likes tea", source=f"s{SURROGATE}")),
        (
            "context",
            lambda m: m.remember_many("alice", [{"content": "yes", "context": SURROGATE + "?"}]),
        ),
        ("query", lambda m: m.recall("alice", f"tea {SURROGATE}")),
        ("content", lambda m: m.stm.write("alice", "goal", f"ship {SURROGATE}")),
        ("key", lambda m: m.stm.write("alice", f"goal{SURROGATE}", "ship it")),
        ("user_id", lambda m: m.stm.write(f"alice{SURROGATE}", "goal", "ship it")),
        ("entity name", lambda m: m.graph.merge_entity("alice", f"Bob{SURROGATE}")),
        (
            "event description",
            lambda m: m.graph.merge_temporal_event("alice", f"moved {SURROGATE}"),
        ),
        (
            "document text",
            lambda m: m.knowledge.ingest_document("alice", f"Qubits {SURROGATE} entangle."),
        ),
        (
            "document title",
            lambda m: m.knowledge.ingest_document("alice", "Qubits.", title=f"Q{SURROGATE}"),
        ),
    ],
)
def test_lone_surrogates_are_refused_before_any_backend(
    memory: PraxMemory, what: str, call: Callable[[PraxMemory], Any]
) -> None:
    with pytest.raises(MemoryValidationError, match=f"{what} contains a lone surrogate"):
        call(memory)
    assert memory.count("alice") == 0
    assert memory.stm.all("alice") == []
    assert memory.graph.stats("alice").entities == 0


def test_a_tool_reports_a_lone_surrogate_to_the_model(memory: PraxMemory) -> None:
    tools = {t.name: t for t in create_memory_tools(memory, user_id="alice")}
    text = tools["memory_remember"].invoke({"content": f"likes tea {SURROGATE}"})
    assert "lone surrogate" in text and "position 10" in text
    text = tools["memory_stm_write"].invoke({"key": "k", "content": SURROGATE})
    assert "lone surrogate" in text
    assert memory.count("alice") == 0 and memory.stm.all("alice") == []


def test_real_supplementary_characters_are_fine(memory: PraxMemory) -> None:
    memory_id = memory.remember("alice", "Alice's favourite emoji is 🎻 (U+1F3BB)")
    hit = memory.get("alice", memory_id)
    assert hit is not None and "🎻" in hit.content


# ---------------------------------------------------------- a disk that says no


def _tools(memory: PraxMemory) -> dict[str, Any]:
    return {t.name: t for t in create_memory_tools(memory, user_id="alice")}


def test_tools_turn_a_blocked_data_directory_into_a_message(memory: PraxMemory) -> None:
    # a real OSError (ENOTDIR): a file sits where the users' folders go
    memory.config.users_dir.parent.mkdir(parents=True, exist_ok=True)
    memory.config.users_dir.write_text("not a folder")
    tools = _tools(memory)
    for name, args in [
        ("memory_stm_write", {"key": "goal", "content": "ship"}),
        ("memory_stm_read", {}),
        ("memory_stm_delete", {"key": "goal"}),
        ("user_notes_read", {}),
        ("user_notes_update", {"content": "timezone: UTC"}),
        ("memory_stats", {}),
    ]:
        text = tools[name].invoke(args)
        assert isinstance(text, str), name
        assert "Not a directory" in text, (name, text)
        assert str(memory.config.users_dir) in text, (name, text)


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        (errno.EROFS, "Read-only file system"),
        (errno.EACCES, "Permission denied"),
        (errno.ENOSPC, "No space left on device"),
    ],
)
def test_tools_report_a_read_only_or_full_disk(
    memory: PraxMemory, monkeypatch: pytest.MonkeyPatch, code: int, reason: str
) -> None:
    tools = _tools(memory)
    real_mkdir = Path.mkdir

    def refuse(self: Path, *args: Any, **kwargs: Any) -> None:
        if self.is_relative_to(memory.config.users_dir):  # fault injection: the disk says no
            raise OSError(code, reason, str(self))
        real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", refuse)
    text = tools["memory_stm_write"].invoke({"key": "goal", "content": "ship the CLI"})
    assert isinstance(text, str) and reason in text and "stm.json" in text
    text = tools["user_notes_update"].invoke({"content": "timezone: UTC"})
    assert isinstance(text, str) and reason in text

    def unreadable(self: Path, *args: Any, **kwargs: Any) -> str:
        raise PermissionError(errno.EACCES, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_text", unreadable)
    text = tools["user_notes_read"].invoke({})
    assert "EACCES: Permission denied" in text and "MEMORY_DATA_DIR" in text


# --------------------------------------------------------------------- doctor


def test_doctor_reports_a_check_that_raises_anything(
    memory: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = memory.graph

    def broken(user_id: str) -> Any:  # fault injection: what NEO4J_URI=http://... used to do
        raise ModuleNotFoundError("No module named 'aiohttp'")

    monkeypatch.setattr(graph, "stats", broken)
    checks = {c.name: c for c in memory.doctor()}
    assert checks["graph"].status == "fail" and "aiohttp" in checks["graph"].detail
    assert checks["vectors"].status == "ok" and checks["stm"].status == "ok"


@pytest.mark.parametrize(
    ("env", "value"),
    [("QDRANT_URL", "not a url"), ("NEO4J_URI", "http://localhost:7474")],
)
def test_doctor_reports_a_bad_setting_as_its_failing_check(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    env: str,
    value: str,
) -> None:
    monkeypatch.setenv(env, value)
    code = main(["--data-dir", str(tmp_path), "doctor", "--json"])
    out = capsys.readouterr().out
    assert code == EXIT_BACKEND
    checks = json.loads(out)["checks"]
    assert [(c["name"], c["status"]) for c in checks] == [("config", "fail")]
    assert env in checks[0]["detail"] and "ConfigError" in checks[0]["detail"]


# -------------------------------------------------------------------- reembed


class _RequestsDown(Embeddings):
    """An embedding client built on requests whose server is down (fault injection)."""

    model_name = "requests-embedder"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise requests.ConnectionError("HTTPConnectionPool(host='embed', port=80): refused")

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def test_reembed_names_the_ollama_server_that_is_down(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    config = MemoryConfig(
        data_dir=tmp_path, qdrant_url=":memory:", embedding_provider="ollama", ollama_base_url=url
    )
    with PraxMemory(config) as mem:
        memory_id = mem.remember("alice", "Alice prefers dark mode")  # stored sparse-only
        assert mem.vectors.retrieve("alice", [memory_id])[0].payload["dense_pending"] is True
        with pytest.raises(EmbeddingError) as caught:
            mem.reembed("alice")
    message = str(caught.value)
    assert f"Ollama at {url}" in message and "nomic-embed-text" in message
    assert "0 of 1" in message and "ConnectError" in message


def test_reembed_wraps_a_requests_error(tmp_path: Path) -> None:
    config = MemoryConfig(data_dir=tmp_path, qdrant_url=":memory:")
    with PraxMemory(config, embeddings=_RequestsDown(), embedding_dimension=384) as mem:
        mem.remember("alice", "Alice prefers dark mode")
        with pytest.raises(EmbeddingError, match="requests-embedder failed: ConnectionError"):
            mem.reembed("alice")


def test_reembed_still_fills_in_vectors(tmp_path: Path) -> None:
    config = MemoryConfig(data_dir=tmp_path, qdrant_url=":memory:")
    with PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384) as mem:
        memory_id = mem.remember("alice", "Alice prefers dark mode")
        assert mem.reembed("alice", force=True) == 1
        assert mem.vectors.retrieve("alice", [memory_id])[0].payload["dense_pending"] is False


# ---------------------------------------------------------- environment values


@pytest.mark.parametrize(
    ("env", "value", "says"),
    [
        ("MEMORY_MODEL_ROUTING", "{not json", "not valid JSON"),
        ("MEMORY_MODEL_ROUTING", '["openai:gpt-4o-mini"]', "expected a JSON object"),
        ("MEMORY_MODEL_ROUTING", '{"consolidaton": "openai:gpt-4o-mini"}', "consolidaton"),
        (
            "MEMORY_MODEL_ROUTING",
            '{"consolidation": {"modle": "openai:gpt-4o-mini", "temperature": 0.1}}',
            "modle",
        ),
        ("MEMORY_RETRIEVAL", "{not json", "not valid JSON"),
        ("MEMORY_RETRIEVAL", '{"rrf": 30}', "rrf: unknown key"),
        ("MEMORY_RETRIEVAL", '{"weights": {"semntic": {"dense": 1.0}}}', "unknown intent"),
        ("MEMORY_RETRIEVAL", '{"weights": {"semantic": {"dens": 1.0}}}', "unknown arm 'dens'"),
        ("MEMORY_RETRIEVAL", '{"graph_timeout": 0}', "graph_timeout"),
        ("MEMORY_RETRIEVAL", '{"companion_cosine": 1.5}', "companion_cosine"),
        ("MEMORY_RETRIEVAL", '{"unrelated_cosine": 1.0}', "unrelated_cosine"),
        ("QDRANT_URL", "not a url", "not a Qdrant URL"),
        ("QDRANT_URL", "ftp://qdrant:6333", "scheme ftp://"),
        ("QDRANT_URL", "http://", "no valid host"),
        ("NEO4J_URI", "http://localhost:7474", "Bolt"),
        ("NEO4J_URI", "localhost:7687", "Bolt"),
        ("NEO4J_URI", "bolt://", "no valid host"),
        ("OLLAMA_BASE_URL", "localhost:11434", "http://"),
        ("OPENAI_BASE_URL", "not a url", "http://"),
        ("OPENAI_API_BASE", "http://bad host/v1", "host"),
    ],
)
def test_a_bad_environment_value_names_its_variable(
    monkeypatch: pytest.MonkeyPatch, env: str, value: str, says: str
) -> None:
    monkeypatch.setenv(env, value)
    with pytest.raises(ConfigError) as caught:
        MemoryConfig()
    message = str(caught.value)
    shown = "OPENAI_BASE_URL" if env == "OPENAI_API_BASE" else env  # the alias's main name
    assert shown in message and says in message, message


@pytest.mark.parametrize(
    ("env", "value"),
    [
        ("QDRANT_URL", "http://qdrant:6333"),
        ("QDRANT_URL", "https://abc-123.eu-central.aws.cloud.qdrant.io:6333"),
        ("QDRANT_URL", "localhost:6333"),
        ("QDRANT_URL", "http://[::1]:6333"),
        ("QDRANT_URL", ":memory:"),
        ("NEO4J_URI", "bolt://localhost:7687"),
        ("NEO4J_URI", "neo4j+s://abcd1234.databases.neo4j.io"),
        ("OLLAMA_BASE_URL", "http://ollama.internal:11434"),
        ("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1"),
        ("MEMORY_MODEL_ROUTING", '{"rerank": {"model": "openai:gpt-4o-mini", "temperature": 0}}'),
        ("MEMORY_RETRIEVAL", '{"rrf_k": 30, "weights": {"semantic": {"dense": 2.0}}}'),
    ],
)
def test_good_values_still_pass(monkeypatch: pytest.MonkeyPatch, env: str, value: str) -> None:
    monkeypatch.setenv(env, value)
    MemoryConfig()


def test_unknown_keys_in_code_are_config_errors() -> None:
    from langgraph_prax_memory.agents import ModelRoute, ModelRouting

    with pytest.raises(ConfigError, match=r"rrf: unknown key; choose from weights, .*rrf_k"):
        RetrievalConfig(rrf=30)  # type: ignore[call-arg]
    with pytest.raises(ConfigError, match="consolidaton: unknown key"):
        ModelRouting(consolidaton="openai:gpt-4o-mini")
    with pytest.raises(ConfigError, match="modle: unknown key; choose from model, temperature"):
        ModelRoute(modle="x", temperature=0.2)  # type: ignore[call-arg]
    with pytest.raises(ConfigError, match="MEMORY_RETRIEVAL"):
        MemoryConfig(retrieval={"weights": {"neutral": {"bm25": 1.0}}})


def test_weights_accept_exactly_the_intents_and_arms_recall_uses() -> None:
    from typing import get_args

    from langgraph_prax_memory import config
    from langgraph_prax_memory.retrieval._intent import ARMS, Intent

    assert get_args(Intent) == config._INTENTS
    assert config._ARMS == ARMS
    table = {intent: dict.fromkeys(ARMS, 1.0) for intent in get_args(Intent)}
    assert RetrievalConfig(weights=table).weights == table


@pytest.mark.filterwarnings("ignore:Failed to obtain server version")
def test_a_qdrant_url_that_passes_opens(tmp_path: Path) -> None:
    # nothing listens there: the error is Qdrant's BackendUnavailable from the first call,
    # not a parse error from building the client
    url = f"http://127.0.0.1:{_closed_port()}"
    with (
        PraxMemory(MemoryConfig(data_dir=tmp_path, qdrant_url=url)) as mem,
        pytest.raises(PraxMemoryError, match="Qdrant"),
    ):
        mem.count("alice")


def test_a_neo4j_store_refuses_an_http_uri_directly() -> None:
    with pytest.raises(ConfigError, match="NEO4J_URI 'http://localhost:7474'"):
        Neo4jGraphStore("http://localhost:7474")
