"""The memory spoke, delegate_memory, create_agent_with_memory wiring and model routing."""

from __future__ import annotations

import logging
import sys
import types
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langgraph.checkpoint.memory import InMemorySaver

from langgraph_prax_memory import ConfigError, PraxMemory, PraxMemoryError, PraxMemoryStore
from langgraph_prax_memory.agents import (
    MEMORY_AGENT_PROMPT,
    ModelRoute,
    ModelRouting,
    create_agent_with_memory,
    create_delegate_memory_tool,
    create_memory_agent,
    resolve_chat_model,
)
from langgraph_prax_memory.tools import TOOL_NAMES
from tests.scripted import ScriptedChatModel, calls, tool_call

CFG: RunnableConfig = {"configurable": {"user_id": "alice", "thread_id": "t1"}}


def test_memory_agent_prompt_teaches_layers_importance_and_patterns() -> None:
    for needle in (
        "Scratchpad",
        "Long-term memory",
        "graph",
        "0.8-1.0 critical",
        "0.4-0.7 useful",
        "0.1-0.3 minor",
        'memory_recall("X") and memory_entity_lookup("X")',
        "Memory system not available",
    ):
        assert needle in MEMORY_AGENT_PROMPT


def test_memory_spoke_runs_its_tools(memory: PraxMemory) -> None:
    model = ScriptedChatModel(
        script=[
            calls(
                tool_call(
                    "memory_remember",
                    "1",
                    content="User prefers dark mode in all tools",
                    importance=0.8,
                    tags="preference,ui",
                )
            ),
            AIMessage("Stored: dark mode preference (importance 0.8)."),
        ]
    )
    spoke = create_memory_agent(model, memory)
    out = spoke.invoke({"messages": [("user", "Remember that I prefer dark mode")]}, CFG)
    assert model.bound_tools == list(TOOL_NAMES)
    assert isinstance(model.received[0][0], SystemMessage)
    assert model.received[0][0].text == MEMORY_AGENT_PROMPT
    assert out["messages"][-1].text.startswith("Stored")
    [stored] = memory.list_memories("alice")
    assert stored.tags == ["preference", "ui"] and stored.importance == 0.8


def test_delegate_memory_hands_the_task_to_the_spoke(memory: PraxMemory) -> None:
    spoke_model = ScriptedChatModel(
        script=[
            calls(tool_call("memory_recall", "r1", query="Project Alpha")),
            calls(tool_call("memory_entity_lookup", "r2", name="Project Alpha")),
            AIMessage("Project Alpha uses Rust; Bob works on it."),
        ]
    )
    memory.remember("alice", "Project Alpha is written in Rust", importance=0.7)
    memory.graph.add_relation("alice", "Bob", "Project Alpha", "works_on")
    tool = create_delegate_memory_tool(create_memory_agent(spoke_model, memory))
    msg = tool.invoke(
        {
            "type": "tool_call",
            "name": "delegate_memory",
            "args": {"task": "What do we know about Project Alpha?"},
            "id": "d1",
        },
        config=CFG,
    )
    assert isinstance(msg, ToolMessage)
    assert msg.content == "Project Alpha uses Rust; Bob works on it."
    assert [c["name"] for c in msg.artifact["tool_calls"]] == [
        "memory_recall",
        "memory_entity_lookup",
    ]
    recall_result = next(m for m in spoke_model.received[1] if isinstance(m, ToolMessage))
    assert "Project Alpha is written in Rust" in recall_result.text
    lookup = [m for m in spoke_model.received[2] if isinstance(m, ToolMessage)][-1]
    assert "bob —works_on→ project alpha" in lookup.text


async def test_delegate_memory_async(memory: PraxMemory) -> None:
    spoke_model = ScriptedChatModel(
        script=[calls(tool_call("memory_stats", "s")), AIMessage("1 memory stored.")]
    )
    tool = create_delegate_memory_tool(create_memory_agent(spoke_model, memory))
    text = await tool.ainvoke({"task": "how much do you know?"}, config=CFG)
    assert text == "1 memory stored."


def test_agent_in_delegate_mode_uses_the_routed_spoke_model(memory: PraxMemory) -> None:
    main = ScriptedChatModel(
        script=[
            calls(tool_call("delegate_memory", "d", task="Remember the user prefers polars")),
            AIMessage("Got it."),
        ]
    )
    spoke = ScriptedChatModel(
        script=[
            calls(tool_call("memory_remember", "m", content="User prefers polars", importance=0.7)),
            AIMessage("Remembered."),
        ]
    )
    agent = create_agent_with_memory(
        main,
        [],
        memory,
        memory_tools="delegate",
        routing=ModelRouting(memory_agent=spoke),
    )
    out = agent.invoke({"messages": [("user", "I prefer polars")]}, CFG)
    assert main.bound_tools == ["delegate_memory"]
    assert "delegate_memory(task)" in main.received[0][0].text
    assert spoke.received[0][0].text == MEMORY_AGENT_PROMPT
    assert [m.content for m in memory.list_memories("alice")] == ["User prefers polars"]
    assert out["messages"][-1].text == "Got it."


def test_agent_tools_are_combined_and_none_mode_binds_only_own_tools(memory: PraxMemory) -> None:
    from langchain_core.tools import tool

    @tool
    def weather(city: str) -> str:
        """Weather in a city."""
        return f"sunny in {city}"

    model = ScriptedChatModel(script=[AIMessage("hi")])
    create_agent_with_memory(model, [weather], memory).invoke({"messages": [("user", "x")]}, CFG)
    assert model.bound_tools == ["weather", *TOOL_NAMES]

    bare = ScriptedChatModel(script=[AIMessage("hi")])
    create_agent_with_memory(bare, [weather], memory, memory_tools="none").invoke(
        {"messages": [("user", "x")]}, CFG
    )
    assert bare.bound_tools == ["weather"]
    with pytest.raises(ValueError, match="memory_tools"):
        create_agent_with_memory(bare, [], memory, memory_tools="sometimes")  # type: ignore[arg-type]


def test_agent_wires_the_prax_store_and_checkpointer(memory: PraxMemory) -> None:
    from langgraph_prax_memory.consolidation import ConsolidatingCheckpointer

    saver = InMemorySaver()
    agent = create_agent_with_memory(ScriptedChatModel(), [], memory, checkpointer=saver)
    assert isinstance(agent.checkpointer, ConsolidatingCheckpointer)
    assert agent.checkpointer.saver is saver and agent.checkpointer.every_n_turns == 5
    assert isinstance(agent.store, PraxMemoryStore) and agent.store.memory is memory
    default = create_agent_with_memory(ScriptedChatModel(), [], memory)
    assert isinstance(default.checkpointer, ConsolidatingCheckpointer)
    assert isinstance(default.checkpointer.saver, InMemorySaver)
    plain = create_agent_with_memory(
        ScriptedChatModel(), [], memory, checkpointer=saver, consolidate_every=None
    )
    assert plain.checkpointer is saver
    assert (
        create_agent_with_memory(ScriptedChatModel(), [], memory, checkpointer=False).checkpointer
        is None
    )


def test_agent_without_a_user_fails_loudly(memory: PraxMemory) -> None:
    agent = create_agent_with_memory(ScriptedChatModel(script=[AIMessage("x")]), [], memory)
    with pytest.raises(PraxMemoryError):
        agent.invoke({"messages": [("user", "hello")]}, {"configurable": {"thread_id": "t"}})


def test_bound_user_needs_no_config_user(memory: PraxMemory) -> None:
    memory.stm.write("bob", "goal", "ship it")
    model = ScriptedChatModel(script=[AIMessage("ok")])
    agent = create_agent_with_memory(model, [], memory, user_id="bob", checkpointer=False)
    agent.invoke({"messages": [("user", "what is my goal?")]})
    assert "- **goal**: ship it" in model.received[0][0].text


def test_consolidation_trigger_runs_after_each_turn(memory: PraxMemory) -> None:
    seen: list[tuple[int, str]] = []

    def trigger(state: dict[str, Any], config: RunnableConfig) -> None:
        seen.append((len(state["messages"]), config["configurable"]["user_id"]))

    model = ScriptedChatModel(script=[AIMessage("one"), AIMessage("two")])
    agent = create_agent_with_memory(model, [], memory, consolidation_trigger=trigger)
    agent.invoke({"messages": [("user", "a")]}, CFG)
    agent.invoke({"messages": [("user", "b")]}, CFG)
    assert seen == [(2, "alice"), (4, "alice")]


def test_consolidation_trigger_accepts_runnables_and_single_arg_callables(
    memory: PraxMemory,
) -> None:
    seen: list[str] = []
    lam = RunnableLambda(lambda state: seen.append("runnable"))
    model = ScriptedChatModel(script=[AIMessage("one"), AIMessage("two")])
    create_agent_with_memory(model, [], memory, consolidation_trigger=lam).invoke(
        {"messages": [("user", "a")]}, CFG
    )
    create_agent_with_memory(
        model, [], memory, consolidation_trigger=lambda state: seen.append("plain")
    ).invoke({"messages": [("user", "a")]}, CFG)
    assert seen == ["runnable", "plain"]


def test_failing_consolidation_trigger_never_fails_the_turn(
    memory: PraxMemory, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(state: dict[str, Any]) -> None:
        raise RuntimeError("extractor model is down")

    model = ScriptedChatModel(script=[AIMessage("answer")])
    agent = create_agent_with_memory(model, [], memory, consolidation_trigger=broken)
    with caplog.at_level(logging.ERROR):
        out = agent.invoke({"messages": [("user", "a")]}, CFG)
    assert out["messages"][-1].text == "answer"
    assert "consolidation trigger failed" in caplog.text


# ---------------------------------------------------------------------- routing


def test_routing_defaults_are_the_seeds() -> None:
    routing = ModelRouting()
    assert routing.memory_agent == ModelRoute(temperature=0.3)
    assert routing.consolidation.temperature == 0.2
    assert routing.stm_compaction.temperature == 0.2
    assert routing.rerank.temperature == 0.0
    assert routing.query_expansion.temperature == 0.5
    assert all(routing.for_component(c).model is None for c in ("query_expansion", "rerank"))
    assert routing.resolve("rerank") is None


def test_routing_instance_is_used_as_given_and_default_applies() -> None:
    spoke, main = ScriptedChatModel(), ScriptedChatModel()
    routing = ModelRouting(memory_agent=spoke)
    assert routing.memory_agent.temperature == 0.3
    assert routing.resolve("memory_agent", default=main) is spoke
    assert ModelRouting().resolve("consolidation", default=main) is main
    custom = ModelRouting(consolidation=ModelRoute(model="openai:gpt-4o-mini", temperature=0.1))
    assert custom.consolidation.temperature == 0.1
    with pytest.raises(ConfigError, match="unknown component"):
        routing.for_component("summariser")  # type: ignore[arg-type]


def test_routing_strings_go_through_init_chat_model(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[str, dict[str, Any]]] = []

    def init_chat_model(model: str, **kwargs: Any) -> ScriptedChatModel:
        made.append((model, kwargs))
        return ScriptedChatModel()

    fake = types.ModuleType("langchain.chat_models")
    fake.init_chat_model = init_chat_model  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "langchain.chat_models", fake)
    routing = ModelRouting(memory_agent="openai:gpt-4o-mini", consolidation="ollama:llama3.1")
    assert isinstance(routing.resolve("memory_agent"), ScriptedChatModel)
    assert isinstance(routing.resolve("consolidation"), ScriptedChatModel)
    assert made == [
        ("openai:gpt-4o-mini", {"temperature": 0.3}),
        ("ollama:llama3.1", {"temperature": 0.2}),
    ]


def test_model_string_without_langchain_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain.chat_models", None)
    with pytest.raises(ConfigError, match="pip install langchain"):
        resolve_chat_model("openai:gpt-4o-mini")
    with pytest.raises(ConfigError):
        resolve_chat_model("")


def test_agent_accepts_a_model_string(memory: PraxMemory, monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedChatModel(script=[AIMessage("hello from a string model")])
    fake = types.ModuleType("langchain.chat_models")
    fake.init_chat_model = lambda name, **kw: model  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "langchain.chat_models", fake)
    out = create_agent_with_memory("openai:gpt-4o-mini", [], memory).invoke(
        {"messages": [("user", "hi")]}, CFG
    )
    last: BaseMessage = out["messages"][-1]
    assert last.text == "hello from a string model"
