"""Connection handling shared by the sync and async Neo4j stores."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from neo4j.exceptions import (
    AuthError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
)

from langgraph_prax_memory._breaker import CircuitBreaker, describe
from langgraph_prax_memory.config import (
    DEFAULT_BREAKER_COOLDOWN,
    DEFAULT_BREAKER_FAILURES,
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_NEO4J_RETRY_TIME,
    MemoryConfig,
)
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


def neo4j_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` means the server did not answer: what the circuit breaker counts.

    Unreachable, hung (no Bolt handshake in time) or a connection lost mid-call, as raised by
    the driver or as the cause of the library error it was translated to. A wrong password
    (``AuthError``) or a failed query does not count: the server answered.
    """
    return isinstance(_driver_error(exc), ServiceUnavailable | SessionExpired | OSError)


def _driver_error(exc: BaseException) -> BaseException:
    """The driver's exception behind a library error it was translated to."""
    if isinstance(exc, PraxMemoryError) and exc.__cause__ is not None:
        return exc.__cause__
    return exc


@dataclass(frozen=True)
class Resilience:
    """How long a Neo4j store waits on its server, and when its breaker opens."""

    connection_timeout: float
    max_retry_time: float
    breaker_failures: int
    breaker_cooldown: float

    @classmethod
    def resolve(
        cls,
        connection: object,
        *,
        connection_timeout: float | None,
        max_retry_time: float | None,
        breaker_failures: int | None,
        breaker_cooldown: float | None,
    ) -> Resilience:
        """Arguments given win; then a :class:`MemoryConfig`'s settings; then the defaults."""
        cfg = connection if isinstance(connection, MemoryConfig) else None

        def pick(given: float | None, field: str, default: float) -> float:
            if given is not None:
                return float(given)
            return float(getattr(cfg, field)) if cfg is not None else default

        return cls(
            connection_timeout=pick(
                connection_timeout, "neo4j_connect_timeout", DEFAULT_CONNECT_TIMEOUT
            ),
            max_retry_time=pick(max_retry_time, "neo4j_max_retry_time", DEFAULT_NEO4J_RETRY_TIME),
            breaker_failures=int(
                pick(breaker_failures, "breaker_failures", DEFAULT_BREAKER_FAILURES)
            ),
            breaker_cooldown=pick(breaker_cooldown, "breaker_cooldown", DEFAULT_BREAKER_COOLDOWN),
        )

    def breaker(self, probe: Callable[[], object] | None) -> CircuitBreaker:
        """The store's circuit breaker (its outages are already logged by ``OutageLog``)."""
        return CircuitBreaker(
            "Neo4j graph",
            failures=self.breaker_failures,
            cooldown=self.breaker_cooldown,
            is_failure=neo4j_unavailable,
            probe=probe,
            warn=False,
            explain=lambda exc: describe(_driver_error(exc)),
        )


def driver_kwargs(connection_timeout: float, max_retry_time: float) -> dict[str, Any]:
    """Driver settings bounding how long a server that does not answer can hold a call.

    ``connection_timeout`` bounds the TCP connect; the acquisition timeout bounds getting a
    usable connection, Bolt handshake included, so a server that accepts TCP and never
    answers fails after about ``connection_timeout`` (not twice that).
    """
    return {
        "connection_timeout": connection_timeout,
        "connection_acquisition_timeout": connection_timeout,
        "max_transaction_retry_time": max_retry_time,
    }


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
        kwargs=driver_kwargs(connection_timeout, max_retry_time),
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
