"""User notes on a disk that fills up (issue 26, item 5), with the failures injected.

Git is the real one behind a small wrapper script that makes one command fail the way git
fails on a full disk; the real full disk (a small tmpfs) is in
``tests/integration/test_disk_full.py``.
"""

from __future__ import annotations

import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.errors import DiskFullError, MemoryWriteError
from langgraph_prax_memory.notes import NotesGitError, UserNotes
from langgraph_prax_memory.notes import store as notes_store

ENOSPC = "error: unable to write file: No space left on device"


def git(workspace: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(workspace), *args], capture_output=True, text=True, check=True
    ).stdout


def failing_git(tmp_path: Path, command: str, *, times: int = 1) -> Path:
    """A git that fails ``command`` (its first ``times`` runs) as git does on a full disk."""
    real = shutil.which("git")
    assert real is not None
    counter = tmp_path / f"failures-{command}"
    counter.write_text("x\n" * times)
    script = tmp_path / f"git-failing-{command}"
    script.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do\n'
        f'  if [ "$a" = {command} ] && [ -s {counter} ]; then\n'
        f"    sed -i 1d {counter}\n"
        f'    echo "{ENOSPC}" >&2; echo "fatal: {command} failed" >&2; exit 128\n'
        "  fi\n"
        "done\n"
        f'exec {real} "$@"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_a_failed_update_leaves_nothing_of_its_text_even_when_the_disk_stays_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = MemoryConfig(data_dir=tmp_path / "data")
    UserNotes(config).update("alice", "name: Alice\n")
    notes = UserNotes(config, git_executable=str(failing_git(tmp_path, "commit")))
    real_write = notes_store.atomic_write_text
    writes: list[Path] = []

    def disk_full_after_the_first_write(path: Path, text: str) -> Any:  # fault injection
        writes.append(path)
        if len(writes) > 1:  # the disk filled up while git ran
            raise MemoryWriteError(f"cannot write {path}: [Errno 28] No space left on device")
        return real_write(path, text)

    monkeypatch.setattr(notes_store, "atomic_write_text", disk_full_after_the_first_write)
    with pytest.raises(DiskFullError, match="disk space") as info:
        notes.update("alice", "name: Unacknowledged\n")
    assert isinstance(info.value, NotesGitError) and "nothing was changed" in str(info.value)
    monkeypatch.undo()
    assert notes.read("alice") == "name: Alice\n"  # not the text the caller was refused
    workspace = config.users_dir / "alice"
    assert not [p for p in workspace.iterdir() if p.name.endswith(".tmp")]
    UserNotes(config).update("alice", "name: Alice\ntimezone: UTC\n")
    history = git(workspace, "log", "-p", "--format=%s")
    assert "Unacknowledged" not in history
    assert git(workspace, "log", "--format=%s").splitlines() == ["Update user notes"] * 2


def test_a_first_update_whose_git_init_fails_leaves_no_repository_behind(
    tmp_path: Path,
) -> None:
    config = MemoryConfig(data_dir=tmp_path / "data")
    notes = UserNotes(config, git_executable=str(failing_git(tmp_path, "config")))
    with pytest.raises(DiskFullError, match="disk space"):
        notes.update("bob", "name: Bob\n")
    workspace = config.users_dir / "bob"
    assert not (workspace / ".git").exists()  # no half-made repository
    assert notes.read("bob") == ""
    notes.update("bob", "name: Bob\n")  # space is back: it works, without any repair
    assert git(workspace, "log", "--format=%s").splitlines() == ["Update user notes"]
    assert "user.name=langgraph-prax-memory" in git(workspace, "config", "--local", "--list")


def test_a_repository_left_half_made_by_an_earlier_version_is_made_again(
    tmp_path: Path,
) -> None:
    """``git init`` on a full disk used to leave a ``.git`` holding only ``description``;
    every later write then failed with "not a git repository", even with space back."""
    config = MemoryConfig(data_dir=tmp_path / "data")
    notes = UserNotes(config)
    broken = notes.workspace("carol") / ".git"
    broken.mkdir(parents=True)
    (broken / "description").write_text("Unnamed repository\n")
    notes.update("carol", "name: Carol\n")
    assert notes.read("carol") == "name: Carol\n"
    assert git(notes.workspace("carol"), "log", "--format=%s").splitlines() == ["Update user notes"]


def test_a_broken_repository_with_history_is_set_aside_not_deleted(tmp_path: Path) -> None:
    config = MemoryConfig(data_dir=tmp_path / "data")
    notes = UserNotes(config)
    notes.update("dave", "name: Dave\n")
    workspace = notes.workspace("dave")
    (workspace / ".git" / "HEAD").unlink()  # git no longer sees a repository here
    notes.update("dave", "name: Dave\ntimezone: UTC\n")
    assert notes.read("dave") == "name: Dave\ntimezone: UTC\n"
    aside = [p for p in workspace.iterdir() if p.name.startswith(".git.broken-")]
    assert len(aside) == 1 and any((aside[0] / "objects").rglob("*"))  # the old history kept


def test_when_the_previous_notes_cannot_be_kept_aside_nothing_is_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    config = MemoryConfig(data_dir=tmp_path / "data")
    notes = UserNotes(config)
    notes.update("erin", "name: Erin\n")

    def no_room(*args: Any, **kwargs: Any) -> None:  # fault injection: the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(notes_store.os, "link", no_room)
    monkeypatch.setattr(notes_store.shutil, "copyfile", no_room)
    with pytest.raises(DiskFullError, match="nothing was changed"):
        notes.update("erin", "name: Refused\n")
    monkeypatch.undo()
    assert notes.read("erin") == "name: Erin\n"
    assert git(notes.workspace("erin"), "log", "--format=%s").splitlines() == ["Update user notes"]
