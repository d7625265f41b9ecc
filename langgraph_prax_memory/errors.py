"""Exceptions raised by langgraph-prax-memory.

Every error the library raises on purpose derives from :class:`PraxMemoryError`, so a
caller can catch the whole family with one ``except``. Errors about bad input also derive
from :class:`ValueError`, so code written against plain Python conventions keeps working.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "BackendUnavailable",
    "CircuitOpenError",
    "ConfigError",
    "DeletionIncomplete",
    "DiskFullError",
    "EmbeddingError",
    "MemoryValidationError",
    "MemoryWriteError",
    "ModelIntegrityError",
    "ModelPullError",
    "ModelUnavailableError",
    "PraxMemoryError",
    "StoreLockedError",
]


class PraxMemoryError(Exception):
    """Root of every error raised by langgraph-prax-memory."""


class ConfigError(PraxMemoryError, ValueError):
    """A configuration value is invalid or two settings contradict each other.

    The message names the environment variable (or argument) at fault.
    """


class MemoryValidationError(PraxMemoryError, ValueError):
    """Input was rejected before anything was stored (empty text, bad importance, ...)."""


class MemoryWriteError(PraxMemoryError):
    """A write did not land in its backend. Nothing was reported as stored."""


class BackendUnavailable(PraxMemoryError):
    """A backend (Qdrant, Neo4j, an embedding server) cannot be reached or used."""


class CircuitOpenError(BackendUnavailable):
    """A backend failed recently, so the call was not attempted (its circuit breaker is open).

    Raised at once, without touching the network, until the breaker's cool-down
    (``MEMORY_BREAKER_COOLDOWN``) ends and a retry shows the backend answers again.

    Attributes:
        backend: The backend that is down (``"Qdrant"``, ``"Neo4j graph"``).
        retry_in: Seconds until the next retry; ``0.0`` while one is under way.
    """

    def __init__(self, message: str, *, backend: str = "backend", retry_in: float = 0.0) -> None:
        super().__init__(message)
        self.backend = backend
        self.retry_in = retry_in


class DiskFullError(MemoryWriteError, BackendUnavailable):
    """The disk is too full for the embedded Qdrant engine to write (or open) safely.

    The engine memory-maps sparse files; writing on with too little space would crash the
    process with ``SIGBUS``, so the call is refused before the engine sees it and nothing is
    written. It is a :class:`MemoryWriteError` for writes and a :class:`BackendUnavailable`
    for the long-term memory as a whole; free space (see ``MEMORY_DISK_HEADROOM_MB``) and
    retry. The other stores raise it (or a subclass) too when the disk refused a write:
    the notes repository (:class:`~langgraph_prax_memory.notes.NotesDiskFullError`), and
    closing the embedded engine, whose final flush could not be written.
    """


class StoreLockedError(BackendUnavailable):
    """The embedded Qdrant data directory is already opened by another process."""


class EmbeddingError(PraxMemoryError):
    """An embedding provider failed and no same-width fallback could produce a vector."""


class ModelPullError(PraxMemoryError):
    """``prax-memory models pull`` could not fetch or verify a model; nothing was installed.

    The repository was unreachable or answered with an error, the file's SHA-256 did not match
    the pinned one, or the archive lacked the model's files.
    """


class ModelUnavailableError(ConfigError):
    """The configured local embedding model cannot be used: never pulled, or an unknown name.

    Raised when the memory is built (never after a download attempt or with a stand-in model),
    the message naming what is missing, where it was looked for, and the command that fetches
    it (``prax-memory models pull NAME``).
    """


class ModelIntegrityError(ModelUnavailableError):
    """A pulled model's files do not match the checksums it was pulled with: it is not used.

    The message names the file and the command that repairs it
    (``prax-memory models pull NAME --force``).
    """


class DeletionIncomplete(PraxMemoryError):
    """Deleting a user stopped part-way (a backend down, a file that would not go).

    The deletion is recorded in a pending-deletion marker under the data directory and
    resumes when ``forget-user`` (``forget_user`` / ``delete_user``) runs again for the user,
    or by itself when a memory is next opened on that data directory. What was deleted stays
    deleted; the backends that can fail are deleted first, so the user's local files are
    still there and the user never looks deleted while a part of them is left.

    Attributes:
        user_id: The user being deleted.
        removed: What was removed so far (over every attempt), by kind.
        left: What is still to delete, in the order it will be deleted.
        remaining: What stays outside the product's reach even once the deletion completes.
        marker: The pending-deletion file recording the deletion.
    """

    def __init__(
        self,
        message: str,
        *,
        user_id: str,
        removed: dict[str, int],
        left: list[str],
        remaining: list[str],
        marker: Path,
    ) -> None:
        super().__init__(message)
        self.user_id = user_id
        self.removed = removed
        self.left = left
        self.remaining = remaining
        self.marker = marker
