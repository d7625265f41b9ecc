"""remember_conversation: turns become memories indexed with the turn they answer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from langgraph_prax_memory import AsyncPraxMemory, MemoryConfig, PraxMemory
from langgraph_prax_memory._conversation import conversation_items
from langgraph_prax_memory.errors import MemoryValidationError
from tests.fakes import HashEmbeddings


def test_items_chain_each_turn_to_the_previous_one() -> None:
    t0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    items = conversation_items(
        [("Bob", "When did you visit Oslo?"), ("Alice", "Last May!"), ("Bob", "Nice.")],
        created_at=t0,
        importance=0.7,
        tags=["travel"],
    )
    assert [i["content"] for i in items] == [
        "Bob: When did you visit Oslo?",
        "Alice: Last May!",
        "Bob: Nice.",
    ]
    assert "context" not in items[0]
    assert [i.get("context") for i in items[1:]] == [items[0]["content"], items[1]["content"]]
    assert [i["created_at"] for i in items] == [t0 + timedelta(milliseconds=n) for n in range(3)]
    assert {i["importance"] for i in items} == {0.7}
    assert all(i["tags"] == ["travel"] and i["source"] == "conversation" for i in items)


def test_messages_keep_dialogue_and_skip_the_rest() -> None:
    items = conversation_items(
        [
            SystemMessage("You are helpful."),
            HumanMessage("I moved to Lisbon."),
            AIMessage("", tool_calls=[{"name": "memory_store", "args": {}, "id": "c1"}]),
            ToolMessage("stored", tool_call_id="c1"),
            AIMessage("Congratulations on the move!"),
            HumanMessage("Thanks", name="Alice"),
        ]
    )
    assert [i["content"] for i in items] == [
        "user: I moved to Lisbon.",
        "assistant: Congratulations on the move!",
        "Alice: Thanks",
    ]
    assert items[1]["context"] == "user: I moved to Lisbon."


def test_mapping_turns_carry_their_own_fields() -> None:
    at = datetime(2024, 1, 2, tzinfo=UTC)
    items = conversation_items(
        [
            {"speaker": "Bob", "text": "Hi", "key": "D1:1", "created_at": at},
            {"speaker": "Ann", "text": "Hello", "importance": 0.9, "tags": ["greeting"]},
        ]
    )
    assert items[0]["key"] == "D1:1" and items[0]["created_at"] == at
    assert items[1]["importance"] == 0.9 and items[1]["tags"] == ["greeting"]
    assert "created_at" not in items[1]


@pytest.mark.parametrize(
    "turns",
    [
        "Bob: hi",
        [("Bob",)],
        [("Bob", 3)],
        [{"speaker": "Bob"}],
        [{"speaker": "Bob", "text": "hi", "mood": "good"}],
        [42],
        [("  ", "hi")],
    ],
)
def test_malformed_turns_raise(turns: object) -> None:
    with pytest.raises(MemoryValidationError):
        conversation_items(turns)  # type: ignore[arg-type]


def test_remember_conversation_stores_and_finds_the_answer(memory: PraxMemory) -> None:
    ids = memory.remember_conversation(
        "alice",
        [("Bob", "When did you visit Oslo?"), ("Alice", "Last May, with my sister!")],
    )
    memory.remember("alice", "Alice's sister plays the cello")
    assert len(ids) == 2
    stored = memory.get("alice", ids[1])
    assert stored is not None and stored.content == "Alice: Last May, with my sister!"
    hits = memory.recall("alice", "Oslo trip", k=2, reinforce=False)
    assert ids[1] in {h.memory.id for h in hits}


def test_a_bad_turn_stores_nothing(memory: PraxMemory) -> None:
    with pytest.raises(MemoryValidationError):
        memory.remember_conversation("alice", [("Bob", "fine"), ("Alice", 7)])  # type: ignore[list-item]
    with pytest.raises(MemoryValidationError):
        memory.remember_conversation("alice", [("Bob", "x" * 10_000_000)])
    assert memory.count("alice") == 0


async def test_async_face(config: MemoryConfig) -> None:
    async with AsyncPraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384) as mem:
        ids = await mem.remember_conversation(
            "bob", [HumanMessage("I like jazz"), AIMessage("Noted!")]
        )
        assert len(ids) == 2 and await mem.count("bob") == 2
