"""A full disk never kills the process: writes are refused cleanly and nothing is lost.

Runs on a real, small tmpfs (mounted by the test: the CI machines run as root). The engine
memory-maps sparse files, so without the free-space guard the first long-term write on a
nearly full disk ends the process with SIGBUS.
"""

from __future__ import annotations

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
        message = f"cannot mount a tmpfs here ({done.stderr.strip()}); see docs/degradation.md"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
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
