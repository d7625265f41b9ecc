"""The facade wires consolidation, knowledge and the tools together."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage

from langgraph_prax_memory import PraxMemory, create_memory_tools
from langgraph_prax_memory.consolidation import MessagesTraceSource


def test_consolidate_through_the_facade_and_the_tool(memory: PraxMemory) -> None:
    messages = [
        HumanMessage("I'm a data scientist at FinCorp and I prefer polars over pandas."),
        AIMessage("Noted: you prefer polars."),
    ]
    result = memory.consolidate("alice", MessagesTraceSource(messages, thread_id="t1"))
    assert result.batches == 1 and result.memories_failed == 0
    assert result.memories_created >= 1
    assert any("polars" in m.content for m in memory.list_memories("alice"))
    tool = create_memory_tools(memory, user_id="alice", include=["memory_consolidate"])[0]
    assert tool.invoke({}).startswith("Consolidation finished")
    state = memory.consolidator.state_path("alice")
    assert state.exists()
    assert memory.delete_user("alice")["consolidation_state"] == 1
    assert not state.exists() and memory.count("alice") == 0


def test_knowledge_is_separate_and_deleted_with_the_user(memory: PraxMemory) -> None:
    memory.remember("alice", "Alice met Bob at the conference")
    memory.knowledge.ingest_document(
        "alice", "# Attention\n\nTransformers use self-attention over tokens.", namespace="papers"
    )
    assert memory.knowledge.namespaces("alice")
    assert all("Transformer" not in h.memory.content for h in memory.recall("alice", "attention"))
    removed = memory.delete_user("alice")
    assert removed["memories"] == 1 and any(
        k.startswith("knowledge_") and v > 0 for k, v in removed.items()
    )
    assert memory.knowledge.namespaces("alice") == []


def test_knowledge_tools_join_the_memory_tools(memory: PraxMemory) -> None:
    names = [t.name for t in create_memory_tools(memory, user_id="alice", knowledge=True)]
    assert "memory_recall" in names and "knowledge_search" in names and "code_structure" in names
