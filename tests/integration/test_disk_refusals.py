"""The last raw errors of a refusing disk (issue 40, item 9), on real disks.

A full disk under the SQLite graph (and the knowledge tables in its file), a read-only data
folder, and user notes refused at every point a write can fail: each is one of the library's
typed errors with a message that says what to do, and nothing is lost. The disks are real
tmpfs mounts in a private namespace (``tests/disks.py``, as ``test_disk_full.py``); every
script runs inside it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.disks import Disk, make_disk

pytestmark = pytest.mark.integration

COMMON = textwrap.dedent("""
    import json, os, sys
    from pathlib import Path
    disk = Path(sys.argv[1])
    out = {}

    def fill_up(leave=0):
        '''Fill the disk to its last byte, then give ``leave`` bytes back.'''
        ballast = disk / "ballast"
        fd = os.open(ballast, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            for size in (1024 * 1024, 4096, 1):
                try:
                    while True:
                        os.write(fd, b"\\0" * size)
                except OSError:
                    pass
        finally:
            os.close(fd)
        if leave:
            os.truncate(ballast, max(0, ballast.stat().st_size - leave))
        return ballast

    def outcome(call):
        '''What ``call`` raised: the error's classes and message (None when it worked).'''
        try:
            call()
        except BaseException as exc:  # every kind is reported: the test judges it
            return {"raised": [c.__name__ for c in type(exc).__mro__], "message": str(exc)}
        return None
""")


def _json_of(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, f"the process died (rc {proc.returncode}): {proc.stderr[-3000:]}"
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Disk]:
    """A real 8 MiB tmpfs (no root needed: tests/disks.py)."""
    made = make_disk(tmp_path / "disk", "size=8m")
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def roomy_disk(tmp_path: Path) -> Iterator[Disk]:
    """A real 400 MiB tmpfs: room for an embedded vector store (its guard wants 100 MiB)."""
    made = make_disk(tmp_path / "roomy", "size=400m")
    try:
        yield made
    finally:
        made.close()


# --------------------------------------------------------------- the SQLite graph, full

GRAPH_ON_A_FULL_DISK = COMMON + textwrap.dedent("""
    from langgraph_prax_memory.graph import SQLiteGraphStore
    from langgraph_prax_memory.knowledge import SQLiteKnowledgeStore
    store = SQLiteGraphStore(disk / "data" / "graph.sqlite")
    knowledge = SQLiteKnowledgeStore(store)
    for i in range(20):
        store.add_relation("alice", f"Alice {i}", "Acme", "works_at")
    before = store.stats("alice").model_dump()
    ballast = fill_up()
    out["refused"] = None
    for i in range(300):  # until the page cache gives out: each write a few pages
        got = outcome(lambda: store.merge_entity("alice", f"entity {i} " + "x" * 3000))
        if got is not None:
            out["refused"] = got
            break
    out["knowledge"] = outcome(
        lambda: knowledge.merge_concept("alice", "papers", "Attention", description="y" * 9000)
    )
    out["same"] = store.stats("alice").model_dump()
    out["before"] = before
    ballast.unlink()  # space returns: the same store writes again
    store.merge_entity("alice", "Bob")
    out["after"] = store.stats("alice").model_dump()
    print(json.dumps(out))
""")


def test_a_graph_write_on_a_full_disk_is_a_disk_full_error_and_loses_nothing(
    disk: Disk,
) -> None:
    """Before: ``sqlite3.OperationalError: cannot rollback - no transaction is active`` (the
    failed COMMIT had already rolled back, and the second ROLLBACK raised)."""
    out = _json_of(disk.python(GRAPH_ON_A_FULL_DISK, str(disk.path)))
    for what in ("refused", "knowledge"):
        got = out[what]
        assert got is not None, what
        assert "DiskFullError" in got["raised"] and "MemoryWriteError" in got["raised"], got
        assert "disk space" in got["message"] and "nothing" in got["message"], got
        assert "cannot rollback" not in got["message"]
    assert out["same"]["relations"] == out["before"]["relations"] == 20
    assert out["after"]["entities"] == out["same"]["entities"] + 1


# --------------------------------------------------------------- a read-only data folder

MAKE_DATA = textwrap.dedent("""
    import sys
    from langgraph_prax_memory import MemoryConfig, PraxMemory
    from tests.fakes import HashEmbeddings
    with PraxMemory(MemoryConfig(data_dir=sys.argv[1]), embeddings=HashEmbeddings(),
                    embedding_dimension=384) as mem:
        mem.remember("alice", "Alice drinks green tea")
        mem.graph.add_relation("alice", "Alice", "Tbilisi", "lives_in")
        mem.stm.write("alice", "todo", "unpack")
""")

OPEN_READ_ONLY = COMMON + textwrap.dedent("""
    from langgraph_prax_memory import MemoryConfig, PraxMemory
    from tests.fakes import HashEmbeddings
    out["open"] = outcome(lambda: PraxMemory(MemoryConfig(data_dir=disk / "data"),
                                             embeddings=HashEmbeddings(),
                                             embedding_dimension=384).close())
    print(json.dumps(out))
""")


def test_a_read_only_data_folder_is_a_typed_error_naming_the_folder(roomy_disk: Disk) -> None:
    """Before: a raw ``OSError: [Errno 30] Read-only file system: '…/qdrant-edge/.lock'``."""
    disk = roomy_disk
    data = disk.path / "data"
    made = disk.python(MAKE_DATA, str(data))
    assert made.returncode == 0, made.stderr[-3000:]
    disk.run(["mount", "-o", "remount,ro", str(disk.path)])
    out = _json_of(disk.python(OPEN_READ_ONLY, str(disk.path)))
    got = out["open"]
    assert got is not None and "PraxMemoryError" in got["raised"], got
    assert "BackendUnavailable" in got["raised"], got
    assert "read-only" in got["message"] and str(data) in got["message"], got
    assert "MEMORY_DATA_DIR" in got["message"], got
    cli = disk.run(
        [sys.executable, "-m", "langgraph_prax_memory.cli", "--data-dir", str(data), "stats",
         "-u", "alice"],
        check=False,
    )  # fmt: skip
    assert cli.returncode == 3, (cli.stdout, cli.stderr)
    assert "read-only" in cli.stderr and "Traceback" not in cli.stderr


# --------------------------------------------------------------- notes, refused anywhere

NOTES_AT_EVERY_POINT = COMMON + textwrap.dedent("""
    import shutil
    from langgraph_prax_memory.config import MemoryConfig
    from langgraph_prax_memory.notes import UserNotes
    notes = UserNotes(MemoryConfig(data_dir=disk / "data"))
    notes.update("alice", "name: Alice\\n")
    out["trials"] = []
    for pages in range(28):  # 0 to 27 pages of 4 KiB left: the disk refuses at each step
        ballast = fill_up(leave=pages * 4096)
        text = f"name: Alice\\nvisit: {pages}\\n" + "- detail\\n" * 40
        trial = {
            "pages": pages,
            "existing": outcome(lambda: notes.update("alice", text)),
            "new": outcome(lambda: notes.update(f"user{pages}", "name: New\\n")),
        }
        trial["alice"] = notes.read("alice")
        trial["new_text"] = notes.read(f"user{pages}")
        out["trials"].append(trial)
        ballast.unlink()
        notes.update("alice", "name: Alice\\n")  # space is back: back to the start
        shutil.rmtree(notes.workspace(f"user{pages}"), ignore_errors=True)
    print(json.dumps(out))
""")


def test_notes_refused_anywhere_on_a_full_disk_are_a_disk_full_error(disk: Disk) -> None:
    """Issue 40, item 9: 10 of 28 such refusals came as ``MemoryWriteError`` or
    ``NotesGitError``; each is a ``DiskFullError`` now, and the notes stay whole."""
    out = _json_of(disk.python(NOTES_AT_EVERY_POINT, str(disk.path), timeout=600))
    refused = 0
    for trial in out["trials"]:
        for what in ("existing", "new"):
            got = trial[what]
            if got is None:
                continue
            refused += 1
            assert "DiskFullError" in got["raised"], (trial["pages"], what, got)
            assert "disk space" in got["message"], (trial["pages"], what, got)
        # a refused update leaves the previous text, an accepted one its own
        assert trial["alice"].startswith("name: Alice\n"), trial
        assert trial["new_text"] in ("", "name: New\n"), trial
    assert refused >= 20  # most trials refuse at least one write
