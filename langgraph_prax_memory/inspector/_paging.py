"""The memories page's listing: one total order per sort, read as cheaply as the sort allows.

Every sort orders by its key **and then by the memory id**, so no two memories ever tie: a
page holds the same memories however it was reached, and walking the pages shows every
memory exactly once (2,000 memories stored in one batch share one creation time; sorted by
it alone, the engine returned them in any order, and pages overlapped).

Pages are reached by number (``page=N``) or by cursor (``after=`` / ``before=`` a memory's
key and id, what the next / previous links carry): a cursor keeps its place when memories are
added or removed meanwhile (an agent writing while someone pages), so following "next"
never repeats or skips one.

How a page is read (every view shows the memories as they are now):

- **engine**: sorted by creation or importance, without a text search or the "due" state,
  up to row 1,000 (``_DEEP``) by number, or from a cursor: the engine orders by the indexed
  field and reads only the page (ties at a page's edge are read by value and ordered by id);
- **index**: "closest to pruning" (effective importance), "last recalled", "most recalled",
  the "due" state, a text search, and pages past row 1,000: the user's table
  (``_table.py``), every memory's importance, last recall, creation and recall count from
  the engine's payload index (a value and an id each, no payload), its content for a
  search, kept until the next write (or the user's first expiry), then sorted and filtered
  here (numpy);
- **scan**: an engine that cannot order (the pure-Python local mode), a memory written
  without an indexed field, or a text search on a store another process may write (a Qdrant
  server, where nothing is kept): the few payload fields the sort needs are read for every
  matching memory and sorted here.
"""

from __future__ import annotations

import contextlib
import gc
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from langgraph_prax_memory._validation import utcnow
from langgraph_prax_memory.errors import BackendUnavailable, MemoryValidationError
from langgraph_prax_memory.inspector._due import due_filter
from langgraph_prax_memory.inspector._reading import (
    Item,
    Key,
    _and,
    _empty,
    _holding,
    _Listed,
    _match,
    _Ordered,
    _Reader,
    _Source,
)
from langgraph_prax_memory.inspector._render import MemoryRow, memory_row
from langgraph_prax_memory.inspector._table import _Table, table_source, with_table
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


class _Listing(NamedTuple):
    """What one page read: its items and the counts, filters' choices and way beside them."""

    items: list[Item]
    matched: int
    pages: int
    start: int
    total: int
    sources: list[str]
    tags: list[str]
    how: str


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
    if state == "due":  # a standing fact is never pruned (docs/context.md, "Memory classes")
        flt = _and(flt, must_not=[_match("fact_class", "standing")])
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


def _state_filter(flt: models.Filter, state: str) -> models.Filter:
    if state == "current":
        return _and(flt, _empty(_HISTORY))
    if state == "superseded":
        return _and(flt, must_not=[_empty(_HISTORY)])
    return flt


#: A numbered page from this row on reads the user's table, not the engine's order: the
#: engine would read every memory before it (as many values as the table's column holds).
_DEEP = 1000


def _source(
    reader: _Reader,
    table: _Table,
    flt: models.Filter,
    *,
    sort: str,
    state: str,
    words: Sequence[str],
    tag: str,
    source: str,
    clock: _Clock,
    how: str,
    deep: bool,
) -> tuple[_Source, str]:
    """The cheapest way to list this sort, filter and search (``how``: force one)."""
    indexed = bool(words) and how != "scan" and table.folded(reader)
    if how == "scan" or (words and not indexed and how == "auto" and table.stamp is None):
        return _scanned(reader, flt, sort=sort, state=state, words=words, clock=clock), "scan"
    try:
        engine = sort in ENGINE_SORTS and (indexed or not words)
        if how == "engine" or (how == "auto" and engine and not deep):
            chosen = _and(_state_filter(flt, state), *_holding(words)) if engine else None
            if chosen is not None and state == "due":  # the engine's filter of "due"
                chosen = due_filter(reader, chosen, clock.now_ts, clock.per_second)
            if chosen is not None:
                field, desc = ENGINE_SORTS[sort]
                ordered = _Ordered(reader, chosen, field, desc)
                ordered.after(None, 1)  # the engine can order: or BackendUnavailable now
                return ordered, "engine"
        if how in ("auto", "index"):
            columns = table_source(
                table,
                reader,
                sort=sort,
                state=state,
                tag=tag,
                source=source,
                words=words,
                now_ts=clock.now_ts,
                rate=clock.per_second,
            )
            return columns, "index"
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
    at_after = (cursor_after.key, reader.point_id(cursor_after.id)) if cursor_after else None
    at_before = (cursor_before.key, reader.point_id(cursor_before.id)) if cursor_before else None
    deep = at_after is None and at_before is None and (page - 1) * size >= _DEEP
    filtered = bool(tag or source or state != "all" or words)

    def listed(table: _Table) -> _Listing:
        chosen = ltm_filter(
            user_id, tags=[tag] if tag else None, sources=[source] if source else None
        )
        listing, how_read = _source(
            reader,
            table,
            chosen,
            sort=sort,
            state=state,
            words=words,
            tag=tag,
            source=source,
            clock=clock,
            how=how,
            deep=deep,
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
        return _Listing(
            items,
            matched,
            pages,
            start,
            table.count if filtered else matched,
            table.facet(reader, "source"),
            table.facet(reader, "tags"),
            how_read,
        )

    with _cyclic_gc_paused():
        got = with_table(reader, listed)
    items = got.items
    shown = [reader.text(i) for _, i in items]
    full = {p.id: p.payload for p in store.retrieve(user_id, shown)}
    rows = [memory_row(Memory.from_payload(i, full[i]), when, halflife) for i in shown if i in full]
    return MemoryPage(
        rows=rows,
        total=got.total,
        matched=got.matched,
        page=got.start // size + 1,
        pages=got.pages,
        sources=got.sources,
        tags=got.tags,
        start=got.start,
        first=Cursor(items[0][0], reader.text(items[0][1])) if items else None,
        last=Cursor(items[-1][0], reader.text(items[-1][1])) if items else None,
        how=got.how,
    )
