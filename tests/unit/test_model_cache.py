"""The model cache: one folder per machine, every pulled model verified before it is used.

Issue 40 items 1 and 4 (a swapped or edited model file, a deleted manifest) and issue 39
items 8 and 9 (a missing or misspelled model is an error when the memory is built, never an
offline hub wait or a silent fallback; one cache shared by every data folder). The test model
(``tests/unit/model_helpers.py``) is pulled for real from a Maven layout on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import platformdirs
import pytest

from langgraph_prax_memory import ConfigError, MemoryConfig, PraxMemory
from langgraph_prax_memory.cli import EXIT_BACKEND, EXIT_OK, main
from langgraph_prax_memory.embeddings import (
    LocalEmbeddings,
    _cache,
    _catalog,
    create_dense_embeddings,
    pull_model,
)
from langgraph_prax_memory.embeddings._cache import MANIFEST, verify_pulled
from langgraph_prax_memory.embeddings._catalog import LocalModelSpec, find_model
from langgraph_prax_memory.errors import ModelIntegrityError, ModelUnavailableError
from tests.unit.model_helpers import NAME, closed_port, leftovers, model_spec, publish, serve

BGE = find_model("bge-small-en-v1.5")
assert BGE is not None


@pytest.fixture
def spec(monkeypatch: pytest.MonkeyPatch) -> LocalModelSpec:
    """The test model, added to the catalog for this test (the CLI and config find it)."""
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
def cache(tmp_path: Path) -> Path:
    return Path(os.environ["MEMORY_MODELS_DIR"])


def _pulled(spec: LocalModelSpec, cache: Path, repo: str) -> Path:
    return pull_model(spec, cache, repository=repo)


# ------------------------------------------------------------------ verified when it is loaded


def test_a_model_file_changed_in_place_is_refused_when_loaded(
    spec: LocalModelSpec, cache: Path, repo: str
) -> None:
    folder = _pulled(spec, cache, repo)
    verify_pulled(folder, spec)  # as pulled: it verifies
    onnx = folder / spec.hub_file
    data = bytearray(onnx.read_bytes())
    data[10] ^= 0xFF  # same size, other weights
    stat = onnx.stat()
    onnx.write_bytes(bytes(data))
    os.utime(onnx, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # even with its time put back
    with pytest.raises(ModelIntegrityError) as caught:
        LocalEmbeddings(spec, cache).embed_query("which theme?")
    message = str(caught.value)
    assert str(onnx) in message and "SHA-256" in message
    assert f"prax-memory models pull {NAME} --force" in message


def test_an_edited_tokenizer_is_refused(spec: LocalModelSpec, cache: Path, repo: str) -> None:
    folder = _pulled(spec, cache, repo)
    tokenizer = folder / "tokenizer.json"
    tokenizer.write_text(tokenizer.read_text().replace("WordPiece", "BPE"))
    with pytest.raises(ModelIntegrityError, match=r"tokenizer\.json"):
        verify_pulled(folder, spec)


def test_an_added_file_fastembed_would_read_is_refused(
    spec: LocalModelSpec, cache: Path, repo: str
) -> None:
    folder = _pulled(spec, cache, repo)
    (folder / "config.json").write_text('{"pad_token_id": 7}')
    with pytest.raises(ModelIntegrityError, match=r"config\.json.*not part of the model"):
        verify_pulled(folder, spec)


def test_another_models_onnx_file_is_refused_when_the_memory_is_built(cache: Path) -> None:
    # what issue 40 did: bge's folder with e5's ONNX file (34,014,367 bytes, not bge's 34,014,426)
    assert BGE is not None and BGE.maven is not None
    folder = cache / BGE.name
    (folder / "onnx").mkdir(parents=True)
    with (folder / BGE.hub_file).open("wb") as fh:
        fh.truncate(34_014_367)
    (folder / "tokenizer.json").write_text("{}")
    (folder / MANIFEST).write_text(
        json.dumps({"name": BGE.name, "jar_sha256": BGE.maven.sha256, "onnx_sha256": "0" * 64})
    )
    start = time.perf_counter()
    with pytest.raises(ModelIntegrityError) as caught:
        create_dense_embeddings(MemoryConfig(embedding_model="bge-small-en-v1.5"))
    assert time.perf_counter() - start < 5
    message = str(caught.value)
    assert "model_quantized.onnx" in message and "34014367 bytes" in message
    assert "prax-memory models pull bge-small-en-v1.5 --force" in message


def test_a_deleted_manifest_means_the_model_does_not_load(
    spec: LocalModelSpec, cache: Path, repo: str
) -> None:
    folder = _pulled(spec, cache, repo)
    (folder / MANIFEST).unlink()
    with pytest.raises(ModelUnavailableError, match=rf"{NAME} is not pulled.*{MANIFEST}"):
        LocalEmbeddings(spec, cache).embed_query("which theme?")
    with pytest.raises(ModelUnavailableError, match=rf"prax-memory models pull {NAME}"):
        create_dense_embeddings(MemoryConfig(embedding_model=NAME))


def test_files_are_hashed_once_per_process(
    spec: LocalModelSpec, cache: Path, repo: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _pulled(spec, cache, repo)
    hashed: list[Path] = []
    real = _cache.file_sha256

    def counting(path: Path) -> str:
        hashed.append(path)
        return real(path)

    monkeypatch.setattr(_cache, "file_sha256", counting)
    for _ in range(3):  # the pull hashed them in this process: loading them costs a stat each
        verify_pulled(folder, spec)
    assert hashed == []
    config = folder / "tokenizer_config.json"
    pinned = config.read_text()
    config.write_text(pinned.replace(": 512,", ": 9999,"))
    for _ in range(2):
        with pytest.raises(ModelIntegrityError, match=r"tokenizer_config\.json"):
            verify_pulled(folder, spec)
    assert hashed == []  # another size: refused on its stat alone
    config.write_text(pinned.replace(": 512,", ": 513,"))  # the pinned size, other bytes
    with pytest.raises(ModelIntegrityError, match=r"tokenizer_config\.json.*SHA-256"):
        verify_pulled(folder, spec)
    assert hashed == [config]


# ------------------------------------------------------------------ missing or unknown: at build


def test_a_model_never_pulled_is_an_error_when_the_memory_is_built(cache: Path) -> None:
    start = time.perf_counter()
    with pytest.raises(ModelUnavailableError) as caught:
        PraxMemory(MemoryConfig(embedding_model="e5-small-v2"))
    assert time.perf_counter() - start < 5  # no hub, no retries
    message = str(caught.value)
    assert "e5-small-v2 is not pulled" in message and str(cache) in message
    assert "prax-memory models pull e5-small-v2" in message
    assert isinstance(caught.value, ConfigError)


def test_a_misspelled_model_is_an_error_never_a_fallback(tmp_path: Path) -> None:
    for name in ("../../etc", "bge-smal-en-v1.5"):
        with pytest.raises(ModelUnavailableError, match="unknown embedding model") as caught:
            PraxMemory(MemoryConfig(embedding_model=name))
        assert "bge-small-en-v1.5" in str(caught.value)  # what it could have been
        assert "prax-memory models list" in str(caught.value)


def test_a_hub_model_not_downloaded_is_an_error_without_waiting() -> None:
    start = time.perf_counter()
    with pytest.raises(ModelUnavailableError) as caught:
        create_dense_embeddings(MemoryConfig(embedding_model="snowflake/snowflake-arctic-embed-xs"))
    assert time.perf_counter() - start < 15  # fastembed's import, no download attempt
    assert "prax-memory models pull snowflake/snowflake-arctic-embed-xs" in str(caught.value)


def test_a_hub_model_of_another_width_is_refused_at_build() -> None:
    with pytest.raises(ConfigError, match=r"768.*384"):
        create_dense_embeddings(MemoryConfig(embedding_model="BAAI/bge-base-en-v1.5"))


def test_with_long_term_memory_off_the_model_is_not_needed(tmp_path: Path) -> None:
    memory = PraxMemory(MemoryConfig(enabled=False, embedding_model="e5-small-v2"))
    memory.stm.write("alice", "goal", "ship it")
    assert memory.stm.read("alice", "goal") is not None
    memory.close()


@pytest.mark.parametrize(
    ("name", "quick", "status", "says"),
    [
        ("e5-small-v2", False, "fail", "prax-memory models pull e5-small-v2"),
        ("e5-small-v2", True, "fail", "prax-memory models pull e5-small-v2"),
        ("../../etc", False, "fail", "unknown embedding model '../../etc'"),
        ("../../etc", True, "skip", "not checked (--quick)"),  # fastembed's list is not loaded
    ],
)
def test_doctor_reports_a_missing_or_unknown_model_as_a_failure(
    name: str,
    quick: bool,
    status: str,
    says: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("EMBEDDING_MODEL", name)
    code = main(["--json", "doctor", *(["--quick"] if quick else [])])
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert checks["embeddings"]["status"] == status, checks
    assert says in checks["embeddings"]["detail"]
    assert code == (EXIT_BACKEND if status == "fail" else EXIT_OK)


# ------------------------------------------------------------------ one cache per machine


def test_the_cache_is_the_users_cache_folder_unless_configured(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("MEMORY_MODELS_DIR")
    default = Path(platformdirs.user_cache_dir("langgraph-prax-memory")) / "models"
    assert MemoryConfig(data_dir=tmp_path / "a").models_dir == default
    assert MemoryConfig(data_dir=tmp_path / "b").models_dir == default
    monkeypatch.setenv("MEMORY_MODELS_DIR", str(tmp_path / "shared"))
    assert MemoryConfig().models_dir == tmp_path / "shared"
    assert MemoryConfig(models_dir=tmp_path / "own").models_dir == tmp_path / "own"


def test_a_model_pulled_once_serves_every_data_folder(
    spec: LocalModelSpec, repo: str, cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "project-a", tmp_path / "project-b"
    argv = ["models", "pull", NAME, "--repository", repo]
    assert main(["--data-dir", str(first), *argv]) == EXIT_OK
    capsys.readouterr()
    assert leftovers(cache) == [NAME]
    assert not (first / "models" / NAME).exists()
    assert main(["--data-dir", str(second), "--json", "models", "list"]) == EXIT_OK
    listed = json.loads(capsys.readouterr().out)
    assert listed["models_dir"] == str(cache)
    row = {r["name"]: r for r in listed["models"]}[NAME]
    assert (row["state"], row["path"]) == ("pulled", str(cache / NAME))
    dense = create_dense_embeddings(MemoryConfig(data_dir=second, embedding_model=NAME))
    assert isinstance(dense.primary, LocalEmbeddings) and dense.primary.source == "pulled"


def test_a_model_pulled_into_an_old_data_folder_is_still_found_and_adopted(
    spec: LocalModelSpec, repo: str, cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"  # MEMORY_DATA_DIR
    old = pull_model(spec, data / "models", repository=repo)  # where releases before kept it
    assert leftovers(cache) == []
    dense = create_dense_embeddings(MemoryConfig(embedding_model=NAME))
    assert isinstance(dense.primary, LocalEmbeddings) and dense.primary.source == "pulled"
    assert main(["--json", "models", "list"]) == EXIT_OK
    row = {r["name"]: r for r in json.loads(capsys.readouterr().out)["models"]}[NAME]
    assert (row["state"], row["path"]) == ("pulled", str(old))
    # the next pull copies it into the machine's cache, with the source down: nothing fetched
    down = f"http://127.0.0.1:{closed_port()}/maven2"
    assert main(["models", "pull", NAME, "--repository", down]) == EXIT_OK
    capsys.readouterr()
    verify_pulled(cache / NAME, spec)
    manifest = json.loads((cache / NAME / MANIFEST).read_text())
    assert manifest["source"] == f"copied from {old}"
    # a damaged old copy is never adopted: it is fetched instead (and fails with the source down)
    (old / "tokenizer.json").write_text("{}")
    (cache / NAME / MANIFEST).unlink()
    assert main(["models", "pull", NAME, "--repository", down]) == 1
    assert "cannot fetch" in capsys.readouterr().err


def test_a_hub_model_gone_after_the_build_is_an_error_not_a_stand_in() -> None:
    # long-term memory off: built without the model, as if its cache was emptied since
    config = MemoryConfig(embedding_model="snowflake/snowflake-arctic-embed-xs", enabled=False)
    dense = create_dense_embeddings(config)
    assert [type(f).__name__ for f in dense.fallbacks] == ["PackagedMiniLMEmbeddings"]
    start = time.perf_counter()
    with pytest.raises(ModelUnavailableError, match=r"models pull snowflake/snowflake-arctic"):
        dense.embed_documents(["Alice prefers dark mode"])
    assert time.perf_counter() - start < 15 and dense.last_model != "all-MiniLM-L6-v2-int8"
