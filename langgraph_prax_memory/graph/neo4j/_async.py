"""The Neo4j graph backend on the official driver's native async API."""

from __future__ import annotations

import asyncio
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

__all__ = ["AsyncNeo4jGraphStore"]

T = TypeVar("T")


async def arun_op(tx: neo4j.AsyncManagedTransaction, make_op: Callable[[], Op[T]]) -> T:
    """Drive one operation generator inside a managed transaction (fresh on every retry)."""
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


class AsyncNeo4jGraphStore(CypherOps):
    """The async face of :class:`Neo4jGraphStore`, on ``neo4j.AsyncGraphDatabase``.

    The same operations (the same Cypher and transaction logic) run on the driver's native
    async API, not in threads. Every query is parameterised; every multi-statement write is
    one managed transaction (``execute_write``), so a failure half-way leaves nothing
    behind. Driver errors meaning "server unusable" (``ServiceUnavailable``,
    ``SessionExpired``, ``AuthError``) become
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
        elif isinstance(connection, neo4j.AsyncDriver):
            self._driver = connection
        else:
            raise ConfigError(
                "AsyncNeo4jGraphStore needs a MemoryConfig, a URI or a neo4j.AsyncDriver, "
                f"got {type(connection).__name__}"
            )
        self.halflife_days = check_halflife(
            default_half if halflife_days is None else halflife_days
        )
        self._auto_setup = auto_setup
        self._setup_done = False
        self._setup_lock: asyncio.Lock | None = None
        self._outage = OutageLog(logger, "Neo4j graph")
        #: Fails calls fast while the server does not answer. The async driver belongs to its
        #: event loop, so no background check: the first call after the cool-down is the trial.
        self.breaker = limits.breaker(probe=None)

    def _make_driver(
        self, uri: str, auth: tuple[str, str] | None, kwargs: dict[str, Any]
    ) -> neo4j.AsyncDriver:
        check_neo4j_uri(uri)  # http:// would fail later, inside the driver, without saying why
        try:
            driver = neo4j.AsyncGraphDatabase.driver(uri, auth=auth, **kwargs)
        except (ValueError, neo4j.exceptions.ConfigurationError) as exc:
            raise ConfigError(f"invalid Neo4j connection settings for {uri!r}: {exc}") from exc
        self._owns_driver = True
        return driver

    @property
    def driver(self) -> neo4j.AsyncDriver:
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

    # ------------------------------------------------------------------ plumbing

    def _session(self) -> neo4j.AsyncSession:
        kwargs: dict[str, Any] = {"max_transaction_retry_time": self._max_retry_time}
        if self._database:
            kwargs["database"] = self._database
        return self._driver.session(**kwargs)

    async def setup(self) -> None:
        """Create the uniqueness constraints and indexes (idempotent).

        Constraints: ``Entity.id``, ``TemporalEvent.id``, ``CausalLink.id`` unique; indexes on
        ``user_id`` of each label and of ``RELATES_TO``. Entity names are not indexed by value
        (a name may be 10 kB, over an index key's limit); the uuid5 ``id`` is the merge key.
        """
        if self._setup_lock is None:
            self._setup_lock = asyncio.Lock()
        async with self._setup_lock:
            try:
                async with self._session() as session:
                    for text in SETUP_QUERIES:
                        result = await session.run(text)  # type: ignore[arg-type]
                        await result.consume()
            except Exception as exc:
                if isinstance(exc, PraxMemoryError):
                    raise
                raise translate(exc, what="setup", write=False, outage=self._outage) from exc
            self._setup_done = True
            self._outage.ok()

    async def _ensure_setup(self) -> None:
        if self._auto_setup and not self._setup_done:
            await self.setup()

    async def _execute(self, what: str, make_op: Callable[[], Op[T]], *, write: bool) -> T:
        """Run one operation through the circuit breaker (at once an error while it is open)."""
        with self.breaker.guard():
            return await self._execute_now(what, make_op, write=write)

    async def _execute_now(self, what: str, make_op: Callable[[], Op[T]], *, write: bool) -> T:
        await self._ensure_setup()
        try:
            if self._outage.down:
                # During an outage, fail fast with one cheap probe instead of letting the
                # driver retry (and log) every call for up to ``max_retry_time``.
                await self._driver.verify_connectivity()
            async with self._session() as session:
                if write:
                    result = await session.execute_write(arun_op, make_op)
                else:
                    result = await session.execute_read(arun_op, make_op)
        except Exception as exc:
            if isinstance(exc, PraxMemoryError):
                raise
            raise translate(exc, what=what, write=write, outage=self._outage) from exc
        self._outage.ok()
        return result

    async def close(self) -> None:
        """Close the driver if this store created it."""
        if self._owns_driver:
            await self._driver.close()

    async def __aenter__(self) -> AsyncNeo4jGraphStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ------------------------------------------------------------------ API

    async def merge_entity(
        self,
        user_id: str,
        name: str,
        *,
        entity_type: str | None = None,
        importance: float | None = None,
        properties: Mapping[str, Any] | None = None,
        now: datetime | None = None,
    ) -> Entity:
        """Create or update an entity. See :meth:`AsyncGraphStore.merge_entity`."""
        ent = prep_entity(
            self.vocabulary,
            user_id,
            name,
            entity_type=entity_type,
            importance=importance,
            properties=properties,
            now=Moment.of(now),
        )
        return await self._execute("merge_entity", lambda: self.op_merge_entity(ent), write=True)

    async def get_entity(
        self, user_id: str, name: str, *, include_superseded: bool = False
    ) -> EntityWithRelations | None:
        """The entity and its relations. See :meth:`AsyncGraphStore.get_entity`."""
        check_user_id(user_id)
        ent_id = entity_id(user_id, name)
        return await self._execute(
            "get_entity",
            lambda: self.op_get_entity(user_id, ent_id, include_superseded),
            write=False,
        )

    async def entity_ids_for(self, user_id: str, names: Iterable[str]) -> dict[str, str]:
        """Ids of the named entities that exist. See :meth:`AsyncGraphStore.entity_ids_for`."""
        wanted = name_map(user_id, names)
        if not wanted:
            return {}
        ids = sorted(set(wanted.values()))
        found = await self._execute(
            "entity_ids_for", lambda: self.op_ids_exist(user_id, ids), write=False
        )
        return {name: ent_id for name, ent_id in wanted.items() if ent_id in found}

    async def search_entities(self, user_id: str, text: str, *, limit: int = 10) -> list[Entity]:
        """Case-insensitive substring search. See :meth:`AsyncGraphStore.search_entities`."""
        check_user_id(user_id)
        needle = prep_search_text(text)
        limit = check_limit(limit)
        return await self._execute(
            "search_entities", lambda: self.op_search(user_id, needle, limit), write=False
        )

    async def add_relation(
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
        """Strengthen or open an edge. See :meth:`AsyncGraphStore.add_relation`."""
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
        return await self._execute("add_relation", lambda: self.op_add_relation(rel), write=True)

    async def supersede_relation(
        self,
        user_id: str,
        source: str,
        target: str,
        relation_type: str,
        *,
        now: datetime | None = None,
    ) -> Relation | None:
        """Close the current edge. See :meth:`AsyncGraphStore.supersede_relation`."""
        src, dst, rtype = prep_edge_key(self.vocabulary, user_id, source, target, relation_type)
        moment = Moment.of(now)
        return await self._execute(
            "supersede_relation", lambda: self.op_supersede(src, dst, rtype, moment), write=True
        )

    async def current_targets(self, user_id: str, source: str, relation_type: str) -> list[Entity]:
        """Targets of current edges. See :meth:`AsyncGraphStore.current_targets`."""
        check_user_id(user_id)
        src = entity_id(user_id, source)
        rtype = self.vocabulary.check_relation_type(relation_type)
        return await self._execute(
            "current_targets", lambda: self.op_current_targets(user_id, src, rtype), write=False
        )

    async def merge_temporal_event(
        self,
        user_id: str,
        description: str,
        *,
        participants: Iterable[str] = (),
        occurred_at: datetime | None = None,
        importance: float | None = None,
        now: datetime | None = None,
    ) -> TemporalEvent:
        """Create or update an event. See :meth:`AsyncGraphStore.merge_temporal_event`."""
        ev = prep_event(
            user_id,
            description,
            participants=participants,
            occurred_at=occurred_at,
            importance=importance,
            now=now,
        )
        return await self._execute(
            "merge_temporal_event", lambda: self.op_merge_event(ev), write=True
        )

    async def add_causal_link(
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
        """Create or update a causal link. See :meth:`AsyncGraphStore.add_causal_link`."""
        link = prep_causal(
            user_id,
            cause,
            effect,
            cause_entities=cause_entities,
            effect_entities=effect_entities,
            importance=importance,
            now=now,
        )
        return await self._execute("add_causal_link", lambda: self.op_add_causal(link), write=True)

    async def get_events(
        self, user_id: str, *, entity: str | None = None, limit: int = 50
    ) -> list[TemporalEvent]:
        """Events, newest first. See :meth:`AsyncGraphStore.get_events`."""
        check_user_id(user_id)
        limit = check_limit(limit)
        ent_id = None if entity is None else entity_id(user_id, entity)
        return await self._execute(
            "get_events", lambda: self.op_events(user_id, ent_id, limit), write=False
        )

    async def get_causal_links(
        self, user_id: str, *, entity: str | None = None, limit: int = 50
    ) -> list[CausalLink]:
        """Causal links, newest first. See :meth:`AsyncGraphStore.get_causal_links`."""
        check_user_id(user_id)
        limit = check_limit(limit)
        ent_id = None if entity is None else entity_id(user_id, entity)
        return await self._execute(
            "get_causal_links", lambda: self.op_links(user_id, ent_id, limit), write=False
        )

    async def get_neighbours(
        self, user_id: str, name: str, *, hops: int = 1, limit: int = 25
    ) -> list[Neighbour]:
        """1–2 hop neighbourhood. See :meth:`AsyncGraphStore.get_neighbours`."""
        check_user_id(user_id)
        ent_id = entity_id(user_id, name)
        hops = check_hops(hops)
        limit = check_limit(limit)
        return await self._execute(
            "get_neighbours",
            lambda: self.op_neighbours(user_id, ent_id, hops, limit),
            write=False,
        )

    async def decay_graph(
        self,
        user_id: str,
        *,
        now: datetime | None = None,
        halflife_days: float | None = None,
        dry_run: bool = False,
    ) -> DecayResult:
        """Prune faded relations and entities. See :meth:`AsyncGraphStore.decay_graph`."""
        check_user_id(user_id)
        moment = Moment.of(now)
        half = self.halflife_days if halflife_days is None else check_halflife(halflife_days)
        lam = decay_lambda(half)
        return await self._execute(
            "decay_graph",
            lambda: self.op_decay(user_id, moment, lam, half, dry_run),
            write=not dry_run,
        )

    async def stats(self, user_id: str) -> GraphStats:
        """Counts of the user's graph. See :meth:`AsyncGraphStore.stats`."""
        check_user_id(user_id)
        return await self._execute("stats", lambda: self.op_stats(user_id), write=False)

    async def delete_user(self, user_id: str) -> GraphStats:
        """Remove all of a user's graph. See :meth:`AsyncGraphStore.delete_user`."""
        check_user_id(user_id)
        return await self._execute("delete_user", lambda: self.op_delete_user(user_id), write=True)
