"""The knowledge namespace on a real Neo4j server (and the real offline embedding model).

Uses the session ``neo4j_server`` fixture of ``tests/integration/conftest.py``: under ``CI`` a
missing server is a failure, never a skip.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import neo4j
import pytest

import langgraph_prax_memory
from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.graph import AsyncNeo4jGraphStore, Neo4jGraphStore
from langgraph_prax_memory.knowledge import (
    AsyncNeo4jKnowledgeStore,
    KnowledgeBase,
    Neo4jKnowledgeStore,
    create_knowledge_store,
)
from tests.unit.knowledge.contract import KnowledgeStoreContract
from tests.unit.knowledge.test_knowledge_base import PAPER

pytestmark = pytest.mark.integration

PACKAGE = Path(langgraph_prax_memory.__file__).parent


@pytest.fixture(scope="module")
def neo4j_driver(neo4j_server: Any) -> Iterator[neo4j.Driver]:
    driver = neo4j.GraphDatabase.driver(neo4j_server.uri, auth=neo4j_server.auth)
    yield driver
    driver.close()


class TestNeo4jKnowledgeContract(KnowledgeStoreContract):
    """The whole KnowledgeStore contract, on the memory graph's shared driver."""

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


def test_constraints_and_indexes_exist(neo4j_driver: neo4j.Driver) -> None:
    store = Neo4jKnowledgeStore(neo4j_driver)
    store.setup()
    store.setup()  # idempotent
    with neo4j_driver.session() as session:
        names = {r["name"] for r in session.run("SHOW INDEXES YIELD name RETURN name")}
    assert {"prax_kconcept_id", "prax_kconcept_key", "prax_krel_user"} <= names


async def test_async_store_on_the_native_async_driver(neo4j_server: Any) -> None:
    graph = AsyncNeo4jGraphStore(neo4j_server.uri, auth=neo4j_server.auth)
    store = AsyncNeo4jKnowledgeStore(graph)
    user = f"kn-{uuid.uuid4()}"
    try:
        alice = await graph.merge_entity(user, "Alice")
        c = await store.merge_concept(user, "papers", "Attention", description="weighs tokens")
        await store.add_relation(user, "papers", "Transformer", "Attention", "uses")
        assert [h.concept.id for h in await store.keyword_search(user, "tokens")] == [c.id]
        assert await store.connect_entity(user, "papers", "attention", alice.id) is True
        assert [x.name for x in await store.concepts_for_entities(user, [alice.id])] == [
            "attention"
        ]
        rels = await store.get_relations(user, "papers", name="attention", direction="in")
        assert [r.source for r in rels] == ["transformer"]
        assert (await store.stats(user)).entity_links == 1
        assert (await store.delete_namespace(user, "papers")).concepts == 2
    finally:
        await store.delete_user(user)
        await graph.delete_user(user)
        await graph.close()


def test_knowledge_base_on_neo4j_with_the_offline_model(neo4j_server: Any, tmp_path: Path) -> None:
    config = MemoryConfig(data_dir=tmp_path / "data", neo4j_uri=neo4j_server.uri)
    user = f"kn-{uuid.uuid4()}"
    mem = PraxMemory(config)
    try:
        kb = KnowledgeBase(mem)
        assert isinstance(kb.store, Neo4jKnowledgeStore)
        mem.remember(user, "My colleague Alice maintains the search service")
        result = kb.ingest_document(user, PAPER, namespace="papers")
        assert result.concepts > 5 and result.indexed == result.concepts
        assert kb.ingest_document(user, PAPER, namespace="papers").skipped
        hits = kb.search_detailed(user, "combining ranked lists", k=5)
        assert hits.arms == ["keyword", "semantic"]
        assert "reciprocal rank fusion" in [h.concept.name for h in hits.hits]
        code = kb.ingest_codebase(user, PACKAGE / "knowledge")
        assert code.documents > 5
        assert "langgraph_prax_memory.knowledge.base" in kb.dependents(
            user, "langgraph_prax_memory.knowledge.okf"
        )
        # Isolation: memory recall and entity lookup never see concepts.
        assert all("Fusion" not in h.memory.content for h in mem.recall(user, "rank fusion"))
        assert mem.graph.search_entities(user, "fusion") == []
        assert mem.graph.get_entity(user, "reciprocal rank fusion") is None
        removed = kb.delete_namespace(user, "papers")
        assert removed.concepts == result.concepts
        assert {n.namespace for n in kb.namespaces(user)} == {"codebase"}
    finally:
        KnowledgeBase(mem).delete_user(user)
        mem.delete_user(user)
        mem.close()
