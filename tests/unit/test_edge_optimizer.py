"""The embedded engine's plan and background optimisation (``EdgeClient``, issue 14 latency).

The package creates its embedded collections without an HNSW graph and with int8 copies of
the dense vectors (``collection_plan(embedded=True)``); qdrant-edge merges segments and builds
those copies only when asked, so the client asks in the background. Each test checks answers
against an exact numpy cosine ranking of the same vectors, on the real engine.
"""

from __future__ import annotations

import threading
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import QdrantClient, models

from langgraph_prax_memory import MemoryConfig
from langgraph_prax_memory.embeddings import SparseTFEncoder
from langgraph_prax_memory.vectors import QdrantVectorStore, VectorRecord, open_qdrant_client
from langgraph_prax_memory.vectors._edge import EdgeClient
from langgraph_prax_memory.vectors._plan import DENSE, DENSE_SEARCH, SPARSE, collection_plan

DIM = 16
C = "mem"


def _vectors(n: int, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _points(vectors: np.ndarray, start: int = 0) -> list[models.PointStruct]:
    return [
        models.PointStruct(
            id=str(uuid.UUID(int=start + i + 1)),
            vector={
                DENSE: vec.tolist(),
                SPARSE: models.SparseVector(indices=[i % 50, 60 + i % 7], values=[1.0, 0.5]),
            },
            payload={"user_id": "u"},
        )
        for i, vec in enumerate(vectors)
    ]


def _exact(vectors: np.ndarray, query: np.ndarray, k: int) -> list[str]:
    order = np.argsort(-(vectors @ query), kind="stable")[:k]
    return [str(uuid.UUID(int=int(i) + 1)) for i in order]


def _top(client: EdgeClient, query: np.ndarray, k: int) -> list[str]:
    res = client.query_points(
        C, query=query.tolist(), using=DENSE, limit=k, search_params=DENSE_SEARCH
    )
    return [str(p.id) for p in res.points]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[EdgeClient]:
    c = EdgeClient(tmp_path / "q", optimize_every=200)
    yield c
    c.close()


def test_the_embedded_plan_asks_for_exact_int8_scans_and_a_server_keeps_the_defaults() -> None:
    embedded = collection_plan(DIM, embedded=True)
    dense = embedded["vectors_config"][DENSE]
    assert dense.hnsw_config == models.HnswConfigDiff(m=0)
    assert isinstance(dense.quantization_config, models.ScalarQuantization)
    assert dense.quantization_config.scalar.type == models.ScalarType.INT8
    assert embedded["optimizers_config"].default_segment_number == 8
    server = collection_plan(DIM)
    assert server["vectors_config"][DENSE].hnsw_config is None
    assert server["vectors_config"][DENSE].quantization_config is None
    assert "optimizers_config" not in server


def test_the_store_creates_embedded_collections_with_the_embedded_plan(tmp_path: Path) -> None:
    client = open_qdrant_client(MemoryConfig(data_dir=tmp_path))
    try:
        store = QdrantVectorStore(client, collection="prax_memories", dimension=DIM)
        store.ensure_collection()
        vectors = client.get_collection("prax_memories").config.params.vectors
        assert isinstance(vectors, dict)
        assert vectors[DENSE].hnsw_config == models.HnswConfigDiff(m=0)
        assert vectors[DENSE].quantization_config is not None
    finally:
        client.close()


def test_writes_trigger_a_background_optimisation_and_answers_stay_exact(
    client: EdgeClient,
) -> None:
    client.create_collection(C, **collection_plan(DIM, embedded=True))
    vectors = _vectors(600)
    queries = _vectors(20, seed=99)
    for start in range(0, 600, 50):
        client.upsert(C, _points(vectors[start : start + 50], start))
        assert client.optimizations <= (start + 50) // 200
    assert client.wait_optimized(timeout=60)
    assert client.optimizations == 3  # after 200, 400 and 600 written points
    for q in queries:
        assert _top(client, q, 10) == _exact(vectors, q, 10)
    assert client.get_collection(C).points_count == 600


def test_queries_and_writes_go_on_during_an_optimisation(client: EdgeClient) -> None:
    client.create_collection(C, **collection_plan(DIM, embedded=True))
    vectors = _vectors(3000)
    client.upsert(C, _points(vectors[:2000]))
    client.wait_optimized(timeout=60)
    errors: list[BaseException] = []

    def optimise() -> None:
        try:
            client.optimize(C)
        except BaseException as exc:  # reported below
            errors.append(exc)

    worker = threading.Thread(target=optimise)
    worker.start()
    client.upsert(C, _points(vectors[2000:], 2000))
    q = _vectors(1, seed=5)[0]
    assert _top(client, q, 5) == _exact(vectors, q, 5)
    worker.join(60)
    assert not worker.is_alive() and errors == []
    assert client.optimizations >= 2
    assert client.wait_optimized(timeout=60)
    assert _top(client, q, 5) == _exact(vectors, q, 5)


def test_collections_with_an_hnsw_graph_are_not_optimised_implicitly(client: EdgeClient) -> None:
    client.create_collection(C, **collection_plan(DIM))  # Qdrant's defaults: an HNSW graph
    vectors = _vectors(400)
    client.upsert(C, _points(vectors))
    assert client.wait_optimized(timeout=0)  # nothing was started
    assert client.optimizations == 0
    q = _vectors(1, seed=3)[0]
    assert _top(client, q, 5) == _exact(vectors, q, 5)


def test_a_large_unoptimised_shard_is_optimised_when_opened(tmp_path: Path) -> None:
    first = EdgeClient(tmp_path / "q", optimize_every=0)  # writes, never optimises
    first.create_collection(C, **collection_plan(DIM, embedded=True))
    vectors = _vectors(500)
    first.upsert(C, _points(vectors))
    assert first.optimizations == 0
    first.close()
    second = EdgeClient(tmp_path / "q", optimize_every=200)
    try:
        q = _vectors(1, seed=11)[0]
        assert _top(second, q, 5) == _exact(vectors, q, 5)  # opening the shard starts it
        assert second.wait_optimized(timeout=60)
        assert second.optimizations == 1
    finally:
        second.close()


def test_close_waits_for_a_running_optimisation(tmp_path: Path) -> None:
    client = EdgeClient(tmp_path / "q", optimize_every=1000)
    client.create_collection(C, **collection_plan(DIM, embedded=True))
    vectors = _vectors(3000)
    client.upsert(C, _points(vectors))  # starts one
    client.close()
    assert client.wait_optimized(timeout=0)
    assert client.optimizations in (0, 1)  # finished, or refused because the client closed
    reopened = EdgeClient(tmp_path / "q", optimize_every=0)
    try:
        assert reopened.get_collection(C).points_count == 3000
        q = _vectors(1, seed=2)[0]
        assert _top(reopened, q, 5) == _exact(vectors, q, 5)
    finally:
        reopened.close()


def test_bad_settings_and_untranslated_options_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="optimize_every"):
        EdgeClient(tmp_path / "a", optimize_every=-1)
    client = EdgeClient(tmp_path / "b")
    try:
        binary = models.VectorParams(
            size=DIM,
            distance=models.Distance.COSINE,
            quantization_config=models.BinaryQuantization(binary=models.BinaryQuantizationConfig()),
        )
        with pytest.raises(NotImplementedError, match="scalar"):
            client.create_collection("bin", vectors_config={DENSE: binary})
        with pytest.raises(NotImplementedError, match="flush_interval_sec"):
            client.create_collection(
                "opt",
                vectors_config={DENSE: models.VectorParams(size=DIM, distance=models.Distance.DOT)},
                optimizers_config=models.OptimizersConfigDiff(flush_interval_sec=3),
            )
        assert client.collection_names() == []
        graph = models.VectorParams(
            size=DIM, distance=models.Distance.COSINE, hnsw_config=models.HnswConfigDiff(m=8)
        )
        assert client.create_collection("hnsw", vectors_config={DENSE: graph})
        info = client.get_collection("hnsw").config.params.vectors
        assert isinstance(info, dict) and info[DENSE].hnsw_config == models.HnswConfigDiff(m=8)
    finally:
        client.close()


def test_local_mode_gets_no_search_params_and_no_warning(tmp_path: Path) -> None:
    # qdrant-client's local mode scans exactly and warns about any search_params: the store
    # sends the rescoring parameters to the engines that honour them only

    vectors = _vectors(30)
    sparse = SparseTFEncoder()
    for client in (QdrantClient(path=str(tmp_path / "local")), EdgeClient(tmp_path / "edge")):
        try:
            store = QdrantVectorStore(client, collection="prax_memories", dimension=DIM)
            store.ensure_collection()
            records = [
                VectorRecord(
                    str(uuid.UUID(int=i + 1)),
                    {"user_id": "u", "content": f"fact {i}"},
                    vec.tolist(),
                    sparse.embed_documents([f"fact {i}"])[0],
                )
                for i, vec in enumerate(vectors)
            ]
            store.upsert("u", records)
            q = _vectors(1, seed=4)[0]
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                dense = store.search_dense("u", q.tolist(), limit=5)
                hybrid = store.search_hybrid("u", q.tolist(), None, limit=5)
            assert [p.id for p in dense] == _exact(vectors, q, 5)
            assert [p.id for p in hybrid] == _exact(vectors, q, 5)
        finally:
            client.close()
