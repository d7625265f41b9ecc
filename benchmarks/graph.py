"""Graph backends side by side: merge throughput and 2-hop neighbourhood latency.

For each size (1k and 10k entities by default) and each backend (SQLite file; Neo4j when a server
is reachable), the script bulk-loads a random graph (3 outgoing ``RELATES_TO`` edges per entity,
so ~6 per entity in total), then measures through the public API:

* ``merge_entity`` calls per second (half new names, half existing ones),
* ``add_relation`` calls per second (half strengthen an existing edge, half open a new one),
* ``get_neighbours(hops=2, limit=25)`` latency, p50 and p95, from random start entities.

Every call is its own transaction, as in consolidation. No assertions on time: this prints a
table. Neo4j is used when ``NEO4J_TEST_URI`` is set or ``scripts/neo4j-server status`` says it
runs (``--start-neo4j`` starts it with the script first).

    .venv/bin/python benchmarks/graph.py            # 1k and 10k entities (~1-2 minutes)
    .venv/bin/python benchmarks/graph.py --quick    # 200 and 1k entities
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import neo4j

from langgraph_prax_memory.graph import GraphStore, Neo4jGraphStore, SQLiteGraphStore
from langgraph_prax_memory.graph._inputs import Moment, prep_endpoint, prep_relation
from langgraph_prax_memory.graph.neo4j._cypher_load import create_props

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "neo4j-server"
NOW = datetime(2026, 1, 20, tzinfo=UTC)
TYPES = ["works_on", "interested_in", "prefers", "related_to", "part_of", "mentioned_with"]


@dataclass
class Row:
    backend: str
    entities: int
    load_s: float
    merge_per_s: float
    relation_per_s: float
    p50_ms: float
    p95_ms: float


def _edges(n: int, rng: random.Random) -> list[tuple[int, int, str]]:
    seen: set[tuple[int, int, str]] = set()
    out: list[tuple[int, int, str]] = []
    for i in range(n):
        for _ in range(3):
            j = rng.randrange(n)
            key = (i, j, rng.choice(TYPES))
            if j != i and key not in seen:
                seen.add(key)
                out.append(key)
    return out


def _name(i: int) -> str:
    return f"Entity {i:06d}"


def bulk_sqlite(
    store: SQLiteGraphStore, user: str, n: int, edges: list[tuple[int, int, str]]
) -> None:
    now = Moment.of(NOW)
    with store.transaction("bench load") as conn:
        for i in range(n):
            store._ensure_entity(conn, prep_endpoint(user, _name(i), now))
        for s, t, kind in edges:
            rel = prep_relation(
                store.vocabulary, user, _name(s), _name(t), kind,
                weight=1.0, evidence=None, valid_from=None, now=NOW,
            )  # fmt: skip
            store._add_relation(conn, rel)


_LOAD_ENTITIES = "UNWIND $rows AS x CREATE (e:Entity) SET e = x"
_LOAD_RELATIONS = """
UNWIND $rows AS x
MATCH (a:Entity {id: x.s}), (b:Entity {id: x.t})
CREATE (a)-[r:RELATES_TO]->(b)
SET r = x.props
"""


def bulk_neo4j(
    store: Neo4jGraphStore, user: str, n: int, edges: list[tuple[int, int, str]]
) -> None:
    store.setup()
    now = Moment.of(NOW)
    ents = [prep_endpoint(user, _name(i), now) for i in range(n)]
    with store.driver.session() as session:
        for start in range(0, n, 2000):
            rows = [create_props(e) for e in ents[start : start + 2000]]
            session.execute_write(lambda tx, rows=rows: tx.run(_LOAD_ENTITIES, rows=rows).consume())
        rels = [
            {
                "s": ents[s].id,
                "t": ents[t].id,
                "props": {
                    "id": str(uuid.uuid4()),
                    "user_id": user,
                    "type": kind,
                    "weight": 1.0,
                    "evidence": "",
                    "first_seen": NOW,
                    "first_seen_ts": now.ts,
                    "last_seen": NOW,
                    "last_seen_ts": now.ts,
                    "valid_from": NOW,
                    "valid_from_ts": now.ts,
                },
            }
            for s, t, kind in edges
        ]
        for start in range(0, len(rels), 2000):
            rows = rels[start : start + 2000]
            session.execute_write(
                lambda tx, rows=rows: tx.run(_LOAD_RELATIONS, rows=rows).consume()
            )


def _rate(calls: list[Callable[[], Any]]) -> float:
    started = time.perf_counter()
    for call in calls:
        call()
    return len(calls) / (time.perf_counter() - started)


def measure(
    backend: str,
    store: GraphStore,
    load: Callable[[str, int, list[tuple[int, int, str]]], None],
    n: int,
    samples: int,
    queries: int,
) -> Row:
    rng = random.Random(n)
    user = f"bench-{uuid.uuid4()}"
    edges = _edges(n, rng)
    try:
        started = time.perf_counter()
        load(user, n, edges)
        load_s = time.perf_counter() - started
        assert store.stats(user).entities == n

        merges: list[Callable[[], Any]] = []
        for k in range(samples):
            name = _name(rng.randrange(n)) if k % 2 else f"New entity {k}"
            merges.append(lambda name=name: store.merge_entity(user, name, importance=0.6))
        merge_rate = _rate(merges)

        rels: list[Callable[[], Any]] = []
        for k in range(samples):
            if k % 2:
                s, t, kind = edges[rng.randrange(len(edges))]
            else:
                s, t, kind = rng.randrange(n), rng.randrange(n), rng.choice(TYPES)
                if s == t:
                    t = (t + 1) % n
            rels.append(
                lambda s=s, t=t, kind=kind: store.add_relation(
                    user, _name(s), _name(t), kind, evidence="bench"
                )
            )
        rel_rate = _rate(rels)

        store.get_neighbours(user, _name(0), hops=2)  # warm up
        latencies = []
        for _ in range(queries):
            start_name = _name(rng.randrange(n))
            t0 = time.perf_counter()
            store.get_neighbours(user, start_name, hops=2, limit=25)
            latencies.append((time.perf_counter() - t0) * 1000)
        latencies.sort()
        p95 = latencies[min(len(latencies) - 1, round(0.95 * (len(latencies) - 1)))]
        return Row(backend, n, load_s, merge_rate, rel_rate, statistics.median(latencies), p95)
    finally:
        store.delete_user(user)


def neo4j_uri(start: bool) -> tuple[str | None, str]:
    uri = os.environ.get("NEO4J_TEST_URI", "").strip()
    if uri:
        return uri, "NEO4J_TEST_URI"
    if not SCRIPT.exists():
        return None, f"{SCRIPT} does not exist"
    if start:
        done = subprocess.run([str(SCRIPT), "start"], cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            return None, f"scripts/neo4j-server start failed: {done.stderr.strip()[-500:]}"
    elif subprocess.run([str(SCRIPT), "status"], cwd=ROOT, capture_output=True).returncode != 0:
        return None, "scripts/neo4j-server reports no running server (use --start-neo4j)"
    got = subprocess.run([str(SCRIPT), "uri"], cwd=ROOT, capture_output=True, text=True)
    uri = got.stdout.strip()
    return (uri or None), "scripts/neo4j-server"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 and 1k entities, fewer samples")
    parser.add_argument("--sizes", type=int, nargs="*", help="entity counts (default 1000 10000)")
    parser.add_argument("--samples", type=int, help="merge / relation calls per size")
    parser.add_argument("--queries", type=int, help="2-hop queries per size")
    parser.add_argument("--start-neo4j", action="store_true", help="start scripts/neo4j-server")
    parser.add_argument("--no-neo4j", action="store_true", help="SQLite only")
    args = parser.parse_args()
    sizes = args.sizes or ([200, 1000] if args.quick else [1000, 10_000])
    samples = args.samples or (100 if args.quick else 500)
    queries = args.queries or (100 if args.quick else 200)

    uri, source = (None, "--no-neo4j") if args.no_neo4j else neo4j_uri(args.start_neo4j)
    neo: Neo4jGraphStore | None = None
    if uri:
        neo = Neo4jGraphStore(uri, auth=None, connection_timeout=3, max_retry_time=3)
        try:
            neo.driver.verify_connectivity()
        except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError, OSError) as exc:
            print(f"Neo4j at {uri} is not reachable ({exc}); SQLite only.")
            neo.close()
            neo = None
    else:
        print(f"Neo4j: not measured ({source}). Set NEO4J_TEST_URI or pass --start-neo4j.")
    if neo is not None:
        print(f"Neo4j: {uri} (from {source})")

    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = SQLiteGraphStore(Path(tmp) / "graph.sqlite3")
        for n in sizes:
            print(f"... {n} entities: sqlite", file=sys.stderr, flush=True)
            rows.append(
                measure(
                    "sqlite",
                    sqlite,
                    lambda u, n, e: bulk_sqlite(sqlite, u, n, e),
                    n,
                    samples,
                    queries,
                )
            )
            if neo is not None:
                print(f"... {n} entities: neo4j", file=sys.stderr, flush=True)
                rows.append(
                    measure(
                        "neo4j",
                        neo,
                        lambda u, n, e, neo=neo: bulk_neo4j(neo, u, n, e),
                        n,
                        samples,
                        queries,
                    )
                )
        sqlite.close()
    if neo is not None:
        neo.close()

    print()
    print(
        f"samples: {samples} merge_entity + {samples} add_relation calls, {queries} 2-hop queries"
    )
    header = (
        f"{'backend':<8} {'entities':>9} {'load s':>7} {'merge/s':>9} {'relate/s':>9} "
        f"{'2-hop p50 ms':>13} {'2-hop p95 ms':>13}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r.backend:<8} {r.entities:>9,} {r.load_s:>7.2f} {r.merge_per_s:>9,.0f} "
            f"{r.relation_per_s:>9,.0f} {r.p50_ms:>13.2f} {r.p95_ms:>13.2f}"
        )
    by_size: dict[int, dict[str, Row]] = {}
    for r in rows:
        by_size.setdefault(r.entities, {})[r.backend] = r
    ratios = [(n, d["sqlite"], d["neo4j"]) for n, d in by_size.items() if len(d) == 2]
    if ratios:
        print()
        print("neo4j / sqlite (same run):")
        for n, s, g in ratios:
            print(
                f"  {n:>7,} entities: merge/s x{g.merge_per_s / s.merge_per_s:.2f}, "
                f"relate/s x{g.relation_per_s / s.relation_per_s:.2f}, "
                f"2-hop p50 x{g.p50_ms / s.p50_ms:.2f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
