"""Crash-safe file replacement and per-file locking shared by the STM and notes layers.

A write goes to a temporary file in the destination's folder, is flushed and ``fsync``-ed,
renamed over the destination with :func:`os.replace` (atomic on POSIX and Windows), and the
folder is ``fsync``-ed so the rename itself survives a power loss. A reader therefore sees
either the whole old file or the whole new one, never a torn mixture.

Locking is two-level: a :class:`threading.Lock` per file path (shared by every object in the
process, so two stores pointing at the same file still serialise) and a
:class:`filelock.FileLock` on ``<file>.lock`` for other processes. Read-modify-write cycles
run under both.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import filelock

from langgraph_prax_memory.errors import DiskFullError, MemoryWriteError

__all__ = ["atomic_write_text", "disk_write_error", "locked", "DEFAULT_LOCK_TIMEOUT"]

#: Seconds to wait for another writer before giving up with :class:`MemoryWriteError`.
DEFAULT_LOCK_TIMEOUT = 30.0

_registry_guard = threading.Lock()
_thread_locks: dict[str, threading.Lock] = {}


def _thread_lock(path: Path) -> threading.Lock:
    key = os.path.abspath(path)
    with _registry_guard:
        lock = _thread_locks.get(key)
        if lock is None:
            lock = _thread_locks[key] = threading.Lock()
        return lock


@contextlib.contextmanager
def locked(path: Path, *, timeout: float = DEFAULT_LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the in-process lock and the cross-process file lock of ``path``.

    Args:
        path: The file being protected; the lock file is ``<path>.lock`` beside it.
        timeout: Seconds to wait for each lock.

    Raises:
        MemoryWriteError: A lock could not be taken within ``timeout``, or the disk refused
            the folder or the lock file (read-only, no permission; full: a
            :class:`DiskFullError`).
    """
    _make_folder(path)
    tlock = _thread_lock(path)
    if not tlock.acquire(timeout=timeout):
        raise MemoryWriteError(f"timed out after {timeout}s waiting for the lock of {path}")
    try:
        flock = filelock.FileLock(str(path) + ".lock", timeout=timeout, poll_interval=0.005)
        deadline = time.monotonic() + timeout
        while True:
            try:
                flock.acquire(timeout=max(0.0, deadline - time.monotonic()))
            except filelock.Timeout as exc:
                raise MemoryWriteError(
                    f"timed out after {timeout}s waiting for another process to release {path}.lock"
                ) from exc
            except FileNotFoundError as exc:
                # the folder went while we waited (another process deleting the user, under
                # this lock): make it again and wait on the new lock file
                if time.monotonic() < deadline:
                    with contextlib.suppress(OSError):
                        path.parent.mkdir(parents=True, exist_ok=True)
                    continue
                raise _refused(f"cannot create the lock file {path}.lock", exc) from exc
            except OSError as exc:
                raise _refused(f"cannot create the lock file {path}.lock", exc) from exc
            break
        try:
            yield
        finally:
            flock.release()
    finally:
        tlock.release()


def _make_folder(path: Path, attempts: int = 5) -> None:
    """Create ``path``'s folder, tolerating a deletion of it racing the creation.

    :meth:`Path.mkdir` with ``exist_ok`` raises ``FileExistsError`` when its own creation
    finds the folder there and, a moment later, no folder: another thread or process
    removed it in between (deleting the user). That is tried again; a file in the way, or
    any other refusal, raises at once.
    """
    for attempt in range(attempts):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            return
        except FileExistsError as exc:
            in_the_way = path.parent.exists() and not path.parent.is_dir()
            if in_the_way or attempt == attempts - 1:
                raise _refused(f"cannot create the folder of {path}", exc) from exc
        except OSError as exc:
            raise _refused(f"cannot create the folder of {path}", exc) from exc


def disk_write_error(what: str, exc: OSError, then: str) -> MemoryWriteError:
    """The product's error for a write the disk refused (``OSError``), with what it means.

    :class:`DiskFullError` when the disk is full (``ENOSPC``, ``EDQUOT``), else
    :class:`MemoryWriteError`.

    Args:
        what: What could not be written ("consolidating user 'alice'").
        exc: The refusal.
        then: What happened to the data, and what to do.

    Example:
        >>> import errno
        >>> error = disk_write_error("x", OSError(errno.ENOSPC, "No space left"), "retry")
        >>> type(error).__name__, str(error)
        ('DiskFullError', 'x: not enough free disk space ([Errno 28] No space left); retry')
    """
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return DiskFullError(f"{what}: not enough free disk space ({exc}); {then}")
    return MemoryWriteError(f"{what}: the disk refused a write ({exc}); {then}")


def _refused(what: str, exc: OSError) -> MemoryWriteError:
    """The error for a file the disk refused, before anything of it was changed.

    :class:`DiskFullError` when the disk (or the quota) is full, saying so and what to do;
    :class:`MemoryWriteError` with the system's reason otherwise.
    """
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return DiskFullError(
            f"{what}: not enough free disk space ({exc}); nothing was changed: free some space "
            "and retry"
        )
    return MemoryWriteError(f"{what}: {exc}")


def _fsync_dir(folder: Path) -> None:
    if os.name != "posix":  # directories cannot be opened for fsync on Windows
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) so that a crash leaves the old or the new file.

    Args:
        path: Destination file; its folder is created when missing.
        text: The complete new content.

    Raises:
        DiskFullError: The disk (or the quota) is full; the file is as it was.
        MemoryWriteError: The file could not be written.
    """
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise _refused(f"cannot write {path}", exc) from exc
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError):
            raise _refused(f"cannot write {path}", exc) from exc
        raise
    try:
        _fsync_dir(folder)
    except OSError as exc:
        raise MemoryWriteError(f"wrote {path} but could not sync its folder: {exc}") from exc
