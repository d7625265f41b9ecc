"""EdgeClient.compact: no byte of a deleted point left, every live point kept, crash-safe.

The engine is the real qdrant-edge; a crash is injected by making one step of the
compaction raise, then reopening the folder as a new process would.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from qdrant_client import models

from langgraph_prax_memory.errors import DiskFullError
from langgraph_prax_memory.vectors import _edge
from langgraph_prax_memory.vectors._edge import EdgeClient
from langgraph_prax_memory.vectors._plan import (
    DENSE,
    PAYLOAD_INDEXES,
    SPARSE,
    collection_plan,
    user_filter,
)

DIM = 8
C = "mem"
GONE = "ZQXGONE"
KEPT = "KEEPKEPT"


def _points(n: int = 60, seed: int = 5) -> list[models.PointStruct]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        user = ("alice", "bob")[i % 2]
        marker = GONE if user == "alice" else KEPT
        vector: dict[str, Any] = {
            SPARSE: models.SparseVector(
                indices=sorted(rng.sample(range(50), 4)), values=[1.0, 0.5, 0.25, 2.0]
            )
        }
        if i % 7:
            vector[DENSE] = [rng.gauss(0.0, 1.0) for _ in range(DIM)]
        out.append(
            models.PointStruct(
                id=str(uuid.UUID(int=rng.getrandbits(128))),
                vector=vector,
                payload={
                    "user_id": user,
                    "seq": i,
                    "content": f"{marker} memory {i}",
                    "tags": [f"t{i % 3}"],
                },
            )
        )
    return out


def _open(path: Path) -> EdgeClient:
    client = EdgeClient(path)
    if not client.collection_exists(C):
        client.create_collection(C, **collection_plan(DIM))
        for name, schema in PAYLOAD_INDEXES.items():
            client.create_payload_index(C, name, schema)
    return client


def _files_holding(root: Path, needle: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def _state(client: EdgeClient) -> dict[str, Any]:
    """Everything a reader sees: points with payload and vectors, and three queries."""
    records, _ = client.scroll(C, limit=1000, with_payload=True, with_vectors=True)
    query = [0.3] * DIM
    bob = user_filter("bob")
    return {
        "points": {
            str(r.id): (r.payload, {k: _plain(v) for k, v in (r.vector or {}).items()})  # type: ignore[union-attr]
            for r in records
        },
        "dense": _ranked(client.query_points(C, query=query, using=DENSE, query_filter=bob)),
        "sparse": _ranked(
            client.query_points(
                C,
                query=models.SparseVector(indices=[1, 2, 3], values=[1.0, 1.0, 1.0]),
                using=SPARSE,
                query_filter=bob,
                limit=30,
            )
        ),
        "by_seq": [
            r.payload["seq"]  # type: ignore[index]
            for r in client.scroll(C, scroll_filter=bob, limit=5, order_by="seq")[0]
        ],
        "indexes": {k: v.data_type for k, v in client.get_collection(C).payload_schema.items()},
    }


def _ranked(response: Any) -> list[tuple[float, str]]:
    """Scores and ids, ties in id order (the engine orders ties by internal offsets)."""
    return sorted((-round(p.score, 4), str(p.id)) for p in response.points)


def _reference(tmp_path: Path, points: list[models.PointStruct]) -> dict[str, Any]:
    """What a store that only ever held ``points`` answers."""
    client = _open(tmp_path / "reference")
    client.upsert(C, points)
    state = _state(client)
    client.close()
    return state


def _plain(vector: Any) -> Any:
    if isinstance(vector, models.SparseVector):
        return (list(vector.indices), [round(x, 5) for x in vector.values])
    return [round(x, 5) for x in vector]


def _delete_alice(client: EdgeClient) -> None:
    client.delete(C, models.FilterSelector(filter=user_filter("alice")))


def test_compaction_drops_the_bytes_of_deleted_points_and_keeps_the_rest(tmp_path: Path) -> None:
    store = tmp_path / "store"
    client = _open(store)
    client.upsert(C, _points())
    _delete_alice(client)
    before = _state(client)
    assert len(before["points"]) == 30
    assert _files_holding(store, GONE.encode())  # the engine kept the deleted bytes
    only_bob = _reference(tmp_path, [p for p in _points() if (p.payload or {})["user_id"] == "bob"])
    # until compaction the deleted points still weigh in the sparse IDF of everyone else
    assert before["sparse"] != only_bob["sparse"]

    assert client.compact(C) == 30
    assert _state(client) == only_bob
    client.upsert(C, [p for p in _points(4, seed=9) if (p.payload or {})["user_id"] == "bob"])
    client.close()

    assert _files_holding(store, GONE.encode()) == []
    assert _files_holding(store, KEPT.encode())
    assert sorted(p.name for p in (store / C).iterdir()) == ["collection.json", "shard"]
    recorded = json.loads((store / C / "collection.json").read_text())["payload_indexes"]
    assert recorded["user_id"] == {"type": "keyword", "is_tenant": True}
    again = _open(store)
    assert again.count(C).count == 32
    again.close()


def test_a_failed_copy_leaves_the_collection_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = _open(tmp_path)
    client.upsert(C, _points())
    _delete_alice(client)
    before = _state(client)
    real = _edge._copy_points

    def half(src: Any, dst: Any) -> int:
        real(src, dst)
        raise RuntimeError("disk full")

    monkeypatch.setattr(_edge, "_copy_points", half)
    with pytest.raises(RuntimeError, match=r"unchanged.*disk full"):
        client.compact(C)
    assert not (tmp_path / C / "shard.compacting").exists()
    assert _state(client) == before
    client.close()


@pytest.mark.parametrize("crash", ["after_mark", "after_old_moved", "before_stale_removed"])
def test_a_crash_during_the_swap_finishes_at_the_next_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, crash: str
) -> None:
    client = _open(tmp_path / "store")
    client.upsert(C, _points())
    _delete_alice(client)
    only_bob = _reference(tmp_path, [p for p in _points() if (p.payload or {})["user_id"] == "bob"])
    folder = tmp_path / "store" / C

    def crash_now(_: Path) -> None:
        raise OSError("power cut")

    with monkeypatch.context() as patch:
        patch.setattr(_edge, "_finish_compaction", crash_now)
        with pytest.raises(OSError, match="power cut"):
            client.compact(C)
    client.close()
    assert (folder / "shard.compacting.done").exists()
    if crash in ("after_old_moved", "before_stale_removed"):
        os.rename(folder / "shard", folder / "shard.stale")
    if crash == "before_stale_removed":
        os.rename(folder / "shard.compacting", folder / "shard")
        (folder / "shard.compacting.done").unlink()

    reopened = _open(tmp_path / "store")
    assert _state(reopened) == only_bob  # the compacted copy, complete
    reopened.close()
    assert sorted(p.name for p in folder.iterdir()) == ["collection.json", "shard"]
    assert _files_holding(tmp_path / "store", GONE.encode()) == []


def test_a_crash_during_the_copy_is_discarded_at_the_next_open(tmp_path: Path) -> None:
    client = _open(tmp_path)
    client.upsert(C, _points())
    _delete_alice(client)
    client.close()
    client = _open(tmp_path)
    before = _state(client)  # as loaded from disk (loading recounts the sparse IDF)
    client.close()
    partial = tmp_path / C / "shard.compacting"
    partial.mkdir()
    (partial / "segment-being-written").write_bytes(b"half a copy")

    reopened = _open(tmp_path)
    assert _state(reopened) == before
    reopened.close()
    assert not partial.exists()
    assert _files_holding(tmp_path / C / "shard", GONE.encode())  # the old shard, as it was


def test_calls_wait_while_a_compaction_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = _open(tmp_path)
    client.upsert(C, _points())
    copying = threading.Event()
    real = _edge._copy_points

    def slow(src: Any, dst: Any) -> int:
        copying.set()
        time.sleep(0.5)
        return real(src, dst)

    monkeypatch.setattr(_edge, "_copy_points", slow)
    worker = threading.Thread(target=client.compact, args=(C,))
    worker.start()
    assert copying.wait(10)
    late = _points(1, seed=42)
    client.upsert(C, late)  # blocks until the copy is swapped in, then lands in the new shard
    worker.join(10)
    assert client.retrieve(C, [late[0].id])
    assert client.count(C).count == 61
    client.close()


def test_a_compaction_the_disk_cannot_hold_is_refused_before_it_starts(tmp_path: Path) -> None:
    client = _open(tmp_path)
    client.upsert(C, _points())
    _delete_alice(client)
    before = _state(client)
    client.min_free_bytes = shutil.disk_usage(tmp_path).free  # the copy would not fit
    with pytest.raises(DiskFullError, match=r"compact 'mem'.*Nothing was changed"):
        client.compact(C)
    assert not (tmp_path / C / "shard.compacting").exists()
    client.min_free_bytes = 0
    assert _state(client) == before
    client.close()
