"""Issue 26 items 1 and 3: ``KNOWLEDGE_HYBRID_ENABLED`` is honoured; relations keep evidence.

A real :class:`PraxMemory` (embedded Qdrant, the packaged embedding model); only the concept
extractor's chat model is scripted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.errors import ConfigError
from langgraph_prax_memory.knowledge import (
    KNOWLEDGE_COLLECTION,
    KnowledgeBase,
    LLMConceptExtractor,
)
from langgraph_prax_memory.knowledge._async import AsyncKnowledgeBase
from tests.scripted import ScriptedChatModel

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


# ----------------------------------------------------------------------------- item 3

NOTE = (
    "MemoryBank operationalised forgetting. MemoryBank builds on the Ebbinghaus Curve, "
    "which says retention decays exponentially."
)
QUOTE = "MemoryBank builds on the Ebbinghaus Curve"


def test_a_relation_keeps_the_evidence_the_model_gave(memory: PraxMemory) -> None:
    reply = json.dumps(
        {
            "concepts": [{"name": "MemoryBank"}, {"name": "Ebbinghaus Curve"}],
            "relations": [
                {
                    "source": "MemoryBank",
                    "target": "Ebbinghaus Curve",
                    "type": "based_on",
                    "confidence": 0.9,
                    "evidence": QUOTE,
                },
                {"source": "Ebbinghaus Curve", "target": "MemoryBank", "type": "related_to"},
            ],
        }
    )
    model = ScriptedChatModel(script=[AIMessage(reply)])
    kb = KnowledgeBase(memory, extractor=LLMConceptExtractor(model, structured=False))
    result = kb.ingest_document("cy", NOTE, namespace="papers", title="Forgetting notes")
    assert result.relations == 2 and result.extractor_fallbacks == 0
    rels = {(r.source, r.type): r for r in kb.store.get_relations("cy", "papers")}
    assert rels[("memorybank", "based_on")].evidence == QUOTE
    # a relation the model gave no evidence for keeps the document as its provenance
    assert rels[("ebbinghaus curve", "related_to")].evidence == "Forgetting notes"
    # the prompt asks for the evidence, so a model knows to give it
    assert "evidence" in str(model.received[0][0].content)


def test_evidence_of_the_same_relation_from_two_documents_is_appended(
    memory: PraxMemory,
) -> None:
    def reply(evidence: str) -> AIMessage:
        return AIMessage(
            json.dumps(
                {
                    "concepts": [{"name": "MemoryBank"}, {"name": "Ebbinghaus Curve"}],
                    "relations": [
                        {
                            "source": "MemoryBank",
                            "target": "Ebbinghaus Curve",
                            "type": "based_on",
                            "evidence": evidence,
                        }
                    ],
                }
            )
        )

    model = ScriptedChatModel(script=[reply(QUOTE), reply("MemoryBank uses the curve")])
    kb = KnowledgeBase(memory, extractor=LLMConceptExtractor(model, structured=False))
    kb.ingest_document("cy", NOTE, namespace="papers", title="Doc A")
    kb.ingest_document("cy", "MemoryBank uses the curve to forget.", "papers", title="Doc B")
    [rel] = kb.store.get_relations("cy", "papers")
    assert rel.evidence == f"{QUOTE}; MemoryBank uses the curve"


def test_the_rule_based_extractor_gives_the_sentence_as_evidence(memory: PraxMemory) -> None:
    kb = KnowledgeBase(memory)
    kb.ingest_document("di", "# Retrieval\n\nDPR outperforms BM25 on open questions.", "papers")
    rels = {(r.source, r.type, r.target): r for r in kb.store.get_relations("di", "papers")}
    outperforms = rels[("dpr", "outperforms", "bm25")]
    assert outperforms.evidence == "DPR outperforms BM25 on open questions."
