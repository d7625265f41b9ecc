"""The per-user state file and the per-user run lock.

``{workspace}/memory/consolidation_state.json`` is replaced atomically (temp file, ``fsync``,
rename, folder ``fsync``) with the STM layer's :func:`atomic_write_text`, so a crash leaves the
old or the new state and never a torn one. A file that cannot be parsed is moved aside to
``consolidation_state.json.corrupt-<UTC stamp>`` and logged at ERROR; the run starts from an
empty state (identical memories are deduplicated by content hash, so re-reading is safe).

Only one consolidation per user runs at a time: :class:`UserRunLock` is an in-process lease
(released from whichever thread finishes the run, and reclaimable after ``lease_seconds``
without progress) plus a cross-process :class:`filelock.FileLock` on
``{workspace}/memory/consolidation.lock``. A process holds one :class:`UserRunLock` per users
folder (:func:`user_run_lock`), shared by its consolidations and by user deletion
(``PraxMemory.forget_user`` takes it so that no consolidation writes while a user is deleted).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
import uuid
import weakref
from dataclasses import dataclass
from pathlib import Path

import filelock
from pydantic import ValidationError

from langgraph_prax_memory._atomic import atomic_write_text, disk_write_error
from langgraph_prax_memory._validation import user_dir_name, utcnow
from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.consolidation._models import ConsolidationState

__all__ = ["LOCK_FILENAME", "STATE_FILENAME", "StateFile", "UserRunLock", "user_run_lock"]

logger = logging.getLogger(__name__)

#: File name of the state inside ``{workspace}/memory/``.
STATE_FILENAME = "consolidation_state.json"
#: File name of the cross-process run lock inside ``{workspace}/memory/``.
LOCK_FILENAME = "consolidation.lock"


def workspace_memory_dir(config: MemoryConfig, user_id: str) -> Path:
    """``config.users_dir / user_dir_name(user_id) / "memory"``."""
    return config.users_dir / user_dir_name(user_id) / "memory"


class StateFile:
    """Load and save one user's consolidation state.

    Example:
        >>> import tempfile
        >>> from langgraph_prax_memory.config import MemoryConfig
        >>> states = StateFile(MemoryConfig(data_dir=tempfile.mkdtemp()))
        >>> state = states.load("alice")
        >>> state.sources
        {}
        >>> states.save("alice", state)
        >>> states.path("alice").name
        'consolidation_state.json'
    """

    def __init__(self, config: MemoryConfig) -> None:
        self.config = config

    def path(self, user_id: str) -> Path:
        """``{workspace}/memory/consolidation_state.json``."""
        return workspace_memory_dir(self.config, user_id) / STATE_FILENAME

    def load(self, user_id: str) -> ConsolidationState:
        """The saved state, or a fresh one (a corrupt file is moved aside and logged)."""
        path = self.path(user_id)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return ConsolidationState()
        try:
            return ConsolidationState.model_validate(json.loads(raw.decode("utf-8")))
        except (UnicodeDecodeError, json.JSONDecodeError, ValidationError) as exc:
            stamp = utcnow().strftime("%Y%m%dT%H%M%S%fZ")
            moved = path.with_name(f"{path.name}.corrupt-{stamp}")
            with contextlib.suppress(OSError):
                os.replace(path, moved)
            logger.error(
                "consolidation state of %r is corrupt (%s); moved to %s, starting afresh",
                user_id,
                exc,
                moved,
            )
            return ConsolidationState()

    def save(self, user_id: str, state: ConsolidationState) -> None:
        """Replace the state file atomically (temp file + fsync + rename)."""
        state.totals()
        atomic_write_text(self.path(user_id), state.model_dump_json(indent=2) + "\n")


@dataclass
class _Lease:
    token: str
    renewed: float
    flock: filelock.FileLock | None


class UserRunLock:
    """One consolidation per user at a time, in this process and across processes.

    The in-process part is a lease keyed by user, not owned by a thread: LangGraph may run
    consecutive nodes of one run on different worker threads. A lease not renewed for
    ``lease_seconds`` (a crashed run) can be taken over.
    """

    def __init__(self, config: MemoryConfig, *, lease_seconds: float = 600.0) -> None:
        self.config = config
        self.lease_seconds = lease_seconds
        self._cond = threading.Condition()
        self._leases: dict[str, _Lease] = {}

    def acquire(self, user_id: str, *, timeout: float) -> str | None:
        """Take the user's lock; the token to release it with, or None when still busy."""
        deadline = time.monotonic() + max(0.0, timeout)
        path = workspace_memory_dir(self.config, user_id) / LOCK_FILENAME
        token = uuid.uuid4().hex
        with self._cond:
            while True:
                lease = self._leases.get(user_id)
                now = time.monotonic()
                if lease is not None and now - lease.renewed > self.lease_seconds:
                    logger.warning(
                        "consolidation lease of %r expired after %.0f s; taking it over",
                        user_id,
                        self.lease_seconds,
                    )
                    self._drop(user_id, lease)
                    lease = None
                if lease is None:
                    break
                remaining = deadline - now
                if remaining <= 0:
                    return None
                self._cond.wait(min(remaining, 0.5))
            # Reserve the in-process slot, then wait for other processes without the condition.
            self._leases[user_id] = _Lease(token, time.monotonic(), None)
        while True:
            flock = filelock.FileLock(str(path), thread_local=False, is_singleton=False)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                flock.acquire(timeout=max(0.0, deadline - time.monotonic()), poll_interval=0.01)
            except FileNotFoundError:
                # the user's folder went while we waited (a deletion of the user, whose
                # last step removes it): make it again and wait on the new lock file
                if time.monotonic() < deadline:
                    continue
                self.release(user_id, token)
                return None
            except filelock.Timeout:
                self.release(user_id, token)
                return None
            except OSError as exc:  # a full or read-only disk: the lock file cannot be made
                self.release(user_id, token)
                raise disk_write_error(
                    f"cannot make the consolidation lock {path}",
                    exc,
                    "nothing was consolidated; the trace stays in the backlog",
                ) from exc
            except BaseException:
                self.release(user_id, token)
                raise
            break
        with self._cond:
            lease = self._leases.get(user_id)
            if lease is None or lease.token != token:  # taken over while we waited
                flock.release(force=True)
                return None
            lease.flock = flock
            lease.renewed = time.monotonic()
        return token

    def _drop(self, user_id: str, lease: _Lease) -> None:
        del self._leases[user_id]
        if lease.flock is not None:
            with contextlib.suppress(Exception):
                lease.flock.release(force=True)
        self._cond.notify_all()

    def renew(self, user_id: str, token: str) -> bool:
        """Extend the lease; False when it is no longer held with ``token``."""
        with self._cond:
            lease = self._leases.get(user_id)
            if lease is None or lease.token != token:
                return False
            lease.renewed = time.monotonic()
            return True

    def release(self, user_id: str, token: str) -> None:
        """Give the lock back (a stale token is ignored)."""
        with self._cond:
            lease = self._leases.get(user_id)
            if lease is None or lease.token != token:
                return
            self._drop(user_id, lease)

    def held(self, user_id: str) -> bool:
        """Whether a consolidation of ``user_id`` runs in this process."""
        with self._cond:
            return user_id in self._leases


_SHARED: weakref.WeakValueDictionary[Path, UserRunLock] = weakref.WeakValueDictionary()
_SHARED_GUARD = threading.Lock()


def user_run_lock(config: MemoryConfig) -> UserRunLock:
    """This process' run lock of ``config``'s users folder, shared by everything using it.

    Consolidations and user deletions of one folder then wait for each other on one in-process
    lease (with its stale-lease takeover) rather than only on the lock file.
    """
    key = config.users_dir.resolve()
    with _SHARED_GUARD:
        lock = _SHARED.get(key)
        if lock is None:
            lock = UserRunLock(config)
            _SHARED[key] = lock
        return lock
