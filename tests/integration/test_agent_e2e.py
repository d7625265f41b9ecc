"""The seed's full-pipeline session on the real offline defaults (MiniLM, Qdrant on disk)."""

from __future__ import annotations

from pathlib import Path

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory, RetrievalConfig
from tests.unit.agents.test_full_pipeline import POLARS, ROLE, run_full_pipeline

pytestmark = pytest.mark.integration


def test_full_pipeline_on_offline_defaults(tmp_path: Path) -> None:
    # The seed's session has no relevance floor: its follow-up "Can you help me optimize my
    # data pipeline?" scores cosine 0.25 with the polars memory and 0.09 with the role, both
    # below the default floor (0.3, docs/retrieval.md), so the session is replayed without it.
    seed = RetrievalConfig(relevance_floor=False)
    with PraxMemory(MemoryConfig(data_dir=tmp_path / "data", retrieval=seed)) as memory:
        model, state = run_full_pipeline(memory)
        system = model.received[-1][0].text
        memories = system.split("## Relevant Memories\n", 1)[1].splitlines()
        assert {line.split("] ", 1)[1] for line in memories} == {ROLE, POLARS}
        assert "- **user_role**: data scientist at FinCorp" in system
        assert state["messages"][-1].text.startswith("Since you use polars")


#: The floor alone: ROLE (importance 0.8) is a standing fact, which the profile tier gives
#: whatever is asked (tests/integration/test_context_tiers.py tests that tier).
FLOOR_ALONE = RetrievalConfig(profile_chars=0)


def test_the_floor_keeps_only_what_the_follow_up_is_about(tmp_path: Path) -> None:
    from langgraph_prax_memory.context import build_memory_context

    with PraxMemory(MemoryConfig(data_dir=tmp_path / "data", retrieval=FLOOR_ALONE)) as memory:
        memory.remember("u", ROLE, importance=0.8)
        memory.remember("u", POLARS, importance=0.7)
        block = build_memory_context(memory, "u", "Which dataframe library suits my pipeline?")
        assert POLARS in block and ROLE not in block
        assert build_memory_context(memory, "u", "What's the capital of Peru?") == ""


def test_middleware_on_create_agent_with_the_relevance_floor(tmp_path: Path) -> None:
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage

    from langgraph_prax_memory import PraxMemoryMiddleware
    from tests.scripted import ScriptedChatModel

    with PraxMemory(MemoryConfig(data_dir=tmp_path / "data", retrieval=FLOOR_ALONE)) as memory:
        memory.remember("u", ROLE, importance=0.8)
        memory.remember("u", POLARS, importance=0.7)
        model = ScriptedChatModel(script=[AIMessage("polars"), AIMessage("Lima")])
        agent = create_agent(
            model,
            system_prompt="Be brief.",
            middleware=[PraxMemoryMiddleware(memory, tools=False, consolidate_every=None)],
        )
        cfg = {"configurable": {"user_id": "u"}}
        out = agent.invoke(
            {"messages": [("user", "Which dataframe library suits my pipeline?")]}, cfg
        )
        assert POLARS in out["memory_context"] and ROLE not in out["memory_context"]
        assert model.received[0][0].text == "Be brief.\n\n" + out["memory_context"]
        out = agent.invoke({"messages": [("user", "What's the capital of Peru?")]}, cfg)
        assert out["memory_context"] == ""
        assert model.received[1][0].text == "Be brief.", "an off-topic question injects nothing"


def test_with_the_profile_tier_the_role_is_always_at_hand(tmp_path: Path) -> None:
    from langgraph_prax_memory.context import assemble_context

    with PraxMemory(MemoryConfig(data_dir=tmp_path / "data")) as memory:
        memory.remember("u", ROLE, importance=0.8)
        memory.remember("u", POLARS, importance=0.7)
        on = assemble_context(memory, "u", "Which dataframe library suits my pipeline?")
        # the answer first; the role (a standing fact) always beside it
        assert [h.memory.content for h in on.memories] == [POLARS, ROLE]
        assert ROLE in [h.memory.content for h in on.profile]
        off = assemble_context(memory, "u", "What's the capital of Peru?")
        assert ROLE in [h.memory.content for h in off.memories]
