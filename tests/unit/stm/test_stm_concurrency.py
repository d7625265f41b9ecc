from __future__ import annotations

import asyncio
import multiprocessing
import threading
from pathlib import Path

from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.stm import COMPACTED_TAG, AsyncScratchpadStore, ScratchpadStore


def _process_writer(data_dir: str, worker: int, count: int, max_entries: int) -> None:
    stm = ScratchpadStore(MemoryConfig(data_dir=data_dir, stm_max_entries=max_entries))
    for i in range(count):
        stm.write("shared", f"w{worker}-{i}", f"written by process {worker}, item {i}")


def _process_incrementer(data_dir: str, count: int) -> None:
    stm = ScratchpadStore(MemoryConfig(data_dir=data_dir))
    for _ in range(count):
        stm.write("shared", "counter", "bumped")


def _run_processes(target: object, args: list[tuple[object, ...]]) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=target, args=a) for a in args]  # type: ignore[arg-type]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0


def test_threads_never_lose_entries(tmp_path: Path) -> None:
    stm = ScratchpadStore(MemoryConfig(data_dir=tmp_path, stm_max_entries=1000))
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for i in range(25):
                stm.write("shared", f"t{n}-{i}", f"thread {n} item {i}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    keys = {e.key for e in stm.all("shared")}
    assert keys == {f"t{n}-{i}" for n in range(8) for i in range(25)}


def test_threads_with_separate_store_objects_share_the_lock(tmp_path: Path) -> None:
    config = MemoryConfig(data_dir=tmp_path)
    stores = [ScratchpadStore(config) for _ in range(4)]

    def worker(store: ScratchpadStore) -> None:
        for _ in range(20):
            store.write("shared", "counter", "bumped")

    threads = [threading.Thread(target=worker, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    entry = stores[0].get("shared", "counter")
    assert entry is not None and entry.access_count == 4 * 20 - 1


def test_processes_never_lose_entries(tmp_path: Path) -> None:
    _run_processes(_process_writer, [(str(tmp_path), w, 25, 1000) for w in range(4)])
    stm = ScratchpadStore(MemoryConfig(data_dir=tmp_path, stm_max_entries=1000))
    keys = {e.key for e in stm.all("shared")}
    assert len(keys) == 100
    assert keys == {f"w{w}-{i}" for w in range(4) for i in range(25)}


def test_processes_never_lose_increments(tmp_path: Path) -> None:
    _run_processes(_process_incrementer, [(str(tmp_path), 15) for _ in range(4)])
    entry = ScratchpadStore(MemoryConfig(data_dir=tmp_path)).get("shared", "counter")
    assert entry is not None and entry.access_count == 4 * 15 - 1


def test_processes_with_compaction_keep_a_consistent_pad(tmp_path: Path) -> None:
    _run_processes(_process_writer, [(str(tmp_path), w, 25, 20) for w in range(4)])
    stm = ScratchpadStore(MemoryConfig(data_dir=tmp_path, stm_max_entries=20))
    entries = stm.all("shared")
    assert len(entries) <= 21
    summaries = [e for e in entries if COMPACTED_TAG in e.tags]
    assert summaries
    # every one of the 100 writes is either still an entry or named in a summary
    # (summaries of summaries name the inner summary's key, so walk them)
    text = "\n".join(e.content for e in entries)
    plain = {e.key for e in entries if COMPACTED_TAG not in e.tags}
    for w in range(4):
        for i in range(25):
            key = f"w{w}-{i}"
            assert key in plain or f"[{key}]" in text or f"process {w}, item {i}" in text


async def test_async_concurrent_writes(tmp_path: Path) -> None:
    stm = AsyncScratchpadStore(MemoryConfig(data_dir=tmp_path, stm_max_entries=1000))
    await asyncio.gather(*(stm.write("shared", f"a{i}", f"item {i}") for i in range(60)))
    assert {e.key for e in await stm.all("shared")} == {f"a{i}" for i in range(60)}
