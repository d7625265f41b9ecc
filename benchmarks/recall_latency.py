"""Recall latency *including the query embedding*, beside a dense-only baseline, same run.

What a turn pays: ``PraxMemory.recall(k=10, reinforce=False)`` — embed the query with the
packaged MiniLM model, run the dense, sparse (with feedback) and graph arms, fuse, rank — at
1k / 10k / 100k memories of one user on the embedded default (qdrant-edge). The baseline is
the cheapest useful recall: embed the query with the same model and take the top 10 by cosine
(``vectors.search_dense``) from the same store. The query cache is defeated (every query text
is new), so every figure includes a real model call.

The embedded engine optimises its segments in the background after every 10k written points
(the package's plan: exact int8 scans rescored, no HNSW graph); figures are taken once it is
idle, and the wait is counted in the ingest rate.

Ingest stores the synthetic sentences with *hashed unit vectors* as their dense vectors (the
engine's exact scan costs the same whatever the values; embedding 100k texts would take ~7
minutes here), while queries are embedded for real. Quality is measured elsewhere
(benchmarks/personal_memory.py, benchmarks/locomo.py); this script measures time only.

Run: .venv/bin/python -m benchmarks.recall_latency [--sizes 1000 10000 100000] [--queries 60]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from benchmarks._common import percentiles, print_table, synthetic_texts
from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.embeddings import PackagedMiniLMEmbeddings
from langgraph_prax_memory.vectors import EdgeClient

QUESTIONS = [
    "which dataframe library does the user like",
    "what editor and theme does the user prefer",
    "when is the dentist appointment",
    "what did the user say about the project deadline",
    "which license does the user pick for personal projects",
    "where does the user's sister live",
]


class HashedDocsRealQueries(Embeddings):
    """Documents: deterministic hashed unit vectors (fast); queries: the real model."""

    def __init__(self, model: PackagedMiniLMEmbeddings, dim: int = 384) -> None:
        self.model = model
        self.dim = dim

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            vec = np.random.default_rng(seed).standard_normal(self.dim)
            out.append((vec / np.linalg.norm(vec)).tolist())
        return out

    def embed_query(self, text: str) -> list[float]:
        return self.model.embed_query(text)


def measure(size: int, queries: int, model: PackagedMiniLMEmbeddings, root: Path) -> list[str]:
    memory = PraxMemory(
        MemoryConfig(data_dir=root / f"n{size}"),
        embeddings=HashedDocsRealQueries(model),
        embedding_dimension=384,
    )
    try:
        texts = synthetic_texts(size)
        start = time.perf_counter()
        for i in range(0, size, 1000):
            memory.remember_many("u", [{"content": t} for t in texts[i : i + 1000]])
        ingest = time.perf_counter() - start
        # the embedded engine's background optimiser (what a server's optimizer does): the
        # steady state an agent recalls from; its time counts as ingest
        client = memory.vectors.client
        settle = time.perf_counter()
        if isinstance(client, EdgeClient):
            client.wait_optimized()
        settled = time.perf_counter() - settle
        ingest += settled
        asks = [f"{QUESTIONS[i % len(QUESTIONS)]} (ask {i})" for i in range(queries)]
        for q in asks[:5]:  # warm-up
            memory.recall("u", q + " warm", k=10, reinforce=False)
        prax, dense, raw = [], [], []
        recaller = (
            memory.ltm._recaller()
        )  # the hubness correction's cost: the same recall without it
        hubness = recaller.hubness
        for i, q in enumerate(asks):  # alternate them so machine noise hits all alike
            for corrected in (True, False) if i % 2 else (False, True):
                recaller.hubness = hubness if corrected else None
                t0 = time.perf_counter()
                memory.recall("u", q + ("" if corrected else " (raw)"), k=10, reinforce=False)
                (prax if corrected else raw).append(time.perf_counter() - t0)
            recaller.hubness = hubness
            t0 = time.perf_counter()
            vec = model.embed_query(q + " (dense)")
            memory.vectors.search_dense("u", vec, limit=10)
            dense.append(time.perf_counter() - t0)
        p50, p95 = percentiles(prax)
        d50, d95 = percentiles(dense)
        r50, r95 = percentiles(raw)
        return [
            f"{size:,}",
            f"{size / ingest:,.0f} ({settled:.1f} s settling)",
            f"{p50:.1f} / {p95:.1f}",
            f"{r50:.1f} / {r95:.1f}",
            f"{d50:.1f} / {d95:.1f}",
            f"{p50 / d50:.2f}×",
        ]
    finally:
        memory.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--queries", type=int, default=60)
    args = parser.parse_args()
    print(f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}")
    with tempfile.TemporaryDirectory(prefix="prax-bench-latency-") as tmp:
        root = Path(tmp)
        model = PackagedMiniLMEmbeddings(root / "models")
        rows = [measure(n, args.queries, model, root) for n in args.sizes]
    print_table(
        "recall latency including the query embedding (ms), qdrant-edge, k=10",
        [
            "memories",
            "ingest/s",
            "prax recall p50 / p95",
            "without the hubness correction",
            "dense-only p50 / p95",
            "p50 ratio",
        ],
        rows,
    )


if __name__ == "__main__":
    main()
