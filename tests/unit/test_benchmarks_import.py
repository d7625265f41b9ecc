"""Every benchmark module imports: a refactor that moves what a benchmark uses breaks here,
not when someone next runs the benchmark (they are not run by the test suite)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

BENCHMARKS = sorted(
    p.stem for p in (Path(__file__).resolve().parents[2] / "benchmarks").glob("*.py")
)


def test_the_benchmarks_are_found() -> None:
    assert {"context", "locomo", "personal_memory", "recall_latency"} <= set(BENCHMARKS)


@pytest.mark.parametrize("name", BENCHMARKS)
def test_benchmark_module_imports(name: str) -> None:
    module = importlib.import_module(f"benchmarks.{name}")
    if not name.startswith("_"):
        assert callable(getattr(module, "main", None)), f"benchmarks/{name}.py has no main()"
