"""Conversation turns → memory items, each with the turn it answers as its ``context``.

A pure function (no I/O), used by ``PraxMemory.remember_conversation``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from langgraph_prax_memory._validation import to_utc
from langgraph_prax_memory.errors import MemoryValidationError

__all__ = ["Turn", "conversation_items"]

#: A turn: a LangChain message, a ``(speaker, text)`` pair, or a mapping with ``speaker`` and
#: ``text`` (and optionally ``created_at``, ``key``, ``importance``, ``tags``).
Turn = BaseMessage | tuple[str, str] | Mapping[str, Any]

_TURN_FIELDS = {"speaker", "text", "created_at", "key", "importance", "tags"}


def _speaker_and_text(turn: Turn, index: int) -> tuple[str, str, Mapping[str, Any]] | None:
    """``(speaker, text, extra fields)``, or ``None`` for a message that is not dialogue."""
    if isinstance(turn, BaseMessage):
        if isinstance(turn, SystemMessage) or not isinstance(turn, HumanMessage | AIMessage):
            return None  # system prompts and tool results are not what the person said
        text = turn.text.strip()
        if not text:
            return None  # an AI turn that only calls tools
        speaker = turn.name or ("user" if isinstance(turn, HumanMessage) else "assistant")
        return speaker, text, {}
    if isinstance(turn, tuple):
        if len(turn) != 2 or not all(isinstance(x, str) for x in turn):
            raise MemoryValidationError(f"turn {index}: a pair must be (speaker, text) strings")
        return turn[0], turn[1], {}
    if isinstance(turn, Mapping):
        unknown = set(turn) - _TURN_FIELDS
        if unknown:
            raise MemoryValidationError(f"turn {index}: unknown field(s) {sorted(unknown)}")
        who, said = turn.get("speaker"), turn.get("text")
        if not isinstance(who, str) or not isinstance(said, str):
            raise MemoryValidationError(f"turn {index}: 'speaker' and 'text' must be strings")
        return who, said, turn
    raise MemoryValidationError(
        f"turn {index}: expected a message, a (speaker, text) pair or a mapping, "
        f"got {type(turn).__name__}"
    )


def conversation_items(
    turns: Sequence[Turn],
    *,
    created_at: datetime | str | float | None = None,
    importance: float = 0.5,
    tags: Sequence[str] | str | None = None,
    source: str = "conversation",
) -> list[dict[str, Any]]:
    """Memory items for ``remember_many``: ``"speaker: text"``, with the previous turn as context.

    Turns without their own ``created_at`` get ``created_at`` plus one millisecond per turn,
    so their order survives; without either, the store's clock applies.

    Example:
        >>> items = conversation_items([("Bob", "Tea or coffee?"), ("Alice", "Tea, always.")])
        >>> items[1]["content"], items[1]["context"]
        ('Alice: Tea, always.', 'Bob: Tea or coffee?')
    """
    if isinstance(turns, str | bytes) or not isinstance(turns, Sequence):
        raise MemoryValidationError("turns must be a sequence of turns")
    start = to_utc(created_at, what="created_at") if created_at is not None else None
    items: list[dict[str, Any]] = []
    previous: str | None = None
    for index, turn in enumerate(turns):
        parsed = _speaker_and_text(turn, index)
        if parsed is None:
            continue
        speaker, text, extra = parsed
        speaker, text = speaker.strip(), text.strip()
        if not speaker or not text:
            raise MemoryValidationError(f"turn {index}: speaker and text must not be empty")
        content = f"{speaker}: {text}"
        item: dict[str, Any] = {
            "content": content,
            "importance": extra.get("importance", importance),
            "tags": extra.get("tags", tags),
            "source": source,
        }
        if extra.get("created_at") is not None:
            item["created_at"] = extra["created_at"]
        elif start is not None:
            item["created_at"] = start + timedelta(milliseconds=len(items))
        if extra.get("key") is not None:
            item["key"] = extra["key"]
        if previous is not None:
            item["context"] = previous
        items.append(item)
        previous = content
    return items
