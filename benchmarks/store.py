"""Storage benchmarks on embedded defaults: recall latency vs memories per user, and
PraxMemoryStore vs LangGraph's InMemoryStore.

Every store gets the same vectors: the offline packaged MiniLM embeds each text once up front
(its throughput is printed), and the stores look them up, so the figures compare storage and
retrieval, not embedding.

1. Recall latency at 1k / 10k / 100k memories of one user, loaded with ``remember_many``:
   the embedded default engine (qdrant-edge) and, in the same run, qdrant-client's local mode
   (``MEMORY_VECTOR_ENGINE=local``, the previous default) as the baseline where it is
   practical (1k and 10k; local mode is not meant for more than ~20k points).
2. PraxMemoryStore vs InMemoryStore: put throughput and search latency.
3. Concurrent ``abatch``: many small single-operation calls at once (``aput`` then ``aget``),
   ops/s with one thread hop per call (the previous ``abatch``: ``asyncio.to_thread(batch)``)
   and with the coalesced ``abatch`` (one hop serves every call queued meanwhile).

Run: .venv/bin/python -m benchmarks.store [--recall-sizes 1000 10000 100000]
     [--local-sizes 1000 10000] [--sizes 1000 10000] [--queries 100] [--skip-store-comparison]
     [--abatch-ops 20000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
from langchain_core.embeddings import Embeddings
from langgraph.store.base import GetOp, Op, PutOp, Result
from langgraph.store.memory import InMemoryStore

from benchmarks._common import percentiles, print_table, synthetic_texts, timed
from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryStore
from langgraph_prax_memory.embeddings import PackagedMiniLMEmbeddings

QUERIES = [
    "Which dataframe library for large datasets?",
    "What does Alice prefer?",
    "license for personal projects",
    "trip to Oslo",
    "what is the user learning",
    "fraud detection model",
    "editor theme",
    "weekend hobbies",
]
USER = "bench-user"
_EMBED_CHUNK = 2048


class Precomputed(Embeddings):
    """The real model's vectors, computed once and looked up by text (float32, compact)."""

    def __init__(self, model: Embeddings, texts: Sequence[str]) -> None:
        self.model = model
        self._index = {t: i for i, t in enumerate(texts)}
        self._matrix = np.zeros((len(texts), 384), dtype=np.float32)
        for start in range(0, len(texts), _EMBED_CHUNK):
            part = list(texts[start : start + _EMBED_CHUNK])
            self._matrix[start : start + len(part)] = model.embed_documents(part)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)

    def _one(self, text: str) -> list[float]:
        i = self._index.get(text)
        if i is None:
            return self.model.embed_query(text)
        return [float(x) for x in self._matrix[i]]


def _disk_mb(path: Path) -> float:
    """Space the folder takes on disk (allocated blocks: the engines preallocate sparse files)."""
    total = 0
    for root, _, files in os.walk(path):
        total += sum((Path(root) / f).stat().st_blocks * 512 for f in files)
    return total / 1e6


def _latency(mem: PraxMemory, n_queries: int) -> tuple[float, float]:
    for q in QUERIES:  # warm-up: query embeddings cached, files paged in
        mem.recall(USER, q, k=10, reinforce=False)
    lat = []
    for i in range(n_queries):
        _, secs = timed(
            lambda i=i: mem.recall(USER, QUERIES[i % len(QUERIES)], k=10, reinforce=False)
        )
        lat.append(secs)
    return percentiles(lat)


def _recall_case(
    engine: Literal["edge", "local"],
    n: int,
    texts: list[str],
    emb: Embeddings,
    root: Path,
    n_queries: int,
) -> dict[str, float]:
    """Load ``n`` memories with ``remember_many``, then time recall in that process and again
    after closing and reopening the store (a restarted service)."""
    data_dir = root / f"recall-{engine}-{n}"
    config = MemoryConfig(data_dir=data_dir, vector_engine=engine)
    out: dict[str, float] = {}
    mem = PraxMemory(config, embeddings=emb, embedding_dimension=384)
    try:
        started = time.perf_counter()
        for s in range(0, n, 1000):
            mem.remember_many(USER, [{"content": t} for t in texts[s : min(n, s + 1000)]])
        out["ingest"] = n / (time.perf_counter() - started)
        assert mem.count(USER) == n
        out["p50"], out["p95"] = _latency(mem, n_queries)
    finally:
        mem.close()
    started = time.perf_counter()
    mem = PraxMemory(config, embeddings=emb, embedding_dimension=384)
    try:
        assert mem.count(USER) == n
        out["open_s"] = time.perf_counter() - started
        out["reopened_p50"], out["reopened_p95"] = _latency(mem, n_queries)
    finally:
        mem.close()
    out["disk_mb"] = _disk_mb(data_dir)
    return out


def run_recall(
    sizes: list[int], local_sizes: list[int], n_queries: int, emb: Embeddings, root: Path
) -> None:
    texts_all = synthetic_texts(max(sizes))
    rows = []
    for n in sizes:
        edge = _recall_case("edge", n, texts_all, emb, root, n_queries)
        base = (
            _recall_case("local", n, texts_all, emb, root, n_queries) if n in local_sizes else None
        )
        for engine, res in (("qdrant-edge (default)", edge), ("local mode (baseline)", base)):
            if res is None:
                continue
            ratio = f"{base['p50'] / edge['p50']:.1f}x" if base is not None else "—"
            rows.append(
                [
                    f"{n:,}",
                    engine,
                    f"{res['ingest']:,.0f}",
                    f"{res['p50']:.1f} / {res['p95']:.1f}",
                    f"{res['reopened_p50']:.1f} / {res['reopened_p95']:.1f}",
                    ratio if engine.startswith("qdrant-edge") else "1.0x",
                    f"{res['open_s']:.1f}",
                    f"{res['disk_mb']:,.0f}",
                ]
            )
        print(f"  done: {n:,} memories", flush=True)
    print_table(
        f"Recall latency vs memories per user (remember_many in batches of 1,000; "
        f"recall k=10, no reinforcement; {n_queries} queries)",
        [
            "memories",
            "engine",
            "ingest/s (vectors precomputed)",
            "recall p50/p95 ms, after ingest",
            "recall p50/p95 ms, reopened",
            "local p50 / edge p50",
            "open + count s",
            "disk MB",
        ],
        rows,
    )


def run_store_comparison(sizes: list[int], n_queries: int, emb: Embeddings, root: Path) -> None:
    texts_all = synthetic_texts(max(sizes))
    rows = []
    for n in sizes:
        texts = texts_all[:n]
        inmem = InMemoryStore(index={"dims": 384, "embed": emb, "fields": ["content"]})
        mem = PraxMemory(
            MemoryConfig(data_dir=root / f"prax-{n}"), embeddings=emb, embedding_dimension=384
        )
        prax = PraxMemoryStore(mem)
        results = {}
        for name, store in (("InMemoryStore", inmem), ("PraxMemoryStore", prax)):
            ns = ("memories", USER)

            def load(store=store, ns=ns, n=n, texts=texts) -> None:  # type: ignore[no-untyped-def]
                for start in range(0, n, 100):
                    store.batch(
                        [
                            PutOp(ns, f"k{i}", {"content": texts[i]})
                            for i in range(start, min(n, start + 100))
                        ]
                    )

            _, put_secs = timed(load)
            lat = []
            for q in range(n_queries):
                query = QUERIES[q % len(QUERIES)]
                _, s = timed(
                    lambda store=store, ns=ns, query=query: store.search(ns, query=query, limit=10)
                )
                lat.append(s)
            p50, p95 = percentiles(lat)
            results[name] = (n / put_secs, p50, p95)
        mem.close()
        base_put, base_p50, base_p95 = results["InMemoryStore"]
        prax_put, prax_p50, prax_p95 = results["PraxMemoryStore"]
        rows.append(
            [
                f"{n:,}",
                f"{base_put:,.0f}",
                f"{prax_put:,.0f}",
                f"{prax_put / base_put:.2f}x",
                f"{base_p50:.1f} / {base_p95:.1f}",
                f"{prax_p50:.1f} / {prax_p95:.1f}",
                f"{prax_p50 / base_p50:.2f}x",
            ]
        )
    print_table(
        "PraxMemoryStore (embedded defaults) vs InMemoryStore (same vectors, batches of 100 puts)",
        [
            "memories",
            "InMemory puts/s",
            "Prax puts/s",
            "put ratio",
            "InMemory search p50/p95 ms",
            "Prax search p50/p95 ms",
            "search p50 ratio",
        ],
        rows,
    )


def run_abatch(n_ops: int, emb: Embeddings, root: Path) -> None:
    """Concurrent single-operation ``abatch`` calls: one thread hop each vs coalesced."""
    texts = synthetic_texts(n_ops // 2)
    rows = []
    for name in ("one thread hop per call", "coalesced abatch"):
        mem = PraxMemory(
            MemoryConfig(data_dir=root / f"abatch-{len(rows)}"),
            embeddings=emb,
            embedding_dimension=384,
        )
        store = PraxMemoryStore(mem)
        store.setup()
        ns = ("memories", USER)

        async def call(
            ops: list[Op], store: PraxMemoryStore = store, name: str = name
        ) -> list[Result]:
            if name == "one thread hop per call":
                return await asyncio.to_thread(store.batch, ops)
            return await store.abatch(ops)

        async def run(ns: tuple[str, ...] = ns, call=call) -> tuple[float, float]:  # type: ignore[no-untyped-def]
            half = len(texts)
            start = time.perf_counter()
            await asyncio.gather(
                *(call([PutOp(ns, f"k{i}", {"content": texts[i]})]) for i in range(half))
            )
            mid = time.perf_counter()
            got = await asyncio.gather(*(call([GetOp(ns, f"k{i}")]) for i in range(half)))
            end = time.perf_counter()
            assert all(r[0] is not None for r in got)
            return half / (mid - start), half / (end - mid)

        put_rate, get_rate = asyncio.run(run())
        mem.close()
        rows.append([name, f"{len(texts):,}", f"{put_rate:,.0f}", f"{get_rate:,.0f}"])
    print_table(
        f"Concurrent abatch: {n_ops:,} single-operation calls (half aput, then half aget)",
        ["abatch", "calls of each kind", "puts/s", "gets/s"],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--recall-sizes", type=int, nargs="*", default=[1000, 10000, 100000])
    parser.add_argument("--local-sizes", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--skip-store-comparison", action="store_true")
    parser.add_argument("--abatch-ops", type=int, default=20000, help="0 skips the case")
    args = parser.parse_args()
    print(f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}")
    with tempfile.TemporaryDirectory(prefix="prax-bench-store-") as tmp:
        root = Path(tmp)
        needed = max(
            [
                *args.recall_sizes,
                *([] if args.skip_store_comparison else args.sizes),
                args.abatch_ops // 2,
            ]
        )
        texts = synthetic_texts(needed) + QUERIES
        model = PackagedMiniLMEmbeddings(root / "models")
        emb, secs = timed(lambda: Precomputed(model, texts))
        print(f"embedder: {len(texts) / secs:,.0f} texts/s (offline all-MiniLM-L6-v2 int8)")
        if args.recall_sizes:
            run_recall(args.recall_sizes, args.local_sizes, args.queries, emb, root)
        if not args.skip_store_comparison:
            run_store_comparison(args.sizes, args.queries, emb, root)
        if args.abatch_ops:
            run_abatch(args.abatch_ops, emb, root)


if __name__ == "__main__":
    main()
