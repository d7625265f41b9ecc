"""Behaviour of the memory tools: users, STM / LTM / graph / notes, degradation, ToolNode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from langgraph_prax_memory import BackendUnavailable, MemoryConfig, PraxMemory
from langgraph_prax_memory.tools import (
    LTM_TOOL_NAMES,
    MEMORY_TOOL_NAMES,
    NOT_AVAILABLE,
    STM_TOOL_NAMES,
    TOOL_NAMES,
    MissingUserIdError,
    create_memory_tool_node,
    create_memory_tools,
    resolve_user_id,
)

_CALL_ID = 0


def _tools(memory: PraxMemory, **kwargs: Any) -> dict[str, BaseTool]:
    return {t.name: t for t in create_memory_tools(memory, **kwargs)}


def _call(tool: BaseTool, args: dict[str, Any], user_id: str | None = "alice") -> ToolMessage:
    """Invoke with a ToolCall (as a ToolNode does) and the LangGraph user id in config."""
    global _CALL_ID
    _CALL_ID += 1
    config = {"configurable": {"user_id": user_id}} if user_id else {}
    msg = tool.invoke(
        {"type": "tool_call", "name": tool.name, "args": args, "id": f"c{_CALL_ID}"},
        config=config,
    )
    assert isinstance(msg, ToolMessage)
    return msg


def _run_node(node: ToolNode, ai: AIMessage, user_id: str | None) -> list[Any]:
    """Run a ToolNode the way an agent does: as a node of a compiled graph."""
    builder = StateGraph(MessagesState)
    builder.add_node("tools", node)
    builder.add_edge(START, "tools")
    builder.add_edge("tools", END)
    config = {"configurable": {"user_id": user_id}} if user_id else {}
    out = builder.compile().invoke({"messages": [ai]}, config=config)
    return list(out["messages"][1:])


def test_the_seed_tool_names_in_order(memory: PraxMemory) -> None:
    assert MEMORY_TOOL_NAMES == (
        "memory_stm_write",
        "memory_stm_read",
        "memory_stm_delete",
        "memory_remember",
        "memory_recall",
        "memory_forget",
        "memory_entity_lookup",
        "memory_graph_query",
        "memory_consolidate",
        "memory_stats",
    )
    assert [t.name for t in create_memory_tools(memory)] == list(TOOL_NAMES)
    assert TOOL_NAMES[-2:] == ("user_notes_read", "user_notes_update")
    for tool in create_memory_tools(memory):
        assert tool.response_format == "content_and_artifact"
        assert tool.description


def test_include_selects_and_rejects_unknown(memory: PraxMemory) -> None:
    assert [t.name for t in create_memory_tools(memory, include=STM_TOOL_NAMES)] == list(
        STM_TOOL_NAMES
    )
    with pytest.raises(ValueError, match="memory_teleport"):
        create_memory_tools(memory, include=["memory_teleport"])


# ----------------------------------------------------------------- whose memory


def test_user_id_comes_from_langgraph_config(memory: PraxMemory) -> None:
    tools = _tools(memory)
    _call(tools["memory_remember"], {"content": "Alice drinks green tea"}, user_id="alice")
    assert memory.count("alice") == 1
    assert memory.count("bob") == 0


def test_bound_user_id_is_used_without_config(memory: PraxMemory) -> None:
    tools = _tools(memory, user_id="carol")
    _call(tools["memory_stm_write"], {"key": "k", "content": "v"}, user_id=None)
    assert memory.stm.get("carol", "k") is not None


def test_no_user_is_a_clear_error_never_a_default_user(memory: PraxMemory) -> None:
    tool = _tools(memory)["memory_recall"]
    with pytest.raises(MissingUserIdError, match=r"configurable.*user_id.*no shared default"):
        _call(tool, {"query": "anything"}, user_id=None)
    with pytest.raises(MissingUserIdError):
        tool.invoke({"query": "anything"})


def test_bound_and_config_users_must_agree(memory: PraxMemory) -> None:
    tool = _tools(memory, user_id="alice")["memory_stm_read"]
    with pytest.raises(MissingUserIdError, match="refusing to mix"):
        _call(tool, {}, user_id="mallory")
    assert resolve_user_id({"configurable": {"user_id": "alice"}}, "alice", tool="t") == "alice"


def test_blank_bound_user_rejected(memory: PraxMemory) -> None:
    with pytest.raises(MissingUserIdError):
        create_memory_tools(memory, user_id="  ")


def test_tools_never_cross_users(memory: PraxMemory) -> None:
    tools = _tools(memory)
    _call(tools["memory_remember"], {"content": "Alice's bank PIN hint is a cat"}, "alice")
    msg = _call(tools["memory_recall"], {"query": "bank PIN hint cat"}, "bob")
    assert msg.artifact["hits"] == []
    assert "No memories found" in msg.content


# ------------------------------------------------------------------------- STM


def test_stm_write_read_delete_round_trip(memory: PraxMemory) -> None:
    tools = _tools(memory)
    msg = _call(
        tools["memory_stm_write"],
        {
            "key": "user_role",
            "content": "data scientist at FinCorp",
            "importance": 0.8,
            "tags": "work,role",
        },
    )
    assert msg.content == "Saved scratchpad entry 'user_role'."
    assert msg.artifact["entry"]["tags"] == ["work", "role"]
    again = _call(tools["memory_stm_write"], {"key": "user_role", "content": "lead DS"})
    assert again.content.startswith("Updated") and again.artifact["entry"]["access_count"] == 1

    one = _call(tools["memory_stm_read"], {"key": "user_role"})
    assert one.content == "- **user_role** (importance 0.8, tags: work, role): lead DS"
    every = _call(tools["memory_stm_read"], {})
    assert every.content.startswith("1 scratchpad entry:")
    assert [e["key"] for e in every.artifact["entries"]] == ["user_role"]

    assert _call(tools["memory_stm_delete"], {"key": "user_role"}).artifact["deleted"] is True
    gone = _call(tools["memory_stm_delete"], {"key": "user_role"})
    assert gone.content == "No scratchpad entry 'user_role'." and gone.artifact["deleted"] is False
    assert _call(tools["memory_stm_read"], {}).content == "The scratchpad is empty."
    assert _call(tools["memory_stm_read"], {"key": "nope"}).artifact == {
        "user_id": "alice",
        "entry": None,
    }


def test_bad_input_goes_back_to_the_model_as_an_error(memory: PraxMemory) -> None:
    tools = _tools(memory)
    msg = _call(tools["memory_stm_write"], {"key": "k", "content": "   "})
    assert msg.status == "error"
    assert "must not be empty" in msg.content
    msg = _call(tools["memory_remember"], {"content": ""})
    assert msg.status == "error" and "empty" in msg.content
    assert memory.count("alice") == 0


# ------------------------------------------------------------------------- LTM


def test_remember_recall_forget(memory: PraxMemory) -> None:
    tools = _tools(memory)
    stored = _call(
        tools["memory_remember"],
        {
            "content": "User prefers polars over pandas for large datasets",
            "importance": 0.8,
            "tags": ["preference", "tools"],
        },
    )
    memory_id = stored.artifact["memory_id"]
    assert stored.content == f"Remembered (id {memory_id}, importance 0.8)."
    _call(tools["memory_remember"], {"content": "User mentioned having coffee", "importance": 0.2})

    recalled = _call(tools["memory_recall"], {"query": "polars or pandas for datasets?", "k": 2})
    first = recalled.artifact["hits"][0]
    assert first["id"] == memory_id
    assert first["content"].startswith("User prefers polars")
    assert first["tags"] == ["preference", "tools"]
    assert "dense" in first["ranks"] and "score" in first["explanation"]
    assert set(recalled.artifact) >= {"query", "hits", "arms", "errors", "weights", "user_id"}
    assert recalled.content.splitlines()[0] == "2 memories for 'polars or pandas for datasets?':"
    assert f"id {memory_id}" in recalled.content

    forgot = _call(tools["memory_forget"], {"memory_id": memory_id})
    assert forgot.content == f"Forgot memory {memory_id}." and forgot.artifact["deleted"]
    again = _call(tools["memory_forget"], {"memory_id": memory_id})
    assert again.content == f"No memory with id {memory_id}."
    assert memory.get("alice", memory_id) is None


def test_forget_cannot_delete_another_users_memory(memory: PraxMemory) -> None:
    tools = _tools(memory)
    mid = _call(tools["memory_remember"], {"content": "Alice likes jazz"}, "alice").artifact[
        "memory_id"
    ]
    assert _call(tools["memory_forget"], {"memory_id": mid}, "bob").artifact["deleted"] is False
    assert memory.get("alice", mid) is not None


# ----------------------------------------------------------------------- graph


def test_entity_lookup_gives_relations_and_events(memory: PraxMemory) -> None:
    g = memory.graph
    g.merge_entity("alice", "Project Alpha", entity_type="project", importance=0.7)
    g.add_relation("alice", "Project Alpha", "Rust", "related_to", evidence="uses Rust")
    g.add_relation("alice", "Bob", "Project Alpha", "works_on")
    g.merge_temporal_event("alice", "Project Alpha kickoff", participants=["Project Alpha"])
    msg = _call(_tools(memory)["memory_entity_lookup"], {"name": "project alpha"})
    lines = msg.content.splitlines()
    assert lines[0].startswith("Project Alpha (project; importance 0.70; mentioned")
    assert any(line.startswith("- project alpha —related_to→ rust") for line in lines)
    assert any(line.startswith("- bob —works_on→ project alpha") for line in lines)
    assert any("Project Alpha kickoff" in line for line in lines)
    assert msg.artifact["entity"]["display_name"] == "Project Alpha"
    assert len(msg.artifact["relations"]) == 2


def test_entity_lookup_suggests_similar_names(memory: PraxMemory) -> None:
    memory.graph.merge_entity("alice", "Project Alpha")
    msg = _call(_tools(memory)["memory_entity_lookup"], {"name": "Alpha"})
    assert msg.content == "No entity named 'Alpha'. Similar: Project Alpha."
    nothing = _call(_tools(memory)["memory_entity_lookup"], {"name": "Zeppelin"})
    assert nothing.content == "No entity named 'Zeppelin' in memory."
    assert nothing.artifact["suggestions"] == []


def test_graph_query_answers_how_things_connect(memory: PraxMemory) -> None:
    g = memory.graph
    g.add_relation("alice", "research project", "quantum computing", "related_to")
    g.add_relation("alice", "Alice", "research project", "works_on")
    g.add_relation("alice", "Alice", "cryptography", "interested_in")
    g.add_relation("alice", "quantum computing", "cryptography", "related_to")
    msg = _call(
        _tools(memory)["memory_graph_query"],
        {"question": "How are quantum computing and my research project connected?"},
    )
    text = msg.content
    assert text.startswith("Entities: quantum computing (concept), research project (concept)")
    assert "Direct connections:\n- research project —related_to→ quantum computing" in text
    assert "alice —works_on→ research project" in text
    assert [e["name"] for e in msg.artifact["entities"]] == [
        "quantum computing",
        "research project",
    ]
    assert msg.artifact["bridges"] == []  # linked directly, not through a neighbour


def test_graph_query_bridges_through_a_shared_neighbour(memory: PraxMemory) -> None:
    g = memory.graph
    g.add_relation("alice", "Alice", "Rust", "prefers")
    g.add_relation("alice", "Alice", "NixOS", "prefers")
    msg = _call(_tools(memory)["memory_graph_query"], {"question": "Rust and NixOS?"})
    assert msg.artifact["bridges"] == [["rust", "alice", "nixos"]]
    assert "rust ↔ alice ↔ nixos" in msg.content


def test_graph_query_with_no_match_says_so(memory: PraxMemory) -> None:
    msg = _call(_tools(memory)["memory_graph_query"], {"question": "What about zeppelins?"})
    assert msg.content.startswith("No matching entities in the memory graph")
    assert "zeppelins" in msg.content and msg.artifact["entities"] == []


def test_graph_is_per_user(memory: PraxMemory) -> None:
    memory.graph.add_relation("alice", "Alice", "Rust", "prefers")
    msg = _call(_tools(memory)["memory_entity_lookup"], {"name": "Rust"}, "bob")
    assert msg.artifact["entity"] is None


# ----------------------------------------------------------------- maintenance


def test_consolidate_runs_the_pipeline_of_the_memory(memory: PraxMemory) -> None:
    msg = _call(_tools(memory)["memory_consolidate"], {})
    assert msg.content.startswith("Consolidation finished: batches 0")
    assert msg.artifact["status"] == "ok"


def test_consolidate_without_a_consolidator_says_not_configured(
    memory: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memory, "consolidate", None, raising=False)
    msg = _call(_tools(memory)["memory_consolidate"], {})
    assert msg.content == "Consolidation is not configured for this memory; nothing was run."
    assert msg.artifact["status"] == "not_configured"


def test_consolidate_calls_the_memory_hook(
    memory: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def consolidate(user_id: str) -> dict[str, int]:
        calls.append(user_id)
        return {"batches": 2, "memories_created": 3}

    monkeypatch.setattr(memory, "consolidate", consolidate, raising=False)
    msg = _call(_tools(memory)["memory_consolidate"], {})
    assert calls == ["alice"]
    assert msg.content == "Consolidation finished: batches 2, memories created 3."
    assert msg.artifact["result"] == {"batches": 2, "memories_created": 3}


def test_stats_counts_every_layer(memory: PraxMemory) -> None:
    tools = _tools(memory)
    _call(tools["memory_stm_write"], {"key": "a", "content": "x"})
    _call(tools["memory_remember"], {"content": "Alice likes jazz"})
    memory.graph.add_relation("alice", "Alice", "jazz", "interested_in")
    msg = _call(tools["memory_stats"], {})
    assert msg.content == (
        "alice: STM 1 entries; notes 0 lines; LTM 1 memories; graph 2 entities, "
        "1 current relations (1 total), 0 events, 0 causal links; hygiene: 0 duplicates, "
        "0 junk candidates, 0 superseded, 1 never recalled (1 scanned)"
    )
    assert msg.artifact["stats"]["memories"] == 1


# ----------------------------------------------------------------------- notes


def test_notes_update_and_read(memory: PraxMemory) -> None:
    tools = _tools(memory)
    assert _call(tools["user_notes_read"], {}).content == "The user notes are empty."
    msg = _call(
        tools["user_notes_update"], {"content": "name: Alice\ntimezone: UTC\ntimezone: CET\n"}
    )
    assert msg.content.startswith("Updated the user notes. Compacted (duplicate_scalar)")
    assert msg.artifact["raw_commit"] and msg.artifact["compaction_commit"]
    read = _call(tools["user_notes_read"], {})
    assert read.content == "name: Alice\ntimezone: CET\n"


# ----------------------------------------------------------------- degradation


def test_ltm_disabled_ltm_tools_unavailable_stm_works(tmp_path: Path) -> None:
    mem = PraxMemory(MemoryConfig(enabled=False, data_dir=tmp_path / "off"))
    try:
        tools = _tools(mem)
        for name, args in (
            ("memory_remember", {"content": "x"}),
            ("memory_recall", {"query": "x"}),
            ("memory_forget", {"memory_id": "x"}),
            ("memory_entity_lookup", {"name": "x"}),
            ("memory_graph_query", {"question": "x"}),
            ("memory_consolidate", {}),
        ):
            msg = _call(tools[name], args)
            assert msg.content == NOT_AVAILABLE, name
            assert msg.artifact["status"] == "unavailable"
        assert set(LTM_TOOL_NAMES) == {
            "memory_remember",
            "memory_recall",
            "memory_forget",
            "memory_entity_lookup",
            "memory_graph_query",
            "memory_consolidate",
        }
        assert _call(tools["memory_stm_write"], {"key": "k", "content": "v"}).status == "success"
        assert "**k**" in _call(tools["memory_stm_read"], {}).content
        stats = _call(tools["memory_stats"], {})
        assert stats.content == "alice: STM 1 entries; notes 0 lines; LTM not available"
    finally:
        mem.close()


def test_backend_outage_is_reported_not_raised(
    memory: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(*args: Any, **kwargs: Any) -> Any:
        raise BackendUnavailable("qdrant at http://qdrant:6333 is unreachable")

    monkeypatch.setattr(memory, "recall_detailed", down)
    monkeypatch.setattr(memory, "remember", down)
    tools = _tools(memory)
    msg = _call(tools["memory_recall"], {"query": "x"})
    assert msg.content == (
        "Memory system not available: qdrant at http://qdrant:6333 is unreachable"
    )
    assert msg.artifact["status"] == "unavailable"
    assert _call(tools["memory_remember"], {"content": "x"}).artifact["status"] == "unavailable"
    assert _call(tools["memory_stm_write"], {"key": "k", "content": "v"}).status == "success"


# --------------------------------------------------------------- async + node


async def test_ainvoke_uses_the_config_user(memory: PraxMemory) -> None:
    tool = _tools(memory)["memory_stm_write"]
    msg = await tool.ainvoke(
        {"type": "tool_call", "name": tool.name, "args": {"key": "k", "content": "v"}, "id": "1"},
        config={"configurable": {"user_id": "dave"}},
    )
    assert isinstance(msg, ToolMessage) and msg.artifact["user_id"] == "dave"
    assert memory.stm.get("dave", "k") is not None
    with pytest.raises(MissingUserIdError):
        await tool.ainvoke({"key": "k", "content": "v"})


def test_tool_node_runs_calls_for_the_configured_user(memory: PraxMemory) -> None:
    node = create_memory_tool_node(memory)
    ai = AIMessage(
        content="",
        tool_calls=[
            {"name": "memory_stm_write", "args": {"key": "k", "content": "v"}, "id": "1"},
            {"name": "memory_remember", "args": {"content": "Eve likes tea"}, "id": "2"},
        ],
    )
    msgs = _run_node(node, ai, "eve")
    assert [m.tool_call_id for m in msgs] == ["1", "2"]
    assert all(m.status == "success" for m in msgs)
    assert memory.count("eve") == 1 and memory.stm.get("eve", "k") is not None


def test_tool_node_without_user_fails_loudly(memory: PraxMemory) -> None:
    node = create_memory_tool_node(memory)
    ai = AIMessage(content="", tool_calls=[{"name": "memory_stm_read", "args": {}, "id": "1"}])
    with pytest.raises(MissingUserIdError):
        _run_node(node, ai, None)


def test_tool_node_reports_schema_errors_to_the_model(memory: PraxMemory) -> None:
    node = create_memory_tool_node(memory, include=["memory_remember"])
    ai = AIMessage(
        content="",
        tool_calls=[
            {"name": "memory_remember", "args": {"content": "x", "importance": 3}, "id": "1"}
        ],
    )
    msgs = _run_node(node, ai, "eve")
    assert msgs[0].status == "error"
    assert "importance" in msgs[0].content
    assert memory.count("eve") == 0
