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
* :func:`filter_key`: one key for a filter whatever the moment it was built at (the
  ``expires_at`` bound of :func:`~langgraph_prax_memory.vectors.unexpired` is the clock).
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

__all__ = ["TermCounts", "candidate_terms", "filter_key", "kept_offsets", "write_hubness"]

#: Payload field: ``{"centroid": Hubness.key, "dot": float}`` (see :func:`write_hubness`).
HUBNESS_FIELD = "hubness"

#: Seconds a kept count may serve without a write (TTL expiries and other writers).
COUNTS_MAX_AGE = 30.0
#: Filters (user and scope) whose counts are kept; the least recently used go first.
COUNTS_MAX_KEYS = 512

# the clock in a filter: unexpired(now)'s lower bound on expires_at
_CLOCK = re.compile(r'("key":"expires_at","range":\{"gt":)[-+0-9.eE]+')


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

    ``writes`` is the store's count of writes (:attr:`QdrantVectorStore.writes`): a count
    taken before the latest write is never served. Thread-safe.

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
        self, key: tuple[str, str], writes: int, terms: Collection[str]
    ) -> tuple[int | None, dict[str, int]]:
        """The kept total (``None``: none valid) and the kept counts of ``terms``."""
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
        self, key: tuple[str, str], writes: int, total: int, frequencies: Mapping[str, int]
    ) -> None:
        """Keep ``total`` and ``frequencies``, counted when the store had ``writes`` writes."""
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
