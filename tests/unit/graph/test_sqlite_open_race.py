"""Several connections opening a fresh SQLite graph file at once all get a working store."""

from __future__ import annotations

import threading
from pathlib import Path

from langgraph_prax_memory.graph.sqlite import SQLiteGraphStore


def _open_together(path: Path, n: int) -> tuple[list[SQLiteGraphStore], list[BaseException]]:
    barrier = threading.Barrier(n)
    stores: list[SQLiteGraphStore] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def open_it() -> None:
        barrier.wait()
        try:
            store = SQLiteGraphStore(path)
            with lock:
                stores.append(store)
        except BaseException as exc:  # reported by the caller
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return stores, errors


def test_concurrent_first_opens_of_one_file(tmp_path: Path) -> None:
    for round_ in range(5):
        stores, errors = _open_together(tmp_path / f"graph-{round_}.sqlite3", 4)
        assert not errors and len(stores) == 4
        stores[0].merge_entity("u", "Alice", entity_type="person")
        assert all(s.get_entity("u", "alice") is not None for s in stores)
        mode = stores[1]._conn.execute("PRAGMA journal_mode").fetchone()[0]
        assert str(mode).lower() == "wal"
        for s in stores:
            s.close()


def test_switching_to_wal_waits_out_a_reader(tmp_path: Path) -> None:
    """SQLite's busy timeout does not cover the WAL switch: a reader made it fail at once."""
    import sqlite3

    path = tmp_path / "graph.sqlite3"
    reader = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    reader.execute("CREATE TABLE other (x)")
    reader.execute("BEGIN")
    reader.execute("SELECT * FROM other").fetchall()  # a read transaction holds the file
    threading.Timer(0.3, lambda: reader.execute("COMMIT")).start()
    store = SQLiteGraphStore(path, timeout=0.05)
    try:
        assert str(store._conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal"
        store.merge_entity("u", "Alice", entity_type="person")
        assert store.get_entity("u", "alice") is not None
    finally:
        store.close()
        reader.close()
