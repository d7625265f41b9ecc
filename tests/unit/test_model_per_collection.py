"""One embedding model per collection: recorded when created, enforced when opened."""

from __future__ import annotations

from pathlib import Path

import pytest

from langgraph_prax_memory import ConfigError, MemoryConfig, PraxMemory
from langgraph_prax_memory.cli import main
from langgraph_prax_memory.migration import migrate_embeddings
from langgraph_prax_memory.vectors._model import MODEL_KEY
from tests.fakes import HashEmbeddings


class OtherEmbeddings(HashEmbeddings):
    """Another 384-d model (different weights: a different name and vectors)."""

    def __init__(self) -> None:
        super().__init__(384)
        self.model_name = "other-384"

    def _one(self, text: str) -> list[float]:
        return list(reversed(super()._one(text)))


def _mem(tmp_path: Path, emb: HashEmbeddings, engine: str) -> PraxMemory:
    cfg = MemoryConfig(data_dir=tmp_path / "data", vector_engine=engine)
    return PraxMemory(cfg, embeddings=emb, embedding_dimension=384)


@pytest.mark.parametrize("engine", ["edge", "local"])
def test_opening_a_collection_with_another_model_is_a_clear_error(
    tmp_path: Path, engine: str
) -> None:
    with _mem(tmp_path, HashEmbeddings(), engine) as mem:
        mem.remember("alice", "Alice prefers dark mode")
        assert mem.vectors.metadata()[MODEL_KEY]["name"] == "hash-384"
    with _mem(tmp_path, OtherEmbeddings(), engine) as mem:
        with pytest.raises(ConfigError, match=r"hash-384.*other-384.*reembed --model-change"):
            mem.remember("alice", "Alice drinks green tea")
        with pytest.raises(ConfigError, match="never mixed"):
            mem.recall("alice", "theme?")
    with _mem(tmp_path, HashEmbeddings(), engine) as mem:  # nothing was written meanwhile
        assert [m.content for m in mem.list_memories("alice")] == ["Alice prefers dark mode"]


def test_migrating_moves_every_user_to_the_new_model(tmp_path: Path) -> None:
    with _mem(tmp_path, HashEmbeddings(), "edge") as mem:
        mem.remember("alice", "Alice prefers dark mode")
        mem.remember("bob", "Bob plays the cello")
    with _mem(tmp_path, OtherEmbeddings(), "edge") as mem:
        assert migrate_embeddings(mem) == 2
        assert mem.recall("bob", "cello")[0].memory.content == "Bob plays the cello"
        assert {m.embedding_model for m in mem.list_memories("alice")} == {"other-384"}
    with (
        _mem(tmp_path, HashEmbeddings(), "edge") as mem,
        pytest.raises(ConfigError, match="other-384"),
    ):
        mem.count("alice")


def test_cli_reembed_model_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with _mem(tmp_path, HashEmbeddings(), "edge") as mem:
        mem.remember("alice", "Alice prefers dark mode")
    with _mem(tmp_path, OtherEmbeddings(), "edge") as mem:
        assert main(["--json", "reembed", "--model-change"], memory=mem) == 0
        assert '"reembedded": 1' in capsys.readouterr().out
        assert mem.vectors.metadata()[MODEL_KEY]["name"] == "other-384"


def test_a_collection_from_before_stamps_is_judged_by_its_points(tmp_path: Path) -> None:
    with _mem(tmp_path, HashEmbeddings(), "edge") as mem:
        mem.remember("alice", "Alice prefers dark mode")
        # what a collection written by an earlier version looks like: no recorded model
        mem.vectors.merge_metadata({MODEL_KEY: None})
    with (
        _mem(tmp_path, OtherEmbeddings(), "edge") as mem,
        pytest.raises(ConfigError, match="hash-384"),
    ):
        mem.count("alice")
    with _mem(tmp_path, HashEmbeddings(), "edge") as mem:
        assert mem.count("alice") == 1  # same model: adopted and recorded
        assert mem.vectors.metadata()[MODEL_KEY]["name"] == "hash-384"
