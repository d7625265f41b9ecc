"""An import that fails half-way in one store leaves the user as before (issue 40, item 6).

Shared by the SQLite run (``tests/unit/test_portable_atomic.py``) and the Neo4j run
(``tests/integration/graph/test_neo4j_import_atomic.py``). Real stores everywhere; a fault
is injected (the only mock) into one store's write, after some records of the import were
written: the vector store's second chunk of memories, a graph load after its first rows, the
scratchpad's second entry, the notes' git commit.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from langgraph_prax_memory import PraxMemory
from langgraph_prax_memory.errors import DiskFullError, MemoryWriteError
from langgraph_prax_memory.notes import NotesGitError
from langgraph_prax_memory.vectors import user_filter
from tests.portable_cases import build

T0 = datetime(2026, 2, 1, 8, 0, tzinfo=UTC)
#: Memories in the file: three chunks of 64 (the import embeds and writes one at a time).
MEMORIES = 150


def export_lines(mem: PraxMemory, user: str) -> list[str]:
    buf = io.StringIO()
    mem.export_user(user, buf)
    return buf.getvalue().splitlines()


def state(mem: PraxMemory, user: str) -> dict[str, Any]:
    """Everything the user has: the export's records (not its header's time) and every
    point of the user as stored, payload and both vectors."""
    rows = [json.loads(line) for line in export_lines(mem, user)]
    store = mem.ltm.store()
    points, _ = store.client.scroll(
        store.collection,
        scroll_filter=user_filter(user),
        limit=10_000,
        with_payload=True,
        with_vectors=True,
    )
    return {
        "counts": rows[0]["counts"],
        "records": rows[1:],
        "points": {
            str(p.id): (p.payload, {name: repr(v) for name, v in (p.vector or {}).items()})  # type: ignore[union-attr]
            for p in points
        },
    }


def prepare(mem: PraxMemory, source: str, user: str) -> list[str]:
    """Give ``user`` memories, a graph, a scratchpad and notes, some of which the export of
    ``source`` (returned) replaces; the rest of it is new to ``user``."""
    build(mem, source, entities=40, relations=30)
    mem.remember_many(
        source, [{"key": f"m{i}", "content": f"Source fact number {i}"} for i in range(MEMORIES)]
    )
    for key in ("todo", "s1", "s2", "s3"):
        mem.stm.write(source, key, f"source {key}", 0.6, ["from-source"])
    mem.notes.update(source, "name: Source\n")

    # the user's own: memories two of which the file replaces (m3, m100: chunks 1 and 2)
    mem.remember(user, "Dana's own third fact", key="m3", importance=0.9)
    mem.remember(user, "Dana's own hundredth fact", key="m100", tags=["mine"])
    mem.remember(user, "Dana lives in Tbilisi")
    names = [e.display_name for e in mem.graph.list_entities(source)]
    for again in range(3):  # an entity the file has too (kept as the user has it)
        mem.graph.merge_entity(user, names[0], importance=0.3, now=T0 + timedelta(days=again))
    mem.graph.add_relation(user, "Dana", "Tbilisi", "lives_in", now=T0)
    mem.graph.merge_temporal_event(
        user, "Dana moved", participants=["Dana"], occurred_at=T0, now=T0
    )
    mem.stm.write(user, "todo", "buy milk", 0.4, ["errand"])  # the file has "todo" too
    mem.stm.write(user, "keep", "Dana's own entry")
    mem.notes.update(user, "name: Dana\n")
    return export_lines(mem, source)


class Fault:
    """Raise ``error`` on the ``nth`` call of a wrapped function (the others go through)."""

    def __init__(self, original: Callable[..., Any], nth: int, error: BaseException) -> None:
        self.original, self.nth, self.error, self.calls = original, nth, error, 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.calls == self.nth:
            raise self.error
        return self.original(*args, **kwargs)


def break_vectors(mem: PraxMemory, monkeypatch: pytest.MonkeyPatch) -> Fault:
    """The vector store refuses the second chunk of memories (the first is stored)."""
    store = mem.ltm.store()
    fault = Fault(store.upsert, 2, DiskFullError("injected: no space left on device"))
    monkeypatch.setattr(store, "upsert", fault)
    return fault


def break_graph(mem: PraxMemory, monkeypatch: pytest.MonkeyPatch) -> Fault:
    """The graph fails after the first rows of its load (in its one transaction)."""
    graph = mem.graph
    hook = "_load_row" if hasattr(graph, "_load_row") else "_load_batch"  # SQLite / Neo4j
    nth = 5 if hook == "_load_row" else 2  # after 4 entities / after the first batch
    fault = Fault(getattr(graph, hook), nth, RuntimeError("injected: the graph broke"))
    monkeypatch.setattr(graph, hook, fault)
    return fault


def break_scratchpad(mem: PraxMemory, monkeypatch: pytest.MonkeyPatch) -> Fault:
    """The scratchpad file cannot be written for the second entry (the first is)."""
    from langgraph_prax_memory.stm import store as stm_store

    error = DiskFullError("injected: no space left for stm.json")
    fault = Fault(stm_store.atomic_write_text, 2, error)
    monkeypatch.setattr(stm_store, "atomic_write_text", fault)
    return fault


def break_notes(mem: PraxMemory, monkeypatch: pytest.MonkeyPatch) -> Fault:
    """Git refuses the notes' commit (the last write of an import)."""
    from langgraph_prax_memory.notes import store as notes_store

    repo = notes_store.WorkspaceRepo
    fault = Fault(repo.commit_file, 1, NotesGitError("injected: git commit failed"))

    def commit_file(self: Any, relpath: str, message: str) -> str | None:
        return fault(self, relpath, message)  # type: ignore[no-any-return]

    monkeypatch.setattr(repo, "commit_file", commit_file)
    return fault


#: ``(store, how to break it, the error class the import raises, what the error names)``.
FAULTS: list[tuple[str, Callable[[PraxMemory, pytest.MonkeyPatch], Fault], type, str]] = [
    ("vectors", break_vectors, DiskFullError, "memories 65 to 128"),
    ("graph", break_graph, MemoryWriteError, "graph records"),
    ("scratchpad", break_scratchpad, DiskFullError, "scratchpad entry"),
    ("notes", break_notes, NotesGitError, "notes"),
]


def fails_whole(
    mem: PraxMemory,
    monkeypatch: pytest.MonkeyPatch,
    source: str,
    user: str,
    breaker: Callable[[PraxMemory, pytest.MonkeyPatch], Fault],
    error: type,
    names: str,
) -> None:
    """Break one store mid-import: the import raises, the user is exactly as before; the
    same import without the fault then lands whole."""
    lines = prepare(mem, source, user)
    before = state(mem, user)
    fault = breaker(mem, monkeypatch)
    with pytest.raises(error) as caught:
        mem.import_user(lines, user_id=user)
    assert fault.calls >= fault.nth  # the fault fired, after the calls before it went through
    text = str(caught.value)
    assert names in text and "injected" in text, text
    assert "Nothing of the file was kept" in text, text
    assert state(mem, user) == before
    monkeypatch.undo()
    receipt = mem.import_user(lines, user_id=user)
    assert receipt.created["memory"] == MEMORIES  # m3 and m100 replaced: written too
    after = state(mem, user)
    assert after != before
    assert mem.stm.get(user, "todo").content == "source todo"  # type: ignore[union-attr]
    assert mem.notes.read(user) == "name: Source\n"
    assert mem.graph.stats(user).entities > before["counts"].get("entity", 0)


def undo_that_fails_says_so(
    mem: PraxMemory, monkeypatch: pytest.MonkeyPatch, source: str, user: str
) -> None:
    """When undoing fails too, the error says the user may hold part of the file, and
    importing the same file again completes the import."""
    lines = prepare(mem, source, user)
    break_vectors(mem, monkeypatch)
    graph = mem.graph
    monkeypatch.setattr(
        graph,
        "delete_records",
        Fault(graph.delete_records, 1, MemoryWriteError("injected: the graph is read-only")),
    )
    with pytest.raises(DiskFullError) as caught:
        mem.import_user(lines, user_id=user)
    text = str(caught.value)
    assert "Undoing the import failed too" in text and "graph: injected" in text, text
    assert "import the same file again" in text
    monkeypatch.undo()
    mem.import_user(lines, user_id=user)
    done = state(mem, user)
    assert done["counts"]["memory"] == MEMORIES + 1  # the file's 150 and "Dana lives in ..."
    again = mem.import_user(lines, user_id=user)
    assert again.created == {} and state(mem, user) == done
