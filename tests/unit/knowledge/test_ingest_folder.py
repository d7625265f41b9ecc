"""A folder is ingested by what it holds: documents (Markdown, text, PDF), code, or both,
and what it skipped is said, with the reason (library and `prax-memory knowledge ingest`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from langgraph_prax_memory import PraxMemory
from langgraph_prax_memory.cli import EXIT_NOT_FOUND, EXIT_OK, main
from langgraph_prax_memory.knowledge import KnowledgeBase
from langgraph_prax_memory.knowledge.documents import plan_folder
from tests.unit.knowledge.test_knowledge_base import make_pdf


@pytest.fixture
def kb(memory: PraxMemory) -> Iterator[KnowledgeBase]:
    base = KnowledgeBase(memory)
    yield base
    base.close()


def docs_folder(root: Path) -> Path:
    """A folder of documents as a user has one: Markdown, text, a PDF, and things that are not."""
    root.mkdir()
    (root / "fusion.md").write_text(
        "# Reciprocal Rank Fusion\n\nReciprocal Rank Fusion is a method that merges rankings.\n"
    )
    (root / "guide").mkdir()
    (root / "guide" / "notes.txt").write_text("Dense Passage Retrieval is based on BERT.\n")
    (root / "paper.pdf").write_bytes(make_pdf(["BM25 Ranking", "BM25 is a ranking function."]))
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 this is not a pdf")
    (root / "empty.md").write_text("")
    (root / ".hidden.md").write_text("# Secret\n")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "lib.md").write_text("# Vendored\n")
    return root


def test_plan_sorts_a_folder_by_content_without_reading_it(tmp_path: Path) -> None:
    folder = docs_folder(tmp_path / "docs")
    (folder / "tool.py").write_text("def run():\n    pass\n")
    plan = plan_folder(folder)
    rel = {p.relative_to(folder).as_posix() for p in plan.documents}
    assert rel == {"fusion.md", "guide/notes.txt", "paper.pdf", "broken.pdf"}
    assert [p.name for p in plan.code_files] == ["tool.py"]
    reasons = dict(plan.skipped)
    assert set(reasons) == {"logo.png", "empty.md", ".hidden.md", "node_modules/"}
    assert "not a document" in reasons["logo.png"] and ".png" in reasons["logo.png"]
    assert reasons["empty.md"] == "empty" and reasons[".hidden.md"] == "a hidden file"
    assert "dependency" in reasons["node_modules/"]


def test_a_folder_of_documents_ingests_its_documents(kb: KnowledgeBase, tmp_path: Path) -> None:
    folder = docs_folder(tmp_path / "docs")
    done = kb.ingest_folder("alice", folder)
    assert done.codebase is None and not done.found_nothing
    assert sorted(done.documents) == ["fusion.md", "guide/notes.txt", "paper.pdf"]
    for result in done.documents.values():
        assert result.namespace == "uploads" and result.documents == 1 and result.concepts > 0
    assert done.documents["paper.pdf"].document is not None
    assert done.documents["paper.pdf"].document.source_type == "pdf"
    skipped = {s.path: s.reason for s in done.skipped}
    assert set(skipped) == {"logo.png", "empty.md", ".hidden.md", "node_modules/", "broken.pdf"}
    assert "cannot read the PDF" in skipped["broken.pdf"]
    names = {h.concept.display_name for h in kb.search("alice", "rank fusion", k=5)}
    assert "Reciprocal Rank Fusion" in names
    assert kb.store.get_concept("alice", "uploads", "BM25") is not None  # from the PDF
    assert kb.search("bob", "rank fusion") == []  # scoped to the user
    # again: nothing new, every document unchanged
    again = kb.ingest_folder("alice", folder)
    assert all(r.skipped for r in again.documents.values()) and not again.found_nothing


def test_a_folder_with_code_and_documents_ingests_both(kb: KnowledgeBase, tmp_path: Path) -> None:
    folder = tmp_path / "project"
    (folder / "pkg").mkdir(parents=True)
    (folder / "pkg" / "__init__.py").write_text("")
    (folder / "pkg" / "engine.py").write_text('class Engine:\n    """Runs jobs."""\n')
    (folder / "README.md").write_text("# Engine\n\nThe Engine is a job runner.\n")
    done = kb.ingest_folder("alice", folder, namespace="proj")
    assert done.codebase is not None and done.codebase.namespace == "proj"
    assert done.codebase.concepts > 0
    assert list(done.documents) == ["README.md"] and done.documents["README.md"].concepts > 0
    # re-ingesting the code (its pruning pass) leaves the document's concepts alone
    readme = kb.store.get_concept("alice", "proj", "Engine")
    assert readme is not None
    kb.ingest_folder("alice", folder, namespace="proj")
    assert kb.store.get_concept("alice", "proj", "Engine") is not None


def test_a_folder_with_nothing_to_ingest_says_so(kb: KnowledgeBase, tmp_path: Path) -> None:
    folder = tmp_path / "pictures"
    folder.mkdir()
    (folder / "a.png").write_bytes(b"\x89PNG")
    done = kb.ingest_folder("alice", folder)
    assert done.found_nothing and [s.path for s in done.skipped] == ["a.png"]


def cli(memory: PraxMemory, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["knowledge", "ingest", "-u", "alice", *argv], memory=memory)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_ingests_a_folder_of_documents_and_lists_what_it_skipped(
    memory: PraxMemory, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = docs_folder(tmp_path / "docs")
    code, out, err = cli(memory, capsys, str(folder), "--json")
    assert code == EXIT_OK, err
    data = json.loads(out)
    paths = sorted(Path(r["path"]).relative_to(folder).as_posix() for r in data["results"])
    assert paths == ["fusion.md", "guide/notes.txt", "paper.pdf"]
    assert all(r["documents"] == 1 and r["namespace"] == "uploads" for r in data["results"])
    skipped = {Path(s["path"]).name: s["reason"] for s in data["skipped"]}
    assert set(skipped) == {"logo.png", "empty.md", ".hidden.md", "node_modules", "broken.pdf"}
    # the terminal form: the table, then each skipped file and why (on stderr)
    code, out, err = cli(memory, capsys, str(folder))
    assert code == EXIT_OK
    assert "unchanged" in out
    assert f"skipped {folder / 'logo.png'}: a .png file" in " ".join(err.split())


def test_cli_a_folder_yielding_nothing_is_exit_4_with_a_clear_message(
    memory: PraxMemory, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "pictures"
    folder.mkdir()
    (folder / "a.png").write_bytes(b"\x89PNG")
    code, out, err = cli(memory, capsys, str(folder))
    assert code == EXIT_NOT_FOUND
    message = " ".join(err.split())
    assert f"error: nothing to ingest in {folder}" in message
    assert "no Markdown, text or PDF document" in message and "a.png" in message
    code, out, _ = cli(memory, capsys, str(folder), "--json")
    assert code == EXIT_NOT_FOUND
    data = json.loads(out)
    assert data["results"] == [] and data["error"].startswith("nothing to ingest")
