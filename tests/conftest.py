from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from tests.fakes import HashEmbeddings


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the developer's memory settings or data directory."""
    for name in (
        "MEMORY_ENABLED",
        "QDRANT_URL",
        "NEO4J_URI",
        "EMBEDDING_PROVIDER",
        "EMBEDDING_MODEL",
        "MEMORY_DATA_DIR",
        "MEMORY_STM_MAX_ENTRIES",
        "MEMORY_DECAY_HALFLIFE_DAYS",
        "MEMORY_COLLECTION",
        "MEMORY_VECTOR_ENGINE",
        "QDRANT_CONNECT_TIMEOUT",
        "QDRANT_READ_TIMEOUT",
        "NEO4J_CONNECT_TIMEOUT",
        "NEO4J_MAX_RETRY_TIME",
        "MEMORY_BREAKER_FAILURES",
        "MEMORY_BREAKER_COOLDOWN",
        "KNOWLEDGE_HYBRID_ENABLED",
        "MEMORY_MODEL_ROUTING",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MEMORY_DATA_DIR", str(tmp_path / "data"))


@pytest.fixture
def config(tmp_path: Path) -> MemoryConfig:
    return MemoryConfig(qdrant_url=":memory:", data_dir=tmp_path / "data")


@pytest.fixture
def memory(config: MemoryConfig) -> Iterator[PraxMemory]:
    # Hash embeddings have no semantic cosine, so the relevance floor (a cosine calibrated
    # for the packaged MiniLM model) is off here; tests/integration/test_one_ranker.py and
    # benchmarks/personal_memory.py test it with the real model.
    floor_off = config.retrieval.model_copy(update={"relevance_floor": False})
    config = config.model_copy(update={"retrieval": floor_off})
    mem = PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384)
    yield mem
    mem.close()
