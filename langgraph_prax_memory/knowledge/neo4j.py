"""The knowledge namespace in Neo4j, on the memory graph's driver (shared connection pool).

The public methods are :class:`~langgraph_prax_memory.knowledge.KnowledgeStore`'s, written
once over op objects; this module holds the two runners: :class:`Neo4jKnowledgeStore` drives
an op's Cypher (``_cypher.py``) in a sync managed transaction, and
:class:`AsyncNeo4jKnowledgeStore` overrides the async face's runner with the driver's native
async API (same Cypher, no threads). Both take the graph store's public connection
(``driver``, ``database``, ``max_retry_time``) and its circuit breaker.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from typing import Any, TypeVar

import neo4j

from langgraph_prax_memory._breaker import CircuitBreaker
from langgraph_prax_memory.errors import ConfigError, PraxMemoryError
from langgraph_prax_memory.graph import AsyncNeo4jGraphStore, Neo4jGraphStore, OutageLog
from langgraph_prax_memory.graph.neo4j import (
    DEFAULT_CALL_TIMEOUT,
    SLOW_CALL_FACTOR,
    acall_within,
    arun_op,
    call_within,
    run_op,
    translate,
)
from langgraph_prax_memory.graph.neo4j import (
    SETUP_QUERIES as GRAPH_SETUP_QUERIES,
)
from langgraph_prax_memory.knowledge._cypher import SETUP_QUERIES, cypher_op
from langgraph_prax_memory.knowledge._ops import KnowledgeOp
from langgraph_prax_memory.knowledge._store import AsyncKnowledgeStore, KnowledgeStore

__all__ = ["AsyncNeo4jKnowledgeStore", "Neo4jKnowledgeStore"]

logger = logging.getLogger("langgraph_prax_memory.graph.neo4j")  # one logger for the Neo4j backend
T = TypeVar("T")


class _NoBreaker:
    """Stands in for the circuit breaker of a store built on a bare driver."""

    def guard(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()


class _Connection:
    """The graph store's public connection: driver, database, retry budget, breaker."""

    def __init__(self, connection: Any, database: str | None) -> None:
        if isinstance(connection, Neo4jGraphStore | AsyncNeo4jGraphStore):
            driver, db, retry = connection.driver, connection.database, connection.max_retry_time
        elif isinstance(connection, neo4j.Driver | neo4j.AsyncDriver):
            driver, db, retry = connection, None, 10.0
        else:
            raise ConfigError(
                "the Neo4j knowledge store needs the memory graph's Neo4jGraphStore (or a neo4j "
                f"driver), got {type(connection).__name__}"
            )
        breaker = getattr(connection, "breaker", None)
        self.driver = driver
        self.breaker = breaker if isinstance(breaker, CircuitBreaker) else _NoBreaker()
        self.outage = OutageLog(logger, "Neo4j knowledge graph")
        #: Seconds a call waits for a server that does not answer (the graph store's).
        self.call_timeout = float(getattr(connection, "call_timeout", DEFAULT_CALL_TIMEOUT))
        retry = min(retry, self.call_timeout)  # no retry past the call's deadline
        self.session_kwargs: dict[str, Any] = {"max_transaction_retry_time": retry}
        if database or db:
            self.session_kwargs["database"] = database or db

    def failed(self, exc: Exception, what: str, write: bool) -> Exception:
        """The library error for a driver error (a library error passes through)."""
        if isinstance(exc, PraxMemoryError):
            return exc
        return translate(exc, what=f"knowledge {what}", write=write, outage=self.outage)


class Neo4jKnowledgeStore(KnowledgeStore):
    """The concept graph in the memory graph's Neo4j database, on the same driver.

    Args:
        connection: The memory graph's :class:`~langgraph_prax_memory.graph.Neo4jGraphStore`
            (its driver, database and retry budget are shared) or a ``neo4j.Driver``.
        database: The database name (default: the graph store's).

    Example:
        >>> from langgraph_prax_memory.graph import Neo4jGraphStore
        >>> graph = Neo4jGraphStore("bolt://127.0.0.1:17687")
        >>> store = Neo4jKnowledgeStore(graph)
        >>> store.merge_concept("u1", "papers", "Attention").name  # doctest: +SKIP
        'attention'
    """

    def __init__(self, connection: Neo4jGraphStore | neo4j.Driver, *, database: str | None = None):
        self.connection = _Connection(connection, database)
        if not isinstance(self.connection.driver, neo4j.Driver):
            raise ConfigError("Neo4jKnowledgeStore needs a sync driver; use the async store")
        self.driver: neo4j.Driver = self.connection.driver
        self._setup_done = False
        self._setup_lock = threading.Lock()

    def setup(self) -> None:
        """Create the knowledge constraints, indexes and names (idempotent).

        The memory graph's set-up runs first: knowledge links point at its ``Entity`` nodes.
        """
        with self._setup_lock:
            try:
                with self.driver.session(**self.connection.session_kwargs) as session:
                    for text in (*GRAPH_SETUP_QUERIES, *SETUP_QUERIES):
                        session.run(text).consume()
            except Exception as exc:
                raise self.connection.failed(exc, "setup", False) from exc
            self._setup_done = True

    def close(self) -> None:
        """Nothing to release: the driver belongs to the graph store."""

    def run(self, op: KnowledgeOp[T]) -> T:
        """Run one op in a managed transaction, through the graph store's circuit breaker.

        It gives up after the graph store's ``call_timeout`` (a server that stopped
        answering), with :class:`~langgraph_prax_memory.errors.BackendUnavailable`.
        """
        conn = self.connection

        def run_it() -> T:
            try:
                if conn.outage.down:
                    self.driver.verify_connectivity()
                with self.driver.session(**conn.session_kwargs) as session:
                    execute = session.execute_write if op.write else session.execute_read
                    result: T = execute(run_op, lambda: cypher_op(op))
            except Exception as exc:
                raise conn.failed(exc, op.what, op.write) from exc
            conn.outage.ok()
            return result

        with conn.breaker.guard():
            if not self._setup_done:  # once, with a maintenance deadline
                call_within(
                    self.setup,
                    timeout=conn.call_timeout * SLOW_CALL_FACTOR,
                    what="knowledge setup",
                    write=True,
                    name="Neo4j knowledge graph",
                )
            return call_within(
                run_it,
                timeout=conn.call_timeout,
                what=f"knowledge {op.what}",
                write=op.write,
                name="Neo4j knowledge graph",
            )


class AsyncNeo4jKnowledgeStore(AsyncKnowledgeStore):
    """The async face on the driver's native async API (same Cypher, no threads).

    Args:
        connection: The memory graph's
            :class:`~langgraph_prax_memory.graph.AsyncNeo4jGraphStore` or a
            ``neo4j.AsyncDriver``.
        database: The database name (default: the graph store's).

    Example:
        >>> from langgraph_prax_memory.graph import AsyncNeo4jGraphStore
        >>> store = AsyncNeo4jKnowledgeStore(AsyncNeo4jGraphStore("bolt://127.0.0.1:17687"))
        >>> # await store.merge_concept("u1", "papers", "Attention")
    """

    def __init__(
        self, connection: AsyncNeo4jGraphStore | neo4j.AsyncDriver, *, database: str | None = None
    ):
        super().__init__(None)
        self.connection = _Connection(connection, database)
        if not isinstance(self.connection.driver, neo4j.AsyncDriver):
            raise ConfigError("AsyncNeo4jKnowledgeStore needs an async driver")
        self.driver: neo4j.AsyncDriver = self.connection.driver
        self._setup_done = False

    async def setup(self) -> None:
        """Create the knowledge constraints, indexes and names (the memory graph's first)."""
        try:
            async with self.driver.session(**self.connection.session_kwargs) as session:
                for text in (*GRAPH_SETUP_QUERIES, *SETUP_QUERIES):
                    await (await session.run(text)).consume()
        except Exception as exc:
            raise self.connection.failed(exc, "setup", False) from exc
        self._setup_done = True

    async def close(self) -> None:
        """Nothing to release: the driver belongs to the graph store."""

    async def arun(self, op: KnowledgeOp[T]) -> T:
        """Run one op in a managed async transaction, through the circuit breaker.

        It is cancelled after the graph store's ``call_timeout``, with
        :class:`~langgraph_prax_memory.errors.BackendUnavailable`.
        """
        conn = self.connection

        async def run_it() -> T:
            try:
                if conn.outage.down:
                    await self.driver.verify_connectivity()
                async with self.driver.session(**conn.session_kwargs) as session:
                    execute = session.execute_write if op.write else session.execute_read
                    result: T = await execute(arun_op, lambda: cypher_op(op))
            except Exception as exc:
                raise conn.failed(exc, op.what, op.write) from exc
            conn.outage.ok()
            return result

        with conn.breaker.guard():
            if not self._setup_done:  # once, with a maintenance deadline
                await acall_within(
                    self.setup,
                    timeout=conn.call_timeout * SLOW_CALL_FACTOR,
                    what="knowledge setup",
                    write=True,
                    name="Neo4j knowledge graph",
                )
            return await acall_within(
                run_it,
                timeout=conn.call_timeout,
                what=f"knowledge {op.what}",
                write=op.write,
                name="Neo4j knowledge graph",
            )
