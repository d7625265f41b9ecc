"""A full disk never kills the process: writes are refused cleanly and nothing is lost.

Runs on a real, small tmpfs (mounted by the test: the CI machines run as root). The engine
memory-maps sparse files, so without the free-space guard the first long-term write on a
nearly full disk ends the process with SIGBUS.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.services import unavailable

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


def _run(data: Path, count: int) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", WRITER, str(data), str(count), f"run{next(_TAGS)}"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert proc.returncode == 0, f"the process died (rc {proc.returncode}): {proc.stderr[-2000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=400m", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        unavailable("a tmpfs mount", done.stderr.strip(), hint="see docs/degradation.md")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _ballast(disk: Path, leave_mib: int) -> Path:
    """Fill ``disk`` until about ``leave_mib`` MiB are free."""
    ballast = disk / "ballast"
    free = shutil.disk_usage(disk).free - leave_mib * 1024 * 1024
    with ballast.open("wb") as fh:
        chunk = b"\0" * (1024 * 1024)
        for _ in range(max(0, free) // len(chunk)):
            fh.write(chunk)
    return ballast


def test_full_disk_refuses_writes_and_keeps_every_acknowledged_one(tmpfs: Path) -> None:
    data = tmpfs / "data"
    before = _run(data, 20)  # room enough: 20 acknowledged memories
    assert before["refused"] is None and before["count"] == 20
    ballast = _ballast(tmpfs, leave_mib=40)  # the disk fills up (unguarded: SIGBUS here)
    full = _run(data, 2000)
    refused = str(full["refused"])
    assert refused.startswith("MemoryWriteError DiskFullError")
    assert "disk space" in refused and "MEMORY_DISK_HEADROOM_MB" in refused
    assert full["acked"] == []  # no id was handed out for a write that did not land
    assert full["stm"] == "works"  # the scratchpad is a small file: it still writes
    # space returns: the folder opens, every acknowledged write is there, writes work again
    ballast.unlink()
    after = _run(data, 5)
    assert after["refused"] is None and len(after["acked"]) == 5  # type: ignore[arg-type]
    assert after["count"] == 25


def test_a_tiny_disk_refuses_to_open_instead_of_crashing(tmpfs: Path, tmp_path: Path) -> None:
    # a store written elsewhere, then moved (sparse files kept sparse) onto a 30 MB disk
    source = tmp_path / "big" / "data"
    assert _run(source, 20)["refused"] is None
    small = tmpfs / "small"
    small.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=30m", "tmpfs", str(small)], check=True)
    try:
        subprocess.run(["cp", "-a", "--sparse=always", str(source), str(small)], check=True)
        on_small = _run(small / "data", 1)
        assert on_small["refused"] and "disk space" in str(on_small["refused"])
        assert on_small["stm"] == "works"
        assert on_small["count"] is None and "disk space" in str(on_small["count_error"])
    finally:
        subprocess.run(["umount", "-l", str(small)], check=False)


# ------------------------------------------------------------------ user notes (issue 26, item 5)


@pytest.fixture
def small_disk(tmpfs: Path) -> Iterator[Path]:
    """An 8 MiB tmpfs of its own (notes need little; filling 400 MiB would be slow)."""
    mount = tmpfs / "small"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill_up(disk: Path) -> Path:
    """Fill ``disk`` to the last byte."""
    ballast = disk / "ballast"
    fd = os.open(ballast, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        for size in (1024 * 1024, 4096, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)
    return ballast


def _git_log(workspace: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(workspace), "log", "-p", "--format=%s"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_notes_on_a_full_disk_are_refused_cleanly_and_work_again_once_space_returns(
    small_disk: Path,
) -> None:
    from langgraph_prax_memory.config import MemoryConfig
    from langgraph_prax_memory.errors import MemoryWriteError
    from langgraph_prax_memory.notes import UserNotes

    notes = UserNotes(MemoryConfig(data_dir=small_disk / "data"))
    notes.update("alice", "name: Alice\n")
    ballast = _fill_up(small_disk)
    with pytest.raises(MemoryWriteError, match=r"disk space|No space left"):
        notes.update("bob", "name: Bob\n")  # a new user: the repository cannot be made
    assert not (notes.workspace("bob") / ".git").exists()  # and no half-made one is left
    with pytest.raises(MemoryWriteError, match=r"disk space|No space left"):
        notes.update("alice", "name: Refused\n")
    assert notes.read("alice") == "name: Alice\n" and notes.read("bob") == ""
    ballast.unlink()  # space returns: every user's notes write again, nothing to repair
    notes.update("bob", "name: Bob\n")
    notes.update("alice", "name: Alice\ntimezone: UTC\n")
    assert notes.read("bob") == "name: Bob\n"
    assert "Refused" not in _git_log(notes.workspace("alice"))


def test_notes_whose_disk_fills_up_during_the_commit_keep_the_previous_text(
    small_disk: Path, tmp_path: Path
) -> None:
    """The disk fills up while git commits (another process filled it: fault injection by a
    git wrapper that fills the real disk first). The update raises, and the file keeps the
    previous text (putting it back needs no space), so neither a read nor the next update
    sees the refused text."""
    from langgraph_prax_memory.config import MemoryConfig
    from langgraph_prax_memory.errors import MemoryWriteError
    from langgraph_prax_memory.notes import UserNotes

    real = shutil.which("git")
    flag = tmp_path / "fill-at-the-next-commit"
    wrapper = tmp_path / "git"
    wrapper.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do\n'
        f'  if [ "$a" = commit ] && [ -e {flag} ]; then\n'
        f"    rm -f {flag}; dd if=/dev/zero of={small_disk / 'ballast'} bs=4k 2>/dev/null\n"
        "  fi\n"
        "done\n"
        f'exec {real} "$@"\n'
    )
    wrapper.chmod(0o755)
    notes = UserNotes(MemoryConfig(data_dir=small_disk / "data"), git_executable=str(wrapper))
    notes.update("alice", "name: Alice\n")
    flag.touch()
    with pytest.raises(MemoryWriteError, match="disk space"):
        notes.update("alice", "name: Refused\n" + "- detail\n" * 50)
    assert notes.read("alice") == "name: Alice\n"
    (small_disk / "ballast").unlink()
    notes.update("alice", "name: Alice\ntimezone: UTC\n")
    assert notes.read("alice") == "name: Alice\ntimezone: UTC\n"
    assert "Refused" not in _git_log(notes.workspace("alice"))


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
    tmpfs: Path,
) -> None:
    disk = tmpfs / "few-inodes"
    disk.mkdir()
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=400m,nr_inodes=3000", "tmpfs", str(disk)],
        check=True,
    )
    try:
        proc = subprocess.run(
            [sys.executable, "-c", NO_INODES, str(disk)],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=ROOT,
        )
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
    assert proc.returncode == 0, f"the process died (rc {proc.returncode}): {proc.stderr[-2000:]}"
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    for call in ("consolidate", "close"):
        raised = out[call]["raised"]
        assert raised and "MemoryWriteError" in raised, (call, out[call])
        assert "DiskFullError" in raised and "disk" in out[call]["message"], (call, out[call])
    assert "nothing" in out["consolidate"]["message"]  # says what happened to the trace
    assert out["count"] == 5  # every acknowledged memory is there once space returns
    assert out["created"] >= 1  # and the trace the failed run did not consolidate was kept
