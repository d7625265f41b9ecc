"""Validation of one memory before it is embedded (the first step of the one write path).

:func:`prepare_memory` checks an item given to ``remember_many`` (a string or a mapping) and
raises before anything is stored; :class:`~langgraph_prax_memory.ltm.LongTermMemory` embeds
and stores what it returns.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langgraph_prax_memory._validation import (
    check_importance,
    check_tags,
    check_text,
    check_unicode,
    to_utc,
)
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.vectors import keyword_text

__all__ = ["PreparedMemory", "prepare_memory"]


@dataclass(frozen=True)
class PreparedMemory:
    """A validated memory ready to embed."""

    key: str
    text: str
    value: dict[str, Any]
    explicit_key: bool
    index_text: str


def prepare_memory(user_id: str, item: Mapping[str, Any] | str, max_chars: int) -> PreparedMemory:
    """Validate one memory (a string or a mapping); raises before anything is stored."""
    if isinstance(item, str):
        item = {"content": item}
    if not isinstance(item, Mapping):
        raise MemoryValidationError(
            "each memory must be a string or a mapping with at least 'content'"
        )
    unknown = set(item) - {
        "content",
        "importance",
        "tags",
        "source",
        "created_at",
        "entity_ids",
        "key",
        "summary_level",
        "context",
    }
    if unknown:
        raise MemoryValidationError(f"unknown memory field(s): {sorted(unknown)}")
    text = check_text(item.get("content"), max_chars=max_chars)
    explicit = item.get("key") is not None
    key = item.get("key") if explicit else uuid.uuid4().hex
    if not isinstance(key, str) or not key.strip():
        raise MemoryValidationError("key must be a non-empty string")
    check_unicode(key, what="key")
    source = item.get("source") or "conversation"
    if isinstance(source, str):
        check_unicode(source, what="source")
    value: dict[str, Any] = {
        "content": text,
        "importance": check_importance(item.get("importance", 0.5)),
        "tags": check_tags(item.get("tags")),
        "source": source,
    }
    if item.get("created_at") is not None:
        value["created_at"] = to_utc(item["created_at"], what="created_at").isoformat()
    if item.get("entity_ids"):
        value["entity_ids"] = list(item["entity_ids"])
    if item.get("summary_level"):
        value["summary_level"] = item["summary_level"]
    if item.get("context") is not None:
        value["context"] = check_text(item["context"], max_chars=max_chars, what="context")
    index_text = keyword_text(text, value.get("context"))
    return PreparedMemory(
        key=key, text=text, value=value, explicit_key=explicit, index_text=index_text
    )
