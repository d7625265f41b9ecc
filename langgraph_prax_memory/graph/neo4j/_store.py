"""The Neo4j graph backend on the official driver (sync)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, TypeVar

import neo4j

from langgraph_prax_memory._validation import check_limit, check_user_id
from langgraph_prax_memory.config import MemoryConfig, check_neo4j_uri
from langgraph_prax_memory.errors import ConfigError, PraxMemoryError
from langgraph_prax_memory.graph._common import (
    Moment,
    OutageLog,
    name_map,
    prep_causal,
    prep_edge_key,
    prep_entity,
    prep_event,
    prep_relation,
    prep_search_text,
)
from langgraph_prax_memory.graph._decay import (
    DEFAULT_GRAPH_HALFLIFE_DAYS,
    check_halflife,
    decay_lambda,
    graph_halflife,
)
from langgraph_prax_memory.graph._types import (
    CausalLink,
    DecayResult,
    Entity,
    EntityWithRelations,
    GraphStats,
    Neighbour,
    Relation,
    TemporalEvent,
    Vocabulary,
    check_hops,
    entity_id,
)
from langgraph_prax_memory.graph.neo4j._common import (
    Resilience,
    driver_kwargs,
    logger,
    settings_from_config,
    translate,
)
from langgraph_prax_memory.graph.neo4j._cypher import SETUP_QUERIES, CypherOps, Op
from langgraph_prax_memory.graph.neo4j._scoped import ScopedCypherGraph

__all__ = ["Neo4jGraphStore"]

T = TypeVar("T")


def _is_langchain_graph(value: Any) -> bool:
    return any(
        c.__name__ == "Neo4jGraph" and c.__module__.startswith("langchain_neo4j")
        for c in type(value).__mro__
    )


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


class Neo4jGraphStore(CypherOps):
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
    ) -> None:
        self.vocabulary = vocabulary or Vocabulary()
        default_half = DEFAULT_GRAPH_HALFLIFE_DAYS
        limits = Resilience.resolve(
            connection,
            connection_timeout=connection_timeout,
            max_retry_time=max_retry_time,
            breaker_failures=breaker_failures,
            breaker_cooldown=breaker_cooldown,
        )
        self._max_retry_time = limits.max_retry_time
        self._owns_driver = False
        self._database: str | None = database
        if isinstance(connection, MemoryConfig):
            default_half = graph_halflife(connection.decay_halflife_days)
            settings = settings_from_config(
                connection,
                connection_timeout=limits.connection_timeout,
                max_retry_time=limits.max_retry_time,
            )
            self._driver = self._make_driver(settings.uri, settings.auth, settings.kwargs)
            self._database = database or settings.database
        elif isinstance(connection, str):
            self._driver = self._make_driver(
                connection,
                auth,
                driver_kwargs(limits.connection_timeout, limits.max_retry_time),
            )
        elif isinstance(connection, neo4j.Driver):
            self._driver = connection
        elif _is_langchain_graph(connection):
            raise ConfigError(
                "a langchain_neo4j.Neo4jGraph has no public driver or connection settings: "
                "use Neo4jGraphStore.from_neo4j_graph(graph, url=..., username=..., "
                "password=..., database=...)"
            )
        else:
            raise ConfigError(
                "Neo4jGraphStore needs a MemoryConfig, a URI or a neo4j.Driver (or "
                f"from_neo4j_graph for a langchain_neo4j.Neo4jGraph), got "
                f"{type(connection).__name__}"
            )
        self.halflife_days = check_halflife(
            default_half if halflife_days is None else halflife_days
        )
        self._auto_setup = auto_setup
        self._setup_done = False
        self._setup_lock = threading.Lock()
        self._outage = OutageLog(logger, "Neo4j graph")
        #: Fails calls fast while the server does not answer; retried in the background.
        self.breaker = limits.breaker(probe=self._driver.verify_connectivity)

    def _make_driver(
        self, uri: str, auth: tuple[str, str] | None, kwargs: dict[str, Any]
    ) -> neo4j.Driver:
        check_neo4j_uri(uri)  # http:// would fail later, inside the driver, without saying why
        try:
            driver = neo4j.GraphDatabase.driver(uri, auth=auth, **kwargs)
        except (ValueError, neo4j.exceptions.ConfigurationError) as exc:
            raise ConfigError(f"invalid Neo4j connection settings for {uri!r}: {exc}") from exc
        self._owns_driver = True
        return driver

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
        import os

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
                exc, what="reading the Neo4jGraph's database", write=False, outage=self._outage
            ) from exc
        with self.breaker.guard():
            try:
                with self._session() as session:
                    ours = [r.data() for r in session.run(probe)]
            except Exception as exc:
                raise translate(exc, what="db.info", write=False, outage=self._outage) from exc
        if [dict(r) for r in theirs] != ours:
            raise ConfigError(
                f"the Neo4jGraph reaches database {theirs!r} but these settings reach {ours!r}: "
                "pass the url, credentials and database the Neo4jGraph was built with"
            )

    @property
    def driver(self) -> neo4j.Driver:
        """The underlying driver."""
        return self._driver

    @property
    def database(self) -> str | None:
        """The database queries run in (``None``: the server's default)."""
        return self._database

    @property
    def max_retry_time(self) -> float:
        """Seconds a transaction function is retried on transient errors."""
        return self._max_retry_time

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

        with self.breaker.guard():
            self._ensure_setup()
            try:
                with self._session() as session:
                    records = session.execute_read(work)
            except Exception as exc:
                if isinstance(exc, PraxMemoryError):
                    raise
                raise translate(exc, what="query", write=False, outage=self._outage) from exc
        self._outage.ok()
        return records

    def scoped_graph(self, user_id: str, **kwargs: Any) -> ScopedCypherGraph:
        """One user's memory graph as a read-only ``Neo4jGraph`` for ``GraphCypherQAChain``.

        See :class:`~langgraph_prax_memory.graph.neo4j.ScopedCypherGraph`.

        Example:
            >>> # chain = GraphCypherQAChain.from_llm(llm, graph=store.scoped_graph("alice"),
            >>> #     cypher_prompt=scoped_cypher_prompt(), allow_dangerous_requests=True)
        """
        return ScopedCypherGraph(self, check_user_id(user_id), **kwargs)

    # ------------------------------------------------------------------ plumbing

    def _session(self) -> neo4j.Session:
        kwargs: dict[str, Any] = {"max_transaction_retry_time": self._max_retry_time}
        if self._database:
            kwargs["database"] = self._database
        return self._driver.session(**kwargs)

    def setup(self) -> None:
        """Create the uniqueness constraints and indexes (idempotent).

        Constraints: ``Entity.id``, ``TemporalEvent.id``, ``CausalLink.id`` unique; indexes on
        ``user_id`` of each label and of ``RELATES_TO``. Entity names are not indexed by value
        (a name may be 10 kB, over an index key's limit); the uuid5 ``id`` is the merge key.
        """
        with self._setup_lock:
            try:
                with self._session() as session:
                    for text in SETUP_QUERIES:
                        session.run(text).consume()  # type: ignore[arg-type]
            except Exception as exc:
                if isinstance(exc, PraxMemoryError):
                    raise
                raise translate(exc, what="setup", write=False, outage=self._outage) from exc
            self._setup_done = True
            self._outage.ok()

    def _ensure_setup(self) -> None:
        if self._auto_setup and not self._setup_done:
            self.setup()

    def _execute(self, what: str, make_op: Callable[[], Op[T]], *, write: bool) -> T:
        """Run one operation through the circuit breaker (at once an error while it is open)."""
        with self.breaker.guard():
            return self._execute_now(what, make_op, write=write)

    def _execute_now(self, what: str, make_op: Callable[[], Op[T]], *, write: bool) -> T:
        self._ensure_setup()
        try:
            if self._outage.down:
                # During an outage, fail fast with one cheap probe instead of letting the
                # driver retry (and log) every call for up to ``max_retry_time``.
                self._driver.verify_connectivity()
            with self._session() as session:
                if write:
                    result = session.execute_write(run_op, make_op)
                else:
                    result = session.execute_read(run_op, make_op)
        except Exception as exc:
            if isinstance(exc, PraxMemoryError):
                raise
            raise translate(exc, what=what, write=write, outage=self._outage) from exc
        self._outage.ok()
        return result

    def close(self) -> None:
        """Close the driver if this store created it."""
        if self._owns_driver:
            self._driver.close()

    def __enter__(self) -> Neo4jGraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ API

    def merge_entity(
        self,
        user_id: str,
        name: str,
        *,
        entity_type: str | None = None,
        importance: float | None = None,
        properties: Mapping[str, Any] | None = None,
        now: datetime | None = None,
    ) -> Entity:
        """Create or update an entity. See :meth:`GraphStore.merge_entity`."""
        ent = prep_entity(
            self.vocabulary,
            user_id,
            name,
            entity_type=entity_type,
            importance=importance,
            properties=properties,
            now=Moment.of(now),
        )
        return self._execute("merge_entity", lambda: self.op_merge_entity(ent), write=True)

    def get_entity(
        self, user_id: str, name: str, *, include_superseded: bool = False
    ) -> EntityWithRelations | None:
        """The entity and its relations. See :meth:`GraphStore.get_entity`."""
        check_user_id(user_id)
        ent_id = entity_id(user_id, name)
        return self._execute(
            "get_entity",
            lambda: self.op_get_entity(user_id, ent_id, include_superseded),
            write=False,
        )

    def entity_ids_for(self, user_id: str, names: Iterable[str]) -> dict[str, str]:
        """Ids of the named entities that exist. See :meth:`GraphStore.entity_ids_for`."""
        wanted = name_map(user_id, names)
        if not wanted:
            return {}
        ids = sorted(set(wanted.values()))
        found = self._execute(
            "entity_ids_for", lambda: self.op_ids_exist(user_id, ids), write=False
        )
        return {name: ent_id for name, ent_id in wanted.items() if ent_id in found}

    def search_entities(self, user_id: str, text: str, *, limit: int = 10) -> list[Entity]:
        """Case-insensitive substring search. See :meth:`GraphStore.search_entities`."""
        check_user_id(user_id)
        needle = prep_search_text(text)
        limit = check_limit(limit)
        return self._execute(
            "search_entities", lambda: self.op_search(user_id, needle, limit), write=False
        )

    def add_relation(
        self,
        user_id: str,
        source: str,
        target: str,
        relation_type: str,
        *,
        weight: float = 1.0,
        evidence: str | None = None,
        valid_from: datetime | None = None,
        now: datetime | None = None,
    ) -> Relation:
        """Strengthen the current edge or open a new one. See :meth:`GraphStore.add_relation`."""
        rel = prep_relation(
            self.vocabulary,
            user_id,
            source,
            target,
            relation_type,
            weight=weight,
            evidence=evidence,
            valid_from=valid_from,
            now=now,
        )
        return self._execute("add_relation", lambda: self.op_add_relation(rel), write=True)

    def supersede_relation(
        self,
        user_id: str,
        source: str,
        target: str,
        relation_type: str,
        *,
        now: datetime | None = None,
    ) -> Relation | None:
        """Close the current edge. See :meth:`GraphStore.supersede_relation`."""
        src, dst, rtype = prep_edge_key(self.vocabulary, user_id, source, target, relation_type)
        moment = Moment.of(now)
        return self._execute(
            "supersede_relation", lambda: self.op_supersede(src, dst, rtype, moment), write=True
        )

    def current_targets(self, user_id: str, source: str, relation_type: str) -> list[Entity]:
        """Targets of current edges. See :meth:`GraphStore.current_targets`."""
        check_user_id(user_id)
        src = entity_id(user_id, source)
        rtype = self.vocabulary.check_relation_type(relation_type)
        return self._execute(
            "current_targets", lambda: self.op_current_targets(user_id, src, rtype), write=False
        )

    def merge_temporal_event(
        self,
        user_id: str,
        description: str,
        *,
        participants: Iterable[str] = (),
        occurred_at: datetime | None = None,
        importance: float | None = None,
        now: datetime | None = None,
    ) -> TemporalEvent:
        """Create or update an event. See :meth:`GraphStore.merge_temporal_event`."""
        ev = prep_event(
            user_id,
            description,
            participants=participants,
            occurred_at=occurred_at,
            importance=importance,
            now=now,
        )
        return self._execute("merge_temporal_event", lambda: self.op_merge_event(ev), write=True)

    def add_causal_link(
        self,
        user_id: str,
        cause: str,
        effect: str,
        *,
        cause_entities: Iterable[str] = (),
        effect_entities: Iterable[str] = (),
        importance: float | None = None,
        now: datetime | None = None,
    ) -> CausalLink:
        """Create or update a causal link. See :meth:`GraphStore.add_causal_link`."""
        link = prep_causal(
            user_id,
            cause,
            effect,
            cause_entities=cause_entities,
            effect_entities=effect_entities,
            importance=importance,
            now=now,
        )
        return self._execute("add_causal_link", lambda: self.op_add_causal(link), write=True)

    def get_events(
        self, user_id: str, *, entity: str | None = None, limit: int = 50
    ) -> list[TemporalEvent]:
        """Events, newest first. See :meth:`GraphStore.get_events`."""
        check_user_id(user_id)
        limit = check_limit(limit)
        ent_id = None if entity is None else entity_id(user_id, entity)
        return self._execute(
            "get_events", lambda: self.op_events(user_id, ent_id, limit), write=False
        )

    def get_causal_links(
        self, user_id: str, *, entity: str | None = None, limit: int = 50
    ) -> list[CausalLink]:
        """Causal links, newest first. See :meth:`GraphStore.get_causal_links`."""
        check_user_id(user_id)
        limit = check_limit(limit)
        ent_id = None if entity is None else entity_id(user_id, entity)
        return self._execute(
            "get_causal_links", lambda: self.op_links(user_id, ent_id, limit), write=False
        )

    def get_neighbours(
        self, user_id: str, name: str, *, hops: int = 1, limit: int = 25
    ) -> list[Neighbour]:
        """1–2 hop neighbourhood. See :meth:`GraphStore.get_neighbours`."""
        check_user_id(user_id)
        ent_id = entity_id(user_id, name)
        hops = check_hops(hops)
        limit = check_limit(limit)
        return self._execute(
            "get_neighbours",
            lambda: self.op_neighbours(user_id, ent_id, hops, limit),
            write=False,
        )

    def decay_graph(
        self,
        user_id: str,
        *,
        now: datetime | None = None,
        halflife_days: float | None = None,
        dry_run: bool = False,
    ) -> DecayResult:
        """Prune faded relations and orphaned faded entities. See :meth:`GraphStore.decay_graph`."""
        check_user_id(user_id)
        moment = Moment.of(now)
        half = self.halflife_days if halflife_days is None else check_halflife(halflife_days)
        lam = decay_lambda(half)
        return self._execute(
            "decay_graph",
            lambda: self.op_decay(user_id, moment, lam, half, dry_run),
            write=not dry_run,
        )

    def stats(self, user_id: str) -> GraphStats:
        """Counts of the user's graph. See :meth:`GraphStore.stats`."""
        check_user_id(user_id)
        return self._execute("stats", lambda: self.op_stats(user_id), write=False)

    def delete_user(self, user_id: str) -> GraphStats:
        """Remove all of a user's graph. See :meth:`GraphStore.delete_user`."""
        check_user_id(user_id)
        return self._execute("delete_user", lambda: self.op_delete_user(user_id), write=True)
