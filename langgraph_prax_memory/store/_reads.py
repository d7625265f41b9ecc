"""Reads: query search (the recall ranking), filter scans and namespace listing."""

from __future__ import annotations

import heapq
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from langgraph.store.base import (
    GetOp,
    ListNamespacesOp,
    MatchCondition,
    Op,
    SearchOp,
)
from qdrant_client.http import models

from langgraph_prax_memory._validation import (
    check_user_id,
)
from langgraph_prax_memory.memory import PraxMemory
from langgraph_prax_memory.store._filters import _compare, _matches
from langgraph_prax_memory.store._plan import _check_namespace
from langgraph_prax_memory.store._stm import STM_ROOT, _is_stm
from langgraph_prax_memory.store._ttl import _SCAN_PAGE, _expired, _facet
from langgraph_prax_memory.vectors import (
    NS_SEP,
    QdrantVectorStore,
    StoredPoint,
    point_id,
    unexpired,
    user_filter,
)

#: Deepest ranking a query search asks for (``recall``'s own limit).
_MAX_RANK = 1000


def query_user(
    memory: PraxMemory,
    user: str,
    flt: models.Filter,
    op: SearchOp,
    want: int,
    history: Mapping[str, Any] | None = None,
) -> list[tuple[float, StoredPoint]]:
    """The user's best ``want`` items for the query: the same ranking as ``recall``.

    The namespace prefix and the filter (``flt``) run inside the engine on every arm; the
    exact filter check runs on what comes back, and the search goes deeper while it dropped
    candidates and more may exist. A store search does not reinforce (BaseStore reads have no
    side effects).
    """
    assert op.query is not None
    k = min(max(want, 1), _MAX_RANK)
    while True:
        result = memory.recall_detailed(
            user, op.query, k=k, reinforce=False, where=flt, **(history or {})
        )
        out = []
        now = time.time()
        for hit in result.hits:
            point = result.points[hit.memory.id]
            if _expired(point.payload, now):
                continue
            value = point.payload.get("value") or {}
            if op.filter and not all(_compare(value.get(f), v) for f, v in op.filter.items()):
                continue
            out.append((hit.score, point))
        if len(out) >= want or len(result.hits) < k or k >= _MAX_RANK:
            return out[:want]
        k = min(k * 4, _MAX_RANK)


def scan(
    vs: QdrantVectorStore,
    filters: Mapping[str, models.Filter],
    flt: Mapping[str, Any] | None,
    *,
    stop: int | None = None,
) -> list[StoredPoint]:
    """Matching points of the users in ``filters`` (user → engine filter), first-write order.

    The order is InMemoryStore's insertion order.
    """
    streams = [scan_user(vs, user, qflt, flt) for user, qflt in filters.items()]
    out: list[StoredPoint] = []
    for p in heapq.merge(*streams, key=lambda p: int(p.payload.get("seq", 0))):
        out.append(p)
        if stop is not None and len(out) >= stop:
            break
    return out


def scan_user(
    vs: QdrantVectorStore, user: str, qflt: models.Filter, flt: Mapping[str, Any] | None
) -> Iterable[StoredPoint]:
    """``user``'s points that ``qflt`` selects and ``flt`` matches exactly, page by page."""
    start: int | None = None
    while True:
        page = vs.scroll(user, flt=qflt, limit=_SCAN_PAGE, order_by="seq", start_from=start)
        for p in page:
            value = p.payload.get("value") or {}
            if not flt or all(_compare(value.get(k), v) for k, v in flt.items()):
                yield p
        if len(page) < _SCAN_PAGE:
            return
        start = int(page[-1].payload["seq"]) + 1


def list_namespaces(
    memory: PraxMemory,
    op: ListNamespacesOp,
    *,
    tenant_index: int,
    shared_tenant: str,
    cross_tenant: bool,
) -> list[tuple[str, ...]]:
    """The namespaces ``op`` asks for, within one tenant unless ``cross_tenant``."""
    conditions: Sequence[MatchCondition] = op.match_conditions or ()
    pinned: str | None = None
    for cond in conditions:
        path = tuple(cond.path)
        if cond.match_type == "prefix" and len(path) > tenant_index and path[tenant_index] != "*":
            pinned = check_user_id(path[tenant_index])
    live = unexpired(time.time())
    if pinned is None and cross_tenant:
        flt = models.Filter(must=[live])  # an administrator's listing: every tenant
    else:
        pinned = pinned if pinned is not None else shared_tenant
        flt = user_filter(pinned, live)
    paths = _facet(memory.vectors, "ns_path", flt)
    namespaces = [tuple(path.split(NS_SEP)) for path in paths]
    if pinned is not None and pinned != shared_tenant and memory.stm.all(pinned):
        namespaces.append((STM_ROOT, pinned))
    namespaces = [ns for ns in namespaces if all(_matches(c, ns) for c in conditions)]
    if op.max_depth is not None:
        namespaces = sorted({ns[: op.max_depth] for ns in namespaces})
    else:
        namespaces = sorted(namespaces)
    return namespaces[op.offset : op.offset + op.limit]


def fetch_gets(
    memory: PraxMemory, ops: Sequence[Op], tenant_of: Callable[[tuple[str, ...]], str]
) -> dict[tuple[str, str], StoredPoint]:
    """The stored points the batch's (non-scratchpad) gets ask for, by (user, point id).

    One engine call per user for all the batch's gets.
    """
    wanted: dict[str, set[str]] = defaultdict(set)
    for op in ops:
        if isinstance(op, GetOp) and not _is_stm(op.namespace):
            ns = _check_namespace(op.namespace)
            wanted[tenant_of(ns)].add(point_id(ns, op.key))
    found: dict[tuple[str, str], StoredPoint] = {}
    vs = memory.vectors if wanted else None  # a batch of scratchpad gets works without LTM
    for user, ids in wanted.items():
        assert vs is not None
        for point in vs.retrieve(user, sorted(ids)):
            found[(user, point.id)] = point
    return found
