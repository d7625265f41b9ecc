"""The connection of the Neo4j stores, written once for the sync and the async driver.

:class:`Neo4jConnection` is a driver (``neo4j.Driver`` or ``neo4j.AsyncDriver``) with what
every call on it needs: the database, the retry budget, the circuit breaker, the outage log,
the set-up queries and error translation. Its ``execute`` / ``aexecute`` drive one operation
generator (``Op``: yields :class:`Query` objects, receives their rows) inside one managed
transaction; they are the only code that differs between the sync and the async store.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable, Generator, Iterator, Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import neo4j
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
    check_neo4j_uri,
)
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    ConfigError,
    MemoryWriteError,
    PraxMemoryError,
)
from langgraph_prax_memory.graph._outage import OutageLog

logger = logging.getLogger("langgraph_prax_memory.graph.neo4j")

T = TypeVar("T")
D = TypeVar("D", neo4j.Driver, neo4j.AsyncDriver)
Rows = list[dict[str, Any]]


@dataclass(frozen=True)
class Query:
    """A Cypher text (a module constant) and its parameters."""

    text: str
    params: Mapping[str, Any]


#: An operation: yields queries, receives their rows, returns a result.
Op = Generator[Query, Rows, T]

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


#: Added to ``retrieval.graph_timeout`` for a store's own deadline, so that a tool or recall
#: waiting on the same call with that timeout gives up first (and knows the call is late).
CALL_SLACK = 0.5
#: Seconds one call waits for a server that does not answer (``retrieval.graph_timeout``'s
#: 5 s, plus :data:`CALL_SLACK`).
DEFAULT_CALL_TIMEOUT = 5.0 + CALL_SLACK
#: The deadline of a maintenance call (``delete_user``, ``decay_graph``): this many times the
#: call timeout, since such a call may be busy for a while on a large graph.
SLOW_CALL_FACTOR = 12


@dataclass(frozen=True)
class Resilience:
    """How long a Neo4j store waits on its server, and when its breaker opens."""

    connection_timeout: float
    max_retry_time: float
    breaker_failures: int
    breaker_cooldown: float
    call_timeout: float = DEFAULT_CALL_TIMEOUT

    @classmethod
    def resolve(
        cls,
        connection: object,
        *,
        connection_timeout: float | None,
        max_retry_time: float | None,
        breaker_failures: int | None,
        breaker_cooldown: float | None,
        call_timeout: float | None = None,
    ) -> Resilience:
        """Arguments given win; then a :class:`MemoryConfig`'s settings; then the defaults.

        ``call_timeout`` comes from the config's ``retrieval.graph_timeout`` (the bound the
        memory tools and recall put on the graph) plus :data:`CALL_SLACK`.
        """
        cfg = connection if isinstance(connection, MemoryConfig) else None
        if call_timeout is None and cfg is not None:
            call_timeout = cfg.retrieval.graph_timeout + CALL_SLACK

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
            call_timeout=DEFAULT_CALL_TIMEOUT if call_timeout is None else float(call_timeout),
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


def no_answer(what: str, timeout: float, *, write: bool, name: str = "Neo4j graph") -> Exception:
    """The error of a call that got no answer within ``timeout`` (its cause: a TimeoutError).

    A :class:`BackendUnavailable` whose cause is a :class:`TimeoutError`, so the circuit
    breaker counts it as "no answer" and the next calls fail fast.
    """
    then = (
        "the write was not acknowledged (a server that is only slow may still complete it)"
        if write
        else "nothing was read"
    )
    error = BackendUnavailable(
        f"{name}: {what} gave no answer within {timeout:g} s: the "
        f"server is stopped, unreachable or not answering; {then}. Check the Neo4j server "
        "(NEO4J_URI); calls fail fast until it answers again"
    )
    error.__cause__ = TimeoutError(f"no answer within {timeout:g} s")
    return error


def call_within(
    call: Callable[[], T], *, timeout: float, what: str, write: bool, name: str = "Neo4j graph"
) -> T:
    """``call()``'s result, or the :func:`no_answer` error after ``timeout`` seconds.

    The driver bounds connecting and the transaction retries, but not a server that stops
    answering on a connection it already holds (it has no read timeout): the call runs in a
    daemon thread and is waited for at most ``timeout``. Nothing is cancelled; a late call
    ends (or fails) on its own, and the breaker keeps the next calls off the server.

    Raises:
        BackendUnavailable: No answer within ``timeout``.
    """
    future: Future[T] = Future()

    def work() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(call())
        except BaseException as exc:  # handed to the caller through the future
            future.set_exception(exc)

    threading.Thread(target=work, name="prax-neo4j-call", daemon=True).start()
    try:
        return future.result(timeout=timeout)
    except FutureTimeout:
        raise no_answer(what, timeout, write=write, name=name)  # noqa: B904 (its cause is set)


async def acall_within(
    call: Callable[[], Awaitable[T]],
    *,
    timeout: float,
    what: str,
    write: bool,
    name: str = "Neo4j graph",
) -> T:
    """The async twin of :func:`call_within`: the call is cancelled after ``timeout``.

    Raises:
        BackendUnavailable: No answer within ``timeout``.
    """
    try:
        async with asyncio.timeout(timeout) as deadline:
            return await call()
    except TimeoutError:
        if deadline.expired():
            raise no_answer(what, timeout, write=write, name=name)  # noqa: B904 (cause set)
        raise


def run_op(tx: neo4j.ManagedTransaction, make_op: Callable[[], Op[T]]) -> T:
    """Drive one operation generator inside a managed transaction (fresh on every retry)."""
    op = make_op()
    try:
        query = next(op)
        while True:
            result = tx.run(query.text, dict(query.params))  # type: ignore[arg-type]
            rows = [record.data() for record in result]
            query = op.send(rows)
    except StopIteration as stop:
        value: T = stop.value
        return value


async def arun_op(tx: neo4j.AsyncManagedTransaction, make_op: Callable[[], Op[T]]) -> T:
    """The async twin of :func:`run_op` (``await tx.run``)."""
    op = make_op()
    try:
        query = next(op)
        while True:
            result = await tx.run(query.text, dict(query.params))  # type: ignore[arg-type]
            rows = [record.data() async for record in result]
            query = op.send(rows)
    except StopIteration as stop:
        value: T = stop.value
        return value


def open_driver(
    connection: object,
    *,
    auth: Any,
    database: str | None,
    limits: Resilience,
    driver_type: type[D],
    factory: Callable[..., D],
) -> tuple[D, str | None, bool] | None:
    """``(driver, database, owned)`` from a config, a URI or a driver (``None``: none of them).

    A driver built here from a :class:`MemoryConfig` or a URI is owned (closed with the
    store); a driver passed in is shared.
    """
    if isinstance(connection, MemoryConfig):
        settings = settings_from_config(
            connection,
            connection_timeout=limits.connection_timeout,
            max_retry_time=limits.max_retry_time,
        )
        driver = _make_driver(factory, settings.uri, settings.auth, settings.kwargs)
        return driver, database or settings.database, True
    if isinstance(connection, str):
        kwargs = driver_kwargs(limits.connection_timeout, limits.max_retry_time)
        return _make_driver(factory, connection, auth, kwargs), database, True
    if isinstance(connection, driver_type):
        return connection, database, False
    return None


def _make_driver(factory: Callable[..., D], uri: str, auth: Any, kwargs: dict[str, Any]) -> D:
    check_neo4j_uri(uri)  # http:// would fail later, inside the driver, without saying why
    try:
        return factory(uri, auth=auth, **kwargs)
    except (ValueError, neo4j.exceptions.ConfigurationError) as exc:
        raise ConfigError(f"invalid Neo4j connection settings for {uri!r}: {exc}") from exc


class Neo4jConnection(Generic[D]):
    """A Neo4j driver and everything a call on it needs (see the module docstring).

    Args:
        driver: A ``neo4j.Driver`` or ``neo4j.AsyncDriver``.
        database: The database queries run in (``None``: the server's default).
        limits: Timeouts, retry budget and breaker settings.
        owns_driver: Whether :meth:`close` closes the driver.
        setup_queries: Constraints and indexes to create before the first operation.
        auto_setup: Run them automatically before the first operation.
        name: The backend's name in logs and errors.
    """

    def __init__(
        self,
        driver: D,
        *,
        database: str | None,
        limits: Resilience,
        owns_driver: bool,
        setup_queries: tuple[str, ...] = (),
        auto_setup: bool = True,
        name: str = "Neo4j graph",
    ) -> None:
        self.driver: D = driver
        self.database = database
        self.max_retry_time = limits.max_retry_time
        #: Seconds a call waits for a server that does not answer (its deadline).
        self.call_timeout = limits.call_timeout
        self.owns_driver = owns_driver
        self.setup_queries = setup_queries
        self.auto_setup = auto_setup
        self.setup_done = False
        self.outage = OutageLog(logger, name)
        # The async driver belongs to its event loop: no background check there, the first
        # call after the cool-down is the trial.
        probe = driver.verify_connectivity if isinstance(driver, neo4j.Driver) else None
        #: Fails calls fast while the server does not answer.
        self.breaker = limits.breaker(probe=probe)
        self._setup_lock = threading.Lock()
        self._async_setup_lock: asyncio.Lock | None = None

    def deadline(self, *, slow: bool = False) -> float:
        """Seconds a call may take: the call timeout (a maintenance call: some times that)."""
        return self.call_timeout * SLOW_CALL_FACTOR if slow else self.call_timeout

    def session(self) -> Any:
        """A session on the database with the retry budget (``async with`` for the async one).

        The driver retries a failed transaction for ``max_retry_time`` at most, and never
        past the call's deadline (it would retry for no one).
        """
        retry = min(self.max_retry_time, self.call_timeout)
        kwargs: dict[str, Any] = {"max_transaction_retry_time": retry}
        if self.database:
            kwargs["database"] = self.database
        return self.driver.session(**kwargs)

    @contextmanager
    def calling(self, what: str, *, write: bool) -> Iterator[None]:
        """Translate a driver error to the library's (logging an outage once); note success."""
        try:
            yield
        except Exception as exc:
            if isinstance(exc, PraxMemoryError):
                raise
            raise translate(exc, what=what, write=write, outage=self.outage) from exc
        self.outage.ok()

    # sync ---------------------------------------------------------------------------

    def setup(self: Neo4jConnection[neo4j.Driver]) -> None:
        """Run the set-up queries (idempotent)."""
        with self._setup_lock, self.calling("setup", write=False):
            with self.session() as session:
                for text in self.setup_queries:
                    session.run(text).consume()
            self.setup_done = True

    def execute(
        self: Neo4jConnection[neo4j.Driver],
        what: str,
        make_op: Callable[[], Op[T]],
        *,
        write: bool,
        slow: bool = False,
    ) -> T:
        """Run one operation in one managed transaction, through the circuit breaker.

        The call gives up after :meth:`deadline` seconds (:func:`call_within`); the set-up
        before the first call (constraints, indexes, names) has a maintenance deadline.

        Raises:
            BackendUnavailable: The server did not answer (in time), or the breaker is open.
        """

        def run_it() -> T:
            with self.calling(what, write=write):
                if self.outage.down:
                    # During an outage, fail fast with one cheap probe instead of letting the
                    # driver retry (and log) every call for up to ``max_retry_time``.
                    self.driver.verify_connectivity()
                with self.session() as session:
                    run = session.execute_write if write else session.execute_read
                    result: T = run(run_op, make_op)
            return result

        with self.breaker.guard():
            if self.auto_setup and not self.setup_done:  # once, with a maintenance deadline
                call_within(self.setup, timeout=self.deadline(slow=True), what="setup", write=True)
            return call_within(run_it, timeout=self.deadline(slow=slow), what=what, write=write)

    def close(self: Neo4jConnection[neo4j.Driver]) -> None:
        """Close the driver if it was built here."""
        if self.owns_driver:
            self.driver.close()

    # async: the same steps, awaited ---------------------------------------------------

    async def asetup(self: Neo4jConnection[neo4j.AsyncDriver]) -> None:
        """Run the set-up queries (idempotent)."""
        if self._async_setup_lock is None:
            self._async_setup_lock = asyncio.Lock()
        async with self._async_setup_lock:
            with self.calling("setup", write=False):
                async with self.session() as session:
                    for text in self.setup_queries:
                        await (await session.run(text)).consume()
                self.setup_done = True

    async def aexecute(
        self: Neo4jConnection[neo4j.AsyncDriver],
        what: str,
        make_op: Callable[[], Op[T]],
        *,
        write: bool,
        slow: bool = False,
    ) -> T:
        """Run one operation in one managed transaction, through the circuit breaker.

        The call is cancelled after :meth:`deadline` seconds (:func:`acall_within`); the
        set-up before the first call has a maintenance deadline.

        Raises:
            BackendUnavailable: The server did not answer (in time), or the breaker is open.
        """

        async def run_it() -> T:
            with self.calling(what, write=write):
                if self.outage.down:
                    await self.driver.verify_connectivity()
                async with self.session() as session:
                    run = session.execute_write if write else session.execute_read
                    result: T = await run(arun_op, make_op)
            return result

        with self.breaker.guard():
            if self.auto_setup and not self.setup_done:  # once, with a maintenance deadline
                await acall_within(
                    self.asetup, timeout=self.deadline(slow=True), what="setup", write=True
                )
            return await acall_within(
                run_it, timeout=self.deadline(slow=slow), what=what, write=write
            )

    async def aclose(self: Neo4jConnection[neo4j.AsyncDriver]) -> None:
        """Close the driver if it was built here."""
        if self.owns_driver:
            await self.driver.close()
