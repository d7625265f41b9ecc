"""Issue 26 item 2: ``create_agent_with_memory`` follows the memory's configured routing.

The memory-agent route of ``MEMORY_MODEL_ROUTING`` (``MemoryConfig.model_routing``) picks the
sub-agent's model in ``"delegate"`` mode without a ``routing=`` argument. A real memory
(embedded Qdrant, the packaged embedding model); the chat models are scripted.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.agents import (
    MEMORY_AGENT_PROMPT,
    ModelRouting,
    create_agent_with_memory,
)
from tests.scripted import ScriptedChatModel, calls, tool_call

CFG: RunnableConfig = {"configurable": {"user_id": "alice", "thread_id": "t1"}}


def _main() -> ScriptedChatModel:
    return ScriptedChatModel(
        script=[
            calls(tool_call("delegate_memory", "d", task="Remember the user prefers polars")),
            AIMessage("Got it."),
        ]
    )


def _spoke() -> ScriptedChatModel:
    return ScriptedChatModel(
        script=[
            calls(tool_call("memory_remember", "m", content="User prefers polars", importance=0.7)),
            AIMessage("Remembered."),
        ]
    )


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


def _memory(config: MemoryConfig) -> Iterator[PraxMemory]:
    mem = PraxMemory(config)
    yield mem
    mem.close()


def test_the_configured_memory_agent_route_is_used_without_a_routing_argument(
    data_dir: Path,
) -> None:
    spoke = _spoke()
    config = MemoryConfig(
        qdrant_url=":memory:",
        data_dir=data_dir,
        model_routing=ModelRouting(memory_agent=spoke),
    )
    for memory in _memory(config):
        main = _main()
        agent = create_agent_with_memory(main, [], memory, memory_tools="delegate")
        out = agent.invoke({"messages": [("user", "I prefer polars")]}, CFG)
        assert out["messages"][-1].text == "Got it."
        assert spoke.received and spoke.received[0][0].text == MEMORY_AGENT_PROMPT
        assert len(main.received) == 2  # the main model never ran the sub-agent's turns
        assert [m.content for m in memory.list_memories("alice")] == ["User prefers polars"]


def test_memory_model_routing_from_the_environment_reaches_the_sub_agent(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spoke = _spoke()
    made: list[tuple[str, dict[str, Any]]] = []

    def init_chat_model(model: str, **kwargs: Any) -> ScriptedChatModel:
        made.append((model, kwargs))
        assert model == "test:memory-spoke"
        return spoke

    fake = types.ModuleType("langchain.chat_models")
    fake.init_chat_model = init_chat_model  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "langchain.chat_models", fake)
    monkeypatch.setenv(
        "MEMORY_MODEL_ROUTING",
        '{"memory_agent": {"model": "test:memory-spoke", "temperature": 0.1}}',
    )
    for memory in _memory(MemoryConfig(qdrant_url=":memory:", data_dir=data_dir)):
        main = _main()
        agent = create_agent_with_memory(main, [], memory, memory_tools="delegate")
        assert made == [("test:memory-spoke", {"temperature": 0.1})]
        agent.invoke({"messages": [("user", "I prefer polars")]}, CFG)
        assert spoke.received and [m.content for m in memory.list_memories("alice")] == [
            "User prefers polars"
        ]


def test_an_explicit_routing_argument_still_wins_over_the_config(data_dir: Path) -> None:
    configured = ScriptedChatModel()  # would fail the test if it ran (empty script)
    explicit = _spoke()
    config = MemoryConfig(
        qdrant_url=":memory:",
        data_dir=data_dir,
        model_routing=ModelRouting(memory_agent=configured),
    )
    for memory in _memory(config):
        agent = create_agent_with_memory(
            _main(),
            [],
            memory,
            memory_tools="delegate",
            routing=ModelRouting(memory_agent=explicit),
        )
        agent.invoke({"messages": [("user", "I prefer polars")]}, CFG)
        assert explicit.received and not configured.received


def test_without_a_route_the_sub_agent_runs_on_the_main_model(data_dir: Path) -> None:
    main = ScriptedChatModel(
        script=[
            calls(tool_call("delegate_memory", "d", task="Remember the user prefers polars")),
            *_spoke().script,
            AIMessage("Got it."),
        ]
    )
    for memory in _memory(MemoryConfig(qdrant_url=":memory:", data_dir=data_dir)):
        agent = create_agent_with_memory(main, [], memory, memory_tools="delegate")
        out = agent.invoke({"messages": [("user", "I prefer polars")]}, CFG)
        assert out["messages"][-1].text == "Got it."
        assert main.received[1][0].text == MEMORY_AGENT_PROMPT
