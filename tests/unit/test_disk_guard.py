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


# ----------------------------- consolidate and close on a full disk (issue 26, item 6)
# The real full disk (a tmpfs without a free inode) is
# tests/integration/test_disk_full.py::test_consolidate_and_close_on_a_full_disk_*; here the
# refusal is injected where the disk refused it there.


def _trace(memory: PraxMemory, user: str) -> None:
    from langgraph_prax_memory._validation import user_dir_name

    trace = memory.config.users_dir / user_dir_name(user) / "trace.log"
    trace.parent.mkdir(parents=True, exist_ok=True)
    trace.write_text("user: I moved to Berlin and I prefer polars over pandas.\n\n")


def test_consolidate_on_a_full_disk_raises_a_disk_error_and_keeps_the_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    memory = _memory(tmp_path)
    _trace(memory, "alice")
    real_mkdir = Path.mkdir

    def no_room_for_folders(self: Path, *args: Any, **kwargs: Any) -> None:  # fault injection
        if self.name == "memory" and not self.exists():  # the run's lock and state folder
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", no_room_for_folders)
    with pytest.raises(DiskFullError, match="not enough free disk space") as info:
        memory.consolidate("alice")
    assert isinstance(info.value, MemoryWriteError) and "nothing" in str(info.value)
    monkeypatch.undo()
    assert memory.consolidate("alice").memories_created >= 1  # the trace was kept
    memory.close()


def test_any_disk_refusal_inside_a_consolidation_is_a_write_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    memory = _memory(tmp_path)
    _trace(memory, "alice")
    consolidator = memory.consolidator
    real_load = consolidator.states.load

    def refused(user_id: str) -> Any:  # fault injection: the disk went read-only
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(consolidator.states, "load", refused)
    with pytest.raises(MemoryWriteError, match="the disk refused a write") as info:
        memory.consolidate("alice")
    assert not isinstance(info.value, DiskFullError) and "nothing is lost" in str(info.value)
    monkeypatch.setattr(consolidator.states, "load", real_load)
    assert memory.consolidate("alice").memories_created >= 1
    memory.close()


class _FlushRefused:
    """A qdrant-edge shard whose final flush finds the disk full (fault injection)."""

    def __init__(self, shard: Any) -> None:
        self.shard = shard

    def flush(self) -> None:
        raise RuntimeError(
            "Service runtime error: IO Error: failed to write to file `mutable_id_tracker."
            "mappings`: No space left on device (os error 28)"
        )

    def __getattr__(self, name: str) -> Any:
        return getattr(self.shard, name)


def test_close_on_a_full_disk_raises_a_disk_error_releases_everything_and_loses_nothing(
    tmp_path: Path,
) -> None:
    memory = _memory(tmp_path)
    kept = [memory.remember("alice", f"Alice fact {i}") for i in range(3)]
    memory.graph.merge_entity("alice", "Alice")
    client = memory.ltm.store().client
    shards = client._shards  # type: ignore[union-attr]
    for name, shard in list(shards.items()):
        shards[name] = _FlushRefused(shard)
    with pytest.raises(DiskFullError, match="final flush") as info:
        memory.close()
    assert isinstance(info.value, MemoryWriteError) and "nothing is lost" in str(info.value)
    with _memory(tmp_path) as again:  # the folder was released: it opens again at once
        assert sorted(m.id for m in again.list_memories("alice")) == sorted(kept)
        assert again.graph.get_entity("alice", "Alice") is not None  # the graph was closed
