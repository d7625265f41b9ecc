"""``PraxMemoryStore``: a LangGraph ``BaseStore`` on the Prax long-term memory.

Any namespace works, so LangMem's tools and LangGraph's ``get_store()`` use it unchanged;
``("memories", user_id)`` is the long-term memory of that user, the same points
:class:`~langgraph_prax_memory.PraxMemory` reads and writes.
"""

from __future__ import annotations

import asyncio
import heapq
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from qdrant_client import models

from langgraph_prax_memory._validation import (
    check_importance,
    check_tags,
    check_text,
    check_user_id,
    to_utc,
    utcnow,
)
from langgraph_prax_memory.embeddings import tokenize
from langgraph_prax_memory.errors import EmbeddingError, MemoryValidationError
from langgraph_prax_memory.memory import PraxMemory
from langgraph_prax_memory.stm import StmEntry
from langgraph_prax_memory.vectors._payload import NS_SEP, build_payload, extract_text
from langgraph_prax_memory.vectors._plan import StoredPoint, VectorRecord, point_id, user_filter
from langgraph_prax_memory.vectors._store import QdrantVectorStore

__all__ = ["STM_ROOT", "PraxMemoryStore"]

#: Namespace root of the scratchpad: ``("stm", user_id)`` is that user's STM.
STM_ROOT = "stm"
_STM_FIELDS = frozenset({"content", "importance", "tags"})

_MAX_KEY_CHARS = 1024
_SCAN_PAGE = 256
#: Deepest ranking a query search asks for (``recall``'s own limit).
_MAX_RANK = 1000


@dataclass(frozen=True)
class _Put:
    namespace: tuple[str, ...]
    key: str
    user_id: str
    value: dict[str, Any] | None
    text: str | None  # None: not indexed


def _check_namespace(namespace: object, *, allow_empty: bool = False) -> tuple[str, ...]:
    if not isinstance(namespace, tuple):
        raise MemoryValidationError(f"namespace must be a tuple of strings, got {namespace!r}")
    if not namespace and not allow_empty:
        raise MemoryValidationError("namespace must not be empty")
    for label in namespace:
        if not isinstance(label, str):
            raise MemoryValidationError(f"namespace labels must be strings, got {label!r}")
        if not label or not label.strip():
            raise MemoryValidationError(f"namespace {namespace!r} has an empty label")
        if "." in label:
            raise MemoryValidationError(f"namespace label {label!r} contains a '.'")
        if any(ord(c) < 32 for c in label):
            raise MemoryValidationError(f"namespace label {label!r} contains a control character")
    if namespace and namespace[0] == "langgraph":
        raise MemoryValidationError('the root namespace label "langgraph" is reserved')
    return namespace


def _compare(item_value: Any, filter_value: Any) -> bool:
    """InMemoryStore's filter semantics (JSONB-like, with ``$eq/$ne/$gt/$gte/$lt/$lte``)."""
    if isinstance(filter_value, dict):
        if any(k.startswith("$") for k in filter_value):
            return all(_apply(item_value, op, v) for op, v in filter_value.items())
        if not isinstance(item_value, dict):
            return False
        return all(_compare(item_value.get(k), v) for k, v in filter_value.items())
    if isinstance(filter_value, list | tuple):
        return (
            isinstance(item_value, list | tuple)
            and len(item_value) == len(filter_value)
            and all(_compare(i, f) for i, f in zip(item_value, filter_value, strict=True))
        )
    return bool(item_value == filter_value)


def _apply(value: Any, op: str, target: Any) -> bool:
    if op == "$eq":
        return bool(value == target)
    if op == "$ne":
        return bool(value != target)
    if op in ("$gt", "$gte", "$lt", "$lte"):
        try:
            a, b = float(value), float(target)
        except (TypeError, ValueError):
            return False
        return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]
    raise MemoryValidationError(f"unsupported filter operator: {op}")


_SIMPLE_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: Integers the engine compares exactly (its numbers are 64-bit floats and integers).
_EXACT_INT = 2**53


def _number(value: Any) -> float | None:
    """``value`` as a float if the engine can compare it exactly, else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int) and abs(value) >= _EXACT_INT:
        return None  # (and float() of a huge int would overflow)
    number = float(value)
    if not math.isfinite(number) or abs(number) >= _EXACT_INT:
        return None
    return number


def _engine_filter(
    flt: Mapping[str, Any] | None, path: str = "value", *, ranges: bool = True
) -> tuple[list[models.Condition], list[models.Condition]]:
    """The ``must`` / ``must_not`` conditions the engine applies for a store filter.

    Every filter is still checked exactly in Python afterwards (InMemoryStore's semantics);
    these conditions make the engine return only candidates that can match, on every arm of
    a query search and in every scan, so a selective filter never empties a short candidate
    list. Translated: string and boolean equality, numeric equality (int and float alike, as
    a range ``[v, v]``: ``1`` finds ``1.0``), ``$gt/$gte/$lt/$lte`` on numbers (with
    ``ranges``), and nested objects. Left to the Python check only: ``$ne`` (the engine's
    must-not drops a list holding the value, which InMemoryStore keeps), list equality, keys
    that are not plain identifiers (a JSON-path character would change the meaning), numbers
    beyond 2**53. Range filters in the engine match numeric values only, so filter-only
    scans (which cast, as InMemoryStore does) leave ranges to the Python check
    (``ranges=False``); a query search runs them in the engine (docs/store.md).
    """
    must: list[models.Condition] = []
    must_not: list[models.Condition] = []
    for key, want in (flt or {}).items():
        if not isinstance(key, str) or not _SIMPLE_KEY.match(key):
            continue
        field = f"{path}.{key}"
        if isinstance(want, dict) and want and not any(k.startswith("$") for k in want):
            inner_must, inner_not = _engine_filter(want, field, ranges=ranges)
            must.extend(inner_must)
            must_not.extend(inner_not)
            continue
        ops = want if isinstance(want, dict) else {"$eq": want}
        for op, target in ops.items():
            if op == "$ne" or (not ranges and op not in ("$eq",)):
                continue
            cond = _condition(field, op, target)
            if cond is None:
                continue
            (must_not if op == "$ne" else must).append(cond)
    return must, must_not


def _condition(field: str, op: str, target: Any) -> models.Condition | None:
    if op in ("$eq", "$ne"):
        if isinstance(target, str | bool):
            return models.FieldCondition(key=field, match=models.MatchValue(value=target))
        number = _number(target)
        if number is None:
            return None
        return models.FieldCondition(key=field, range=models.Range(gte=number, lte=number))
    if op in ("$gt", "$gte", "$lt", "$lte"):
        number = _number(target)
        if number is None:
            return None
        return models.FieldCondition(key=field, range=models.Range(**{op[1:]: number}))
    return None


def _item(point: StoredPoint, score: float | None = None, *, search: bool = False) -> Item:
    p = point.payload
    created = to_utc(p.get("created_at") or p.get("created_ts") or 0)
    updated = to_utc(p.get("updated_at") or created)
    ns = tuple(p.get("ns") or ())
    if search:
        return SearchItem(ns, p["key"], dict(p.get("value") or {}), created, updated, score)
    return Item(
        value=dict(p.get("value") or {}),
        key=p["key"],
        namespace=ns,
        created_at=created,
        updated_at=updated,
    )


class PraxMemoryStore(BaseStore):
    """A LangGraph ``BaseStore`` backed by Prax memory (Qdrant, dense + sparse vectors).

    Behaves like LangGraph's ``InMemoryStore`` for ``get``/``put``/``delete``/
    ``list_namespaces`` and filter-only ``search`` (namespace prefixes matched by segment,
    ``$eq/$ne/$gt/$gte/$lt/$lte`` filters, ``limit``/``offset``, ``index=False``, ``index`` fields).
    ``search`` with a ``query`` ranks with the same pipeline as ``PraxMemory.recall`` (without
    reinforcing) and returns its scores (fused relevance, not cosine similarities).

    **Scratchpad.** ``("stm", user_id)`` is routed to the user's STM file (entries
    ``{content, importance, tags}``), not to Qdrant: it works even when LTM is down.

    **Tenancy.** Each item belongs to the user at position ``tenant_index`` of its namespace
    (``("memories", user_id)`` → ``user_id``; a one-label namespace is its own tenant). Every
    query is pinned to a user: a ``search`` or ``list_namespaces`` whose prefix stops above the
    user label is refused unless the store was built with ``allow_cross_tenant=True`` (admin
    tools), in which case it is run once per user and merged.

    **Time.** An item may carry its own ``created_at`` (ISO string, datetime or epoch seconds)
    in its value: imported history keeps its time, and decay and the store's ``created_at`` use
    it. Updates keep the first write's ``created_at`` otherwise.

    Args:
        memory: The :class:`PraxMemory` to store into (a default one is built when omitted).
        index: LangGraph's index config; only ``fields`` is used (the memory's own embedder
            embeds). Without it, a string ``content`` field or else the whole value is embedded.
        tenant_index: Namespace position of the user id.
        allow_cross_tenant: Permit reads whose prefix does not name a user.

    Example:
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryStore
        >>> store = PraxMemoryStore(PraxMemory(MemoryConfig(qdrant_url=":memory:")))
        >>> store.put(("memories", "alice"), "m1", {"content": "Alice likes tea"})
        >>> store.search(("memories", "alice"), query="drinks")[0].key
        'm1'
    """

    supports_ttl = False

    def __init__(
        self,
        memory: PraxMemory | None = None,
        *,
        index: IndexConfig | None = None,
        tenant_index: int = 1,
        allow_cross_tenant: bool = False,
    ) -> None:
        self.memory = memory or PraxMemory()
        if tenant_index < 0:
            raise MemoryValidationError("tenant_index must be >= 0")
        self.tenant_index = tenant_index
        self.allow_cross_tenant = allow_cross_tenant
        fields = index.get("fields") if index else None
        self.index_fields: list[str] | None = list(fields) if fields else None

    # -- tenancy ----------------------------------------------------------------------
    def tenant_of(self, namespace: tuple[str, ...]) -> str:
        """The user id an item in ``namespace`` belongs to."""
        return check_user_id(namespace[min(self.tenant_index, len(namespace) - 1)])

    def _pinned_tenant(self, prefix: tuple[str, ...]) -> str | None:
        if len(prefix) > self.tenant_index:
            return check_user_id(prefix[self.tenant_index])
        return None

    def _tenants_for(self, prefix: tuple[str, ...]) -> list[str]:
        pinned = self._pinned_tenant(prefix)
        if pinned is not None:
            return [pinned]
        if not self.allow_cross_tenant:
            raise MemoryValidationError(
                f"the prefix {prefix!r} does not name a user (label {self.tenant_index}); reads "
                "are scoped per user. Add the user id, or build the store with "
                "allow_cross_tenant=True for administrative reads."
            )
        flt = (
            models.Filter(
                must=[
                    models.FieldCondition(
                        key="ns_prefixes", match=models.MatchValue(value=NS_SEP.join(prefix))
                    )
                ]
            )
            if prefix
            else None
        )
        vs = self.memory.vectors
        vs.ensure_collection()
        res = vs.client.facet(vs.collection, key="user_id", facet_filter=flt, limit=1_000_000)
        return sorted(str(h.value) for h in res.hits)

    # -- batch ------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Execute operations; reads see the state before this batch's writes."""
        ops = list(ops)
        puts = self._plan_puts(ops)  # validates every write before anything runs
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._stm_get(op) if _is_stm(op.namespace) else self._get(op))
            elif isinstance(op, SearchOp):
                results.append(
                    self._stm_search(op) if _is_stm(op.namespace_prefix) else self._search(op)
                )
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            elif isinstance(op, PutOp):
                results.append(None)
            else:
                raise MemoryValidationError(f"unknown store operation: {type(op).__name__}")
        self._apply_puts(puts)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Execute operations off the event loop (same semantics as :meth:`batch`)."""
        return await asyncio.to_thread(self.batch, list(ops))

    # -- writes -----------------------------------------------------------------------
    def _plan_puts(self, ops: Sequence[Op]) -> list[_Put]:
        planned: dict[tuple[tuple[str, ...], str], _Put] = {}
        max_chars = self.memory.config.max_content_chars
        for op in ops:
            if not isinstance(op, PutOp):
                continue
            ns = _check_namespace(op.namespace)
            if not isinstance(op.key, str) or not op.key or len(op.key) > _MAX_KEY_CHARS:
                raise MemoryValidationError(f"key must be a non-empty string, got {op.key!r}")
            user = self.tenant_of(ns)
            if _is_stm(ns) and op.value is not None:
                _check_stm_value(op.value, max_chars)
            if op.value is None:
                planned[(ns, op.key)] = _Put(ns, op.key, user, None, None)
                continue
            if not isinstance(op.value, Mapping):
                raise MemoryValidationError("value must be a dict")
            value = dict(op.value)
            text: str | None = None
            if op.index is not False:
                fields = op.index if isinstance(op.index, list) else self.index_fields
                text = extract_text(value, fields)
                if len(text) > max_chars:
                    raise MemoryValidationError(
                        f"the text to index is {len(text)} characters, over the limit of "
                        f"{max_chars} (MEMORY_MAX_CONTENT_CHARS)"
                    )
                if not text.strip():
                    text = None
            # validate memory fields now so a bad item stores nothing
            build_payload(
                user_id=user,
                namespace=ns,
                key=op.key,
                value=value,
                text=text or "",
                now=utcnow(),
                previous=None,
                embedding_model=None,
                dense_pending=False,
            )
            planned[(ns, op.key)] = _Put(ns, op.key, user, value, text)
        return list(planned.values())

    def _apply_puts(self, puts: Sequence[_Put]) -> None:
        if not puts:
            return
        by_user: dict[str, list[_Put]] = defaultdict(list)
        for p in puts:
            if _is_stm(p.namespace):
                if p.value is None:
                    self.memory.stm.delete(p.user_id, p.key)
                else:
                    self.memory.stm.put(p.user_id, p.key, p.value)
            else:
                by_user[p.user_id].append(p)
        vs = self.memory.vectors if by_user else None
        for user, items in by_user.items():
            assert vs is not None
            deletes = [point_id(p.namespace, p.key) for p in items if p.value is None]
            writes = [p for p in items if p.value is not None]
            if writes:
                self._write(vs, user, writes)
            if deletes:
                vs.delete(user, deletes)

    def _write(self, vs: QdrantVectorStore, user: str, writes: Sequence[_Put]) -> None:
        ids = [point_id(p.namespace, p.key) for p in writes]
        previous = {p.id: p.payload for p in vs.retrieve(user, ids)}
        texts = [p.text for p in writes if p.text is not None]
        dense_by_text: dict[str, list[float]] = {}
        pending = False
        if texts:
            try:
                vectors = self.memory.embeddings.embed_documents(texts)
                dense_by_text = dict(zip(texts, vectors, strict=True))
            except EmbeddingError:
                pending = True
        sparse = self.memory.sparse_encoder
        now = utcnow()
        records = []
        for pid, p in zip(ids, writes, strict=True):
            assert p.value is not None
            payload = build_payload(
                user_id=user,
                namespace=p.namespace,
                key=p.key,
                value=p.value,
                text=p.text or "",
                now=now,
                previous=previous.get(pid),
                embedding_model=self.memory.embeddings.last_model
                if p.text and not pending
                else None,
                dense_pending=bool(p.text) and pending,
            )
            payload["indexed"] = p.text is not None
            dense = dense_by_text.get(p.text) if p.text else None
            sv = sparse.encode(p.text) if p.text else None
            records.append(VectorRecord(pid, payload, dense, sv))
        vs.upsert(user, records)

    # -- scratchpad ---------------------------------------------------------------------
    def _stm_get(self, op: GetOp) -> Item | None:
        entry = self.memory.stm.get(self.tenant_of(_check_namespace(op.namespace)), op.key)
        return _stm_item(op.namespace, entry) if entry else None

    def _stm_search(self, op: SearchOp) -> list[SearchItem]:
        ns = _check_namespace(op.namespace_prefix)
        entries = self.memory.stm.all(self.tenant_of(ns))
        items = [_stm_search_item(ns, e) for e in entries]
        if op.filter:
            items = [
                i for i in items if all(_compare(i.value.get(k), v) for k, v in op.filter.items())
            ]
        if op.query:
            words = set(tokenize(op.query))
            for item in items:
                text = set(tokenize(f"{item.key} {item.value['content']}"))
                item.score = len(words & text) / len(words) if words else 0.0
            items.sort(key=lambda i: -(i.score or 0.0))
        return items[op.offset : op.offset + op.limit]

    # -- reads ------------------------------------------------------------------------
    def _get(self, op: GetOp) -> Item | None:
        ns = _check_namespace(op.namespace)
        found = self.memory.vectors.retrieve(self.tenant_of(ns), [point_id(ns, op.key)])
        return _item(found[0]) if found else None

    def _prefix_filter(
        self,
        user: str,
        prefix: tuple[str, ...],
        flt: Mapping[str, Any] | None,
        *extra: models.Condition,
        ranges: bool = True,
    ) -> models.Filter:
        conds: list[models.Condition] = list(extra)
        if prefix:
            conds.append(
                models.FieldCondition(
                    key="ns_prefixes", match=models.MatchValue(value=NS_SEP.join(prefix))
                )
            )
        must, must_not = _engine_filter(flt, ranges=ranges)
        conds.extend(must)
        return user_filter(user, *conds, must_not=must_not)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = _check_namespace(op.namespace_prefix, allow_empty=True)
        if op.limit < 0 or op.offset < 0:
            raise MemoryValidationError("limit and offset must be >= 0")
        tenants = self._tenants_for(prefix)
        want = op.offset + op.limit
        if op.query:
            if not isinstance(op.query, str):
                raise MemoryValidationError("query must be a string")
            scored: list[tuple[float, StoredPoint]] = []
            for user in tenants:
                scored.extend(self._query_user(user, prefix, op, want))
            scored.sort(key=lambda t: -t[0])
            chosen = scored[op.offset : want]
            out: list[SearchItem] = [_item(p, s, search=True) for s, p in chosen]  # type: ignore[misc]
            if len(out) < op.limit:  # like InMemoryStore: fill with items that have no vectors
                # they come after every scored item, so the page's offset runs on into them
                skip = max(0, op.offset - len(scored))
                extra = self._scan(tenants, prefix, op.filter, unindexed=True)
                page = extra[skip : skip + op.limit - len(out)]
                out.extend(_item(p, None, search=True) for p in page)  # type: ignore[misc]
            return out
        points = self._scan(tenants, prefix, op.filter, stop=want)
        return [_item(p, None, search=True) for p in points[op.offset : want]]  # type: ignore[misc]

    def _query_user(
        self, user: str, prefix: tuple[str, ...], op: SearchOp, want: int
    ) -> list[tuple[float, StoredPoint]]:
        """The user's best ``want`` items for the query: the same ranking as ``recall``.

        The namespace prefix and the filter run inside the engine on every arm; the exact
        filter check runs on what comes back, and the search goes deeper while it dropped
        candidates and more may exist. A store search does not reinforce (BaseStore reads
        have no side effects).
        """
        assert op.query is not None
        flt = self._prefix_filter(user, prefix, op.filter)
        k = min(max(want, 1), _MAX_RANK)
        while True:
            result = self.memory.recall_detailed(user, op.query, k=k, reinforce=False, where=flt)
            out = []
            for hit in result.hits:
                point = result.points[hit.memory.id]
                value = point.payload.get("value") or {}
                if op.filter and not all(_compare(value.get(f), v) for f, v in op.filter.items()):
                    continue
                out.append((hit.score, point))
            if len(out) >= want or len(result.hits) < k or k >= _MAX_RANK:
                return out[:want]
            k = min(k * 4, _MAX_RANK)

    def _scan(
        self,
        tenants: Sequence[str],
        prefix: tuple[str, ...],
        flt: Mapping[str, Any] | None,
        *,
        stop: int | None = None,
        unindexed: bool = False,
    ) -> list[StoredPoint]:
        """Matching points in first-write order (like InMemoryStore's insertion order)."""
        vs = self.memory.vectors
        streams = []
        for user in tenants:
            extra = (
                [models.FieldCondition(key="indexed", match=models.MatchValue(value=False))]
                if unindexed
                else []
            )
            streams.append(
                self._scan_user(
                    vs, user, self._prefix_filter(user, prefix, flt, *extra, ranges=False), flt
                )
            )
        out: list[StoredPoint] = []
        for p in heapq.merge(*streams, key=lambda p: int(p.payload.get("seq", 0))):
            out.append(p)
            if stop is not None and len(out) >= stop:
                break
        return out

    @staticmethod
    def _scan_user(
        vs: QdrantVectorStore, user: str, qflt: models.Filter, flt: Mapping[str, Any] | None
    ) -> Iterable[StoredPoint]:
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

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions: Sequence[MatchCondition] = op.match_conditions or ()
        pinned: str | None = None
        for cond in conditions:
            path = tuple(cond.path)
            if (
                cond.match_type == "prefix"
                and len(path) > self.tenant_index
                and path[self.tenant_index] != "*"
            ):
                pinned = check_user_id(path[self.tenant_index])
        vs = self.memory.vectors
        vs.ensure_collection()
        if pinned is not None:
            paths = vs.facet("ns_path", user_id=pinned)
        elif self.allow_cross_tenant:
            res = vs.client.facet(vs.collection, key="ns_path", limit=1_000_000)
            paths = {str(h.value): int(h.count) for h in res.hits}
        else:
            raise MemoryValidationError(
                "list_namespaces must name a user with a prefix condition (e.g. prefix="
                "('memories', user_id)), or the store must allow cross-tenant reads"
            )
        namespaces = [tuple(p.split(NS_SEP)) for p in paths]
        users = [pinned] if pinned is not None else []
        for user in users:
            if self.memory.stm.all(user):
                namespaces.append((STM_ROOT, user))
        namespaces = [ns for ns in namespaces if all(_matches(c, ns) for c in conditions)]
        if op.max_depth is not None:
            namespaces = sorted({ns[: op.max_depth] for ns in namespaces})
        else:
            namespaces = sorted(namespaces)
        return namespaces[op.offset : op.offset + op.limit]

    # -- maintenance --------------------------------------------------------------------
    def close(self) -> None:
        """Close the underlying memory."""
        self.memory.close()


def _is_stm(namespace: tuple[str, ...]) -> bool:
    return len(namespace) == 2 and namespace[0] == STM_ROOT


def _check_stm_value(value: Mapping[str, Any], max_chars: int) -> None:
    if not isinstance(value, Mapping):
        raise MemoryValidationError("value must be a dict")
    unknown = set(value) - _STM_FIELDS
    if unknown:
        raise MemoryValidationError(
            f"scratchpad values take {sorted(_STM_FIELDS)}, not {sorted(unknown)}"
        )
    check_text(value.get("content"), max_chars=max_chars)
    if value.get("importance") is not None:
        check_importance(value["importance"])
    check_tags(value.get("tags"))


def _stm_value(entry: StmEntry) -> dict[str, Any]:
    return {
        "content": entry.content,
        "importance": entry.importance,
        "tags": list(entry.tags),
        "access_count": entry.access_count,
    }


def _stm_item(namespace: tuple[str, ...], entry: StmEntry) -> Item:
    return Item(
        value=_stm_value(entry),
        key=entry.key,
        namespace=tuple(namespace),
        created_at=entry.created_at,
        updated_at=entry.created_at,
    )


def _stm_search_item(namespace: tuple[str, ...], entry: StmEntry) -> SearchItem:
    return SearchItem(
        tuple(namespace), entry.key, _stm_value(entry), entry.created_at, entry.created_at
    )


def _matches(cond: MatchCondition, ns: tuple[str, ...]) -> bool:
    path = tuple(cond.path)
    if len(ns) < len(path):
        return False
    pairs = (
        zip(ns, path, strict=False)
        if cond.match_type == "prefix"
        else zip(reversed(ns), reversed(path), strict=False)
    )
    return all(p == "*" or k == p for k, p in pairs)
