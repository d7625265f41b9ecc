"""Pure functions that turn a store item (namespace, key, value) into a Qdrant payload."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from langgraph_prax_memory._validation import check_importance, check_tags, check_unicode, to_utc
from langgraph_prax_memory.errors import MemoryValidationError

__all__ = [
    "FOLDED_CONTENT",
    "build_payload",
    "content_hash",
    "extract_text",
    "keyword_text",
    "namespace_prefixes",
]

NS_SEP = "\x1f"  # a control character: user ids and namespace labels cannot contain it
#: The payload field holding the content case-folded (``str(content).casefold()``), keyword
#: indexed: a text search asks the engine which memories hold a word anywhere in it
#: (``MatchSubstring``: the inspector's search) instead of reading every memory's content.
FOLDED_CONTENT = "content_folded"


def namespace_prefixes(namespace: Sequence[str]) -> list[str]:
    """Every prefix of ``namespace``, joined by the separator, for prefix filters."""
    return [NS_SEP.join(namespace[: i + 1]) for i in range(len(namespace))]


def keyword_text(content: str, context: object = None) -> str:
    """The text a memory's sparse vector is built from: its context, then its content.

    ``context`` counts only when it is a non-empty string. The dense vector encodes the
    content alone.

    Example:
        >>> keyword_text("Yes!", "Bob: Tea?").splitlines()
        ['Bob: Tea?', 'Yes!']
    """
    return f"{context}\n{content}" if isinstance(context, str) and context else content


def content_hash(user_id: str, text: str) -> str:
    """Hash used to deduplicate identical memories per user."""
    return hashlib.sha256(f"{user_id}\x00{text.strip()}".encode()).hexdigest()


def _at_path(value: Any, path: str) -> list[str]:
    if path == "$":
        return [
            value
            if isinstance(value, str)
            else json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
        ]
    cur: list[Any] = [value]
    for part in path.split("."):
        nxt: list[Any] = []
        for item in cur:
            if part.endswith("[*]"):
                item = item.get(part[:-3]) if isinstance(item, dict) else None
                if isinstance(item, list):
                    nxt.extend(item)
            elif isinstance(item, dict) and part in item:
                nxt.append(item[part])
        cur = nxt
    out: list[str] = []
    for item in cur:
        if isinstance(item, str):
            out.append(item)
        elif item is not None:
            out.append(json.dumps(item, sort_keys=True, default=str, ensure_ascii=False))
    return out


def extract_text(value: dict[str, Any], fields: Sequence[str] | None) -> str:
    """The text to embed for an item.

    With ``fields`` (LangGraph's ``index`` paths, ``"$"`` = the whole value) the texts at
    those paths are joined by newlines. Without, a string ``content`` field is used when the
    value has one (the memory convention), else the whole value as JSON.
    """
    if fields:
        return "\n".join(t for f in fields for t in _at_path(value, f) if t.strip())
    content = value.get("content")
    if isinstance(content, str):
        return content
    return _at_path(value, "$")[0]


def build_payload(
    *,
    user_id: str,
    namespace: Sequence[str],
    key: str,
    value: dict[str, Any],
    text: str,
    now: datetime,
    previous: dict[str, Any] | None,
    embedding_model: str | None,
    dense_pending: bool,
) -> dict[str, Any]:
    """The payload of one point (DESIGN §3), validated.

    Memory fields are read from ``value`` when present (``importance``, ``tags``, ``source``,
    ``created_at``, ``entity_ids``, ``summary_level``, ``valid_until`` / ``superseded_by`` of
    a superseded fact), so any store item can carry them. A
    caller importing history sets ``created_at`` in the value; otherwise an update keeps the
    first write's creation time.
    """
    importance = check_importance(value.get("importance", 0.5))
    tags = check_tags(value.get("tags"))
    source = value.get("source", "conversation")
    if not isinstance(source, str) or not source.strip():
        raise MemoryValidationError("source must be a non-empty string")
    entity_ids = value.get("entity_ids") or []
    if not isinstance(entity_ids, list) or not all(isinstance(e, str) for e in entity_ids):
        raise MemoryValidationError("entity_ids must be a list of strings")
    for entity in entity_ids:
        check_unicode(entity, what="an entity id")
    level = value.get("summary_level", "raw")
    if level not in ("raw", "daily", "weekly", "global"):
        raise MemoryValidationError("summary_level must be raw, daily, weekly or global")
    if value.get("created_at") is not None:
        created = to_utc(value["created_at"], what="created_at")
    elif previous and previous.get("created_ts") is not None:
        created = to_utc(previous["created_ts"])
    else:
        created = now
    keep_access = previous is not None and previous.get("last_accessed_ts") is not None
    last_ts = (
        float(previous["last_accessed_ts"]) if keep_access and previous else created.timestamp()
    )
    last_ts = max(last_ts, created.timestamp())
    last = to_utc(last_ts)
    seq = int(previous["seq"]) if previous and "seq" in previous else time.time_ns()
    history: dict[str, Any] = {}
    if value.get("valid_until") is not None:  # a superseded fact (consolidation, an import)
        until = to_utc(value["valid_until"], what="valid_until")
        history = {"valid_until": until.isoformat(), "valid_until_ts": until.timestamp()}
        if isinstance(value.get("superseded_by"), str):
            history["superseded_by"] = value["superseded_by"]
    return {
        **history,
        "user_id": user_id,
        "ns": list(namespace),
        "ns_path": NS_SEP.join(namespace),
        "ns_prefixes": namespace_prefixes(namespace),
        "key": key,
        "value": value,
        "content": text,
        FOLDED_CONTENT: text.casefold(),
        # a turn's context is part of its identity: "Yes!" to two questions is two memories
        "content_hash": content_hash(user_id, keyword_text(text, value.get("context"))),
        "source": source,
        "importance": importance,
        "tags": tags,
        "entity_ids": list(entity_ids),
        "summary_level": level,
        "created_at": created.isoformat(),
        "created_ts": created.timestamp(),
        "updated_at": now.isoformat(),
        "last_accessed": last.isoformat(),
        "last_accessed_ts": last.timestamp(),
        "access_count": int(previous.get("access_count", 0)) if previous else 0,
        "seq": seq,
        "embedding_model": embedding_model,
        "dense_pending": dense_pending,
    }
