"""Export and import on the real Neo4j server (issue 40, item 8): every entity, any script."""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.graph import create_graph_store
from tests.fakes import HashEmbeddings
from tests.portable_cases import round_trip

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
        yield memory


@pytest.fixture
def users(mem: PraxMemory) -> Iterator[tuple[str, str]]:
    pair = (f"test-{uuid.uuid4()}", f"test-{uuid.uuid4()}")
    yield pair
    for user in pair:
        mem.graph.delete_user(user)


def test_export_past_one_query_lists_the_least_important_in_any_script(
    mem: PraxMemory, users: tuple[str, str]
) -> None:
    user = users[0]
    for i in range(1000):
        mem.graph.merge_entity(user, f"topic {i:04d}", importance=0.9)
    for name in ("თბილისი", "አዲስ አበባ", "กรุงเทพ"):
        mem.graph.merge_entity(user, name, importance=0.05)
    mem.graph.add_relation(user, "თბილისი", "አዲስ አበባ", "related_to")
    mem.graph.add_relation(user, "አዲስ አበባ", "กรุงเทพ", "related_to")
    buf = io.StringIO()
    mem.export_user(user, buf)
    rows = [json.loads(line) for line in buf.getvalue().splitlines()]
    names = {r["display_name"] for r in rows if r["type"] == "entity"}
    assert len(names) == 1003 and {"თბილისი", "አዲስ አበባ", "กรุงเทพ"} <= names
    assert len([r for r in rows if r["type"] == "relation"]) == 2
    assert rows[0]["complete"] is True


def test_an_export_of_5000_entities_in_mixed_scripts_round_trips_exactly(
    mem: PraxMemory, users: tuple[str, str]
) -> None:
    round_trip(mem, *users, entities=5000, relations=600)
