"""The GraphStore contract on the real Neo4j server (sync and native async drivers)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import neo4j
import pytest

from langgraph_prax_memory.graph import AsyncNeo4jGraphStore, Neo4jGraphStore
from tests.contract.graph import AsyncGraphStoreContract, GraphStoreContract, awaited

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def neo4j_driver(neo4j_server: Any) -> Iterator[neo4j.Driver]:
    driver = neo4j.GraphDatabase.driver(neo4j_server.uri, auth=neo4j_server.auth)
    yield driver
    driver.close()


class TestNeo4jContract(GraphStoreContract):
    """The whole contract, on a store that shares an existing driver."""

    @pytest.fixture
    def store(self, neo4j_driver: neo4j.Driver) -> Iterator[Neo4jGraphStore]:
        store = Neo4jGraphStore(neo4j_driver, max_retry_time=5.0)
        yield store
        store.close()


class TestAsyncNeo4jContract(AsyncGraphStoreContract):
    """The async smoke contract on the driver's native async API."""

    @pytest.fixture
    async def astore(self, neo4j_server: Any) -> AsyncIterator[AsyncNeo4jGraphStore]:
        store = AsyncNeo4jGraphStore(neo4j_server.uri, auth=neo4j_server.auth)
        yield store
        await store.close()


class TestAsyncNeo4jFullContract(GraphStoreContract):
    """The whole contract through the native async runner (each call awaited on one loop)."""

    @pytest.fixture
    def store(self, neo4j_server: Any) -> Iterator[Any]:
        yield from awaited(lambda: AsyncNeo4jGraphStore(neo4j_server.uri, auth=neo4j_server.auth))
