"""PraxMemoryMiddleware on LangChain v1's create_agent, with a scripted model and real memory."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from langgraph_prax_memory import ConfigError, PraxMemory, PraxMemoryMiddleware, PraxMemoryStore
from langgraph_prax_memory.middleware import MEMORY_TOOLS_PROMPT, resolve_run_user
from langgraph_prax_memory.tools import TOOL_NAMES, MissingUserIdError
from tests.scripted import ScriptedChatModel, calls, tool_call

POLARS = "Alice prefers polars over pandas for large datasets"


@dataclass
class UserContext:
    user_id: str


def _system(prompt: list[BaseMessage]) -> str:
    assert isinstance(prompt[0], SystemMessage)
    return prompt[0].text


def _cfg(thread: str = "t1", **configurable: Any) -> RunnableConfig:
    return {"configurable": {"thread_id": thread, **configurable}}


def test_context_reaches_each_model_call_and_never_the_history(memory: PraxMemory) -> None:
    memory.remember("alice", POLARS, importance=0.8)
    model = ScriptedChatModel(script=[AIMessage("Use polars."), AIMessage("Still polars.")])
    agent = create_agent(
        model,
        system_prompt="Be brief.",
        middleware=[PraxMemoryMiddleware(memory, consolidate_every=None)],
        checkpointer=InMemorySaver(),
    )
    cfg = _cfg(user_id="alice")
    out = agent.invoke({"messages": [("user", "Which dataframe library for big data?")]}, cfg)
    first = _system(model.received[0])
    assert first.startswith("Be brief.\n\n" + MEMORY_TOOLS_PROMPT)
    assert out["memory_context"].startswith("## Relevant Memories")
    assert POLARS in out["memory_context"]
    assert first.endswith("\n\n" + out["memory_context"])
    assert not any(isinstance(m, SystemMessage) for m in out["messages"])

    out = agent.invoke({"messages": [("user", "And for polars dataframes on big data?")]}, cfg)
    second = model.received[1]
    # one block per call: the first turn's block did not pile up in the second prompt
    assert _system(second).count("## Relevant Memories") == 1
    assert [m.type for m in second] == ["system", "human", "ai", "human"]
    assert model.bound_tools == list(TOOL_NAMES)


def test_user_from_the_runtime_context_drives_context_and_tools(memory: PraxMemory) -> None:
    memory.stm.write("bob", "goal", "ship the release")
    model = ScriptedChatModel(
        script=[
            calls(tool_call("memory_remember", "r1", content="Bob uses Rust", importance=0.7)),
            AIMessage("Noted."),
        ]
    )
    agent = create_agent(
        model,
        middleware=[PraxMemoryMiddleware(memory, consolidate_every=None)],
        context_schema=UserContext,
    )
    agent.invoke({"messages": [("user", "I use Rust")]}, context=UserContext(user_id="bob"))
    assert "- **goal**: ship the release" in _system(model.received[0])
    assert [m.content for m in memory.list_memories("bob")] == ["Bob uses Rust"]
    assert memory.count("alice") == 0
    # a mapping context works the same way
    model.script = [AIMessage("ok")]
    agent2 = create_agent(model, middleware=[PraxMemoryMiddleware(memory, tools=False)])
    agent2.invoke({"messages": [("user", "goal?")]}, context={"user_id": "bob"})
    assert "ship the release" in _system(model.received[-1])


def test_no_user_or_two_users_is_a_clear_error(memory: PraxMemory) -> None:
    model = ScriptedChatModel(script=[AIMessage("x")])
    agent = create_agent(model, middleware=[PraxMemoryMiddleware(memory)])
    with pytest.raises(MissingUserIdError, match="whose memory"):
        agent.invoke({"messages": [("user", "hello")]})
    with pytest.raises(MissingUserIdError, match="two users"):
        agent.invoke(
            {"messages": [("user", "hello")]},
            {"configurable": {"user_id": "alice"}},
            context={"user_id": "mallory"},
        )
    bound = create_agent(model, middleware=[PraxMemoryMiddleware(memory, user_id="alice")])
    with pytest.raises(MissingUserIdError, match="two users"):
        bound.invoke({"messages": [("user", "hello")]}, {"configurable": {"user_id": "bob"}})
    assert model.received == [], "nothing reached the model"
    with pytest.raises(MissingUserIdError, match="must be a string"):
        resolve_run_user(None, {"user_id": 7}, None)


def test_the_relevance_floor_still_applies(memory: PraxMemory) -> None:
    # an episode (no standing-fact tag, ordinary importance) must pass the floor; a standing
    # fact would be given by the profile tier whatever is asked (docs/context.md)
    memory.remember("alice", POLARS, importance=0.5, tags=["episode"])
    floor_on = memory.config.retrieval.model_copy(
        update={"relevance_floor": True, "min_cosine": 1.01}
    )
    memory.config = memory.config.model_copy(update={"retrieval": floor_on})
    model = ScriptedChatModel(script=[AIMessage("Lima.")])
    agent = create_agent(model, middleware=[PraxMemoryMiddleware(memory, tools=False)])
    out = agent.invoke({"messages": [("user", "Capital of Peru?")]}, _cfg(user_id="alice"))
    assert out["memory_context"] == ""
    assert model.received[0][0].type == "human", "no system message when nothing is relevant"


def test_tool_subsets_and_no_tools(memory: PraxMemory) -> None:
    some = PraxMemoryMiddleware(memory, tools=["memory_recall", "memory_remember"])
    assert [t.name for t in some.tools] == ["memory_recall", "memory_remember"]
    none = PraxMemoryMiddleware(memory, tools=False)
    assert none.tools == [] and none.tools_prompt is None
    with pytest.raises(ValueError, match="unknown memory tool"):
        PraxMemoryMiddleware(memory, tools=["memory_everything"])


def test_consolidation_runs_after_the_agent_every_n_turns(memory: PraxMemory) -> None:
    model = ScriptedChatModel(script=[AIMessage(f"Noted ({i}).") for i in range(3)])
    middleware = PraxMemoryMiddleware(
        memory, tools=False, consolidate_every=3, consolidate_in_background=False
    )
    agent = create_agent(model, middleware=[middleware], checkpointer=InMemorySaver())
    cfg = _cfg(user_id="dana")
    said = [
        "I work at FinCorp as a data scientist.",
        "I prefer polars over pandas for large datasets.",
        "We decided to use XGBoost for the fraud model.",
    ]
    for i, text in enumerate(said, 1):
        agent.invoke({"messages": [("user", text)]}, cfg)
        if i < 3:
            assert memory.count("dana") == 0, "nothing is consolidated before the 3rd turn"
    assert any("polars" in m.content for m in memory.list_memories("dana"))


def test_custom_trigger_gets_the_user_and_its_failure_is_logged(
    memory: PraxMemory, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[tuple[int, str]] = []

    def trigger(state: dict[str, Any], config: RunnableConfig) -> None:
        seen.append((len(state["messages"]), config["configurable"]["user_id"]))

    model = ScriptedChatModel(script=[AIMessage("one"), AIMessage("two")])
    agent = create_agent(
        model,
        middleware=[
            PraxMemoryMiddleware(
                memory, tools=False, consolidate_every=None, consolidation_trigger=trigger
            )
        ],
    )
    agent.invoke({"messages": [("user", "a")]}, context={"user_id": "erin"})
    assert seen == [(2, "erin")]

    def broken(state: dict[str, Any]) -> None:
        raise RuntimeError("extractor model is down")

    agent = create_agent(
        model,
        middleware=[PraxMemoryMiddleware(memory, tools=False, consolidation_trigger=broken)],
    )
    with caplog.at_level(logging.ERROR):
        out = agent.invoke({"messages": [("user", "b")]}, _cfg(user_id="erin"))
    assert out["messages"][-1].text == "two"
    assert "consolidation trigger failed" in caplog.text


def test_without_a_memory_it_uses_the_agents_prax_store(memory: PraxMemory) -> None:
    memory.remember("alice", POLARS, importance=0.8)
    model = ScriptedChatModel(script=[AIMessage("polars")])
    agent = create_agent(
        model,
        middleware=[PraxMemoryMiddleware(consolidate_every=None)],
        store=PraxMemoryStore(memory),
    )
    agent.invoke({"messages": [("user", "Which dataframe library?")]}, _cfg(user_id="alice"))
    assert POLARS in _system(model.received[0])
    assert model.bound_tools == [], "no tools without a memory at build time"

    other = create_agent(
        ScriptedChatModel(script=[AIMessage("x")]),
        middleware=[PraxMemoryMiddleware()],
        store=InMemoryStore(),
    )
    with pytest.raises(ConfigError, match="must be a PraxMemoryStore"):
        other.invoke({"messages": [("user", "hi")]}, _cfg(user_id="alice"))
    with pytest.raises(ConfigError, match="needs memory="):
        PraxMemoryMiddleware(tools=True)
    with pytest.raises(ConfigError, match="needs a PraxMemory"):
        PraxMemoryMiddleware("not a memory")  # type: ignore[arg-type]


async def test_async_agent(memory: PraxMemory) -> None:
    memory.remember("alice", POLARS, importance=0.8)
    model = ScriptedChatModel(
        script=[
            calls(tool_call("memory_stm_write", "w", key="task", content="benchmark polars")),
            AIMessage("done"),
        ]
    )
    agent = create_agent(model, middleware=[PraxMemoryMiddleware(memory, consolidate_every=None)])
    out = await agent.ainvoke(
        {"messages": [("user", "Which dataframe library?")]}, context={"user_id": "alice"}
    )
    assert POLARS in _system(model.received[0])
    assert memory.stm.get("alice", "task") is not None
    assert out["messages"][-1].text == "done"


def test_a_custom_user_key_such_as_the_servers_auth_identity(memory: PraxMemory) -> None:
    memory.stm.write("alice", "goal", "ship it")
    model = ScriptedChatModel(script=[AIMessage("ok")])
    agent = create_agent(
        model,
        middleware=[
            PraxMemoryMiddleware(memory, tools=False, user_id_key="langgraph_auth_user_id")
        ],
    )
    server_config = {"configurable": {"langgraph_auth_user_id": "alice", "user_id": "mallory"}}
    agent.invoke({"messages": [("user", "my goal?")]}, server_config)
    assert "ship it" in _system(model.received[0])
    with pytest.raises(MissingUserIdError, match="two users"):
        agent.invoke(
            {"messages": [("user", "my goal?")]},
            server_config,
            context={"langgraph_auth_user_id": "mallory"},
        )


def test_profile_chars_bounds_the_standing_facts(memory: PraxMemory) -> None:
    # a standing fact (tagged preference) off the question's topic reaches the block through
    # the profile tier by default; profile_chars=0 turns that tier off (the floor is set so
    # that nothing passes it as relevant: only the profile tier can carry the fact)
    floor_on = memory.config.retrieval.model_copy(
        update={"relevance_floor": True, "min_cosine": 1.01}
    )
    memory.config = memory.config.model_copy(update={"retrieval": floor_on})
    memory.remember("alice", "Alice prefers tea to coffee", importance=0.6, tags=["preference"])
    question = {"messages": [("user", "What is the capital of Peru?")]}
    blocks = []
    for profile_chars in (None, 0):
        agent = create_agent(
            ScriptedChatModel(script=[AIMessage("Lima.")]),
            middleware=[
                PraxMemoryMiddleware(
                    memory, tools=False, consolidate_every=None, profile_chars=profile_chars
                )
            ],
        )
        blocks.append(agent.invoke(question, _cfg(user_id="alice"))["memory_context"])
    assert "Alice prefers tea to coffee" in blocks[0]
    assert blocks[1] == ""


@pytest.mark.parametrize(
    "bad",
    [{"profile_chars": -1}, {"profile_chars": "300"}, {"ltm_chars": True}, {"stm_chars": 1.5}],
)
def test_budgets_must_be_non_negative_integers(memory: PraxMemory, bad: dict[str, Any]) -> None:
    from langgraph_prax_memory import MemoryValidationError

    with pytest.raises(MemoryValidationError, match=next(iter(bad))):
        PraxMemoryMiddleware(memory, **bad)
