"""The seed's "full pipeline" session through create_agent_with_memory, with a scripted model.

A data scientist at FinCorp tells the agent about their work and tools in one conversation;
in a second conversation (a new thread, so nothing comes from the checkpointer) the model's
prompt must carry the scratchpad and the recalled memories.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage

from langgraph_prax_memory import PraxMemory
from langgraph_prax_memory.agents import create_agent_with_memory
from tests.scripted import ScriptedChatModel, calls, tool_call

USER = "ds-fincorp"
ROLE = "User is a data scientist at FinCorp working on fraud detection with XGBoost."
POLARS = "User prefers polars over pandas for large datasets because of performance."


def _answer(text: str) -> AIMessage:
    return AIMessage(content=text)


def run_full_pipeline(memory: PraxMemory) -> tuple[ScriptedChatModel, dict[str, Any]]:
    """Two conversations; returns the model (with every prompt it saw) and the last state."""
    model = ScriptedChatModel(
        script=[
            calls(
                tool_call(
                    "memory_stm_write",
                    "c1",
                    key="user_role",
                    content="data scientist at FinCorp",
                    importance=0.8,
                ),
                tool_call(
                    "memory_stm_write",
                    "c2",
                    key="current_project",
                    content="fraud detection model using XGBoost",
                    importance=0.7,
                ),
                tool_call("memory_remember", "c3", content=ROLE, importance=0.8, tags="work"),
            ),
            _answer("Nice to meet you! Fraud detection with XGBoost, got it."),
            calls(
                tool_call(
                    "memory_remember", "c4", content=POLARS, importance=0.7, tags="preference"
                )
            ),
            _answer("Noted: polars for large datasets."),
            _answer("Since you use polars and XGBoost, start with lazy frames and ..."),
        ]
    )
    agent = create_agent_with_memory(model, [], memory)
    first = {"configurable": {"user_id": USER, "thread_id": "conversation-1"}}
    agent.invoke(
        {
            "messages": [
                (
                    "user",
                    "Hi! I'm a data scientist at FinCorp, building a fraud detection model "
                    "with XGBoost.",
                )
            ]
        },
        first,
    )
    agent.invoke(
        {
            "messages": [
                (
                    "user",
                    "By the way, I prefer polars over pandas for large datasets - it's faster.",
                )
            ]
        },
        first,
    )
    memory.flush()
    second = {"configurable": {"user_id": USER, "thread_id": "conversation-2"}}
    state = agent.invoke(
        {"messages": [("user", "Can you help me optimize my data pipeline?")]}, second
    )
    return model, state


def _system(prompt: list[BaseMessage]) -> str:
    assert isinstance(prompt[0], SystemMessage)
    return prompt[0].text


def test_full_pipeline_prompt_on_a_later_conversation(memory: PraxMemory) -> None:
    model, state = run_full_pipeline(memory)

    # Conversation 2's prompt: system block with scratchpad + memories, then only its own turn.
    last = model.received[-1]
    system = _system(last)
    # (ToolNode runs one turn's tool calls concurrently, so the two entries may come in
    # either order.)
    scratch = system.split("## Working Memory (Scratchpad)\n", 1)[1].split("\n\n", 1)[0]
    assert sorted(scratch.splitlines()) == [
        "- **current_project**: fraud detection model using XGBoost",
        "- **user_role**: data scientist at FinCorp",
    ]
    relevant = system.split("## Relevant Memories\n", 1)[1].splitlines()
    assert any(line.startswith("- [conversation, ") and line.endswith(ROLE) for line in relevant)
    assert any(line.endswith(POLARS) for line in relevant)
    assert [m.type for m in last[1:]] == ["human"]
    assert last[1].text == "Can you help me optimize my data pipeline?"

    # The block is prompt-only: the stored conversation has no system message.
    assert not any(isinstance(m, SystemMessage) for m in state["messages"])
    assert state["memory_context"].startswith("## Working Memory (Scratchpad)")
    assert system.endswith("\n\n" + state["memory_context"])
    assert state["messages"][-1].text.startswith("Since you use polars")


def test_context_is_refreshed_every_turn(memory: PraxMemory) -> None:
    model, _ = run_full_pipeline(memory)
    # Turn 1's first prompt: nothing is known yet.
    assert "## Working Memory" not in _system(model.received[0])
    assert "## Relevant Memories" not in _system(model.received[0])
    # Turn 2 (same conversation): the scratchpad written in turn 1 is already there.
    turn2 = model.received[2]
    assert "- **user_role**: data scientist at FinCorp" in _system(turn2)
    assert ROLE in _system(turn2)
    # ... and the checkpointer kept turn 1's messages in the thread.
    assert [m.type for m in turn2[1:]] == ["human", "ai", "tool", "tool", "tool", "ai", "human"]


def test_tools_ran_for_the_configured_user(memory: PraxMemory) -> None:
    model, _ = run_full_pipeline(memory)
    assert {m.content for m in memory.list_memories(USER)} == {ROLE, POLARS}
    assert sorted(e.key for e in memory.stm.all(USER)) == ["current_project", "user_role"]
    assert memory.count("someone-else") == 0
    assert "memory_remember" in model.bound_tools and "memory_recall" in model.bound_tools
    tool_msgs = [m for m in model.received[1] if isinstance(m, ToolMessage)]
    assert [m.status for m in tool_msgs] == ["success"] * 3


def test_the_agent_consolidates_every_fifth_turn(memory: PraxMemory) -> None:
    from langgraph_prax_memory.consolidation import ConsolidatingCheckpointer

    model = ScriptedChatModel(script=[_answer(f"Noted ({i}).") for i in range(6)])
    agent = create_agent_with_memory(
        model, [], memory, memory_tools="none", consolidate_inline=True
    )
    assert isinstance(agent.checkpointer, ConsolidatingCheckpointer)
    cfg = {"configurable": {"user_id": "dana", "thread_id": "t-1"}}
    said = [
        "I work at FinCorp as a data scientist.",
        "I prefer polars over pandas for large datasets.",
        "My manager is Priya Natarajan.",
        "We decided to use XGBoost for the fraud model.",
        "I live in Oslo.",
    ]
    for i, text in enumerate(said, 1):
        agent.invoke({"messages": [("user", text)]}, cfg)
        if i < 5:
            assert memory.count("dana") == 0, "nothing is consolidated before the 5th turn"
    result = agent.checkpointer.last_results["dana"]
    assert result.batches >= 1 and result.memories_created >= 1
    assert any("polars" in m.content for m in memory.list_memories("dana"))
