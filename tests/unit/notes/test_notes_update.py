from __future__ import annotations

import logging
import subprocess
from pathlib import Path
from typing import Any

import pytest

from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.errors import BackendUnavailable, MemoryValidationError
from langgraph_prax_memory.notes import (
    DEFAULT_MAX_NOTES_BYTES,
    AsyncUserNotes,
    GitUnavailableError,
    NotesGitError,
    UserNotes,
)


def git(workspace: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(workspace), *args], capture_output=True, text=True, check=True
    ).stdout


def log_subjects(workspace: Path) -> list[str]:
    return git(workspace, "log", "--format=%s").splitlines()


class Sink:
    def __init__(self, fail_with: Exception | None = None, fail_after: int = 0) -> None:
        self.calls: list[dict[str, Any]] = []
        self.fail_with = fail_with
        self.fail_after = fail_after

    def __call__(
        self, user_id: str, content: str, /, *, importance: float, tags: list[str], source: str
    ) -> str:
        if self.fail_with is not None and len(self.calls) >= self.fail_after:
            raise self.fail_with
        self.calls.append(
            {
                "user_id": user_id,
                "content": content,
                "importance": importance,
                "tags": tags,
                "source": source,
            }
        )
        return "memory-id"


RAW = """\
# User Notes

name: Alice
timezone: America/New_York

## Preferences
- Prefers concise answers
- Prefers concise answers

timezone: Europe/Lisbon
"""
COMPACTED = """\
# User Notes

name: Alice
timezone: Europe/Lisbon

## Preferences
- Prefers concise answers
"""


@pytest.fixture
def config(tmp_path: Path) -> MemoryConfig:
    return MemoryConfig(data_dir=tmp_path)


def test_first_update_initialises_a_local_git_repo(config: MemoryConfig, tmp_path: Path) -> None:
    notes = UserNotes(config)
    result = notes.update("alice", "name: Alice\n")
    workspace = tmp_path / "users" / "alice"
    assert result.path == workspace / "user_notes.md"
    assert (workspace / ".git").is_dir()
    assert log_subjects(workspace) == ["Update user notes"]
    assert result.raw_commit == git(workspace, "rev-parse", "HEAD").strip()
    assert not result.compacted and result.triggers == ()
    assert notes.read("alice") == "name: Alice\n"
    local = git(workspace, "config", "--local", "--list")
    assert "user.name=langgraph-prax-memory" in local
    assert "commit.gpgsign=false" in local
    # only the notes file is tracked
    assert git(workspace, "ls-files").split() == ["user_notes.md"]


def test_update_without_trigger_makes_one_commit(config: MemoryConfig, tmp_path: Path) -> None:
    notes = UserNotes(config)
    notes.update("alice", "name: Alice\n")
    notes.update("alice", "name: Alice\ntimezone: UTC\n")
    assert log_subjects(tmp_path / "users" / "alice") == ["Update user notes"] * 2


def test_unchanged_content_makes_no_commit(config: MemoryConfig, tmp_path: Path) -> None:
    notes = UserNotes(config)
    notes.update("alice", "name: Alice\n")
    again = notes.update("alice", "name: Alice\n")
    assert again.raw_commit is None
    assert log_subjects(tmp_path / "users" / "alice") == ["Update user notes"]


def test_compaction_commit_and_raw_version_recoverable(
    config: MemoryConfig, tmp_path: Path
) -> None:
    notes = UserNotes(config)
    result = notes.update("alice", RAW)
    workspace = tmp_path / "users" / "alice"
    assert result.triggers == ("duplicate_scalar", "duplicate_bullet")
    assert result.compacted and result.content == COMPACTED
    assert notes.read("alice") == COMPACTED
    assert log_subjects(workspace) == ["Compact user notes", "Update user notes"]
    assert git(workspace, "show", "HEAD~1:user_notes.md") == RAW
    assert git(workspace, "show", "HEAD:user_notes.md") == COMPACTED
    assert [d.reason for d in result.dropped_items] == ["stale_scalar", "duplicate"]
    assert result.promotions == ()  # nothing durable was dropped


def _overflowing_notes() -> str:
    # the repeated timezone fires a trigger; the cap of 16 then drops the 3 oldest preferences
    return (
        "timezone: UTC\ntimezone: Europe/Rome\n"
        "## Preferences\n"
        + "".join(f"- Prefers dashboard layout variant {i}\n" for i in range(19))
        + "## Tasks\n"
        + "".join(f"- Pay invoice number {i}\n" for i in range(17))
    )


def test_promotion_goes_to_the_sink(config: MemoryConfig) -> None:
    sink = Sink()
    result = UserNotes(config, remember=sink).update("alice", _overflowing_notes())
    assert result.compacted
    assert [c["content"] for c in sink.calls] == [
        f"Preferences: Prefers dashboard layout variant {i}" for i in range(3)
    ]
    assert {c["source"] for c in sink.calls} == {"user_notes_compaction"}
    assert {tuple(c["tags"]) for c in sink.calls} == {("preference",)}
    assert {c["user_id"] for c in sink.calls} == {"alice"}
    assert result.promoted == result.promotions and len(result.promoted) == 3
    assert result.warnings == ()


def test_no_sink_skips_promotion_and_logs(
    config: MemoryConfig, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        result = UserNotes(config).update("alice", _overflowing_notes())
    assert result.compacted and len(result.promotions) == 3 and result.promoted == ()
    assert "promotion skipped" in result.warnings[0]
    assert "stay in git history" in caplog.text


@pytest.mark.parametrize("error", [BackendUnavailable("qdrant down"), RuntimeError("boom")])
def test_failing_sink_never_fails_the_update(
    config: MemoryConfig, tmp_path: Path, error: Exception
) -> None:
    sink = Sink(fail_with=error, fail_after=1)
    result = UserNotes(config, remember=sink).update("alice", _overflowing_notes())
    assert result.compacted
    assert len(result.promoted) == 1 and len(sink.calls) == 1
    assert type(error).__name__ in result.warnings[0]
    workspace = tmp_path / "users" / "alice"
    # detail stays in git
    assert "variant 2" in git(workspace, "show", "HEAD~1:user_notes.md")
    assert "variant 2" not in git(workspace, "show", "HEAD:user_notes.md")


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (b"\xff\xfe broken", "UTF-8"),
        ("lone surrogate \udc80", "UTF-8"),
        ("nul \x00 byte", "NUL"),
        ("x" * (DEFAULT_MAX_NOTES_BYTES + 1), "over the limit"),
        ("é" * (DEFAULT_MAX_NOTES_BYTES // 2 + 1), "over the limit"),  # bytes, not chars
        (42, "string"),
    ],
)
def test_bad_input_leaves_file_and_history_intact(
    config: MemoryConfig, tmp_path: Path, content: Any, match: str
) -> None:
    notes = UserNotes(config)
    notes.update("alice", "name: Alice\n")
    workspace = tmp_path / "users" / "alice"
    head = git(workspace, "rev-parse", "HEAD")
    with pytest.raises(MemoryValidationError, match=match):
        notes.update("alice", content)
    assert notes.read("alice") == "name: Alice\n"
    assert git(workspace, "rev-parse", "HEAD") == head
    assert git(workspace, "status", "--porcelain") == ""


def test_bytes_utf8_accepted(config: MemoryConfig) -> None:
    notes = UserNotes(config)
    notes.update("alice", "name: Zoë\n".encode())
    assert notes.read("alice") == "name: Zoë\n"


def test_max_bytes_is_configurable(config: MemoryConfig) -> None:
    notes = UserNotes(config, max_bytes=10)
    with pytest.raises(MemoryValidationError, match="10 bytes"):
        notes.update("alice", "name: Alexandra\n")


def test_missing_git_fails_before_anything_changes(config: MemoryConfig, tmp_path: Path) -> None:
    UserNotes(config).update("alice", "name: Alice\n")
    workspace = tmp_path / "users" / "alice"
    head = git(workspace, "rev-parse", "HEAD")
    broken = UserNotes(config, git_executable=str(tmp_path / "no-such-git"))
    with pytest.raises(GitUnavailableError, match="not found"):
        broken.update("alice", "name: Bob\n")
    assert broken.read("alice") == "name: Alice\n"
    assert git(workspace, "rev-parse", "HEAD") == head
    # a brand-new user gets no workspace at all
    with pytest.raises(GitUnavailableError):
        broken.update("carol", "name: Carol\n")
    assert not (tmp_path / "users" / "carol").exists()


def test_missing_git_on_path(config: MemoryConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(GitUnavailableError):
        UserNotes(config).update("alice", "name: Alice\n")


def test_failing_git_commit_restores_previous_file(
    config: MemoryConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fault injection: the raw commit fails -> previous content restored, error raised."""
    from langgraph_prax_memory.notes._git import WorkspaceRepo

    notes = UserNotes(config)
    notes.update("alice", "name: Alice\n")

    def broken_commit(self: WorkspaceRepo, relpath: str, message: str) -> str | None:
        raise NotesGitError("simulated commit failure")

    monkeypatch.setattr(WorkspaceRepo, "commit_file", broken_commit)
    with pytest.raises(NotesGitError, match="simulated"):
        notes.update("alice", "name: Bob\n")
    monkeypatch.undo()
    assert notes.read("alice") == "name: Alice\n"
    assert git(tmp_path / "users" / "alice", "status", "--porcelain") == ""


def test_global_git_config_is_never_touched(
    config: MemoryConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[commit]\n\tgpgsign = true\n[core]\n\thooksPath = /bad\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))  # must not leak into our calls
    notes = UserNotes(config)
    notes.update("alice", RAW)
    assert (home / ".gitconfig").read_text().startswith("[commit]\n\tgpgsign = true")
    monkeypatch.delenv("GIT_DIR")
    assert log_subjects(tmp_path / "users" / "alice") == ["Compact user notes", "Update user notes"]


def test_stale_index_lock_is_cleared(config: MemoryConfig, tmp_path: Path) -> None:
    notes = UserNotes(config)
    notes.update("alice", "name: Alice\n")
    (tmp_path / "users" / "alice" / ".git" / "index.lock").write_text("")
    notes.update("alice", "name: Alice B\n")
    assert notes.read("alice") == "name: Alice B\n"


def test_outside_edits_are_committed_before_the_update(
    config: MemoryConfig, tmp_path: Path
) -> None:
    notes = UserNotes(config)
    notes.update("alice", "name: Alice\n")
    notes.path("alice").write_text("name: Hand edited\n")
    notes.update("alice", "name: Alice\n")
    workspace = tmp_path / "users" / "alice"
    assert log_subjects(workspace) == [
        "Update user notes",
        "Record user notes changed outside an update",
        "Update user notes",
    ]
    assert git(workspace, "show", "HEAD~1:user_notes.md") == "name: Hand edited\n"


def test_hostile_user_id_stays_in_users_dir(config: MemoryConfig, tmp_path: Path) -> None:
    notes = UserNotes(config)
    notes.update("../../escape", "name: X\n")
    assert notes.path("../../escape").is_relative_to(tmp_path / "users")
    assert not (tmp_path.parent / "escape").exists()


def test_concurrent_updates_serialise(config: MemoryConfig, tmp_path: Path) -> None:
    import threading

    notes = UserNotes(config)
    threads = [
        threading.Thread(target=notes.update, args=("alice", f"name: Writer {i}\n"))
        for i in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    workspace = tmp_path / "users" / "alice"
    assert log_subjects(workspace) == ["Update user notes"] * 4
    assert git(workspace, "status", "--porcelain") == ""


async def test_async_update_with_async_sink(config: MemoryConfig, tmp_path: Path) -> None:
    calls: list[tuple[str, str]] = []

    async def aremember(
        user_id: str, content: str, /, *, importance: float, tags: list[str], source: str
    ) -> None:
        calls.append((content, source))

    notes = AsyncUserNotes(config, remember=aremember)
    result = await notes.update("alice", _overflowing_notes())
    assert result.compacted and len(result.promoted) == 3
    assert calls[0] == ("Preferences: Prefers dashboard layout variant 0", "user_notes_compaction")
    assert await notes.read("alice") == result.content
    assert await notes.get_workspace_context("alice", "dashboard layout") != ""


async def test_async_update_with_sync_sink_and_failure(config: MemoryConfig) -> None:
    sink = Sink(fail_with=BackendUnavailable("down"))
    result = await AsyncUserNotes(config, remember=sink).update("alice", _overflowing_notes())
    assert result.compacted and result.promoted == ()
    assert "BackendUnavailable" in result.warnings[0]


def test_sync_notes_reject_async_sink_gracefully(config: MemoryConfig) -> None:
    async def aremember(
        user_id: str, content: str, /, *, importance: float, tags: list[str], source: str
    ) -> None:
        return None

    result = UserNotes(config, remember=aremember).update(  # type: ignore[arg-type]
        "alice", _overflowing_notes()
    )
    assert result.compacted and result.promoted == ()
    assert "AsyncUserNotes" in result.warnings[0]


def test_a_relative_data_folder_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``MEMORY_DATA_DIR=./data``: git runs inside the workspace, the paths it is given must
    not be relative to the caller's folder (the first update failed with exit 128)."""
    monkeypatch.chdir(tmp_path)
    notes = UserNotes(MemoryConfig(data_dir=Path("rel-data")))
    notes.update("alice", "# Notes\n- allergic to peanuts\n")
    workspace = tmp_path / "rel-data" / "users" / "alice"
    assert log_subjects(workspace)
    assert "peanuts" in notes.read("alice")
