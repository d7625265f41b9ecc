"""The embedded engine's free-space guard, with the free space injected (no mount needed).

The real full-disk run (a small tmpfs, and the SIGBUS it prevents) is
``tests/integration/test_disk_full.py``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from langgraph_prax_memory import MemoryConfig, MemoryWriteError, PraxMemory, PraxMemoryStore
from langgraph_prax_memory.errors import BackendUnavailable, DiskFullError
from langgraph_prax_memory.vectors import _edge
from tests.fakes import HashEmbeddings


class _Usage(NamedTuple):
    total: int
    used: int
    free: int


def _low_disk(monkeypatch: pytest.MonkeyPatch, free: int) -> None:
    real = shutil.disk_usage

    def usage(path: Any) -> _Usage:
        total, used, _ = real(path)
        return _Usage(total, used, free)

    monkeypatch.setattr(_edge.shutil, "disk_usage", usage)


def _memory(folder: Path, **kw: Any) -> PraxMemory:
    config = MemoryConfig(data_dir=folder, **kw)
    return PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384)


def test_writes_are_refused_cleanly_and_nothing_is_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = _memory(tmp_path)
    kept = memory.remember("alice", "Alice drinks green tea")
    _low_disk(monkeypatch, free=10 * 1024 * 1024)
    memory.ltm.store().client._debt = (float("-inf"), 0)  # type: ignore[union-attr]
    with pytest.raises(MemoryWriteError, match="not enough free disk space") as info:
        memory.remember("alice", "Alice rides a bicycle")
    assert isinstance(info.value, DiskFullError) and "MEMORY_DISK_HEADROOM_MB" in str(info.value)
    with pytest.raises(MemoryWriteError):
        PraxMemoryStore(memory).put(("memories", "alice"), "k", {"content": "x"})
    assert memory.stm.write("alice", "k", "v").content == "v"  # small files still write
    assert memory.get("alice", kept) is not None  # reads of an open store still work
    monkeypatch.undo()
    memory.ltm.store().client._debt = (float("-inf"), 0)  # type: ignore[union-attr]
    memory.remember("alice", "Alice rides a bicycle")
    assert memory.count("alice") == 2
    memory.close()


def test_opening_on_a_full_disk_is_refused_not_crashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _memory(tmp_path) as memory:
        memory.remember("alice", "Alice drinks green tea")
    _low_disk(monkeypatch, free=1024 * 1024)
    memory = _memory(tmp_path)
    with pytest.raises(BackendUnavailable, match="disk space"):
        memory.count("alice")
    assert memory.stm.write("alice", "k", "v").content == "v"
    monkeypatch.undo()
    assert memory.count("alice") == 1  # once space returns, the same memory recovers
    memory.close()


def test_the_headroom_is_configurable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _low_disk(monkeypatch, free=400 * 1024 * 1024)  # the engine's files may fill ~130 MiB
    with _memory(tmp_path / "a") as memory:
        memory.remember("alice", "fits: 400 MiB free, 100 MiB headroom by default")
    with _memory(tmp_path / "b", disk_headroom_mb=1000) as memory, pytest.raises(DiskFullError):
        memory.remember("alice", "refused: 400 MiB free, 1000 MiB headroom")
    _low_disk(monkeypatch, free=0)
    monkeypatch.setenv("MEMORY_DISK_HEADROOM_MB", "0")  # the guard off
    with _memory(tmp_path / "c") as memory:
        memory.remember("alice", "no guard")
    with pytest.raises(ValueError):
        MemoryConfig(disk_headroom_mb=-1)
