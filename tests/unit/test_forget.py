"""Forgetting a user (issue 12, point 13).

After ``forget-user`` no API returns anything of the user; after ``--compact`` no file under
the data folder holds a byte of their text (while another user's data is intact); a deletion
an outage interrupts says what is left and resumes; the receipt lists what stays beyond reach.
Real components throughout (qdrant-edge on disk, the SQLite graph, git notes); outages are
injected by making one backend call raise.
"""

from __future__ import annotations

import io
import json
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from langgraph_prax_memory import MemoryConfig, MemoryValidationError, PraxMemory
from langgraph_prax_memory._forget import PENDING_DIR, STEPS
from langgraph_prax_memory._portable import export_user
from langgraph_prax_memory._remaining import remaining_notes
from langgraph_prax_memory._validation import user_dir_name
from langgraph_prax_memory.cli import EXIT_BACKEND, EXIT_OK, main
from langgraph_prax_memory.errors import BackendUnavailable, DeletionIncomplete
from langgraph_prax_memory.graph import GraphStats, Neo4jGraphStore
from langgraph_prax_memory.knowledge.tools import create_knowledge_tools
from tests.fakes import HashEmbeddings

VICTIM, OTHER = "zqx-victim", "keep-other"
GONE, KEPT = "Zqxvictimword", "Keepotherword"  # unique marker words in each user's text


def _open(data: Path, **kwargs: Any) -> PraxMemory:
    """A memory as deployed: qdrant-edge and the SQLite graph on disk under ``data``."""
    return PraxMemory(
        MemoryConfig(data_dir=data), embeddings=HashEmbeddings(), embedding_dimension=384, **kwargs
    )


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[PraxMemory]:
    mem = _open(tmp_path / "data")
    yield mem
    mem.close()


def _populate(mem: PraxMemory, user: str, word: str) -> None:
    """Put ``word`` into every layer of ``user``: memories, graph, knowledge, files."""
    mem.remember(user, f"{word} prefers green tea in the morning", importance=0.8)
    mem.graph.add_relation(user, f"{word} Person", f"{word} Corp", "works_on")
    mem.graph.merge_temporal_event(user, f"{word} moved to Lisbon", participants=[f"{word} Person"])
    mem.graph.add_causal_link(user, f"{word} moved", f"{word} learned Portuguese")
    mem.knowledge.ingest_document(
        user, f"# {word} Attention\n\n{word} Transformers use self-attention.", namespace="papers"
    )
    tools = {t.name: t for t in create_knowledge_tools(mem.knowledge, user_id=user)}
    tools["knowledge_export_okf"].invoke({"namespace": "papers"})
    mem.stm.write(user, "pin", f"{word} pin is 4321")
    mem.notes.update(user, f"- {word} lives in Lisbon\n")
    trace = mem.config.users_dir / user_dir_name(user) / "trace.log"
    trace.write_text(f"user: I'm {word} and I prefer polars over pandas.\n\n", encoding="utf-8")
    assert mem.consolidate(user).memories_created >= 1
    mem.flush()


def _files_holding(root: Path, needle: str) -> list[Path]:
    raw = needle.encode()
    return [p for p in root.rglob("*") if p.is_file() and raw in p.read_bytes()]


def _nothing_of(mem: PraxMemory, user: str, word: str) -> None:
    """Every read API of every layer finds nothing of ``user``."""
    assert mem.count(user) == 0 and mem.list_memories(user) == []
    assert mem.recall(user, f"{word} green tea polars", reinforce=False) == []
    assert mem.stm.all(user) == [] and mem.notes.read(user) == ""
    assert mem.graph.stats(user) == GraphStats()
    assert mem.graph.search_entities(user, word.lower()) == []
    assert mem.graph.get_events(user) == [] and mem.graph.get_causal_links(user) == []
    assert mem.knowledge.namespaces(user) == []
    assert mem.knowledge.search(user, f"{word} attention") == []
    stats = mem.stats(user)
    assert (stats.memories, stats.stm_entries, stats.notes_lines, stats.entities) == (0, 0, 0, 0)
    out = io.StringIO()
    assert export_user(mem, user, out).counts == {}
    assert word not in out.getvalue()
    # the next consolidation finds no trace of the user to bring back
    again = mem.consolidate(user)
    assert again.memories_created == 0 and mem.count(user) == 0


def _everything_of(mem: PraxMemory, user: str, word: str) -> None:
    assert mem.count(user) >= 2
    assert word in mem.recall(user, "green tea", reinforce=False)[0].memory.content
    assert mem.stm.get(user, "pin") is not None and word in mem.notes.read(user)
    assert mem.graph.stats(user).entities >= 2 and mem.graph.get_causal_links(user)
    assert mem.knowledge.namespaces(user)
    assert (mem.config.data_dir / "okf" / user_dir_name(user) / "papers").is_dir()


# ------------------------------------------------------------------- no API returns the user


def test_after_forget_user_no_api_returns_anything_of_the_user(memory: PraxMemory) -> None:
    _populate(memory, VICTIM, GONE)
    _populate(memory, OTHER, KEPT)
    receipt = memory.forget_user(VICTIM)
    assert receipt.removed["memories"] >= 2 and receipt.removed["trace_log"] == 1
    assert receipt.removed["okf_files"] >= 1 and receipt.removed["knowledge_vectors"] >= 1
    assert receipt.removed["consolidation_state"] == 1 and receipt.removed["workspace_files"] > 0
    assert not (memory.config.users_dir / user_dir_name(VICTIM)).exists()
    assert not (memory.config.data_dir / "okf" / user_dir_name(VICTIM)).exists()
    assert not (memory.config.data_dir / PENDING_DIR).exists()
    _nothing_of(memory, VICTIM, GONE)
    _everything_of(memory, OTHER, KEPT)


def test_delete_user_keeps_only_the_notes(memory: PraxMemory) -> None:
    _populate(memory, VICTIM, GONE)
    removed = memory.delete_user(VICTIM)
    assert removed["trace_log"] == 1 and removed["okf_files"] >= 1
    workspace = memory.config.users_dir / user_dir_name(VICTIM)
    left = {p.name for p in workspace.iterdir()}
    assert left - {"user_notes.md.lock"} == {".git", "user_notes.md", "memory"}  # no trace.log
    # memory/ keeps only the (empty) consolidation lock the deletion held
    assert [p.name for p in (workspace / "memory").iterdir()] == ["consolidation.lock"]
    assert GONE in memory.notes.read(VICTIM)
    assert memory.consolidate(VICTIM).memories_created == 0 and memory.count(VICTIM) == 0
    assert memory.stm.all(VICTIM) == [] and memory.knowledge.namespaces(VICTIM) == []


def test_an_invalid_user_id_deletes_nothing(memory: PraxMemory) -> None:
    memory.remember(OTHER, "a fact")
    with pytest.raises(MemoryValidationError):
        memory.forget_user("")
    assert memory.count(OTHER) == 1 and not (memory.config.data_dir / PENDING_DIR).exists()


# ---------------------------------------------------------- no byte left once compacted


def test_after_compact_no_file_under_the_data_folder_holds_the_users_text(
    disk: PraxMemory, capsys: pytest.CaptureFixture[str]
) -> None:
    data = disk.config.data_dir
    _populate(disk, VICTIM, GONE)
    _populate(disk, OTHER, KEPT)
    receipt = disk.forget_user(VICTIM)
    _nothing_of(disk, VICTIM, GONE)
    assert any("--compact" in note and "qdrant-edge" in note for note in receipt.remaining)
    assert any("--compact" in note and "SQLite graph" in note for note in receipt.remaining)
    assert receipt.compacted == []
    # deleted, yet the engines still hold the bytes: the WAL and segment files, free pages
    assert _files_holding(data, GONE)

    # a second forget-user with --compact: nothing left to delete, the stores are rewritten
    code = main(["forget-user", "-u", VICTIM, "--yes", "--compact", "--json"], memory=disk)
    out = json.loads(capsys.readouterr().out)
    assert code == EXIT_OK and out["complete"] is True
    assert any("prax_memories" in c for c in out["compacted"])
    assert any("prax_knowledge_concepts" in c for c in out["compacted"])
    assert any("SQLite graph" in c for c in out["compacted"])
    assert not any("--compact" in note for note in out["remaining"])
    disk.close()

    assert _files_holding(data, GONE) == []
    assert _files_holding(data, VICTIM) == []  # not even the user id
    assert _files_holding(data, KEPT)
    reopened = _open(data)
    try:
        _everything_of(reopened, OTHER, KEPT)
        _nothing_of(reopened, VICTIM, GONE)
    finally:
        reopened.close()


def test_compact_on_the_facade(disk: PraxMemory) -> None:
    disk.remember(VICTIM, f"{GONE} is a secret")
    disk.remember(OTHER, f"{KEPT} is kept")
    disk.forget(VICTIM, disk.list_memories(VICTIM)[0].id)
    done = disk.compact()
    assert any("prax_memories" in c for c in done) and any("SQLite" in c for c in done)
    disk.close()
    assert _files_holding(disk.config.data_dir, GONE) == []
    assert _files_holding(disk.config.data_dir, KEPT)


# ----------------------------------------------------- an outage: resumable, says what is left


def _down(*_: object, **__: object) -> Any:
    raise BackendUnavailable("Qdrant delete failed: connection refused")


def test_qdrant_down_deletes_nothing_local_and_resumes_on_the_next_call(
    memory: PraxMemory, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _populate(memory, VICTIM, GONE)
    workspace = memory.config.users_dir / user_dir_name(VICTIM)
    with monkeypatch.context() as patch:
        patch.setattr(memory.vectors, "delete_user", _down)
        with pytest.raises(DeletionIncomplete) as info:
            memory.forget_user(VICTIM)
        err = info.value
        assert err.left == list(STEPS.values())  # nothing went: Qdrant is the first step
        assert "connection refused" in str(err) and "resumes" in str(err)
        assert err.marker.is_file()
        marker = json.loads(err.marker.read_text())
        assert marker["user_id"] == VICTIM and GONE not in err.marker.read_text()
        # no half-deleted user that looks complete: every local layer is still there
        assert memory.stm.get(VICTIM, "pin") is not None and GONE in memory.notes.read(VICTIM)
        assert (workspace / "trace.log").exists()
        assert (workspace / "memory" / "consolidation_state.json").exists()
        assert memory.count(VICTIM) >= 2

        code = main(["forget-user", "-u", VICTIM, "--yes", "--json"], memory=memory)
        out = json.loads(capsys.readouterr().out)
        assert code == EXIT_BACKEND and out["complete"] is False
        assert out["left"][0] == STEPS["memories"] and out["marker"] == str(err.marker)

    receipt = memory.forget_user(VICTIM)  # Qdrant is back: the retry completes
    assert not err.marker.exists() and receipt.removed["memories"] >= 2
    _nothing_of(memory, VICTIM, GONE)


def test_graph_down_midway_resumes_when_the_memory_is_next_opened(
    disk: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    _populate(disk, VICTIM, GONE)
    _populate(disk, OTHER, KEPT)
    data = disk.config.data_dir
    monkeypatch.setattr(disk.graph, "delete_user", _down)
    with pytest.raises(DeletionIncomplete) as info:
        disk.delete_user(VICTIM)
    err = info.value
    assert err.left[0] == STEPS["graph"] and STEPS["memories"] not in err.left
    assert err.removed["memories"] >= 2 and err.removed["knowledge_concepts"] >= 1
    assert disk.count(VICTIM) == 0  # what went stays gone
    assert disk.stm.get(VICTIM, "pin") is not None  # local files wait for the graph
    disk.close()

    reopened = _open(data)  # resumes the recorded deletion
    try:
        assert not err.marker.exists()
        assert reopened.graph.stats(VICTIM) == GraphStats() and reopened.stm.all(VICTIM) == []
        assert GONE in reopened.notes.read(VICTIM)  # delete_user keeps the notes
        assert reopened.consolidate(VICTIM).memories_created == 0
        _everything_of(reopened, OTHER, KEPT)
        # `forget-user` run again (it opens the memory, which resumed first) reports it all
        receipt = reopened.forget_user(VICTIM)
        assert receipt.removed["memories"] == err.removed["memories"]
        assert receipt.removed["entities"] >= 2 and receipt.removed["notes_lines"] == 1
    finally:
        reopened.close()


def test_a_deletion_still_failing_at_open_stays_recorded(disk: PraxMemory, tmp_path: Path) -> None:
    _populate(disk, VICTIM, GONE)
    port = socket.socket()
    port.bind(("127.0.0.1", 0))
    down = Neo4jGraphStore(
        f"bolt://127.0.0.1:{port.getsockname()[1]}", connection_timeout=0.5, max_retry_time=0.5
    )
    port.close()
    data = disk.config.data_dir
    disk.close()
    mem = _open(data, graph=down)
    try:
        with pytest.raises(DeletionIncomplete) as info:
            mem.forget_user(VICTIM)
        assert info.value.left[0] == STEPS["knowledge"]
        assert any("Neo4j" in n and "transaction logs" in n for n in info.value.remaining)
    finally:
        mem.close()
    again = _open(data, graph=down)  # still down at open: logged, not raised, still recorded
    try:
        assert info.value.marker.exists() and again.stm.get(VICTIM, "pin") is not None
    finally:
        again.close()


# --------------------------------------------------------------- what remains beyond reach


def test_the_receipt_lists_what_remains_outside_the_products_reach() -> None:
    edge = remaining_notes(
        vector="edge",
        vector_where="/d/qdrant-edge",
        graph="sqlite",
        graph_where="/d/graph.sqlite3",
        compacted=False,
        data_dir="/d",
    )
    assert any("qdrant-edge" in n and "write-ahead log" in n and "--compact" in n for n in edge)
    assert any("SQLite graph" in n and "--compact" in n for n in edge)
    assert any("exports" in n and "/d/okf" in n for n in edge)
    done = remaining_notes(vector="edge", graph="sqlite", compacted=True, data_dir="/d")
    assert not any("--compact" in n for n in done) and any("exports" in n for n in done)
    neo = remaining_notes(
        vector="server",
        vector_where="http://q:6333",
        graph="neo4j",
        compacted=True,
        kept_notes="/d/users/a",
        checkpointer_threads=2,
        external_traces=["/var/log/app/trace.log"],
    )
    assert any("Neo4j" in n and "transaction logs" in n for n in neo)
    assert any("Qdrant server" in n and "optimizer" in n for n in neo)
    assert any("notes kept" in n for n in neo) and any("2 conversation thread" in n for n in neo)
    assert any("/var/log/app/trace.log" in n for n in neo)
    assert any(
        "disabled" in n for n in remaining_notes(vector="disabled", graph="unused", compacted=False)
    )


def test_the_receipt_of_a_real_forget_names_exports_and_kept_notes(memory: PraxMemory) -> None:
    memory.remember(VICTIM, "a fact")
    memory.notes.update(VICTIM, "- a note\n")
    receipt = memory.forget_user(VICTIM, keep_notes=True)
    assert any("exports" in n for n in receipt.remaining)
    assert any("notes kept" in n for n in receipt.remaining)
    assert receipt.removed["memories"] == 1 and memory.notes.read(VICTIM) == "- a note\n"


def test_forget_with_long_term_memory_disabled_says_qdrant_was_not_touched(
    tmp_path: Path,
) -> None:
    mem = PraxMemory(
        MemoryConfig(enabled=False, data_dir=tmp_path / "data"),
        embeddings=HashEmbeddings(),
        embedding_dimension=384,
    )
    try:
        mem.stm.write(VICTIM, "pin", f"{GONE} pin")
        mem.notes.update(VICTIM, f"- {GONE}\n")
        receipt = mem.forget_user(VICTIM, compact=True)
        assert receipt.removed["stm_entries"] == 1 and receipt.removed["notes_lines"] == 1
        assert any("disabled" in n and "not touched" in n for n in receipt.remaining)
        assert mem.stm.all(VICTIM) == [] and mem.notes.read(VICTIM) == ""
        assert _files_holding(tmp_path / "data", GONE) == []
    finally:
        mem.close()


# ------------------------------------------------------- a consolidation running meanwhile


def _new_trace(mem: PraxMemory, user: str) -> None:
    """Something new for a consolidation of ``user`` to extract."""
    trace = mem.config.users_dir / user_dir_name(user) / "trace.log"
    with trace.open("a", encoding="utf-8") as f:
        f.write(f"user: I moved to Oslo and I work at {GONE} Labs now.\n\n")


def _started_and_waiting(
    call: Callable[[], object], what: str
) -> tuple[threading.Thread, list[Any]]:
    """Run ``call`` in a thread; it must still be waiting half a second later."""
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(call()))
    thread.start()
    thread.join(0.5)
    assert thread.is_alive(), f"{what} did not wait"
    return thread, out


def _blocked_consolidation(
    mem: PraxMemory, user: str
) -> tuple[threading.Thread, threading.Event, threading.Event, list[object]]:
    """Start ``mem.consolidate(user)`` in a thread that stops inside the extraction until
    released (fault injection: the real rule extractor runs once released)."""
    _new_trace(mem, user)
    inside, release = threading.Event(), threading.Event()
    extractor = mem.consolidator.extractor
    real = extractor.extract

    def slow(*args: Any, **kwargs: Any) -> Any:
        inside.set()
        assert release.wait(10)
        return real(*args, **kwargs)

    extractor.extract = slow  # type: ignore[method-assign]
    results: list[object] = []
    thread = threading.Thread(target=lambda: results.append(mem.consolidate(user)))
    thread.start()
    assert inside.wait(10), "the consolidation never reached the extraction"
    return thread, release, inside, results


def test_forget_waits_for_a_running_consolidation_and_leaves_nothing_it_wrote(
    memory: PraxMemory,
) -> None:
    _populate(memory, VICTIM, GONE)
    thread, release, _, results = _blocked_consolidation(memory, VICTIM)
    deleting, receipts = _started_and_waiting(
        lambda: memory.forget_user(VICTIM), "the deletion (for the running consolidation)"
    )
    release.set()
    thread.join(10)
    deleting.join(30)
    assert results and receipts  # the consolidation finished, then the deletion did
    _nothing_of(memory, VICTIM, GONE)


def _blocked_deletion(mem: PraxMemory, user: str) -> tuple[threading.Thread, threading.Event]:
    """Start ``mem.forget_user(user)`` in a thread that stops in its first step (deleting
    the memories) until released (fault injection)."""
    inside, release = threading.Event(), threading.Event()
    vectors = mem.parts.ltm.vectors
    real = vectors.delete_user

    def slow(user_id: str) -> int:
        inside.set()
        assert release.wait(10)
        return real(user_id)

    vectors.delete_user = slow  # type: ignore[method-assign]
    thread = threading.Thread(target=mem.forget_user, args=(user,))
    thread.start()
    assert inside.wait(10), "the deletion never started"
    return thread, release


def test_a_consolidation_asked_for_during_a_deletion_waits_and_finds_nothing(
    memory: PraxMemory,
) -> None:
    _populate(memory, VICTIM, GONE)
    _new_trace(memory, VICTIM)
    deleting, release = _blocked_deletion(memory, VICTIM)
    consolidating, results = _started_and_waiting(
        lambda: memory.consolidate(VICTIM), "the consolidation (for the running deletion)"
    )
    release.set()
    deleting.join(30)
    consolidating.join(30)
    assert results and results[0].memories_created == 0
    _nothing_of(memory, VICTIM, GONE)


def test_a_consolidation_of_another_process_waits_through_the_deletion(
    memory: PraxMemory,
) -> None:
    """Another process waits on the lock file, which the deletion removes with the user's
    folder: it must go on waiting (on a new file), not fail."""
    from langgraph_prax_memory.consolidation import UserRunLock

    _populate(memory, VICTIM, GONE)
    other = UserRunLock(memory.config)  # its own lease table: only the lock file is shared
    deleting, release = _blocked_deletion(memory, VICTIM)
    waiting, got = _started_and_waiting(
        lambda: other.acquire(VICTIM, timeout=20), "the other process (for the deletion)"
    )
    release.set()
    deleting.join(30)
    waiting.join(30)
    assert isinstance(got[0], str)  # a token: it waited, then held the (new) lock
    other.release(VICTIM, got[0])
    assert memory.count(VICTIM) == 0


def test_a_consolidation_that_outlasts_the_wait_leaves_the_deletion_pending(
    memory: PraxMemory,
) -> None:
    from langgraph_prax_memory._forget import forget

    _populate(memory, VICTIM, GONE)
    thread, release, _, _ = _blocked_consolidation(memory, VICTIM)
    try:
        with pytest.raises(DeletionIncomplete, match="consolidation of the user was still") as info:
            forget(memory.parts, VICTIM, wait=0.2)
        assert info.value.left[0] == STEPS["memories"] and info.value.marker.exists()
        assert memory.count(VICTIM) >= 2  # nothing was deleted
    finally:
        release.set()
        thread.join(10)
    receipt = memory.forget_user(VICTIM)  # the next call completes it
    assert receipt.removed["memories"] >= 2 and not info.value.marker.exists()
    _nothing_of(memory, VICTIM, GONE)


def test_forgetting_a_user_never_seen_makes_no_folder_for_them(memory: PraxMemory) -> None:
    for keep_notes in (False, True):
        memory.forget_user("never-seen", keep_notes=keep_notes)
        assert not (memory.config.users_dir / user_dir_name("never-seen")).exists()


# ------------------------------------------------------- a notes update running meanwhile


def test_forget_waits_for_a_notes_update_of_the_user(
    memory: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``forget_user`` racing ``notes.update`` of the same user (issue 26, item 7): the
    deletion waits for the update (the notes lock), removes everything, and notes writes work
    at once afterwards, without a resume."""
    from langgraph_prax_memory.notes._git import WorkspaceRepo

    memory.notes.update(OTHER, f"- {KEPT}\n")
    memory.forget_user(OTHER)  # every step's code loaded: the deletion below is quick
    memory.notes.update(VICTIM, f"- {GONE} lives in Lisbon\n")
    inside, release = threading.Event(), threading.Event()
    real = WorkspaceRepo.commit_file

    def slow_commit(self: WorkspaceRepo, relpath: str, message: str) -> str | None:
        inside.set()  # fault injection: git is slow to commit
        assert release.wait(10)
        return real(self, relpath, message)

    monkeypatch.setattr(WorkspaceRepo, "commit_file", slow_commit)
    updated: list[object] = []

    def update() -> None:
        try:
            updated.append(memory.notes.update(VICTIM, f"- {GONE} moved to Oslo\n"))
        except Exception as exc:  # reported below
            updated.append(exc)

    updating = threading.Thread(target=update)
    updating.start()
    assert inside.wait(10), "the update never reached its commit"
    deleting, receipts = _started_and_waiting(
        lambda: memory.forget_user(VICTIM), "the deletion (for the running notes update)"
    )
    release.set()
    updating.join(30)
    deleting.join(30)
    monkeypatch.undo()
    assert updated and not isinstance(updated[0], Exception), updated
    assert receipts and receipts[0].removed["notes_lines"] == 1  # what the update wrote
    assert not (memory.config.data_dir / PENDING_DIR).exists()
    _nothing_of(memory, VICTIM, GONE)
    memory.notes.update(VICTIM, "- back\n")  # no resume needed
    assert memory.notes.read(VICTIM) == "- back\n"


def test_forget_racing_notes_updates_never_stops_half_way(memory: PraxMemory) -> None:
    """Updates of the user's notes in a loop while the user is deleted again and again: every
    deletion completes, no update fails, and no error blames git's executable."""
    errors: list[str] = []
    stop = threading.Event()

    def writer() -> None:
        i = 0
        while not stop.is_set():
            try:
                memory.notes.update(VICTIM, f"- {GONE} note {i}\n" * 3)
            except Exception as exc:
                errors.append(f"{type(exc).__name__}: {exc}")
            i += 1

    memory.notes.update(VICTIM, f"- {GONE}\n")
    thread = threading.Thread(target=writer)
    thread.start()
    try:
        for _ in range(6):
            memory.forget_user(VICTIM)  # raises DeletionIncomplete when it stops half-way
    finally:
        stop.set()
        thread.join(30)
    assert errors == []
    memory.notes.update(VICTIM, "- after\n")
    assert memory.notes.read(VICTIM) == "- after\n"
    assert not (memory.config.data_dir / PENDING_DIR).exists()


def test_a_notes_update_waiting_while_another_process_deletes_the_user_then_writes(
    memory: PraxMemory,
) -> None:
    """Another process deletes the user's workspace under the notes lock (what the deletion's
    last step does) while an update here waits for that lock: the update goes on waiting on
    the new lock file and writes, instead of failing because the folder went."""
    import subprocess
    import sys
    import textwrap

    memory.notes.update(VICTIM, f"- {GONE}\n")
    path = memory.notes.path(VICTIM)
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
                import shutil, time
                from pathlib import Path
                from langgraph_prax_memory._atomic import locked
                path = Path({str(path)!r})
                doomed = path.parent.with_name("." + path.parent.name + ".deleting")
                with locked(path):
                    print("held", flush=True)
                    time.sleep(0.5)
                    path.parent.rename(doomed)
                shutil.rmtree(doomed)
            """),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        result = memory.notes.update(VICTIM, "- after the deletion\n")
    finally:
        assert child.wait(30) == 0
    assert result.raw_commit and memory.notes.read(VICTIM) == "- after the deletion\n"


def test_git_run_in_a_removed_workspace_does_not_blame_the_git_executable(tmp_path: Path) -> None:
    from langgraph_prax_memory.notes._git import (
        GitUnavailableError,
        NotesGitError,
        WorkspaceRepo,
        resolve_git,
    )

    repo = WorkspaceRepo(tmp_path / "gone", resolve_git(None))
    with pytest.raises(NotesGitError, match="was removed while its notes") as info:
        repo.run("status")
    assert not isinstance(info.value, GitUnavailableError)
    assert "executable" not in str(info.value)
