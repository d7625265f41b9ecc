"""The Neo4j graph store on the driver's native async API: the async face's runner, overridden.

The public methods are :class:`~langgraph_prax_memory.graph.AsyncGraphStore`'s, the Cypher is
the sync store's (``_cypher_ops.py``) and the connection is the same class driven with
``await`` (``Neo4jConnection.aexecute``).
"""

from __future__ import annotations

from typing import TypeVar

import neo4j

from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.errors import ConfigError
from langgraph_prax_memory.graph._async_base import AsyncGraphStore
from langgraph_prax_memory.graph._ops import GraphOp
from langgraph_prax_memory.graph._types import Vocabulary
from langgraph_prax_memory.graph.neo4j._cypher_ops import CypherOps
from langgraph_prax_memory.graph.neo4j._store import connect

__all__ = ["AsyncNeo4jGraphStore"]

T = TypeVar("T")


class AsyncNeo4jGraphStore(CypherOps, AsyncGraphStore):
    """The async face of :class:`Neo4jGraphStore`, on ``neo4j.AsyncGraphDatabase``.

    The same public methods (:class:`~langgraph_prax_memory.graph.AsyncGraphStore`'s) and the
    same Cypher run on the driver's native async API, not in threads: this class overrides
    the async face's runner (:meth:`arun`), :meth:`setup` and :meth:`close`, nothing else.
    Every query is parameterised; every multi-statement write is one managed transaction
    (``execute_write``), so a failure half-way leaves nothing behind. Driver errors meaning
    "server unusable" (``ServiceUnavailable``, ``SessionExpired``, ``AuthError``) become
    :class:`~langgraph_prax_memory.errors.BackendUnavailable`, logged once per outage.

    Args:
        connection: Where the graph lives: a :class:`MemoryConfig` (``NEO4J_URI`` /
            ``NEO4J_USER`` / ``NEO4J_PASSWORD`` / ``NEO4J_DATABASE``), a bolt/neo4j URI, an
            existing :class:`neo4j.AsyncDriver` (not closed by :meth:`close`).
            ``langchain_neo4j.Neo4jGraph`` only holds a sync driver; pass its settings instead.
        auth: ``(user, password)`` when ``connection`` is a URI (``None``: no auth).
        database: Database name (default: the config's, the graph's, or the server default).
        vocabulary: Allowed entity and relation types.
        halflife_days: Decay half-life; default twice the config's vector half-life (14 days).
        connection_timeout: Seconds to open a connection, TCP and Bolt handshake (drivers
            built here; default ``NEO4J_CONNECT_TIMEOUT`` of a config, else 2).
        max_retry_time: Seconds a transaction is retried on transient errors before failing
            (default ``NEO4J_MAX_RETRY_TIME`` of a config, else 10).
        auto_setup: Create constraints and indexes before the first operation.
        breaker_failures: Consecutive "server did not answer" failures that open the circuit
            breaker (default ``MEMORY_BREAKER_FAILURES`` of a config, else 1). While it is
            open, calls raise :class:`~langgraph_prax_memory.errors.CircuitOpenError` at once.
        breaker_cooldown: Seconds the breaker stays open; then the next call is the trial
            and concurrent ones keep failing fast (default ``MEMORY_BREAKER_COOLDOWN`` of a
            config, else 30).
        call_timeout: Seconds a call waits for a server that stops answering before it is
            cancelled and raises :class:`~langgraph_prax_memory.errors.BackendUnavailable`
            (default the config's ``retrieval.graph_timeout`` plus 0.5 s, else 5.5;
            ``delete_user`` and ``decay_graph`` wait 12 times as long).

    Example:
        >>> import asyncio
        >>> from langgraph_prax_memory.config import MemoryConfig
        >>> async def demo() -> None:
        ...     store = AsyncNeo4jGraphStore(MemoryConfig(neo4j_uri="bolt://127.0.0.1:17687"))
        ...     await store.merge_entity("u1", "Alice", entity_type="person")
        ...     await store.close()
        >>> asyncio.run(demo())  # doctest: +SKIP
    """

    def __init__(
        self,
        connection: MemoryConfig | str | neo4j.AsyncDriver,
        *,
        auth: tuple[str, str] | None = None,
        database: str | None = None,
        vocabulary: Vocabulary | None = None,
        halflife_days: float | None = None,
        connection_timeout: float | None = None,
        max_retry_time: float | None = None,
        auto_setup: bool = True,
        breaker_failures: int | None = None,
        breaker_cooldown: float | None = None,
        call_timeout: float | None = None,
    ) -> None:
        self.vocabulary = vocabulary or Vocabulary()
        made = connect(
            connection,
            neo4j.AsyncDriver,
            neo4j.AsyncGraphDatabase.driver,
            auth=auth,
            database=database,
            halflife_days=halflife_days,
            auto_setup=auto_setup,
            connection_timeout=connection_timeout,
            max_retry_time=max_retry_time,
            breaker_failures=breaker_failures,
            breaker_cooldown=breaker_cooldown,
            call_timeout=call_timeout,
        )
        if made is None:
            raise ConfigError(
                "AsyncNeo4jGraphStore needs a MemoryConfig, a URI or a neo4j.AsyncDriver, "
                f"got {type(connection).__name__}"
            )
        self._conn, self.halflife_days = made
        #: Fails calls fast while the server does not answer. The async driver belongs to its
        #: event loop, so no background check: the first call after the cool-down is the trial.
        self.breaker = self._conn.breaker

    @property
    def driver(self) -> neo4j.AsyncDriver:
        """The underlying driver."""
        return self._conn.driver

    @property
    def database(self) -> str | None:
        """The database queries run in (``None``: the server's default)."""
        return self._conn.database

    @property
    def call_timeout(self) -> float:
        """Seconds a call waits for a server that does not answer (then it gives up)."""
        return self._conn.call_timeout

    @property
    def max_retry_time(self) -> float:
        """Seconds a transaction function is retried on transient errors."""
        return self._conn.max_retry_time

    async def arun(self, op: GraphOp[T]) -> T:
        """Run one op in one managed transaction on the async driver."""
        result: T = await self._conn.aexecute(
            op.name, lambda: self.cypher(op), write=op.write, slow=op.slow
        )
        return result

    async def setup(self) -> None:
        """Create the uniqueness constraints and indexes (idempotent).

        See :meth:`Neo4jGraphStore.setup`.
        """
        await self._conn.asetup()

    async def close(self) -> None:
        """Close the driver if this store created it."""
        await self._conn.aclose()
