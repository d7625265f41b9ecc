"""The store's filters: InMemoryStore's semantics in Python, and what the engine can apply.

A store filter is checked exactly here (``_compare``) on what comes back; ``_engine_filter``
translates the parts Qdrant can apply exactly, so the engine returns only candidates that can
match. Pure functions.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from langgraph.store.base import (
    MatchCondition,
    SearchOp,
)
from qdrant_client.http import models

from langgraph_prax_memory._validation import (
    to_utc,
)
from langgraph_prax_memory.errors import (
    MemoryValidationError,
)
from langgraph_prax_memory.vectors import (
    NS_SEP,
)


def _compare(item_value: Any, filter_value: Any) -> bool:
    """InMemoryStore's filter semantics (JSONB-like, with ``$eq/$ne/$gt/$gte/$lt/$lte``)."""
    if isinstance(filter_value, dict):
        if any(k.startswith("$") for k in filter_value):
            return all(_apply(item_value, op, v) for op, v in filter_value.items())
        if not isinstance(item_value, dict):
            return False
        return all(_compare(item_value.get(k), v) for k, v in filter_value.items())
    if isinstance(filter_value, list | tuple):
        return (
            isinstance(item_value, list | tuple)
            and len(item_value) == len(filter_value)
            and all(_compare(i, f) for i, f in zip(item_value, filter_value, strict=True))
        )
    return bool(item_value == filter_value)


def _apply(value: Any, op: str, target: Any) -> bool:
    if op == "$eq":
        return bool(value == target)
    if op == "$ne":
        return bool(value != target)
    if op in ("$gt", "$gte", "$lt", "$lte"):
        try:
            a, b = float(value), float(target)
        except (TypeError, ValueError):
            return False
        return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]
    raise MemoryValidationError(f"unsupported filter operator: {op}")


_SIMPLE_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


#: Integers the engine compares exactly (its numbers are 64-bit floats and integers).
_EXACT_INT = 2**53


def _number(value: Any) -> float | None:
    """``value`` as a float if the engine can compare it exactly, else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int) and abs(value) >= _EXACT_INT:
        return None  # (and float() of a huge int would overflow)
    number = float(value)
    if not math.isfinite(number) or abs(number) >= _EXACT_INT:
        return None
    return number


def _engine_filter(
    flt: Mapping[str, Any] | None, path: str = "value", *, ranges: bool = True
) -> tuple[list[models.Condition], list[models.Condition]]:
    """The ``must`` / ``must_not`` conditions the engine applies for a store filter.

    Every filter is still checked exactly in Python afterwards (InMemoryStore's semantics);
    these conditions make the engine return only candidates that can match, on every arm of
    a query search and in every scan, so a selective filter never empties a short candidate
    list. Translated: string and boolean equality, numeric equality (int and float alike, as
    a range ``[v, v]``: ``1`` finds ``1.0``), ``$gt/$gte/$lt/$lte`` on numbers (with
    ``ranges``), and nested objects. Left to the Python check only: ``$ne`` (the engine's
    must-not drops a list holding the value, which InMemoryStore keeps), list equality, keys
    that are not plain identifiers (a JSON-path character would change the meaning), numbers
    beyond 2**53. Range filters in the engine match numeric values only, so filter-only
    scans (which cast, as InMemoryStore does) leave ranges to the Python check
    (``ranges=False``); a query search runs them in the engine (docs/store.md).
    """
    must: list[models.Condition] = []
    must_not: list[models.Condition] = []
    for key, want in (flt or {}).items():
        if not isinstance(key, str) or not _SIMPLE_KEY.match(key):
            continue
        field = f"{path}.{key}"
        if isinstance(want, dict) and want and not any(k.startswith("$") for k in want):
            inner_must, inner_not = _engine_filter(want, field, ranges=ranges)
            must.extend(inner_must)
            must_not.extend(inner_not)
            continue
        ops = want if isinstance(want, dict) else {"$eq": want}
        for op, target in ops.items():
            if op == "$ne" or (not ranges and op not in ("$eq",)):
                continue
            cond = _condition(field, op, target)
            if cond is None:
                continue
            (must_not if op == "$ne" else must).append(cond)
    return must, must_not


def _condition(field: str, op: str, target: Any) -> models.Condition | None:
    if op in ("$eq", "$ne"):
        if isinstance(target, str | bool):
            return models.FieldCondition(key=field, match=models.MatchValue(value=target))
        number = _number(target)
        if number is None:
            return None
        return models.FieldCondition(key=field, range=models.Range(gte=number, lte=number))
    if op in ("$gt", "$gte", "$lt", "$lte"):
        number = _number(target)
        if number is None:
            return None
        return models.FieldCondition(key=field, range=models.Range(**{op[1:]: number}))
    return None


def _prefix_condition(prefix: tuple[str, ...]) -> models.FieldCondition:
    """Points whose namespace starts with ``prefix`` (matched by whole labels)."""
    return models.FieldCondition(
        key="ns_prefixes", match=models.MatchValue(value=NS_SEP.join(prefix))
    )


def _matches(cond: MatchCondition, ns: tuple[str, ...]) -> bool:
    path = tuple(cond.path)
    if len(ns) < len(path):
        return False
    pairs = (
        zip(ns, path, strict=False)
        if cond.match_type == "prefix"
        else zip(reversed(ns), reversed(path), strict=False)
    )
    return all(p == "*" or k == p for k, p in pairs)


#: Reserved filter keys of a query search (stripped before the value filter): superseded
#: memories leave a query search like ``recall``; ``{"$include_history": True}`` brings them
#: back, ``{"$as_of": <datetime or ISO string>}`` searches what was current then.
HISTORY_FILTER_KEYS = ("$include_history", "$as_of")


def _history_option(op: SearchOp) -> tuple[SearchOp, dict[str, Any]]:
    """``op`` without the reserved history keys, and the recall arguments they ask for."""
    if not op.filter or not any(k in op.filter for k in HISTORY_FILTER_KEYS):
        return op, {}
    rest = {k: v for k, v in op.filter.items() if k not in HISTORY_FILTER_KEYS}
    history: dict[str, Any] = {}
    if op.filter.get("$include_history"):
        history["include_history"] = True
    if op.filter.get("$as_of") is not None:
        history["as_of"] = to_utc(op.filter["$as_of"], what="$as_of")
    return op._replace(filter=rest or None), history
