"""The compiled subgraph (standalone and embedded) and the state file."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph

from langgraph_prax_memory import PraxMemory
from langgraph_prax_memory.consolidation import (
    ConsolidationResult,
    Consolidator,
    StateFile,
    build_consolidation_graph,
    thread_key,
)
from tests.unit.consolidation.conftest import NOW, write_lines


def test_graph_has_one_node_per_step(memory: PraxMemory) -> None:
    nodes = set(build_consolidation_graph(Consolidator(memory)).get_graph().nodes)
    assert {
        "load", "extract", "gate", "graph_upsert", "vector_upsert", "commit", "decay",
        "daily_summary", "finish",
    } <= nodes  # fmt: skip


def test_graph_invoked_on_its_own_with_a_trace_path(memory: PraxMemory, trace: Path) -> None:
    write_lines(
        trace,
        ["user: I prefer dark mode."]
        + [f"user: I prefer colour {i}. " + "c" * 1990 for i in range(20)],
    )
    graph = build_consolidation_graph(Consolidator(memory))
    out = graph.invoke({"user_id": "alice", "trace_path": str(trace), "now": NOW})
    result = out["consolidation"]
    assert isinstance(result, ConsolidationResult)
    assert result.batches == 8  # 6 steps per batch: the graph carries its recursion limit
    assert result.pending_lines > 0
    assert set(out) == {"consolidation"}


def test_graph_embedded_in_a_users_messages_graph(memory: PraxMemory) -> None:
    consolidation = build_consolidation_graph(Consolidator(memory))

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage("Got it.")]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("consolidate", consolidation)
    builder.add_edge(START, "agent")
    builder.add_edge("agent", "consolidate")
    builder.add_edge("consolidate", END)
    app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "th", "user_id": "bob"}}
    out = app.invoke({"messages": [HumanMessage("I work on Prax with Alice.")]}, config)
    assert [m.content for m in out["messages"]] == ["I work on Prax with Alice.", "Got it."]
    contents = [m.content for m in memory.list_memories("bob")]
    assert contents == ["User works on Prax with Alice."]
    consolidator = Consolidator(memory)
    assert consolidator.state("bob").sources[thread_key("th")].pointer == 2


def test_state_file_is_written_atomically_and_corruption_is_moved_aside(
    memory: PraxMemory, trace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    consolidator = Consolidator(memory)
    write_lines(trace, ["user: I prefer dark mode."])
    consolidator.run("alice", [], now=NOW)
    path = consolidator.state_path("alice")
    assert path == memory.config.users_dir / "alice" / "memory" / "consolidation_state.json"
    data = json.loads(path.read_text())
    assert {"sources", "last_decay_run", "trace_pending_lines", "trace_pending_bytes"} <= set(data)
    assert not list(path.parent.glob("*.tmp"))
    path.write_text("{not json")
    with caplog.at_level(logging.ERROR):
        state = StateFile(memory.config).load("alice")
    assert state.sources == {}
    assert list(path.parent.glob("consolidation_state.json.corrupt-*"))
    assert any("corrupt" in r.getMessage() for r in caplog.records)


def test_unsafe_user_ids_stay_inside_the_users_folder(memory: PraxMemory) -> None:
    path = Consolidator(memory).state_path("../../etc")
    assert memory.config.users_dir in path.parents
