"""Server time of the inspector's pages for a user with 10,000 memories (and a graph).

What a person waits for on the server when opening a page of ``prax-memory inspect``: the
request goes through the app in-process (Starlette's test client: the guard, the route, the
reads, the decay arithmetic, one page of 50 rendered by Jinja2), with no socket and no
browser. Nothing is kept between requests. Each page is timed twice: **wall** time, and
**CPU** time of the process (the server's work, the engine's threads included, plus the
in-process client's small share), which machines shared with other work inflate less.
Target: every page ≤ 150 ms of CPU (median).

The memories page reads as its sort allows (langgraph_prax_memory/inspector/_paging.py):
``engine`` (newest, oldest, importance: ordered by the engine, the page's 50 read),
``index`` (closest to pruning, last / most recalled, the "due" state: importance, last
recall and creation of every matching memory from the payload index, recall counts asked
only of the memories whose last recall is not their creation), ``scan`` (a text search: the
content and the sort's fields of every matching memory). Every sort is total (its key, then
the id), by page number or by the next link's cursor. The baseline, measured
in the same run, is ``PraxMemory.list_memories(user, limit=count)``, reading all of a user's
memories. The users, graph (1,000 entities, 2,000 relations: a capped picture and capped
tables), consolidation, forget and playground pages are timed for the same user.

Memories are stored with hashed unit vectors as their dense vectors (the page never embeds;
embedding 10k texts would take a minute here), on the embedded default (qdrant-edge); one in
ten has been recalled (once or twice).

Run: .venv/bin/python -m benchmarks.inspector [--memories 10000] [--runs 15]
"""

from __future__ import annotations

import argparse
import html
import os
import platform
import random
import re
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from starlette.testclient import TestClient

from benchmarks._common import percentiles, print_table, synthetic_texts
from benchmarks.recall_latency import HashedDocsRealQueries
from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.embeddings import PackagedMiniLMEmbeddings
from langgraph_prax_memory.inspector import create_app

TOKEN = "benchmark-" + "t" * 30
USER = "u"
TARGET_MS = 150.0  # of CPU, median
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


def sample(fn: Callable[[], object], runs: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds (this process's) of each of ``runs`` calls of ``fn``."""
    wall, cpu = [], []
    for _ in range(runs):
        start, used = time.perf_counter(), time.process_time()
        fn()
        cpu.append(time.process_time() - used)
        wall.append(time.perf_counter() - start)
    return wall, cpu


def recall_some(memory: PraxMemory, share: int = 10) -> int:
    """Reinforce one memory in ``share`` (once, and one in twice that twice); how many."""
    ids = [p.id for p in memory.vectors.iter_points(USER)]
    memory.vectors.reinforce(USER, ids[::share], now=datetime.now(UTC))
    memory.vectors.reinforce(USER, ids[:: 2 * share], now=datetime.now(UTC))
    memory.flush()
    return len(ids[::share])


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
            recalled = recall_some(memory)
            count = memory.count(USER)
            client = TestClient(create_app(memory, token=TOKEN), base_url="http://127.0.0.1")

            graph_took = seed_graph(memory, args.entities)

            def get(path: str, marker: str, **params: str) -> str:
                r = client.get(path, params={"token": TOKEN, "user": USER, **params})
                assert r.status_code == 200, r.text[:300]
                assert marker in r.text, f"{path}: no {marker!r}"
                return r.text

            def page(**params: str) -> Callable[[], object]:
                return lambda: get("/memories", '<tr class="memory', **params)

            def following(**params: str) -> Callable[[], object]:
                """The page the next link of ``params``' page leads to (a cursor)."""
                text = get("/memories", '<tr class="memory', **params)
                found = re.search(r'<a href="([^"]+)" rel="next">', text)
                assert found, "no next link"
                after = parse_qs(urlsplit(html.unescape(found.group(1))).query)["after"][0]
                return lambda: get("/memories", '<tr class="memory', after=after, **params)

            def other(path: str, marker: str, **params: str) -> Callable[[], object]:
                return lambda: get(path, marker, **params)

            cases = [
                ("baseline: list_memories(all)", lambda: memory.list_memories(USER, limit=count)),
                ("newest, page 1 (engine)", page()),
                ("newest, page 100 (engine)", page(page="100")),
                ("newest, page 200 (engine)", page(page="200")),
                ("newest, next after page 150 (cursor)", following(page="150")),
                ("oldest, page 50 (engine)", page(sort="oldest", page="50")),
                ("tag + source, page 3 (engine)", page(tag="work", source="note", page="3")),
                ("importance, page 21 (engine)", page(sort="importance", page="21")),
                ("importance, page 200 (engine)", page(sort="importance", page="200")),
                ("state current, importance (engine)", page(state="current", sort="importance")),
                ("closest to pruning, page 1 (index)", page(sort="effective")),
                ("closest to pruning, page 200 (index)", page(sort="effective", page="200")),
                ("last recalled, page 1 (index)", page(sort="recalled")),
                ("last recalled, page 150 (index)", page(sort="recalled", page="150")),
                ("most recalled, page 200 (index)", page(sort="recalls", page="200")),
                ("state due, newest (index)", page(state="due")),
                ("state due, last recalled (index)", page(state="due", sort="recalled")),
                ("search 'rust' (scan + content)", page(q="rust")),
                (
                    "search 'rust', page 2, by importance (scan)",
                    page(q="rust", page="2", sort="importance"),
                ),
                ("users page (counts of every layer)", other("/", USER)),
                ("graph page (capped picture + tables)", other("/graph", "<svg")),
                ("consolidation page", other("/consolidation", "pending lines")),
                ("forget page", other("/forget", "forget-user")),
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
                wall, cpu = sample(fn, args.runs)
                median, p95 = percentiles(wall)
                cpu_median, cpu_p95 = percentiles(cpu)
                base = base or median
                verdict = (
                    ""
                    if label.startswith("baseline")
                    else ("ok" if cpu_median <= TARGET_MS else "OVER")
                )
                rows.append(
                    [
                        label,
                        f"{cpu_median:.0f}",
                        f"{cpu_p95:.0f}",
                        f"{median:.0f}",
                        f"{p95:.0f}",
                        f"{median / base:.2f}×",
                        verdict,
                    ]
                )
        finally:
            memory.close()
    print(
        f"{platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores; "
        f"{count} memories of one user (stored in {took:.0f} s; {recalled} recalled), "
        f"{args.entities} entities and {2 * args.entities} relations (stored in "
        f"{graph_took:.0f} s); {args.runs} runs each; load average "
        f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    print_table(
        f"Inspector pages, server time (target: median ≤ {TARGET_MS:.0f} ms of CPU)",
        [
            "request",
            "CPU median ms",
            "CPU p95 ms",
            "wall median ms",
            "wall p95 ms",
            "wall ÷ baseline",
            f"CPU ≤ {TARGET_MS:.0f} ms",
        ],
        rows,
    )


if __name__ == "__main__":
    main()
