"""Start-up cost: CPU time of the import, the first ``PraxMemory()`` and real CLI commands.

Each command runs in a fresh child process; its CPU time is the child's user + system time
(``os.wait4``), so other load on the machine does not count, and the median of ``--runs``
runs is reported beside two baselines measured in the same run: ``python -c pass`` (the
interpreter alone) and ``import langgraph.store.memory`` (LangGraph's own in-memory store,
what a LangGraph user pays anyway). Every command runs on one temporary data directory that
holds a user ``bench`` with a scratchpad entry and a few memories, so ``stm list``,
``notes show`` and ``recall`` do real work; ``remember`` and ``recall`` include loading the
packaged embedding model. Each row has its target from issue 27 and says whether it meets it.
``--before DIR`` also runs every row on another checkout of the package (``git archive`` of
an older commit into DIR), on its own data directory, in the same run: the "before" column.

Run: .venv/bin/python -m benchmarks.startup [--runs 5] [--before DIR]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

PY = sys.executable
_SCRIPT = shutil.which("prax-memory", path=str(Path(PY).parent))
CLI = [_SCRIPT] if _SCRIPT else [PY, "-m", "langgraph_prax_memory.cli"]
USER = "bench"

#: Targets (CPU seconds) of issue 27.
USAGE_ERROR = 0.5
LIGHT = 1.0
MODEL = 2.5
LIBRARY = 1.0


@dataclass(frozen=True)
class Row:
    label: str
    argv: list[str]
    code: int = 0
    target: float | None = None


def _rows() -> list[Row]:
    py = [PY, "-c"]
    return [
        Row("python -c pass", [*py, "pass"]),
        Row("import langgraph.store.memory (baseline)", [*py, "import langgraph.store.memory"]),
        Row("import langgraph_prax_memory", [*py, "import langgraph_prax_memory"]),
        Row(
            "import langgraph_prax_memory; PraxMemory()",
            [
                *py,
                "import langgraph_prax_memory\n"
                "from langgraph_prax_memory import PraxMemory\n"
                "PraxMemory().close()",
            ],
            target=LIBRARY,
        ),
        Row("prax-memory --help", [*CLI, "--help"], target=USAGE_ERROR),
        Row("usage: stm list (no --user)", [*CLI, "stm", "list"], 2, USAGE_ERROR),
        Row("usage: remember TEXT (no --user)", [*CLI, "remember", "tea"], 2, USAGE_ERROR),
        Row("usage: recall -u U Q (no -u)", [*CLI, "recall", "tea"], 2, USAGE_ERROR),
        Row(
            "usage: remember --importance 5",
            [*CLI, "remember", "-u", USER, "tea", "--importance", "5"],
            1,
            USAGE_ERROR,
        ),
        Row("usage: forget -u U zz (bad id)", [*CLI, "forget", "-u", USER, "zz"], 2, USAGE_ERROR),
        Row("usage: recall -k 0", [*CLI, "recall", "-u", USER, "tea", "-k", "0"], 2, USAGE_ERROR),
        Row("usage: unknown command", [*CLI, "no-such-command"], 2, USAGE_ERROR),
        Row("usage: bad user id", [*CLI, "stm", "list", "-u", "a\x01b"], 1, USAGE_ERROR),
        Row("prax-memory stm list -u bench", [*CLI, "stm", "list", "-u", USER], target=LIGHT),
        Row("prax-memory notes show -u bench", [*CLI, "notes", "show", "-u", USER], target=LIGHT),
        Row("prax-memory doctor --quick", [*CLI, "doctor", "--quick"], target=LIGHT),
        Row(
            "prax-memory remember -u bench TEXT (model)",
            [*CLI, "remember", "-u", USER, "Bench prefers green tea in the morning"],
            target=MODEL,
        ),
        Row(
            "prax-memory recall -u bench Q (model)",
            [*CLI, "recall", "-u", USER, "what does bench drink?", "--no-reinforce"],
            target=MODEL,
        ),
    ]


def cpu_seconds(row: Row, env: dict[str, str], strict: bool = True) -> tuple[float, float]:
    """(user + system CPU seconds, wall seconds) of one run of ``row``.

    ``strict=False`` (an older checkout): another exit code gives ``nan`` (the command did
    not do the same thing there, e.g. an option it did not have yet).
    """
    start = time.perf_counter()
    # run from the data directory: ``python -c`` puts its working directory first on sys.path,
    # which must not be a checkout (the one under test comes from PYTHONPATH)
    proc = subprocess.Popen(
        row.argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
        cwd=env["MEMORY_DATA_DIR"],
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != row.code and not strict:
        return float("nan"), float("nan")
    if code != row.code:
        raise SystemExit(f"{row.label}: exited with {code}, expected {row.code}\n{err[-2000:]}")
    return usage.ru_utime + usage.ru_stime, wall


def _prepare(env: dict[str, str]) -> None:
    """A user with a scratchpad entry and a few memories (the model is unpacked here too)."""
    for argv in (
        [*CLI, "stm", "set", "-u", USER, "goal", "ship the start-up work"],
        [*CLI, "remember", "-u", USER, "Bench drinks green tea every morning"],
        [*CLI, "remember", "-u", USER, "Bench writes Rust at work and Python at home"],
    ):
        subprocess.run(argv, env=env, check=True, capture_output=True, cwd=env["MEMORY_DATA_DIR"])


def _env(data: str, package_root: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.pop("PRAX_MEMORY_USER", None)
    env["MEMORY_DATA_DIR"] = data
    if package_root is not None:  # that checkout's package first on the path
        env["PYTHONPATH"] = os.pathsep.join([str(package_root), env.get("PYTHONPATH", "")])
    return env


def _median(values: list[float]) -> float:
    kept = [v for v in values if v == v]  # drop nan
    return statistics.median(kept) if kept else float("nan")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per command (median)")
    parser.add_argument(
        "--before", type=Path, help="another checkout (its root) to measure beside this one"
    )
    args = parser.parse_args(argv)
    rows = _rows()
    here = Path(__file__).resolve().parents[1]
    with (
        tempfile.TemporaryDirectory(prefix="prax-startup-") as tmp,
        tempfile.TemporaryDirectory(prefix="prax-startup-before-") as tmp_before,
    ):
        env = _env(tmp, here)
        before = _env(tmp_before, args.before) if args.before else None
        _prepare(env)
        if before is not None:
            _prepare(before)
        for row in rows:  # warm the file cache and bytecode once
            cpu_seconds(row, env)
            if before is not None:
                cpu_seconds(row, before, strict=False)
        results = []
        for row in rows:
            runs, old = [], []
            for _ in range(args.runs):  # interleaved: both see the same load
                runs.append(cpu_seconds(row, env))
                if before is not None:
                    old.append(cpu_seconds(row, before, strict=False)[0])
            cpu = statistics.median(c for c, _ in runs)
            wall = statistics.median(w for _, w in runs)
            results.append((row, cpu, wall, _median(old) if old else None))
    base = results[0][1]
    langgraph = results[1][1]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"{datetime.now(UTC):%Y-%m-%d}, Python {platform.python_version()} on "
        f"{platform.machine()}, {os.cpu_count()} cores (load {load:.1f}), "
        f"median of {args.runs} runs"
    )
    header = f"{'command':44} {'CPU s':>6} {'wall s':>7} {'÷ python':>9} {'÷ langgraph':>12}"
    if args.before:
        header += f" {'before':>7}"
    print(f"{header} {'target':>9}")
    for row, cpu, wall, old in results:
        ratio = cpu / base if base > 0 else float("inf")
        to_langgraph = cpu / langgraph if langgraph > 0 else float("inf")
        verdict = ""
        if row.target is not None:
            verdict = f"≤ {row.target:g} {'ok' if cpu <= row.target else 'OVER'}"
        was = f" {old:7.3f}" if old is not None else ""
        print(
            f"{row.label:44} {cpu:6.3f} {wall:7.3f} {ratio:8.1f}× {to_langgraph:11.2f}×"
            f"{was} {verdict:>9}"
        )


if __name__ == "__main__":
    main()
