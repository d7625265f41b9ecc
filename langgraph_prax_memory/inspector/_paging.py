"""The memories page's listing: one total order per sort, read as cheaply as the sort allows.

Every sort orders by its key **and then by the memory id**, so no two memories ever tie: a
page holds the same memories however it was reached, and walking the pages shows every
memory exactly once (2,000 memories stored in one batch share one creation time; sorted by
it alone, the engine returned them in any order, and pages overlapped).

Pages are reached by number (``page=N``) or by cursor (``after=`` / ``before=`` a memory's
key and id, what the next / previous links carry): a cursor keeps its place when memories are
added or removed meanwhile (an agent writing while someone pages), so following "next"
never repeats or skips one.

How a page is read (nothing is kept between requests; every view shows the memories as they
are now):

- **engine**: sorted by creation or importance, without a text search or the "due" state:
  the engine orders by the indexed field and reads only the page (ties at a page's edge
  are read by value and ordered by id);
- **index**: "closest to pruning" (effective importance), "last recalled", "most recalled"
  and the "due" state: the importance, last recall and creation of every matching memory
  are read from the engine's payload index (a value and an id each, no payload), and the
  recall counts from the engine only for the memories whose last recall differs from their
  creation (every recalled one is among them);
- **scan**: a text search (the words are matched here), or an engine that cannot order (the
  pure-Python local mode): the few payload fields the sort needs are read for every matching
  memory and sorted here.
"""

from __future__ import annotations

import contextlib
import gc
import math
import re
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from langgraph_prax_memory._validation import utcnow
from langgraph_prax_memory.errors import BackendUnavailable, MemoryValidationError
from langgraph_prax_memory.inspector._reading import (
    Item,
    Key,
    _and,
    _empty,
    _Listed,
    _match,
    _Ordered,
    _range,
    _Reader,
    _Source,
)
from langgraph_prax_memory.inspector._render import MemoryRow, memory_row
from langgraph_prax_memory.vectors import VECTOR_PRUNE_THRESHOLD

if TYPE_CHECKING:
    from qdrant_client.http import models

    from langgraph_prax_memory.memory import PraxMemory

#: Sort orders of the memories page: key → label.
SORTS: dict[str, str] = {
    "newest": "newest first",
    "oldest": "oldest first",
    "importance": "importance, highest first",
    "effective": "closest to pruning first",
    "recalled": "last recalled first",
    "recalls": "most recalled first",
}
STATES = ("all", "current", "superseded", "due")
#: Sorts the engine orders itself: the indexed payload field and whether it runs high to low.
ENGINE_SORTS: dict[str, tuple[str, bool]] = {
    "newest": ("created_ts", True),
    "oldest": ("created_ts", False),
    "importance": ("importance", True),
}
_HISTORY = "valid_until_ts"
_ID = re.compile(r"^[A-Za-z0-9-]{1,64}$")


class Cursor(NamedTuple):
    """A place in a sort's total order: a memory's sort key and its id."""

    key: Key
    id: str

    def text(self) -> str:
        """``key,...,id`` for a URL (floats as Python writes them back exactly)."""
        return ",".join([*(repr(float(v)) for v in self.key), self.id])

    @classmethod
    def parse(cls, text: str, sort: str) -> Cursor:
        """The cursor written by :meth:`text` for ``sort``.

        Raises:
            MemoryValidationError: Not a cursor of this sort.
        """
        parts = text.split(",")
        width = _KEY_WIDTH[sort]
        bad = MemoryValidationError(
            f"not a cursor of the {sort!r} sort: {text[:80]!r} (follow the page's own links)"
        )
        if len(parts) != width + 1 or not _ID.match(parts[-1]):
            raise bad
        try:
            key = tuple(float(v) for v in parts[:-1])
        except ValueError:
            raise bad from None
        if any(math.isnan(v) for v in key):
            raise bad
        return cls(key, parts[-1])


_KEY_WIDTH = {s: (2 if s == "recalled" else 1) for s in SORTS}


@dataclass
class MemoryPage:
    """One page of the memories table and what the filters matched.

    Attributes:
        rows: The page's memories, in the sort's order.
        total: The user's memories.
        matched: Those the search and filters match.
        page: The page number (of ``page_size`` rows; with a cursor, where the page starts).
        pages: How many pages the matched memories fill.
        start: The 0-based position of the first row among the matched memories.
        first: The first row's cursor (the previous link's ``before=``), ``None`` when empty.
        last: The last row's cursor (the next link's ``after=``).
        sources: Every source of the user's memories (the filter's choices).
        tags: Every tag of the user's memories.
        how: How the page was read: ``engine``, ``index`` or ``scan``.
    """

    rows: list[MemoryRow]
    total: int
    matched: int
    page: int
    pages: int
    sources: list[str]
    tags: list[str]
    start: int = 0
    first: Cursor | None = None
    last: Cursor | None = None
    how: str = "scan"


@contextlib.contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cycle collector while a listing allocates ~50,000 small objects.

    None of them is in a cycle (reference counting frees them all), but their number
    triggers full collections that traverse every object of the process (the embedding
    model's included): on a server, as much time again as the listing itself. Resumed on
    the way out (if it was on).
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


# -- keys of each sort ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Clock:
    """What the decay sorts need: now and the decay rate."""

    now_ts: float
    per_second: float

    def log_effective(self, importance: float, last: float) -> float:
        """``log(effective importance)`` up to a constant: the order of "closest to pruning".

        ``importance · 2^(-(now - last)/halflife)`` orders as ``log(importance) + rate ·
        min(last, now)``, which does not change as time passes: a cursor keeps its place.
        """
        if importance <= 0.0:
            return -math.inf
        return math.log(importance) + self.per_second * min(last, self.now_ts)

    def due(self, importance: float, last: float) -> bool:
        threshold = VECTOR_PRUNE_THRESHOLD
        effective = importance * math.exp(-self.per_second * max(0.0, self.now_ts - last))
        return importance < threshold or effective < threshold


def _scan_key(sort: str, p: dict[str, Any], clock: _Clock) -> Key:
    created = float(p.get("created_ts") or 0.0)
    if sort == "newest":
        return (-created,)
    if sort == "oldest":
        return (created,)
    importance = float(p.get("importance", 0.5))
    if sort == "importance":
        return (-importance,)
    last = float(p.get("last_accessed_ts") or created)
    recalls = int(p.get("access_count") or 0)
    if sort == "effective":
        return (clock.log_effective(importance, last),)
    if sort == "recalled":
        return (0.0 if recalls > 0 else 1.0, -last)
    return (-float(recalls),)


#: The payload fields each sort and state reads when scanning (the fewer, the less to convert).
_SORT_FIELDS = {
    "newest": ("created_ts",),
    "oldest": ("created_ts",),
    "importance": ("importance",),
    "effective": ("importance", "last_accessed_ts", "created_ts"),
    "recalled": ("access_count", "last_accessed_ts", "created_ts"),
    "recalls": ("access_count",),
}
#: The indexed fields each sort reads for every memory on the index path (every memory has
#: its last recall there: a creation is not needed in its place).
_INDEX_FIELDS = {
    "newest": ("created_ts",),
    "oldest": ("created_ts",),
    "importance": ("importance",),
    "effective": ("importance", "last_accessed_ts"),
    "recalled": ("last_accessed_ts", "created_ts"),
    "recalls": ("last_accessed_ts", "created_ts"),
}
_STATE_FIELDS = {
    "all": (),
    "current": (_HISTORY,),
    "superseded": (_HISTORY,),
    "due": ("importance", "last_accessed_ts", "created_ts"),
}


def _scanned(
    reader: _Reader,
    flt: models.Filter,
    *,
    sort: str,
    state: str,
    words: Sequence[str],
    clock: _Clock,
) -> _Listed:
    """Every matching memory's key from its payload (the text search, local mode)."""
    fields = sorted({*_SORT_FIELDS[sort], *_STATE_FIELDS[state], *(["content"] if words else [])})
    items: list[Item] = []
    for point_id, p in reader.payloads(flt, fields):
        if words:
            content = str(p.get("content", "")).casefold()
            if not all(w in content for w in words):
                continue
        if state != "all":
            superseded = p.get(_HISTORY) is not None
            if superseded != (state == "superseded") and state != "due":
                continue
            if state == "due":
                created = float(p.get("created_ts") or 0.0)
                last = float(p.get("last_accessed_ts") or created)
                if not clock.due(float(p.get("importance", 0.5)), last):
                    continue
        items.append((_scan_key(sort, p, clock), point_id))
    return _Listed(items)


def _indexed(
    reader: _Reader, flt: models.Filter, *, sort: str, state: str, clock: _Clock
) -> _Source:
    """The sorts the engine cannot order, and the "due" state, from the payload index.

    Each key field (importance, last recall, creation) is read for every matching memory
    by the engine's order on its index: a value and an id per memory, no payload. The recall
    counts ("last recalled", "most recalled") are not indexed: the engine is asked for them
    only about the memories whose last recall differs from their creation (a recall sets the
    last recall to the moment of the recall, so every recalled memory is among them, unless
    it was recalled at the very instant it was created).

    Raises:
        BackendUnavailable: The engine cannot order, or some memory lacks an indexed field
            (written before it existed): the caller scans instead.
    """
    from qdrant_client.http import models

    matched = reader.count(flt)
    wanted = set(_INDEX_FIELDS[sort])
    if state == "due":
        wanted |= {"importance", "last_accessed_ts"}
    counted = sort in ("recalled", "recalls")
    values: dict[str, dict[Any, float]] = {}
    for name in sorted(wanted):
        values[name] = {i: v for v, i in reader.ordered(flt, name, True, matched)}
        if len(values[name]) != matched:
            raise BackendUnavailable(f"a memory without {name}: scanned instead")
    importance = values.get("importance", {})
    last = values.get("last_accessed_ts", {})
    created = values.get("created_ts", {})
    ids: Any = next(iter(values.values())).keys() if values else reader.ids(flt)
    if state == "due":
        ids = [i for i in ids if clock.due(importance[i], last[i])]
    counts: dict[Any, int] = {}
    if counted:
        maybe = [reader.text(i) for i in ids if last[i] != created[i]]
        if maybe:
            named: list[int | str | uuid.UUID] = list(maybe)
            asked = _and(flt, models.HasIdCondition(has_id=named), _range("access_count", gte=1))
            counts = {
                i: int(p.get("access_count") or 0)
                for i, p in reader.payloads(asked, ["access_count"])
            }
    key: Callable[[Any], Key]
    if sort == "effective":
        key = lambda i: (clock.log_effective(importance[i], last[i]),)  # noqa: E731
    elif sort == "importance":
        key = lambda i: (-importance[i],)  # noqa: E731
    elif sort in ("newest", "oldest"):
        sign = -1.0 if sort == "newest" else 1.0
        key = lambda i: (sign * created[i],)  # noqa: E731
    elif sort == "recalled":
        key = lambda i: (0.0 if counts.get(i) else 1.0, -last[i])  # noqa: E731
    else:
        key = lambda i: (-float(counts.get(i, 0)),)  # noqa: E731
    return _Listed([(key(i), i) for i in ids])


def _state_filter(flt: models.Filter, state: str) -> models.Filter:
    if state == "current":
        return _and(flt, _empty(_HISTORY))
    if state == "superseded":
        return _and(flt, must_not=[_empty(_HISTORY)])
    return flt


def _source(
    reader: _Reader,
    flt: models.Filter,
    *,
    sort: str,
    state: str,
    words: Sequence[str],
    clock: _Clock,
    how: str,
) -> tuple[_Source, str]:
    """The cheapest way to list this sort, filter and search (``how``: force one)."""
    if state == "due":  # a standing fact is never pruned (docs/context.md, "Memory classes")
        flt = _and(flt, must_not=[_match("fact_class", "standing")])
    if how == "scan" or words:  # a search matches its words here
        return _scanned(reader, flt, sort=sort, state=state, words=words, clock=clock), "scan"
    narrowed = _state_filter(flt, state)
    try:
        if how in ("auto", "engine") and sort in ENGINE_SORTS and state != "due":
            field, desc = ENGINE_SORTS[sort]
            source: _Source = _Ordered(reader, narrowed, field, desc)
            source.after(None, 1)  # the engine can order: or BackendUnavailable now
            return source, "engine"
        if how in ("auto", "index"):
            return _indexed(reader, narrowed, sort=sort, state=state, clock=clock), "index"
    except BackendUnavailable:
        if how != "auto":
            raise
    return _scanned(reader, flt, sort=sort, state=state, words=words, clock=clock), "scan"


def memory_page(
    mem: PraxMemory,
    user_id: str,
    *,
    q: str = "",
    source: str = "",
    tag: str = "",
    state: str = "all",
    sort: str = "newest",
    page: int = 1,
    after: str = "",
    before: str = "",
    page_size: int = 50,
    now: datetime | None = None,
    how: str = "auto",
) -> MemoryPage:
    """One page of any search, filter and sort (see the module's docstring).

    Args:
        mem: The memory.
        user_id: Whose memories (every read is pinned to this user).
        q: Words the content must hold (case-insensitive), all of them.
        source: Only memories of this source.
        tag: Only memories with this tag.
        state: ``all``, ``current``, ``superseded`` or ``due`` (pruned by a pass run now).
        sort: One of :data:`SORTS`; ties in the sort's key are ordered by id.
        page: The page number (1-based; clamped to the last page).
        after: A cursor (:meth:`Cursor.text`): the page just after that memory.
        before: A cursor: the page just before that memory.
        how: ``auto`` (the cheapest read), or force ``engine``, ``index`` or ``scan`` (tests
            compare them).
        page_size: Rows per page.
        now: The clock of the decay arithmetic (default: now).

    Raises:
        MemoryValidationError: An unknown sort or state, or a cursor of another sort.
        BackendUnavailable: The engine cannot answer (or cannot answer as ``how`` asked).
    """
    from langgraph_prax_memory.models import Memory
    from langgraph_prax_memory.retrieval import ltm_filter

    if sort not in SORTS:
        raise MemoryValidationError(f"unknown sort {sort!r}; use one of {sorted(SORTS)}")
    if state not in STATES:
        raise MemoryValidationError(f"unknown state {state!r}; use one of {list(STATES)}")
    if how not in ("auto", "engine", "index", "scan"):
        raise MemoryValidationError(f"unknown way to read {how!r}")
    size = max(1, page_size)
    cursor_after = Cursor.parse(after, sort) if after else None
    cursor_before = Cursor.parse(before, sort) if before and not after else None
    store = mem.vectors
    reader = _Reader(store, user_id)
    when = now or utcnow()
    halflife = mem.config.decay_halflife_days
    clock = _Clock(when.timestamp(), math.log(2) / (halflife * 86400.0))
    words = [w for w in q.casefold().split() if w]
    chosen = ltm_filter(user_id, tags=[tag] if tag else None, sources=[source] if source else None)
    at_after = (cursor_after.key, reader.point_id(cursor_after.id)) if cursor_after else None
    at_before = (cursor_before.key, reader.point_id(cursor_before.id)) if cursor_before else None
    with _cyclic_gc_paused():
        listing, how_read = _source(
            reader, chosen, sort=sort, state=state, words=words, clock=clock, how=how
        )
        matched = listing.count()
        pages = max(1, -(-matched // size))
        items: list[Item] = []
        if at_after is not None:
            items = listing.after(at_after, size)
        elif at_before is not None:
            items = listing.before(at_before, size)
            if len(items) < size:  # at the start: the first page, whole
                items = listing.after(None, size)
        if items:
            start = listing.rank(items[0])
        else:  # by number (or a cursor past either end: the nearest page)
            number = pages if at_after is not None else min(max(1, page), pages)
            start = (number - 1) * size
            items = listing.skip(start, size)
        del listing  # freed here, while the collector is paused
    shown = [reader.text(i) for _, i in items]
    full = {p.id: p.payload for p in store.retrieve(user_id, shown)}
    rows = [memory_row(Memory.from_payload(i, full[i]), when, halflife) for i in shown if i in full]
    total = matched if not (tag or source or state != "all" or words) else None
    return MemoryPage(
        rows=rows,
        total=total if total is not None else store.count(user_id, ltm_filter(user_id)),
        matched=matched,
        page=start // size + 1,
        pages=pages,
        sources=sorted(store.facet("source", user_id=user_id)),
        tags=sorted(store.facet("tags", user_id=user_id)),
        start=start,
        first=Cursor(items[0][0], reader.text(items[0][1])) if items else None,
        last=Cursor(items[-1][0], reader.text(items[-1][1])) if items else None,
        how=how_read,
    )
