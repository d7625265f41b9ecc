"""Knowledge hygiene on the real Neo4j server: pruning and the lossless OKF round trip."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import neo4j
import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.graph import Neo4jGraphStore
from langgraph_prax_memory.knowledge import (
    KnowledgeBase,
    Neo4jKnowledgeStore,
    create_knowledge_store,
)
from tests.unit.knowledge.test_knowledge_hygiene import (
    KnowledgeHygieneContract,
    codebase_pruning_scenario,
)

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def neo4j_driver(neo4j_server: Any) -> Iterator[neo4j.Driver]:
    driver = neo4j.GraphDatabase.driver(neo4j_server.uri, auth=neo4j_server.auth)
    yield driver
    driver.close()


class TestNeo4jKnowledgeHygiene(KnowledgeHygieneContract):
    @pytest.fixture
    def graph(self, neo4j_driver: neo4j.Driver) -> Iterator[Neo4jGraphStore]:
        store = Neo4jGraphStore(neo4j_driver, max_retry_time=5.0)
        yield store
        store.close()

    @pytest.fixture
    def kstore(self, graph: Neo4jGraphStore) -> Neo4jKnowledgeStore:
        store = create_knowledge_store(graph)
        assert isinstance(store, Neo4jKnowledgeStore)
        return store


def test_codebase_reingestion_prunes_on_neo4j(neo4j_server: Any, tmp_path: Path) -> None:
    graph = Neo4jGraphStore(neo4j_server.uri, auth=neo4j_server.auth)
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path / "data"), graph=graph)
    user = f"kh-{uuid.uuid4()}"
    try:
        kb = KnowledgeBase(mem)
        assert isinstance(kb.store, Neo4jKnowledgeStore)
        codebase_pruning_scenario(kb, user, tmp_path / "proj")
    finally:
        KnowledgeBase(mem).delete_user(user)
        graph.delete_user(user)
        mem.close()
