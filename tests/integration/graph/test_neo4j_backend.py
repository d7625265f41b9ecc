"""Neo4j-only behaviour: connection options, injection safety on the server, outages."""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import neo4j
import pytest
from langchain_neo4j import Neo4jGraph

from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.errors import BackendUnavailable, CircuitOpenError
from langgraph_prax_memory.graph import (
    AsyncNeo4jGraphStore,
    Neo4jGraphStore,
    create_async_graph_store,
    create_graph_store,
)

pytestmark = pytest.mark.integration

T0 = datetime(2026, 1, 20, 9, 30, tzinfo=UTC)


@pytest.fixture
def user() -> str:
    return f"test-{uuid.uuid4()}"


@pytest.fixture
def driver(neo4j_server: Any) -> Iterator[neo4j.Driver]:
    drv = neo4j.GraphDatabase.driver(neo4j_server.uri, auth=neo4j_server.auth)
    yield drv
    drv.close()


def test_store_from_memory_config(neo4j_server: Any, user: str) -> None:
    config = MemoryConfig(neo4j_uri=neo4j_server.uri, decay_halflife_days=10)
    store = create_graph_store(config)
    assert isinstance(store, Neo4jGraphStore)
    assert store.halflife_days == pytest.approx(20.0)
    try:
        store.merge_entity(user, "Alice", now=T0)
        assert store.stats(user).entities == 1
    finally:
        store.delete_user(user)
        store.close()


async def test_async_store_from_memory_config(neo4j_server: Any, user: str) -> None:
    store = create_async_graph_store(MemoryConfig(neo4j_uri=neo4j_server.uri))
    assert isinstance(store, AsyncNeo4jGraphStore)
    try:
        await store.merge_entity(user, "Alice", now=T0)
        assert (await store.stats(user)).entities == 1
    finally:
        await store.delete_user(user)
        await store.close()


def test_existing_driver_is_shared_not_closed(driver: neo4j.Driver, user: str) -> None:
    store = Neo4jGraphStore(driver)
    store.add_relation(user, "Alice", "Prax", "works_on", now=T0)
    store.close()
    # The caller's driver is still usable after the store is closed.
    records, _, _ = driver.execute_query(
        "MATCH (e:Entity {user_id: $u}) RETURN count(e) AS n", u=user
    )
    assert records[0]["n"] == 2
    Neo4jGraphStore(driver).delete_user(user)


def test_langchain_neo4j_graph_is_accepted(neo4j_server: Any, user: str) -> None:
    username, password = neo4j_server.auth or ("neo4j", "unused")
    graph = Neo4jGraph(
        url=neo4j_server.uri, username=username, password=password, refresh_schema=False
    )
    try:
        # Neo4jGraph has no public driver: the store takes the graph's constructor settings
        store = Neo4jGraphStore.from_neo4j_graph(
            graph, url=neo4j_server.uri, username=username, password=password
        )
        assert store.database == "neo4j"
        store.add_relation(user, "Alice", "Prax", "works_on", now=T0)
        rows = graph.query(
            "MATCH (a:Entity {user_id: $u})-[r:RELATES_TO]->(b) RETURN a.name AS a, b.name AS b",
            {"u": user},
        )
        assert rows == [{"a": "alice", "b": "prax"}]
        store.delete_user(user)
        store.close()
        assert graph.query("RETURN 1 AS one") == [{"one": 1}], "the graph's driver is its own"
    finally:
        graph.close()


def test_storage_layout(driver: neo4j.Driver, user: str) -> None:
    store = Neo4jGraphStore(driver)
    try:
        store.merge_entity(user, "Alice", properties={"k": [1, 2]}, now=T0)
        store.add_relation(user, "Alice", "Prax", "works_on", evidence="e", now=T0)
        records, _, _ = driver.execute_query(
            "MATCH (a:Entity {user_id: $u, name: 'alice'})-[r:RELATES_TO]->(b:Entity) "
            "RETURN a {.*} AS a, r {.*} AS r",
            u=user,
        )
        a, r = records[0]["a"], records[0]["r"]
        assert isinstance(a["first_seen"], neo4j.time.DateTime)
        assert a["last_seen_ts"] == pytest.approx(T0.timestamp())
        assert a["properties"] == '{"k": [1, 2]}'
        assert r["type"] == "works_on"
        assert r["valid_from_ts"] == pytest.approx(T0.timestamp())
        assert "valid_until" not in r
        names = {rec["name"] for rec in driver.execute_query("SHOW CONSTRAINTS YIELD name")[0]}
        assert {"prax_entity_id", "prax_event_id", "prax_causal_id"} <= names
    finally:
        store.delete_user(user)


def test_hostile_text_never_changes_the_query(driver: neo4j.Driver, user: str) -> None:
    store = Neo4jGraphStore(driver)
    nasty = [
        "x})-[:X]->(y",
        "a'}) DETACH DELETE n //",
        "`Injected` RETURN 1 //",
        "'}) CREATE (:Pwned) //",
        "\\'; MATCH (n) DETACH DELETE n; //",
    ]
    try:
        for name in nasty:
            store.add_relation(user, name, name + " target", "related_to", evidence=name, now=T0)
            store.merge_temporal_event(user, name, participants=[name], now=T0)
        counts, _, _ = driver.execute_query(
            "RETURN COUNT { MATCH ()-[:X]->() } AS x, COUNT { MATCH (:Pwned) } AS pwned"
        )
        assert counts[0]["x"] == 0
        assert counts[0]["pwned"] == 0
        labels = {r["label"] for r in driver.execute_query("CALL db.labels()")[0]}
        assert not labels & {"Pwned", "Injected"}
        assert store.stats(user).entities == 2 * len(nasty)
        for name in nasty:
            got = store.get_entity(user, name)
            assert got is not None
            assert got.entity.display_name == name
    finally:
        store.delete_user(user)


def test_concurrent_relation_writes_keep_one_current_edge(driver: neo4j.Driver, user: str) -> None:
    store = Neo4jGraphStore(driver, max_retry_time=30.0)

    def work() -> None:
        for _ in range(10):
            store.add_relation(user, "Alice", "Prax", "works_on", now=T0)

    threads = [threading.Thread(target=work) for _ in range(4)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        got = store.get_entity(user, "alice", include_superseded=True)
        assert got is not None
        assert [r.weight for r in got.relations] == [40.0]
        assert store.stats(user).entities == 2
    finally:
        store.delete_user(user)


# ---------------------------------------------------------------------- outages


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _Proxy:
    """A TCP forwarder in front of the server, so a test can cut the line mid-run."""

    def __init__(self, target: tuple[str, int], port: int = 0) -> None:
        self.target = target
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen()
        self.port = int(self.sock.getsockname()[1])
        self.conns: list[socket.socket] = []
        #: Set: the line stays up but nothing gets through (a server that stopped answering).
        self.frozen = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            self.conns += [client, upstream]
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                if not self.frozen.is_set():
                    dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept() on Linux
        self.sock.close()
        for conn in self.conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            conn.close()
        self.thread.join(timeout=5)


def test_server_down_mid_run(
    neo4j_server: Any, user: str, caplog: pytest.LogCaptureFixture
) -> None:
    host_port = neo4j_server.uri.rsplit("//", 1)[1]
    host, port = host_port.rsplit(":", 1)
    proxy = _Proxy((host, int(port)))
    store = Neo4jGraphStore(
        f"bolt://127.0.0.1:{proxy.port}",
        auth=neo4j_server.auth,
        connection_timeout=1.0,
        max_retry_time=1.0,
        breaker_cooldown=0.5,
    )
    try:
        store.merge_entity(user, "Alice", now=T0)
        proxy.stop()
        caplog.set_level(logging.DEBUG, logger="langgraph_prax_memory.graph.neo4j")
        started = time.monotonic()
        with pytest.raises(BackendUnavailable):
            store.merge_entity(user, "Bob", now=T0)
        assert time.monotonic() - started < 30
        # While the outage lasts, further calls fail fast (the circuit breaker is open).
        for _ in range(3):
            started = time.monotonic()
            with pytest.raises(BackendUnavailable):
                store.get_neighbours(user, "alice")
            assert time.monotonic() - started < 1.0
        ours = [r for r in caplog.records if r.name.startswith("langgraph_prax_memory")]
        warnings = [r for r in ours if r.levelno == logging.WARNING]
        assert len(warnings) == 1
        assert "unavailable" in warnings[0].getMessage()
        # The server comes back: after the breaker's cool-down its background check sees it,
        # the same store recovers, and nothing half-written is there.
        proxy = _Proxy((host, int(port)), port=proxy.port)
        deadline = time.monotonic() + 30
        while True:
            try:
                entities = store.stats(user).entities
                break
            except CircuitOpenError:
                assert time.monotonic() < deadline, "the breaker never closed"
                time.sleep(0.1)
        assert entities == 1
        store.merge_entity(user, "Bob", now=T0)
        assert store.stats(user).entities == 2
    finally:
        proxy.stop()
        store.close()
        Neo4jGraphStore(neo4j_server.uri, auth=neo4j_server.auth).delete_user(user)


def test_entity_lookup_on_a_neo4j_that_stops_answering_mid_connection_waits_once(
    neo4j_server: Any, user: str, tmp_path: Any
) -> None:
    """Issue 26, item 8: the server stops answering on the connection the driver holds (the
    line stays up): ``memory_entity_lookup`` waits ``retrieval.graph_timeout`` once (it
    blocked 15 s before), answers "graph unavailable", and does not wait again meanwhile."""
    from langgraph_prax_memory import PraxMemory
    from langgraph_prax_memory.tools import create_memory_tools
    from tests.fakes import HashEmbeddings

    host, port = neo4j_server.uri.rsplit("//", 1)[1].rsplit(":", 1)
    proxy = _Proxy((host, int(port)))
    config = MemoryConfig(
        data_dir=tmp_path / "data",
        qdrant_url=":memory:",
        neo4j_uri=f"bolt://127.0.0.1:{proxy.port}",
        neo4j_user=neo4j_server.auth[0] if neo4j_server.auth else "neo4j",
        neo4j_password=neo4j_server.auth[1] if neo4j_server.auth else None,
    )
    config = config.model_copy(
        update={"retrieval": config.retrieval.model_copy(update={"graph_timeout": 3.0})}
    )
    mem = PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384)
    try:
        mem.graph.add_relation(user, "Alice", "Rust", "prefers", now=T0)
        mem.graph.get_entity(user, "Alice")  # warm: the lookup's queries are planned once
        mem.graph.get_events(user, entity="alice", limit=5)
        lookup = {t.name: t for t in create_memory_tools(mem, user_id=user)}["memory_entity_lookup"]
        assert "rust" in lookup.invoke({"name": "Alice"})
        proxy.frozen.set()
        started = time.monotonic()
        first = lookup.invoke({"name": "Alice"})
        assert 2.9 < time.monotonic() - started < 8
        assert first.startswith("Memory system not available") and "no answer within 3 s" in first
        started = time.monotonic()
        second = lookup.invoke({"name": "Alice"})
        assert time.monotonic() - started < 0.5 and "has not answered yet" in second
    finally:
        proxy.stop()  # the hung lookup ends with the line
        mem.close()
        Neo4jGraphStore(neo4j_server.uri, auth=neo4j_server.auth).delete_user(user)


def test_export_lists_every_entity_on_neo4j(neo4j_server: Any, user: str, tmp_path: Any) -> None:
    import io
    import json

    from langgraph_prax_memory import PraxMemory

    config = MemoryConfig(
        neo4j_uri=neo4j_server.uri,
        neo4j_user=neo4j_server.auth[0] if neo4j_server.auth else "neo4j",
        neo4j_password=neo4j_server.auth[1] if neo4j_server.auth else None,
        data_dir=tmp_path,
    )
    with PraxMemory(config, graph=create_graph_store(config)) as mem:  # closes the store
        try:
            for name in ("東京", "Москва", "Zürich", "4-7-8"):
                mem.graph.merge_entity(user, name, now=T0)
            buf = io.StringIO()
            mem.export_user(user, buf)
            rows = [json.loads(line) for line in buf.getvalue().splitlines()]
            names = sorted(r["display_name"] for r in rows if r.get("type") == "entity")
            assert names == sorted(["東京", "Москва", "Zürich", "4-7-8"])
            assert rows[0]["complete"] is True
        finally:
            mem.graph.delete_user(user)
