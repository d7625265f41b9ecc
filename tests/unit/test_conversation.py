"""remember_conversation: turns become memories indexed with the turn they answer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from langchain_core.messages import (
    AIMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

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
            HumanMessage(["Fine", {"type": "text", "text": "Thanks"}, {"type": "image_url"}]),
            ChatMessage(role="assistant", content="Anything else?"),
            ChatMessage(role="critic", content="not dialogue"),
            HumanMessage("   "),
        ]
    )
    assert [i["content"] for i in items] == [
        "user: I moved to Lisbon.",
        "assistant: Congratulations on the move!",
        "Alice: Thanks",
        "user: Fine\nThanks",  # text parts keep a separator, never "FineThanks"
        "assistant: Anything else?",
    ]
    assert items[1]["context"] == "user: I moved to Lisbon."


def test_chat_api_mappings() -> None:
    items = conversation_items(
        [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "I adopted a cat", "name": "Alice"},
            {"role": "assistant", "content": [{"type": "text", "text": "What is her name?"}]},
            {"role": "tool", "content": "ok"},
        ]
    )
    assert [i["content"] for i in items] == [
        "Alice: I adopted a cat",
        "assistant: What is her name?",
    ]
    with pytest.raises(MemoryValidationError, match="role"):
        conversation_items([{"role": "user", "content": "hi", "mood": "x"}])


def test_order_survives_without_created_at() -> None:
    items = conversation_items([("A", "one"), ("B", "two"), ("A", "three")])
    times = [i["created_at"] for i in items]
    assert times == sorted(times) and len(set(times)) == 3


def test_previous_gives_the_first_turn_its_context() -> None:
    items = conversation_items([("Alice", "Yes, in May.")], previous="Bob: Been to Oslo?")
    assert items[0]["context"] == "Bob: Been to Oslo?"
    with pytest.raises(MemoryValidationError, match="previous"):
        conversation_items([("Alice", "x")], previous=3)  # type: ignore[arg-type]


def test_mapping_turns_carry_their_own_fields() -> None:
    at = datetime(2024, 1, 2, tzinfo=UTC)
    items = conversation_items(
        [
            {"speaker": "Bob", "text": "Hi", "key": "D1:1", "created_at": at},
            {"speaker": "Ann", "text": "Hello", "importance": 0.9, "tags": ["greeting"]},
            {"speaker": "Bob", "text": "Bye", "importance": None, "tags": None},
        ],
        created_at=at - timedelta(days=1),
        importance=0.3,
        tags=["chat"],
    )
    assert items[0]["key"] == "D1:1" and items[0]["created_at"] == at
    assert items[1]["importance"] == 0.9 and items[1]["tags"] == ["greeting"]
    assert items[1]["created_at"] == at - timedelta(days=1) + timedelta(milliseconds=1)
    assert items[2]["importance"] == 0.3 and items[2]["tags"] == ["chat"]


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
        [{"speaker": " ", "text": "hi"}],
    ],
)
def test_malformed_turns_raise(turns: object) -> None:
    with pytest.raises(MemoryValidationError):
        conversation_items(turns)  # type: ignore[arg-type]


def test_remember_conversation_finds_the_answer_by_its_question(memory: PraxMemory) -> None:
    ids = memory.remember_conversation(
        "alice",
        [("Bob", "When did you visit Oslo?"), ("Alice", "Last May, with my sister!")],
    )
    memory.remember("alice", "Alice's sister plays the cello")
    assert len(ids) == 2
    stored = memory.get("alice", ids[1])
    assert stored is not None and stored.content == "Alice: Last May, with my sister!"
    assert stored.context == "Bob: When did you visit Oslo?"
    hits = {h.memory.id: h for h in memory.recall("alice", "Oslo", k=3, reinforce=False)}
    # "Oslo" is only in the answer's context: the keyword arm finds it through that alone
    assert "sparse" in hits[ids[1]].ranks


def test_the_same_words_answering_two_questions_are_two_memories(memory: PraxMemory) -> None:
    first = memory.remember_conversation("alice", [("Bob", "Tea?"), ("Alice", "Yes!")])
    second = memory.remember_conversation("alice", [("Bob", "A greyhound?"), ("Alice", "Yes!")])
    assert first[1] != second[1]
    a, b = memory.get("alice", first[1]), memory.get("alice", second[1])
    assert a is not None and b is not None
    assert (a.context, b.context) == ("Bob: Tea?", "Bob: A greyhound?")
    # the very same turn again is the same memory
    again = memory.remember_conversation("alice", [("Bob", "Tea?"), ("Alice", "Yes!")])
    assert again == first and memory.count("alice") == 4


def test_a_bad_turn_stores_nothing(memory: PraxMemory) -> None:
    with pytest.raises(MemoryValidationError):
        memory.remember_conversation("alice", [("Bob", "fine"), ("Alice", 7)])  # type: ignore[list-item]
    too_long = "x" * (memory.config.max_content_chars + 1)
    with pytest.raises(MemoryValidationError):
        memory.remember_conversation(
            "alice", [("Bob", "one"), ("Alice", "two"), ("Bob", "three"), ("Alice", too_long)]
        )
    assert memory.count("alice") == 0


async def test_async_face(config: MemoryConfig) -> None:
    async with AsyncPraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384) as mem:
        ids = await mem.remember_conversation(
            "bob", [HumanMessage("I like jazz"), AIMessage("Noted!")]
        )
        assert len(ids) == 2 and await mem.count("bob") == 2
