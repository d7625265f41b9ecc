"""The Neo4j graph store on the official driver (sync): its connection and its op runner.

The public methods are :class:`~langgraph_prax_memory.graph.GraphStore`'s; :meth:`run` hands
an op's Cypher generator (``_cypher_ops.py``) to the connection (``_connection.py``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import neo4j

from langgraph_prax_memory._validation import check_user_id
from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.errors import ConfigError
from langgraph_prax_memory.graph._base import GraphStore
from langgraph_prax_memory.graph._decay import (
    DEFAULT_GRAPH_HALFLIFE_DAYS,
    check_halflife,
    graph_halflife,
)
from langgraph_prax_memory.graph._ops import GraphOp
from langgraph_prax_memory.graph._types import Vocabulary
from langgraph_prax_memory.graph.neo4j._connection import (
    Neo4jConnection,
    Resilience,
    call_within,
    open_driver,
    translate,
)
from langgraph_prax_memory.graph.neo4j._cypher import SETUP_QUERIES
from langgraph_prax_memory.graph.neo4j._cypher_ops import CypherOps
from langgraph_prax_memory.graph.neo4j._scoped import ScopedCypherGraph

__all__ = ["Neo4jGraphStore"]

T = TypeVar("T")
D = TypeVar("D", neo4j.Driver, neo4j.AsyncDriver)


def _is_langchain_graph(value: Any) -> bool:
    return any(
        c.__name__ == "Neo4jGraph" and c.__module__.startswith("langchain_neo4j")
        for c in type(value).__mro__
    )


def connect(
    connection: object,
    driver_type: type[D],
    factory: Callable[..., D],
    *,
    auth: Any,
    database: str | None,
    halflife_days: float | None,
    auto_setup: bool,
    connection_timeout: float | None,
    max_retry_time: float | None,
    breaker_failures: int | None,
    breaker_cooldown: float | None,
    call_timeout: float | None = None,
) -> tuple[Neo4jConnection[D], float] | None:
    """The connection of a Neo4j graph store and its half-life (``None``: not a connection).

    Shared by the sync and the async store; ``driver_type`` / ``factory`` pick the driver.
    """
    limits = Resilience.resolve(
        connection,
        connection_timeout=connection_timeout,
        max_retry_time=max_retry_time,
        breaker_failures=breaker_failures,
        breaker_cooldown=breaker_cooldown,
        call_timeout=call_timeout,
    )
    opened = open_driver(
        connection,
        auth=auth,
        database=database,
        limits=limits,
        driver_type=driver_type,
        factory=factory,
    )
    if opened is None:
        return None
    driver, db, owned = opened
    default = DEFAULT_GRAPH_HALFLIFE_DAYS
    if isinstance(connection, MemoryConfig):
        default = graph_halflife(connection.decay_halflife_days)
    conn = Neo4jConnection(
        driver,
        database=db,
        limits=limits,
        owns_driver=owned,
        setup_queries=SETUP_QUERIES,
        auto_setup=auto_setup,
    )
    return conn, check_halflife(default if halflife_days is None else halflife_days)


class Neo4jGraphStore(CypherOps, GraphStore):
    """The knowledge graph in a Neo4j server, through the official ``neo4j`` driver.

    Every query is parameterised; every multi-statement write is one managed transaction
    (``execute_write``), so a failure half-way leaves nothing behind. Driver errors meaning
    "server unusable" (``ServiceUnavailable``, ``SessionExpired``, ``AuthError``) become
    :class:`~langgraph_prax_memory.errors.BackendUnavailable`, logged once per outage.

    Args:
        connection: Where the graph lives: a :class:`MemoryConfig` (``NEO4J_URI`` /
            ``NEO4J_USER`` / ``NEO4J_PASSWORD`` / ``NEO4J_DATABASE``), a bolt/neo4j URI, or an
            existing :class:`neo4j.Driver` (not closed by :meth:`close`). For a
            ``langchain_neo4j.Neo4jGraph`` use :meth:`from_neo4j_graph`.
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
        breaker_cooldown: Seconds the breaker stays open; then a background connectivity
            check decides (default ``MEMORY_BREAKER_COOLDOWN`` of a config, else 30).
        call_timeout: Seconds a call waits for a server that stops answering, even on a
            connection the driver holds, before it raises
            :class:`~langgraph_prax_memory.errors.BackendUnavailable` (default the config's
            ``retrieval.graph_timeout`` plus 0.5 s, else 5.5: just past the bound of the memory
            tools and recall, which give up first;
            ``delete_user`` and ``decay_graph`` wait 12 times as long).

    Example:
        >>> from langgraph_prax_memory.config import MemoryConfig
        >>> store = Neo4jGraphStore(MemoryConfig(neo4j_uri="bolt://127.0.0.1:17687"))
        >>> ent = store.merge_entity("u1", "Alice", entity_type="person")  # doctest: +SKIP
        >>> store.close()
    """

    def __init__(
        self,
        connection: MemoryConfig | str | neo4j.Driver | Any,
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
        if _is_langchain_graph(connection):
            raise ConfigError(
                "a langchain_neo4j.Neo4jGraph has no public driver or connection settings: "
                "use Neo4jGraphStore.from_neo4j_graph(graph, url=..., username=..., "
                "password=..., database=...)"
            )
        made = connect(
            connection,
            neo4j.Driver,
            neo4j.GraphDatabase.driver,
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
                "Neo4jGraphStore needs a MemoryConfig, a URI or a neo4j.Driver (or "
                f"from_neo4j_graph for a langchain_neo4j.Neo4jGraph), got "
                f"{type(connection).__name__}"
            )
        self._conn, self.halflife_days = made
        #: Fails calls fast while the server does not answer; retried in the background.
        self.breaker = self._conn.breaker

    @classmethod
    def from_neo4j_graph(
        cls,
        graph: Any,
        *,
        url: str | None = None,
        username: str | None = None,
        password: str | None = None,
        token: str | None = None,
        database: str | None = None,
        **kwargs: Any,
    ) -> Neo4jGraphStore:
        """The memory graph in the same Neo4j database as a ``langchain_neo4j.Neo4jGraph``.

        ``Neo4jGraph`` exposes neither its driver nor its URL, credentials or database name
        publicly (they live in private attributes, which this library does not read). So the
        store is built from the same constructor parameters the graph was built with —
        given here, or read from the environment variables ``Neo4jGraph`` itself reads
        (``NEO4J_URI``, ``NEO4J_USERNAME``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``,
        default database ``neo4j``; ``username=""`` and ``password=""`` mean no auth, as in
        ``Neo4jGraph``). The store opens its own driver (closed by :meth:`close`) and then
        checks, through the graph's public ``query()``, that both reach the same database.

        Args:
            graph: The application's ``Neo4jGraph`` (anything with its ``query`` method).
            url: ``Neo4jGraph(url=...)``.
            username: ``Neo4jGraph(username=...)``.
            password: ``Neo4jGraph(password=...)``.
            token: ``Neo4jGraph(token=...)`` (bearer auth).
            database: ``Neo4jGraph(database=...)``.
            **kwargs: Other :class:`Neo4jGraphStore` options (``vocabulary=``, ...).

        Raises:
            ConfigError: No URL, or the settings reach another database than the graph.
            BackendUnavailable: The server did not answer the check.

        Example:
            >>> # graph = Neo4jGraph(url=uri, username="neo4j", password=pw)
            >>> # store = Neo4jGraphStore.from_neo4j_graph(graph, url=uri,
            >>> #                                          username="neo4j", password=pw)
        """
        if not callable(getattr(graph, "query", None)):
            raise ConfigError(
                f"from_neo4j_graph needs a langchain_neo4j.Neo4jGraph, got {type(graph).__name__}"
            )
        uri = url or os.environ.get("NEO4J_URI")
        if not uri:
            raise ConfigError("from_neo4j_graph needs url= (or NEO4J_URI, as Neo4jGraph reads)")
        auth: Any
        if token is not None:
            auth = neo4j.bearer_auth(token)
        else:
            user = username if username is not None else os.environ.get("NEO4J_USERNAME")
            secret = password if password is not None else os.environ.get("NEO4J_PASSWORD")
            auth = None if (not user and not secret) else (user or "", secret or "")
        db = database or os.environ.get("NEO4J_DATABASE") or "neo4j"
        store = cls(uri, auth=auth, database=db, **kwargs)
        try:
            store._check_same_database(graph)
        except BaseException:
            store.close()
            raise
        return store

    def _check_same_database(self, graph: Any) -> None:
        probe = "CALL db.info() YIELD id, name RETURN id, name"
        try:
            theirs = graph.query(probe)
        except Exception as exc:
            raise translate(
                exc, what="reading the Neo4jGraph's database", write=False, outage=self._conn.outage
            ) from exc
        with (
            self.breaker.guard(),
            self._conn.calling("db.info", write=False),
            self._conn.session() as session,
        ):
            ours = [r.data() for r in session.run(probe)]
        if [dict(r) for r in theirs] != ours:
            raise ConfigError(
                f"the Neo4jGraph reaches database {theirs!r} but these settings reach {ours!r}: "
                "pass the url, credentials and database the Neo4jGraph was built with"
            )

    @property
    def driver(self) -> neo4j.Driver:
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

    def run_read_query(
        self, query: str, params: Mapping[str, Any], *, timeout: float | None = None
    ) -> list[neo4j.Record]:
        """Run one Cypher query in a read transaction and return its records.

        Low level: the caller is responsible for scoping (see :meth:`scoped_graph`, which
        checks the query first). The server refuses writes in a read transaction.
        """

        @neo4j.unit_of_work(timeout=timeout)
        def work(tx: neo4j.ManagedTransaction) -> list[neo4j.Record]:
            return list(tx.run(query, dict(params)))  # type: ignore[arg-type]

        def read() -> list[neo4j.Record]:
            with self._conn.calling("query", write=False), self._conn.session() as session:
                records: list[neo4j.Record] = session.execute_read(work)
            return records

        conn = self._conn
        with self.breaker.guard():
            if conn.auto_setup and not conn.setup_done:
                call_within(conn.setup, timeout=conn.deadline(slow=True), what="setup", write=True)
            return call_within(read, timeout=conn.deadline(), what="query", write=False)

    def scoped_graph(self, user_id: str, **kwargs: Any) -> ScopedCypherGraph:
        """One user's memory graph as a read-only ``Neo4jGraph`` for ``GraphCypherQAChain``.

        See :class:`~langgraph_prax_memory.graph.neo4j.ScopedCypherGraph`.

        Example:
            >>> # chain = GraphCypherQAChain.from_llm(llm, graph=store.scoped_graph("alice"),
            >>> #     cypher_prompt=scoped_cypher_prompt(), allow_dangerous_requests=True)
        """
        return ScopedCypherGraph(self, check_user_id(user_id), **kwargs)

    def setup(self) -> None:
        """Create the uniqueness constraints and indexes (idempotent).

        Constraints: ``Entity.id``, ``TemporalEvent.id``, ``CausalLink.id`` unique; indexes on
        ``user_id`` of each label and of ``RELATES_TO``. Entity names are not indexed by value
        (a name may be 10 kB, over an index key's limit); the uuid5 ``id`` is the merge key.
        """
        self._conn.setup()

    def run(self, op: GraphOp[T]) -> T:
        """Run one op in one managed transaction (``execute_write`` / ``execute_read``)."""
        result: T = self._conn.execute(
            op.name, lambda: self.cypher(op), write=op.write, slow=op.slow
        )
        return result

    def close(self) -> None:
        """Close the driver if this store created it."""
        self._conn.close()
