"""What the inspector reads, through the public API, scoped by one user at a time.

Nothing here writes: recall runs with ``reinforce=False`` and the context block is built by
:func:`~langgraph_prax_memory.context.build_memory_context` over a memory whose ``recall``
never reinforces (:class:`_ReadOnlyRecall`), so looking does not change what is looked at.
The two changing operations (a pending-review decision, forgetting a user) are separate
functions, called only by the server's POST routes when changes are allowed.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from langgraph_prax_memory._validation import check_user_id, user_dir_name, utcnow
from langgraph_prax_memory.consolidation import ConsolidationState, StateFile
from langgraph_prax_memory.context import build_memory_context
from langgraph_prax_memory.errors import MemoryValidationError, PraxMemoryError
from langgraph_prax_memory.inspector._render import (
    GRAPH_NODE_CAP,
    GRAPH_RELATION_CAP,
    TIMELINE_CAP,
    GraphData,
    MemoryRow,
    memory_row,
)
from langgraph_prax_memory.stm import PENDING_REVIEW_TAG
from langgraph_prax_memory.vectors import VECTOR_PRUNE_THRESHOLD

if TYPE_CHECKING:
    from langgraph_prax_memory._forget import ForgetReceipt
    from langgraph_prax_memory.memory import PraxMemory
    from langgraph_prax_memory.models import MemoryHit
    from langgraph_prax_memory.retrieval import RecallResult
    from langgraph_prax_memory.stm import StmEntry

#: Sort orders of the memories page: key → (label, sort key, reverse).
SORTS: dict[str, str] = {
    "newest": "newest first",
    "oldest": "oldest first",
    "importance": "importance, highest first",
    "effective": "closest to pruning first",
    "recalled": "last recalled first",
    "recalls": "most recalled first",
}
STATES = ("all", "current", "superseded", "due")
_PLAIN_FOLDER = re.compile(r"^(?![uU]-)[A-Za-z0-9_.@-]+$")


@dataclass
class UserSummary:
    """One row of the users page (``None``: the layer could not be read)."""

    user_id: str
    memories: int | None = None
    entities: int | None = None
    relations: int | None = None
    notes_lines: int = 0
    scratchpad: int = 0
    pending_review: int = 0
    backlog: int = 0
    errors: list[str] = field(default_factory=list)


def known_users(mem: PraxMemory) -> list[str]:
    """Users with long-term memories, plus users with a (plainly named) workspace folder.

    A workspace folder of an id that is not plain (``u-<hash>``) cannot be named back to its
    user; such a user appears once they have a memory.
    """
    users: set[str] = set()
    if mem.available:
        with contextlib.suppress(PraxMemoryError):
            users.update(mem.vectors.facet("user_id"))
    folder = mem.config.users_dir
    if folder.is_dir():
        for child in folder.iterdir():
            if child.is_dir() and _PLAIN_FOLDER.match(child.name):
                users.add(child.name)
    return sorted(users)


def read_state(mem: PraxMemory, user_id: str) -> ConsolidationState:
    """The consolidation state file, read without touching it (a fresh one when absent).

    Unlike :meth:`StateFile.load`, a corrupt file is reported, not moved aside.

    Raises:
        MemoryValidationError: The file is not a valid state.
    """
    path = StateFile(mem.config).path(user_id)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return ConsolidationState()
    try:
        return ConsolidationState.model_validate(json.loads(raw.decode("utf-8")))
    except ValueError as exc:
        raise MemoryValidationError(f"consolidation state {path} is not valid: {exc}") from exc


def user_summary(mem: PraxMemory, user_id: str) -> UserSummary:
    """Counts of one user in each layer; a layer that fails is reported, not raised."""
    row = UserSummary(user_id)
    try:
        entries = mem.stm.all(user_id)
        row.scratchpad = len(entries)
        row.pending_review = sum(PENDING_REVIEW_TAG in e.tags for e in entries)
    except PraxMemoryError as exc:
        row.errors.append(f"scratchpad: {exc}")
    row.notes_lines = sum(1 for line in mem.notes.read(user_id).splitlines() if line.strip())
    if mem.available:
        try:
            row.memories = mem.count(user_id)
        except PraxMemoryError as exc:
            row.errors.append(f"memories: {exc}")
        try:
            stats = mem.graph.stats(user_id)
            row.entities, row.relations = stats.entities, stats.relations
        except PraxMemoryError as exc:
            row.errors.append(f"graph: {exc}")
    try:
        row.backlog = read_state(mem, user_id).trace_pending_lines
    except PraxMemoryError as exc:
        row.errors.append(str(exc))
    return row


@dataclass
class MemoryPage:
    """One page of the memories table and what the filters matched."""

    rows: list[MemoryRow]
    total: int
    matched: int
    page: int
    pages: int
    sources: list[str]
    tags: list[str]


#: The payload fields the memories page orders and filters by (plus ``content`` to search).
_KEY_FIELDS = (
    "seq",
    "importance",
    "created_ts",
    "last_accessed_ts",
    "access_count",
    "valid_until_ts",
)


class _Key(NamedTuple):
    """What the memories page sorts and filters one memory by, read without its payload."""

    id: str
    importance: float
    created: float
    last: float
    recalls: int
    superseded: bool
    effective: float
    due: bool


def _keys(
    points: Sequence[tuple[str, dict[str, Any]]],
    now_ts: float,
    halflife_days: float,
    words: Sequence[str],
) -> list[_Key]:
    """The sort and filter keys of ``points`` holding every word of ``words``.

    The decay arithmetic is :func:`~langgraph_prax_memory.inspector.memory_row`'s (the
    forgetting pass's), inlined: this runs for every memory of the user.
    """
    per_second = math.log(2) / (halflife_days * 86400.0)
    threshold = VECTOR_PRUNE_THRESHOLD
    out = []
    for point_id, payload in points:
        if words:
            content = str(payload.get("content", "")).casefold()
            if not all(w in content for w in words):
                continue
        importance = float(payload.get("importance", 0.5))
        created = float(payload.get("created_ts") or 0.0)
        last = float(payload.get("last_accessed_ts") or created)
        effective = importance * math.exp(-per_second * max(0.0, now_ts - last))
        out.append(
            _Key(
                point_id,
                importance,
                created,
                last,
                int(payload.get("access_count", 0)),
                payload.get("valid_until_ts") is not None,
                effective,
                importance < threshold or effective < threshold,
            )
        )
    return out


#: Sort orders of the memories page over :class:`_Key`: key → (sort key, reverse).
_KEY_SORTS: dict[str, tuple[Any, bool]] = {
    "newest": (lambda k: k.created, True),
    "oldest": (lambda k: k.created, False),
    "importance": (lambda k: k.importance, True),
    "effective": (lambda k: k.effective, False),
    "recalled": (lambda k: (k.recalls > 0, k.last), True),
    "recalls": (lambda k: k.recalls, True),
}


@contextlib.contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cycle collector while a scan allocates ~100,000 small objects.

    None of them is in a cycle (reference counting frees them all), but their number
    triggers full collections that traverse every object of the process: a third of a
    10,000-memory scan's time on a busy server. Resumed on the way out (if it was on).
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def scan_page(
    mem: PraxMemory,
    user_id: str,
    *,
    q: str = "",
    source: str = "",
    tag: str = "",
    state: str = "all",
    sort: str = "newest",
    page: int = 1,
    page_size: int = 50,
    now: datetime | None = None,
) -> MemoryPage:
    """One page of any search, filter and sort, reading whole payloads for that page only.

    The engine filters by source and tag; every matching memory is then read with the few
    fields the sorts and the state filter need (and its content when searching), sorted here
    (ties in the order first written), and only the page's memories are read in full. For
    10,000 memories that is a fraction of reading them all; nothing is kept between pages,
    so every page shows the memory as it is now.

    Raises:
        MemoryValidationError: An unknown sort or state.
    """
    if sort not in SORTS:
        raise MemoryValidationError(f"unknown sort {sort!r}; use one of {sorted(SORTS)}")
    if state not in STATES:
        raise MemoryValidationError(f"unknown state {state!r}; use one of {list(STATES)}")
    from langgraph_prax_memory.models import Memory
    from langgraph_prax_memory.retrieval import ltm_filter

    store = mem.vectors
    words = [w for w in q.casefold().split() if w]
    chosen_filter = ltm_filter(
        user_id, tags=[tag] if tag else None, sources=[source] if source else None
    )
    fields = [*_KEY_FIELDS, "content"] if words else list(_KEY_FIELDS)
    when = now or utcnow()
    now_ts, halflife = when.timestamp(), mem.config.decay_halflife_days
    with _cyclic_gc_paused():
        points = store.scan(user_id, fields, flt=chosen_filter)
        points.sort(key=lambda p: int(p[1].get("seq") or 0))  # first written first
        keys = _keys(points, now_ts, halflife, words)
    keys = [
        k
        for k in keys
        if state == "all"
        or (state == "current" and not k.superseded)
        or (state == "superseded" and k.superseded)
        or (state == "due" and k.due)
    ]
    order, reverse = _KEY_SORTS[sort]
    keys.sort(key=order, reverse=reverse)
    pages = max(1, -(-len(keys) // page_size))
    page = min(max(1, page), pages)
    shown = [k.id for k in keys[(page - 1) * page_size : page * page_size]]
    full = {p.id: p.payload for p in store.retrieve(user_id, shown)}
    rows = [memory_row(Memory.from_payload(i, full[i]), when, halflife) for i in shown if i in full]
    total = len(points) if not (tag or source) else store.count(user_id, ltm_filter(user_id))
    return MemoryPage(
        rows=rows,
        total=total,
        matched=len(keys),
        page=page,
        pages=pages,
        sources=sorted(store.facet("source", user_id=user_id)),
        tags=sorted(store.facet("tags", user_id=user_id)),
    )


class _ReadOnlyRecall:
    """A memory whose ``recall`` never reinforces: the inspector only looks.

    Everything else is the wrapped :class:`PraxMemory`'s own attribute.
    """

    def __init__(self, memory: PraxMemory) -> None:
        self._memory = memory

    def __getattr__(self, name: str) -> Any:
        return getattr(self._memory, name)

    def recall(self, user_id: str, query: str, **kwargs: Any) -> list[MemoryHit]:
        kwargs["reinforce"] = False
        return self._memory.recall(user_id, query, **kwargs)

    @property
    def ltm(self) -> _ReadOnlyLTM:
        """The long-term memory, with the context block's reinforcement turned off."""
        return _ReadOnlyLTM(self._memory.ltm)


class _ReadOnlyLTM:
    """A long-term memory whose ``reinforce_later`` (used by the context block) does nothing."""

    def __init__(self, ltm: Any) -> None:
        self._ltm = ltm

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ltm, name)

    def reinforce_later(self, *args: Any, **kwargs: Any) -> None:
        """Looking strengthens nothing."""


def playground(
    mem: PraxMemory, user_id: str, question: str, *, k: int = 5
) -> tuple[RecallResult, str]:
    """``recall_detailed`` and ``build_memory_context`` for ``question``, neither writing.

    The hits are in the order :meth:`PraxMemory.recall` returns; the block is the one
    :func:`build_memory_context` gives an agent (same ``k``).
    """
    result = mem.recall_detailed(user_id, question, k=k, reinforce=False)
    block = build_memory_context(cast("PraxMemory", _ReadOnlyRecall(mem)), user_id, question, k=k)
    return result, block


#: The graph stores' largest page: the most entities and drawn relations one read returns.
GRAPH_READ_LIMIT = 1000


def graph_data(mem: PraxMemory, user_id: str, *, cap: int = GRAPH_NODE_CAP) -> GraphData:
    """What the graph page shows of a user, and only that: a handful of capped reads.

    The ``cap`` most important entities (``top_entities``), the relations with both ends
    among them (the picture's edges, at most 1,000) and those touching them (the table's
    400, current and heaviest first), the 200 most recent events and causal links, and
    ``graph.stats`` for the totals the page shows beside each cap. Apart from those counts,
    no read grows with the size of the graph: the page of a user with 10,000 entities reads
    as many rows as the page of a user with 100 who has as many relations per entity.
    """
    if not mem.available:
        return GraphData()
    graph = mem.graph
    stats = graph.stats(user_id)
    entities = graph.top_entities(user_id, limit=max(1, min(cap, GRAPH_READ_LIMIT)))
    ids = [e.id for e in entities]
    drawn = graph.relations_among(user_id, ids, include_superseded=True, limit=GRAPH_READ_LIMIT)
    listed = graph.relations_among(
        user_id, ids, both_ends=False, include_superseded=True, limit=GRAPH_RELATION_CAP
    )
    relations = list({r.id: r for r in [*listed, *drawn]}.values())
    return GraphData(
        entities=entities,
        relations=relations,
        events=graph.get_events(user_id, limit=TIMELINE_CAP),
        links=graph.get_causal_links(user_id, limit=TIMELINE_CAP),
        counted={
            "entities": stats.entities,
            "relations": stats.relations,
            "current_relations": stats.current_relations,
            "temporal_events": stats.temporal_events,
            "causal_links": stats.causal_links,
        },
    )


def pending(mem: PraxMemory, user_id: str) -> list[StmEntry]:
    """The user's pending-review queue."""
    return mem.stm.list_pending_review(user_id)


def decide(mem: PraxMemory, user_id: str, key: str, decision: str) -> str:
    """Approve (store as a memory, then drop from the queue) or reject one pending item.

    Raises:
        MemoryValidationError: Not a pending-review item of ``user_id``, or an unknown
            decision; nothing changed.
        MemoryWriteError: Approving: the memory was not stored (the item stays pending).
    """
    if decision not in ("approve", "reject"):
        raise MemoryValidationError(f"decision must be approve or reject, got {decision!r}")
    entry = mem.stm.get(user_id, key)
    if entry is None or PENDING_REVIEW_TAG not in entry.tags:
        raise MemoryValidationError(f"{key!r} is not pending review for this user")
    if decision == "approve":
        tags = [t for t in entry.tags if t != PENDING_REVIEW_TAG]
        memory_id = mem.remember(
            user_id, entry.content, importance=entry.importance, tags=tags, source="review"
        )
        mem.stm.delete(user_id, key)
        return f"approved: stored as memory {memory_id}"
    mem.stm.delete(user_id, key)
    return f"rejected: {key} removed from the queue"


def forget_user(mem: PraxMemory, user_id: str, confirm: str) -> ForgetReceipt:
    """Forget ``user_id`` everywhere once ``confirm`` repeats the id exactly.

    Raises:
        MemoryValidationError: The confirmation does not match; nothing was deleted.
    """
    if confirm != user_id:
        raise MemoryValidationError(
            "the confirmation does not match the user id; nothing was deleted"
        )
    return mem.forget_user(user_id)


def valid_user(user_id: object) -> str:
    """``user_id`` if it is a usable tenant id (and has a safe folder name), else raise."""
    user = check_user_id(user_id)
    user_dir_name(user)
    return user


#: Sorts the engine can page itself (an indexed payload field, its direction).
ENGINE_SORTS: dict[str, tuple[str, bool]] = {
    "newest": ("created_ts", True),
    "oldest": ("created_ts", False),
    "importance": ("importance", True),
}
#: The engine pages up to here (it reads every earlier row to reach a page); later pages of
#: large users come from the rows the page keeps.
ENGINE_PAGE_LIMIT = 1000


def engine_pageable(*, q: str, state: str, sort: str, page: int, page_size: int) -> bool:
    """Whether the engine can answer this page itself (no text search, an indexed sort)."""
    return (
        not q.strip()
        and state == "all"
        and sort in ENGINE_SORTS
        and (page * page_size <= ENGINE_PAGE_LIMIT)
    )


def engine_page(
    mem: PraxMemory,
    user_id: str,
    *,
    source: str = "",
    tag: str = "",
    sort: str = "newest",
    page: int = 1,
    page_size: int = 50,
    now: datetime | None = None,
) -> MemoryPage:
    """One page read by the engine (ordered by an indexed field, filtered by payload).

    The first view of a user with 10,000 memories reads 50 of them, not all.

    Raises:
        BackendUnavailable: The engine cannot order by the field (no payload index, as in
            the pure-Python local engine); the caller reads every row instead.
    """
    from qdrant_client import models

    from langgraph_prax_memory.models import Memory
    from langgraph_prax_memory.retrieval import ltm_filter

    field_name, descending = ENGINE_SORTS[sort]
    store = mem.vectors
    everything = ltm_filter(user_id)
    chosen = ltm_filter(user_id, tags=[tag] if tag else None, sources=[source] if source else None)
    total = store.count(user_id, everything)
    matched = store.count(user_id, chosen) if (tag or source) else total
    pages = max(1, -(-matched // page_size))
    page = min(max(1, page), pages)
    order = models.OrderBy(
        key=field_name,
        direction=models.Direction.DESC if descending else models.Direction.ASC,
    )
    want = min(page * page_size, max(matched, 1))
    records, _ = store.call(
        "scroll",
        lambda: store.client.scroll(
            store.collection,
            scroll_filter=chosen,
            limit=want,
            order_by=order,
            with_payload=True,
            with_vectors=False,
        ),
    )
    when = now or utcnow()
    halflife = mem.config.decay_halflife_days
    shown = list(records)[(page - 1) * page_size : page * page_size]
    rows = [
        memory_row(Memory.from_payload(str(r.id), r.payload or {}), when, halflife) for r in shown
    ]
    return MemoryPage(
        rows=rows,
        total=total,
        matched=matched,
        page=page,
        pages=pages,
        sources=sorted(store.facet("source", user_id=user_id)),
        tags=sorted(store.facet("tags", user_id=user_id)),
    )
