"""An import is all or nothing on the real Neo4j server (issue 40, item 6).

The scenario and the faults are those of the SQLite run (``tests/portable_faults.py``): the
vector store, the graph (a batch of its load, after the first one went in), the scratchpad
and the notes each fail half-way; the user is left exactly as before, and what the graph
loaded is deleted from Neo4j when a later store fails.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.graph import Neo4jGraphStore, create_graph_store
from tests.fakes import HashEmbeddings
from tests.portable_faults import FAULTS, Fault, fails_whole, undo_that_fails_says_so

pytestmark = pytest.mark.integration


@pytest.fixture
def mem(neo4j_server: Any, tmp_path: Path) -> Iterator[PraxMemory]:
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
    pair = (f"test-{uuid.uuid4()}", f"test-{uuid.uuid4()}")
    yield pair
    for user in pair:
        mem.graph.delete_user(user)


@pytest.mark.parametrize(("store", "breaker", "error", "names"), FAULTS, ids=[f[0] for f in FAULTS])
def test_a_store_failing_half_way_leaves_the_user_as_before(
    mem: PraxMemory,
    users: tuple[str, str],
    monkeypatch: pytest.MonkeyPatch,
    store: str,
    breaker: Callable[[PraxMemory, pytest.MonkeyPatch], Fault],
    error: type,
    names: str,
) -> None:
    fails_whole(mem, monkeypatch, *users, breaker, error, names)


def test_an_undo_that_fails_too_says_what_may_be_left(
    mem: PraxMemory, users: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    undo_that_fails_says_so(mem, monkeypatch, *users)
