"""Crash safety: a process killed between the raw commit and the compaction commit."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.notes import UserNotes

RAW = "name: Alice\ntimezone: UTC\n## Preferences\n- tea\n- tea\ntimezone: Europe/Oslo\n"

CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from langgraph_prax_memory.config import MemoryConfig
    from langgraph_prax_memory.notes import UserNotes

    class CrashAfterRawCommit(UserNotes):
        def _after_raw_commit(self, user_id):
            os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no finally blocks

    notes = CrashAfterRawCommit(MemoryConfig(data_dir=sys.argv[1]))
    notes.update("alice", sys.argv[2])
    raise SystemExit("unreachable: the update should have been killed")
    """
)


def git(workspace: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(workspace), *args], capture_output=True, text=True, check=True
    ).stdout


def test_kill_between_raw_and_compaction_commit_leaves_consistent_state(tmp_path: Path) -> None:
    notes = UserNotes(MemoryConfig(data_dir=tmp_path))
    notes.update("alice", "name: Alice\n")
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path), RAW], capture_output=True, text=True
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    workspace = tmp_path / "users" / "alice"
    # the file is exactly the raw content, and it is committed
    assert notes.read("alice") == RAW
    assert git(workspace, "log", "--format=%s").splitlines() == ["Update user notes"] * 2
    assert git(workspace, "show", "HEAD:user_notes.md") == RAW
    assert git(workspace, "status", "--porcelain") == ""
    # a later update works (the lock held by the dead process is released by the kernel)
    result = notes.update("alice", RAW + "- coffee\n")
    assert result.compacted
    assert git(workspace, "log", "--format=%s").splitlines()[:2] == [
        "Compact user notes",
        "Update user notes",
    ]
    assert notes.read("alice") == (
        "name: Alice\ntimezone: Europe/Oslo\n\n## Preferences\n- tea\n- coffee\n"
    )


CHILD_BEFORE_COMMIT = textwrap.dedent(
    """
    import os, signal, sys
    from langgraph_prax_memory.config import MemoryConfig
    from langgraph_prax_memory.notes import UserNotes
    from langgraph_prax_memory.notes._git import WorkspaceRepo

    def killed_commit(self, relpath, message):
        os.kill(os.getpid(), signal.SIGKILL)

    WorkspaceRepo.commit_file = killed_commit
    UserNotes(MemoryConfig(data_dir=sys.argv[1])).update("alice", sys.argv[2])
    """
)


def test_kill_after_write_before_raw_commit_is_recovered(tmp_path: Path) -> None:
    notes = UserNotes(MemoryConfig(data_dir=tmp_path))
    notes.update("alice", "name: Alice\n")
    proc = subprocess.run(
        [sys.executable, "-c", CHILD_BEFORE_COMMIT, str(tmp_path), RAW],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    workspace = tmp_path / "users" / "alice"
    # the atomic write landed whole; history still ends at the previous commit
    assert notes.read("alice") == RAW
    assert git(workspace, "show", "HEAD:user_notes.md") == "name: Alice\n"
    # the next update first records the orphaned content, so nothing is lost
    notes.update("alice", "name: Alice\ntimezone: UTC\n")
    assert git(workspace, "log", "--format=%s").splitlines() == [
        "Update user notes",
        "Record user notes changed outside an update",
        "Update user notes",
    ]
    assert git(workspace, "show", "HEAD~1:user_notes.md") == RAW
