"""The context an agent receives (real packaged model): the seed's samples, tiers and scores."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryRetriever, PraxMemoryStore
from langgraph_prax_memory.config import RetrievalConfig
from langgraph_prax_memory.consolidation._supersession import mark_superseded
from langgraph_prax_memory.context import (
    assemble_context,
    build_memory_context,
    memory_context_node,
    memory_pre_model_hook,
)
from langgraph_prax_memory.tools import create_memory_tools
from tests.scripted import ScriptedChatModel

pytestmark = pytest.mark.integration

SEED_DAY = datetime(2026, 4, 2, 12, tzinfo=UTC)
NOW = datetime(2026, 4, 3, 12, tzinfo=UTC)
PREFERENCES = [
    "User prefers Rust for systems projects and Python for scripts.",
    "User uses NixOS with flake-based project templates.",
    "User insists on MIT license for all personal projects.",
    "User's preferred editor is Helix with catppuccin theme.",
]
EPISODES = [
    "User went to the dentist on Tuesday.",
    "User watched a documentary about whales last weekend.",
    "User's train to work was delayed this morning.",
]
OFF_TOPIC = [
    "What's the capital of Peru?",
    "Explain how photosynthesis works.",
    "Write a haiku about autumn.",
]


def _memory(folder: Path, **retrieval: object) -> PraxMemory:
    cfg = MemoryConfig(
        data_dir=folder, qdrant_url=":memory:", retrieval=RetrievalConfig(**retrieval)
    )
    return PraxMemory(cfg)


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[PraxMemory]:
    mem = _memory(tmp_path / "data")
    yield mem
    mem.close()


def _seed_preferences(memory: PraxMemory, user: str = "u1") -> None:
    for fact in PREFERENCES:
        memory.remember(user, fact, importance=0.8, tags=["preference"], created_at=SEED_DAY)


def test_seed_sample_new_project_gets_all_four_preferences(memory: PraxMemory) -> None:
    _seed_preferences(memory)
    block = build_memory_context(memory, "u1", "Can you help me set up a new project?", now=NOW)
    assert block.startswith("## Relevant Memories\n")
    for fact in PREFERENCES:
        assert f"- [conversation, 2026-04-02] {fact}" in block.splitlines()


def test_seed_sample_full_pipeline(memory: PraxMemory) -> None:
    memory.stm.write("u1", "user_role", "data scientist at FinCorp")
    memory.stm.write("u1", "current_project", "fraud detection model using XGBoost")
    memory.remember(
        "u1",
        "User is a data scientist at FinCorp working on fraud detection with XGBoost.",
        importance=0.8,
        tags=["profile"],
        created_at=SEED_DAY,
    )
    memory.remember(
        "u1",
        "User prefers polars over pandas for large datasets because of performance.",
        importance=0.8,
        tags=["preference"],
        created_at=SEED_DAY,
    )
    for episode in EPISODES:
        memory.remember("u1", episode, importance=0.4, created_at=SEED_DAY)
    block = build_memory_context(memory, "u1", "How can I optimize my data pipeline?", now=NOW)
    assert (
        "## Working Memory (Scratchpad)\n"
        "- **user_role**: data scientist at FinCorp\n"
        "- **current_project**: fraud detection model using XGBoost"
    ) in block
    lines = block.splitlines()
    assert (
        "- [conversation, 2026-04-02] User is a data scientist at FinCorp working on fraud "
        "detection with XGBoost."
    ) in lines
    assert (
        "- [conversation, 2026-04-02] User prefers polars over pandas for large datasets "
        "because of performance."
    ) in lines
    assert not any(episode in block for episode in EPISODES)  # episodes stay behind the floor


def test_episodes_stay_behind_the_floor_and_off_topic_injects_none(memory: PraxMemory) -> None:
    _seed_preferences(memory)
    for episode in EPISODES:
        memory.remember("u1", episode, importance=0.4, created_at=SEED_DAY)
    for question in OFF_TOPIC:
        ctx = assemble_context(memory, "u1", question, now=NOW)
        assert not any(episode in ctx.text for episode in EPISODES), question
        assert {h.memory.content for h in ctx.memories} <= set(PREFERENCES)
    # a direct question about an episode gets it
    ctx = assemble_context(memory, "u1", "When did I go to the dentist?", now=NOW)
    assert ctx.memories[0].memory.content == EPISODES[0]
    assert ctx.memories[0].memory.content not in {h.memory.content for h in ctx.profile}


def test_profile_tier_is_bounded_and_ranked_by_relevance(memory: PraxMemory) -> None:
    _seed_preferences(memory)
    facts = [f"User's cousin number {i} lives in town {i}." for i in range(30)]
    for fact in facts:
        memory.remember("u1", fact, tags=["relationship"], created_at=SEED_DAY)
    ctx = assemble_context(
        memory, "u1", "Which editor theme do I like?", profile_chars=300, now=NOW
    )
    profile_chars = sum(1 + len(line) for line in ctx.text.splitlines()[1:]) - sum(
        1 + len(line)
        for line in ctx.text.splitlines()[1:]
        if not any(h.memory.content in line for h in ctx.profile)
    )
    assert 0 < profile_chars <= 300
    assert "Helix" in ctx.text.splitlines()[1]  # the most relevant standing fact leads
    off = assemble_context(memory, "u1", "Which editor theme do I like?", profile_chars=0, now=NOW)
    assert off.profile == ()


def test_a_superseded_preference_leaves_the_profile(memory: PraxMemory) -> None:
    dark = memory.remember("u1", "User prefers dark mode in every editor.", tags=["preference"])
    memory.remember("u1", "User now prefers light mode in every editor.", tags=["preference"])
    before = assemble_context(memory, "u1", "Set up my new laptop.")
    assert dark in {h.memory.id for h in before.profile}
    mark_superseded(memory.parts, "u1", [dark], datetime.now(UTC), "light mode")
    after = assemble_context(memory, "u1", "Set up my new laptop.")
    assert dark not in {h.memory.id for h in after.memories}
    assert any("light mode" in h.memory.content for h in after.profile)


def test_scores_mean_the_same_thing_across_queries(memory: PraxMemory) -> None:
    store = PraxMemoryStore(memory)
    store.put(
        ("memories", "u1"), "k0", {"content": "User prefers polars over pandas for large datasets"}
    )
    store.put(
        ("memories", "u1"), "k1", {"content": "User's editor is Helix with the catppuccin theme"}
    )
    store.put(
        ("memories", "u1"),
        "k2",
        {"content": "User insists on the MIT license for personal projects"},
    )
    gold = store.search(("memories", "u1"), query="which dataframe library does the user like?")
    off = store.search(("memories", "u1"), query="What's the weather in Paris?")
    assert gold[0].key == "k0"
    assert off[0].score is not None and gold[0].score is not None
    assert off[0].score < gold[0].score
    assert off[0].score < 0.5 <= gold[0].score
    every = [i.score for i in gold + off]
    assert all(s is not None and 0.0 <= s <= 1.0 for s in every)
    # a lone exact match scores high
    store.put(("memories", "u2"), "only", {"content": "Bob keeps bees on his roof"})
    lone = store.search(("memories", "u2"), query="Bob keeps bees on his roof")
    assert lone[0].score is not None and lone[0].score >= 0.5


def test_cross_tenant_search_merges_comparable_scores(tmp_path: Path) -> None:
    mem = _memory(tmp_path / "x")
    try:
        store = PraxMemoryStore(mem, allow_cross_tenant=True)
        store.put(("memories", "ann"), "tea", {"content": "Ann drinks green tea every morning"})
        for i, text in enumerate(
            [
                "Ben repaired his bicycle chain",
                "Ben likes hiking in the mountains",
                "Ben's sister is a pilot",
                "Ben plays chess on Sundays",
            ]
        ):
            store.put(("memories", "ben"), f"b{i}", {"content": text})
        found = store.search(("memories",), query="green tea", limit=3)
        assert found[0].key == "tea"
    finally:
        mem.close()


def test_every_door_applies_the_same_judgement(memory: PraxMemory) -> None:
    for episode in EPISODES:
        memory.remember("u1", episode, importance=0.4)
    question = "What's the capital of Peru?"
    retriever = PraxMemoryRetriever(memory=memory, user_id="u1", reinforce=False)
    assert retriever.invoke(question) == []
    assert (
        len(
            PraxMemoryRetriever(memory=memory, user_id="u1", relevance_floor=False).invoke(question)
        )
        == 3
    )
    tools = {t.name: t for t in create_memory_tools(memory, user_id="u1")}
    assert (
        tools["memory_recall"]
        .invoke({"query": question, "k": 3})
        .startswith("No memory is relevant")
    )
    assert build_memory_context(memory, "u1", question) == ""
    hook = memory_pre_model_hook(memory, user_id="u1")
    assert hook({"messages": [HumanMessage(question)]}, {})["llm_input_messages"] == [
        HumanMessage(question)
    ]
    node = memory_context_node(memory, user_id="u1")
    assert node({"messages": [HumanMessage(question)]}, {}) == {"memory_context": ""}
    # and an on-topic question passes every door
    asked = "When did I go to the dentist?"
    assert retriever.invoke(asked)[0].page_content == EPISODES[0]
    assert EPISODES[0] in build_memory_context(memory, "u1", asked)
    # the retriever's include_profile adds standing facts (the context's profile tier)
    _seed_preferences(memory)
    with_profile = PraxMemoryRetriever(memory=memory, user_id="u1", include_profile=True)
    assert {d.page_content for d in with_profile.invoke(question)} == set(PREFERENCES)


def test_the_recall_tool_answers_what_do_you_know_about_me(memory: PraxMemory) -> None:
    # "What do you know about me?" shares no topic with any memory: nothing passes the floor,
    # and the tool answers with the standing facts (the context block's profile tier)
    _seed_preferences(memory)
    for episode in EPISODES:
        memory.remember("u1", episode, importance=0.4)
    recall = {t.name: t for t in create_memory_tools(memory, user_id="u1")}["memory_recall"]
    call = {"name": "memory_recall", "type": "tool_call", "id": "c1"}
    out = recall.invoke({**call, "args": {"query": "What do you know about me?"}})
    lines = out.content.splitlines()
    assert lines[0].startswith("No memory is relevant to 'What do you know about me?'")
    assert lines[1] == "Standing facts about the user:"
    assert {h["content"] for h in out.artifact["hits"]} == set(PREFERENCES)
    assert all(h["standing_fact"] for h in out.artifact["hits"])
    assert all("standing fact" in line for line in lines[2:])
    assert not any(episode in out.content for episode in EPISODES)
    # an on-topic question lists its match first, then the standing facts it did not repeat
    out = recall.invoke({**call, "args": {"query": "Which editor do I use?"}})
    first = out.artifact["hits"][0]
    assert first["content"] == PREFERENCES[3] and not first["standing_fact"]
    assert [h["content"] for h in out.artifact["hits"]].count(PREFERENCES[3]) == 1
    # include_profile=False: only what matches
    out = recall.invoke(
        {**call, "args": {"query": "What do you know about me?", "include_profile": False}}
    )
    assert out.artifact["hits"] == [] and out.content.startswith("No memory is relevant")


def test_model_check_decides_the_uncertain_band(tmp_path: Path) -> None:
    mem = _memory(tmp_path / "c", llm_check=True, llm_check_band=(0.0, 1.0))
    try:
        for episode in EPISODES:
            mem.remember("u1", episode, importance=0.4)
        keep_whales = ScriptedChatModel(script=[AIMessage('{"use": [0]}')])
        ctx = assemble_context(mem, "u1", "What did I watch last weekend?", check_model=keep_whales)
        assert [h.memory.content for h in ctx.memories] == [EPISODES[1]]
        assert "model check kept 1" in ctx.checked
        # a failing model leaves the floor's decision
        broken = ScriptedChatModel(script=[AIMessage("not json at all")])
        plain = assemble_context(mem, "u1", "What did I watch last weekend?")
        failed = assemble_context(mem, "u1", "What did I watch last weekend?", check_model=broken)
        assert [h.memory.id for h in failed.memories] == [h.memory.id for h in plain.memories]
        assert "failed" in failed.checked
    finally:
        mem.close()


def test_consolidated_standing_facts_reach_the_profile_and_leave_it_when_superseded(
    memory: PraxMemory, tmp_path: Path
) -> None:
    from langgraph_prax_memory.consolidation import (
        Consolidator,
        RuleBasedExtractor,
        TraceLogSource,
    )

    trace = tmp_path / "carol.log"
    trace.write_text(f"{SEED_DAY.isoformat()} user: I live in Lisbon and work at a bakery.\n")
    consolidator = Consolidator(memory, extractor=RuleBasedExtractor())
    consolidator.run("carol", TraceLogSource(trace), now=SEED_DAY)
    task = "Help me write a short introduction of myself for a networking event."
    before = {h.memory.content for h in assemble_context(memory, "carol", task, now=NOW).profile}
    assert {"User lives in Lisbon.", "User works at bakery."} <= before
    later = datetime(2026, 4, 5, 12, tzinfo=UTC)
    with trace.open("a") as fh:
        fh.write(f"{later.isoformat()} user: I moved to Berlin and work at Acme Corp now.\n")
    consolidator.run("carol", TraceLogSource(trace), now=later)
    after = assemble_context(memory, "carol", task, now=later)
    profile = {h.memory.content for h in after.profile}
    assert {"User lives in Berlin.", "User works at Acme Corp."} <= profile
    assert "Lisbon" not in after.text and "bakery" not in after.text


def test_a_slow_check_model_leaves_the_floor_deciding(tmp_path: Path) -> None:
    import threading
    import time

    mem = _memory(tmp_path / "s", llm_check=True, llm_check_band=(0.0, 1.0), llm_check_timeout=0.5)
    release = threading.Event()

    class Slow(ScriptedChatModel):
        def _generate(self, *args: Any, **kwargs: Any) -> Any:
            release.wait(30)  # a model that does not answer in time
            return super()._generate(*args, **kwargs)

    try:
        for episode in EPISODES:
            mem.remember("u1", episode, importance=0.4)
        plain = assemble_context(mem, "u1", "What did I watch last weekend?")
        started = time.monotonic()
        ctx = assemble_context(
            mem,
            "u1",
            "What did I watch last weekend?",
            check_model=Slow(script=[AIMessage('{"use": []}')]),
        )
        assert time.monotonic() - started < 10
        assert "timed out" in ctx.checked
        assert [h.memory.id for h in ctx.memories] == [h.memory.id for h in plain.memories]
        # the model's answer drops a hit the floor kept
        drop = ScriptedChatModel(script=[AIMessage('{"use": []}')])
        dropped = assemble_context(mem, "u1", "What did I watch last weekend?", check_model=drop)
        assert plain.memories and not dropped.memories
    finally:
        release.set()
        mem.close()


def test_only_what_a_door_gives_out_is_strengthened(memory: PraxMemory) -> None:
    # strengthen-on-recall means used: a memory the floor left out is not made stronger by
    # every off-topic question, and standing facts given by the profile tier are not either
    _seed_preferences(memory)
    ids = {e: memory.remember("u1", e, importance=0.4) for e in EPISODES}
    prefs = [m.id for m in memory.list_memories("u1") if m.content in PREFERENCES]
    tools = {t.name: t for t in create_memory_tools(memory, user_id="u1")}
    retriever = PraxMemoryRetriever(memory=memory, user_id="u1", include_profile=True)

    def counts() -> dict[str, int]:
        memory.flush()
        return {i: memory.get("u1", i).access_count for i in [*ids.values(), *prefs]}

    before = counts()
    off_topic = "What's the capital of Peru?"
    assert build_memory_context(memory, "u1", off_topic)  # the profile tier is given
    tools["memory_recall"].invoke({"query": off_topic})
    retriever.invoke(off_topic)
    assert counts() == before, "nothing recalled as relevant, nothing strengthened"

    asked = "When did I go to the dentist?"
    assert EPISODES[0] in build_memory_context(memory, "u1", asked)
    tools["memory_recall"].invoke({"query": asked})
    retriever.invoke(asked)
    after = counts()
    assert after[ids[EPISODES[0]]] == before[ids[EPISODES[0]]] + 3
    assert {i: n for i, n in after.items() if i != ids[EPISODES[0]]} == {
        i: n for i, n in before.items() if i != ids[EPISODES[0]]
    }
