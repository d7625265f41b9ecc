"""Shared helpers for the benchmarks: timing, percentiles, synthetic memories, tables."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import TypeVar

from rich.console import Console
from rich.table import Table

T = TypeVar("T")

_SUBJECTS = ["Alice", "Bob", "the user", "Carol", "the team", "Dave", "my sister", "our client"]
_VERBS = [
    "prefers",
    "started using",
    "stopped using",
    "asked about",
    "recommended",
    "is learning",
    "complained about",
    "wants to try",
    "decided on",
    "wrote a note on",
]
_OBJECTS = [
    "Rust",
    "polars",
    "dark mode",
    "the Oslo trip",
    "XGBoost",
    "NixOS flakes",
    "jazz",
    "marathon training",
    "the MIT license",
    "Helix",
    "sourdough baking",
    "the Q3 report",
    "fraud detection",
    "a vegetarian diet",
    "chess openings",
    "Kubernetes",
    "watercolor",
]
_TAILS = [
    "last week",
    "for large datasets",
    "because of performance",
    "after the meeting",
    "on weekends",
    "for personal projects",
    "at FinCorp",
    "since March",
    "again",
    "",
]


def synthetic_texts(n: int, seed: int = 7) -> list[str]:
    """``n`` distinct, plausible memory sentences."""
    rng = random.Random(seed)
    return [
        f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} "
        f"{rng.choice(_TAILS)} (note {i})".replace("  ", " ")
        for i in range(n)
    ]


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    """Run ``fn`` and return its result and the elapsed seconds."""
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def percentiles(samples: list[float]) -> tuple[float, float]:
    """p50 and p95 of ``samples`` (seconds) in milliseconds."""
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p95 * 1000


def print_table(title: str, columns: list[str], rows: list[list[str]]) -> None:
    """Print a rich table."""
    table = Table(title=title)
    for col in columns:
        table.add_column(col)
    for row in rows:
        table.add_row(*row)
    Console().print(table)
