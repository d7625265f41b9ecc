"""EdgeClient (qdrant-edge) against qdrant-client's local mode: same calls, same answers.

Every method the package calls on a client runs on both engines with the same data; reads
must agree (ids exactly, scores to float32 precision) and so must the state after writes.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import random
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from qdrant_client import QdrantClient, models

from langgraph_prax_memory import ConfigError, MemoryConfig, MemoryWriteError
from langgraph_prax_memory.errors import StoreLockedError
from langgraph_prax_memory.vectors import (
    QdrantVectorStore,
    VectorRecord,
    is_local_client,
    open_qdrant_client,
)
from langgraph_prax_memory.vectors._edge import EdgeClient
from langgraph_prax_memory.vectors._plan import (
    DENSE,
    PAYLOAD_INDEXES,
    SPARSE,
    collection_plan,
    existing_dimension,
    hybrid_query_plan,
    ids_condition,
    user_filter,
)

DIM = 8
USERS = ("alice", "bob", "carol")
TAGS = ("t1", "t2", "t3", "t4")
T0 = datetime(2026, 1, 1, tzinfo=UTC)
C = "mem"


def _dense(rng: random.Random) -> list[float]:
    return [rng.gauss(0.0, 1.0) for _ in range(DIM)]


def _sparse(rng: random.Random, n: int = 5) -> models.SparseVector:
    idx = sorted(rng.sample(range(40), n))
    return models.SparseVector(indices=idx, values=[rng.uniform(0.1, 2.0) for _ in idx])


def _points(n: int = 90, seed: int = 3) -> list[models.PointStruct]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        payload: dict[str, Any] = {
            "user_id": USERS[i % 3],
            "seq": 1_000 + i,
            "importance": round(rng.random(), 3),
            "tags": rng.sample(TAGS, rng.randint(0, 3)),
            "source": ("conversation", "note", "import")[rng.randint(0, 2)],
            "created_at": (T0 + timedelta(hours=i)).isoformat(),
            "dense_pending": i % 7 == 0,
            "note": None if i % 5 == 0 else f"n{i}",
            "value": {"content": f"memory {i}", "k": i},
        }
        vector: dict[str, Any] = {SPARSE: _sparse(rng)}
        if i % 11 != 0:  # some points wait for their dense vector
            vector[DENSE] = _dense(rng)
        out.append(
            models.PointStruct(
                id=str(uuid.UUID(int=rng.getrandbits(128))), vector=vector, payload=payload
            )
        )
    return out


POINTS = _points()


def _load(client: QdrantClient | EdgeClient) -> None:
    client.create_collection(C, **collection_plan(DIM))
    if isinstance(client, EdgeClient):
        for name, schema in PAYLOAD_INDEXES.items():
            client.create_payload_index(C, name, schema)
    client.upsert(C, points=POINTS, wait=True)


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[QdrantClient, EdgeClient]]:
    local, edge = QdrantClient(":memory:"), EdgeClient(tmp_path / "edge")
    _load(local)
    _load(edge)
    yield local, edge
    local.close()
    edge.close()


def _scored(points: list[models.ScoredPoint]) -> list[tuple[Any, float]]:
    return [(p.id, p.score) for p in points]


def _same_scored(a: list[models.ScoredPoint], b: list[models.ScoredPoint]) -> None:
    assert [p.id for p in a] == [p.id for p in b]
    assert [p.score for p in b] == pytest.approx([p.score for p in a], rel=1e-5, abs=1e-6)
    assert [p.payload for p in a] == [p.payload for p in b]


def _state(client: QdrantClient | EdgeClient) -> list[tuple[Any, Any, Any]]:
    records, _ = client.scroll(C, limit=10_000, with_payload=True, with_vectors=True)
    out = []
    for r in records:
        vec = dict(r.vector or {})  # type: ignore[arg-type]
        dense = vec.get(DENSE)
        sparse = vec.get(SPARSE)
        out.append(
            (
                r.id,
                r.payload,
                (
                    [round(x, 5) for x in dense] if dense is not None else None,
                    (list(sparse.indices), [round(x, 5) for x in sparse.values])
                    if sparse
                    else None,
                ),
            )
        )
    return out


# -- collections -------------------------------------------------------------------------
def test_collection_lifecycle_matches_local(tmp_path: Path) -> None:
    local, edge = QdrantClient(":memory:"), EdgeClient(tmp_path / "e")
    for client in (local, edge):
        assert client.collection_exists(C) is False
        assert client.create_collection(C, **collection_plan(DIM)) is True
        assert client.collection_exists(C) is True
        with pytest.raises(ValueError, match="already exists"):
            client.create_collection(C, **collection_plan(DIM))
        client.upsert(C, points=POINTS[:10])
    infos = [c.get_collection(C) for c in (local, edge)]
    assert [existing_dimension(i) for i in infos] == [DIM, DIM]
    assert [i.points_count for i in infos] == [10, 10]
    assert [i.config.params.vectors[DENSE].distance for i in infos] == [models.Distance.COSINE] * 2  # type: ignore[index]
    assert [i.config.params.sparse_vectors[SPARSE].modifier for i in infos] == [  # type: ignore[index]
        models.Modifier.IDF
    ] * 2
    with pytest.raises(ValueError, match="not found"):
        edge.get_collection("other")
    with pytest.raises(ValueError, match="letters"):
        edge.collection_exists("../escape")
    local.close()
    edge.close()


def test_payload_indexes_are_created_and_reported(pair: tuple[QdrantClient, EdgeClient]) -> None:
    _, edge = pair
    schema = edge.get_collection(C).payload_schema
    assert set(schema) == set(PAYLOAD_INDEXES)
    assert schema["user_id"].data_type == models.PayloadSchemaType.KEYWORD
    assert schema["seq"].data_type == models.PayloadSchemaType.INTEGER
    assert schema["created_at"].data_type == models.PayloadSchemaType.DATETIME
    assert schema["user_id"].points == len(POINTS)
    result = edge.create_payload_index(C, "value.k", models.PayloadSchemaType.INTEGER)
    assert result.status == models.UpdateStatus.COMPLETED
    assert "value.k" in edge.get_collection(C).payload_schema


def test_vector_store_on_edge_builds_the_indexes(tmp_path: Path) -> None:
    edge = EdgeClient(tmp_path / "e")
    store = QdrantVectorStore(edge, collection="prax_memories", dimension=DIM)
    assert store.local is False and not is_local_client(edge)
    store.ensure_collection()
    assert set(edge.get_collection("prax_memories").payload_schema) == set(PAYLOAD_INDEXES)
    store.close()


def test_missing_indexes_are_added_to_an_existing_collection(tmp_path: Path) -> None:
    edge = EdgeClient(tmp_path / "e")
    edge.create_collection("prax_memories", **collection_plan(DIM))  # indexes never created
    store = QdrantVectorStore(edge, collection="prax_memories", dimension=DIM)
    store.ensure_collection()
    assert set(edge.get_collection("prax_memories").payload_schema) == set(PAYLOAD_INDEXES)
    store.close()


# -- reads -------------------------------------------------------------------------------
def test_dense_sparse_and_hybrid_queries_match_local(pair: tuple[QdrantClient, EdgeClient]) -> None:
    rng = random.Random(11)
    for user in USERS:
        flt = user_filter(user)
        dense, sparse = _dense(rng), _sparse(rng, 8)
        calls: list[dict[str, Any]] = [
            {"query": dense, "using": DENSE, "query_filter": flt, "limit": 7},
            {"query": sparse, "using": SPARSE, "query_filter": flt, "limit": 7},
            hybrid_query_plan(dense, sparse, flt, limit=6, candidates=12),
            hybrid_query_plan(dense, None, flt, limit=6, candidates=12),
            {"query": dense, "using": DENSE, "query_filter": flt, "limit": 5, "offset": 3},
            {"query": dense, "using": DENSE, "query_filter": flt, "score_threshold": 0.2},
            {"query": models.NearestQuery(nearest=sparse), "using": SPARSE, "query_filter": flt},
            {
                "prefetch": [
                    models.Prefetch(query=dense, using=DENSE, filter=flt, limit=12),
                    models.Prefetch(query=sparse, using=SPARSE, filter=flt, limit=12),
                ],
                "query": models.RrfQuery(rrf=models.Rrf(k=60, weights=[1.5, 0.5])),
                "query_filter": flt,
                "limit": 8,
            },
            {
                "prefetch": [
                    models.Prefetch(query=dense, using=DENSE, filter=flt, limit=12),
                    models.Prefetch(query=sparse, using=SPARSE, filter=flt, limit=12),
                ],
                "query": models.FusionQuery(fusion=models.Fusion.DBSF),
                "query_filter": flt,
                "limit": 8,
            },
        ]
        local, edge = pair
        for kwargs in calls:
            want = local.query_points(C, **kwargs).points
            got = edge.query_points(C, **kwargs).points
            assert want, kwargs
            _same_scored(want, got)
            assert all(p.payload and p.payload["user_id"] == user for p in got)
            assert all(isinstance(p.id, str) for p in got)


def test_payload_and_vector_selection_match_local(pair: tuple[QdrantClient, EdgeClient]) -> None:
    local, edge = pair
    q = _dense(random.Random(5))
    for with_payload in (False, ["seq", "tags"], models.PayloadSelectorExclude(exclude=["value"])):
        a = local.query_points(C, query=q, using=DENSE, limit=3, with_payload=with_payload)
        b = edge.query_points(C, query=q, using=DENSE, limit=3, with_payload=with_payload)
        assert [p.payload for p in a.points] == [p.payload for p in b.points]
    a = local.query_points(C, query=q, using=DENSE, limit=3, with_vectors=[DENSE]).points
    b = edge.query_points(C, query=q, using=DENSE, limit=3, with_vectors=[DENSE]).points
    for x, y in zip(a, b, strict=True):
        assert set(x.vector) == set(y.vector) == {DENSE}  # type: ignore[arg-type]
        assert y.vector[DENSE] == pytest.approx(x.vector[DENSE], abs=1e-6)  # type: ignore[index]


def test_retrieve_matches_local(pair: tuple[QdrantClient, EdgeClient]) -> None:
    local, edge = pair
    ids = [POINTS[4].id, str(uuid.uuid4()), POINTS[0].id]
    a = local.retrieve(C, ids, with_vectors=True)
    b = edge.retrieve(C, ids, with_vectors=True)
    assert (
        sorted(r.id for r in a) == sorted(r.id for r in b) == sorted([POINTS[4].id, POINTS[0].id])
    )  # type: ignore[type-var]
    by_id = {r.id: r for r in b}
    for r in a:
        assert by_id[r.id].payload == r.payload
        assert by_id[r.id].vector[SPARSE].indices == r.vector[SPARSE].indices  # type: ignore[index,union-attr]


FILTERS = [
    user_filter("alice"),
    user_filter(
        "alice", models.FieldCondition(key="tags", match=models.MatchAny(any=["t1", "t2"]))
    ),
    user_filter(
        "bob", models.FieldCondition(key="source", match=models.MatchExcept(**{"except": ["note"]}))
    ),
    user_filter(
        "bob", models.FieldCondition(key="importance", range=models.Range(gte=0.3, lt=0.7))
    ),
    user_filter(
        "carol",
        models.FieldCondition(
            key="created_at", range=models.DatetimeRange(gte=T0 + timedelta(hours=40))
        ),
    ),
    user_filter("alice", ids_condition([p.id for p in POINTS[:30]])),  # type: ignore[misc]
    user_filter("alice", models.IsEmptyCondition(is_empty=models.PayloadField(key="tags"))),
    user_filter("bob", models.IsNullCondition(is_null=models.PayloadField(key="note"))),
    user_filter(
        "bob",
        must_not=[models.FieldCondition(key="dense_pending", match=models.MatchValue(value=True))],
    ),
    user_filter("carol", models.FieldCondition(key="tags", values_count=models.ValuesCount(gte=2))),
    user_filter("alice", models.HasVectorCondition(has_vector=DENSE)),
    user_filter("alice", models.FieldCondition(key="value.k", range=models.Range(gt=40))),
    user_filter(
        "alice",
        models.Filter(
            should=[
                models.FieldCondition(key="source", match=models.MatchValue(value="note")),
                models.FieldCondition(key="importance", range=models.Range(gt=0.8)),
            ]
        ),
    ),
    models.Filter(
        must=[models.FieldCondition(key="user_id", match=models.MatchValue(value="bob"))],
        min_should=models.MinShould(
            conditions=[
                models.FieldCondition(key="tags", match=models.MatchValue(value="t1")),
                models.FieldCondition(key="tags", match=models.MatchValue(value="t2")),
                models.FieldCondition(key="tags", match=models.MatchValue(value="t3")),
            ],
            min_count=2,
        ),
    ),
]


@pytest.mark.parametrize("flt", FILTERS, ids=range(len(FILTERS)))
def test_filters_count_and_scroll_match_local(
    pair: tuple[QdrantClient, EdgeClient], flt: models.Filter
) -> None:
    local, edge = pair
    want = local.count(C, count_filter=flt).count
    assert want > 0
    assert edge.count(C, count_filter=flt).count == want
    a, _ = local.scroll(C, scroll_filter=flt, limit=1000)
    b, _ = edge.scroll(C, scroll_filter=flt, limit=1000)
    assert [r.id for r in a] == [r.id for r in b]
    assert [r.payload for r in a] == [r.payload for r in b]


def test_scroll_pages_and_order_by_match_local(pair: tuple[QdrantClient, EdgeClient]) -> None:
    def pages(client: QdrantClient | EdgeClient) -> list[list[Any]]:
        out, offset = [], None
        while True:
            records, offset = client.scroll(
                C, scroll_filter=user_filter("bob"), limit=7, offset=offset
            )
            out.append([r.id for r in records])
            if offset is None:
                return out

    local, edge = pair
    assert pages(local) == pages(edge)
    assert len(pages(edge)) == 5  # 30 points of bob in pages of 7
    for order in (
        models.OrderBy(key="seq", start_from=1_040),
        models.OrderBy(key="seq", direction=models.Direction.DESC, start_from=1_050),
        "seq",
    ):
        a, next_a = local.scroll(C, scroll_filter=user_filter("carol"), limit=6, order_by=order)
        b, next_b = edge.scroll(C, scroll_filter=user_filter("carol"), limit=6, order_by=order)
        assert [r.payload["seq"] for r in a] == [r.payload["seq"] for r in b]  # type: ignore[index]
        assert next_a is None and next_b is None


def test_count_and_facet_match_local(pair: tuple[QdrantClient, EdgeClient]) -> None:
    local, edge = pair
    assert local.count(C).count == edge.count(C).count == len(POINTS)
    for key, flt, limit in (
        ("user_id", None, 100),
        ("tags", user_filter("alice"), 100),
        ("source", user_filter("bob"), 100),
        ("tags", None, 2),
        ("dense_pending", None, 10),
    ):
        a = local.facet(C, key=key, facet_filter=flt, limit=limit)
        b = edge.facet(C, key=key, facet_filter=flt, limit=limit)
        assert a.hits, key
        assert [(h.value, h.count) for h in a.hits] == [(h.value, h.count) for h in b.hits]


# -- writes ------------------------------------------------------------------------------
def test_writes_leave_the_same_state_as_local(pair: tuple[QdrantClient, EdgeClient]) -> None:
    local, edge = pair
    rng = random.Random(9)
    new_dense, new_sparse = _dense(rng), _sparse(rng)
    extra = models.PointStruct(
        id=str(uuid.UUID(int=7)), vector={DENSE: _dense(rng)}, payload={"user_id": "bob", "seq": 1}
    )
    alice = [p.id for p in POINTS if p.payload and p.payload["user_id"] == "alice"]
    bob = [p.id for p in POINTS if p.payload and p.payload["user_id"] == "bob"]
    for client in (local, edge):
        results = [
            client.set_payload(C, payload={"flag": True, "note": None}, points=alice[:3]),
            client.set_payload(
                C,
                payload={"tier": "gold"},
                points=user_filter(
                    "alice", models.FieldCondition(key="importance", range=models.Range(gt=0.5))
                ),
            ),
            client.set_payload(
                C, payload={"x": 1}, points=models.PointIdsList(points=[bob[0]]), key="value"
            ),
            client.update_vectors(
                C,
                points=[
                    models.PointVectors(id=i, vector={DENSE: new_dense, SPARSE: new_sparse})
                    for i in (alice[4], bob[4])
                ],
                update_filter=user_filter("alice"),  # bob's point is left alone
            ),
            client.delete(C, points_selector=[alice[5], str(uuid.UUID(int=12345))]),
            client.delete(C, points_selector=models.PointIdsList(points=[bob[5]])),
            client.delete(
                C,
                points_selector=models.FilterSelector(
                    filter=user_filter(
                        "carol",
                        models.FieldCondition(key="source", match=models.MatchValue(value="note")),
                    )
                ),
            ),
            *client.batch_update_points(
                C,
                [
                    models.SetPayloadOperation(
                        set_payload=models.SetPayload(
                            payload={"access_count": 3}, points=[alice[6]]
                        )
                    ),
                    models.SetPayloadOperation(
                        set_payload=models.SetPayload(
                            payload={"hot": 1}, filter=user_filter("bob", ids_condition(bob[6:9]))
                        )
                    ),
                    models.OverwritePayloadOperation(
                        overwrite_payload=models.SetPayload(
                            payload={"user_id": "alice", "only": 1}, points=[alice[7]]
                        )
                    ),
                    models.DeletePayloadOperation(
                        delete_payload=models.DeletePayload(
                            keys=["tags", "note"], points=[alice[8]]
                        )
                    ),
                    models.ClearPayloadOperation(
                        clear_payload=models.PointIdsList(points=[bob[9]])
                    ),
                    models.UpsertOperation(upsert=models.PointsList(points=[extra])),
                    models.UpdateVectorsOperation(
                        update_vectors=models.UpdateVectors(
                            points=[models.PointVectors(id=bob[10], vector={SPARSE: new_sparse})]
                        )
                    ),
                    models.DeleteVectorsOperation(
                        delete_vectors=models.DeleteVectors(points=[bob[11]], vector=[DENSE])
                    ),
                    models.DeleteOperation(delete=models.PointIdsList(points=[bob[12]])),
                ],
            ),
        ]
        assert all(r.status == models.UpdateStatus.COMPLETED for r in results)
    assert _state(local) == _state(edge)


def test_writes_that_do_not_land_raise(pair: tuple[QdrantClient, EdgeClient]) -> None:
    local, edge = pair
    missing = str(uuid.uuid4())
    bad_width = models.PointStruct(
        id=missing, vector={DENSE: [1.0, 2.0]}, payload={"user_id": "alice"}
    )
    for client in (local, edge):
        with pytest.raises(Exception):  # noqa: B017 - each engine raises its own type
            client.upsert(C, points=[bad_width])
        with pytest.raises(Exception):  # noqa: B017
            client.set_payload(C, payload={"a": 1}, points=[missing])
        with pytest.raises(Exception):  # noqa: B017
            client.update_vectors(
                C, points=[models.PointVectors(id=missing, vector={DENSE: [0.0] * DIM})]
            )
        assert client.retrieve(C, [missing]) == []
    with pytest.raises(ValueError, match="takes 8"):
        edge.upsert(C, points=[bad_width])
    with pytest.raises(ValueError, match="not found"):
        edge.upsert("nope", points=POINTS[:1])


def test_vector_store_write_failure_is_a_memory_write_error(tmp_path: Path) -> None:
    edge = EdgeClient(tmp_path / "e")
    store = QdrantVectorStore(edge, collection="c", dimension=DIM)
    bad = VectorRecord(str(uuid.uuid4()), {"user_id": "alice"}, [1.0, 2.0], None)
    with pytest.raises(MemoryWriteError, match="upsert"):
        store.upsert("alice", [bad])
    assert store.count("alice") == 0
    edge.close()
    with pytest.raises(MemoryWriteError):  # the client is closed: nothing can land
        store.upsert(
            "alice", [VectorRecord(str(uuid.uuid4()), {"user_id": "alice"}, [1.0] * DIM, None)]
        )


def test_unsupported_inputs_say_so(pair: tuple[QdrantClient, EdgeClient]) -> None:
    _, edge = pair
    geo = models.FieldCondition(
        key="loc", geo_radius=models.GeoRadius(center=models.GeoPoint(lon=0, lat=0), radius=1.0)
    )
    with pytest.raises(NotImplementedError, match="geo"):
        edge.count(C, count_filter=models.Filter(must=[geo]))
    formula = models.FormulaQuery(formula=models.MultExpression(mult=["$score", 2.0]))
    with pytest.raises(NotImplementedError, match="FormulaQuery"):
        edge.query_points(C, query=formula)


# -- tenancy -----------------------------------------------------------------------------
def test_tenancy_through_the_vector_store(tmp_path: Path) -> None:
    edge = EdgeClient(tmp_path / "e")
    store = QdrantVectorStore(edge, collection="prax_memories", dimension=DIM)
    rng = random.Random(1)
    dense, sparse = _dense(rng), _sparse(rng)
    ids = {}
    for user in ("alice", "bob"):
        rid = str(uuid.uuid5(uuid.NAMESPACE_DNS, user))
        store.upsert(
            user, [VectorRecord(rid, {"user_id": user, "ns_path": user, "seq": 1}, dense, sparse)]
        )
        ids[user] = rid
    for user, other in (("alice", "bob"), ("bob", "alice")):
        for hits in (
            store.search_dense(user, dense, limit=10),
            store.search_sparse(user, sparse, limit=10),
            store.search_hybrid(user, dense, sparse, limit=10),
            store.scroll(user, limit=10),
            store.scroll(user, limit=10, order_by="seq", start_from=0),
            store.retrieve(user, [ids[user], ids[other]]),
        ):
            assert [p.id for p in hits] == [ids[user]]
        assert store.count(user) == 1
        assert store.facet("ns_path", user_id=user) == {user: 1}
        assert store.delete(user, [ids[other]]) == 0
    # a top-level filter alone scopes the prefetches too (as on a server)
    res = edge.query_points(
        "prax_memories",
        prefetch=[
            models.Prefetch(query=dense, using=DENSE, limit=5),
            models.Prefetch(
                query=models.SparseVector(indices=sparse.indices, values=sparse.values),
                using=SPARSE,
                limit=5,
            ),
        ],
        query=models.FusionQuery(fusion=models.Fusion.RRF),
        query_filter=user_filter("bob"),
    )
    assert [p.id for p in res.points] == [ids["bob"]]
    assert store.delete_user("alice") == 1
    assert store.count("bob") == 1 and store.count("alice") == 0
    store.close()


# -- persistence, locking, threads -------------------------------------------------------
def test_data_survives_close_and_reopen(tmp_path: Path) -> None:
    edge = EdgeClient(tmp_path / "e")
    _load(edge)
    q = _dense(random.Random(2))
    before = edge.query_points(C, query=q, using=DENSE, query_filter=user_filter("alice")).points
    edge.set_payload(C, payload={"after": True}, points=[POINTS[1].id])
    edge.close()
    again = EdgeClient(tmp_path / "e")
    assert again.collection_exists(C)
    assert again.count(C).count == len(POINTS)
    assert set(again.get_collection(C).payload_schema) == set(PAYLOAD_INDEXES)
    _same_scored(
        before,
        again.query_points(C, query=q, using=DENSE, query_filter=user_filter("alice")).points,
    )
    assert again.retrieve(C, [POINTS[1].id])[0].payload["after"] is True  # type: ignore[index]
    again.close()


def test_memory_location_is_temporary(tmp_path: Path) -> None:
    edge = EdgeClient(":memory:")
    folder = edge.path
    _load(edge)
    assert folder.is_dir()
    edge.close()
    assert not folder.exists()
    with pytest.raises(RuntimeError, match="closed"):
        edge.count(C)


def test_second_client_on_a_folder_is_locked_out(tmp_path: Path) -> None:
    first = EdgeClient(tmp_path / "e")
    with pytest.raises(StoreLockedError, match="another process") as info:
        EdgeClient(tmp_path / "e")
    assert "QDRANT_URL" in str(info.value) and "MEMORY_DATA_DIR" in str(info.value)
    first.close()
    EdgeClient(tmp_path / "e").close()  # free again once closed


def test_a_dropped_client_releases_its_folder(tmp_path: Path) -> None:
    edge = EdgeClient(tmp_path / "e")
    _load(edge)
    temporary = EdgeClient(":memory:")
    folder = temporary.path
    del edge, temporary
    gc.collect()
    assert not folder.exists()
    again = EdgeClient(tmp_path / "e")  # unlocked, and nothing was lost
    assert again.count(C).count == len(POINTS)
    again.close()


def test_local_engine_keeps_its_lock_error(tmp_path: Path) -> None:
    """``MEMORY_VECTOR_ENGINE=local`` is today's local mode, lock message included."""
    data = tmp_path / "shared"
    holder = open_qdrant_client(MemoryConfig(data_dir=data, vector_engine="local"))
    try:
        code = textwrap.dedent(f"""
            import sys
            from langgraph_prax_memory import MemoryConfig
            from langgraph_prax_memory.errors import StoreLockedError
            from langgraph_prax_memory.vectors import open_qdrant_client
            try:
                open_qdrant_client(MemoryConfig(data_dir={str(data)!r}, vector_engine="local"))
            except StoreLockedError as exc:
                print("LOCKED:", exc)
                sys.exit(3)
        """)
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
        )
        assert proc.returncode == 3, proc.stderr
        assert "local mode" in proc.stdout and "QDRANT_URL" in proc.stdout
    finally:
        holder.close()


def test_concurrent_reads_and_writes(pair: tuple[QdrantClient, EdgeClient]) -> None:
    _, edge = pair
    errors: list[BaseException] = []
    rng = random.Random(4)
    queries = [(_dense(rng), _sparse(rng)) for _ in range(4)]

    def reader(dense: list[float], sparse: models.SparseVector) -> None:
        try:
            for _ in range(25):
                plan = hybrid_query_plan(
                    dense, sparse, user_filter("alice"), limit=5, candidates=10
                )
                assert edge.query_points(C, **plan).points
                edge.set_payload(C, payload={"seen": True}, points=[POINTS[1].id])
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=reader, args=q) for q in queries]
    for t in threads:
        t.start()
    extra = _points(60, seed=99)
    for p in extra:
        p.payload["user_id"] = "dave"  # type: ignore[index]
    for start in range(0, 60, 10):
        edge.upsert(C, points=extra[start : start + 10])
    for t in threads:
        t.join()
    assert errors == []
    assert edge.count(C, count_filter=user_filter("dave")).count == 60


# -- configuration -----------------------------------------------------------------------
def test_engine_setting_and_what_it_opens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = MemoryConfig(data_dir=tmp_path)
    assert cfg.vector_engine == "edge" and cfg.embedded_qdrant_path == tmp_path / "qdrant-edge"
    client = open_qdrant_client(cfg)
    assert isinstance(client, EdgeClient) and client.path == tmp_path / "qdrant-edge"
    client.close()
    mem = open_qdrant_client(MemoryConfig(data_dir=tmp_path, qdrant_url=":memory:"))
    assert isinstance(mem, EdgeClient) and mem.path != tmp_path / "qdrant-edge"
    mem.close()
    monkeypatch.setenv("MEMORY_VECTOR_ENGINE", "local")
    local_cfg = MemoryConfig(data_dir=tmp_path)
    assert (
        local_cfg.vector_engine == "local" and local_cfg.embedded_qdrant_path == tmp_path / "qdrant"
    )
    for c in (local_cfg, MemoryConfig(data_dir=tmp_path, qdrant_url=":memory:")):
        opened = open_qdrant_client(c)
        assert isinstance(opened, QdrantClient) and is_local_client(opened)
        opened.close()
    monkeypatch.setenv("MEMORY_VECTOR_ENGINE", "rocksdb")
    with pytest.raises(ConfigError, match="MEMORY_VECTOR_ENGINE"):
        MemoryConfig()


def test_leftover_local_mode_data_is_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    old = open_qdrant_client(MemoryConfig(data_dir=tmp_path, vector_engine="local"))
    assert isinstance(old, QdrantClient)
    old.create_collection("prax_memories", **collection_plan(DIM))
    old.close()
    # the default engine keeps a folder of local-mode memories on local mode, and says why
    with caplog.at_level(logging.WARNING):
        kept = open_qdrant_client(MemoryConfig(data_dir=tmp_path))
    assert isinstance(kept, QdrantClient) and is_local_client(kept)
    assert kept.collection_exists("prax_memories")
    kept.close()
    assert "MEMORY_VECTOR_ENGINE=edge" in caplog.text
    caplog.clear()
    # chosen explicitly, edge opens (empty) and points at the old data
    with caplog.at_level(logging.WARNING):
        client = open_qdrant_client(MemoryConfig(data_dir=tmp_path, vector_engine="edge"))
    assert isinstance(client, EdgeClient)
    client.close()
    assert "MEMORY_VECTOR_ENGINE=local" in caplog.text


def test_close_from_another_thread_releases_the_folder(tmp_path: Path) -> None:
    client = EdgeClient(tmp_path / "edge")
    closer = threading.Thread(target=client.close)  # as AsyncPraxMemory.close does
    closer.start()
    closer.join()
    again = EdgeClient(tmp_path / "edge")
    again.close()


def test_a_bad_point_anywhere_in_a_batch_writes_nothing(
    pair: tuple[QdrantClient, EdgeClient],
) -> None:
    local, edge = pair
    before = _state(edge)
    assert before == _state(local)
    rng = random.Random(9)
    first = _points(2, seed=11)
    bad_vectors: list[dict[str, Any]] = [
        {DENSE: _dense(rng)[:-1]},  # wrong width
        {DENSE: [float("nan")] * DIM},
        {SPARSE: models.SparseVector(indices=[1, 2], values=[1.0])},
        {SPARSE: models.SparseVector(indices=[3, 3], values=[1.0, 2.0])},
        {SPARSE: models.SparseVector(indices=[1], values=[float("inf")])},
        {"nope": _dense(rng)},
    ]
    for vector in bad_vectors:
        bad = models.PointStruct(id=str(uuid.uuid4()), vector=vector, payload={"user_id": "bob"})
        with pytest.raises((ValueError, RuntimeError)):
            edge.upsert(C, [*first, bad])
        assert _state(edge) == before, vector
    # the engine is still healthy: writes work and the folder reopens
    assert edge.upsert(C, first).status == models.UpdateStatus.COMPLETED
    edge.close()
    reopened = EdgeClient(edge.path)
    assert reopened.count(C).count == len(before) + 2
    reopened.close()


def test_a_bad_point_through_the_vector_store_is_a_write_error(tmp_path: Path) -> None:
    store = QdrantVectorStore(EdgeClient(tmp_path / "edge"), dimension=DIM)
    good = VectorRecord(str(uuid.UUID(int=1)), {"user_id": "alice"}, [0.1] * DIM, None)
    nan = VectorRecord(str(uuid.UUID(int=2)), {"user_id": "alice"}, [float("nan")] * DIM, None)
    with pytest.raises(MemoryWriteError):
        store.upsert("alice", [good, nan])
    assert store.count("alice") == 0
    store.close()


def test_payloads_are_json_as_qdrant_client_sends_them(
    pair: tuple[QdrantClient, EdgeClient],
) -> None:
    when = datetime(2026, 5, 1, 12, 30, tzinfo=UTC)
    tag = uuid.UUID(int=7)
    payload = {"user_id": "alice", "when": when, "tag": tag, "nested": {"at": when}}
    pid = str(uuid.UUID(int=123))
    for client in pair:
        client.upsert(C, [models.PointStruct(id=pid, vector={}, payload=payload)])
        client.set_payload(C, {"seen": when}, points=[pid])
    got = [client.retrieve(C, [pid])[0].payload for client in pair]
    assert got[0] == got[1]
    assert got[1] is not None and got[1]["when"].startswith("2026-05-01T12:30")
    assert got[1]["tag"] == str(tag) and got[1]["seen"] == got[1]["when"]


def test_scroll_refuses_an_empty_page(pair: tuple[QdrantClient, EdgeClient]) -> None:
    with pytest.raises(ValueError, match="limit"):
        pair[1].scroll(C, limit=0)


def test_the_last_close_waits_for_a_call_under_way(tmp_path: Path) -> None:
    edge = EdgeClient(tmp_path / "e")
    _load(edge)
    started, done = threading.Event(), []

    def slow(shard: Any) -> int:
        started.set()
        time.sleep(0.3)
        return int(shard.info().points_count)  # uses the shard after close() was called

    def reader() -> None:
        done.append(edge._read(C, "slow read", slow))

    thread = threading.Thread(target=reader)
    thread.start()
    started.wait(5)
    edge.close()  # must not close the shard under the running call
    thread.join(5)
    assert done == [len(POINTS)]
    with pytest.raises(RuntimeError, match="closed"):
        edge.count(C)


@pytest.mark.parametrize("engine", ["edge", "local"])
def test_a_dense_search_returns_the_vectors_when_asked(tmp_path: Path, engine: str) -> None:
    client: Any = EdgeClient(tmp_path / "e") if engine == "edge" else QdrantClient(":memory:")
    store = QdrantVectorStore(client, collection="prax_memories", dimension=DIM)
    rng = random.Random(7)
    vectors = {str(uuid.uuid4()): _dense(rng) for _ in range(3)}
    store.upsert(
        "alice",
        [VectorRecord(i, {"user_id": "alice"}, v, _sparse(rng)) for i, v in vectors.items()],
    )
    query = _dense(rng)
    plain = store.search_dense("alice", query, limit=3)
    full = store.search_dense("alice", query, limit=3, with_vector=True)
    assert [p.id for p in full] == [p.id for p in plain] and len(full) == 3
    assert all("vector" not in p.extras for p in plain)
    for p in full:
        want = vectors[p.id]
        norm = sum(x * x for x in want) ** 0.5  # a cosine collection keeps unit vectors
        assert p.extras["vector"] == pytest.approx([x / norm for x in want], abs=1e-5)


def test_search_threads_change_no_answer_and_reach_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # issue 41: the engine's search pool (its per-segment reads) sized by the client; one
    # thread by default (MEMORY_ENGINE_SEARCH_THREADS), the same answers whatever the count
    from langgraph_prax_memory.vectors._edge_convert import _edge_config

    meta = {"vectors": {DENSE: {"size": DIM, "distance": "Cosine"}}, "sparse_vectors": {}}
    assert _edge_config(meta, 3).max_search_threads == 3
    assert _edge_config(meta).max_search_threads is None  # a shard keeps its own
    rng = random.Random(5)
    queries = [_dense(rng) for _ in range(5)]

    def answers(client: EdgeClient) -> list[list[tuple[Any, float]]]:
        return [
            _scored(
                client.query_points(
                    C, query=q, using=DENSE, query_filter=user_filter(u), limit=7
                ).points
            )
            for q in queries
            for u in USERS
        ] + [
            _scored(client.query_points(C, query=POINTS[0].vector[SPARSE], using=SPARSE).points)  # type: ignore[index]
        ]

    first = EdgeClient(tmp_path / "e", search_threads=1)
    assert first.search_threads == 1
    _load(first)
    want = answers(first)
    first.close()
    cores = len(os.sched_getaffinity(0))
    saved = tmp_path / "e" / C / "shard" / "edge_config.json"  # where the engine keeps it
    for threads, kept in ((0, cores), (2, 2), (None, 2), (1, 1)):  # another pool, same answers
        again = EdgeClient(tmp_path / "e", search_threads=threads)
        assert again.search_threads == (cores if threads == 0 else threads)
        with caplog.at_level(logging.WARNING):
            assert answers(again) == want
        assert json.loads(saved.read_text())["max_search_threads"] == kept
        again.close()
    assert "own search threads" not in caplog.text  # every load took the setting
    for bad, error in ((-1, ValueError), (257, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match="search_threads"):
            EdgeClient(tmp_path / "x", search_threads=bad)  # type: ignore[arg-type]
    assert MemoryConfig(data_dir=tmp_path).engine_search_threads == 1
    monkeypatch.setenv("MEMORY_ENGINE_SEARCH_THREADS", "0")
    cfg = MemoryConfig(data_dir=tmp_path / "d")
    client = open_qdrant_client(cfg)
    assert isinstance(client, EdgeClient) and client.search_threads == cores
    client.close()
    for bad_env in ("-2", "5000"):
        monkeypatch.setenv("MEMORY_ENGINE_SEARCH_THREADS", bad_env)
        with pytest.raises(ConfigError, match="MEMORY_ENGINE_SEARCH_THREADS"):
            MemoryConfig()


def test_a_shard_its_search_threads_do_not_fit_still_opens(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # fault injection: a collection.json whose vectors no longer describe its shard (an older
    # writer, a hand edit); loading with the search threads' config is refused by the engine,
    # and the shard opens as it did before there were search threads, with a warning
    first = EdgeClient(tmp_path / "e", search_threads=1)
    _load(first)
    q = _dense(random.Random(4))
    want = _scored(first.query_points(C, query=q, using=DENSE, limit=5).points)
    first.close()
    meta_file = tmp_path / "e" / C / "collection.json"
    meta = json.loads(meta_file.read_text())
    meta["vectors"][DENSE]["size"] = DIM * 2
    meta_file.write_text(json.dumps(meta))
    again = EdgeClient(tmp_path / "e", search_threads=1)
    with caplog.at_level(logging.WARNING):
        assert _scored(again.query_points(C, query=q, using=DENSE, limit=5).points) == want
    assert "with its own search threads" in caplog.text
    again.close()
