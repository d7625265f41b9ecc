"""Latency of the notes retriever and the STM scratchpad (p50 / p95, no assertions).

Run: ``.venv/bin/python benchmarks/notes_stm.py [--rounds N]``

Measures, on a temporary data dir:
  * notes retrieval (``UserNotes.get_workspace_context``: file read + parse + score) on a
    ~4 KB notes file, and the pure ``select_note_lines`` on the same text;
  * STM ``write`` (upsert of a new key, and of an existing key), ``get`` and ``all`` on a
    pad of 40 entries (below the compaction limit, so no compaction is timed);
  * a notes ``update`` (atomic write + git commit) for scale.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.notes import UserNotes, select_note_lines
from langgraph_prax_memory.stm import ScratchpadStore

QUERIES = [
    "remind me to call the dentist at 5pm",
    "hello there!",
    "play NPR in the kitchen",
    "draft an email to the Falcon team about the release",
    "what do I like for breakfast",
    "what is 2+2",
]


def make_notes(target: int = 4096) -> str:
    head = "# User Notes\n\nname: Alice Example\ntimezone: America/New_York\n"
    sections = ["Preferences", "Aliases", "Workflows", "Projects", "Formatting", "Interests"]
    body, i = "", 0
    while len(head) + len(body) < target - 80:
        section = sections[i % len(sections)]
        if f"## {section}\n" not in body:
            body += f"\n## {section}\n"
        body += f"- {section.lower()} item {i}: prefers option {i % 7} for breakfast and reports\n"
        i += 1
    return head + body + "- NPR: National Public Radio\n"


def timeit(fn: Callable[[int], object], rounds: int) -> list[float]:
    fn(-1)  # warm-up
    out = []
    for i in range(rounds):
        start = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - start) * 1000.0)
    return out


def row(name: str, samples: list[float]) -> str:
    ordered = sorted(samples)
    p50 = statistics.median(ordered)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"| {name:<44} | {len(samples):>6} | {p50:>9.3f} | {p95:>9.3f} |"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    rounds = args.rounds
    with tempfile.TemporaryDirectory() as tmp:
        config = MemoryConfig(data_dir=Path(tmp))
        notes = UserNotes(config)
        text = make_notes()
        notes.update("alice", text)
        live = notes.read("alice")
        stm = ScratchpadStore(config)
        for i in range(40):
            stm.write("alice", f"seed-{i}", f"scratch note {i} " + "x" * 80)

        results = [
            (
                f"notes get_workspace_context ({len(live)} chars)",
                timeit(lambda i: notes.get_workspace_context("alice", QUERIES[i % 6]), rounds),
            ),
            (
                "notes select_note_lines (pure, in memory)",
                timeit(lambda i: select_note_lines(live, QUERIES[i % 6]), rounds),
            ),
            (
                "stm write (new key, 40-entry pad)",
                timeit(lambda i: stm.write("bob", f"k{i}", "value " * 10), min(rounds, 45)),
            ),
            (
                "stm write (upsert existing key)",
                timeit(lambda i: stm.write("alice", "seed-1", f"value {i}"), rounds),
            ),
            ("stm get (by key)", timeit(lambda i: stm.get("alice", "seed-39"), rounds)),
            ("stm all (40 entries)", timeit(lambda i: stm.all("alice"), rounds)),
            (
                "notes update (write + git commit)",
                timeit(lambda i: notes.update("carol", f"name: Carol {i}\n"), min(rounds, 40)),
            ),
        ]
    print("| operation                                    |      n |  p50 (ms) |  p95 (ms) |")
    print("|----------------------------------------------|--------|-----------|-----------|")
    for name, samples in results:
        print(row(name, samples))


if __name__ == "__main__":
    main()
