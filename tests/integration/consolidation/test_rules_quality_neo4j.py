"""The rule-based path on the real Neo4j server: drift, aliases, type cues, user relations."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.consolidation import Consolidator, TraceLogSource
from langgraph_prax_memory.graph import Neo4jGraphStore

pytestmark = pytest.mark.integration

NOW = datetime(2026, 3, 2, 12, tzinfo=UTC)


@pytest.fixture
def neo4j_memory(neo4j_server: Any, tmp_path: Path) -> Iterator[PraxMemory]:
    graph = Neo4jGraphStore(neo4j_server.uri, auth=neo4j_server.auth)
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path / "data"), graph=graph)
    yield mem
    mem.close()


def test_drift_aliases_and_cues_on_neo4j(neo4j_memory: PraxMemory, tmp_path: Path) -> None:
    user = f"it-{uuid.uuid4()}"
    sessions = [
        [
            "user: I prefer dark mode in all my tools.",
            "user: I had lunch with my colleague Alice Smith.",
        ],
        ["user: I now prefer light mode.", "user: Alice S. sent me the slides."],
        [
            "user: I told Alice about it.",
            "user: My sister Sarah lives in Osaka.",
            "user: I moved to Japan last year.",
        ],
    ]
    try:
        for day, lines in enumerate(sessions):
            trace = tmp_path / f"s{day}.log"
            trace.write_text("".join(line + "\n" for line in lines))
            Consolidator(neo4j_memory).run(
                user, TraceLogSource(trace), now=NOW + timedelta(days=day)
            )
        graph = neo4j_memory.graph
        assert [e.name for e in graph.current_targets(user, "User", "prefers")] == ["light mode"]
        alices = graph.search_entities(user, "alice")
        assert [e.display_name for e in alices] == ["Alice Smith"]
        assert alices[0].type == "person"
        assert sorted(alices[0].properties["aliases"]) == ["Alice", "Alice S"]
        me = graph.get_entity(user, "User")
        assert me is not None
        edges = {(r.type, r.target) for r in me.relations}
        assert {("related_to", "sarah"), ("lives_in", "japan")} <= edges
        japan = graph.get_entity(user, "Japan")
        assert japan is not None and japan.entity.type == "place"
    finally:
        neo4j_memory.graph.delete_user(user)
        neo4j_memory.delete_user(user)
