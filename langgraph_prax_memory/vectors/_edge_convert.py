"""Conversions between qdrant-client ``models`` and qdrant-edge's types (pure).

What :class:`~langgraph_prax_memory.vectors._edge.EdgeClient` is handed (points, vectors,
filters, queries, prefetches, payload schemas, selectors, update operations) becomes the
engine's own types here, and the engine's answers (points, records) become qdrant-client
``models`` again. A type with no translation raises ``NotImplementedError`` naming it, never
a silent change of meaning.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any

import qdrant_edge as qe
from pydantic_core import to_jsonable_python
from qdrant_client.http import models

from langgraph_prax_memory.vectors._edge_filters import (
    _filter,
    _id_in,
    _newer,
)

#: qdrant-client's RRF constant when a ``FusionQuery`` gives none (``hybrid/fusion.py``).
RRF_K = 2


_DISTANCES = {
    models.Distance.COSINE: qe.Distance.Cosine,
    models.Distance.EUCLID: qe.Distance.Euclid,
    models.Distance.DOT: qe.Distance.Dot,
    models.Distance.MANHATTAN: qe.Distance.Manhattan,
}


_SCHEMA_TYPES = {
    models.PayloadSchemaType.KEYWORD: qe.PayloadSchemaType.Keyword,
    models.PayloadSchemaType.INTEGER: qe.PayloadSchemaType.Integer,
    models.PayloadSchemaType.FLOAT: qe.PayloadSchemaType.Float,
    models.PayloadSchemaType.GEO: qe.PayloadSchemaType.Geo,
    models.PayloadSchemaType.TEXT: qe.PayloadSchemaType.Text,
    models.PayloadSchemaType.BOOL: qe.PayloadSchemaType.Bool,
    models.PayloadSchemaType.DATETIME: qe.PayloadSchemaType.Datetime,
    models.PayloadSchemaType.UUID: qe.PayloadSchemaType.Uuid,
}


_SCHEMA_TYPES_BACK = {v: k for k, v in _SCHEMA_TYPES.items()}


_Operation = (
    models.UpsertOperation
    | models.DeleteOperation
    | models.SetPayloadOperation
    | models.OverwritePayloadOperation
    | models.DeletePayloadOperation
    | models.ClearPayloadOperation
    | models.UpdateVectorsOperation
    | models.DeleteVectorsOperation
)


_Selector = (
    Sequence[models.ExtendedPointId] | models.Filter | models.PointIdsList | models.FilterSelector
)


_INDEX_PARAMS: dict[str, type[Any]] = {
    "keyword": models.KeywordIndexParams,
    "integer": models.IntegerIndexParams,
    "float": models.FloatIndexParams,
    "bool": models.BoolIndexParams,
    "datetime": models.DatetimeIndexParams,
    "uuid": models.UuidIndexParams,
}


def _schema_json(schema: Any) -> Any:
    """A payload index schema as recorded in ``collection.json``."""
    if isinstance(schema, models.PayloadSchemaType):
        return schema.value
    if isinstance(schema, str):
        return models.PayloadSchemaType(schema).value
    return schema.model_dump(mode="json", exclude_none=True)


def _index_plan(
    meta: Mapping[str, Any], info: qe.ShardInfo
) -> dict[str, qe.PayloadSchemaType | qe.PayloadSchemaParams]:
    """The payload indexes of a shard, with the parameters recorded when they were created.

    An index created before schemas were recorded is rebuilt from its data type alone.
    """
    recorded = meta.get("payload_indexes") or {}
    plan: dict[str, qe.PayloadSchemaType | qe.PayloadSchemaParams] = {}
    for field, index in info.payload_schema.items():
        raw = recorded.get(field)
        if isinstance(raw, str):
            plan[field] = _index_schema(models.PayloadSchemaType(raw))
        elif isinstance(raw, dict) and raw.get("type") in _INDEX_PARAMS:
            plan[field] = _index_schema(_INDEX_PARAMS[raw["type"]].model_validate(raw))
        else:
            plan[field] = index.data_type
    return plan


# -- collection config -------------------------------------------------------------------
def _edge_config(meta: Mapping[str, Any], search_threads: int | None = None) -> qe.EdgeConfig:
    """The shard's config from the collection's metadata.

    ``search_threads``: threads of the shard's search pool (its per-segment reads); ``None``
    keeps what the shard has (a new shard: the engine's default, one per core).
    """
    dense = {
        name: _dense_params(models.VectorParams.model_validate(raw))
        for name, raw in meta["vectors"].items()
    }
    sparse = {
        name: _sparse_params(models.SparseVectorParams.model_validate(raw))
        for name, raw in meta["sparse_vectors"].items()
    }
    if not dense and not sparse:
        raise ValueError("a collection needs at least one dense or sparse vector")
    return qe.EdgeConfig(
        vectors=dense or None,
        sparse_vectors=sparse or None,
        optimizers=_optimizers(meta.get("optimizers")),
        max_search_threads=search_threads,
    )


def _optimizers(raw: Mapping[str, Any] | None) -> qe.EdgeOptimizersConfig | None:
    if not raw:
        return None
    given = models.OptimizersConfigDiff.model_validate(raw)
    taken = {
        "default_segment_number",
        "max_segment_size",
        "indexing_threshold",
        "deleted_threshold",
    }
    extra = sorted(k for k, v in given.model_dump(exclude_none=True).items() if k not in taken)
    if extra:
        raise NotImplementedError(f"EdgeClient does not translate OptimizersConfigDiff {extra}")
    return qe.EdgeOptimizersConfig(
        default_segment_number=given.default_segment_number,
        max_segment_size=given.max_segment_size,
        indexing_threshold=given.indexing_threshold,
        deleted_threshold=given.deleted_threshold,
    )


def _dense_params(params: models.VectorParams) -> qe.EdgeVectorParams:
    extra = [
        name
        for name in ("multivector_config", "datatype")
        if getattr(params, name, None) is not None
    ]
    if extra:
        raise NotImplementedError(f"EdgeClient does not translate VectorParams {extra}")
    hnsw = None
    if params.hnsw_config is not None:
        h = params.hnsw_config
        if h.payload_m is not None or h.max_indexing_threads:
            raise NotImplementedError(
                "EdgeClient translates HNSW m, ef_construct, full_scan_threshold and on_disk only"
            )
        hnsw = qe.HnswIndexConfig(
            m=16 if h.m is None else h.m,
            ef_construct=100 if h.ef_construct is None else h.ef_construct,
            full_scan_threshold=10_000 if h.full_scan_threshold is None else h.full_scan_threshold,
            on_disk=h.on_disk,
        )
    quantization = None
    if params.quantization_config is not None:
        q = params.quantization_config
        if not isinstance(q, models.ScalarQuantization):
            raise NotImplementedError("EdgeClient translates scalar (int8) quantization only")
        quantization = qe.ScalarQuantizationConfig(
            type=qe.ScalarType.Int8, quantile=q.scalar.quantile, always_ram=q.scalar.always_ram
        )
    return qe.EdgeVectorParams(
        size=params.size,
        distance=_DISTANCES[params.distance],
        on_disk=params.on_disk,
        hnsw_config=hnsw,
        quantization_config=quantization,
    )


def _sparse_params(params: models.SparseVectorParams) -> qe.EdgeSparseVectorParams:
    index = params.index
    if index is not None and index.datatype is not None:
        raise NotImplementedError("EdgeClient does not translate sparse index datatypes")
    return qe.EdgeSparseVectorParams(
        full_scan_threshold=index.full_scan_threshold if index else None,
        on_disk=index.on_disk if index else None,
        modifier=qe.Modifier.Idf if params.modifier == models.Modifier.IDF else None,
    )


def _index_schema(schema: Any) -> qe.PayloadSchemaType | qe.PayloadSchemaParams:
    if isinstance(schema, str) and not isinstance(schema, models.PayloadSchemaType):
        schema = models.PayloadSchemaType(schema)
    if isinstance(schema, models.PayloadSchemaType):
        return _SCHEMA_TYPES[schema]
    if isinstance(schema, models.KeywordIndexParams):
        return qe.KeywordIndexParams(is_tenant=schema.is_tenant, on_disk=schema.on_disk)
    if isinstance(schema, models.IntegerIndexParams):
        return qe.IntegerIndexParams(
            lookup=schema.lookup,
            range=schema.range,
            is_principal=schema.is_principal,
            on_disk=schema.on_disk,
        )
    if isinstance(schema, models.FloatIndexParams):
        return qe.FloatIndexParams(is_principal=schema.is_principal, on_disk=schema.on_disk)
    if isinstance(schema, models.BoolIndexParams):
        return qe.BoolIndexParams(on_disk=schema.on_disk)
    if isinstance(schema, models.DatetimeIndexParams):
        return qe.DatetimeIndexParams(is_principal=schema.is_principal, on_disk=schema.on_disk)
    if isinstance(schema, models.UuidIndexParams):
        return qe.UuidIndexParams(is_tenant=schema.is_tenant, on_disk=schema.on_disk)
    raise NotImplementedError(f"EdgeClient does not translate the index schema {schema!r}")


# -- points ------------------------------------------------------------------------------


def _id_out(point_id: qe.PointId) -> models.ExtendedPointId:
    return str(point_id) if isinstance(point_id, uuid.UUID) else point_id


def _vector_in(vector: Any) -> qe.NamedVector:
    if isinstance(vector, models.SparseVector):
        _check_sparse(vector)
        return qe.SparseVector(list(vector.indices), list(vector.values))
    if hasattr(vector, "tolist"):  # numpy
        vector = vector.tolist()
    if isinstance(vector, list):  # edge checks the values and the width
        return vector
    raise NotImplementedError(
        f"EdgeClient takes dense float lists and SparseVector, got {type(vector).__name__}"
    )


def _vectors_in(vector: Any) -> qe.Vector:
    if isinstance(vector, Mapping):
        return {name: _vector_in(v) for name, v in vector.items()}
    plain = _vector_in(vector)
    if isinstance(plain, qe.SparseVector):
        raise ValueError("a sparse vector must be named")
    return plain


def _vectors_out(vector: qe.Vector | None) -> Any:
    if vector is None:
        return None
    if not isinstance(vector, dict):
        return vector
    out = {
        name: models.SparseVector(indices=list(v.indices), values=list(v.values))
        if isinstance(v, qe.SparseVector)
        else v
        for name, v in vector.items()
    }
    return out[""] if set(out) == {""} else out


def _payload_in(payload: Any) -> Any:
    """JSON values, as qdrant-client sends them (datetime → ISO string, UUID → str, ...)."""
    return None if payload is None else to_jsonable_python(payload)


def _check_sparse(vector: models.SparseVector) -> None:
    indices, values = list(vector.indices), list(vector.values)
    if len(indices) != len(values):
        raise ValueError("a sparse vector needs as many values as indices")
    if len(set(indices)) != len(indices):
        raise ValueError("a sparse vector's indices must be unique")
    if any(not 0 <= i < 2**32 for i in indices):
        raise ValueError("sparse vector indices must be in [0, 2**32)")
    if not all(math.isfinite(v) for v in values):
        raise ValueError("a sparse vector holds NaN or infinity")


def _point(p: models.PointStruct) -> qe.Point:
    return qe.Point(_id_in(p.id), _vectors_in(p.vector), _payload_in(p.payload))


def _scored(p: qe.ScoredPoint) -> models.ScoredPoint:
    # as _record: the engine's values are the model's types already; validating each
    # payload cost a quarter of a keyword search of 40 candidates (issue 41)
    return models.ScoredPoint.model_construct(
        id=_id_out(p.id),
        version=p.version,
        score=p.score,
        payload=p.payload,
        vector=_vectors_out(p.vector),
        order_value=p.order_value,
    )


def _record(r: qe.Record) -> models.Record:
    # the engine's values are already the model's types: skip pydantic's validation, which
    # cost most of a scroll of many small payloads (the inspector reads 10,000 of them)
    return models.Record.model_construct(
        id=_id_out(r.id),
        payload=r.payload,
        vector=_vectors_out(r.vector),
        shard_key=None,
        order_value=r.order_value,
    )


def _value_order(value: Any) -> tuple[int, Any]:
    # local mode's order for count ties: bool < int < str, then by value
    return (0 if isinstance(value, bool) else 1 if isinstance(value, int) else 2, value)


def _with_payload(value: Any) -> qe.WithPayloadType:
    if isinstance(value, bool):
        return value
    if isinstance(value, models.PayloadSelectorInclude):
        return qe.PayloadSelector.Include(list(value.include))
    if isinstance(value, models.PayloadSelectorExclude):
        return qe.PayloadSelector.Exclude(list(value.exclude))
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [str(k) for k in value]
    raise NotImplementedError(f"EdgeClient does not translate with_payload={value!r}")


def _with_vectors(value: bool | Sequence[str]) -> qe.WithVectorType:
    return value if isinstance(value, bool) else [str(v) for v in value]


# -- writes ------------------------------------------------------------------------------
def _ids_or_filter(selector: Any) -> tuple[list[qe.PointId] | None, qe.Filter | None]:
    if isinstance(selector, models.PointIdsList):
        return [_id_in(i) for i in selector.points], None
    if isinstance(selector, models.FilterSelector):
        return None, _filter(selector.filter)
    if isinstance(selector, models.Filter):
        return None, _filter(selector)
    if isinstance(selector, Sequence) and not isinstance(selector, str):
        return [_id_in(i) for i in selector], None
    raise NotImplementedError(f"EdgeClient does not translate the selector {selector!r}")


def _set_payload(
    payload: dict[str, Any], selector: Any, key: str | None, *, overwrite: bool
) -> qe.UpdateOperation:
    payload = _payload_in(payload)
    ids, flt = _ids_or_filter(selector)
    if ids is not None:
        if overwrite:
            return qe.UpdateOperation.overwrite_payload(ids, payload, key)
        return qe.UpdateOperation.set_payload(ids, payload, key)
    assert flt is not None
    if overwrite:
        return qe.UpdateOperation.overwrite_payload_by_filter(flt, payload, key)
    return qe.UpdateOperation.set_payload_by_filter(flt, payload, key)


def _delete(selector: Any) -> qe.UpdateOperation:
    ids, flt = _ids_or_filter(selector)
    if ids is not None:
        return qe.UpdateOperation.delete_points(ids)
    assert flt is not None
    return qe.UpdateOperation.delete_points_by_filter(flt)


def _one_selector(points: Any, flt: models.Filter | None) -> Any:
    if (points is None) == (flt is None):
        raise ValueError("give either points or filter")
    return points if points is not None else flt


def _operation(op: _Operation) -> qe.UpdateOperation:
    if isinstance(op, models.SetPayloadOperation):
        sp = op.set_payload
        return _set_payload(
            sp.payload, _one_selector(sp.points, sp.filter), sp.key, overwrite=False
        )
    if isinstance(op, models.OverwritePayloadOperation):
        ow = op.overwrite_payload
        return _set_payload(ow.payload, _one_selector(ow.points, ow.filter), ow.key, overwrite=True)
    if isinstance(op, models.DeletePayloadOperation):
        dp = op.delete_payload
        ids, flt = _ids_or_filter(_one_selector(dp.points, dp.filter))
        if ids is not None:
            return qe.UpdateOperation.delete_payload(ids, list(dp.keys))
        assert flt is not None
        return qe.UpdateOperation.delete_payload_by_filter(flt, list(dp.keys))
    if isinstance(op, models.ClearPayloadOperation):
        ids, flt = _ids_or_filter(op.clear_payload)
        if ids is not None:
            return qe.UpdateOperation.clear_payload(ids)
        assert flt is not None
        return qe.UpdateOperation.clear_payload_by_filter(flt)
    if isinstance(op, models.DeleteOperation):
        return _delete(op.delete)
    if isinstance(op, models.UpsertOperation) and isinstance(op.upsert, models.PointsList):
        upsert = op.upsert
        if getattr(upsert, "update_filter", None) or getattr(upsert, "update_mode", None):
            raise NotImplementedError("EdgeClient does not translate conditional upserts")
        return qe.UpdateOperation.upsert_points([_point(p) for p in op.upsert.points])
    if isinstance(op, models.UpdateVectorsOperation):
        uv = op.update_vectors
        return qe.UpdateOperation.update_vectors(
            [qe.PointVectors(_id_in(p.id), _vectors_in(p.vector)) for p in uv.points],
            condition=_filter(uv.update_filter),
        )
    if isinstance(op, models.DeleteVectorsOperation):
        dv = op.delete_vectors
        ids, flt = _ids_or_filter(_one_selector(dv.points, dv.filter))
        if ids is not None:
            return qe.UpdateOperation.delete_vectors(ids, list(dv.vector))
        assert flt is not None
        return qe.UpdateOperation.delete_vectors_by_filter(flt, list(dv.vector))
    raise NotImplementedError(f"EdgeClient does not translate {type(op).__name__}")


# -- queries -----------------------------------------------------------------------------
def _query(query: Any, using: str | None) -> qe.ScoringQueryType | None:
    if query is None:
        return None
    if isinstance(query, models.NearestQuery):
        if query.mmr is not None:
            raise NotImplementedError("EdgeClient does not translate MMR queries")
        query = query.nearest
    if isinstance(query, models.FusionQuery):
        return qe.Fusion.Rrf(k=RRF_K) if query.fusion == models.Fusion.RRF else qe.Fusion.Dbsf()  # type: ignore[return-value]
    if isinstance(query, _newer("RrfQuery")):
        weights = list(query.rrf.weights) if query.rrf.weights is not None else None
        return qe.Fusion.Rrf(k=query.rrf.k or RRF_K, weights=weights)  # type: ignore[return-value]
    if isinstance(query, models.OrderByQuery):
        return _order_by(query.order_by)
    if (
        isinstance(query, models.SparseVector)
        or hasattr(query, "tolist")
        or isinstance(query, list)
    ):
        return qe.Query.Nearest(_vector_in(query), using=using)
    raise NotImplementedError(
        f"EdgeClient translates vector, fusion and order-by queries, not {type(query).__name__}"
    )


def _prefetches(prefetch: models.Prefetch | Sequence[models.Prefetch] | None) -> list[qe.Prefetch]:
    if prefetch is None:
        return []
    items = [prefetch] if isinstance(prefetch, models.Prefetch) else list(prefetch)
    out = []
    for p in items:
        if p.lookup_from is not None:
            raise NotImplementedError("EdgeClient does not translate lookup_from")
        out.append(
            qe.Prefetch(
                limit=p.limit if p.limit is not None else 10,
                query=_query(p.query, p.using),
                prefetches=_prefetches(p.prefetch),
                params=_search_params(p.params),
                filter=_filter(p.filter),
                score_threshold=p.score_threshold,
            )
        )
    return out


def _search_params(params: models.SearchParams | None) -> qe.SearchParams | None:
    if params is None:
        return None
    quantization = None
    if params.quantization is not None:
        q = params.quantization
        quantization = qe.QuantizationSearchParams(
            ignore=bool(q.ignore), rescore=q.rescore, oversampling=q.oversampling
        )
    acorn = None
    given = getattr(params, "acorn", None)
    if given is not None:
        acorn = qe.AcornSearchParams(
            enable=bool(given.enable), max_selectivity=given.max_selectivity
        )
    idf = None
    scope = getattr(params, "idf", None)
    if isinstance(scope, _newer("IdfCorpusParams")):
        idf = qe.IdfParams(corpus=_filter(scope.corpus))
    return qe.SearchParams(
        hnsw_ef=params.hnsw_ef,
        exact=bool(params.exact),
        quantization=quantization,
        indexed_only=bool(params.indexed_only),
        acorn=acorn,
        idf=idf,
    )


def _order_by(order_by: str | models.OrderBy) -> qe.OrderBy:
    if isinstance(order_by, str):
        return qe.OrderBy(order_by)
    direction = None
    if order_by.direction is not None:
        direction = (
            qe.Direction.Desc if order_by.direction == models.Direction.DESC else qe.Direction.Asc
        )
    start = order_by.start_from
    return qe.OrderBy(
        order_by.key,
        direction=direction,
        start_from=start.isoformat() if isinstance(start, datetime | date) else start,
    )
