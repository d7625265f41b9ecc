"""Exceptions raised by langgraph-prax-memory.

Every error the library raises on purpose derives from :class:`PraxMemoryError`, so a
caller can catch the whole family with one ``except``. Errors about bad input also derive
from :class:`ValueError`, so code written against plain Python conventions keeps working.
"""

from __future__ import annotations

__all__ = [
    "BackendUnavailable",
    "ConfigError",
    "EmbeddingError",
    "MemoryValidationError",
    "MemoryWriteError",
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


class StoreLockedError(BackendUnavailable):
    """The embedded Qdrant data directory is already opened by another process."""


class EmbeddingError(PraxMemoryError):
    """An embedding provider failed and no same-width fallback could produce a vector."""
