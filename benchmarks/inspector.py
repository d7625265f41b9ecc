"""Server time of the inspector's pages for a user with 10,000 memories (and a graph).

What a person waits for on the server when opening ``/memories`` in ``prax-memory inspect``:
the request goes through the app in-process (Starlette's test client: the guard, the route,
the read, the decay arithmetic, one page of 50 rendered by Jinja2), with no socket and no
browser. Nothing is kept between requests. Two paths: the engine pages itself when it can
(no text search or state filter; sorted by creation or importance, filtered by source/tag, up
to row ``ENGINE_PAGE_LIMIT``): it reads that many rows; otherwise the page "scans": it reads
the few fields the sorts and filters need of every matching memory (and the content when
searching), sorts them, and reads the page's 50 memories in full. The baseline,
measured in the same run, is ``PraxMemory.list_memories(user, limit=count)``, what reading
all of a user's memories costs. The users, graph (1,000 entities, 2,000 relations: a capped
picture and capped tables), consolidation and playground pages are timed for the same user.
Target: median ≤ 300 ms.

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
Q = "which programming language does the user like?"


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


def seed_graph(memory: PraxMemory, entities: int) -> float:
    """``entities`` entities and twice as many relations; seconds taken."""
    rng = random.Random(11)
    start = time.perf_counter()
    names = [f"entity {i}" for i in range(entities)]
    for i, name in enumerate(names):
        memory.graph.merge_entity(USER, name, entity_type="concept", importance=(i % 10) / 10)
    for _ in range(2 * entities):
        a, b = rng.sample(names, 2)
        memory.graph.add_relation(USER, a, b, rng.choice(["related_to", "works_on", "prefers"]))
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
    parser.add_argument("--entities", type=int, default=1000, help="graph entities (2× relations)")
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

            graph_took = seed_graph(memory, args.entities)

            def get(path: str, marker: str, **params: str) -> None:
                r = client.get(path, params={"token": TOKEN, "user": USER, **params})
                assert r.status_code == 200, r.text[:300]
                assert marker in r.text, f"{path}: no {marker!r}"

            def page(**params: str) -> Callable[[], object]:
                return lambda: get("/memories", '<tr class="memory', **params)

            def other(path: str, marker: str, **params: str) -> Callable[[], object]:
                return lambda: get(path, marker, **params)

            cases = [
                ("baseline: list_memories(all)", lambda: memory.list_memories(USER, limit=count)),
                ("newest, page 1 (engine)", page()),
                ("tag + source, page 3 (engine)", page(tag="work", source="note", page="3")),
                ("importance, page 10 (engine)", page(sort="importance", page="10")),
                ("importance, page 40 (scan)", page(sort="importance", page="40")),
                ("search 'rust' (scan + content)", page(q="rust")),
                (
                    "search 'rust', page 2, by importance",
                    page(q="rust", page="2", sort="importance"),
                ),
                ("closest to pruning (scan)", page(sort="effective")),
                ("state: due, last recalled (scan)", page(state="due", sort="recalled")),
                ("newest, page 200 (scan)", page(page="200")),
                ("users page (counts of every layer)", other("/", USER)),
                ("graph page (capped picture + tables)", other("/graph", "<svg")),
                ("consolidation page", other("/consolidation", "pending lines")),
                (
                    "playground: a question (recall + context)",
                    other("/playground", 'class="hit', q=Q),
                ),
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
        f"{count} memories of one user (stored in {took:.0f} s), {args.entities} entities and "
        f"{2 * args.entities} relations (stored in {graph_took:.0f} s); {args.runs} runs each"
    )
    print_table(
        f"Inspector memories page, server time (target median ≤ {TARGET_MS:.0f} ms)",
        ["request", "median ms", "p95 ms", "÷ baseline", f"≤ {TARGET_MS:.0f} ms"],
        rows,
    )


if __name__ == "__main__":
    main()
