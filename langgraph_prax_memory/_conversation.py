"""Conversation turns → memory items, each with the turn it answers as its ``context``.

A pure function (no I/O, the clock aside), used by ``PraxMemory.remember_conversation``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ChatMessage, HumanMessage

from langgraph_prax_memory._validation import to_utc, utcnow
from langgraph_prax_memory.errors import MemoryValidationError

__all__ = ["Turn", "conversation_items"]

#: A turn: a LangChain message, a ``(speaker, text)`` pair, a mapping with ``speaker`` and
#: ``text`` (and optionally ``created_at``, ``key``, ``importance``, ``tags``), or a chat-API
#: mapping with ``role`` and ``content`` (and optionally ``name``).
Turn = BaseMessage | tuple[str, str] | Mapping[str, Any]

_TURN_FIELDS = {"speaker", "text", "created_at", "key", "importance", "tags"}
_CHAT_FIELDS = {"role", "content", "name"}
_ROLES = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant"}


def _content_text(content: object) -> str:
    """The text of a message's content: a string, or its text parts joined by new lines."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    if isinstance(content, list):
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and part.get("type") == "text":
                parts.append(str(part.get("text", "")))
    return "\n".join(p.strip() for p in parts if p.strip())


def _dialogue(role: str, name: object, content: object) -> tuple[str, str] | None:
    """``(speaker, text)`` of a user or assistant message, else ``None`` (system, tool, ...)."""
    who = _ROLES.get(role.lower())
    if who is None:
        return None  # system prompts and tool results are not what was said
    speaker = name.strip() if isinstance(name, str) and name.strip() else who
    return speaker, _content_text(content)


def _parse(turn: Turn, index: int) -> tuple[str, str, Mapping[str, Any]] | None:
    """``(speaker, text, extra fields)``, or ``None`` for a message that is not dialogue."""
    if isinstance(turn, BaseMessage):
        if isinstance(turn, HumanMessage | AIMessage):
            role = "user" if isinstance(turn, HumanMessage) else "assistant"
        elif isinstance(turn, ChatMessage):
            role = turn.role
        else:
            return None
        said = _dialogue(role, turn.name, turn.content)
        return None if said is None else (*said, {})
    if isinstance(turn, tuple):
        if len(turn) != 2 or not all(isinstance(x, str) for x in turn):
            raise MemoryValidationError(f"turn {index}: a pair must be (speaker, text) strings")
        return turn[0], turn[1], {}
    if isinstance(turn, Mapping):
        if "role" in turn:
            unknown = set(turn) - _CHAT_FIELDS
            if unknown or not isinstance(turn["role"], str):
                raise MemoryValidationError(
                    f"turn {index}: a chat message has a string 'role', 'content' and an "
                    f"optional 'name'; unknown field(s) {sorted(unknown)}"
                )
            said = _dialogue(turn["role"], turn.get("name"), turn.get("content"))
            return None if said is None else (*said, {})
        unknown = set(turn) - _TURN_FIELDS
        if unknown:
            raise MemoryValidationError(f"turn {index}: unknown field(s) {sorted(unknown)}")
        who, said_text = turn.get("speaker"), turn.get("text")
        if not isinstance(who, str) or not isinstance(said_text, str):
            raise MemoryValidationError(f"turn {index}: 'speaker' and 'text' must be strings")
        return who, said_text, turn
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
    previous: str | None = None,
) -> list[dict[str, Any]]:
    """Memory items for ``remember_many``: ``"speaker: text"``, with the previous turn as context.

    Turns whose text is empty (an AI message that only calls tools, a blank line) and
    messages that are not dialogue (system, tool) are skipped. Turns without their own
    ``created_at`` get ``created_at`` (default: now) plus one millisecond per turn, so their
    order survives. ``previous`` is the context of the first turn (the last turn of an
    earlier call, when a session is stored in parts).

    Example:
        >>> items = conversation_items([("Bob", "Tea or coffee?"), ("Alice", "Tea, always.")])
        >>> items[1]["content"], items[1]["context"]
        ('Alice: Tea, always.', 'Bob: Tea or coffee?')
    """
    if isinstance(turns, str | bytes) or not isinstance(turns, Sequence):
        raise MemoryValidationError("turns must be a sequence of turns")
    if previous is not None and not isinstance(previous, str):
        raise MemoryValidationError("previous must be a string (the turn before the first)")
    start = to_utc(created_at, what="created_at") if created_at is not None else utcnow()
    items: list[dict[str, Any]] = []
    for index, turn in enumerate(turns):
        parsed = _parse(turn, index)
        if parsed is None:
            continue
        speaker, text, extra = parsed
        speaker, text = speaker.strip(), text.strip()
        if not speaker:
            raise MemoryValidationError(f"turn {index}: the speaker must not be empty")
        if not text:
            continue
        content = f"{speaker}: {text}"
        item: dict[str, Any] = {
            "content": content,
            "importance": importance if extra.get("importance") is None else extra["importance"],
            "tags": tags if extra.get("tags") is None else extra["tags"],
            "source": source,
            "created_at": extra.get("created_at") or start + timedelta(milliseconds=len(items)),
        }
        if extra.get("key") is not None:
            item["key"] = extra["key"]
        if previous:
            item["context"] = previous
        items.append(item)
        previous = content
    return items
