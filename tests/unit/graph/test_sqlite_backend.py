"""SQLite-only behaviour: file settings, persistence, threads, closed stores, query plans."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.errors import BackendUnavailable
from langgraph_prax_memory.graph import (
    AsyncSQLiteGraphStore,
    SQLiteGraphStore,
    create_async_graph_store,
    create_graph_store,
)

T0 = datetime(2026, 1, 20, tzinfo=UTC)


def test_file_uses_wal_and_foreign_keys(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "graph.sqlite3"
    store = SQLiteGraphStore(path)
    store.merge_entity("u1", "Alice", now=T0)
    assert path.exists()
    conn = store._conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    indexes = {r[1] for r in conn.execute("PRAGMA index_list(entities)")}
    assert any(name.startswith("sqlite_autoindex_entities") for name in indexes)
    cols = [r[2] for r in conn.execute("PRAGMA index_info('sqlite_autoindex_entities_2')")]
    assert cols == ["user_id", "name"]
    store.close()


def test_data_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "graph.sqlite3"
    with SQLiteGraphStore(path) as store:
        store.add_relation("u1", "Alice", "Prax", "works_on", evidence="x", now=T0)
    with SQLiteGraphStore(path) as again:
        again.setup()  # idempotent on an existing file
        got = again.get_entity("u1", "alice")
        assert got is not None
        assert [r.evidence for r in got.relations] == ["x"]


def test_epoch_and_iso_columns(tmp_path: Path) -> None:
    store = SQLiteGraphStore(tmp_path / "g.sqlite3")
    store.merge_entity("u1", "Alice", now=T0)
    row = store._conn.execute("SELECT last_seen, last_seen_ts FROM entities").fetchone()
    assert row[0] == "2026-01-20T00:00:00+00:00"
    assert row[1] == pytest.approx(T0.timestamp())
    store.close()


def test_cascade_removes_links_with_entities(tmp_path: Path) -> None:
    store = SQLiteGraphStore(tmp_path / "g.sqlite3")
    store.merge_temporal_event("u1", "e", participants=["a"], now=T0)
    store.add_relation("u1", "a", "b", "related_to", weight=0.01, now=T0)
    store.decay_graph("u1", now=datetime(2027, 1, 1, tzinfo=UTC))
    assert store._conn.execute("SELECT COUNT(*) FROM participations").fetchone()[0] == 0
    assert store.get_events("u1")[0].participants == []
    store.close()


def test_concurrent_threads(tmp_path: Path) -> None:
    store = SQLiteGraphStore(tmp_path / "g.sqlite3")

    def work(i: int) -> None:
        for j in range(20):
            store.merge_entity("u1", "shared", now=T0)
            store.add_relation("u1", "shared", f"t{i}-{j % 5}", "related_to", now=T0)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = store.get_entity("u1", "shared")
    assert got is not None
    assert got.entity.mention_count == 80
    assert len(got.relations) == 20
    assert {r.weight for r in got.relations} == {4.0}
    store.close()


def test_two_processes_share_a_file(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    a, b = SQLiteGraphStore(path), SQLiteGraphStore(path)
    a.merge_entity("u1", "Alice", now=T0)
    b.merge_entity("u1", "alice", now=T0)
    assert a.stats("u1").entities == 1
    got = a.get_entity("u1", "alice")
    assert got is not None
    assert got.entity.mention_count == 2
    a.close()
    b.close()


def test_closed_store_is_unavailable() -> None:
    store = SQLiteGraphStore(":memory:")
    store.close()
    store.close()
    with pytest.raises(BackendUnavailable, match="closed"):
        store.merge_entity("u1", "a")
    with pytest.raises(BackendUnavailable):
        store.stats("u1")


def test_unopenable_path_is_unavailable(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises((BackendUnavailable, OSError)):
        SQLiteGraphStore(blocker / "graph.sqlite3")
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"this is not a database" * 100)
    with pytest.raises(BackendUnavailable):
        SQLiteGraphStore(garbage)


def test_neighbourhood_query_uses_indexes() -> None:
    from langgraph_prax_memory.graph.sqlite._sql import NEIGHBOURS

    store = SQLiteGraphStore(":memory:")
    plan = store._conn.execute(
        "EXPLAIN QUERY PLAN " + NEIGHBOURS,
        {"start": "x", "hops": 2, "limit": 5, "user_id": "u1"},
    ).fetchall()
    details = " ".join(str(row[-1]) for row in plan)
    assert "relations_source" in details
    assert "relations_target" in details
    assert "SCAN r" not in details
    store.close()


def test_factory_picks_sqlite(tmp_path: Path) -> None:
    config = MemoryConfig(data_dir=tmp_path / "data", decay_halflife_days=5)
    store = create_graph_store(config)
    assert isinstance(store, SQLiteGraphStore)
    assert store.halflife_days == pytest.approx(10.0)
    store.merge_entity("u1", "x", now=T0)
    assert config.graph_path.exists()
    store.close()
    astore = create_async_graph_store(config)
    assert isinstance(astore, AsyncSQLiteGraphStore)
    assert asyncio.run(astore.stats("u1")).entities == 1
    asyncio.run(astore.close())


async def test_async_wrapper_runs_off_the_loop(tmp_path: Path) -> None:
    store = AsyncSQLiteGraphStore(tmp_path / "g.sqlite3")
    loop_thread = threading.get_ident()
    seen: list[int] = []
    original = store.sync_store.run

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(threading.get_ident())
        return original(*args, **kwargs)  # type: ignore[arg-type]

    store.sync_store.run = spy  # type: ignore[method-assign,assignment]
    await asyncio.gather(*(store.merge_entity("u1", "Alice", now=T0) for _ in range(10)))
    assert seen and all(ident != loop_thread for ident in seen)
    got = await store.get_entity("u1", "alice")
    assert got is not None
    assert got.entity.mention_count == 10
    await store.close()


def test_sqlite_error_on_write_is_a_write_error(tmp_path: Path) -> None:
    store = SQLiteGraphStore(tmp_path / "g.sqlite3")
    store._conn.execute("DROP TABLE participations")
    from langgraph_prax_memory.errors import MemoryWriteError

    with pytest.raises(MemoryWriteError, match="rolled back"):
        store.merge_temporal_event("u1", "e", participants=["a"], now=T0)
    assert store.stats("u1").entities == 0
    assert isinstance(store._conn, sqlite3.Connection)
    store.close()
