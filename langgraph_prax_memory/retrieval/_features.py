"""What recall reads of the user's memories, computed once rather than per question (issue 41).

* :class:`TermCounts`: how many of a user's memories hold each word of a question (the
  evidence weights of :mod:`._evidence`), counted inside the engine and kept until the store
  is next written to. A count is also dropped after :data:`COUNTS_MAX_AGE` seconds: an item
  that outlived its TTL leaves the filter without any write, and another process may write
  to a server's collection.
* :func:`candidate_terms`: a candidate's keyword terms from the ``terms`` its payload was
  written with (``MemoryClasses.annotate``) and its speaker labels' (the counted terms leave
  the labels out, the keyword evidence keeps them): no candidate text is tokenized per
  question unless it was written without terms.
* :func:`write_hubness` / :func:`kept_offsets`: each memory keeps, from when it was written,
  its dense vector's dot product with the model's background centroid (the hubness
  correction of the floor, :class:`~langgraph_prax_memory.embeddings.Hubness`): the dense
  arm then reads no vectors. A memory without one (written before, without a dense vector,
  or under another centroid) is corrected from its vector as before.
* :func:`kept_stamp`: what a kept read is valid for. In the embedded engine, the client's
  content stamp (:meth:`~langgraph_prax_memory.vectors.EdgeClient.content_stamp`): every
  write of the folder moves it, through whichever store, except one that only sets
  ``access_count`` / ``last_accessed`` (a reinforcing recall), which neither the counts nor
  the absent fields depend on — unless the filter names such a field: then any write. For
  a server, the store's own count of writes (with the counts' maximum age).
* :func:`filter_key`: one key for a filter whatever the moment it was built at (the
  ``expires_at`` bound of :func:`~langgraph_prax_memory.vectors.unexpired` is the clock).
* :class:`AbsentFields` / :func:`lean_filter`: recall's filter asks for memories not past a
  TTL and not superseded, conditions the engine checks point by point (about 0.04 µs per
  point and condition: 0.4 ms per search at 10k memories, ten times that at 100k) and every
  point passes while no point of the collection holds ``expires_at`` / ``valid_until_ts``.
  In the embedded engine (this process its only writer) such a condition is left out until
  the next write; a server's filters are never leaned (another process may write).
* :class:`SoleNamespaces`: the namespace condition (``ns_prefixes``: the user's long-term
  memory, or the store's namespace prefix), checked point by point like the two above,
  is left out while every point of the user holds it (a user who stores nothing outside
  it), kept per content stamp as :class:`AbsentFields`.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from qdrant_client.http import models

from langgraph_prax_memory.embeddings import Hubness
from langgraph_prax_memory.facts import without_speaker
from langgraph_prax_memory.retrieval._feedback import indexed_text
from langgraph_prax_memory.retrieval._recall import HISTORY_FIELD
from langgraph_prax_memory.vectors import EXPIRES_AT, EdgeClient, QdrantVectorStore

__all__ = [
    "AbsentFields",
    "SoleNamespaces",
    "TermCounts",
    "candidate_terms",
    "filter_key",
    "holds_any",
    "kept_offsets",
    "kept_stamp",
    "lacks_any",
    "lean_filter",
    "write_hubness",
]

#: Payload field: ``{"centroid": Hubness.key, "dot": float}`` (see :func:`write_hubness`).
HUBNESS_FIELD = "hubness"

#: Seconds a kept count may serve without a write (TTL expiries and other writers).
COUNTS_MAX_AGE = 30.0
#: Filters (user and scope) whose counts are kept; the least recently used go first.
COUNTS_MAX_KEYS = 512

# the clock in a filter: unexpired(now)'s lower bound on expires_at
_CLOCK = re.compile(r'("key":"expires_at","range":\{"gt":)[-+0-9.eE]+')


def kept_stamp(store: QdrantVectorStore, key: str = "") -> int | None:
    """The stamp a read of ``store`` under the filter ``key`` (:func:`filter_key`) is kept at.

    ``None``: keep nothing (a write is under way). See the module's docstring.

    Example:
        >>> from qdrant_client import QdrantClient
        >>> store = QdrantVectorStore(QdrantClient(":memory:"), dimension=2)
        >>> kept_stamp(store) == store.writes
        True
    """
    client = store.client
    if not isinstance(client, EdgeClient):
        return store.writes
    if any(f'"key":"{f}"' in key for f in client.BOOKKEEPING):
        return client.write_stamp()
    return client.content_stamp()


def filter_key(flt: models.Filter) -> str:
    """A filter as a key, the moment its TTL condition was built at left out.

    Example:
        >>> from langgraph_prax_memory.vectors import unexpired, user_filter
        >>> filter_key(user_filter("u", unexpired(1.0))) == filter_key(
        ...     user_filter("u", unexpired(2.0)))
        True
    """
    return _CLOCK.sub(r"\1null", flt.model_dump_json(exclude_none=True))


@dataclass
class _Counted:
    writes: int
    at: float
    total: int
    frequencies: dict[str, int] = field(default_factory=dict)


class TermCounts:
    """Document frequencies per (user, filter), valid while the store has not been written.

    ``writes`` is the stamp the counts were read at (:func:`kept_stamp`): a count taken
    before the latest write it follows is never served; ``None`` keeps and serves nothing.
    Thread-safe.

    Example:
        >>> counts = TermCounts()
        >>> counts.keep(("u", "f"), 3, 40, {"tea": 2})
        >>> counts.known(("u", "f"), 3, {"tea", "dog"})
        (40, {'tea': 2})
        >>> counts.known(("u", "f"), 4, {"tea"})
        (None, {})
    """

    def __init__(self, *, max_age: float = COUNTS_MAX_AGE, max_keys: int = COUNTS_MAX_KEYS) -> None:
        self.max_age = max_age
        self.max_keys = max_keys
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple[str, str], _Counted] = OrderedDict()

    def known(
        self, key: tuple[str, str], writes: int | None, terms: Collection[str]
    ) -> tuple[int | None, dict[str, int]]:
        """The kept total (``None``: none valid) and the kept counts of ``terms``."""
        if writes is None:
            return None, {}
        with self._lock:
            got = self._kept.get(key)
            if got is None:
                return None, {}
            if got.writes != writes or time.monotonic() - got.at > self.max_age:
                del self._kept[key]
                return None, {}
            self._kept.move_to_end(key)
            return got.total, {t: got.frequencies[t] for t in terms if t in got.frequencies}

    def keep(
        self, key: tuple[str, str], writes: int | None, total: int, frequencies: Mapping[str, int]
    ) -> None:
        """Keep ``total`` and ``frequencies``, counted at the stamp ``writes``."""
        if writes is None:
            return
        with self._lock:
            got = self._kept.get(key)
            if got is None or got.writes != writes or got.total != total:
                got = _Counted(writes, time.monotonic(), total)
                self._kept[key] = got
            got.frequencies.update(frequencies)
            self._kept.move_to_end(key)
            while len(self._kept) > self.max_keys:
                self._kept.popitem(last=False)


def _label_terms(text: str, tokens: Callable[[str], Sequence[str]]) -> list[str]:
    rest = without_speaker(text)
    return list(tokens(text[: len(text) - len(rest)])) if len(rest) != len(text) else []


def candidate_terms(payload: Mapping[str, Any], tokens: Callable[[str], Sequence[str]]) -> set[str]:
    """A stored memory's keyword terms, as its sparse vector has them (context included).

    Its written ``terms`` (the indexed text less the speaker labels) and its labels' terms;
    a memory written without ``terms`` is tokenized.

    Example:
        >>> toks = lambda s: [w.strip(":").lower() for w in s.split()]
        >>> sorted(candidate_terms({"content": "Bob: tea please", "terms": ["tea", "please"]},
        ...                        toks))
        ['bob', 'please', 'tea']
        >>> sorted(candidate_terms({"content": "tea please"}, toks))
        ['please', 'tea']
    """
    stored = payload.get("terms")
    if not isinstance(stored, list):
        return set(tokens(indexed_text(payload)))
    terms = set(stored)
    terms.update(_label_terms(str(payload.get("content", "")), tokens))
    value = payload.get("value")
    context = value.get("context") if isinstance(value, Mapping) else None
    if isinstance(context, str) and context:
        terms.update(_label_terms(context, tokens))
    return terms


def write_hubness(
    payloads: Sequence[dict[str, Any]],
    dense: Sequence[Sequence[float] | None] | None,
    hub: Hubness | None,
) -> None:
    """Keep in each payload its dense vector's dot product with ``hub``'s centroid (in place).

    A payload without a dense vector (the model was down), or written with no correction
    known, keeps none; recall corrects it from its stored vector.

    Example:
        >>> import numpy as np
        >>> hub = Hubness(np.array([0.0, 0.5], dtype=np.float32), 0.1)
        >>> payloads = [{}, {}]
        >>> write_hubness(payloads, [[0.0, 2.0], None], hub)
        >>> payloads[0]["hubness"]["dot"], payloads[1]
        (0.5, {})
    """
    for p in payloads:
        p.pop(HUBNESS_FIELD, None)
    if hub is None or not dense:
        return
    rows = [i for i, v in enumerate(dense) if v is not None]
    try:
        dots = hub.dots([dense[i] for i in rows])  # type: ignore[misc]
    except ValueError:  # a centroid of another width: nothing kept, recall reads vectors
        return
    for i, dot in zip(rows, dots, strict=True):
        payloads[i][HUBNESS_FIELD] = {"centroid": hub.key, "dot": dot}


def kept_offsets(payloads: Mapping[str, Mapping[str, Any]], hub: Hubness) -> dict[str, float]:
    """The hubness offsets of the memories that kept a dot with ``hub``'s centroid, by id.

    Example:
        >>> import numpy as np
        >>> hub = Hubness(np.array([0.0, 0.5], dtype=np.float32), 0.1)
        >>> kept = {"centroid": hub.key, "dot": 0.5}
        >>> kept_offsets({"a": {"hubness": kept}, "b": {}}, hub)
        {'a': 0.4000000059604645}
    """
    ids: list[str] = []
    dots: list[float] = []
    for pid, payload in payloads.items():
        kept = payload.get(HUBNESS_FIELD)
        if isinstance(kept, Mapping) and kept.get("centroid") == hub.key:
            dot = kept.get("dot")
            if isinstance(dot, (int, float)):
                ids.append(pid)
                dots.append(float(dot))
    return dict(zip(ids, hub.offsets_of(dots), strict=True))


#: Fields whose "no value" recall's filter asks for: a TTL (``unexpired``) and supersession.
LEANABLE = (EXPIRES_AT, HISTORY_FIELD)


def lean_filter(
    flt: models.Filter, absent: Collection[str]
) -> tuple[models.Filter, frozenset[str]]:
    """``flt`` without the conditions every point passes when no point holds ``absent``.

    Two shapes are left out: ``is_empty(field)`` among ``must``, and a filter among ``must``
    that is only a ``should`` holding ``is_empty(field)`` (``unexpired``: no TTL, or a later
    one). Anything else stays. Returns the filter and the fields whose conditions went.

    Example:
        >>> from langgraph_prax_memory.vectors import unexpired, user_filter
        >>> gone = models.IsEmptyCondition(is_empty=models.PayloadField(key="valid_until_ts"))
        >>> flt = user_filter("u", unexpired(1.0), gone)
        >>> lean, left_out = lean_filter(flt, {"expires_at", "valid_until_ts"})
        >>> len(lean.must), sorted(left_out)
        (1, ['expires_at', 'valid_until_ts'])
        >>> len(lean_filter(flt, {"valid_until_ts"})[0].must), lean_filter(flt, ())[0] is flt
        (2, True)
    """
    if not absent or not isinstance(flt.must, list):
        return flt, frozenset()
    must, left_out = [], set()
    for condition in flt.must:
        fields = _vacuous(condition, absent)
        if fields:
            left_out |= fields
        else:
            must.append(condition)
    if not left_out:
        return flt, frozenset()
    lean = models.Filter(
        must=must, must_not=flt.must_not, should=flt.should, min_should=flt.min_should
    )
    return lean, frozenset(left_out)


def _empty_of(condition: Any, absent: Collection[str]) -> set[str]:
    if isinstance(condition, models.IsEmptyCondition) and condition.is_empty.key in absent:
        return {condition.is_empty.key}
    return set()


def _vacuous(condition: Any, absent: Collection[str]) -> set[str]:
    """The absent fields that make ``condition`` true for every point (none: it stays)."""
    if isinstance(condition, models.IsEmptyCondition):
        return _empty_of(condition, absent)
    if (
        isinstance(condition, models.Filter)
        and not condition.must
        and not condition.must_not
        and condition.min_should is None
        and isinstance(condition.should, list)
    ):
        for c in condition.should:
            if _empty_of(c, absent):
                return _empty_of(c, absent)
    return set()


def holds_any(payload: Mapping[str, Any], fields: Collection[str]) -> bool:
    """Whether ``payload`` has a value for one of ``fields`` (a write since they were absent).

    Example:
        >>> holds_any({"valid_until_ts": 3.0}, ["valid_until_ts"]), holds_any({}, ["x"])
        (True, False)
    """
    return any(payload.get(f) not in (None, []) for f in fields)


class AbsentFields:
    """Which of :data:`LEANABLE` no point of an embedded collection holds, kept per write.

    Read from the engine's payload indexes (how many points each field's index holds) and
    kept until the client's content stamp changes (:func:`kept_stamp`; a reinforcing recall
    does not move it): the embedded engine's folder lock makes this process its only
    writer. Any other client, a write running, or a failed read gives no field (the filter
    stays whole). Thread-safe.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: dict[str, tuple[int, frozenset[str]]] = {}

    def of(self, store: QdrantVectorStore) -> frozenset[str]:
        """The fields of :data:`LEANABLE` that no point of ``store``'s collection holds now."""
        client = store.client
        if not isinstance(client, EdgeClient):
            return frozenset()
        stamp = client.content_stamp()
        if stamp is None:
            return frozenset()
        with self._lock:
            kept = self._kept.get(store.collection)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        try:
            schema = client.get_collection(store.collection).payload_schema or {}
        except Exception:  # only a speed-up: the whole filter still answers
            return frozenset()
        absent = frozenset(
            f
            for f in LEANABLE
            if f in schema and schema[f].points == 0 and schema[f].points is not None
        )
        if client.content_stamp() != stamp:  # written meanwhile: what was read may be stale
            return frozenset()
        with self._lock:
            self._kept[store.collection] = (stamp, absent)
        return absent


#: Payload field: every namespace prefix of a point (what the namespace condition matches).
NS_FIELD = "ns_prefixes"


def _namespace_of(condition: Any) -> str | None:
    """The prefix a ``must`` condition asks ``ns_prefixes`` to hold (``None``: another kind)."""
    if (
        isinstance(condition, models.FieldCondition)
        and condition.key == NS_FIELD
        and isinstance(condition.match, models.MatchValue)
        and isinstance(condition.match.value, str)
    ):
        return condition.match.value
    return None


def lacks_any(payload: Mapping[str, Any], prefixes: Collection[str]) -> bool:
    """Whether ``payload``'s namespace misses one of ``prefixes`` (written since they were sole).

    Example:
        >>> lacks_any({"ns_prefixes": ["memories", "memories/u"]}, ["memories/u"])
        False
        >>> lacks_any({"ns_prefixes": ["docs"]}, ["memories/u"]), lacks_any({}, ["m"])
        (True, True)
    """
    held = payload.get(NS_FIELD)
    held = held if isinstance(held, list) else []
    return any(p not in held for p in prefixes)


class SoleNamespaces:
    """Namespace conditions of recall's filter that every point of the user passes.

    A condition ``ns_prefixes = P`` among a filter's ``must`` is checked by the embedded
    engine point by point (as :class:`AbsentFields`' conditions); while no point of the user
    lacks ``P`` (one count, kept until the client's content stamp moves: a reinforcing
    recall does not move it) it selects nothing the user condition does not, and
    :meth:`lean` leaves it out. A point written between that count and a search, outside
    ``P``, is dropped from the arms by :func:`lacks_any` (as if written just after). Only
    the embedded engine; a failed count or a write running keeps the filter whole.
    Thread-safe.
    """

    def __init__(self, max_keys: int = COUNTS_MAX_KEYS) -> None:
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple[str, str, str], tuple[int, bool]] = OrderedDict()
        self.max_keys = max_keys

    def lean(
        self, store: QdrantVectorStore, user_id: str, flt: models.Filter
    ) -> tuple[models.Filter, frozenset[str]]:
        """``flt`` without the namespace conditions all of ``user_id``'s points pass.

        Returns the filter and the prefixes whose conditions went.

        Example:
            >>> from qdrant_client import QdrantClient
            >>> from langgraph_prax_memory.vectors import user_filter
            >>> server = QdrantVectorStore(QdrantClient(":memory:"), dimension=2)
            >>> flt = user_filter("u", models.FieldCondition(
            ...     key="ns_prefixes", match=models.MatchValue(value="memories")))
            >>> SoleNamespaces().lean(server, "u", flt) == (flt, frozenset())
            True
        """
        client = store.client
        if not isinstance(client, EdgeClient) or not isinstance(flt.must, list):
            return flt, frozenset()
        prefixes = {p for p in map(_namespace_of, flt.must) if p is not None}
        sole = frozenset(p for p in prefixes if self._sole(store, client, user_id, p))
        if not sole:
            return flt, frozenset()
        must = [c for c in flt.must if _namespace_of(c) not in sole]
        lean = models.Filter(
            must=must, must_not=flt.must_not, should=flt.should, min_should=flt.min_should
        )
        return lean, sole

    def _sole(
        self, store: QdrantVectorStore, client: EdgeClient, user_id: str, prefix: str
    ) -> bool:
        stamp = client.content_stamp()
        if stamp is None:
            return False
        key = (store.collection, user_id, prefix)
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None and kept[0] == stamp:
                self._kept.move_to_end(key)
                return kept[1]
        outside = models.Filter(
            must=[models.FieldCondition(key="user_id", match=models.MatchValue(value=user_id))],
            must_not=[models.FieldCondition(key=NS_FIELD, match=models.MatchValue(value=prefix))],
        )
        try:
            sole = store.count(user_id, outside) == 0
        except Exception:  # only a speed-up: the whole filter still answers
            return False
        if client.content_stamp() != stamp:  # written meanwhile: what was read may be stale
            return False
        with self._lock:
            self._kept[key] = (stamp, sole)
            self._kept.move_to_end(key)
            while len(self._kept) > self.max_keys:
                self._kept.popitem(last=False)
        return sole
