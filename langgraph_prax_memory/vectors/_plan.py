"""Pure "plan" functions: what to ask Qdrant, with no I/O.

The vector store executes these plans against a ``QdrantClient`` or the embedded
``EdgeClient``, so every engine shares one definition of the schema, the tenant filter and the
decay rule.
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from qdrant_client.http import models

from langgraph_prax_memory._validation import check_user_id
from langgraph_prax_memory.errors import BackendUnavailable

DENSE = "dense"
SPARSE = "sparse"
#: Prune threshold of the vector decay pass (the seed's 0.02).
VECTOR_PRUNE_THRESHOLD = 0.02
_POINT_NS = uuid.UUID("6f1c2b7e-8d0a-4c55-9d5e-2f6a0b4e9c31")
_ESCAPED_POINT_NS = uuid.UUID("0b7f6c1e-3a52-4d8e-9c41-7e2d5a6b8f03")  # keys holding the separator

#: Payload fields and the index each gets on a Qdrant server (local mode ignores indexes).
PAYLOAD_INDEXES: dict[str, Any] = {
    "user_id": models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True),
    "ns_path": models.PayloadSchemaType.KEYWORD,
    "ns_prefixes": models.PayloadSchemaType.KEYWORD,
    "key": models.PayloadSchemaType.KEYWORD,
    "source": models.PayloadSchemaType.KEYWORD,
    "tags": models.PayloadSchemaType.KEYWORD,
    "entity_ids": models.PayloadSchemaType.KEYWORD,
    "summary_level": models.PayloadSchemaType.KEYWORD,
    "content_hash": models.PayloadSchemaType.KEYWORD,
    "dense_pending": models.PayloadSchemaType.BOOL,
    "importance": models.PayloadSchemaType.FLOAT,
    "created_at": models.PayloadSchemaType.DATETIME,
    "last_accessed": models.PayloadSchemaType.DATETIME,
    "created_ts": models.PayloadSchemaType.FLOAT,
    "last_accessed_ts": models.PayloadSchemaType.FLOAT,
    "expires_at": models.PayloadSchemaType.FLOAT,  # the store's TTL (filtered on every read)
    "valid_until_ts": models.PayloadSchemaType.FLOAT,
    "fact_class": models.PayloadSchemaType.KEYWORD,  # standing / episode / small_talk
    "when_start": models.PayloadSchemaType.FLOAT,  # the days a memory names (the dated tier)
    "when_end": models.PayloadSchemaType.FLOAT,
    "weekdays": models.PayloadSchemaType.INTEGER,  # a routine's weekdays (Monday is 0)
    "terms": models.PayloadSchemaType.KEYWORD,  # a memory's keyword terms (per-user counts)
    # the content case-folded: a text search by substring reads the index, not the payloads
    "content_folded": models.PayloadSchemaType.KEYWORD,
    "seq": models.IntegerIndexParams(
        type=models.IntegerIndexType.INTEGER, range=True, lookup=False
    ),
    # recall counts: the inspector reads the recalled memories' counts by range and order
    "access_count": models.IntegerIndexParams(
        type=models.IntegerIndexType.INTEGER, range=True, lookup=False
    ),
}


def qsparse(vector: Any) -> models.SparseVector:
    """A Qdrant sparse vector from anything with ``indices`` and ``values``."""
    if isinstance(vector, models.SparseVector):
        return vector
    return models.SparseVector(indices=list(vector.indices), values=list(vector.values))


def point_id(namespace: Sequence[str], key: str) -> str:
    r"""The point id of an item: uuid5 of its namespace and key (never a raw string).

    The encoding is injective. Namespace labels cannot hold control characters, so for a key
    without the ``\x1f`` separator the labels and the key joined by it name one item only
    (the historical encoding, kept so stored items keep their ids). A key that contains the
    separator could otherwise spell another namespace's item (``("memories",)`` +
    ``"alice\x1fprofile"`` = ``("memories", "alice")`` + ``"profile"``); such keys are hashed
    in a separate uuid5 namespace, over an unambiguous JSON encoding.

    Example:
        >>> a = point_id(("memories",), "alice\x1fprofile")
        >>> a != point_id(("memories", "alice"), "profile")
        True
    """
    if any("\x1f" in part for part in (*namespace, key)):
        encoded = json.dumps([*namespace, key], ensure_ascii=False)
        return str(uuid.uuid5(_ESCAPED_POINT_NS, encoded))
    return str(uuid.uuid5(_POINT_NS, "\x1f".join([*namespace, key])))


#: Dense search: with int8 copies, scan those, then rescore the best 2 × limit candidates
#: on the original vectors (the top-k is then the exact cosine top-k in practice). A
#: collection without quantization ignores it.
DENSE_SEARCH = models.SearchParams(
    quantization=models.QuantizationSearchParams(rescore=True, oversampling=2.0)
)


def collection_plan(dimension: int, *, embedded: bool = False) -> dict[str, Any]:
    """Arguments of ``create_collection``: named dense + sparse (IDF) vectors.

    ``embedded`` (the in-process qdrant-edge engine): the dense vectors get no HNSW graph
    (``m=0``: building one for 100k points takes minutes on two cores, and a user's memories
    are scanned exactly) and int8 scalar copies kept in RAM, scanned first and rescored
    (:data:`DENSE_SEARCH`): a quarter of the bytes to read per query. A server keeps
    Qdrant's defaults (HNSW, no quantization), which its own optimizer maintains.
    """
    dense = models.VectorParams(size=dimension, distance=models.Distance.COSINE)
    plan: dict[str, Any] = {}
    if embedded:
        # up to 8 segments: a background optimisation then folds new points into a segment
        # of their own instead of rewriting the largest one (log-structured merging)
        plan["optimizers_config"] = models.OptimizersConfigDiff(default_segment_number=8)
        dense = models.VectorParams(
            size=dimension,
            distance=models.Distance.COSINE,
            hnsw_config=models.HnswConfigDiff(m=0),
            quantization_config=models.ScalarQuantization(
                scalar=models.ScalarQuantizationConfig(
                    type=models.ScalarType.INT8, quantile=0.99, always_ram=True
                )
            ),
        )
    return {
        "vectors_config": {DENSE: dense},
        "sparse_vectors_config": {SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
        **plan,
    }


def existing_dimension(info: models.CollectionInfo) -> int | None:
    """Width of the dense vector of an existing collection, ``None`` when it has none."""
    vectors = info.config.params.vectors
    if isinstance(vectors, Mapping) and DENSE in vectors:
        return int(vectors[DENSE].size)
    return None


def user_filter(
    user_id: str, *extra: models.Condition, must_not: Sequence[Any] = ()
) -> models.Filter:
    """A filter that pins ``user_id`` plus any extra conditions. Every query goes through it."""
    check_user_id(user_id)
    conditions: list[models.Condition] = [
        models.FieldCondition(key="user_id", match=models.MatchValue(value=user_id)),
        *extra,
    ]
    return models.Filter(must=conditions, must_not=list(must_not) or None)


def assert_pinned(flt: models.Filter, user_id: str) -> None:
    """Refuse a filter that does not pin ``user_id`` (as :func:`user_filter` does).

    Raises:
        BackendUnavailable: The filter would read across tenants (an internal error).
    """
    check_user_id(user_id)
    for cond in flt.must or []:
        if (
            isinstance(cond, models.FieldCondition)
            and cond.key == "user_id"
            and isinstance(cond.match, models.MatchValue)
            and cond.match.value == user_id
        ):
            return
    raise BackendUnavailable("internal error: a vector query was not scoped by user_id")


#: Payload key of a TTL'd item's expiry (epoch seconds), written by the LangGraph store.
EXPIRES_AT = "expires_at"


def unexpired(now: float) -> models.Filter:
    """Points that have not expired at ``now`` (no ``expires_at``, or a later one).

    Every read of long-term memory applies it (the store, ``recall``, ``count``,
    ``list_memories``), so an item past its TTL is gone at once on every door, before the
    sweeper deletes it.
    """
    return models.Filter(
        should=[
            models.IsEmptyCondition(is_empty=models.PayloadField(key=EXPIRES_AT)),
            models.FieldCondition(key=EXPIRES_AT, range=models.Range(gt=now)),
        ]
    )


def ids_condition(ids: Sequence[str]) -> models.HasIdCondition:
    """Restrict to point ids."""
    return models.HasIdCondition(has_id=list(ids))


@dataclass(frozen=True)
class VectorRecord:
    """A point to write: its id, payload and vectors (dense may be missing: pending)."""

    id: str
    payload: dict[str, Any]
    dense: list[float] | None
    sparse: Any | None

    def to_point(self) -> models.PointStruct:
        """The Qdrant point."""
        vector: dict[str, Any] = {}
        if self.dense is not None:
            vector[DENSE] = self.dense
        if self.sparse is not None and self.sparse.indices:
            vector[SPARSE] = qsparse(self.sparse)
        return models.PointStruct(id=self.id, vector=vector, payload=self.payload)


@dataclass(frozen=True)
class StoredPoint:
    """A point read back: id, payload and (for searches) a score."""

    id: str
    payload: dict[str, Any]
    score: float | None = None
    extras: dict[str, Any] = field(default_factory=dict)


def to_stored(point: Any, *, with_vector: bool = False) -> StoredPoint:
    """Convert a qdrant ``Record`` / ``ScoredPoint`` (``with_vector``: its dense vector too)."""
    stored = StoredPoint(
        id=str(point.id), payload=dict(point.payload or {}), score=getattr(point, "score", None)
    )
    if with_vector:
        vector = getattr(point, "vector", None)
        vector = vector.get(DENSE) if isinstance(vector, dict) else vector
        if vector is not None:
            stored.extras["vector"] = vector
    return stored


def hybrid_query_plan(
    dense: list[float] | None,
    sparse: Any | None,
    flt: models.Filter,
    *,
    limit: int,
    candidates: int,
    dense_params: models.SearchParams | None = None,
) -> dict[str, Any]:
    """``query_points`` arguments of a fused dense + sparse query (prefetch + RRF).

    ``dense_params`` go with the dense side (:data:`DENSE_SEARCH` on an engine that honours
    them; qdrant-client's local mode warns about any).
    """
    prefetch = []
    if dense is not None:
        prefetch.append(
            models.Prefetch(
                query=dense, using=DENSE, filter=flt, limit=candidates, params=dense_params
            )
        )
    if sparse is not None and sparse.indices:
        prefetch.append(
            models.Prefetch(query=qsparse(sparse), using=SPARSE, filter=flt, limit=candidates)
        )
    if not prefetch:
        return {}
    if len(prefetch) == 1:
        only = prefetch[0]
        return {
            "query": only.query,
            "using": only.using,
            "query_filter": flt,
            "limit": limit,
            **({"search_params": only.params} if only.params is not None else {}),
        }
    return {
        "prefetch": prefetch,
        "query": models.FusionQuery(fusion=models.Fusion.RRF),
        "query_filter": flt,
        "limit": limit,
    }


def decay_factor(days: float, halflife_days: float) -> float:
    """``exp(-λ·days)`` with ``λ = ln 2 / halflife`` (negative ages count as 0)."""
    return math.exp(-(math.log(2) / halflife_days) * max(0.0, days))


def effective_importance(payload: Mapping[str, Any], now: datetime, halflife_days: float) -> float:
    """Stored importance decayed by the days since the memory was last accessed."""
    importance = float(payload.get("importance", 0.5))
    ts = payload.get("last_accessed_ts", payload.get("created_ts"))
    if ts is None:
        return importance
    days = (now.timestamp() - float(ts)) / 86400.0
    return importance * decay_factor(days, halflife_days)


def decay_victims(
    points: Sequence[StoredPoint],
    now: datetime,
    halflife_days: float,
    threshold: float = VECTOR_PRUNE_THRESHOLD,
) -> list[str]:
    """Ids whose effective importance fell below ``threshold`` at ``now``.

    A pure function of the stored values and ``now``: nothing is written back, so two passes
    at the same moment choose the same victims. Standing facts (``fact_class`` standing: a
    preference, an allergy, a partner's name) are never victims: they leave by supersession,
    ``forget`` or the user (a departure from the seed, docs/context.md "Memory classes").
    """
    return [
        p.id
        for p in points
        if p.payload.get("fact_class") != "standing"
        and effective_importance(p.payload, now, halflife_days) < threshold
    ]


def reinforce_plan(
    points: Sequence[StoredPoint], now: datetime
) -> list[models.SetPayloadOperation]:
    """One ``set_payload`` per point: ``access_count + 1`` and ``last_accessed = now``."""
    ops = []
    for p in points:
        count = int(p.payload.get("access_count", 0)) + 1
        ops.append(
            models.SetPayloadOperation(
                set_payload=models.SetPayload(
                    payload={
                        "access_count": count,
                        "last_accessed": now.isoformat(),
                        "last_accessed_ts": now.timestamp(),
                    },
                    points=[p.id],
                )
            )
        )
    return ops


def payloads_plan(
    user_id: str, payloads: Mapping[str, dict[str, Any]]
) -> list[models.SetPayloadOperation]:
    """One ``set_payload`` per point, each filtered on ``user_id`` as well as the point's id."""
    return [
        models.SetPayloadOperation(
            set_payload=models.SetPayload(
                payload=payload, filter=user_filter(user_id, ids_condition([pid]))
            )
        )
        for pid, payload in payloads.items()
    ]


class OwnedElsewhere(Exception):
    """Some of the ids an upsert would write belong to another user."""

    def __init__(self, ids: list[str]) -> None:
        super().__init__(ids)
        self.ids = ids
