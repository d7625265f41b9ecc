"""Hung backends: recall latency with a Neo4j or a Qdrant that accepts TCP and never answers.

A hung server is simulated on 127.0.0.1: a thread that accepts connections, reads what it is
sent and never answers (as a wedged server or a dead peer behind a live load balancer does).
Everything else is real: the packaged MiniLM embeds every query, qdrant-edge holds the
memories, the Neo4j driver and qdrant-client talk to the hung socket with the default
timeouts (connect 2 s, Qdrant read 5 s).

In the same run:

* **healthy**: recall on the embedded default (qdrant-edge + the SQLite graph, whose entities
  the memories are linked to, so the graph arm does real work); remember likewise; and recall
  with the graph arm off, the like-for-like baseline of a recall whose graph arm is skipped.
  Recalls are ``--interval`` apart (untimed), as an agent's turns are.
* **hung Neo4j**: the same memories and queries, the graph store a ``Neo4jGraphStore`` on the
  hung socket. The first recall pays the connect timeout (the first failure); the figures are
  the recalls after it, answered by the dense and sparse arms, the graph arm in
  ``RecallResult.errors``. The breaker's cool-down is short (``--cooldown``, 1 s) so that
  several cool-downs end during the measurement: each sends a background probe.
* **hung Qdrant**: a memory whose ``QDRANT_URL`` is the hung socket. Every arm reads its
  points from Qdrant, so nothing can answer: recall raises ``BackendUnavailable`` and a write
  raises, never reporting success. The figure is the time a turn loses to that, against the
  healthy recall (and remember) on the embedded engine. There is no Qdrant server here, so
  the healthy baseline is the in-process engine, which is faster than any server over HTTP:
  the ratio is conservative.
* **without the breaker**: the same hung servers with a breaker that never opens
  (``breaker_failures`` 10⁹), a few calls each: what every turn costs without it (with the new
  timeouts; before them, 10 s for Neo4j and 20 s for Qdrant).

No assertions on time: this prints a table.

Run: COLUMNS=200 .venv/bin/python -m benchmarks.hung_backends [--memories 1000]
     [--queries 300] [--cooldown 1.0] [--interval 0.02] [--unguarded-calls 3]
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import socket
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks._common import (
    _OBJECTS,
    _SUBJECTS,
    percentiles,
    print_table,
    synthetic_texts,
)
from langgraph_prax_memory import BackendUnavailable, MemoryConfig, PraxMemory, PraxMemoryError
from langgraph_prax_memory._breaker import CircuitBreaker
from langgraph_prax_memory.graph import Neo4jGraphStore, SQLiteGraphStore

USER = "bench-user"
QUERIES = [
    "What does Alice think about Rust?",
    "Who recommended polars for large datasets?",
    "the Oslo trip",
    "What is Carol learning?",
    "Bob and Kubernetes",
    "XGBoost for fraud detection",
    "Which editor, Helix?",
    "Dave and the MIT license",
]


class HungServer:
    """Accepts TCP connections on 127.0.0.1 and never answers."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(256)
        self.port = int(self.sock.getsockname()[1])
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)  # held open, never read from, never answered

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        for conn in self.conns:
            with contextlib.suppress(OSError):
                conn.close()


def _load(mem: PraxMemory, graph: SQLiteGraphStore, texts: list[str]) -> None:
    """Store the memories, each linked to the graph entities its text names."""
    ids: dict[str, str] = {}
    for name in (*_SUBJECTS, *_OBJECTS):
        ids[name] = graph.merge_entity(USER, name).id
    items = []
    for text in texts:
        named = [n for n in (*_SUBJECTS, *_OBJECTS) if n in text]
        if len(named) >= 2:
            graph.add_relation(USER, named[0], named[1], "interested_in")
        items.append({"content": text, "entity_ids": [ids[n] for n in named]})
    for start in range(0, len(items), 500):
        mem.remember_many(USER, items[start : start + 500])


def _recall_times(
    mem: PraxMemory, n: int, *, interval: float = 0.0, expect_error: str | None = None
) -> tuple[list[float], int, int]:
    """Seconds per recall; how many reported ``expect_error`` in errors; how many raised.

    ``interval`` seconds pass between two recalls (untimed), as between an agent's turns.
    """
    times: list[float] = []
    reported = raised = 0
    for i in range(n):
        time.sleep(interval)
        query = QUERIES[i % len(QUERIES)]
        started = time.perf_counter()
        try:
            result = mem.recall_detailed(USER, query, k=10, reinforce=False)
        except BackendUnavailable:
            raised += 1
        else:
            reported += expect_error is not None and expect_error in result.errors
        times.append(time.perf_counter() - started)
    return times, reported, raised


def _write_times(mem: PraxMemory, n: int, tag: str) -> tuple[list[float], int]:
    """Seconds per ``remember`` of a new text; how many raised (never reported success)."""
    times: list[float] = []
    raised = 0
    for i in range(n):
        started = time.perf_counter()
        try:
            mem.remember(USER, f"{tag}: a new fact number {i} about the weekend")
        except PraxMemoryError:
            raised += 1
        times.append(time.perf_counter() - started)
    return times, raised


def _first(fn: Callable[[], Any]) -> float:
    """Seconds until ``fn`` returns or raises (the first failure)."""
    started = time.perf_counter()
    with contextlib.suppress(PraxMemoryError):
        fn()
    return time.perf_counter() - started


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f}"


def _counting(breaker: CircuitBreaker | None) -> list[int]:
    """Count the breaker's background probes (one list item per probe)."""
    calls: list[int] = []
    if breaker is not None and breaker.probe is not None:
        probe = breaker.probe

        def counted() -> object:
            calls.append(1)
            return probe()

        breaker.probe = counted
    return calls


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--cooldown", type=float, default=1.0)
    parser.add_argument("--interval", type=float, default=0.02)
    parser.add_argument("--unguarded-calls", type=int, default=3)
    args = parser.parse_args(argv)
    # qdrant-client's background version check cannot reach the hung server either
    warnings.filterwarnings("ignore", "Failed to obtain server version")

    print(f"{platform.machine()}, {platform.python_version()}, {args.memories} memories")
    texts = synthetic_texts(args.memories)
    root = Path(tempfile.mkdtemp(prefix="prax-hung-bench-"))
    n, gap = args.queries, args.interval
    rows: list[list[str]] = []

    def row(case: str, first: float | None, samples: list[float], base: float, *more: str) -> None:
        p50, p95 = percentiles(samples)
        ratio = f"{p95 / base:.2f}×" if p95 / base < 10 else f"{p95 / base:.0f}×"
        rows.append(
            [case, "—" if first is None else _ms(first), f"{p50:.1f}", f"{p95:.1f}", ratio, *more]
        )

    neo_hung, qdrant_hung = HungServer(), HungServer()
    try:
        config = MemoryConfig(data_dir=root / "healthy")
        graph = SQLiteGraphStore(config.graph_path)
        with PraxMemory(config, graph=graph) as mem:
            _load(mem, graph, texts)
            _recall_times(mem, 2 * len(QUERIES))  # warm-up: model, caches, pages
            healthy, graph_failed, _ = _recall_times(mem, n, interval=gap, expect_error="graph")
            writes, _ = _write_times(mem, 50, "healthy")
        with PraxMemory(config, graph_arm=False) as mem:
            two_arms, _, _ = _recall_times(mem, n, interval=gap)
        h95 = percentiles(healthy)[1]
        w95 = percentiles(writes)[1]
        row(
            "healthy recall: qdrant-edge + SQLite graph",
            None,
            healthy,
            h95,
            f"graph arm failed {graph_failed}/{n}",
            "—",
        )
        row("healthy recall, graph arm off (dense + sparse)", None, two_arms, h95, "—", "—")
        row("healthy remember", None, writes, w95, "—", "—")

        # -- hung Neo4j, breaker on ----------------------------------------------------
        uri = f"bolt://127.0.0.1:{neo_hung.port}"
        neo = Neo4jGraphStore(uri, breaker_cooldown=args.cooldown)
        probes = _counting(neo.breaker)
        with PraxMemory(config, graph=neo) as mem:
            first = _first(lambda: mem.recall_detailed(USER, QUERIES[0], reinforce=False))
            hung, reported, _ = _recall_times(mem, n, interval=gap, expect_error="graph")
            row(
                "hung Neo4j: recall after the first failure",
                first,
                hung,
                h95,
                f"graph in errors {reported}/{n}",
                f"{len(probes)} probes, {neo.breaker.state}",
            )

        # -- hung Neo4j, breaker off (every call waits, as before; new timeouts) ------
        neo = Neo4jGraphStore(uri, breaker_failures=10**9)
        with PraxMemory(config, graph=neo) as mem:
            first = _first(lambda: mem.recall_detailed(USER, QUERIES[0], reinforce=False))
            k = args.unguarded_calls
            slow, reported, _ = _recall_times(mem, k, expect_error="graph")
            row(
                "hung Neo4j, breaker off: every recall",
                first,
                slow,
                h95,
                f"graph in errors {reported}/{k}",
                "never opens",
            )

        # -- hung Qdrant, breaker on -------------------------------------------------
        qurl = f"http://127.0.0.1:{qdrant_hung.port}"
        qcfg = MemoryConfig(
            data_dir=root / "hung-qdrant", qdrant_url=qurl, breaker_cooldown=args.cooldown
        )
        with PraxMemory(qcfg) as mem:
            probes = _counting(mem.vectors.breaker)
            first = _first(lambda: mem.remember(USER, "the first write"))
            hung, _, raised = _recall_times(mem, n, interval=gap)
            bad_writes, wraised = _write_times(mem, 50, "hung")
            state = mem.vectors.breaker.state if mem.vectors.breaker else "none"
            row(
                "hung Qdrant: recall after the first failure",
                first,
                hung,
                h95,
                f"raised {raised}/{n}",
                f"{len(probes)} probes, {state}",
            )
            row(
                "hung Qdrant: remember after it (vs remember)",
                None,
                bad_writes,
                w95,
                f"raised {wraised}/50",
                "—",
            )

        # -- hung Qdrant, breaker off ------------------------------------------------
        qcfg = MemoryConfig(
            data_dir=root / "hung-qdrant-off", qdrant_url=qurl, breaker_failures=1000
        )
        with PraxMemory(qcfg) as mem:
            first = _first(lambda: mem.remember(USER, "the first write"))
            k = args.unguarded_calls
            slow, _, raised = _recall_times(mem, k)
            row(
                "hung Qdrant, breaker off: every recall",
                first,
                slow,
                h95,
                f"raised {raised}/{k}",
                "never opens",
            )
    finally:
        neo_hung.close()
        qdrant_hung.close()

    print_table(
        "Recall with a hung backend (ms; ratio: p95 / healthy p95)",
        ["case", "first failure", "p50", "p95", "ratio", "outcome", "breaker"],
        rows,
    )


if __name__ == "__main__":
    main()
