"""The "due" state as an engine filter: the memories a forgetting pass run now would prune.

A pass prunes a memory that is not a standing fact when ``importance < 0.02`` or ``importance
· exp(-rate · max(0, now - last recall)) < 0.02`` (``_table._due``, ``_paging._Clock.due``).
That needs both numbers of a memory at once, which no engine filter compares; but within a
band of importance ``[lo, hi)`` a memory recalled before ``now - ln(hi / 0.02) / rate`` is
surely due, and one recalled at or after ``now - ln(lo / 0.02) / rate`` surely is not. So
importance from 0.02 to the user's highest is cut into :data:`_BANDS` geometric bands: the
engine's filter takes the sure ones by two ranges per band, and the few memories between the
two bounds of their band (a margin of a second and more on each side, for rounding) are read
(two numbers each) and tested here with the pass's own arithmetic, then named by id. The
filter selects exactly the due memories, so the engine orders and counts them, and a page of
"due" sorted by creation or importance reads only that page (``_paging``), as the other
filters do.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from langgraph_prax_memory.inspector._reading import _and, _empty, _match, _range, _Reader
from langgraph_prax_memory.vectors import VECTOR_PRUNE_THRESHOLD

if TYPE_CHECKING:
    from qdrant_client.http import models

#: Geometric bands of importance between the prune threshold and the user's highest.
_BANDS = 24
_LAST = "last_accessed_ts"


def due_now(importance: np.ndarray, last: np.ndarray, now_ts: float, rate: float) -> np.ndarray:
    """What a forgetting pass run at ``now_ts`` would prune (as ``_Clock.due``)."""
    threshold = VECTOR_PRUNE_THRESHOLD
    effective = importance * np.exp(-rate * np.maximum(0.0, now_ts - last))
    return (importance < threshold) | (effective < threshold)  # type: ignore[no-any-return]


def due_filter(
    reader: _Reader, flt: models.Filter, now_ts: float, rate: float
) -> models.Filter | None:
    """``flt`` narrowed to the memories a pass at ``now_ts`` prunes (see the module).

    ``None`` when it cannot be told this way (the caller reads every memory's numbers): no
    decay (``rate`` not positive), or a memory without an importance or a last recall.
    """
    from qdrant_client.http import models

    if not (rate > 0.0 and math.isfinite(rate)):
        return None
    threshold = VECTOR_PRUNE_THRESHOLD
    base = _and(flt, must_not=[_match("fact_class", "standing")])
    for field in ("importance", _LAST):
        if reader.count(_and(base, _empty(field))):
            return None
    sure: list[Any] = [_range("importance", lt=threshold)]
    top = reader.ordered(base, "importance", True, 1)
    if top and float(top[0][0]) >= threshold:
        highest = float(top[0][0])
        edges = [threshold * (highest / threshold) ** (k / _BANDS) for k in range(_BANDS)]
        edges.append(highest)
        margin = 1.0 + 1e-9 / rate  # seconds: far more than the arithmetic's rounding
        between: list[Any] = []
        for k in range(_BANDS):
            lo, hi = edges[k], edges[k + 1]
            top_band = k == _BANDS - 1
            band = _range("importance", gte=lo, **({"lte": hi} if top_band else {"lt": hi}))
            surely = now_ts - math.log(hi / threshold) / rate - margin
            maybe = now_ts - math.log(lo / threshold) / rate + margin
            sure.append(models.Filter(must=[band, _range(_LAST, lt=surely)]))
            between.append(models.Filter(must=[band, _range(_LAST, gte=surely, lt=maybe)]))
        read = reader.payloads(_and(base, models.Filter(should=between)), ["importance", _LAST])
        if read:
            try:
                importance = np.array([float(p["importance"]) for _, p in read])
                last = np.array([float(p[_LAST]) for _, p in read])
            except (KeyError, TypeError, ValueError):  # not numbers: the table decides
                return None
            due = due_now(importance, last, now_ts, rate).tolist()
            named: list[Any] = [reader.text(i) for (i, _), d in zip(read, due, strict=True) if d]
            if named:
                sure.append(models.HasIdCondition(has_id=named))
    return _and(base, models.Filter(should=sure))
