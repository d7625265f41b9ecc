"""Consolidation on real backends: Neo4j (server), Qdrant local mode on disk, the offline model."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.consolidation import (
    ConsolidatingCheckpointer,
    Consolidator,
    TraceLogSource,
)
from langgraph_prax_memory.graph import Neo4jGraphStore

pytestmark = pytest.mark.integration

NOW = datetime(2026, 3, 2, 12, tzinfo=UTC)


@pytest.fixture
def neo4j_memory(neo4j_server: Any, tmp_path: Path) -> Iterator[PraxMemory]:
    graph = Neo4jGraphStore(neo4j_server.uri, auth=neo4j_server.auth)
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path / "data"), graph=graph)
    yield mem
    mem.close()


def test_trace_consolidation_on_neo4j_with_supersession_and_rerun(
    neo4j_memory: PraxMemory, tmp_path: Path
) -> None:
    user = f"it-{uuid.uuid4()}"
    trace = tmp_path / "trace.log"
    trace.write_text(
        "user: I prefer dark mode.\n\nuser: I work on Prax with Alice at Acme Corp.\n"
        "user: I think I prefer tabs.\n"
    )
    consolidator = Consolidator(neo4j_memory)
    try:
        first = consolidator.run(user, TraceLogSource(trace), now=NOW)
        assert (first.batches, first.memories_created, first.graph_errors) == (1, 2, 0)
        assert first.pending_review >= 1
        graph = neo4j_memory.graph
        assert graph.get_entity(user, "Prax") is not None
        with trace.open("a") as handle:
            handle.write("user: I switched from dark mode to light mode.\n")
        second = consolidator.run(user, TraceLogSource(trace), now=NOW + timedelta(hours=2))
        assert second.relations_superseded == 1
        assert [e.name for e in graph.current_targets(user, "user", "prefers")] == ["light mode"]
        consolidator.state_path(user).unlink()
        again = consolidator.run(user, TraceLogSource(trace), now=NOW + timedelta(hours=3))
        assert again.memories_created == 0 and again.memories_deduplicated == 3
        hits = neo4j_memory.recall(user, "which theme does the user like?", now=NOW)
        assert any("mode" in h.memory.content for h in hits)
    finally:
        neo4j_memory.graph.delete_user(user)


def test_checkpoint_trigger_on_neo4j(neo4j_memory: PraxMemory) -> None:
    user = f"it-{uuid.uuid4()}"

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage("Noted.")]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    saver = ConsolidatingCheckpointer(InMemorySaver(), neo4j_memory, inline=True)
    graph = builder.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": f"t-{user}", "user_id": user}}
    try:
        for text in ["I prefer dark mode.", "I use Neo4j daily.", "hi", "ok", "I love jazz."]:
            graph.invoke({"messages": [HumanMessage(text)]}, config)
        result = saver.last_results[user]
        assert result.batches == 1 and result.memories_created == 3
        assert neo4j_memory.graph.get_entity(user, "Neo4j") is not None
    finally:
        neo4j_memory.graph.delete_user(user)
