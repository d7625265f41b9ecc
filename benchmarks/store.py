"""PraxMemoryStore vs LangGraph's InMemoryStore: put throughput and search latency.

Both stores get the same embedder (the offline packaged MiniLM behind one shared content-hash
cache, warmed first), so the figures compare storage and retrieval, not embedding. The embedder's
own throughput is printed separately. Embedded defaults: Qdrant local mode on disk.

Run: .venv/bin/python -m benchmarks.store [--sizes 1000 10000] [--queries 100]
"""

from __future__ import annotations

import argparse
import platform
import tempfile
from pathlib import Path

from langgraph.store.base import PutOp
from langgraph.store.memory import InMemoryStore

from benchmarks._common import percentiles, print_table, synthetic_texts, timed
from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryStore
from langgraph_prax_memory.embeddings import PackagedMiniLMEmbeddings, ResilientEmbeddings

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


def run(sizes: list[int], n_queries: int, data_root: Path) -> None:
    texts_all = synthetic_texts(max(sizes))
    base = PackagedMiniLMEmbeddings(data_root / "models")
    shared = ResilientEmbeddings(base, dimension=384, cache_size=max(sizes) + 100)
    _, secs = timed(lambda: shared.embed_documents(texts_all + QUERIES))
    print(
        f"embedder: {len(texts_all) / secs:,.0f} texts/s "
        f"(offline all-MiniLM-L6-v2 int8, {platform.processor() or platform.machine()})"
    )
    rows = []
    for n in sizes:
        texts = texts_all[:n]
        inmem = InMemoryStore(index={"dims": 384, "embed": shared, "fields": ["content"]})
        mem = PraxMemory(
            MemoryConfig(data_dir=data_root / f"prax-{n}"),
            embeddings=shared,
            embedding_dimension=384,
        )
        prax = PraxMemoryStore(mem)
        results = {}
        for name, store in (("InMemoryStore", inmem), ("PraxMemoryStore", prax)):
            ns = ("memories", "bench-user")

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
        "PraxMemoryStore vs InMemoryStore (same cached embedder, batches of 100 puts)",
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run(args.sizes, args.queries, Path(tmp))


if __name__ == "__main__":
    main()
