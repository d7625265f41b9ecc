"""Connection handling shared by the sync and async Neo4j stores."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from neo4j.exceptions import (
    AuthError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
)

from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    ConfigError,
    MemoryWriteError,
    PraxMemoryError,
)
from langgraph_prax_memory.graph._common import OutageLog

logger = logging.getLogger("langgraph_prax_memory.graph.neo4j")

#: Driver errors that mean "the server cannot be used right now".
UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = (
    ServiceUnavailable,
    SessionExpired,
    AuthError,
    ConnectionError,
    TimeoutError,
)


@dataclass(frozen=True)
class DriverSettings:
    """How to build a driver from a :class:`MemoryConfig`."""

    uri: str
    auth: tuple[str, str] | None
    database: str | None
    kwargs: dict[str, Any]


def settings_from_config(
    config: MemoryConfig, *, connection_timeout: float, max_retry_time: float
) -> DriverSettings:
    """Driver arguments from ``NEO4J_URI`` / ``NEO4J_USER`` / ``NEO4J_PASSWORD``."""
    if not config.neo4j_uri:
        raise ConfigError("NEO4J_URI (neo4j_uri) is not set; the Neo4j graph store needs it")
    password = config.neo4j_password.get_secret_value() if config.neo4j_password else None
    return DriverSettings(
        uri=config.neo4j_uri,
        auth=(config.neo4j_user, password) if password is not None else None,
        database=config.neo4j_database,
        kwargs={
            "connection_timeout": connection_timeout,
            "connection_acquisition_timeout": max(connection_timeout * 2, 1.0),
            "max_transaction_retry_time": max_retry_time,
        },
    )


def translate(exc: BaseException, *, what: str, write: bool, outage: OutageLog) -> Exception:
    """Map a driver error to the library's errors (and log an outage once)."""
    if isinstance(exc, PraxMemoryError):
        return exc
    if isinstance(exc, UNAVAILABLE_ERRORS):
        outage.failed(exc)
        return BackendUnavailable(f"Neo4j graph: {what} failed: {type(exc).__name__}: {exc}")
    if isinstance(exc, Neo4jError | DriverError):
        if write:
            return MemoryWriteError(
                f"Neo4j graph: {what} failed and was rolled back: {type(exc).__name__}: {exc}"
            )
        return PraxMemoryError(f"Neo4j graph: {what} failed: {type(exc).__name__}: {exc}")
    if write:
        return MemoryWriteError(
            f"Neo4j graph: {what} failed and was rolled back: {type(exc).__name__}: {exc}"
        )
    return PraxMemoryError(f"Neo4j graph: {what} failed: {type(exc).__name__}: {exc}")
