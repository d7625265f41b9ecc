"""Server time of the inspector's memories page for a user with 10,000 memories.

What a person waits for on the server when opening ``/memories`` in ``prax-memory inspect``:
the request goes through the app in-process (Starlette's test client: the guard, the route,
reading every memory of the user, the decay arithmetic, search/filter/sort, one page of 50
rendered by Jinja2), with no socket and no browser. The page keeps the rows it read for
``ROWS_TTL_SECONDS`` (60 s) unless the user's count changes: the first view (a new app each
run) pays the full read, the views after it (other sorts, filters, pages) reuse it. The
baseline, measured in the same run, is the read alone:
``PraxMemory.list_memories(user, limit=count)``, what any listing of all of a user's
memories pays. Target: median ≤ 300 ms.

Memories are stored with hashed unit vectors as their dense vectors (the page never embeds;
embedding 10k texts would take a minute here), on the embedded default (qdrant-edge).

Run: .venv/bin/python -m benchmarks.inspector [--memories 10000] [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from starlette.testclient import TestClient

from benchmarks._common import percentiles, print_table, synthetic_texts
from benchmarks.recall_latency import HashedDocsRealQueries
from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.embeddings import PackagedMiniLMEmbeddings
from langgraph_prax_memory.inspector import create_app

TOKEN = "benchmark-" + "t" * 30
USER = "u"
TARGET_MS = 300.0


def seed(memory: PraxMemory, n: int) -> float:
    """Store ``n`` memories of varied source, tags, importance and age; seconds taken."""
    rng = random.Random(7)
    now = datetime.now(UTC)
    texts = synthetic_texts(n)
    start = time.perf_counter()
    for i in range(0, n, 1000):
        batch = [
            {
                "content": text,
                "importance": round(rng.uniform(0.05, 1.0), 2),
                "source": rng.choice(["conversation", "consolidation", "note", "import"]),
                "tags": rng.sample(["work", "prefs", "health", "travel", "family"], k=2),
                "created_at": (now - timedelta(days=rng.uniform(0, 400))).isoformat(),
            }
            for text in texts[i : i + 1000]
        ]
        memory.remember_many(USER, batch)
    return time.perf_counter() - start


def sample(fn: Callable[[], object], runs: int) -> list[float]:
    """Seconds of each of ``runs`` calls of ``fn``."""
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="prax-bench-inspector-") as tmp:
        model = PackagedMiniLMEmbeddings(Path(tmp) / "models")
        memory = PraxMemory(
            MemoryConfig(data_dir=Path(tmp) / "data"),
            embeddings=HashedDocsRealQueries(model),
            embedding_dimension=384,
        )
        try:
            took = seed(memory, args.memories)
            count = memory.count(USER)
            client = TestClient(create_app(memory, token=TOKEN), base_url="http://127.0.0.1")

            def get(c: TestClient, **params: str) -> None:
                r = c.get("/memories", params={"token": TOKEN, "user": USER, **params})
                assert r.status_code == 200, r.text[:300]
                assert '<tr class="memory' in r.text

            def cold() -> None:
                # a new app: nothing read yet (what the first view, or one after
                # ROWS_TTL_SECONDS or a change of the user's count, pays)
                get(TestClient(create_app(memory, token=TOKEN), base_url="http://127.0.0.1"))

            def page(**params: str) -> Callable[[], object]:
                return lambda: get(client, **params)

            cases = [
                ("baseline: list_memories(all)", lambda: memory.list_memories(USER, limit=count)),
                ("/memories, first view (reads all)", cold),
                ("/memories (newest, page 1)", page()),
                ("/memories (closest to pruning)", page(sort="effective")),
                ("/memories (tag filter, page 20)", page(tag="work", page="20")),
                ("/memories (search 'Rust', page 2)", page(q="rust", page="2")),
            ]
            for _, fn in cases:  # warm caches and templates once
                fn()
            rows = []
            base = None
            for label, fn in cases:
                median, p95 = percentiles(sample(fn, args.runs))
                base = base or median
                verdict = (
                    ""
                    if label.startswith("baseline")
                    else ("ok" if median <= TARGET_MS else "OVER")
                )
                rows.append(
                    [label, f"{median:.0f}", f"{p95:.0f}", f"{median / base:.2f}×", verdict]
                )
        finally:
            memory.close()
    print(
        f"{platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores; "
        f"{count} memories of one user (stored in {took:.0f} s); {args.runs} runs each"
    )
    print_table(
        f"Inspector memories page, server time (target median ≤ {TARGET_MS:.0f} ms)",
        ["request", "median ms", "p95 ms", "÷ baseline", f"≤ {TARGET_MS:.0f} ms"],
        rows,
    )


if __name__ == "__main__":
    main()
