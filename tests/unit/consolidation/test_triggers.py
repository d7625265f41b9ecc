"""Triggers on a real compiled LangGraph graph with a real checkpointer."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph

from langgraph_prax_memory import PraxMemory
from langgraph_prax_memory.consolidation import (
    ConsolidatingCheckpointer,
    Consolidator,
    consolidate_if_due,
    thread_key,
)

SAYINGS = [
    "I prefer dark mode in every editor.",
    "I work on Prax with Alice.",
    "I always write tests first.",
    "I love sourdough baking on weekends.",
    "I decided to use Rust for the CLI.",
    "I prefer short answers.",
]


def agent(state: MessagesState) -> dict[str, Any]:
    last = state["messages"][-1]
    if isinstance(last, HumanMessage) and "tool" in str(last.content):
        return {
            "messages": [AIMessage("", tool_calls=[{"name": "lookup", "args": {}, "id": "c1"}])]
        }
    return {"messages": [AIMessage(f"Noted: {last.content}")]}


def tool(state: MessagesState) -> dict[str, Any]:
    from langchain_core.messages import ToolMessage

    return {"messages": [ToolMessage("looked it up", tool_call_id="c1")]}


def route(state: MessagesState) -> str:
    last = state["messages"][-1]
    return "tool" if isinstance(last, AIMessage) and last.tool_calls else END


def build(checkpointer: Any, extra: Any = None) -> Any:
    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tool", tool)
    builder.add_edge(START, "agent")
    if extra is None:
        builder.add_conditional_edges("agent", route, ["tool", END])
    else:
        builder.add_node("consolidate", extra)
        builder.add_conditional_edges(
            "agent",
            lambda s: route(s) if route(s) == "tool" else "consolidate",
            ["tool", "consolidate"],
        )
        builder.add_edge("consolidate", END)
    builder.add_edge("tool", "agent")
    return builder.compile(checkpointer=checkpointer)


def user_facts(memory: PraxMemory, user: str) -> list[str]:
    return sorted(m.content for m in memory.list_memories(user) if m.source == "consolidation")


def test_checkpointer_fires_on_the_fifth_completed_turn(memory: PraxMemory) -> None:
    saver = ConsolidatingCheckpointer(InMemorySaver(), memory, every_n_turns=5, inline=True)
    graph = build(saver)
    config = {"configurable": {"thread_id": "t1", "user_id": "alice"}}
    for i, text in enumerate(SAYINGS[:4]):
        graph.invoke({"messages": [HumanMessage(text)]}, config)
        assert saver.turns("alice") == i + 1
    assert user_facts(memory, "alice") == []
    assert not saver.consolidator.state_path("alice").exists()

    graph.invoke({"messages": [HumanMessage("please use a tool for this")]}, config)  # tool loop
    assert saver.turns("alice") == 0
    result = saver.last_results["alice"]
    assert result.batches == 1 and result.skipped is None
    facts = user_facts(memory, "alice")
    assert "User works on Prax with Alice." in facts
    assert "User decided to use Rust for the CLI." not in facts
    # pointer = messages consolidated so far (5 user + 5 AI + tool call + tool result + answer)
    state = saver.consolidator.state("alice").sources[thread_key("t1")]
    assert state.pointer == len(graph.get_state(config).values["messages"])
    created = [m.created_at for m in memory.list_memories("alice")]
    assert all(abs((c - datetime.now(UTC)).total_seconds()) < 120 for c in created)

    for text in SAYINGS[4:]:
        graph.invoke({"messages": [HumanMessage(text)]}, config)
    assert saver.turns("alice") == 2
    assert "User decided to use Rust for the CLI." not in user_facts(memory, "alice")


def test_turns_are_counted_per_user(memory: PraxMemory) -> None:
    saver = ConsolidatingCheckpointer(InMemorySaver(), memory, every_n_turns=3, inline=True)
    graph = build(saver)
    for i in range(3):
        graph.invoke(
            {"messages": [HumanMessage(f"I prefer alice option {i}.")]},
            {"configurable": {"thread_id": "a", "user_id": "alice"}},
        )
        if i < 2:
            graph.invoke(
                {"messages": [HumanMessage(f"I prefer bob option {i}.")]},
                {"configurable": {"thread_id": "b", "user_id": "bob"}},
            )
    assert "alice" in saver.last_results and "bob" not in saver.last_results
    assert saver.turns("bob") == 2
    assert all("alice" in f for f in user_facts(memory, "alice"))
    assert user_facts(memory, "bob") == []


def test_background_mode_does_not_block_and_flushes(memory: PraxMemory) -> None:
    saver = ConsolidatingCheckpointer(InMemorySaver(), memory, every_n_turns=2)
    graph = build(saver)
    config = {"configurable": {"thread_id": "t", "user_id": "carol"}}
    for text in SAYINGS[:2]:
        graph.invoke({"messages": [HumanMessage(text)]}, config)
    saver.flush(timeout=60)
    assert "User prefers dark mode in every editor." in user_facts(memory, "carol")
    saver.close()


async def test_async_graph_with_the_wrapper(memory: PraxMemory) -> None:
    saver = ConsolidatingCheckpointer(InMemorySaver(), memory, every_n_turns=2, inline=True)
    graph = build(saver)
    config = {"configurable": {"thread_id": "t", "user_id": "dora"}}
    for text in SAYINGS[:2]:
        await graph.ainvoke({"messages": [HumanMessage(text)]}, config)
    assert "User works on Prax with Alice." in user_facts(memory, "dora")


def test_manual_run_finds_the_users_threads_through_stamped_metadata(memory: PraxMemory) -> None:
    saver = ConsolidatingCheckpointer(InMemorySaver(), memory, every_n_turns=50, inline=True)
    graph = build(saver)
    graph.invoke(
        {"messages": [HumanMessage(SAYINGS[0])]},
        {"configurable": {"thread_id": "x", "user_id": "erin"}},
    )
    graph.invoke(
        {"messages": [HumanMessage(SAYINGS[1])]},
        {"configurable": {"thread_id": "y", "user_id": "erin"}},
    )
    graph.invoke(
        {"messages": [HumanMessage(SAYINGS[2])]},
        {"configurable": {"thread_id": "z", "user_id": "finn"}},
    )
    result = saver.consolidator.run("erin")
    assert sorted(result.sources) == [thread_key("x"), thread_key("y")]
    assert len(user_facts(memory, "erin")) == 2
    assert user_facts(memory, "finn") == []


def test_consolidate_if_due_node_fires_on_the_fifth_user_turn(memory: PraxMemory) -> None:
    consolidator = Consolidator(memory)
    graph = build(InMemorySaver(), consolidate_if_due(consolidator, every_n_turns=5))
    config = {"configurable": {"thread_id": "n1", "user_id": "gina"}}
    for text in SAYINGS[:4]:
        graph.invoke({"messages": [HumanMessage(text)]}, config)
    assert user_facts(memory, "gina") == []
    graph.invoke({"messages": [HumanMessage(SAYINGS[4])]}, config)
    assert "User decided to use Rust for the CLI." in user_facts(memory, "gina")
    state = consolidator.state("gina").sources[thread_key("n1")]
    assert state.pointer == 10
    graph.invoke({"messages": [HumanMessage(SAYINGS[5])]}, config)
    assert "User prefers short answers." not in user_facts(memory, "gina")  # 1 of 5


def test_wrapper_delegates_to_the_wrapped_saver(memory: PraxMemory) -> None:
    inner = InMemorySaver()
    saver = ConsolidatingCheckpointer(inner, memory, every_n_turns=100)
    graph = build(saver)
    config = {"configurable": {"thread_id": "d1", "user_id": "hal"}}
    graph.invoke({"messages": [HumanMessage("hello")]}, config)
    assert saver.get_tuple(config) == inner.get_tuple(config)
    assert next(t.metadata.get("user_id") for t in saver.list(config)) == "hal"
    saver.delete_thread("d1")
    assert inner.get_tuple(config) is None
