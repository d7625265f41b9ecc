"""Fixtures of the Neo4j graph tests.

The ``neo4j_server`` fixture lives in ``tests/integration/conftest.py`` (shared with the
consolidation integration tests); here, a memory on it and two throwaway users.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.graph import Neo4jGraphStore, create_graph_store
from tests.fakes import HashEmbeddings


@pytest.fixture
def mem(neo4j_server: Any, tmp_path: Path) -> Iterator[PraxMemory]:
    """A memory whose graph is the test Neo4j server (hash embeddings, Qdrant in memory)."""
    config = MemoryConfig(
        neo4j_uri=neo4j_server.uri,
        neo4j_user=neo4j_server.auth[0] if neo4j_server.auth else "neo4j",
        neo4j_password=neo4j_server.auth[1] if neo4j_server.auth else None,
        qdrant_url=":memory:",
        data_dir=tmp_path / "data",
    )
    with PraxMemory(
        config,
        graph=create_graph_store(config),
        embeddings=HashEmbeddings(),
        embedding_dimension=384,
    ) as memory:
        assert isinstance(memory.graph, Neo4jGraphStore)
        yield memory


@pytest.fixture
def users(mem: PraxMemory) -> Iterator[tuple[str, str]]:
    """Two fresh users, their graph deleted afterwards (the server is shared)."""
    pair = (f"test-{uuid.uuid4()}", f"test-{uuid.uuid4()}")
    yield pair
    for user in pair:
        mem.graph.delete_user(user)
