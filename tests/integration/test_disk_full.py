"""A full disk never kills the process: writes are refused cleanly and nothing is lost.

Runs on real, small tmpfs mounts, as root or as a normal user: each disk is mounted in a
private mount namespace of its own (an unprivileged user namespace for a normal user;
tests/disks.py), and whatever must see it runs inside that namespace. The engine memory-maps
sparse files, so without the free-space guard the first long-term write on a nearly full disk
ends the process with SIGBUS.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.disks import Disk, make_disk

pytestmark = pytest.mark.integration
ROOT = Path(__file__).parents[2]
_TAGS = itertools.count()  # each run writes texts of its own (no dedupe across runs)

WRITER = textwrap.dedent("""
    import json, sys
    from langgraph_prax_memory import MemoryConfig, MemoryWriteError, PraxMemory
    from langgraph_prax_memory.errors import BackendUnavailable
    from tests.fakes import HashEmbeddings
    data, count, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    out = {"acked": [], "refused": None, "stm": None}
    mem = PraxMemory(MemoryConfig(data_dir=data), embeddings=HashEmbeddings(),
                     embedding_dimension=384)
    try:
        for i in range(count):
            try:
                out["acked"].append(mem.remember("alice", f"{tag} fact {i}: " + "z" * 300))
            except (MemoryWriteError, BackendUnavailable) as exc:
                kind = "MemoryWriteError" if isinstance(exc, MemoryWriteError) else "other"
                out["refused"] = f"{kind} {type(exc).__name__}: {exc}"
                break
        mem.stm.write("alice", "still", "works")
        out["stm"] = mem.stm.get("alice", "still").content
        out["count"] = None
        try:
            out["count"] = mem.count("alice")
        except BackendUnavailable as exc:
            out["count_error"] = str(exc)
    finally:
        mem.close()
    print(json.dumps(out))
""")


def _json_of(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The last line a script printed; the script must have ended normally."""
    assert proc.returncode == 0, f"the process died (rc {proc.returncode}): {proc.stderr[-2000:]}"
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def _run(disk: Disk | None, data: Path, count: int) -> dict[str, Any]:
    """WRITER on ``data``: on ``disk`` (inside its namespace), or on the host's disk."""
    args = [str(data), str(count), f"run{next(_TAGS)}"]
    if disk is not None:
        return _json_of(disk.python(WRITER, *args))
    proc = subprocess.run(
        [sys.executable, "-c", WRITER, *args], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    return _json_of(proc)


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Disk]:
    """A real 512 MiB tmpfs (no root needed: tests/disks.py): room for the embedded store's
    memory-mapped files (each payload index reserves a few MiB) and its 100 MiB headroom."""
    disk = make_disk(tmp_path / "disk", "size=512m")
    try:
        yield disk
    finally:
        disk.close()


BALLAST = textwrap.dedent("""
    import shutil, sys
    from pathlib import Path
    disk, leave_mib = Path(sys.argv[1]), int(sys.argv[2])
    free = shutil.disk_usage(disk).free - leave_mib * 1024 * 1024
    with (disk / "ballast").open("wb") as fh:
        chunk = b"\\0" * (1024 * 1024)
        for _ in range(max(0, free) // len(chunk)):
            fh.write(chunk)
""")


def _ballast(disk: Disk, leave_mib: int) -> Path:
    """Fill ``disk`` until about ``leave_mib`` MiB are free."""
    _json_of(disk.python(BALLAST + "print('{}')", str(disk.path), str(leave_mib)))
    return disk.path / "ballast"


def test_the_disk_is_a_real_tmpfs_that_fills_up_and_the_host_is_not_touched(
    tmpfs: Disk,
) -> None:
    small = tmpfs.mount("small", "size=1m")
    full = tmpfs.run(["dd", "if=/dev/zero", f"of={small.path / 'f'}", "bs=64k"], check=False)
    assert full.returncode != 0 and "No space left on device" in full.stderr
    seen = tmpfs.run(["df", "--output=fstype,size", str(small.path)]).stdout.split()
    assert seen[-2:] == ["tmpfs", "1024"]
    # outside the namespace: the host's folder, empty but for the guard, and never written
    assert sorted(p.name for p in tmpfs.path.iterdir()) == ["NOT-THE-TMPFS"]


def test_full_disk_refuses_writes_and_keeps_every_acknowledged_one(tmpfs: Disk) -> None:
    data = tmpfs.path / "data"
    before = _run(tmpfs, data, 20)  # room enough: 20 acknowledged memories
    assert before["refused"] is None and before["count"] == 20
    ballast = _ballast(tmpfs, leave_mib=40)  # the disk fills up (unguarded: SIGBUS here)
    full = _run(tmpfs, data, 2000)
    refused = str(full["refused"])
    assert refused.startswith("MemoryWriteError DiskFullError")
    assert "disk space" in refused and "MEMORY_DISK_HEADROOM_MB" in refused
    assert full["acked"] == []  # no id was handed out for a write that did not land
    assert full["stm"] == "works"  # the scratchpad is a small file: it still writes
    # space returns: the folder opens, every acknowledged write is there, writes work again
    tmpfs.run(["rm", str(ballast)])
    after = _run(tmpfs, data, 5)
    assert after["refused"] is None and len(after["acked"]) == 5
    assert after["count"] == 25


def test_a_tiny_disk_refuses_to_open_instead_of_crashing(tmpfs: Disk, tmp_path: Path) -> None:
    # a store written elsewhere, then moved (sparse files kept sparse) onto a 30 MB disk
    source = tmp_path / "big" / "data"
    assert _run(None, source, 20)["refused"] is None
    small = tmpfs.mount("small", "size=30m")
    tmpfs.run(["cp", "-a", "--sparse=always", str(source), str(small.path)])
    on_small = _run(tmpfs, small.path / "data", 1)
    assert on_small["refused"] and "disk space" in str(on_small["refused"])
    assert on_small["stm"] == "works"
    assert on_small["count"] is None and "disk space" in str(on_small["count_error"])


# ------------------------------------------------------------------ user notes (issue 26, item 5)


@pytest.fixture
def small_disk(tmpfs: Disk) -> Disk:
    """An 8 MiB tmpfs of its own (notes need little; filling 512 MiB would be slow)."""
    return tmpfs.mount("small", "size=8m")


#: What the notes scripts share: the notes on the disk, each update's refusal, the git log.
NOTES = textwrap.dedent("""
    import json, os, subprocess, sys
    from pathlib import Path
    from langgraph_prax_memory.config import MemoryConfig
    from langgraph_prax_memory.errors import MemoryWriteError
    from langgraph_prax_memory.notes import UserNotes
    disk = Path(sys.argv[1])
    out = {}

    def refusal(call):
        try:
            call()
        except MemoryWriteError as exc:  # anything else ends the script with its traceback
            return str(exc)
        return None

    def fill_up():
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
        return ballast

    def git_log(workspace):
        return subprocess.run(["git", "-C", str(workspace), "log", "-p", "--format=%s"],
                              capture_output=True, text=True, check=True).stdout
""")

NOTES_ON_A_FULL_DISK = NOTES + textwrap.dedent("""
    notes = UserNotes(MemoryConfig(data_dir=disk / "data"))
    notes.update("alice", "name: Alice\\n")
    ballast = fill_up()
    # a new user: the repository cannot be made (and no half-made one may be left)
    out["bob"] = refusal(lambda: notes.update("bob", "name: Bob\\n"))
    out["bob_git"] = (notes.workspace("bob") / ".git").exists()
    out["alice"] = refusal(lambda: notes.update("alice", "name: Refused\\n"))
    out["read"] = [notes.read("alice"), notes.read("bob")]
    ballast.unlink()  # space returns: every user's notes write again, nothing to repair
    notes.update("bob", "name: Bob\\n")
    notes.update("alice", "name: Alice\\ntimezone: UTC\\n")
    out["after"] = [notes.read("alice"), notes.read("bob")]
    out["log"] = git_log(notes.workspace("alice"))
    print(json.dumps(out))
""")


def test_notes_on_a_full_disk_are_refused_cleanly_and_work_again_once_space_returns(
    small_disk: Disk,
) -> None:
    out = _json_of(small_disk.python(NOTES_ON_A_FULL_DISK, str(small_disk.path)))
    for user in ("bob", "alice"):
        assert re.search(r"disk space|No space left", str(out[user])), (user, out[user])
    assert out["bob_git"] is False
    assert out["read"] == ["name: Alice\n", ""]
    assert out["after"] == ["name: Alice\ntimezone: UTC\n", "name: Bob\n"]
    assert "Refused" not in str(out["log"])


NOTES_FILLED_DURING_THE_COMMIT = NOTES + textwrap.dedent("""
    wrapper, flag = sys.argv[2], Path(sys.argv[3])
    notes = UserNotes(MemoryConfig(data_dir=disk / "data"), git_executable=wrapper)
    notes.update("alice", "name: Alice\\n")
    flag.touch()
    out["refused"] = refusal(lambda: notes.update("alice", "name: Refused\\n" + "- x\\n" * 50))
    out["read"] = notes.read("alice")
    (disk / "ballast").unlink()
    notes.update("alice", "name: Alice\\ntimezone: UTC\\n")
    out["after"] = notes.read("alice")
    out["log"] = git_log(notes.workspace("alice"))
    print(json.dumps(out))
""")


def test_notes_whose_disk_fills_up_during_the_commit_keep_the_previous_text(
    small_disk: Disk, tmp_path: Path
) -> None:
    """The disk fills up while git commits (another process filled it: fault injection by a
    git wrapper that fills the real disk first). The update raises, and the file keeps the
    previous text (putting it back needs no space), so neither a read nor the next update
    sees the refused text."""
    real = shutil.which("git")
    flag = tmp_path / "fill-at-the-next-commit"
    wrapper = tmp_path / "git"
    wrapper.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do\n'
        f'  if [ "$a" = commit ] && [ -e {flag} ]; then\n'
        f"    rm -f {flag}; dd if=/dev/zero of={small_disk.path / 'ballast'} bs=4k 2>/dev/null\n"
        "  fi\n"
        "done\n"
        f'exec {real} "$@"\n'
    )
    wrapper.chmod(0o755)
    proc = small_disk.python(
        NOTES_FILLED_DURING_THE_COMMIT, str(small_disk.path), str(wrapper), str(flag)
    )
    out = _json_of(proc)
    assert "disk space" in str(out["refused"]), out["refused"]
    assert out["read"] == "name: Alice\n"
    assert out["after"] == "name: Alice\ntimezone: UTC\n"
    assert "Refused" not in str(out["log"])


# ---------------------------------------------- consolidate and close (issue 26, item 6)

NO_INODES = textwrap.dedent("""
    import json, os, sys
    from pathlib import Path
    from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryError
    from langgraph_prax_memory._validation import user_dir_name
    from tests.fakes import HashEmbeddings
    disk = Path(sys.argv[1])
    data, filler = disk / "data", disk / "filler"

    def outcome(call):
        try:
            call()
        except PraxMemoryError as exc:
            return {"raised": [c.__name__ for c in type(exc).__mro__], "message": str(exc)}
        except BaseException as exc:  # a bare error: what the test refuses
            return {"raised": [type(exc).__name__], "message": str(exc)}
        return {"raised": None}

    def open_memory():
        return PraxMemory(MemoryConfig(data_dir=data), embeddings=HashEmbeddings(),
                          embedding_dimension=384)

    out = {}
    mem = open_memory()
    out["acked"] = [mem.remember("alice", f"Alice fact {i}: " + "y" * 100) for i in range(5)]
    trace = mem.config.users_dir / user_dir_name("alice") / "trace.log"
    trace.parent.mkdir(parents=True, exist_ok=True)
    trace.write_text("user: I moved to Berlin and I prefer polars over pandas.\\n\\n")
    filler.mkdir()
    try:  # the disk is full: not a byte short, but without a free inode (ENOSPC alike)
        for i in range(1_000_000):
            (filler / str(i)).touch()
    except OSError:
        pass
    out["consolidate"] = outcome(lambda: mem.consolidate("alice"))
    out["close"] = outcome(mem.close)
    for f in filler.iterdir():  # space returns
        f.unlink()
    mem = open_memory()
    try:
        out["count"] = mem.count("alice")
        out["created"] = mem.consolidate("alice").memories_created
    finally:
        mem.close()
    print(json.dumps(out))
""")


def test_consolidate_and_close_on_a_full_disk_raise_the_products_errors_and_lose_nothing(
    tmpfs: Disk,
) -> None:
    disk = tmpfs.mount("few-inodes", "size=512m,nr_inodes=3000")
    out = _json_of(disk.python(NO_INODES, str(disk.path)))
    for call in ("consolidate", "close"):
        raised = out[call]["raised"]
        assert raised and "MemoryWriteError" in raised, (call, out[call])
        assert "DiskFullError" in raised and "disk" in out[call]["message"], (call, out[call])
    assert "nothing" in out["consolidate"]["message"]  # says what happened to the trace
    assert out["count"] == 5  # every acknowledged memory is there once space returns
    assert out["created"] >= 1  # and the trace the failed run did not consolidate was kept
