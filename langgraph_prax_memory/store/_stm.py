"""The scratchpad namespace ``("stm", user_id)``: its values, items and checks (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langgraph.store.base import (
    Item,
    SearchItem,
    SearchOp,
)

from langgraph_prax_memory._validation import (
    check_importance,
    check_tags,
    check_text,
)
from langgraph_prax_memory.embeddings import tokenize
from langgraph_prax_memory.errors import (
    MemoryValidationError,
)
from langgraph_prax_memory.stm import StmEntry
from langgraph_prax_memory.store._filters import _compare

#: Namespace root of the scratchpad: ``("stm", user_id)`` is that user's STM.
STM_ROOT = "stm"


_STM_FIELDS = frozenset({"content", "importance", "tags"})


def _is_stm(namespace: tuple[str, ...]) -> bool:
    return len(namespace) == 2 and namespace[0] == STM_ROOT


def _check_stm_value(value: Mapping[str, Any], max_chars: int) -> None:
    if not isinstance(value, Mapping):
        raise MemoryValidationError("value must be a dict")
    unknown = set(value) - _STM_FIELDS
    if unknown:
        raise MemoryValidationError(
            f"scratchpad values take {sorted(_STM_FIELDS)}, not {sorted(unknown)}"
        )
    check_text(value.get("content"), max_chars=max_chars)
    if value.get("importance") is not None:
        check_importance(value["importance"])
    check_tags(value.get("tags"))


def _stm_value(entry: StmEntry) -> dict[str, Any]:
    return {
        "content": entry.content,
        "importance": entry.importance,
        "tags": list(entry.tags),
        "access_count": entry.access_count,
    }


def _stm_item(namespace: tuple[str, ...], entry: StmEntry) -> Item:
    return Item(
        value=_stm_value(entry),
        key=entry.key,
        namespace=tuple(namespace),
        created_at=entry.created_at,
        updated_at=entry.created_at,
    )


def _stm_search_item(namespace: tuple[str, ...], entry: StmEntry) -> SearchItem:
    return SearchItem(
        tuple(namespace), entry.key, _stm_value(entry), entry.created_at, entry.created_at
    )


def stm_search(ns: tuple[str, ...], entries: Sequence[StmEntry], op: SearchOp) -> list[SearchItem]:
    """A search of the scratchpad: the exact filter, then word overlap with the query."""
    items = [_stm_search_item(ns, e) for e in entries]
    if op.filter:
        items = [i for i in items if all(_compare(i.value.get(k), v) for k, v in op.filter.items())]
    if op.query:
        words = set(tokenize(op.query))
        for item in items:
            text = set(tokenize(f"{item.key} {item.value['content']}"))
            item.score = len(words & text) / len(words) if words else 0.0
        items.sort(key=lambda i: -(i.score or 0.0))
    return items[op.offset : op.offset + op.limit]
