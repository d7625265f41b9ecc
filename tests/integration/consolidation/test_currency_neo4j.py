"""Idempotent consolidation and supersession on a real Neo4j server (and the offline model)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.consolidation import Consolidator, RuleBasedExtractor, TraceLogSource
from langgraph_prax_memory.context import build_memory_context
from langgraph_prax_memory.graph import Neo4jGraphStore

pytestmark = pytest.mark.integration

DAY1 = datetime(2026, 3, 2, 9, tzinfo=UTC)


@pytest.fixture
def neo4j_memory(neo4j_server: Any, tmp_path: Path) -> Iterator[PraxMemory]:
    graph = Neo4jGraphStore(neo4j_server.uri, auth=neo4j_server.auth)
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path / "data"), graph=graph)
    yield mem
    mem.close()


def _snapshot(memory: PraxMemory, user: str) -> dict[str, Any]:
    graph = memory.graph
    found = graph.get_entity(user, "user", include_superseded=True)
    assert found is not None
    mentions = {}
    for name in ("user", "dark mode", "light mode", "prax", "alice"):
        ent = graph.get_entity(user, name)
        if ent is not None:
            mentions[name] = ent.entity.mention_count
    return {
        "memories": sorted(m.content for m in memory.list_memories(user, limit=500)),
        "stats": graph.stats(user).model_dump(),
        "edges": sorted(
            (r.source, r.type, r.target, r.weight, r.valid_until is None) for r in found.relations
        ),
        "mentions": mentions,
    }


def test_replaying_without_the_state_file_changes_nothing_on_neo4j(
    neo4j_memory: PraxMemory, tmp_path: Path
) -> None:
    user = f"it-{uuid.uuid4()}"
    s1, s2 = tmp_path / "s1.log", tmp_path / "s2.log"
    s1.write_text(
        "2026-03-02T09:00:00+00:00 user: I prefer dark mode in all my tools\n"
        "2026-03-02T09:01:00+00:00 user: I work on Prax with Alice.\n"
    )
    s2.write_text(
        "2026-03-03T09:00:00+00:00 user: I prefer light mode over dark mode\n"
        "2026-03-03T09:01:00+00:00 user: I still work on Prax every day.\n"
    )
    consolidator = Consolidator(neo4j_memory, extractor=RuleBasedExtractor())
    try:
        consolidator.run(user, TraceLogSource(s1), now=DAY1 + timedelta(hours=1))
        second = consolidator.run(user, TraceLogSource(s2), now=DAY1 + timedelta(days=1, hours=1))
        before = _snapshot(neo4j_memory, user)
        for source in (s1, s2, s1):  # replays, the old session last, the state file gone
            consolidator.state_path(user).unlink()
            again = consolidator.run(user, TraceLogSource(source), now=DAY1 + timedelta(days=2))
            assert again.batches == 1 and again.graph_errors == 0
            assert (again.memories_created, again.relations_upserted) == (0, 0)
            assert _snapshot(neo4j_memory, user) == before
        current = neo4j_memory.graph.current_targets(user, "user", "prefers")
        assert [e.name for e in current] == ["light mode"]
        question = "Do I prefer light mode or dark mode in my tools?"
        hits = neo4j_memory.recall(user, question, k=3, now=DAY1 + timedelta(days=2))
        assert "light mode" in hits[0].memory.content
        assert not any("dark mode in all their tools" in h.memory.content for h in hits)
        context = build_memory_context(neo4j_memory, user, question, now=DAY1 + timedelta(days=2))
        assert "dark mode in all their tools" not in context
        history = neo4j_memory.recall(user, question, k=5, include_history=True, reinforce=False)
        assert any("dark mode in all their tools" in h.memory.content for h in history)
        assert second.memories_superseded >= 1
    finally:
        neo4j_memory.graph.delete_user(user)
