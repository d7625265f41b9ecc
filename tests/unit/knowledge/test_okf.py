"""OKF v0.1 export / import: round trip, preserved fields, hostile names and links."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from langgraph_prax_memory.graph import SQLiteGraphStore
from langgraph_prax_memory.knowledge import (
    ConceptInput,
    RelationInput,
    SQLiteKnowledgeStore,
    export_namespace_okf,
    import_okf,
)


@pytest.fixture
def store() -> Iterator[SQLiteKnowledgeStore]:
    graph = SQLiteGraphStore(":memory:")
    yield SQLiteKnowledgeStore(graph)
    graph.close()


def _snapshot(store: SQLiteKnowledgeStore, user: str, ns: str) -> tuple[set[tuple], set[tuple]]:
    concepts = {
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
        )
        for c in store.list_concepts(user, ns)
    }
    relations = {(r.source, r.target, r.type, r.weight) for r in store.get_relations(user, ns)}
    return concepts, relations


def test_round_trip_reproduces_concepts_and_relations(
    store: SQLiteKnowledgeStore, tmp_path: Path
) -> None:
    store.write_batch(
        "u1",
        "papers",
        [
            ConceptInput(
                name="Reciprocal Rank Fusion",
                description="Merges [ranked] lists.",
                kind="method",
                importance=0.9,
                source="https://example.org/rrf",
                source_type="pdf",
                tags=["ir", "fusion"],
                properties={"year": 2009},
            ),
            ConceptInput(name="BM25", description="Okapi: weighting", kind="method"),
            ConceptInput(name="Index", description="a file called index"),
            ConceptInput(name="naïve Bayes / σ-algebra", description="unicode name"),
        ],
        [
            RelationInput(source="Reciprocal Rank Fusion", target="BM25", type="uses", weight=2.5),
            RelationInput(source="BM25", target="Index", type="related_to"),
            RelationInput(source="Index", target="naïve Bayes / σ-algebra", type="part_of"),
        ],
    )
    out = export_namespace_okf(store, "u1", "papers", tmp_path / "bundle")
    assert (out.concepts, out.relations) == (4, 3)
    files = sorted(p.name for p in (tmp_path / "bundle").iterdir())
    assert "index.md" in files and "log.md" in files and len(files) == 6
    assert "index-" in " ".join(files)  # a concept named "Index" never overwrites index.md
    rrf_text = (tmp_path / "bundle" / "reciprocal-rank-fusion.md").read_text()
    front = yaml.safe_load(rrf_text.split("---")[1])
    assert front["type"] == "method" and front["title"] == "Reciprocal Rank Fusion"
    assert front["resource"] == "https://example.org/rrf" and front["tags"] == ["ir", "fusion"]
    assert "- uses: [BM25](bm25.md)" in rrf_text
    result = import_okf(store, "u1", tmp_path / "bundle", "imported")
    assert (result.concepts, result.relations) == (4, 3) and result.skipped == []
    assert _snapshot(store, "u1", "imported") == _snapshot(store, "u1", "papers")


def test_unknown_frontmatter_fields_are_preserved(
    store: SQLiteKnowledgeStore, tmp_path: Path
) -> None:
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.md").write_text(
        "---\ntype: theory\ntitle: Forgetting Curve\nauthor: Ebbinghaus\n"
        "x-rating: {stars: 5}\ntimestamp: 2024-01-02T03:04:05Z\n---\n"
        "Retention decays.\n\nSee [the bank](sub/b.md) and [the web](https://example.org).\n"
    )
    (src / "sub" / "b.md").write_text("---\ntype: system\n---\n# MemoryBank\n")
    (src / "notes.md").write_text("no frontmatter here\n")
    (src / "c.md").write_text("---\ntitle: no type\n---\n")
    result = import_okf(store, "u1", src, "custom")
    assert result.concepts == 2 and result.relations == 1
    assert len(result.skipped) == 2
    curve = store.get_concept("u1", "custom", "forgetting curve")
    assert curve is not None and curve.description == "Retention decays."
    assert curve.properties["okf_extra"] == {
        "author": "Ebbinghaus",
        "x-rating": {"stars": 5},
    }
    assert store.get_concept("u1", "custom", "b") is not None
    [rel] = store.get_relations("u1", "custom")
    assert (rel.source, rel.target, rel.type) == ("forgetting curve", "b", "related_to")
    out = export_namespace_okf(store, "u1", "custom", tmp_path / "again")
    text = (tmp_path / "again" / "forgetting-curve.md").read_text()
    front = yaml.safe_load(text.split("---")[1])
    assert front["author"] == "Ebbinghaus" and front["x-rating"] == {"stars": 5}
    assert out.concepts == 2


def test_hostile_names_and_links_stay_inside(store: SQLiteKnowledgeStore, tmp_path: Path) -> None:
    hostile = ["../../etc/passwd", "/abs/path", "..", "a\\b\\..\\c", "CON", "x" * 400, "🦜"]
    store.write_batch("u1", "custom", [ConceptInput(name=n) for n in hostile])
    dest = tmp_path / "out"
    outside = tmp_path / "outside.md"
    dest.mkdir()
    # A pre-planted symlink where a concept file will go must be replaced, not followed.
    os.symlink(outside, dest / "etc-passwd.md")
    result = export_namespace_okf(store, "u1", "custom", dest)
    assert result.concepts == len(hostile)
    assert not outside.exists()
    for path in dest.iterdir():
        assert path.parent == dest and not path.is_symlink()
    assert not (tmp_path / "etc").exists()
    # Import: links and symlinked files leaving the bundle are ignored.
    src = tmp_path / "src"
    src.mkdir()
    secret = tmp_path / "secret.md"
    secret.write_text("---\ntype: secret\ntitle: Secret\n---\n")
    os.symlink(secret, src / "link.md")
    (src / "a.md").write_text(
        "---\ntype: concept\ntitle: A\n---\n[up](../secret.md) [abs](/etc/passwd) [ok](b.md)\n"
    )
    (src / "b.md").write_text("---\ntype: concept\ntitle: B\n---\n")
    imported = import_okf(store, "u1", src, "imported")
    assert imported.concepts == 2 and imported.relations == 1
    assert store.get_concept("u1", "imported", "secret") is None
    assert any("outside the bundle" in s for s in imported.skipped)
    assert any("leaves the bundle" in s for s in imported.skipped)


def test_export_of_an_empty_namespace(store: SQLiteKnowledgeStore, tmp_path: Path) -> None:
    out = export_namespace_okf(store, "u1", "papers", tmp_path / "empty")
    assert (out.concepts, out.relations) == (0, 0)
    assert sorted(out.files) == ["index.md", "log.md"]
