"""The folder of a locked file, made while a deletion of it races (``_atomic.locked``).

``Path.mkdir(exist_ok=True)`` raises ``FileExistsError`` when it finds the folder there and
then, a moment later, no folder: another thread removed it in between (``forget_user``
deleting the user while their notes are written). That race is tried again; a file in the
way still fails at once, with the product's error.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from langgraph_prax_memory._atomic import locked
from langgraph_prax_memory.errors import MemoryWriteError


def test_a_folder_removed_between_mkdir_and_its_check_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fails when the race surfaces as "cannot create the folder ... File exists"."""
    target = tmp_path / "users" / "victim" / "notes.md"
    real_mkdir = Path.mkdir
    raced = []

    def racing_mkdir(self: Path, *args: object, **kwargs: object) -> None:
        if self == target.parent and not raced:
            # the folder is there when mkdir looks, and gone when it checks (a deletion)
            real_mkdir(self, parents=True, exist_ok=True)
            shutil.rmtree(self)
            raced.append(self)
            raise FileExistsError(17, "File exists", str(self))
        real_mkdir(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "mkdir", racing_mkdir)
    with locked(target, timeout=5):
        target.write_text("- kept\n")
    assert raced and target.read_text() == "- kept\n"


def test_a_file_in_the_way_of_the_folder_fails_at_once(tmp_path: Path) -> None:
    """Fails when a file where the folder should be is retried or passes silently."""
    blocker = tmp_path / "users"
    blocker.write_text("not a folder")
    with (
        pytest.raises(MemoryWriteError, match="cannot create the folder"),
        locked(blocker / "victim" / "notes.md", timeout=5),
    ):
        pass
    assert blocker.read_text() == "not a folder"
