"""Which points the embedded engine's recent writes touched (``EdgeClient.changed_since``).

Every write of an :class:`~langgraph_prax_memory.vectors.EdgeClient` moves its write stamp
(``EdgeClient.write_stamp``). The journal remembers, for the last writes, the stamp each one
ended at, its collection, and the ids of the points whose payload or existence it may have
changed: the points it upserted or deleted, and those whose payload it set, overwrote or
cleared, named by id or by a filter that names them (a ``has_id`` condition among the
filter's ``must``: the filter can match no other point). A write that changes vectors only
touches no payload. A write by a filter without ids that names its users (a ``user_id``
match among the filter's ``must``, as forgetting a user deletes every point of theirs) is
recorded as :class:`Unpinned`: any point of those users, and no point of another user (a
point's ``user_id`` is one string). Any other write that cannot be pinned to ids (a filter
naming neither, a new payload index, a compaction) is recorded as unknown.

So whoever kept something read at an earlier stamp (the inspector's table of a user's
memories) can read again only the points named since, instead of everything; when the
journal cannot tell (an unknown write, a write by a filter over the reader's user, or more
writes since than it keeps), it says so and everything is read again.

:func:`fields_set_by_operations` names the payload fields a write sets when it does nothing
else: a write that sets only :data:`BOOKKEEPING_FIELDS` (strengthen-on-recall) leaves the
client's content stamp (``EdgeClient.content_stamp``) where it was.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from qdrant_client.http import models

__all__ = [
    "BOOKKEEPING_FIELDS",
    "Unpinned",
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


class Unpinned(NamedTuple):
    """A write by a filter without ids that names its users: any point of ``users``.

    ``ids``: points it named besides (another operation of the same batch).
    """

    users: frozenset[str]
    ids: PointIds = frozenset()


#: What a write may change: points by id, every point of some users, or ``None`` (unknown).
Touched = PointIds | Unpinned | None


def _conditions(flt: models.Filter) -> list[Any]:
    must = flt.must
    return must if isinstance(must, list) else [must] if must is not None else []


def _has_ids(flt: models.Filter) -> PointIds | None:
    """The ids a filter's ``must`` pins it to (``None``: not pinned to ids)."""
    found: set[Any] | None = None
    for condition in _conditions(flt):
        if isinstance(condition, models.HasIdCondition):
            ids = set(condition.has_id)
            found = ids if found is None else found & ids
    return None if found is None else frozenset(found)


def _users(flt: models.Filter) -> frozenset[str] | None:
    """The users a filter's ``must`` pins it to (a ``user_id`` match); ``None``: none named."""
    found: set[str] | None = None
    for condition in _conditions(flt):
        if not isinstance(condition, models.FieldCondition) or condition.key != "user_id":
            continue
        match = condition.match
        if isinstance(match, models.MatchValue) and isinstance(match.value, str):
            users = {match.value}
        elif isinstance(match, models.MatchAny) and all(isinstance(u, str) for u in match.any):
            users = {str(u) for u in match.any}
        else:
            continue
        found = users if found is None else found & users
    return None if found is None else frozenset(found)


def _by_filter(flt: models.Filter) -> Touched:
    ids = _has_ids(flt)
    if ids is not None:
        return ids
    users = _users(flt)
    return None if users is None else Unpinned(users)


def touched_by_selector(selector: Any) -> Touched:
    """The points a write by ``selector`` (ids, or a filter) may change; ``None``: unknown.

    Example:
        >>> gone = models.Filter(must=[
        ...     models.FieldCondition(key="user_id", match=models.MatchValue(value="bob"))])
        >>> touched_by_selector(models.FilterSelector(filter=gone))
        Unpinned(users=frozenset({'bob'}), ids=frozenset())
    """
    if isinstance(selector, models.PointIdsList):
        return frozenset(selector.points)
    if isinstance(selector, models.FilterSelector):
        return _by_filter(selector.filter)
    if isinstance(selector, models.Filter):
        return _by_filter(selector)
    if isinstance(selector, Sequence) and not isinstance(selector, str):
        return frozenset(selector)
    return None


def touched_by_operations(operations: Iterable[Any]) -> Touched:
    """The points a batch of ``models`` operations may change the payload or existence of."""
    out: set[Any] = set()
    users: set[str] = set()
    for op in operations:
        got: Touched
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
        if isinstance(got, Unpinned):
            users |= got.users
            out |= got.ids
        else:
            out |= got
    return Unpinned(frozenset(users), frozenset(out)) if users else frozenset(out)


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
    """The last writes of one client: ``(stamp, collection, what it touched)`` each.

    Args:
        stamp: The client's stamp when the journal starts (nothing written since).
        writes: How many writes to keep.
        ids: How many point ids to keep over those writes.
    """

    def __init__(self, stamp: int, *, writes: int = KEPT_WRITES, ids: int = KEPT_IDS) -> None:
        self._lock = threading.Lock()
        self._entries: deque[tuple[int, str | None, Touched]] = deque()
        self._size = 0
        self._max_writes, self._max_ids = writes, ids
        #: The earliest stamp the journal can answer from.
        self._floor = stamp

    def record(self, stamp: int, collection: str | None, touched: Touched) -> None:
        """A write ended at ``stamp``.

        Args:
            stamp: The client's stamp once it ended.
            collection: Its collection (``None``: any).
            touched: The points it may have changed (``None``: not known).
        """
        if touched is not None and _size(touched) > self._max_ids:
            touched = None
        with self._lock:
            self._entries.append((stamp, collection, touched))
            self._size += _size(touched)
            while len(self._entries) > self._max_writes or self._size > self._max_ids:
                old, _, gone = self._entries.popleft()
                self._size -= _size(gone)
                self._floor = old

    def since(self, stamp: int, collection: str, user_id: str | None = None) -> PointIds | None:
        """The points of ``collection`` written after ``stamp``; ``None``: cannot tell.

        ``stamp`` must be one this client gave (``write_stamp``), with no write under way
        since it was read; a stamp older than the journal reaches gives ``None``.
        ``user_id``: only that user's points matter to the caller, so a write by a filter
        over other users' points (:class:`Unpinned`) changed none of them (and over this
        user's, cannot tell).
        """
        out: set[Any] = set()
        with self._lock:
            if stamp < self._floor:
                return None
            for at, where, touched in self._entries:
                if at <= stamp or (where is not None and where != collection):
                    continue
                if touched is None:
                    return None
                if isinstance(touched, Unpinned):
                    if user_id is None or user_id in touched.users:
                        return None
                    out |= touched.ids
                else:
                    out |= touched
        return frozenset(out)


def _size(touched: Touched) -> int:
    """How many ids ``touched`` holds (what the journal counts against its bound)."""
    if isinstance(touched, Unpinned):
        return len(touched.ids) + len(touched.users)
    return len(touched or ())
