"""The direct graph API gives up on a Neo4j that is stopped or frozen (issue 40, item 10).

``graph.merge_entity`` / ``get_entity`` used to take 13.7-14.7 s against a stopped or frozen
server (the driver's retries), and hung for as long as the line stayed up when the server
froze on a connection the driver held; the tools and recall give up after
``retrieval.graph_timeout`` (5 s). The store now gives up within the same bound, with a typed
error. The server is the real one, behind a TCP proxy the test stops or freezes.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.errors import BackendUnavailable
from langgraph_prax_memory.graph import AsyncNeo4jGraphStore, Neo4jGraphStore
from tests.integration.graph.test_neo4j_backend import _closed_port, _Proxy

pytestmark = pytest.mark.integration

T0 = datetime(2026, 1, 20, 9, 30, tzinfo=UTC)
#: The store's deadline (``retrieval.graph_timeout``, 5 s, plus 0.5 s) and some slack for a
#: busy 2-core machine.
BOUND = 6.5


def _config(neo4j_server: Any, port: int) -> MemoryConfig:
    return MemoryConfig(
        neo4j_uri=f"bolt://127.0.0.1:{port}",
        neo4j_user=neo4j_server.auth[0] if neo4j_server.auth else "neo4j",
        neo4j_password=neo4j_server.auth[1] if neo4j_server.auth else None,
    )


def _timed(call: Callable[[], object]) -> tuple[float, BaseException | None]:
    """Seconds ``call`` took and what it raised; a call still running after 40 s fails."""
    box: dict[str, BaseException | None] = {"error": None}

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # judged by the test
            box["error"] = exc

    started = time.monotonic()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout=40)
    assert not thread.is_alive(), "the call was still waiting after 40 s"
    return time.monotonic() - started, box["error"]


def _gives_up_in_time(call: Callable[[], object]) -> BaseException:
    took, error = _timed(call)
    assert isinstance(error, BackendUnavailable), error
    assert took < BOUND, f"gave up after {took:.1f} s"
    return error


@pytest.fixture
def proxy(neo4j_server: Any) -> Iterator[_Proxy]:
    host, port = neo4j_server.uri.rsplit("//", 1)[1].rsplit(":", 1)
    line = _Proxy((host, int(port)))
    yield line
    line.stop()


@pytest.fixture
def user(neo4j_server: Any) -> Iterator[str]:
    uid = f"test-{uuid.uuid4()}"
    yield uid
    with Neo4jGraphStore(neo4j_server.uri, auth=neo4j_server.auth) as store:
        store.delete_user(uid)


def test_a_stopped_neo4j_is_given_up_within_the_bound(neo4j_server: Any, user: str) -> None:
    for call in ("merge_entity", "get_entity"):
        with Neo4jGraphStore(_config(neo4j_server, _closed_port())) as store:  # nothing listens
            method = getattr(store, call)
            error = _gives_up_in_time(lambda m=method: m(user, "Alice"))  # type: ignore[misc]
            assert "Neo4j" in str(error)


def test_a_neo4j_stopped_after_use_is_given_up_within_the_bound(
    neo4j_server: Any, proxy: _Proxy, user: str
) -> None:
    with Neo4jGraphStore(_config(neo4j_server, proxy.port)) as store:
        store.merge_entity(user, "Alice", now=T0)
        proxy.stop()  # the server goes away: the port refuses, pooled connections are closed
        _gives_up_in_time(lambda: store.merge_entity(user, "Bob", now=T0))
        _gives_up_in_time(lambda: store.get_entity(user, "Alice"))  # the breaker: at once


def test_a_frozen_neo4j_is_given_up_within_the_bound(
    neo4j_server: Any, proxy: _Proxy, user: str
) -> None:
    proxy.frozen.set()  # accepts the connection, never answers (a SIGSTOPped server)
    for call in ("merge_entity", "get_entity"):
        with Neo4jGraphStore(_config(neo4j_server, proxy.port)) as store:
            method = getattr(store, call)
            _gives_up_in_time(lambda m=method: m(user, "Alice"))  # type: ignore[misc]


def test_a_neo4j_frozen_mid_connection_is_given_up_within_the_bound(
    neo4j_server: Any, proxy: _Proxy, user: str
) -> None:
    """The server stops answering on the connection the driver holds (it hung for as long as
    the line stayed up): the write and the read each give up within the bound."""
    with Neo4jGraphStore(_config(neo4j_server, proxy.port)) as store:
        store.merge_entity(user, "Alice", now=T0)
        assert store.get_entity(user, "Alice") is not None
        proxy.frozen.set()
        error = _gives_up_in_time(lambda: store.merge_entity(user, "Bob", now=T0))
        assert "no answer within 5.5 s" in str(error) and "write" in str(error)
        _gives_up_in_time(lambda: store.get_entity(user, "Alice"))
    proxy.frozen.clear()  # the server answers again: a new store (new connections) works
    with Neo4jGraphStore(_config(neo4j_server, proxy.port)) as fresh:
        fresh.merge_entity(user, "Carol", now=T0)
        assert fresh.get_entity(user, "Carol") is not None


def test_the_async_store_gives_up_within_the_bound_too(
    neo4j_server: Any, proxy: _Proxy, user: str
) -> None:
    async def scenario() -> list[tuple[float, BaseException | None]]:
        store = AsyncNeo4jGraphStore(_config(neo4j_server, proxy.port))
        try:
            await store.merge_entity(user, "Alice", now=T0)
            proxy.frozen.set()
            out = []
            for call in (
                lambda: store.merge_entity(user, "Bob", now=T0),
                lambda: store.get_entity(user, "Alice"),
            ):
                started = time.monotonic()
                try:
                    await asyncio.wait_for(call(), timeout=40)
                    out.append((time.monotonic() - started, None))
                except BaseException as exc:  # judged below
                    out.append((time.monotonic() - started, exc))
            return out
        finally:
            proxy.stop()
            await store.close()

    for took, error in asyncio.run(scenario()):
        assert isinstance(error, BackendUnavailable), error
        assert took < BOUND, f"gave up after {took:.1f} s"


def test_knowledge_on_a_frozen_neo4j_is_given_up_within_the_bound(
    neo4j_server: Any, proxy: _Proxy, user: str
) -> None:
    from langgraph_prax_memory.knowledge import Neo4jKnowledgeStore

    with Neo4jGraphStore(_config(neo4j_server, proxy.port)) as graph:
        knowledge = Neo4jKnowledgeStore(graph)
        knowledge.merge_concept(user, "papers", "Attention")
        proxy.frozen.set()
        error = _gives_up_in_time(lambda: knowledge.merge_concept(user, "papers", "Transformers"))
        assert "knowledge" in str(error)
    proxy.frozen.clear()
    with Neo4jGraphStore(neo4j_server.uri, auth=neo4j_server.auth) as graph:
        Neo4jKnowledgeStore(graph).delete_user(user)
