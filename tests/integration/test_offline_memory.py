"""The real offline packaged model, Qdrant local mode on disk, and the CLI's main job."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryStore
from langgraph_prax_memory.embeddings import PackagedMiniLMEmbeddings

pytestmark = pytest.mark.integration


def test_packaged_model_embeds_meaningfully(tmp_path: Path) -> None:
    emb = PackagedMiniLMEmbeddings(tmp_path / "models")
    vecs = np.array(
        emb.embed_documents(
            [
                "I prefer dark mode in all my tools",
                "User likes dark themes",
                "Oslo is cold in winter",
            ]
        )
    )
    assert vecs.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-3)
    sims = vecs @ vecs.T
    assert sims[0, 1] > 0.4 > sims[0, 2]


def test_store_on_disk_reopen_and_recall(tmp_path: Path) -> None:
    cfg = MemoryConfig(data_dir=tmp_path / "data")
    with PraxMemory(cfg) as mem:
        mem.remember("alice", "Alice prefers polars over pandas for large datasets", importance=0.8)
        mem.remember("alice", "Alice is a data scientist at FinCorp", importance=0.8)
        mem.remember("bob", "Bob prefers pandas", importance=0.8)
    with PraxMemory(cfg) as mem:  # a new process would see the same
        hits = mem.recall("alice", "Which dataframe library should I use?", k=2)
        assert hits[0].memory.content.startswith("Alice prefers polars")
        assert all(h.memory.user_id == "alice" for h in hits)
        store = PraxMemoryStore(mem)
        found = store.search(("memories", "alice"), query="employer")
        assert found[0].value["content"] == "Alice is a data scientist at FinCorp"


def test_cli_demo_prints_recalled_memories_offline(tmp_path: Path) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "NO_PROXY": "*", "MEMORY_DATA_DIR": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "langgraph_prax_memory.cli", "demo", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["without_memory"] == ""
    assert out["with_memory"].startswith("## Relevant Memories\n- [conversation, ")
    contents = " ".join(h["memory"]["content"] for h in out["hits"])
    assert "MIT license" in contents or "NixOS" in contents
