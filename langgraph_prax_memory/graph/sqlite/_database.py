"""The SQLite file of the graph: its connection, WAL mode, lock, schema and transactions.

No graph logic here: :class:`SQLiteDatabase` opens the file, sets it up and runs statements
under one lock; :class:`~langgraph_prax_memory.graph.SQLiteGraphStore` builds on it, and its
public plumbing (``transaction`` / ``query`` / ``connection``) is what the knowledge tables in
the same file use.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from langgraph_prax_memory.errors import (
    BackendUnavailable,
    DiskFullError,
    MemoryWriteError,
    PraxMemoryError,
)
from langgraph_prax_memory.graph._decay import effective_value
from langgraph_prax_memory.graph._outage import OutageLog
from langgraph_prax_memory.graph.sqlite._sql import SCHEMA, SCHEMA_VERSION

__all__ = ["SQLiteDatabase"]

logger = logging.getLogger("langgraph_prax_memory.graph.sqlite")  # one logger for the backend


#: SQLite's result codes of a full disk ("database or disk is full") and of a read-only file.
_FULL = getattr(sqlite3, "SQLITE_FULL", 13)
_READONLY = getattr(sqlite3, "SQLITE_READONLY", 8)


def _write_failed(path: str, what: str, exc: BaseException) -> MemoryWriteError:
    """The library's error for a write that failed (and was rolled back: nothing written)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(exc, sqlite3.Error) and (code == _FULL or "disk is full" in str(exc)):
        return DiskFullError(
            f"SQLite graph: {what} failed: not enough free disk space for {path} ({exc}); "
            "nothing was written (rolled back). Free some space and retry"
        )
    if isinstance(exc, sqlite3.Error) and code == _READONLY:
        return MemoryWriteError(
            f"SQLite graph: {what} failed: {path} is read-only ({exc}); nothing was written. "
            "Make the data directory writable (MEMORY_DATA_DIR) and retry"
        )
    return MemoryWriteError(f"{what} failed and was rolled back: {type(exc).__name__}: {exc}")


class SQLiteDatabase:
    """One SQLite connection (a file in WAL mode, or ``:memory:``) guarded by a lock.

    Every write is one ``BEGIN IMMEDIATE`` transaction, so a failure leaves nothing behind.

    Args:
        path: The database file (its folder is created), or ``":memory:"``.
        timeout: Seconds to wait for another process's write lock.
    """

    def __init__(self, path: str | Path = ":memory:", *, timeout: float = 10.0) -> None:
        self._lock = threading.RLock()
        self._outage = OutageLog(logger, "SQLite graph")
        target = str(path)
        self.path = target
        if target != ":memory:":
            Path(target).expanduser().parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(
                target, timeout=timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise BackendUnavailable(f"cannot open the SQLite graph at {target}: {exc}") from exc
        self._conn.row_factory = sqlite3.Row
        self._conn.create_function("prax_decayed", 4, effective_value, deterministic=True)
        self._closed = False
        self.setup()

    def setup(self) -> None:
        """Create the tables and indexes (idempotent) and set WAL mode and foreign keys."""
        with self._lock:
            try:
                self._conn.execute("PRAGMA foreign_keys = ON")
                if self.path != ":memory:":
                    self._use_wal()
                    self._conn.execute("PRAGMA synchronous = NORMAL")
                self._conn.executescript(SCHEMA)
                self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            except sqlite3.Error as exc:
                raise BackendUnavailable(f"cannot set up the SQLite graph: {exc}") from exc

    def _use_wal(self) -> None:
        """Switch the file to WAL once; it stays WAL (the mode is stored in the file).

        Switching needs the file to itself, and SQLite's busy timeout does not cover it: a
        second connection opening a fresh file at the same moment gets "database is locked"
        at once, so the switch is retried briefly.
        """
        row = self._conn.execute("PRAGMA journal_mode").fetchone()
        if row is not None and str(row[0]).lower() == "wal":
            return
        for attempt in range(50):
            try:
                self._conn.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or attempt == 49:
                    raise
                time.sleep(0.02 * (attempt + 1))

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()

    def _check_open(self) -> None:
        if self._closed:
            raise BackendUnavailable("the SQLite graph store is closed")

    @contextmanager
    def _write(self, what: str) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._check_open()
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                self._outage.failed(exc)
                raise BackendUnavailable(f"SQLite graph: cannot start a write: {exc}") from exc
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException as exc:
                self._roll_back(what)
                if isinstance(exc, PraxMemoryError) or not isinstance(exc, Exception):
                    raise
                raise _write_failed(self.path, what, exc) from exc
            self._outage.ok()

    def _roll_back(self, what: str) -> None:
        """Roll back the open transaction, unless SQLite already has.

        A ``COMMIT`` that fails on a full disk rolls back by itself; a second ``ROLLBACK``
        would raise "cannot rollback - no transaction is active".
        """
        if not self._conn.in_transaction:
            return
        try:
            self._conn.execute("ROLLBACK")
        except sqlite3.Error:  # the transaction is gone with the failure: nothing to undo
            logger.warning("SQLite graph: rolling back %s failed", what, exc_info=True)

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """The connection for reads under the lock; an SQLite error is ``BackendUnavailable``."""
        with self._lock:
            self._check_open()
            try:
                yield self._conn
            except sqlite3.Error as exc:
                self._outage.failed(exc)
                raise BackendUnavailable(f"SQLite graph read failed: {exc}") from exc

    # the public face of the plumbing, for the knowledge tables that share this file

    def transaction(self, what: str) -> AbstractContextManager[sqlite3.Connection]:
        """One write transaction on the graph's file: commit on success, roll back on error.

        Raises:
            BackendUnavailable: The store is closed or the file cannot be written.
            MemoryWriteError: The body failed (everything it wrote is rolled back).
        """
        return self._write(what)

    def query(self, sql: str, params: Mapping[str, Any] | Sequence[Any]) -> list[sqlite3.Row]:
        """Run one read statement under the store's lock.

        Raises:
            BackendUnavailable: The store is closed or the read failed.
        """
        with self._reading() as conn:
            return conn.execute(sql, params).fetchall()

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """The open connection under the store's lock (schema set-up, several reads at once).

        Raises:
            BackendUnavailable: The store is closed.
        """
        with self._lock:
            self._check_open()
            yield self._conn

    def compact(self) -> None:
        """Rewrite the file so that no byte of a deleted row remains on disk.

        A ``DELETE`` frees pages but leaves their bytes in the file (and, in WAL mode, in the
        ``-wal`` file) until they are reused. This checkpoints and empties the WAL, rebuilds
        the database (``VACUUM``), then empties the WAL again. The knowledge tables in the
        same file are compacted with it. A no-op for ``:memory:``.

        Raises:
            BackendUnavailable: SQLite refused (another connection is reading or writing).
        """
        with self._lock:
            self._check_open()
            if self.path == ":memory:":
                return
            try:
                self._truncate_wal()
                self._conn.execute("VACUUM")
                self._truncate_wal()
            except sqlite3.Error as exc:
                raise BackendUnavailable(f"SQLite graph: compaction failed: {exc}") from exc

    def _truncate_wal(self) -> None:
        row = self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if row is not None and int(row[0]) != 0:
            raise sqlite3.OperationalError(
                "the write-ahead log is in use by another connection; retry when it is idle"
            )
