"""Knowledge hygiene (issue 15): codebase re-ingestion prunes, the OKF round trip keeps all.

:class:`KnowledgeHygieneContract` runs on SQLite here and on the real Neo4j server in
``tests/integration/knowledge/test_neo4j_knowledge_hygiene.py``; so does
:func:`codebase_pruning_scenario` (through the real :class:`KnowledgeBase`, tree-sitter and
the concept vectors).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from langgraph_prax_memory import PraxMemory
from langgraph_prax_memory.graph import SQLiteGraphStore
from langgraph_prax_memory.knowledge import (
    ConceptInput,
    DocumentInput,
    KnowledgeBase,
    KnowledgeStore,
    RelationInput,
    SQLiteKnowledgeStore,
    concept_id,
    export_namespace_okf,
    import_okf,
)

T0 = datetime(2026, 1, 5, 9, 30, tzinfo=UTC)


def snapshot(store: KnowledgeStore, graph: Any, user: str, ns: str) -> dict[str, Any]:
    """Everything a namespace holds, without the ids (which depend on the namespace)."""
    concepts = sorted(store.list_concepts(user, ns), key=lambda c: c.name)
    return {
        "concepts": [
            (
                c.name,
                c.display_name,
                c.description,
                c.kind,
                c.importance,
                c.source,
                c.source_type,
                tuple(c.tags),
                repr(sorted(c.properties.items())),
                c.created_at,
                c.updated_at,
            )
            for c in concepts
        ],
        "relations": sorted(
            (r.source, r.target, r.type, r.weight, r.evidence, r.created_at)
            for r in store.get_relations(user, ns)
        ),
        "documents": sorted(
            (
                d.title,
                d.source,
                d.source_type,
                d.content_hash,
                d.chunks,
                repr(sorted(d.properties.items())),
                d.created_at,
            )
            for d in store.list_documents(user, ns)
        ),
        "provenance": sorted(
            (c.name, d.content_hash) for c in concepts for d in store.concept_documents(user, c.id)
        ),
        "entity_links": sorted(
            (c.name, e.name) for c in concepts for e in store.referenced_entities(user, ns, c.name)
        ),
    }


class KnowledgeHygieneContract:
    """Pruning by id and a lossless OKF round trip, on every backend."""

    @pytest.fixture
    def user(self, kstore: KnowledgeStore, graph: Any) -> Iterator[str]:
        uid = f"kh-{uuid.uuid4()}"
        yield uid
        kstore.delete_user(uid)
        graph.delete_user(uid)

    def test_delete_items_removes_what_is_named_and_nothing_else(
        self, kstore: KnowledgeStore, graph: Any, user: str
    ) -> None:
        alice = graph.merge_entity(user, "Alice")
        doc = DocumentInput(title="a.py", content_hash="h-a", source_type="code")
        kstore.write_batch(
            user,
            "codebase",
            [ConceptInput(name="pkg.a", source_type="code"), ConceptInput(name="pkg.b")],
            [RelationInput(source="pkg.a", target="pkg.b", type="imports")],
            document=doc,
            now=T0,
        )
        kstore.write_batch(
            user,
            "codebase",
            [ConceptInput(name="pkg.c")],
            [RelationInput(source="pkg.c", target="pkg.b", type="imports")],
        )
        kstore.write_batch(user, "papers", [ConceptInput(name="pkg.a")])  # another namespace
        kstore.connect_entity(user, "codebase", "pkg.a", alice.id)
        (doc_row,) = [d for d in kstore.list_documents(user, "codebase") if d.title == "a.py"]
        rel_cb = kstore.get_relations(user, "codebase", name="pkg.c", direction="out")[0]
        gone = kstore.delete_items(
            user,
            "codebase",
            concepts=[concept_id(user, "codebase", "pkg.a")],
            relations=[rel_cb.id],
            documents=[doc_row.id],
        )
        assert (gone.concepts, gone.relations, gone.documents, gone.entity_links) == (1, 1, 1, 1)
        assert kstore.get_concept(user, "codebase", "pkg.a") is None
        assert kstore.get_concept(user, "papers", "pkg.a") is not None
        assert kstore.get_relations(user, "codebase") == []  # a's edge went with a
        assert kstore.list_documents(user, "codebase") == []
        assert kstore.concepts_for_entities(user, [alice.id]) == []
        assert kstore.get_concept(user, "codebase", "pkg.b") is not None
        assert kstore.delete_items(user, "codebase").concepts == 0

    def test_okf_round_trip_keeps_documents_provenance_evidence_links_and_times(
        self, kstore: KnowledgeStore, graph: Any, user: str, tmp_path: Path
    ) -> None:
        """Issue 15: the round trip lost documents, provenance, evidence, links and times."""
        graph.merge_entity(user, "Project Alpha")
        rrf = ConceptInput(
            name="Reciprocal Rank Fusion",
            description="Merges ranked lists.",
            kind="method",
            importance=0.9,
            source="rrf.pdf",
            source_type="pdf",
            tags=["ir"],
            properties={"year": 2009},
        )
        bm25 = ConceptInput(name="BM25", description="Okapi weighting", kind="method")
        kstore.write_batch(
            user,
            "papers",
            [rrf, bm25],
            [
                RelationInput(
                    source="Reciprocal Rank Fusion",
                    target="BM25",
                    type="uses",
                    weight=2.5,
                    evidence='fuses "BM25" --> and dense runs\nline 2',
                )
            ],
            document=DocumentInput(
                title="RRF paper",
                content_hash="sha-rrf",
                source="rrf.pdf",
                source_type="pdf",
                chunks=3,
                properties={"pages": 8},
            ),
            now=T0,
        )
        kstore.write_batch(
            user,
            "papers",
            [ConceptInput(name="BM25", description="Okapi BM25 term weighting")],
            [RelationInput(source="BM25", target="Index", type="part_of")],
            document=DocumentInput(title="BM25 notes", content_hash="sha-bm25"),
            now=T0 + timedelta(days=3),
        )
        kstore.connect_entity(
            user,
            "papers",
            "Reciprocal Rank Fusion",
            graph.entity_ids_for(user, ["Project Alpha"])["Project Alpha"],
        )
        export_namespace_okf(kstore, user, "papers", tmp_path / "bundle")
        result = import_okf(kstore, user, tmp_path / "bundle", "copy", now=T0 + timedelta(days=9))
        assert result.skipped == []
        assert (result.concepts, result.relations) == (3, 2)
        assert snapshot(kstore, graph, user, "copy") == snapshot(kstore, graph, user, "papers")

    def test_okf_import_names_the_links_it_cannot_keep(
        self, kstore: KnowledgeStore, graph: Any, user: str, tmp_path: Path
    ) -> None:
        graph.merge_entity(user, "Alice")
        kstore.merge_concept(user, "papers", "Attention", now=T0)
        kstore.connect_entity(
            user, "papers", "Attention", graph.entity_ids_for(user, ["Alice"])["Alice"]
        )
        export_namespace_okf(kstore, user, "papers", tmp_path / "bundle")
        other = f"kh-{uuid.uuid4()}"
        try:
            result = import_okf(kstore, other, tmp_path / "bundle", "papers")
            assert any("Alice" in s for s in result.skipped)
            assert kstore.get_concept(other, "papers", "Attention") is not None
        finally:
            kstore.delete_user(other)


class TestSQLiteKnowledgeHygiene(KnowledgeHygieneContract):
    @pytest.fixture
    def graph(self) -> Iterator[SQLiteGraphStore]:
        store = SQLiteGraphStore(":memory:")
        yield store
        store.close()

    @pytest.fixture
    def kstore(self, graph: SQLiteGraphStore) -> SQLiteKnowledgeStore:
        return SQLiteKnowledgeStore(graph)


# -- codebase re-ingestion -----------------------------------------------------------------------
def _write_project(root: Path) -> None:
    pkg = root / "pkg"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "store.py").write_text(
        '"""The store."""\n\n\nclass Store:\n    def put(self, x):\n        return x\n\n\n'
        "def open_store():\n    return Store()\n"
    )
    (pkg / "api.py").write_text(
        "from pkg import store\nfrom pkg.store import open_store\n\n\n"
        "def serve():\n    return open_store()\n\n\ndef health():\n    return 1\n"
    )
    (pkg / "cli.py").write_text("from pkg import store\n\n\ndef main():\n    return 0\n")


def codebase_pruning_scenario(kb: KnowledgeBase, user: str, root: Path) -> None:
    """Ingest, delete a file and a function, re-ingest: what the code lost is gone."""
    _write_project(root)
    first = kb.ingest_codebase(user, root)
    store = kb.store
    assert kb.dependents(user, "pkg.store") == ["pkg.api", "pkg.cli"]
    assert store.get_concept(user, "codebase", "pkg.cli.main") is not None
    assert store.get_concept(user, "codebase", "pkg.api.health") is not None
    docs_before = {d.title for d in store.list_documents(user, "codebase")}
    assert "pkg/cli.py" in docs_before and first.pruned.concepts == 0

    (root / "pkg" / "cli.py").unlink()
    api = root / "pkg" / "api.py"
    api.write_text(api.read_text().replace("\n\ndef health():\n    return 1\n", ""))
    again = kb.ingest_codebase(user, root)

    assert store.get_concept(user, "codebase", "pkg.cli") is None
    assert store.get_concept(user, "codebase", "pkg.cli.main") is None
    assert store.get_concept(user, "codebase", "pkg.api.health") is None
    assert store.get_concept(user, "codebase", "pkg.api.serve") is not None
    assert kb.dependents(user, "pkg.store") == ["pkg.api"]
    titles = [d.title for d in store.list_documents(user, "codebase")]
    assert "pkg/cli.py" not in titles and titles.count("pkg/api.py") == 1
    assert again.pruned.concepts >= 3 and again.pruned.documents == 2
    hits = kb.search(user, "health", namespace="codebase", k=10)
    assert all(not h.concept.name.startswith("pkg.cli") for h in hits)
    assert "pkg.api.health" not in {h.concept.name for h in hits}
    # an unchanged tree changes nothing
    third = kb.ingest_codebase(user, root)
    assert third.skipped and third.pruned.concepts == 0 and third.pruned.relations == 0


def test_codebase_reingestion_prunes_deleted_files_and_definitions(
    memory: PraxMemory, tmp_path: Path
) -> None:
    """Issue 15: re-ingesting after deleting a file kept its concepts, documents and links."""
    codebase_pruning_scenario(KnowledgeBase(memory), "dev", tmp_path / "proj")


def test_pruning_leaves_other_sources_in_the_namespace(memory: PraxMemory, tmp_path: Path) -> None:
    kb = KnowledgeBase(memory)
    kb.store.merge_concept("dev", "codebase", "Architecture notes", source_type="markdown")
    _write_project(tmp_path / "proj")
    kb.ingest_codebase("dev", tmp_path / "proj")
    (tmp_path / "proj" / "pkg" / "cli.py").unlink()
    kb.ingest_codebase("dev", tmp_path / "proj")
    assert kb.store.get_concept("dev", "codebase", "Architecture notes") is not None
