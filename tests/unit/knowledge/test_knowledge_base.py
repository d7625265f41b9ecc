"""KnowledgeBase over a real PraxMemory: ingestion, hybrid search, isolation from memory."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.runnables import RunnableLambda

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.errors import BackendUnavailable, MemoryValidationError
from langgraph_prax_memory.knowledge import (
    KNOWLEDGE_COLLECTION,
    ConceptExtraction,
    ConceptInput,
    KnowledgeBase,
    KnowledgeNotFound,
    LLMConceptExtractor,
)
from tests.fakes import HashEmbeddings

T0 = datetime(2026, 3, 1, tzinfo=UTC)

PAPER = """# Retrieval-Augmented Generation

Retrieval-Augmented Generation combines a Dense Passage Retriever with a BART generator.

## Dense Passage Retrieval

Dense Passage Retrieval is based on BERT. DPR outperforms BM25 on open-domain questions.

## Reciprocal Rank Fusion

Reciprocal Rank Fusion is a method that merges rankings. RRF uses the constant k = 60.
"""


def make_pdf(lines: list[str]) -> bytes:
    """A minimal valid one-page PDF whose content stream shows ``lines`` (Helvetica)."""
    text = (
        "BT /F1 12 Tf 72 720 Td 14 TL "
        + " ".join(
            "(" + ln.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ") Tj T*"
            for ln in lines
        )
        + " ET"
    )
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length "
        + str(len(text)).encode()
        + b" >>\nstream\n"
        + text.encode()
        + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


@pytest.fixture
def kb(memory: PraxMemory) -> Iterator[KnowledgeBase]:
    base = KnowledgeBase(memory)
    yield base
    base.close()


def test_ingest_markdown_extracts_merges_and_indexes(kb: KnowledgeBase) -> None:
    result = kb.ingest_document("alice", PAPER, namespace="papers", now=T0)
    assert not result.skipped and result.document is not None
    assert result.chunks == 3 and result.concepts >= 6 and result.relations >= 3
    assert result.indexed == result.concepts and result.index_error is None
    store = kb.store
    dpr = store.get_concept("alice", "papers", "Dense Passage Retrieval")
    assert dpr is not None and dpr.source_type == "markdown"
    assert dpr.description.startswith("Dense Passage Retrieval is based on BERT")
    rels = {(r.source, r.type, r.target) for r in store.get_relations("alice", "papers")}
    assert ("dense passage retrieval", "based_on", "bert") in rels
    assert ("dpr", "outperforms", "bm25") in rels
    assert ("dense passage retrieval", "part_of", "retrieval-augmented generation") in rels
    assert [d.id for d in store.concept_documents("alice", dpr.id)] == [result.document.id]
    assert kb.parts.ltm.vectors.client.count(KNOWLEDGE_COLLECTION).count == result.concepts


def test_reingesting_the_same_document_is_idempotent(kb: KnowledgeBase) -> None:
    first = kb.ingest_document("alice", PAPER, namespace="papers")
    before = kb.stats("alice")
    again = kb.ingest_document("alice", PAPER.replace("\n", "\r\n") + "  \n", namespace="papers")
    assert again.skipped and again.document == first.document
    assert kb.stats("alice") == before
    other_ns = kb.ingest_document("alice", PAPER, namespace="docs")
    assert not other_ns.skipped


def test_ingest_files_text_markdown_and_pdf(kb: KnowledgeBase, tmp_path: Path) -> None:
    md = tmp_path / "guide.md"
    md.write_text("# LangGraph Guide\n\nLangGraph uses a StateGraph of nodes.\n")
    txt = tmp_path / "notes.txt"
    txt.write_text("Qdrant stores vectors. The Qdrant engine uses HNSW graphs.\n")
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(make_pdf(["Generative Agents use a Memory Stream.", "Memory Stream (MS)."]))
    r_md = kb.ingest_document("alice", md, namespace="docs")
    r_txt = kb.ingest_document("alice", txt, namespace="docs")
    r_pdf = kb.ingest_document("alice", pdf, namespace="papers")
    assert r_md.document and r_md.document.source_type == "markdown"
    assert r_md.document.title == "LangGraph Guide"
    assert r_txt.document and r_txt.document.source_type == "text"
    assert r_pdf.document and r_pdf.document.source_type == "pdf"
    assert kb.store.get_concept("alice", "docs", "StateGraph") is not None
    assert kb.store.get_concept("alice", "docs", "HNSW") is not None
    memory_stream = kb.store.get_concept("alice", "papers", "Memory Stream")
    assert memory_stream is not None and memory_stream.source == str(pdf)
    with pytest.raises(MemoryValidationError):
        kb.ingest_document("alice", tmp_path / "missing.md")
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4 not really")
    with pytest.raises(MemoryValidationError):
        kb.ingest_document("alice", bad)


def test_llm_extractor_json_path_with_a_scripted_model(memory: PraxMemory) -> None:
    reply = """Here you go:
```json
{"concepts": [
  {"name": "Ebbinghaus Curve", "description": "Retention decays exponentially.",
   "kind": "theory", "importance": "0.9"},
  {"name": "MemoryBank", "importance": 7},
  {"name": ""}
 ],
 "relations": [{"source": "MemoryBank", "target": "Ebbinghaus Curve", "type": "Based On",
                "confidence": 0.8},]}
```"""
    model = FakeListChatModel(responses=[reply])
    kb = KnowledgeBase(memory, chat_model=model)
    result = kb.ingest_document("bob", "MemoryBank operationalised forgetting.", namespace="papers")
    assert result.concepts == 2 and result.relations == 1 and result.extractor_fallbacks == 0
    curve = kb.store.get_concept("bob", "papers", "ebbinghaus curve")
    assert curve is not None and curve.kind == "theory" and curve.importance == 0.9
    bank = kb.store.get_concept("bob", "papers", "memorybank")
    assert bank is not None and bank.importance == 0.7
    [rel] = kb.store.get_relations("bob", "papers")
    assert (rel.source, rel.type, rel.target) == ("memorybank", "based_on", "ebbinghaus curve")


class StructuredScriptedModel(FakeListChatModel):
    """A scripted chat model that supports structured output (returns the scripted objects)."""

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        outputs = iter(
            [
                schema(concepts=[{"name": "HippoRAG", "description": "PageRank over a KG"}]),
            ]
        )
        return RunnableLambda(lambda _messages: next(outputs))


def test_llm_extractor_structured_path(memory: PraxMemory) -> None:
    extractor = LLMConceptExtractor(StructuredScriptedModel(responses=["unused"]))
    assert extractor._structured_runnable is not None
    kb = KnowledgeBase(memory, extractor=extractor)
    kb.ingest_document("bob", "HippoRAG uses Personalized PageRank.", namespace="papers")
    assert kb.store.get_concept("bob", "papers", "HippoRAG") is not None


def test_llm_failure_falls_back_to_rule_based_per_chunk(memory: PraxMemory) -> None:
    kb = KnowledgeBase(memory, chat_model=FakeListChatModel(responses=["no json at all"]))
    result = kb.ingest_document("bob", "The Transformer uses Multi-Head Attention.", "papers")
    assert result.extractor_fallbacks == 1
    assert kb.store.get_concept("bob", "papers", "Multi-Head Attention") is not None


def test_two_hundred_concepts_never_reach_memory_recall_or_entity_lookup(
    kb: KnowledgeBase, memory: PraxMemory
) -> None:
    memory.remember("carol", "Carol's sister Alice lives in Oslo", importance=0.8)
    memory.graph.merge_entity("carol", "Alice", entity_type="person")
    names = [f"Attention Variant {i}" for i in range(200)]
    result = kb.store.write_batch(
        "carol",
        "papers",
        [
            ConceptInput(name=n, description=f"{n}: a paper concept about Alice and attention")
            for n in names
        ],
    )
    assert len(result.concepts) == 200
    assert kb._index("carol", result.concepts) == (200, None)
    assert kb.store.stats("carol").concepts == 200
    for query in ("attention variant", "What do I know about Alice?", "paper concept"):
        hits = memory.recall("carol", query, k=50)
        assert all("Attention Variant" not in h.memory.content for h in hits)
    assert memory.count("carol") == 1
    assert memory.graph.search_entities("carol", "attention", limit=100) == []
    assert memory.graph.get_entity("carol", "attention variant 7") is None
    assert [e.name for e in memory.graph.search_entities("carol", "alice")] == ["alice"]
    assert memory.graph.stats("carol").entities == 1
    assert len(kb.search("carol", "attention variant", k=50)) == 50


def test_hybrid_search_fuses_keyword_and_semantic_arms(kb: KnowledgeBase) -> None:
    kb.ingest_document("dan", PAPER, namespace="papers")
    result = kb.search_detailed("dan", "rank fusion method", k=5)
    assert result.arms == ["keyword", "semantic"] and not result.errors
    top = result.hits[0]
    assert top.concept.name == "reciprocal rank fusion"
    assert set(top.ranks) == {"keyword", "semantic"}
    scores = [h.score for h in result.hits]
    assert scores == sorted(scores, reverse=True)
    # A concept only the semantic arm can find (no shared substring) is hydrated from the graph.
    kb.store.merge_concept("dan", "papers", "Zeta", description="okapi weighting")
    kb.reindex_user_concepts("dan")
    vec_only = kb.search_detailed("dan", "okapi weightings", k=5)
    assert any(h.concept.name == "zeta" for h in vec_only.hits)
    assert kb.search("dan", "fusion", namespace="docs") == []


def test_keyword_only_when_vectors_are_disabled(memory: PraxMemory) -> None:
    kb = KnowledgeBase(memory, hybrid=False)
    kb.ingest_document("erin", PAPER, namespace="papers")
    assert kb.vectors is None
    result = kb.search_detailed("erin", "retrieval fusion", k=5)
    assert result.keyword_only and "semantic" in result.errors
    keyword = kb.store.keyword_search("erin", "retrieval fusion", limit=5)
    assert result.hits == keyword
    assert kb.reindex_user_concepts("erin") == 0


def test_keyword_only_when_qdrant_fails(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    kb.ingest_document("erin", PAPER, namespace="papers")
    assert kb.vectors is not None

    def down(*args: Any, **kwargs: Any) -> Any:
        raise BackendUnavailable("Qdrant is down")

    monkeypatch.setattr(kb.vectors.store, "search_hybrid", down)
    monkeypatch.setattr(kb.vectors.store, "upsert", down)
    result = kb.search_detailed("erin", "dense passage", k=4)
    assert result.arms == ["keyword"] and "Qdrant is down" in result.errors["semantic"]
    assert result.hits == kb.store.keyword_search("erin", "dense passage", limit=4)
    # Writes still land in the graph; the vector failure is reported, not raised.
    ingest = kb.ingest_document("erin", "# Late Interaction\nColBERT uses MaxSim.", "papers")
    assert (
        ingest.concepts > 0
        and ingest.indexed == 0
        and "Qdrant is down" in (ingest.index_error or "")
    )


def test_reindex_backfills_concepts_written_without_vectors(memory: PraxMemory) -> None:
    offline = KnowledgeBase(memory, hybrid=False)
    offline.ingest_document("fay", PAPER, namespace="papers")
    online = KnowledgeBase(memory)
    assert online.vectors is not None
    assert online.search_detailed("fay", "bm25", k=3).hits[0].ranks == {"keyword": 1}
    n = online.reindex_user_concepts("fay")
    assert n == online.stats("fay").concepts
    assert "semantic" in online.search_detailed("fay", "bm25", k=3).hits[0].ranks


def test_delete_namespace_drops_concepts_relations_and_vectors(kb: KnowledgeBase) -> None:
    kb.ingest_document("gus", PAPER, namespace="papers")
    kb.ingest_document("gus", "LangGraph uses StateGraph.", namespace="docs")
    kb.ingest_document("hal", PAPER, namespace="papers")
    client = kb.parts.ltm.vectors.client
    before = client.count(KNOWLEDGE_COLLECTION).count
    removed = kb.delete_namespace("gus", "papers")
    assert removed.concepts > 0 and removed.documents == 1
    assert [n.namespace for n in kb.namespaces("gus")] == ["docs"]
    assert client.count(KNOWLEDGE_COLLECTION).count == before - removed.concepts
    assert {h.concept.namespace for h in kb.search("gus", "dense passage retrieval")} == {"docs"}
    assert kb.search("hal", "dense passage retrieval")[0].concept.name == "dense passage retrieval"


def test_connect_and_join_across_namespaces(kb: KnowledgeBase, memory: PraxMemory) -> None:
    memory.graph.merge_entity("ivy", "Project Alpha", entity_type="project")
    kb.ingest_document("ivy", PAPER, namespace="papers")
    assert kb.connect("ivy", "papers", "Reciprocal Rank Fusion", "Project Alpha") is True
    joined = kb.knowledge_for_entities("ivy", ["project alpha"])
    assert [c.name for c in joined] == ["reciprocal rank fusion"]
    ent_id = memory.graph.entity_ids_for("ivy", ["Project Alpha"])["Project Alpha"]
    assert kb.connect("ivy", "papers", "RRF", ent_id) is True
    assert len(kb.knowledge_for_entities("ivy", [ent_id])) == 2
    with pytest.raises(KnowledgeNotFound):
        kb.connect("ivy", "papers", "RRF", "Nobody")
    deleted = kb.delete_user("ivy")
    assert deleted.entity_links == 2
    assert memory.graph.get_entity("ivy", "project alpha") is not None


def test_requires_a_user_and_valid_arguments(kb: KnowledgeBase) -> None:
    with pytest.raises(MemoryValidationError):
        kb.ingest_document("", "text")
    with pytest.raises(MemoryValidationError):
        kb.search(None, "x")  # type: ignore[arg-type]
    with pytest.raises(MemoryValidationError):
        kb.search("u", "x", k=0)
    with pytest.raises(MemoryValidationError):
        kb.ingest_document("u", "text", namespace="Bad Namespace")


def test_memory_disabled_gives_keyword_only(tmp_path: Path) -> None:
    mem = PraxMemory(
        MemoryConfig(qdrant_url=":memory:", data_dir=tmp_path, enabled=False),
        embeddings=HashEmbeddings(),
        embedding_dimension=384,
    )
    try:
        kb = KnowledgeBase(mem)
        assert kb.vectors is None
        kb.ingest_document("u", "The Transformer uses Multi-Head Attention.", "papers")
        assert kb.search_detailed("u", "attention").keyword_only
    finally:
        mem.close()


def test_extraction_result_model_is_reusable() -> None:
    out = ConceptExtraction.model_validate({"concepts": [{"name": "A", "importance": 3}]})
    assert out.concepts[0].importance == 0.3
