"""The memories page's reads: the engine reads pinned to one user, and the sorted sources.

:class:`_Reader` makes the few reads a listing needs (raw records on the embedded engine);
a source (:class:`_Listed`, read and sorted here; :class:`_Ordered`, ordered by the engine)
gives one sort's matching memories in its total order. ``_paging.py`` picks the source and
builds the page.
"""

from __future__ import annotations

import bisect
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from langgraph_prax_memory.errors import MemoryValidationError

if TYPE_CHECKING:
    from qdrant_client.http import models

    from langgraph_prax_memory.vectors import QdrantVectorStore

#: The most one ordered read returns (a user with more memories is read in steps).
_READ = 100_000

Key = tuple[float, ...]
#: A memory in a sort: its key and its id (the engine's id type, compared within a request).
Item = tuple[Key, Any]

# -- engine reads (pinned to one user) ----------------------------------------------------


def _and(flt: models.Filter, *conds: Any, must_not: Sequence[Any] = ()) -> models.Filter:
    from qdrant_client.http import models

    return models.Filter(
        must=[*(flt.must or []), *conds],  # type: ignore[misc]
        must_not=[*(flt.must_not or []), *must_not] or None,  # type: ignore[misc]
        should=flt.should,
    )


def _match(field: str, value: str) -> Any:
    from qdrant_client.http import models

    return models.FieldCondition(key=field, match=models.MatchValue(value=value))


def _range(field: str, **bounds: float) -> Any:
    from qdrant_client.http import models

    return models.FieldCondition(key=field, range=models.Range(**bounds))


def _empty(field: str) -> Any:
    from qdrant_client.http import models

    return models.IsEmptyCondition(is_empty=models.PayloadField(key=field))


def _holding(words: Sequence[str]) -> list[Any]:
    """Conditions: the case-folded content holds each of ``words`` (the keyword index)."""
    from qdrant_client.http import models

    from langgraph_prax_memory.vectors import FOLDED_CONTENT

    return [
        models.FieldCondition(key=FOLDED_CONTENT, match=models.MatchSubstring(substring=w))
        for w in words
    ]


class _Reader:
    """The few reads the listing makes, each pinned to the user (raw on the embedded engine).

    On the embedded engine the reads skip qdrant-client's models, and an id is kept as the
    number its UUID holds (which orders as the UUID's text does): a model, a string or a
    ``UUID`` per point (hashed in Python) cost more than the read itself for 10,000
    memories. Other clients give text ids. Ids are compared within one request only, and
    turned back to text (:meth:`text`) for the page's 50 and for cursors.
    """

    def __init__(self, store: QdrantVectorStore, user_id: str) -> None:
        from langgraph_prax_memory.vectors import EdgeClient

        self.store, self.user = store, user_id
        self.edge = isinstance(store.client, EdgeClient)

    def _check(self, flt: models.Filter) -> None:
        from langgraph_prax_memory.vectors import assert_pinned

        assert_pinned(flt, self.user)

    def point_id(self, text: str) -> Any:
        """A cursor's id as this reader's ids are (:meth:`text`'s inverse).

        Raises:
            MemoryValidationError: Not a memory id.
        """
        if not self.edge:
            return text
        if text.isdigit():  # an unsigned-integer point id (the library writes UUIDs)
            return -1 - int(text)
        try:
            return uuid.UUID(text).int
        except ValueError:
            raise MemoryValidationError(f"not a memory id in the cursor: {text[:64]!r}") from None

    def text(self, point: Any) -> str:
        """The id as the engine and the pages write it."""
        if not self.edge:
            return str(point)
        return str(-1 - point) if point < 0 else str(uuid.UUID(int=point))

    def write_stamp(self) -> int | None:
        """The embedded engine's write stamp (``EdgeClient.write_stamp``).

        Equal before and after some reads: nothing was written in between. ``None``: not
        known (another client, or a write under way): nothing read may be kept.
        """
        if not self.edge:
            return None
        return self.store.client.write_stamp()  # type: ignore[union-attr]

    def changed_since(self, stamp: int) -> tuple[int, dict[Any, Any]] | None:
        """The write stamp now, and the points written since ``stamp`` (``EdgeClient``).

        The points map this reader's id to the engine's (an unsigned int, or a UUID as
        text). A write by a filter over other users' points alone (forgetting another user)
        names none. ``None``: the engine cannot tell (see ``EdgeClient.changed_since``).
        """
        if not self.edge:
            return None
        got = self.store.client.changed_since(  # type: ignore[union-attr]
            stamp, self.store.collection, self.user
        )
        if got is None:
            return None
        now, points = got
        out: dict[Any, Any] = {}
        for point in points:
            if isinstance(point, int) and not isinstance(point, bool):
                out[-1 - point] = point
                continue
            try:
                engine = uuid.UUID(str(point))
            except ValueError:  # not a point id the engine took: cannot tell
                return None
            out[engine.int] = str(engine)
        return now, out

    def count(self, flt: models.Filter) -> int:
        return self.store.count(self.user, flt)

    def folded(self, flt: models.Filter) -> bool:
        """Whether the engine finds words in these memories' content by its keyword index.

        The embedded engine's ``MatchSubstring`` on the case-folded content
        (``vectors.FOLDED_CONTENT``, written with every memory) is ``word in
        content.casefold()``, as a scan tests it. False on other clients (a text search is
        a scan there) and when a memory lacks the field (written before it existed).
        """
        from qdrant_client.http import models

        from langgraph_prax_memory.vectors import FOLDED_CONTENT

        if not self.edge or not hasattr(models, "MatchSubstring"):
            return False
        return self.count(_and(flt, _empty(FOLDED_CONTENT))) == 0

    def _raw(
        self, flt: models.Filter, limit: int, offset: Any, payload: Any, order: Any
    ) -> tuple[list[Any], Any]:
        """One scroll: the engine's records (raw on the embedded engine) and the next offset."""
        store = self.store
        if self.edge:
            return store.call(  # type: ignore[no-any-return]
                "scroll",
                lambda: store.client.scroll_records(  # type: ignore[union-attr]
                    store.collection, flt, limit, offset, payload, order
                ),
            )
        kwargs: dict[str, Any] = {"order_by": order} if order is not None else {"offset": offset}
        return store.call(  # type: ignore[no-any-return]
            "scroll",
            lambda: store.client.scroll(
                store.collection,
                scroll_filter=flt,
                limit=limit,
                with_payload=payload,
                with_vectors=False,
                **kwargs,
            ),
        )

    def _id(self, raw: Any) -> Any:
        if not self.edge:
            return str(raw)
        return raw.int if isinstance(raw, uuid.UUID) else -1 - int(raw)

    def ordered(self, flt: models.Filter, field: str, descending: bool, limit: int) -> list[Any]:
        """``(value, id)`` of the first ``limit`` points by ``field`` (ties in any order).

        Raises:
            BackendUnavailable: The engine cannot order by ``field``.
        """
        from qdrant_client.http import models

        self._check(flt)
        if limit < 1:
            return []
        order = models.OrderBy(
            key=field, direction=models.Direction.DESC if descending else models.Direction.ASC
        )
        records, _ = self._raw(flt, limit, None, False, order)
        if self.edge:
            uuid_ = uuid.UUID
            return [
                (r.order_value, i.int if isinstance(i, uuid_) else -1 - int(i))
                for r in records
                for i in (r.id,)
            ]
        return [(float(r.order_value or 0.0), str(r.id)) for r in records]

    def ids(self, flt: models.Filter) -> list[Any]:
        """The ids of every point matching ``flt``, in order."""
        self._check(flt)
        out: list[Any] = []
        offset = None
        while True:
            records, offset = self._raw(flt, _READ, offset, False, None)
            out.extend(self._id(r.id) for r in records)
            if not records or offset is None:
                return sorted(out)

    def payloads(self, flt: models.Filter, fields: Sequence[str]) -> list[tuple[Any, Any]]:
        """``(id, payload)`` of every point matching ``flt``, with only ``fields``."""
        self._check(flt)
        out: list[tuple[Any, Any]] = []
        offset = None
        wanted = list(fields)
        while True:
            records, offset = self._raw(flt, _READ, offset, wanted, None)
            if self.edge:  # as _id, inlined: 10,000 calls cost more than the read's rest
                uuid_ = uuid.UUID
                out.extend(
                    (i.int if type(i) is uuid_ else -1 - int(i), r.payload or {})
                    for r in records
                    for i in (r.id,)
                )
            else:
                out.extend((str(r.id), r.payload or {}) for r in records)
            if not records or offset is None:
                return out


# -- sources: one sort's matching memories in order ---------------------------------------


class _Source(Protocol):
    def count(self) -> int: ...

    def after(self, cursor: Item | None, n: int) -> list[Item]:
        """The ``n`` items just after ``cursor`` (from the first without one)."""

    def before(self, cursor: Item, n: int) -> list[Item]:
        """The ``n`` items just before ``cursor``, in order."""

    def rank(self, item: Item) -> int:
        """How many items come before ``item``."""

    def skip(self, offset: int, n: int) -> list[Item]:
        """The items at positions ``offset`` .. ``offset + n - 1``."""


class _Listed:
    """Items read and sorted here."""

    def __init__(self, items: list[Item]) -> None:
        items.sort()
        self.items = items

    def count(self) -> int:
        return len(self.items)

    def after(self, cursor: Item | None, n: int) -> list[Item]:
        i = 0 if cursor is None else bisect.bisect_right(self.items, cursor)
        return self.items[i : i + n]

    def before(self, cursor: Item, n: int) -> list[Item]:
        j = bisect.bisect_left(self.items, cursor)
        return self.items[max(0, j - n) : j]

    def rank(self, item: Item) -> int:
        return bisect.bisect_left(self.items, item)

    def skip(self, offset: int, n: int) -> list[Item]:
        return self.items[offset : offset + n]


class _Ordered:
    """Items the engine orders by an indexed field; ties at a page's edge read by value.

    The key of a point is ``prefix + (±value,)`` (negated when the field runs high to low),
    its id breaks ties: the engine's own order among equal values is not used.
    """

    def __init__(
        self,
        reader: _Reader,
        flt: models.Filter,
        field: str,
        descending: bool,
        prefix: Key = (),
    ) -> None:
        self.reader, self.flt, self.field = reader, flt, field
        self.desc, self.prefix = descending, prefix
        self._count: int | None = None
        self._tied: dict[float, list[str]] = {}

    def _key(self, value: float) -> Key:
        return (*self.prefix, -value if self.desc else value)

    def _value(self, key: Key) -> float:
        v = key[len(self.prefix)]
        return -v if self.desc else v

    def count(self) -> int:
        if self._count is None:
            self._count = self.reader.count(self.flt)
        return self._count

    def _ties(self, value: float) -> list[str]:
        """The ids of every point holding ``value`` (read once per request)."""
        if value not in self._tied:
            equal = _range(self.field, gte=value, lte=value)
            self._tied[value] = self.reader.ids(_and(self.flt, equal))
        return self._tied[value]

    def _tie_count(self, value: float) -> int:
        """How many points hold ``value`` (a count in the index: no id is read)."""
        return self.reader.count(_and(self.flt, _range(self.field, gte=value, lte=value)))

    def _beyond(self, value: float, forward: bool) -> models.Filter:
        later = forward == self.desc  # high to low: later values are lower
        bound = {"lt": value} if later else {"gt": value}
        return _and(self.flt, _range(self.field, **bound))

    def _first(self, flt: models.Filter, n: int, forward: bool) -> list[Item]:
        """The first ``n`` items of ``flt`` walking ``forward`` (or back), in that walk's order."""
        descending = self.desc if forward else not self.desc
        got = self.reader.ordered(flt, self.field, descending, n)
        if len(got) == n and got:
            # every point of the last value, not the engine's pick of them (``flt`` is this
            # source's filter, or it narrowed to values past a cursor: the same points there)
            edge = got[-1][0]
            held = sum(1 for g in got if g[0] == edge)
            if edge in self._tied or self._tie_count(edge) > held:
                got = [g for g in got if g[0] != edge] + [(edge, i) for i in self._ties(edge)]
        items = sorted(((self._key(v), i) for v, i in got), reverse=not forward)
        return items[:n]

    def after(self, cursor: Item | None, n: int) -> list[Item]:
        if cursor is None:
            return self._first(self.flt, n, True)
        value = self._value(cursor[0])
        out = [(cursor[0], i) for i in self._ties(value) if i > cursor[1]][:n]
        if len(out) < n:
            out += self._first(self._beyond(value, True), n - len(out), True)
        return out

    def before(self, cursor: Item, n: int) -> list[Item]:
        value = self._value(cursor[0])
        out = [(cursor[0], i) for i in reversed(self._ties(value)) if i < cursor[1]][:n]
        if len(out) < n:
            out += self._first(self._beyond(value, False), n - len(out), False)
        return out[::-1]

    def rank(self, item: Item) -> int:
        value = self._value(item[0])
        earlier = self.reader.count(self._beyond(value, False))
        return earlier + sum(1 for i in self._ties(value) if i < item[1])

    def skip(self, offset: int, n: int) -> list[Item]:
        return self._first(self.flt, offset + n, True)[offset:]


class _Columns:
    """Matching rows in a sort's total order: its key columns, then the row (the id)."""

    def __init__(self, ids: Sequence[Any], keys: list[np.ndarray], rows: np.ndarray) -> None:
        order = np.lexsort((rows, *reversed(keys)))
        self.ids, self.rows = ids, rows[order]
        self.keys = [k[order] for k in keys]

    def count(self) -> int:
        return len(self.rows)

    def _items(self, lo: int, hi: int) -> list[Item]:
        lo, hi = max(0, lo), min(hi, len(self.rows))
        keys = [k[lo:hi].tolist() for k in self.keys]
        ids = self.ids
        return [
            (tuple(k[j] for k in keys), ids[r]) for j, r in enumerate(self.rows[lo:hi].tolist())
        ]

    def _before(self, item: Item, inclusive: bool) -> int:
        """How many items come before ``item`` (and it too, ``inclusive``)."""
        key, point = item
        ids = self.ids
        bound = bisect.bisect_right(ids, point) if inclusive else bisect.bisect_left(ids, point)
        less = np.zeros(len(self.rows), dtype=bool)
        equal = np.ones(len(self.rows), dtype=bool)
        for column, value in zip(self.keys, key, strict=True):
            less |= equal & (column < value)
            equal &= column == value
        less |= equal & (self.rows < bound)
        return int(np.count_nonzero(less))  # a prefix: the items are in this order

    def after(self, cursor: Item | None, n: int) -> list[Item]:
        i = 0 if cursor is None else self._before(cursor, True)
        return self._items(i, i + n)

    def before(self, cursor: Item, n: int) -> list[Item]:
        j = self._before(cursor, False)
        return self._items(j - n, j)

    def rank(self, item: Item) -> int:
        return self._before(item, False)

    def skip(self, offset: int, n: int) -> list[Item]:
        return self._items(offset, offset + n)
