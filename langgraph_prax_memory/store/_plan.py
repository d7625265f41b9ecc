"""Planning a batch: namespace and key checks, puts validated before anything runs, items."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langgraph.store.base import (
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    SearchItem,
    SearchOp,
)

from langgraph_prax_memory._validation import (
    check_json_value,
    check_unicode,
    to_utc,
    utcnow,
)
from langgraph_prax_memory.errors import (
    EmbeddingError,
    MemoryValidationError,
)
from langgraph_prax_memory.memory import PraxMemory
from langgraph_prax_memory.store._stm import _check_stm_value, _is_stm
from langgraph_prax_memory.store._ttl import TTL_MINUTES, _check_ttl, _expired
from langgraph_prax_memory.vectors import (
    EXPIRES_AT,
    StoredPoint,
    VectorRecord,
    build_payload,
    extract_text,
    point_id,
)

_MAX_KEY_CHARS = 1024


@dataclass(frozen=True)
class _Put:
    namespace: tuple[str, ...]
    key: str
    user_id: str
    value: dict[str, Any] | None
    text: str | None  # None: not indexed
    ttl: float | None = None  # minutes


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
        check_unicode(label, what=f"namespace label {label!r}")
    if namespace and namespace[0] == "langgraph":
        raise MemoryValidationError('the root namespace label "langgraph" is reserved')
    return namespace


def _check_key(key: object) -> str:
    if not isinstance(key, str) or not key or len(key) > _MAX_KEY_CHARS:
        raise MemoryValidationError(f"key must be a non-empty string, got {key!r}")
    return check_unicode(key, what=f"key {key!r}")


def check_reads(ops: Sequence[Op]) -> None:
    """Check the user values of a batch's reads before anything runs.

    Namespaces, keys, search prefixes, filters (keys and values, as stored values are
    checked: :func:`~langgraph_prax_memory._validation.check_json_value`), queries and listing
    paths: bad input is a :class:`MemoryValidationError`, never an engine error reported as an
    outage.
    """
    for op in ops:
        if isinstance(op, GetOp):
            _check_namespace(op.namespace)
            if not isinstance(op.key, str):
                raise MemoryValidationError(f"key must be a string, got {op.key!r}")
            check_unicode(op.key, what=f"key {op.key!r}")
        elif isinstance(op, SearchOp):
            _check_namespace(op.namespace_prefix, allow_empty=True)
            if op.filter is not None:
                if not isinstance(op.filter, Mapping):
                    raise MemoryValidationError("filter must be a dict")
                # infinities may be compared with (InMemoryStore's semantics), never stored
                check_json_value(op.filter, what="filter", finite=False)
            if op.query is not None:
                if not isinstance(op.query, str):
                    raise MemoryValidationError("query must be a string")
                check_unicode(op.query, what="query")
        elif isinstance(op, ListNamespacesOp):
            for cond in op.match_conditions or ():
                for label in cond.path:
                    if not isinstance(label, str):
                        raise MemoryValidationError(
                            f"namespace labels must be strings, got {label!r}"
                        )
                    check_unicode(label, what=f"namespace label {label!r}")


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


def plan_puts(
    ops: Sequence[Op],
    *,
    tenant_of: Callable[[tuple[str, ...]], str],
    max_chars: int,
    default_ttl: float | None,
    index_fields: list[str] | None,
) -> list[_Put]:
    """The batch's puts, each validated before anything runs; the last put of a key wins."""
    planned: dict[tuple[tuple[str, ...], str], _Put] = {}
    for op in ops:
        if not isinstance(op, PutOp):
            continue
        ns = _check_namespace(op.namespace)
        _check_key(op.key)
        user = tenant_of(ns)
        ttl = _check_ttl(op.ttl) if op.value is not None else None
        if _is_stm(ns) and op.value is not None:
            _check_stm_value(op.value, max_chars)
            if ttl is not None and ttl != default_ttl:
                raise MemoryValidationError(
                    "the scratchpad namespace ('stm', user) has no TTL: its entries are "
                    "compacted by the scratchpad itself"
                )
            ttl = None
        if op.value is None:
            planned[(ns, op.key)] = _Put(ns, op.key, user, None, None)
            continue
        if not isinstance(op.value, Mapping):
            raise MemoryValidationError("value must be a dict")
        # JSON the engine can write *and read back*: no lone surrogate, NaN, object it cannot
        # serialise, or nesting past what it reads (a deeper value broke the user's reads)
        check_json_value(op.value, what="value")
        value = dict(op.value)
        text: str | None = None
        if op.index is not False:
            fields = op.index if isinstance(op.index, list) else index_fields
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
        planned[(ns, op.key)] = _Put(ns, op.key, user, value, text, ttl)
    return list(planned.values())


def write_puts(memory: PraxMemory, user: str, writes: Sequence[_Put]) -> None:
    """Embed and write ``user``'s puts through the long-term memory's one write path."""
    vs = memory.vectors
    ids = [point_id(p.namespace, p.key) for p in writes]
    stamp = time.time()
    # an expired item that the sweeper has not deleted yet is gone: a put starts afresh
    previous = {p.id: p.payload for p in vs.retrieve(user, ids) if not _expired(p.payload, stamp)}
    texts = [p.text for p in writes if p.text is not None]
    dense_by_text: dict[str, list[float]] = {}
    pending = False
    if texts:
        try:
            vectors = memory.embeddings.embed_documents(texts)
            dense_by_text = dict(zip(texts, vectors, strict=True))
        except EmbeddingError:
            pending = True
    sparse = memory.sparse_encoder
    memory.ltm.classes.classifier().warm()  # its first training is not part of the TTL either
    # the TTL runs from the write: embedding (a model loading on first use) is not part of it
    now = utcnow()
    written = now.timestamp()
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
            embedding_model=memory.embeddings.last_model if p.text and not pending else None,
            dense_pending=bool(p.text) and pending,
        )
        payload["indexed"] = p.text is not None
        payload[TTL_MINUTES] = p.ttl
        payload[EXPIRES_AT] = written + p.ttl * 60.0 if p.ttl is not None else None
        dense = dense_by_text.get(p.text) if p.text else None
        sv = sparse.encode(p.text) if p.text else None
        records.append(VectorRecord(pid, payload, dense, sv))
    memory.ltm.classes.annotate([r.payload for r in records], [r.dense for r in records])
    memory.ltm.write(user, records, chunk_size=None)
