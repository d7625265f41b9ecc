"""Reading many points page by page, in the engine's order or by a payload field's.

Pure paging over one "read a page" call (:meth:`QdrantVectorStore.scroll` supplies it), so
the store keeps its I/O and this module its arithmetic.

An ordered read's next page starts a little *below* the last value read, not at ``last + 1``:
the engine compares order values as doubles, and a value such as a nanosecond ``seq``
(~1.8e18) is only exact to 256 there, so ``last + 1`` could repeat the last point or skip its
neighbours. The overlap is read again and left out by id.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from qdrant_client.http import models

from langgraph_prax_memory.vectors._plan import DENSE, StoredPoint, to_stored

__all__ = ["scroll_points"]

#: Points per request.
SCROLL_PAGE = 512
#: An ordered read's next page starts this far below the last value read (more than half a
#: double's spacing for any 64-bit integer) ...
ORDER_SLACK = 2048
#: ... and reads this many points more than it needs (those of the overlap, left out by id).
ORDER_OVERLAP = 64


def scroll_points(
    read_page: Callable[[dict[str, Any]], tuple[list[Any], Any]],
    flt: models.Filter,
    *,
    limit: int,
    order_by: str | None = None,
    start_from: int | None = None,
    with_vector: bool = False,
) -> list[StoredPoint]:
    """Up to ``limit`` points matching ``flt``, each once, read with ``read_page(kwargs)``.

    ``read_page`` takes the engine's scroll arguments and returns ``(records, next offset)``.
    With ``order_by`` (an integer payload field) points come in ascending order of it,
    starting at ``start_from``; ``with_vector``: dense vectors in ``extras["vector"]``.
    """
    out: list[StoredPoint] = []
    seen: set[str] = set()
    offset: Any = None
    while len(out) < limit:
        page = min(SCROLL_PAGE, limit - len(out))
        vectors = [DENSE] if with_vector else False
        kwargs: dict[str, Any] = {"scroll_filter": flt, "limit": page, "with_vectors": vectors}
        if order_by:
            page = min(SCROLL_PAGE, limit - len(out) + ORDER_OVERLAP)
            kwargs["limit"] = page
            kwargs["order_by"] = models.OrderBy(key=order_by, start_from=start_from)
        else:
            kwargs["offset"] = offset
        records, offset = read_page(kwargs)
        fresh = [r for r in records if str(r.id) not in seen]
        seen.update(str(r.id) for r in fresh)
        out.extend(to_stored(r, with_vector=with_vector) for r in fresh)
        if not records or len(records) < page:
            break
        if order_by:
            if not fresh:  # more points in the overlap than a page holds: no way on
                break
            start_from = int(records[-1].payload[order_by]) - ORDER_SLACK
        elif offset is None:
            break
    return out[:limit]
