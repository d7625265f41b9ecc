"""Issue 26 items 1 and 3: ``KNOWLEDGE_HYBRID_ENABLED`` is honoured; relations keep evidence.

A real :class:`PraxMemory` (embedded Qdrant, the packaged embedding model); only the concept
extractor's chat model is scripted.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.errors import ConfigError
from langgraph_prax_memory.knowledge import (
    KNOWLEDGE_COLLECTION,
    KnowledgeBase,
)
from langgraph_prax_memory.knowledge._async import AsyncKnowledgeBase

PAPER = """# Rank Fusion

Reciprocal Rank Fusion merges the rankings of BM25 and a Dense Retriever.
"""


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[PraxMemory]:
    mem = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir=tmp_path / "data"))
    yield mem
    mem.close()


# ----------------------------------------------------------------------------- item 1


@pytest.mark.parametrize("raw", ["false", "0", "off", "FALSE"])
def test_knowledge_hybrid_enabled_false_turns_the_semantic_arm_off(
    raw: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KNOWLEDGE_HYBRID_ENABLED", raw)
    config = MemoryConfig(qdrant_url=":memory:", data_dir=tmp_path / "data")
    assert config.knowledge_hybrid_enabled is False
    mem = PraxMemory(config)
    try:
        kb = KnowledgeBase(mem)
        assert kb.vectors is None
        ingest = kb.ingest_document("ann", PAPER, namespace="papers")
        assert ingest.concepts > 0 and ingest.indexed == 0
        result = kb.search_detailed("ann", "rank fusion", k=5)
        assert result.arms == ["keyword"] and result.keyword_only
        assert result.hits == kb.store.keyword_search("ann", "rank fusion", limit=5)
        # nothing was written to the concept collection
        assert not mem.vectors.client.collection_exists(KNOWLEDGE_COLLECTION)
        # the async face reads the same setting
        assert AsyncKnowledgeBase(mem).sync.vectors is None
        # an explicit argument still wins over the setting
        assert KnowledgeBase(mem, hybrid=True).vectors is not None
    finally:
        mem.close()


def test_knowledge_hybrid_is_on_by_default_and_settable_in_code(
    memory: PraxMemory, tmp_path: Path
) -> None:
    assert memory.config.knowledge_hybrid_enabled is True
    kb = KnowledgeBase(memory)
    assert kb.vectors is not None
    kb.ingest_document("bo", PAPER, namespace="papers")
    assert kb.search_detailed("bo", "rank fusion", k=5).arms == ["keyword", "semantic"]
    off = MemoryConfig(
        qdrant_url=":memory:", data_dir=tmp_path / "off", knowledge_hybrid_enabled=False
    )
    assert off.knowledge_hybrid_enabled is False


def test_a_bad_knowledge_hybrid_value_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KNOWLEDGE_HYBRID_ENABLED", "sometimes")
    with pytest.raises(ConfigError, match="KNOWLEDGE_HYBRID_ENABLED"):
        MemoryConfig(qdrant_url=":memory:", data_dir=tmp_path / "data")
