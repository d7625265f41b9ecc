from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.stm import ScratchpadStore, StmCorruptError

GOOD = (
    '[{"key": "a", "content": "alpha", "tags": [], "created_at": "2026-03-15T14:30:00Z", '
    '"access_count": 0, "importance": 0.5}]'
)


@pytest.fixture
def stm(tmp_path: Path) -> ScratchpadStore:
    return ScratchpadStore(MemoryConfig(data_dir=tmp_path))


def _plant(stm: ScratchpadStore, raw: bytes) -> Path:
    path = stm.path("alice")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    return path


@pytest.mark.parametrize(
    "raw",
    [
        GOOD[:-20].encode(),  # truncated mid-write
        b"",  # empty file
        b"\xff\xfe not utf-8",
        b'{"key": "a"}',  # not a list
        b'[{"key": "a", "content": "x"}]',  # missing created_at
        b'[{"key": "", "content": "x", "created_at": "2026-01-01T00:00:00Z"}]',
        b'[{"key": "a", "content": "x", "created_at": "not a date"}]',
        b'[{"key": "a", "content": "x", "created_at": "2026-01-01T00:00:00Z", "importance": 7}]',
        (GOOD[:-1] + "," + GOOD[1:]).encode(),  # duplicated key
    ],
)
def test_corrupt_file_is_moved_aside_reported_and_not_replaced(
    stm: ScratchpadStore, raw: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    path = _plant(stm, raw)
    with caplog.at_level(logging.ERROR), pytest.raises(StmCorruptError) as info:
        stm.all("alice")
    err = info.value
    assert err.path == path
    assert err.moved_to is not None and err.moved_to.read_bytes() == raw
    assert re.fullmatch(r"stm\.json\.corrupt-\d{8}T\d{6}\d{6}Z", err.moved_to.name)
    assert not path.exists()  # never silently replaced by an empty list
    assert "corrupt STM file" in caplog.text
    # the next write starts a fresh pad; the corrupt bytes are still kept aside
    stm.write("alice", "b", "beta")
    assert [e.key for e in stm.all("alice")] == ["b"]
    assert err.moved_to.read_bytes() == raw


def test_write_onto_corrupt_file_raises_and_writes_nothing(stm: ScratchpadStore) -> None:
    path = _plant(stm, b"[{]")
    with pytest.raises(StmCorruptError):
        stm.write("alice", "b", "beta")
    assert not path.exists()
    assert len(list(path.parent.glob("stm.json.corrupt-*"))) == 1


def test_get_and_delete_also_detect_corruption(stm: ScratchpadStore) -> None:
    _plant(stm, b"garbage")
    with pytest.raises(StmCorruptError):
        stm.get("alice", "a")
    _plant(stm, b"garbage 2")
    with pytest.raises(StmCorruptError):
        stm.delete("alice", "a")
    assert len(list(stm.path("alice").parent.glob("stm.json.corrupt-*"))) == 2


def test_valid_file_is_untouched(stm: ScratchpadStore) -> None:
    path = _plant(stm, GOOD.encode())
    assert [e.key for e in stm.all("alice")] == ["a"]
    assert path.read_text() == GOOD


def test_atomic_write_leaves_no_temp_files(stm: ScratchpadStore) -> None:
    for i in range(20):
        stm.write("alice", f"k{i}", "v")
    folder = stm.path("alice").parent
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]
    json.loads(stm.path("alice").read_text())


def test_failed_replace_keeps_old_file(
    stm: ScratchpadStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fault injection: os.replace fails -> old file intact, temp file removed, clear error."""
    from langgraph_prax_memory import _atomic
    from langgraph_prax_memory.errors import MemoryWriteError

    stm.write("alice", "a", "alpha")
    before = stm.path("alice").read_bytes()

    def boom(*_: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(_atomic.os, "replace", boom)
    with pytest.raises(MemoryWriteError, match="disk full"):
        stm.write("alice", "b", "beta")
    monkeypatch.undo()
    assert stm.path("alice").read_bytes() == before
    assert not [p for p in stm.path("alice").parent.iterdir() if p.name.endswith(".tmp")]
