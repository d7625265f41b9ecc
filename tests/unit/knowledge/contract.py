"""The KnowledgeStore contract: one suite, run against every backend.

Subclass :class:`KnowledgeStoreContract` and provide ``graph`` (the memory graph store) and
``kstore`` (the knowledge store sharing its backend). Every test uses fresh uuid user ids and
deletes them afterwards, so a shared Neo4j server is fine.
SQLite runs it in ``tests/unit/knowledge``; the real Neo4j server in
``tests/integration/knowledge``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.knowledge import (
    ConceptInput,
    DocumentInput,
    KnowledgeNotFound,
    KnowledgeStore,
    RelationInput,
    concept_id,
)

T0 = datetime(2026, 2, 1, 12, 0, tzinfo=UTC)

HOSTILE = [
    'O\'Brien "quoted" `tick`',
    "x})-[:X]->(y DETACH DELETE n //",
    "'); DROP TABLE knowledge_concepts; --",
    "{$user_id} ${name} %s :name ?",
    "Müller Łódź 東京 🦜🔗",
]


class KnowledgeStoreContract:
    """Behaviour every :class:`KnowledgeStore` must show."""

    @pytest.fixture
    def user(self, kstore: KnowledgeStore, graph: Any) -> Iterator[str]:
        uid = f"kn-{uuid.uuid4()}"
        yield uid
        kstore.delete_user(uid)
        graph.delete_user(uid)

    @pytest.fixture
    def other(self, kstore: KnowledgeStore, graph: Any) -> Iterator[str]:
        uid = f"kn-{uuid.uuid4()}"
        yield uid
        kstore.delete_user(uid)
        graph.delete_user(uid)

    def test_is_a_knowledge_store(self, kstore: KnowledgeStore) -> None:
        assert isinstance(kstore, KnowledgeStore)

    def test_merge_concept_creates_then_merges(self, kstore: KnowledgeStore, user: str) -> None:
        c1 = kstore.merge_concept(
            user,
            "papers",
            "  Multi-Head  Attention ",
            description="short",
            importance=0.4,
            tags=["nlp"],
            properties={"a": 1},
            now=T0,
        )
        assert (c1.name, c1.display_name, c1.namespace) == (
            "multi-head attention",
            "Multi-Head Attention",
            "papers",
        )
        assert c1.id == concept_id(user, "papers", "multi-head attention")
        assert c1.kind == "concept" and c1.created_at == T0
        c2 = kstore.merge_concept(
            user,
            "papers",
            "MULTI-HEAD ATTENTION",
            description="a much longer description",
            importance=0.2,
            kind="method",
            tags=["nlp", "attention"],
            properties={"b": 2},
            now=T0 + timedelta(days=1),
        )
        assert c2.id == c1.id
        assert c2.display_name == "Multi-Head Attention"
        assert c2.description == "a much longer description"
        assert c2.importance == 0.4
        assert c2.kind == "method"
        assert c2.tags == ["nlp", "attention"]
        assert c2.properties == {"a": 1, "b": 2}
        assert c2.created_at == T0 and c2.updated_at == T0 + timedelta(days=1)
        again = kstore.get_concept(user, "papers", "multi-head attention")
        assert again == c2

    def test_namespaces_keep_same_name_apart(self, kstore: KnowledgeStore, user: str) -> None:
        a = kstore.merge_concept(user, "papers", "Attention", now=T0)
        b = kstore.merge_concept(user, "docs", "Attention", now=T0)
        assert a.id != b.id
        info = {n.namespace: n.concepts for n in kstore.namespaces(user)}
        assert info == {"docs": 1, "papers": 1}

    def test_relations_strengthen_and_create_endpoints(
        self, kstore: KnowledgeStore, user: str
    ) -> None:
        r1 = kstore.add_relation(user, "papers", "BERT", "Transformer", "based on", now=T0)
        assert (r1.source, r1.target, r1.type, r1.weight) == (
            "bert",
            "transformer",
            "based_on",
            1.0,
        )
        r2 = kstore.add_relation(
            user, "papers", "bert", "transformer", "based_on", weight=0.5, evidence="paper"
        )
        assert r2.id == r1.id and r2.weight == 1.5 and r2.evidence == "paper"
        assert kstore.get_concept(user, "papers", "Transformer") is not None
        kstore.add_relation(user, "papers", "GPT", "Transformer", "based_on", now=T0)
        kstore.add_relation(user, "papers", "Transformer", "Attention", "uses", now=T0)
        incoming = kstore.get_relations(user, "papers", name="transformer", direction="in")
        assert [r.source for r in incoming] == ["bert", "gpt"]
        out = kstore.get_relations(user, "papers", name="transformer", direction="out")
        assert [(r.type, r.target) for r in out] == [("uses", "attention")]
        typed = kstore.get_relations(user, "papers", relation_type="uses")
        assert len(typed) == 1
        assert len(kstore.get_relations(user, "papers")) == 3
        with pytest.raises(MemoryValidationError):
            kstore.add_relation(user, "papers", "Same", "same", "related_to")

    def test_write_batch_with_document_keeps_provenance(
        self, kstore: KnowledgeStore, user: str
    ) -> None:
        result = kstore.write_batch(
            user,
            "papers",
            [ConceptInput(name="RRF", description="fusion"), ConceptInput(name="rrf")],
            [RelationInput(source="RRF", target="BM25", type="uses")],
            document=DocumentInput(title="Cormack 2009", content_hash="abc", chunks=2),
            now=T0,
        )
        assert [c.name for c in result.concepts] == ["rrf"]
        assert len(result.relations) == 1
        doc = result.document
        assert doc is not None and doc.title == "Cormack 2009" and doc.chunks == 2
        assert kstore.get_document(user, doc.id) == doc
        rrf = kstore.get_concept(user, "papers", "rrf")
        assert rrf is not None
        assert [d.id for d in kstore.concept_documents(user, rrf.id)] == [doc.id]
        bm25 = kstore.get_concept(user, "papers", "bm25")
        assert bm25 is not None and kstore.concept_documents(user, bm25.id) == []
        assert [d.id for d in kstore.list_documents(user, "papers")] == [doc.id]
        ns = kstore.namespaces(user)[0]
        assert (ns.concepts, ns.relations, ns.documents) == (2, 1, 1)

    def test_keyword_search_orders_by_terms_then_importance(
        self, kstore: KnowledgeStore, user: str
    ) -> None:
        kstore.merge_concept(
            user,
            "papers",
            "Dense Retrieval",
            importance=0.3,
            description="retrieval with dense vectors",
        )
        kstore.merge_concept(
            user, "papers", "Sparse Retrieval", importance=0.9, description="keyword retrieval"
        )
        kstore.merge_concept(user, "papers", "Vectors", importance=0.5)
        kstore.merge_concept(user, "docs", "Dense Vectors", importance=1.0)
        hits = kstore.keyword_search(user, "dense vectors retrieval", namespace="papers")
        names = [h.concept.name for h in hits]
        assert names[0] == "dense retrieval"
        assert hits[0].matched_terms > hits[-1].matched_terms
        assert "dense vectors" not in names
        assert set(names) == {"dense retrieval", "sparse retrieval", "vectors"}
        all_ns = kstore.keyword_search(user, "dense")
        assert {h.concept.namespace for h in all_ns} == {"papers", "docs"}
        plural = kstore.keyword_search(user, "retrievals", namespace="papers")
        assert len(plural) == 2
        assert kstore.keyword_search(user, "zzz-nothing") == []

    def test_users_are_isolated(self, kstore: KnowledgeStore, user: str, other: str) -> None:
        c = kstore.merge_concept(user, "papers", "Secret Concept")
        kstore.add_relation(user, "papers", "Secret Concept", "Other", "uses")
        assert kstore.get_concept(other, "papers", "Secret Concept") is None
        assert kstore.get_concepts(other, [c.id]) == []
        assert kstore.keyword_search(other, "secret") == []
        assert kstore.get_relations(other, "papers") == []
        assert kstore.namespaces(other) == []
        assert kstore.list_concepts(other) == []
        assert kstore.stats(other).concepts == 0
        kstore.delete_user(other)
        assert kstore.get_concept(user, "papers", "Secret Concept") is not None

    def test_delete_namespace_removes_only_that_namespace(
        self, kstore: KnowledgeStore, user: str, other: str
    ) -> None:
        kstore.write_batch(
            user,
            "papers",
            [ConceptInput(name="A")],
            [RelationInput(source="A", target="B")],
            document=DocumentInput(title="d", content_hash="h1"),
        )
        kstore.merge_concept(user, "docs", "A")
        kstore.merge_concept(other, "papers", "A")
        removed = kstore.delete_namespace(user, "papers")
        assert (removed.concepts, removed.relations, removed.documents) == (2, 1, 1)
        assert [n.namespace for n in kstore.namespaces(user)] == ["docs"]
        assert kstore.get_concept(other, "papers", "A") is not None
        assert kstore.delete_namespace(user, "papers").concepts == 0

    def test_entity_links_cross_namespaces_only_explicitly(
        self, kstore: KnowledgeStore, graph: Any, user: str, other: str
    ) -> None:
        alice = graph.merge_entity(user, "Alice", entity_type="person")
        graph.merge_entity(other, "Alice", entity_type="person")
        kstore.merge_concept(user, "papers", "Attention")
        kstore.merge_concept(user, "docs", "Attention Guide")
        assert kstore.connect_entity(user, "papers", "attention", alice.id, now=T0) is True
        assert kstore.connect_entity(user, "papers", "attention", alice.id) is False
        kstore.connect_entity(user, "docs", "attention guide", alice.id)
        assert [e.id for e in kstore.referenced_entities(user, "papers", "Attention")] == [alice.id]
        found = kstore.concepts_for_entities(user, [alice.id])
        assert {c.name for c in found} == {"attention", "attention guide"}
        only_papers = kstore.concepts_for_entities(user, [alice.id], namespace="papers")
        assert [c.name for c in only_papers] == ["attention"]
        assert kstore.stats(user).entity_links == 2
        other_alice = graph.entity_ids_for(other, ["alice"])["alice"]
        with pytest.raises(KnowledgeNotFound):
            kstore.connect_entity(user, "papers", "attention", other_alice)
        with pytest.raises(KnowledgeNotFound):
            kstore.connect_entity(user, "papers", "no such concept", alice.id)
        assert kstore.concepts_for_entities(other, [alice.id]) == []
        assert kstore.disconnect_entity(user, "papers", "attention", alice.id) is True
        assert kstore.disconnect_entity(user, "papers", "attention", alice.id) is False
        # The memory graph never sees concepts, and its entity is untouched by knowledge writes.
        ent = graph.get_entity(user, "alice")
        assert ent is not None and ent.entity.mention_count == 1
        assert graph.search_entities(user, "attention") == []
        assert graph.get_entity(user, "attention") is None
        assert graph.stats(user).entities == 1

    def test_deleting_the_entity_drops_its_links(
        self, kstore: KnowledgeStore, graph: Any, user: str
    ) -> None:
        alice = graph.merge_entity(user, "Alice")
        kstore.merge_concept(user, "papers", "Attention")
        kstore.connect_entity(user, "papers", "attention", alice.id)
        graph.delete_user(user)
        assert kstore.referenced_entities(user, "papers", "attention") == []
        assert kstore.get_concept(user, "papers", "attention") is not None

    def test_delete_user_removes_knowledge_not_memory(
        self, kstore: KnowledgeStore, graph: Any, user: str
    ) -> None:
        graph.merge_entity(user, "Alice")
        kstore.write_batch(
            user,
            "papers",
            [ConceptInput(name="X")],
            [RelationInput(source="X", target="Y")],
            document=DocumentInput(title="d", content_hash="h"),
        )
        removed = kstore.delete_user(user)
        assert (removed.concepts, removed.relations, removed.documents) == (2, 1, 1)
        assert kstore.stats(user).concepts == 0
        assert graph.stats(user).entities == 1

    def test_list_concepts_pages_by_id(self, kstore: KnowledgeStore, user: str) -> None:
        kstore.write_batch(user, "docs", [ConceptInput(name=f"c{i}") for i in range(25)])
        seen: list[str] = []
        after = None
        while page := kstore.list_concepts(user, "docs", limit=10, after_id=after):
            seen += [c.id for c in page]
            after = page[-1].id
        assert len(seen) == 25 == len(set(seen)) and seen == sorted(seen)
        ids = list(reversed(seen[:3]))
        assert [c.id for c in kstore.get_concepts(user, [*ids, "missing"])] == ids

    @pytest.mark.parametrize("name", HOSTILE)
    def test_hostile_names_are_data(self, kstore: KnowledgeStore, user: str, name: str) -> None:
        kstore.add_relation(user, "custom", name, "target", "related_to", evidence=name)
        got = kstore.get_concept(user, "custom", name)
        assert got is not None and got.display_name == name
        rels = kstore.get_relations(user, "custom", name=name)
        assert rels[0].evidence == name
        assert kstore.keyword_search(user, name)

    def test_invalid_input_is_rejected_before_writing(
        self, kstore: KnowledgeStore, user: str
    ) -> None:
        for bad_ns in ("", "Papers", "../x", "a b", "x" * 65):
            with pytest.raises(MemoryValidationError):
                kstore.merge_concept(user, bad_ns, "A")
        with pytest.raises(MemoryValidationError):
            kstore.merge_concept(user, "docs", "   ")
        with pytest.raises(MemoryValidationError):
            kstore.merge_concept(user, "docs", "A", importance=2.0)
        with pytest.raises(MemoryValidationError):
            kstore.add_relation(user, "docs", "A", "B", "!!!")
        with pytest.raises(MemoryValidationError):
            kstore.merge_concept(None, "docs", "A")  # type: ignore[arg-type]
        with pytest.raises(MemoryValidationError):
            kstore.keyword_search("", "x")
        assert kstore.stats(user).concepts == 0
