"""Recall latency *including the query embedding*, beside the engine's floor and a peer (issue 41).

Three measurements, in one run:

1. **Latency** at each size (default 10k and 100k memories of one user, embedded default,
   qdrant-edge), every figure including the query's embedding by the packaged MiniLM:

   - ``recall``: ``PraxMemory.recall(k=10, reinforce=False)`` — the dense, sparse (with
     feedback) and graph arms, the per-word evidence weights, the calibrated scores, the
     hubness correction, the floor;
   - ``store.search``: ``PraxMemoryStore.search(("memories", user), query=..., limit=10)``
     on the same memories (the LangGraph door: the same recall plus the item conversion);
   - ``floor``: the raw engine with our settings — embed the query with the same model and
     take the top 10 by cosine (``vectors.search_dense``: the user filter, the int8 scan
     rescored) from the same store: nothing cheaper answers a question;
   - ``SqliteStore``: LangGraph's ``SqliteStore`` (sqlite-vec) holding the same texts and
     vectors, ``search(..., query=..., limit=10)`` (skipped when
     ``langgraph-checkpoint-sqlite`` is not installed).

   The four run in turn on each question (the order rotating), so machine noise hits all
   alike; ratios are of p50s. The query cache is defeated (every question text is new).
2. **Threads** (at the first size of 10k or more): the same recalls from two threads at
   once against one thread, as throughput, beside the embedding model's own ratio
   (``embed_query`` alone, two threads against one).
3. **Ingest** (``--ingest N``, default 2,000 texts, real embeddings): ``remember_many`` and
   ``store.batch`` (``PutOp`` s of 500) against the model alone embedding the same texts in
   the same batches, each on fresh texts; the ratio is the model's time over ours. Both
   warm: a first write has loaded the model and the statement parser (which loads once per
   process, about 1.2 s, on the first statement it reads: a cost of the first write, not of
   ingest).

Ingest for the latency part stores the synthetic sentences with *hashed unit vectors* as their
dense vectors (the engine's scan costs the same whatever the values; embedding 100k texts
would take ~7 minutes here), while questions are embedded for real. The embedded engine
optimises its segments in the background after every 10k written points; figures are taken
once it is idle. Quality is measured elsewhere (benchmarks/personal_memory.py,
benchmarks/locomo.py, benchmarks/context.py); this script measures time only.

``--query-threads N``: ONNX threads of one run of the model (``MEMORY_EMBEDDING_QUERY_THREADS``,
default 1); 0: ONNX Runtime's default (every core, batches run whole: the behaviour before
2026-12-06). Recall, the floor and SqliteStore embed their questions with the same model
object, so the setting moves all three.

``--reinforce``: the latency part's recalls strengthen their hits as an agent's do
(``reinforce=True``; the background write is waited for after each, outside the timing), so
each recall follows a reinforcing write.

Run: .venv/bin/python -m benchmarks.recall_latency [--sizes 10000 100000] [--queries 60]
     [--thread-queries 60] [--ingest 2000] [--repeat 1] [--reinforce] [--query-threads 1]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import sqlite3
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings
from langgraph.store.base import PutOp

from benchmarks._common import percentiles, print_table, synthetic_texts
from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryStore
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
NS = ("memories", "u")
#: A statement the classifier calls an episode and the grammar reads again: its parser loads.
WARM = "User had his stomach removed years ago and can only eat small meals."


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


def sqlite_store(path: Path, embed: HashedDocsRealQueries, texts: list[str]) -> Any | None:
    """LangGraph's SqliteStore (sqlite-vec) holding ``texts``; ``None`` if not installed."""
    try:
        from langgraph.store.sqlite import SqliteStore
    except ImportError:
        return None
    # sqlite-vec is a loadable extension: a Python built without extension loading (pyenv's,
    # by default) connects through pysqlite3-binary's own SQLite
    connect: Any = sqlite3.connect
    if not hasattr(sqlite3.Connection, "enable_load_extension"):
        try:
            from pysqlite3 import dbapi2  # type: ignore[import-not-found]
        except ImportError:
            return None
        connect = dbapi2.connect
    conn = connect(str(path), check_same_thread=False, isolation_level=None)
    store = SqliteStore(conn, index={"dims": 384, "embed": embed, "fields": ["content"]})
    store.setup()
    for i in range(0, len(texts), 1000):
        store.batch(
            [PutOp(NS, f"m{j}", {"content": texts[j]}) for j in range(i, min(i + 1000, len(texts)))]
        )
    # it embeds a search's query with embed_documents: from now on, the real model
    store.embeddings = RealQueries(embed.model)
    return store


class RealQueries(Embeddings):
    """Every text embedded as a question by the real model (SqliteStore's searches)."""

    def __init__(self, model: PackagedMiniLMEmbeddings) -> None:
        self.model = model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.model.embed_query(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.model.embed_query(text)


def latency(
    size: int, queries: int, model: PackagedMiniLMEmbeddings, root: Path, reinforce: bool = False
) -> dict:
    embed = HashedDocsRealQueries(model)
    memory = PraxMemory(
        MemoryConfig(data_dir=root / f"n{size}"), embeddings=embed, embedding_dimension=384
    )
    texts = synthetic_texts(size)
    start = time.perf_counter()
    for i in range(0, size, 1000):
        memory.remember_many("u", [{"content": t} for t in texts[i : i + 1000]])
    client = memory.vectors.client
    if isinstance(client, EdgeClient):
        client.wait_optimized()  # the steady state an agent recalls from
    ingest = time.perf_counter() - start
    store = PraxMemoryStore(memory)
    peer = sqlite_store(root / f"sqlite-{size}.db", embed, texts)

    def floor(q: str) -> None:
        memory.vectors.search_dense("u", model.embed_query(q), limit=10)

    ways: dict[str, Callable[[str], Any]] = {
        "recall": lambda q: memory.recall("u", q, k=10, reinforce=reinforce),
        "store.search": lambda q: store.search(NS, query=q, limit=10),
        "floor": floor,
    }
    if peer is not None:
        ways["SqliteStore"] = lambda q: peer.search(NS, query=q, limit=10)
    for i in range(5):  # warm-up
        for name, fn in ways.items():
            fn(f"{QUESTIONS[i % len(QUESTIONS)]} (warm {i} {name})")
    times: dict[str, list[float]] = {name: [] for name in ways}
    cpu: dict[str, list[float]] = {name: [] for name in ways}
    names = list(ways)
    for i in range(queries):
        q = QUESTIONS[i % len(QUESTIONS)]
        for j in range(len(names)):  # rotate the order: noise hits every way alike
            name = names[(i + j) % len(names)]
            t0, c0 = time.perf_counter(), time.process_time()
            ways[name](f"{q} (ask {i} {name})")
            times[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
            if reinforce and name == "recall":
                memory.ltm.flush()  # its reinforcing write done, outside the timing
    out: dict[str, Any] = {"size": size, "ingest": size / ingest, "memory": memory}
    for name, ts in times.items():
        out[name] = percentiles(ts)
        out[f"cpu {name}"] = statistics.median(cpu[name]) * 1000
    return out


def throughput(fn: Callable[[int, int], None], n: int, workers: int) -> float:
    """Calls per second of ``fn(worker, i)`` from ``workers`` threads, ``n`` calls each."""
    barrier = threading.Barrier(workers + 1)

    def run(w: int) -> None:
        barrier.wait()
        for i in range(n):
            fn(w, i)

    threads = [threading.Thread(target=run, args=(w,)) for w in range(workers)]
    for t in threads:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    return workers * n / (time.perf_counter() - t0)


def thread_ratios(memory: PraxMemory, model: PackagedMiniLMEmbeddings, n: int) -> list[float]:
    rounds = [0]

    def recall(w: int, i: int) -> None:
        q = f"{QUESTIONS[i % len(QUESTIONS)]} (thread {w} call {i} round {rounds[0]})"
        memory.recall("u", q, k=10, reinforce=False)

    def embed(w: int, i: int) -> None:
        model.embed_query(f"{QUESTIONS[i % len(QUESTIONS)]} (thread {w} call {i} {rounds[0]})")

    out = []
    for fn in (recall, embed):
        ratios = []
        for _ in range(3):  # alternate 1 and 2 threads; the median of three
            rounds[0] += 1
            one = throughput(fn, n, 1)
            rounds[0] += 1
            two = throughput(fn, n // 2, 2)
            ratios.append(two / one)
        out.append(statistics.median(ratios))
    return out


def ingest_ratios(
    n: int, repeat: int, model: PackagedMiniLMEmbeddings, root: Path, per_run: int | None
) -> list:
    """(remember_many, store.batch) ratios: the model's time over ours on the same texts."""
    chunk = 500
    many, batch = [], []
    # the memory's own model runs as the benchmark's (None: every core per run, as before)
    threads = per_run or os.cpu_count() or 1
    for r in range(repeat):
        memory = PraxMemory(
            MemoryConfig(data_dir=root / f"ingest-{r}", embedding_query_threads=threads)
        )
        store = PraxMemoryStore(memory)
        try:
            # both warm: the memory's own model loaded, its store open and classes upgraded,
            # the statement parser loaded (by a statement the grammar reads again)
            memory.remember_many("warm-up", [f"warm-up {i} [{r}]" for i in range(8)] + [WARM])
            for which, out in (("many", many), ("batch", batch)):
                texts = [f"{t} [{which} {r}]" for t in synthetic_texts(n, seed=100 + r)]
                parts = [texts[i : i + chunk] for i in range(0, n, chunk)]
                t0 = time.perf_counter()
                for part in parts:
                    model.embed_documents(part)
                alone = time.perf_counter() - t0
                t0 = time.perf_counter()
                for k, part in enumerate(parts):
                    if which == "many":
                        memory.remember_many("u", part)
                    else:
                        store.batch(
                            [
                                PutOp(NS, f"{which}-{r}-{k}-{j}", {"content": t})
                                for j, t in enumerate(part)
                            ]
                        )
                ours = time.perf_counter() - t0
                out.append(alone / ours)
        finally:
            memory.close()
    return [statistics.median(many), statistics.median(batch)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--thread-queries", type=int, default=60)
    parser.add_argument("--ingest", type=int, default=2000, help="texts (0: skip)")
    parser.add_argument("--repeat", type=int, default=1, help="ingest repetitions")
    parser.add_argument(
        "--reinforce", action="store_true", help="latency recalls reinforce their hits"
    )
    parser.add_argument(
        "--query-threads",
        type=int,
        default=1,
        help="ONNX threads of one run of the model (0: every core, the old behaviour)",
    )
    args = parser.parse_args()
    per_run = args.query_threads or None
    print(
        f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}, "
        f"ONNX threads per run: {per_run or 'every core'}, load {os.getloadavg()[0]:.1f}"
    )
    rows, threads = [], None
    with tempfile.TemporaryDirectory(prefix="prax-bench-latency-") as tmp:
        root = Path(tmp)
        model = PackagedMiniLMEmbeddings(root / "models", query_threads=per_run)
        for size in args.sizes:
            got = latency(size, args.queries, model, root, args.reinforce)
            memory = got.pop("memory")
            try:
                if threads is None and size >= 10000 and args.thread_queries:
                    threads = (size, *thread_ratios(memory, model, args.thread_queries))
            finally:
                memory.close()
            rows.append(got)
        ingest = (
            ingest_ratios(args.ingest, args.repeat, model, root, per_run) if args.ingest else None
        )
    print(f"load {os.getloadavg()[0]:.1f} at the end")

    def ms(got: dict, name: str) -> str:
        if name not in got:
            return "—"
        p50, p95 = got[name]
        return f"{p50:.1f} / {p95:.1f}"

    def ratio(got: dict, name: str) -> str:
        return f"{got[name][0] / got['floor'][0]:.2f}×" if name in got else "—"

    print_table(
        "latency including the query embedding (ms, p50 / p95), qdrant-edge, k=10"
        + (", recall reinforcing" if args.reinforce else ""),
        [
            "memories",
            "ingest/s",
            "recall",
            "store.search",
            "floor (engine + embedding)",
            "SqliteStore",
            "recall / floor",
            "store.search / floor",
            "SqliteStore / recall",
        ],
        [
            [
                f"{g['size']:,}",
                f"{g['ingest']:,.0f}",
                ms(g, "recall"),
                ms(g, "store.search"),
                ms(g, "floor"),
                ms(g, "SqliteStore"),
                ratio(g, "recall"),
                ratio(g, "store.search"),
                f"{g['SqliteStore'][0] / g['recall'][0]:.2f}×" if "SqliteStore" in g else "—",
            ]
            for g in rows
        ],
    )
    if threads is not None:
        size, recall_ratio, model_ratio = threads
        print_table(
            f"two threads against one (throughput, median of three), {size:,} memories",
            ["recall", "the embedding model alone"],
            [[f"{recall_ratio:.2f}×", f"{model_ratio:.2f}×"]],
        )
    print_table(
        "CPU time of the process per call (ms, p50: every thread, the model's included) — "
        "what the figures above cost when the cores are busy with other work",
        ["memories", "recall", "store.search", "floor", "SqliteStore", "recall / floor"],
        [
            [
                f"{g['size']:,}",
                *(
                    f"{g[f'cpu {name}']:.1f}" if f"cpu {name}" in g else "—"
                    for name in ("recall", "store.search", "floor", "SqliteStore")
                ),
                f"{g['cpu recall'] / g['cpu floor']:.2f}×",
            ]
            for g in rows
        ],
    )
    if ingest is not None:
        print_table(
            f"ingest against the model alone on the same {args.ingest:,} texts "
            "(the model's time / ours)",
            ["remember_many", "store.batch"],
            [[f"{ingest[0]:.2f}", f"{ingest[1]:.2f}"]],
        )


if __name__ == "__main__":
    main()
