"""Which points the embedded engine's recent writes touched (``EdgeClient.changed_since``).

Every write of an :class:`~langgraph_prax_memory.vectors.EdgeClient` moves its write stamp
(``EdgeClient.write_stamp``). The journal remembers, for the last writes, the stamp each one
ended at, its collection, and the ids of the points whose payload or existence it may have
changed: the points it upserted or deleted, and those whose payload it set, overwrote or
cleared, named by id or by a filter that names them (a ``has_id`` condition among the
filter's ``must``: the filter can match no other point). A write that changes vectors only
touches no payload. A write that cannot be pinned to ids (a filter without ``has_id``, a new
payload index, a compaction) is recorded as unknown.

So whoever kept something read at an earlier stamp (the inspector's table of a user's
memories) can read again only the points named since, instead of everything; when the
journal cannot tell (an unknown write, or more writes since than it keeps), it says so and
everything is read again.

:func:`fields_set_by_operations` names the payload fields a write sets when it does nothing
else: a write that sets only :data:`BOOKKEEPING_FIELDS` (strengthen-on-recall) leaves the
client's content stamp (``EdgeClient.content_stamp``) where it was.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

from qdrant_client.http import models

__all__ = [
    "BOOKKEEPING_FIELDS",
    "WriteJournal",
    "fields_set_by_operations",
    "touched_by_operations",
    "touched_by_selector",
]

#: Writes the journal keeps (older ones are forgotten: "cannot tell" for a stamp before them).
KEPT_WRITES = 4096
#: Point ids the journal keeps over all its writes (a bigger write is recorded as unknown).
KEPT_IDS = 50_000

#: The payload fields strengthen-on-recall sets (``vectors._plan.reinforce_plan``): what a
#: memory says, which memories exist, their vectors, TTLs, classes and supersession are
#: untouched by a write that sets only these.
BOOKKEEPING_FIELDS = frozenset({"access_count", "last_accessed", "last_accessed_ts"})

#: Point ids as the caller gave them (an unsigned int, or a UUID as text or ``uuid.UUID``).
PointIds = frozenset[Any]


def _has_ids(flt: models.Filter) -> PointIds | None:
    """The ids a filter's ``must`` pins it to (``None``: not pinned to ids)."""
    must = flt.must
    conditions = must if isinstance(must, list) else [must] if must is not None else []
    found: set[Any] | None = None
    for condition in conditions:
        if isinstance(condition, models.HasIdCondition):
            ids = set(condition.has_id)
            found = ids if found is None else found & ids
    return None if found is None else frozenset(found)


def touched_by_selector(selector: Any) -> PointIds | None:
    """The points a write by ``selector`` (ids, or a filter) may change; ``None``: unknown."""
    if isinstance(selector, models.PointIdsList):
        return frozenset(selector.points)
    if isinstance(selector, models.FilterSelector):
        return _has_ids(selector.filter)
    if isinstance(selector, models.Filter):
        return _has_ids(selector)
    if isinstance(selector, Sequence) and not isinstance(selector, str):
        return frozenset(selector)
    return None


def touched_by_operations(operations: Iterable[Any]) -> PointIds | None:
    """The points a batch of ``models`` operations may change the payload or existence of."""
    out: set[Any] = set()
    for op in operations:
        got: PointIds | None
        if isinstance(op, models.UpsertOperation):
            points = op.upsert
            got = (
                frozenset(p.id for p in points.points)
                if isinstance(points, models.PointsList)
                else None
            )
        elif isinstance(op, models.UpdateVectorsOperation | models.DeleteVectorsOperation):
            got = frozenset()  # vectors only
        elif isinstance(op, models.DeleteOperation):
            got = touched_by_selector(op.delete)
        elif isinstance(op, models.ClearPayloadOperation):
            got = touched_by_selector(op.clear_payload)
        elif isinstance(op, models.SetPayloadOperation):
            sp = op.set_payload
            got = touched_by_selector(sp.points if sp.points is not None else sp.filter)
        elif isinstance(op, models.OverwritePayloadOperation):
            ow = op.overwrite_payload
            got = touched_by_selector(ow.points if ow.points is not None else ow.filter)
        elif isinstance(op, models.DeletePayloadOperation):
            dp = op.delete_payload
            got = touched_by_selector(dp.points if dp.points is not None else dp.filter)
        else:
            got = None
        if got is None:
            return None
        out |= got
    return frozenset(out)


def fields_set_by_operations(operations: Iterable[Any]) -> frozenset[str] | None:
    """The top-level payload fields ``operations`` set, when setting them is all they do.

    ``None`` when any of them does more or else: an upsert, a delete, a vector write, a
    payload overwritten, cleared or deleted, or fields set inside a nested object (``key``).

    Example:
        >>> op = models.SetPayloadOperation(
        ...     set_payload=models.SetPayload(payload={"access_count": 2}, points=[1]))
        >>> sorted(fields_set_by_operations([op]))
        ['access_count']
        >>> gone = models.DeleteOperation(delete=models.PointIdsList(points=[1]))
        >>> fields_set_by_operations([op, gone]) is None
        True
    """
    out: set[str] = set()
    for op in operations:
        if not isinstance(op, models.SetPayloadOperation) or op.set_payload.key is not None:
            return None
        out.update(op.set_payload.payload)
    return frozenset(out)


class WriteJournal:
    """The last writes of one client: ``(stamp, collection, touched ids or None)`` each.

    Args:
        stamp: The client's stamp when the journal starts (nothing written since).
        writes: How many writes to keep.
        ids: How many point ids to keep over those writes.
    """

    def __init__(self, stamp: int, *, writes: int = KEPT_WRITES, ids: int = KEPT_IDS) -> None:
        self._lock = threading.Lock()
        self._entries: deque[tuple[int, str | None, PointIds | None]] = deque()
        self._size = 0
        self._max_writes, self._max_ids = writes, ids
        #: The earliest stamp the journal can answer from.
        self._floor = stamp

    def record(self, stamp: int, collection: str | None, touched: PointIds | None) -> None:
        """A write ended at ``stamp``.

        Args:
            stamp: The client's stamp once it ended.
            collection: Its collection (``None``: any).
            touched: The points it may have changed (``None``: not known).
        """
        if touched is not None and len(touched) > self._max_ids:
            touched = None
        with self._lock:
            self._entries.append((stamp, collection, touched))
            self._size += len(touched or ())
            while len(self._entries) > self._max_writes or self._size > self._max_ids:
                old, _, ids = self._entries.popleft()
                self._size -= len(ids or ())
                self._floor = old

    def since(self, stamp: int, collection: str) -> PointIds | None:
        """The points of ``collection`` written after ``stamp``; ``None``: cannot tell.

        ``stamp`` must be one this client gave (``write_stamp``), with no write under way
        since it was read; a stamp older than the journal reaches gives ``None``.
        """
        out: set[Any] = set()
        with self._lock:
            if stamp < self._floor:
                return None
            for at, where, ids in self._entries:
                if at <= stamp or (where is not None and where != collection):
                    continue
                if ids is None:
                    return None
                out |= ids
        return frozenset(out)
