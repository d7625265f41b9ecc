"""A user's long-term memories as columns, kept between views and following the writes.

The memories page's sorts the engine cannot order ("closest to pruning", "last recalled",
"most recalled"), the "due" state, text searches and pages past row 1,000 need a value
of every matching memory. :class:`_Table` holds them, one column at a time as a page first
asks for it, for one user:

- importance, last recall and creation: from the engine's payload index (an ordered read:
  a value and an id per memory, no payload);
- recall counts: the recalled memories' counts, from the payload index too (``access_count``
  is indexed; the memories not in that read were never recalled);
- which memories are superseded, standing facts, of a tag or of a source, or hold a
  search's words: their ids, by the engine's own filter (words: ``MatchSubstring`` on the
  keyword-indexed case-folded content, ``vectors.FOLDED_CONTENT``);
- the content, case-folded, only when a memory lacks that copy (written before it existed):
  read once; the same payload read fills the columns above that are still missing.

A column holds every memory or none: a memory without an indexed field (written before the
field existed) makes the page a scan (``_paging._scanned``), as before tables were kept.

A table is kept (per store, for the few users viewed last) while no memory of the user
reaches its expiry, and it follows the writes: the embedded engine's write stamp
(``EdgeClient.write_stamp``) says whether anything was written since the table was read, and
its journal (``EdgeClient.changed_since``) which points: those alone are read again (the
user's memories among them, with the fields the table holds, and which of them each mask
selects) and put in their rows (:meth:`_Table.followed`); the rest is kept. When the journal
cannot tell (a write by a filter naming neither ids nor only other users; more writes since
than it keeps) or a written memory lacks a column's number, the table is read again whole.
A write between two reads of one table (an agent writing while someone pages) drops it: the
page is read again. Elsewhere (a Qdrant server, which other processes write) nothing is
kept: each page reads what it needs, as it did before tables were kept.

A page is then arithmetic on the columns (numpy): the filters as masks, the sort's key
(the decay arithmetic for the page's clock), one stable sort by the key and then the
memory's id (the ids are the table's rows in order), and the cursor's place by comparison.
"""

from __future__ import annotations

import bisect
import copy
import itertools
import math
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from langgraph_prax_memory.errors import BackendUnavailable
from langgraph_prax_memory.inspector._due import due_filter, due_now
from langgraph_prax_memory.inspector._reading import (
    _and,
    _Columns,
    _empty,
    _holding,
    _match,
    _range,
    _Reader,
)

if TYPE_CHECKING:
    from qdrant_client.http import models

T = TypeVar("T")

#: Users whose tables one store keeps (those viewed last).
_KEPT = 4
#: Text searches whose rows a kept table keeps (the first ones asked).
_SEARCHES = 8
_HISTORY = "valid_until_ts"
#: The columns read from the payload index as they are (``_Table.column``).
_INDEXED = frozenset({"importance", "last_accessed_ts", "created_ts"})
#: The indexed fields each sort's key is made of (``_keys``; recall counts apart).
_KEY_FIELDS = {
    "newest": ("created_ts",),
    "oldest": ("created_ts",),
    "importance": ("importance",),
    "effective": ("importance", "last_accessed_ts"),
    "recalled": ("last_accessed_ts",),
    "recalls": (),
}


def _numbers(values: Sequence[Any]) -> bool:
    """Whether every value is a number (an int or a float, not a bool)."""
    return set(map(type, values)) <= {float, int}


def _merged(kept: list[T], added: Sequence[T], at: np.ndarray) -> list[T]:
    """``kept`` with ``added[j]`` put in before ``kept[at[j]]`` (``at`` ascending)."""
    out: list[T] = []
    start = 0
    for j, stop in enumerate(at.tolist()):
        out.extend(kept[start:stop])
        out.append(added[j])
        start = stop
    out.extend(kept[start:])
    return out


class _Moved(Exception):
    """Something was written while a kept table was read: read the page again."""


class _Table:
    """One user's columns (see the module's docstring), filled as pages ask for them.

    Rows are the user's memories in id order, so ordering ties by row orders them by id.
    ``stamp`` is the write stamp it was started at, ``None`` when it is not kept.
    """

    def __init__(self, reader: _Reader, stamp: int | None) -> None:
        from langgraph_prax_memory.retrieval import ltm_filter

        self.stamp = stamp
        self.lock = threading.Lock()
        #: The user's memories unexpired now (and until ``expires``).
        self.flt: models.Filter = ltm_filter(reader.user)
        self.expires = math.inf
        self.ids: list[Any] | None = None
        self._rows: dict[Any, int] | None = {}
        self.columns: dict[str, np.ndarray] = {}
        self.masks: dict[tuple[str, str], np.ndarray] = {}
        #: Each mask's conditions (``must``, ``must_not``) besides the table's filter.
        self.terms: dict[tuple[str, str], tuple[tuple[Any, ...], tuple[Any, ...]]] = {}
        self.texts: list[str] | None = None
        #: Whether a text search is the engine's (``_Reader.folded``); ``None``: not asked.
        self.searchable: bool | None = None
        #: "due" was asked (the first time: the engine's filter; then the importance column).
        self.due_asked = False
        self.facets: dict[str, list[str]] = {}
        self.count: int = self._read(reader, lambda: reader.count(self.flt))
        if stamp is not None:
            try:  # the first memory to expire (the ordered read holds those with a date)
                first = reader.ordered(self.flt, "expires_at", False, 1)
            except BackendUnavailable:  # cannot tell: kept for this page only
                self.expires = -math.inf
            else:
                self.expires = float(first[0][0]) if first else math.inf
            self._read(reader, lambda: None)

    def _read(self, reader: _Reader, fn: Callable[[], T]) -> T:
        """``fn()``, checked against the stamp: :class:`_Moved` if a write came between."""
        got = fn()
        if self.stamp is not None and reader.write_stamp() != self.stamp:
            raise _Moved
        return got

    def _ids(self, reader: _Reader, flt: models.Filter) -> list[Any]:
        """``reader.ids(flt)``, checked against the stamp."""
        return self._read(reader, lambda: reader.ids(flt))

    @property
    def rows(self) -> dict[Any, int]:
        """Each memory's row by id (made when first asked for, after :meth:`followed`)."""
        if self._rows is None:
            self._rows = {i: r for r, i in enumerate(self.ids or ())}
        return self._rows

    def _place(self, ids: Sequence[Any]) -> np.ndarray:
        """The rows of ``ids`` (each a memory of the table)."""
        try:
            return np.array(list(map(self.rows.__getitem__, ids)), dtype=np.intp)
        except KeyError:  # pragma: no cover - the stamp said nothing was written
            raise BackendUnavailable("the memories changed while they were read") from None

    def _rows_from(self, ids: Sequence[Any]) -> None:
        """Take the user's memories from a read of all of them (the first read sets the rows)."""
        if self.ids is None:
            order = sorted(ids)
            rows = {i: r for r, i in enumerate(order)}
            if len(rows) != self.count:
                raise BackendUnavailable("a memory read twice, or one missing: scanned instead")
            self.ids, self._rows = order, rows

    def _every(self, ids: Sequence[Any], field: str) -> np.ndarray:
        """The rows of ``ids``, a read of every memory once (or BackendUnavailable)."""
        n = self.count
        if len(ids) != n:
            raise BackendUnavailable(f"a memory without {field}: scanned instead")
        self._rows_from(ids)
        at = self._place(ids)
        seen = np.zeros(n, dtype=bool)
        seen[at] = True
        if not seen.all():
            raise BackendUnavailable(f"a memory without {field}: scanned instead")
        return at

    def _fill(self, field: str, at: np.ndarray, values: Sequence[float]) -> np.ndarray:
        """The column ``field``: ``values`` at the rows ``at`` (every row once)."""
        column = np.empty(self.count)
        column[at] = np.asarray(values, dtype=float)
        self.columns[field] = column
        return column

    def column(self, reader: _Reader, field: str) -> np.ndarray:
        """An indexed float field of every memory, by row.

        Raises:
            BackendUnavailable: The engine cannot order by ``field``, or a memory lacks it
                (written before it existed): the page is scanned instead.
        """
        got = self.columns.get(field)
        if got is not None:
            return got
        with self.lock:
            if field in self.columns:
                return self.columns[field]
            n = self.count
            pairs = self._read(reader, lambda: reader.ordered(self.flt, field, True, n))
            values, ids = zip(*pairs, strict=True) if pairs else ((), ())
            return self._fill(field, self._every(ids, field), values)

    def log_importance(self, reader: _Reader) -> np.ndarray:
        """``log(importance)`` by row (``-inf`` for none), as :class:`_Clock` takes it."""
        got = self.columns.get("log_importance")
        if got is None:
            importance = self.column(reader, "importance")
            got = np.array(
                [math.log(v) if v > 0.0 else -math.inf for v in importance.tolist()], dtype=float
            )
            self.columns["log_importance"] = got
        return got

    def recalls(self, reader: _Reader) -> np.ndarray:
        """Recall counts by row, from the payload index (only recalled memories are read)."""
        got = self.columns.get("access_count")
        if got is not None:
            return got
        self.column(reader, "last_accessed_ts")  # every memory's row
        with self.lock:
            counts = np.zeros(self.count)
            recalled = _and(self.flt, _range("access_count", gte=1))
            pairs = self._read(
                reader, lambda: reader.ordered(recalled, "access_count", True, self.count)
            )
            if pairs:
                values, ids = zip(*pairs, strict=True)
                counts[self._place(ids)] = values
            self.columns["access_count"] = counts
            return counts

    def mask(
        self,
        reader: _Reader,
        name: tuple[str, str],
        *conds: Any,
        must_not: Sequence[Any] = (),
    ) -> np.ndarray:
        """Rows of the memories the table's filter and ``conds`` (not ``must_not``) match."""
        got = self.masks.get(name)
        if got is None:
            flt = _and(self.flt, *conds, must_not=must_not)
            ids = self._read(reader, lambda: reader.ids(flt))
            got = np.zeros(self.count, dtype=bool)
            got[self._place(ids)] = True
            self.terms[name] = (tuple(conds), tuple(must_not))  # first: see followed()
            self.masks[name] = got
        return got

    def folded(self, reader: _Reader) -> bool:
        """Whether every memory's content is searched by the engine's index (kept)."""
        if self.searchable is None:
            self.searchable = self._read(reader, lambda: reader.folded(self.flt))
        return self.searchable

    def selected(self, reader: _Reader, flt: models.Filter) -> np.ndarray:
        """Rows of the memories ``flt`` selects (a new mask, not kept)."""
        got = np.zeros(self.count, dtype=bool)
        got[self._place(self._ids(reader, flt))] = True
        return got

    def holding(self, reader: _Reader, words: Sequence[str]) -> np.ndarray:
        """Rows of the memories whose content holds every word (the engine's index).

        A mask, kept and followed as the filters' are, for the first :data:`_SEARCHES`
        searches the table is asked; past those, read for the page alone.
        """
        name = ("content", "\x1f".join(sorted(set(words))))
        if name in self.masks or sum(k[0] == "content" for k in list(self.terms)) < _SEARCHES:
            return self.mask(reader, name, *_holding(words))
        return self.selected(reader, _and(self.flt, *_holding(words)))

    def contents(self, reader: _Reader, fields: Sequence[str] = ()) -> list[str]:
        """Every memory's content, case-folded, by row.

        The same read brings the indexed ``fields`` the search sorts by that the table lacks
        (a payload read costs about as much for one field as for three): each fills its
        column when every memory has a number there, as the index would give it.
        """
        if self.texts is not None:
            return self.texts
        with self.lock:
            if self.texts is None:
                also = [f for f in fields if f not in self.columns]
                got = self._read(reader, lambda: reader.payloads(self.flt, ["content", *also]))
                at = self._every([i for i, _ in got], "content")
                for field in also:
                    values = [p.get(field) for _, p in got]
                    if _numbers(values):
                        self._fill(field, at, values)
                texts = [""] * self.count
                for row, (_, p) in zip(at.tolist(), got, strict=True):
                    texts[row] = str(p.get("content", "")).casefold()
                self.texts = texts
            return self.texts

    def followed(self, reader: _Reader, stamp: int, changed: Mapping[Any, Any]) -> _Table | None:
        """This table at a later ``stamp``: the memories ``changed`` since read again.

        ``changed`` maps each point written since (``EdgeClient.changed_since``) from the
        table's id to the engine's. One read brings those that are the user's memories now
        (the fields the table holds), one read per mask says which of them it selects; the
        other rows are kept as they are. A new table (this one is left as it is, for the
        pages reading it now).

        Returns:
            ``None`` when a column cannot take a changed memory (no number in its field, as
            the index would not hold it): a new table is read instead.

        Raises:
            _Moved: Something was written meanwhile.
        """
        from qdrant_client.http import models

        from langgraph_prax_memory.retrieval import ltm_filter

        old = self.ids
        if old is None:  # no column yet: a new table costs a count
            return None
        # what other pages may be adding to meanwhile, as it is now (a mask's terms first)
        columns, masks, terms, texts = (
            dict(self.columns),
            dict(self.masks),
            dict(self.terms),
            self.texts,
        )
        new = copy.copy(self)
        new.stamp, new.lock, new.flt = stamp, threading.Lock(), ltm_filter(reader.user)
        new.columns, new.masks, new.terms = columns, masks, terms
        # the filters' choices are of every point of the user (any namespace): read again
        new.facets = {} if changed else dict(self.facets)
        new.searchable = None if changed else self.searchable
        if not changed:
            return new
        named = models.HasIdCondition(has_id=list(changed.values()))
        fields = [f for f in columns if f in _INDEXED]
        if "log_importance" in columns and "importance" not in fields:
            fields.append("importance")
        wanted = [*fields, "expires_at", "access_count"]
        if texts is not None:
            wanted.append("content")
        got = dict(new._read(reader, lambda: reader.payloads(_and(new.flt, named), wanted)))
        added = sorted(got)
        values = {f: [got[i].get(f) for i in added] for f in fields}
        if not all(map(_numbers, values.values())):
            return None
        picked: dict[tuple[str, str], set[Any]] = {}
        for name in masks if added else ():
            conds, must_not = terms[name]
            picked[name] = set(new._ids(reader, _and(new.flt, named, *conds, must_not=must_not)))
        for i in added:
            expires = got[i].get("expires_at")
            if _numbers([expires]):
                new.expires = min(new.expires, float(expires))
        gone = []  # the rows of the changed memories the table holds (the ids are sorted)
        for i in sorted(changed):
            r = bisect.bisect_left(old, i)
            if r < len(old) and old[r] == i:
                gone.append(r)
        if not gone and not added:  # none of the user's memories
            return new
        flags = np.ones(len(old), dtype=bool)
        flags[gone] = False
        kept_rows = np.flatnonzero(flags)
        keep = flags.tolist()
        kept = list(itertools.compress(old, keep))
        at = np.array([bisect.bisect_left(kept, i) for i in added], dtype=np.intp)
        n = len(kept) + len(added)
        kept_to = np.arange(len(kept)) + np.searchsorted(at, np.arange(len(kept)), side="right")
        added_to = at + np.arange(len(added))

        def moved(column: np.ndarray, fresh: Sequence[Any]) -> np.ndarray:
            out = np.empty(n, dtype=column.dtype)
            out[kept_to] = column[kept_rows]
            out[added_to] = np.asarray(fresh, dtype=column.dtype)
            return out

        new.ids, new._rows = _merged(kept, added, at), None
        new.count = n
        new.columns = {}
        for field, column in columns.items():
            if field in _INDEXED:
                fresh = values[field]
            elif field == "log_importance":
                fresh = [math.log(v) if v > 0.0 else -math.inf for v in values["importance"]]
            elif field == "access_count":  # the recalled memories' (the index's range read)
                counts = [got[i].get("access_count") for i in added]
                fresh = [c if _numbers([c]) and c >= 1 else 0.0 for c in counts]
            else:  # pragma: no cover - a column this method does not know
                return None
            new.columns[field] = moved(column, fresh)
        new.masks = {k: moved(m, [i in picked[k] for i in added]) for k, m in masks.items()}
        if texts is not None:
            fresh_texts = [str(got[i].get("content", "")).casefold() for i in added]
            new.texts = _merged(list(itertools.compress(texts, keep)), fresh_texts, at)
        return new

    def facet(self, reader: _Reader, key: str) -> list[str]:
        """Every value of a keyword field among the user's points (the filters' choices)."""
        got = self.facets.get(key)
        if got is None:
            store, user = reader.store, reader.user
            got = sorted(self._read(reader, lambda: store.facet(key, user_id=user)))
            self.facets[key] = got
        return got


# -- tables kept per store ------------------------------------------------------------------

_TABLES: weakref.WeakKeyDictionary[Any, OrderedDict[str, _Table]] = weakref.WeakKeyDictionary()
_TABLES_LOCK = threading.Lock()


#: More memories written since a table was read than this: it is read again, whole.
_FOLLOW = 5_000


def _kept(reader: _Reader) -> _Table:
    """The user's kept table, followed to the writes since if any, else a new one."""
    stamp = reader.write_stamp()
    if stamp is not None:
        with _TABLES_LOCK:
            tables = _TABLES.get(reader.store)
            table = tables.get(reader.user) if tables is not None else None
        if table is not None and time.time() < table.expires:
            if table.stamp == stamp:
                got: _Table | None = table
            else:
                got = _followed(reader, table)
            if got is not None and time.time() < got.expires:
                _keep(reader, got)
                return got
    table = _Table(reader, stamp)
    if stamp is not None and table.expires > time.time():
        _keep(reader, table)
    return table


def _followed(reader: _Reader, table: _Table) -> _Table | None:
    """``table`` followed to the engine's writes since it was read (``None``: cannot)."""
    assert table.stamp is not None
    since = reader.changed_since(table.stamp)
    if since is None or len(since[1]) > _FOLLOW:
        return None
    try:
        return table.followed(reader, *since)
    except BackendUnavailable:
        return None


def _keep(reader: _Reader, table: _Table) -> None:
    """Keep ``table`` as its user's, the most recently used of its store."""
    with _TABLES_LOCK:
        tables = _TABLES.setdefault(reader.store, OrderedDict())
        tables[reader.user] = table
        tables.move_to_end(reader.user)
        while len(tables) > _KEPT:
            tables.popitem(last=False)


def with_table(reader: _Reader, fn: Callable[[_Table], T]) -> T:
    """``fn(table)`` over the user's table, read again from a new one if a write came between.

    An agent writing without pause gets a table that is not kept (the reads as they come).
    """
    for _ in range(2):
        try:
            table = _kept(reader)
            return fn(table)
        except _Moved:
            with _TABLES_LOCK:
                tables = _TABLES.get(reader.store)
                if tables is not None:
                    tables.pop(reader.user, None)
    return fn(_Table(reader, None))


# -- one page's source ------------------------------------------------------------------------


def _keys(table: _Table, reader: _Reader, sort: str, now_ts: float, rate: float) -> list[Any]:
    """The sort's key columns, by row (as ``_scan_key`` makes them, one memory at a time)."""
    if sort in ("newest", "oldest"):
        created = table.column(reader, "created_ts")
        return [-created if sort == "newest" else created]
    if sort == "importance":
        return [-table.column(reader, "importance")]
    if sort == "effective":
        last = table.column(reader, "last_accessed_ts")
        return [table.log_importance(reader) + rate * np.minimum(last, now_ts)]
    counts = table.recalls(reader)
    if sort == "recalled":
        last = table.column(reader, "last_accessed_ts")
        return [np.where(counts > 0, 0.0, 1.0), -last]
    return [-counts]


def table_rows(
    table: _Table,
    reader: _Reader,
    *,
    sort: str,
    state: str,
    tag: str,
    source: str,
    words: Sequence[str],
    now_ts: float,
    rate: float,
) -> np.ndarray:
    """Which rows the filters, state and search keep (a new mask).

    Raises:
        BackendUnavailable: A column cannot be read from the index (the caller scans).
        _Moved: Something was written meanwhile (:func:`with_table` reads again).
    """
    from qdrant_client.http import models

    texts: list[str] = []
    indexed = bool(words) and table.folded(reader)
    if words and not indexed:  # first: the same read brings the sort's columns
        due = ("importance", "last_accessed_ts") if state == "due" else ()
        texts = table.contents(reader, [*_KEY_FIELDS[sort], *due])
    if table.ids is None:  # the rows: the first column read (the sort's)
        table.column(reader, (*_KEY_FIELDS[sort], "last_accessed_ts")[0])
    keep = np.ones(table.count, dtype=bool)  # new: the kept masks are never changed
    if indexed:
        keep &= table.holding(reader, words)
    for field, value in (("tags", tag), ("source", source)):
        if value:
            match = models.FieldCondition(key=field, match=models.MatchAny(any=[value]))
            keep &= table.mask(reader, (field, value), match)
    if state in ("current", "superseded"):
        superseded = table.mask(reader, (_HISTORY, ""), must_not=[_empty(_HISTORY)])
        keep &= superseded if state == "superseded" else ~superseded
    elif state == "due":  # a standing fact is never pruned (docs/context.md, "Memory classes")
        pruned = None  # the first time, without importance: the engine's filter (_due.py)
        if "importance" not in table.columns and sort not in ("effective", "importance"):
            if not table.due_asked:
                pruned = table._read(reader, lambda: due_filter(reader, table.flt, now_ts, rate))
            table.due_asked = True  # asked again: the importance column, kept
        if pruned is not None:
            keep &= table.selected(reader, pruned)
        else:
            standing = table.mask(
                reader, ("fact_class", "standing"), _match("fact_class", "standing")
            )
            importance = table.column(reader, "importance")
            last = table.column(reader, "last_accessed_ts")
            keep &= ~standing & due_now(importance, last, now_ts, rate)
    if words and not indexed:
        for row in np.flatnonzero(keep).tolist():
            keep[row] = all(word in texts[row] for word in words)
    return keep


def table_source(
    table: _Table,
    reader: _Reader,
    *,
    sort: str,
    state: str,
    tag: str,
    source: str,
    words: Sequence[str],
    now_ts: float,
    rate: float,
) -> _Columns:
    """One sort, filter, state and search over the table (raises as :func:`table_rows`)."""
    keep = table_rows(
        table,
        reader,
        sort=sort,
        state=state,
        tag=tag,
        source=source,
        words=words,
        now_ts=now_ts,
        rate=rate,
    )
    keys = _keys(table, reader, sort, now_ts, rate)
    rows = np.flatnonzero(keep)
    return _Columns(table.ids or [], [k[rows] for k in keys], rows)
