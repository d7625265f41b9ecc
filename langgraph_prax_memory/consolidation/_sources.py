"""Trace sources: where consolidation reads the conversation from.

A source returns its raw items (one ``trace.log`` line, or one message of a thread) and a
fingerprint of the first item. Consolidation keeps a *pointer* per source: one past the last
raw item handed to the extractor. A changed fingerprint (a rotated or replaced trace, messages
removed from the head of a thread) or fewer items than the pointer means the pointer no longer
addresses the same items and is reset (or, when the last consolidated item can still be found
by its id, re-aligned to it).

Three sources ship:

* :class:`CheckpointTraceSource` — the messages of a LangGraph thread, read from any
  checkpointer (``get_tuple`` / ``list``); the default for agents.
* :class:`TraceLogSource` — a ``trace.log`` file with the Prax semantics (one item per
  complete line; a line still being written is left for the next run).
* :class:`MessagesTraceSource` — a list of messages already in hand (a graph node's state).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from langchain_core.messages import BaseMessage

from langgraph_prax_memory._validation import to_utc
from langgraph_prax_memory.consolidation._models import TraceItem
from langgraph_prax_memory.errors import MemoryValidationError

__all__ = [
    "DEFAULT_ROLES",
    "CheckpointTraceSource",
    "MessagesTraceSource",
    "TraceLogSource",
    "TraceSource",
    "message_to_item",
    "thread_key",
]

logger = logging.getLogger(__name__)

#: Message roles consolidated by default (tool output and system prompts are skipped).
DEFAULT_ROLES: frozenset[str] = frozenset({"user", "assistant"})
_ROLE_OF_TYPE = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}
_TIME_KEYS = ("timestamp", "created_at", "time", "ts")
_LEADING_TIME = re.compile(
    r"^\s*\[?(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)\]?"
)
#: Checkpoints scanned (newest first) to date the messages of a thread.
MAX_HISTORY_CHECKPOINTS = 500


@runtime_checkable
class TraceSource(Protocol):
    """Where a consolidation run reads raw trace items from.

    ``key`` identifies the source in the state file; ``kind`` and ``ref`` describe it there.
    """

    key: str
    kind: str

    @property
    def ref(self) -> dict[str, str]:
        """A JSON-able description (thread id, path ...), recorded in the state file."""
        ...

    def read(self, *, since: int = 0) -> list[TraceItem]:
        """Every raw item, in order; ``since`` is a hint that earlier items need no timestamp."""
        ...


def fingerprint(items: Sequence[TraceItem]) -> str | None:
    """The fingerprint of a trace: a hash of its first raw item (id and text)."""
    if not items:
        return None
    first = items[0]
    return hashlib.sha256(f"{first.id or ''}\x00{first.text}".encode()).hexdigest()[:32]


def thread_key(thread_id: str, checkpoint_ns: str = "") -> str:
    """The state-file key of a conversation thread (the same for every message source)."""
    return f"thread:{thread_id}" + (f":{checkpoint_ns}" if checkpoint_ns else "")


def _message_time(message: BaseMessage) -> datetime | None:
    for bag in (message.additional_kwargs, message.response_metadata):
        for key in _TIME_KEYS:
            value = bag.get(key) if isinstance(bag, dict) else None
            if value is None:
                continue
            try:
                return to_utc(value)
            except MemoryValidationError:
                continue
    return None


def _message_text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        text = content
    else:
        parts: list[str] = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
        text = "".join(parts)
    if not text.strip():
        calls = getattr(message, "tool_calls", None) or []
        names = [str(c.get("name", "?")) for c in calls if isinstance(c, dict)]
        if names:
            text = f"(called tools: {', '.join(names)})"
    return text.strip()


def message_to_item(
    message: BaseMessage | dict[str, Any],
    *,
    roles: Iterable[str] = DEFAULT_ROLES,
    timestamp: datetime | None = None,
) -> TraceItem:
    """One message as a trace item ``"<role or name>: <text>"``.

    Messages of a role outside ``roles`` become blank items: they keep their position (the
    pointer is a message index) but are never sent to the extractor.

    Example:
        >>> from langchain_core.messages import HumanMessage
        >>> message_to_item(HumanMessage("I prefer dark mode", id="m1")).text
        'user: I prefer dark mode'
    """
    if isinstance(message, dict):
        from langchain_core.messages import convert_to_messages

        message = convert_to_messages([message])[0]
    role = _ROLE_OF_TYPE.get(message.type, message.type)
    allowed = set(roles)
    if role not in allowed:
        return TraceItem(text="", timestamp=timestamp, id=message.id)
    speaker = role
    name = getattr(message, "name", None)
    if role == "user" and isinstance(name, str) and name.strip():
        speaker = name.strip()
    text = _message_text(message)
    when = _message_time(message) or timestamp
    return TraceItem(text=f"{speaker}: {text}" if text else "", timestamp=when, id=message.id)


class MessagesTraceSource:
    """Messages already in hand, e.g. ``state["messages"]`` inside a graph node.

    Args:
        messages: The conversation, oldest first.
        thread_id: The thread they belong to; the state key is the same as for
            :class:`CheckpointTraceSource` of that thread, so both can be used interchangeably.
        checkpoint_ns: Checkpoint namespace of the thread ('' for the top-level graph).
        roles: Roles whose messages are consolidated.

    Example:
        >>> from langchain_core.messages import HumanMessage
        >>> src = MessagesTraceSource([HumanMessage("hi")], thread_id="t1")
        >>> src.key, src.read()[0].text
        ('thread:t1', 'user: hi')
    """

    kind = "messages"

    def __init__(
        self,
        messages: Sequence[BaseMessage | dict[str, Any]],
        *,
        thread_id: str = "default",
        checkpoint_ns: str = "",
        roles: Iterable[str] = DEFAULT_ROLES,
    ) -> None:
        self.messages = list(messages)
        self.thread_id = thread_id
        self.checkpoint_ns = checkpoint_ns
        self.roles = frozenset(roles)
        self.key = thread_key(thread_id, checkpoint_ns)

    @property
    def ref(self) -> dict[str, str]:
        """``{"thread_id", "checkpoint_ns"}``."""
        return {"thread_id": self.thread_id, "checkpoint_ns": self.checkpoint_ns}

    def read(self, *, since: int = 0) -> list[TraceItem]:
        """The messages as items."""
        return [message_to_item(m, roles=self.roles) for m in self.messages]


class CheckpointTraceSource:
    """The messages of a LangGraph thread, read from a checkpointer.

    Items are the messages of the thread's latest checkpoint (``channel_values[messages_key]``);
    a message's time is its own ``timestamp`` / ``created_at`` kwarg when it has one, else the
    time of the first checkpoint that contained it (from ``saver.list``, newest first, bounded).

    Args:
        saver: Any ``BaseCheckpointSaver`` (sync methods are used).
        thread_id: The conversation thread.
        checkpoint_ns: '' for the top-level graph.
        messages_key: The state key holding the messages.
        roles: Roles whose messages are consolidated.

    Example:
        >>> from langgraph.checkpoint.memory import InMemorySaver
        >>> CheckpointTraceSource(InMemorySaver(), "t1").read()
        []
    """

    kind = "checkpoint"

    def __init__(
        self,
        saver: Any,
        thread_id: str,
        *,
        checkpoint_ns: str = "",
        messages_key: str = "messages",
        roles: Iterable[str] = DEFAULT_ROLES,
    ) -> None:
        self.saver = saver
        self.thread_id = thread_id
        self.checkpoint_ns = checkpoint_ns
        self.messages_key = messages_key
        self.roles = frozenset(roles)
        self.key = thread_key(thread_id, checkpoint_ns)

    @property
    def ref(self) -> dict[str, str]:
        """``{"thread_id", "checkpoint_ns"}``."""
        return {"thread_id": self.thread_id, "checkpoint_ns": self.checkpoint_ns}

    def _config(self) -> dict[str, Any]:
        return {"configurable": {"thread_id": self.thread_id, "checkpoint_ns": self.checkpoint_ns}}

    def _messages(self, checkpoint: Any) -> list[Any]:
        values = checkpoint.get("channel_values", {}) if isinstance(checkpoint, dict) else {}
        found = values.get(self.messages_key) or []
        return list(found) if isinstance(found, list | tuple) else []

    def read(self, *, since: int = 0) -> list[TraceItem]:
        """The latest checkpoint's messages as items, dated from the checkpoint history."""
        latest = None
        for attempt in range(3):  # an in-memory saver may be written to concurrently
            try:
                latest = self.saver.get_tuple(self._config())
                break
            except RuntimeError:
                if attempt == 2:
                    raise
        if latest is None:
            return []
        messages = self._messages(latest.checkpoint)
        times = self._times(len(messages), since)
        return [
            message_to_item(m, roles=self.roles, timestamp=times.get(i))
            for i, m in enumerate(messages)
        ]

    def _times(self, count: int, since: int) -> dict[int, datetime]:
        """Message index → time of the oldest checkpoint that contained it (≥ ``since``)."""
        times: dict[int, datetime] = {}
        if count <= since:
            return times
        try:
            for n, tup in enumerate(self.saver.list(self._config())):
                if n >= MAX_HISTORY_CHECKPOINTS:
                    break
                size = len(self._messages(tup.checkpoint))
                try:
                    stamp = to_utc(tup.checkpoint.get("ts"))
                except MemoryValidationError:
                    continue
                for i in range(max(since, 0), min(size, count)):
                    times[i] = stamp  # older checkpoints overwrite: first appearance wins
                if size <= since:
                    break
        except Exception as exc:  # dating is best effort; the text is what matters
            logger.debug("could not date messages of thread %s: %s", self.thread_id, exc)
        return times


class TraceLogSource:
    r"""A ``trace.log`` file: one item per complete line (Prax semantics).

    Blank lines are separators. A last line without its newline is still being written and
    is left for the next run. A leading ISO timestamp (``2026-03-15T14:30:00Z ...`` or
    ``[2026-03-15 14:30:00] ...``) dates the line.

    Example:
        >>> import pathlib, tempfile
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "trace.log"
        >>> _ = path.write_text("user: hi\n\nassistant: hello\npartial")
        >>> [i.text for i in TraceLogSource(path).read()]
        ['user: hi', '', 'assistant: hello']
    """

    kind = "trace_log"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.key = f"trace:{self.path}"

    @property
    def ref(self) -> dict[str, str]:
        """``{"path"}``."""
        return {"path": str(self.path)}

    def read(self, *, since: int = 0) -> list[TraceItem]:
        """The complete lines of the file (none when it does not exist)."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return []
        text = raw.decode("utf-8", errors="replace")
        lines = text.split("\n")
        lines.pop()  # after the last "\n": "" or a line still being written
        items = []
        for line in lines:
            line = line.rstrip("\r")
            match = _LEADING_TIME.match(line)
            when = None
            if match:
                try:
                    when = to_utc(match.group(1).replace(" ", "T"))
                except MemoryValidationError:
                    when = None
            items.append(TraceItem(text=line, timestamp=when))
        return items


def describe(source: TraceSource) -> str:
    """A short human description of a source for logs."""
    return f"{source.kind} {json.dumps(source.ref, ensure_ascii=False)}"
