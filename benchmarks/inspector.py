"""Server time of the inspector's pages for a user with 10,000 memories (and a graph).

What a person waits for on the server when opening a page of ``prax-memory inspect``: the
request goes through the app in-process (Starlette's test client: the guard, the route, the
reads, the decay arithmetic, one page of 50 rendered by Jinja2), with no socket and no
browser. Each page is timed twice: **wall** time, and **CPU** time of the process (the
server's work, the engine's threads included, plus the in-process client's small share),
which machines shared with other work inflate less. Target: every page ≤ 150 ms of CPU
(median).

The memories page reads as its sort allows (langgraph_prax_memory/inspector/_paging.py):
``engine`` (newest, oldest, importance up to row 1,000, with any filter, text search or
state: ordered by the engine, the page's 50 read; a search is the engine's keyword index of
the case-folded content, "due" the engine's filter of inspector/_due.py), ``index`` (closest
to pruning, last / most recalled, any page past row 1,000: every matching memory's values
from the user's table, read from the payload index and kept, following the writes,
langgraph_prax_memory/inspector/_table.py). Every sort is total (its key, then the id), by
page number or by the next link's cursor. So each memories page is timed several ways:

- **views**: the page opened again and again with nothing written between (a person paging
  and sorting; what is kept is used);
- **after a write**: one write to the store just before each request, outside the timing:
  the first view after an agent wrote. Two writes, each timed: a recall of **another user's**
  memory (the kept table reads the written point again: not the user's, nothing changes),
  and a **new memory of this user** (``remember``: the table reads it and puts it in its
  place; the user has one more memory at each run). The table follows the engine's writes
  (``EdgeClient.changed_since``): only the written memories are read again;
- **after forgetting another user**: a delete by a filter naming that user (a user who has
  no memories): the journal records it as touching that user's points only, so this user's
  table is kept (before it was read again whole);
- **first view**: nothing kept (the store's kept tables dropped just before each request, as
  when the server has just started or the user was not among the four viewed last): every
  value the page needs is read from the engine.

The baseline, measured in the same run, is ``PraxMemory.list_memories(user, limit=count)``,
reading all of a user's memories. The users, graph (1,000 entities, 2,000 relations: a capped
picture and capped tables), consolidation, forget and playground pages are timed for the same
user (views only: nothing of theirs is kept).

Memories are stored with hashed unit vectors as their dense vectors (the page never embeds;
embedding 10k texts would take a minute here), on the embedded default (qdrant-edge); one in
ten has been recalled (once or twice).

Run: COLUMNS=200 .venv/bin/python -m benchmarks.inspector [--memories 10000] [--runs 15]
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
from langgraph_prax_memory.inspector import _table, create_app

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


def sample(
    fn: Callable[[], object], runs: int, before: Callable[[], object] | None = None
) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds (this process's) of each of ``runs`` calls of ``fn``.

    ``before`` runs ahead of each call, outside the timing.
    """
    wall, cpu = [], []
    for _ in range(runs):
        if before is not None:
            before()
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
            written = memory.remember("writer", "A memory of another user, recalled to write")

            def write() -> None:
                memory.vectors.reinforce("writer", [written], now=datetime.now(UTC))

            notes = iter(range(1_000_000))

            def write_forget() -> None:
                memory.vectors.delete_user("nobody")

            def first_view() -> None:  # as a server just started: no kept table
                _table._TABLES.pop(memory.vectors, None)

            def write_own() -> None:
                memory.remember(
                    USER, f"A note the agent wrote between two views, Rust {next(notes)}"
                )

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

            # (label, request, timed after a write too)
            cases: list[tuple[str, Callable[[], object], bool]] = [
                (
                    "baseline: list_memories(all)",
                    lambda: memory.list_memories(USER, limit=count),
                    False,
                ),
                ("newest, page 1 (engine)", page(), True),
                ("newest, page 20 (engine)", page(page="20"), True),
                ("newest, page 100 (index)", page(page="100"), True),
                ("newest, page 200 (index)", page(page="200"), True),
                ("newest, next after page 150 (cursor)", following(page="150"), True),
                ("oldest, page 50 (index)", page(sort="oldest", page="50"), True),
                ("tag + source, page 3 (engine)", page(tag="work", source="note", page="3"), True),
                ("importance, page 21 (index)", page(sort="importance", page="21"), True),
                ("importance, page 200 (index)", page(sort="importance", page="200"), True),
                (
                    "state current, importance (engine)",
                    page(state="current", sort="importance"),
                    True,
                ),
                ("closest to pruning, page 1 (index)", page(sort="effective"), True),
                ("closest to pruning, page 200 (index)", page(sort="effective", page="200"), True),
                ("last recalled, page 1 (index)", page(sort="recalled"), True),
                ("last recalled, page 150 (index)", page(sort="recalled", page="150"), True),
                ("most recalled, page 200 (index)", page(sort="recalls", page="200"), True),
                ("state due, newest (engine)", page(state="due"), True),
                ("state due, last recalled (index)", page(state="due", sort="recalled"), True),
                ("search 'rust' (engine)", page(q="rust"), True),
                (
                    "search 'rust', page 2, by importance (engine)",
                    page(q="rust", page="2", sort="importance"),
                    True,
                ),
                ("users page (counts of every layer)", other("/", USER), False),
                ("graph page (capped picture + tables)", other("/graph", "<svg"), False),
                ("consolidation page", other("/consolidation", "pending lines"), False),
                ("forget page", other("/forget", "forget-user"), False),
                (
                    "playground: a question (recall + context)",
                    other("/playground", 'class="hit', q=Q),
                    False,
                ),
            ]
            for _, fn, _ in cases:  # warm caches and templates once
                fn()
            rows, after_rows = [], []
            base = None
            for label, fn, cold in cases:
                wall, cpu = sample(fn, args.runs)
                median, p95 = percentiles(wall)
                cpu_median, cpu_p95 = percentiles(cpu)
                base = base or median
                rows.append(
                    [
                        label,
                        f"{cpu_median:.0f}",
                        f"{cpu_p95:.0f}",
                        f"{median:.0f}",
                        f"{p95:.0f}",
                        f"{median / base:.2f}×",
                        "" if label.startswith("baseline") else _verdict(cpu_median),
                    ]
                )
                if cold:
                    after: list[str] = [label]
                    verdicts = []
                    for writer in (write, write_own, write_forget, first_view):
                        wall_w, cpu_w = sample(fn, args.runs, before=writer)
                        cpu_w50, cpu_w95 = percentiles(cpu_w)
                        wall_w50, _ = percentiles(wall_w)
                        after += [f"{cpu_w50:.0f}", f"{cpu_w95:.0f}", f"{wall_w50:.0f}"]
                        verdicts.append(_verdict(cpu_w50))
                    after_rows.append([*after, " / ".join(verdicts)])
            count_after = memory.count(USER)
        finally:
            memory.close()
    print(
        f"{platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores; "
        f"{count} memories of one user (stored in {took:.0f} s; {recalled} recalled; "
        f"{count_after} after the writes), "
        f"{args.entities} entities and {2 * args.entities} relations (stored in "
        f"{graph_took:.0f} s); {args.runs} runs each; load average "
        f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    print_table(
        f"Inspector pages as viewed, server time (target: median ≤ {TARGET_MS:.0f} ms of CPU)",
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
    print_table(
        "The first view after a write, and with nothing kept, server time (ms): another "
        "user's recall / a new memory of this user / forgetting another user / first view",
        [
            "request",
            "other: CPU median",
            "other: CPU p95",
            "other: wall median",
            "own: CPU median",
            "own: CPU p95",
            "own: wall median",
            "forget: CPU median",
            "forget: CPU p95",
            "forget: wall median",
            "first: CPU median",
            "first: CPU p95",
            "first: wall median",
            f"CPU ≤ {TARGET_MS:.0f} ms (other / own / forget / first)",
        ],
        after_rows,
    )


def _verdict(cpu_median: float) -> str:
    return "ok" if cpu_median <= TARGET_MS else "OVER"


if __name__ == "__main__":
    main()
