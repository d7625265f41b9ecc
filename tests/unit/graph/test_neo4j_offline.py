"""Neo4j store behaviour that needs no server: bad settings, a server that is down at start."""

from __future__ import annotations

import logging
import socket
import time

import neo4j
import pytest

from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.errors import BackendUnavailable, ConfigError, MemoryValidationError
from langgraph_prax_memory.graph import (
    AsyncNeo4jGraphStore,
    Neo4jGraphStore,
    create_graph_store,
)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _our_warnings(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [
        r
        for r in caplog.records
        if r.name.startswith("langgraph_prax_memory") and r.levelno == logging.WARNING
    ]


def test_down_at_start_is_backend_unavailable_quickly(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    # Building the store does not connect: the rest of the memory can start without Neo4j.
    store = Neo4jGraphStore(
        f"bolt://127.0.0.1:{_closed_port()}", connection_timeout=0.5, max_retry_time=0.5
    )
    started = time.monotonic()
    with pytest.raises(BackendUnavailable, match="Neo4j graph"):
        store.merge_entity("u1", "Alice")
    with pytest.raises(BackendUnavailable):
        store.get_neighbours("u1", "Alice", hops=2)
    with pytest.raises(BackendUnavailable):
        store.stats("u1")
    assert time.monotonic() - started < 10
    warnings = _our_warnings(caplog)
    assert len(warnings) == 1
    assert "unavailable" in warnings[0].getMessage()
    store.close()


def test_down_at_start_through_the_factory() -> None:
    config = MemoryConfig(neo4j_uri=f"bolt://127.0.0.1:{_closed_port()}", neo4j_max_retry_time=0.5)
    store = create_graph_store(config)
    assert isinstance(store, Neo4jGraphStore)
    assert store.max_retry_time == 0.5
    with pytest.raises(BackendUnavailable):
        store.search_entities("u1", "x")
    store.close()


async def test_async_down_at_start(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    store = AsyncNeo4jGraphStore(
        f"bolt://127.0.0.1:{_closed_port()}", connection_timeout=0.5, max_retry_time=0.5
    )
    started = time.monotonic()
    with pytest.raises(BackendUnavailable):
        await store.add_relation("u1", "Alice", "Prax", "works_on")
    with pytest.raises(BackendUnavailable):
        await store.delete_user("u1")
    assert time.monotonic() - started < 10
    assert len(_our_warnings(caplog)) == 1
    await store.close()


def test_validation_happens_before_any_connection() -> None:
    store = Neo4jGraphStore(f"bolt://127.0.0.1:{_closed_port()}", max_retry_time=0.1)
    with pytest.raises(MemoryValidationError, match="unknown relation type"):
        store.add_relation("u1", "a", "b", "mentors")
    with pytest.raises(MemoryValidationError, match="user_id"):
        store.merge_entity("", "a")
    store.close()


def test_bad_connection_settings() -> None:
    with pytest.raises(ConfigError):
        Neo4jGraphStore("nonsense://host:1")
    with pytest.raises(ConfigError, match="NEO4J_URI"):
        Neo4jGraphStore(MemoryConfig())
    with pytest.raises(ConfigError, match="got int"):
        Neo4jGraphStore(42)


def test_existing_driver_is_not_closed() -> None:
    driver = neo4j.GraphDatabase.driver(f"bolt://127.0.0.1:{_closed_port()}")
    store = Neo4jGraphStore(driver)
    assert store.driver is driver
    store.close()
    # Still open: creating a session on a closed driver would raise.
    with driver.session() as session:
        assert session is not None
    driver.close()


def test_config_credentials_and_halflife() -> None:
    config = MemoryConfig(
        neo4j_uri="bolt://127.0.0.1:1",
        neo4j_user="me",
        neo4j_password="secret",
        neo4j_database="graphdb",
        decay_halflife_days=3,
    )
    store = Neo4jGraphStore(config)
    assert store.halflife_days == pytest.approx(6.0)
    assert store.database == "graphdb"
    store.close()
