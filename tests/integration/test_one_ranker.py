"""The issue's three-fact example: polars first, on every door (real packaged model)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryRetriever, PraxMemoryStore
from langgraph_prax_memory.context import build_memory_context, memory_pre_model_hook
from langgraph_prax_memory.tools import create_memory_tools

pytestmark = pytest.mark.integration

FACTS = {
    "k0": "User prefers polars over pandas for large datasets",
    "k1": "User's editor is Helix with the catppuccin theme",
    "k2": "User insists on the MIT license for personal projects",
}
QUESTION = "which dataframe library does the user like?"


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    folder: Path = tmp_path_factory.mktemp("one-ranker")
    mem = PraxMemory(MemoryConfig(data_dir=folder, qdrant_url=":memory:"))
    store = PraxMemoryStore(mem)
    for key, text in FACTS.items():
        store.put(("memories", "u1"), key, {"content": text})
    # a high-importance memory that is not the answer must not jump the relevance gap
    store.put(
        ("memories", "u1"), "k3", {"content": "User is allergic to peanuts", "importance": 0.9}
    )
    yield mem
    mem.close()


def test_store_search(memory: PraxMemory) -> None:
    found = PraxMemoryStore(memory).search(("memories", "u1"), query=QUESTION)
    assert found[0].key == "k0"


def test_recall(memory: PraxMemory) -> None:
    assert memory.recall("u1", QUESTION, k=3, reinforce=False)[0].memory.key == "k0"


def test_retriever(memory: PraxMemory) -> None:
    docs = PraxMemoryRetriever(memory=memory, user_id="u1", reinforce=False).invoke(QUESTION)
    assert docs[0].page_content == FACTS["k0"]


def test_tools(memory: PraxMemory) -> None:
    tools = {t.name: t for t in create_memory_tools(memory, user_id="u1")}
    answer = tools["memory_recall"].invoke({"query": QUESTION, "k": 3})
    first = answer.splitlines()[1]
    assert first.startswith("1. " + FACTS["k0"])


def test_context_block_and_hook(memory: PraxMemory) -> None:
    block = build_memory_context(memory, "u1", QUESTION)
    lines = block.split("## Relevant Memories\n", 1)[1].splitlines()
    assert lines[0].endswith(FACTS["k0"])
    hook = memory_pre_model_hook(memory, user_id="u1")
    messages = hook({"messages": [HumanMessage(QUESTION)]}, {})["llm_input_messages"]
    assert FACTS["k0"] in str(messages[0].content)


def test_off_topic_injects_nothing(memory: PraxMemory) -> None:
    # only standing facts (the profile tier gives them whatever is asked): all four are, by
    # their text or their importance (docs/context.md, "Memory classes")
    block = build_memory_context(memory, "u1", "What's the weather in Paris tomorrow?")
    assert block.startswith("## Relevant Memories\n- [conversation, ")
    lines = [line for line in block.splitlines() if line.startswith("- ")]
    standing = {m.content for m in memory.list_memories("u1") if m.fact_class == "standing"}
    assert "User is allergic to peanuts" in standing
    assert lines and all(line.split("] ", 1)[1] in standing for line in lines)
    alone = build_memory_context(
        memory, "u1", "What's the weather in Paris tomorrow?", profile_chars=0
    )
    assert alone == ""
    hits = memory.recall("u1", "What's the weather in Paris tomorrow?", k=3, reinforce=False)
    assert hits and not any(h.relevant for h in hits)  # recall still answers, flagged
    assert "below the floor" in hits[0].explain()


def test_same_order_on_every_door(memory: PraxMemory) -> None:
    keys = [h.memory.key for h in memory.recall("u1", QUESTION, k=4, reinforce=False)]
    store = [i.key for i in PraxMemoryStore(memory).search(("memories", "u1"), query=QUESTION)]
    assert store[:4] == keys
