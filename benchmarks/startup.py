"""Start-up cost: CPU time of ``import langgraph_prax_memory`` and ``prax-memory --help``.

Each command runs in a fresh child process; its CPU time is the child's user + system time
(``os.wait4``), so other load on the machine does not count, and the median of ``--runs``
runs is reported beside ``python -c pass`` (the interpreter alone), measured in the same run.
A third row, ``from langgraph_prax_memory import PraxMemory``, shows what the first real use
pays (Qdrant, LangChain, the graph backends), deferred by the lazy imports.

Run: .venv/bin/python -m benchmarks.startup [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

PY = sys.executable
CLI = shutil.which("prax-memory", path=str(Path(PY).parent)) or "prax-memory"

COMMANDS: list[tuple[str, list[str]]] = [
    ("python -c pass", [PY, "-c", "pass"]),
    ('python -c "import langgraph_prax_memory"', [PY, "-c", "import langgraph_prax_memory"]),
    ("prax-memory --help", [CLI, "--help"]),
    (
        'python -c "from langgraph_prax_memory import PraxMemory"',
        [PY, "-c", "from langgraph_prax_memory import PraxMemory"],
    ),
]


def cpu_seconds(argv: list[str]) -> tuple[float, float]:
    """(user + system CPU seconds, wall seconds) of one run of ``argv``."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited with {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, wall


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per command (median)")
    args = parser.parse_args(argv)
    for _, cmd in COMMANDS:  # warm the file cache and bytecode once
        cpu_seconds(cmd)
    rows = []
    for label, cmd in COMMANDS:
        runs = [cpu_seconds(cmd) for _ in range(args.runs)]
        rows.append(
            (label, statistics.median(c for c, _ in runs), statistics.median(w for _, w in runs))
        )
    base = rows[0][1]
    print(
        f"{platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, "
        f"median of {args.runs} runs"
    )
    print(f"{'command':58} {'CPU s':>7} {'wall s':>7} {'CPU ÷ python':>13}")
    for label, cpu, wall in rows:
        ratio = cpu / base if base > 0 else float("inf")
        print(f"{label:58} {cpu:7.3f} {wall:7.3f} {ratio:12.1f}×")


if __name__ == "__main__":
    main()
