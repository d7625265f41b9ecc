"""Shared helpers for the benchmarks: timing, percentiles, synthetic memories, tables."""

from __future__ import annotations

import importlib
import json
import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from langchain_core.embeddings import Embeddings
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


def write_json(target: str, out: object) -> None:
    """``--json`` output: ``out`` as JSON to stdout (``-``) or to the file ``target``."""
    doc = json.dumps(out, indent=1, ensure_ascii=False, default=str)
    if target == "-":
        print(doc)
    else:
        Path(target).write_text(doc + "\n", encoding="utf-8")


def print_table(title: str, columns: list[str], rows: list[list[str]]) -> None:
    """Print a rich table."""
    table = Table(title=title)
    for col in columns:
        table.add_column(col)
    for row in rows:
        table.add_row(*row)
    Console().print(table)


class BM25:
    """Okapi BM25 over the words ``tokenize`` gives (the baseline of the quality benchmarks).

    Example:
        >>> bm25 = BM25(["tea with milk", "coffee"], str.split)
        >>> bm25.rank("tea")
        [0, 1]
    """

    def __init__(
        self,
        docs: Sequence[str],
        tokenize: Callable[[str], list[str]],
        k1: float = 1.2,
        b: float = 0.75,
    ) -> None:
        self.tokenize = tokenize
        self.tfs = [Counter(tokenize(d)) for d in docs]
        self.lens = [sum(tf.values()) for tf in self.tfs]
        self.avg = sum(self.lens) / max(1, len(self.lens))
        df: Counter[str] = Counter()
        for tf in self.tfs:
            df.update(tf.keys())
        n = len(docs)
        self.idf = {w: math.log(1 + (n - c + 0.5) / (c + 0.5)) for w, c in df.items()}
        self.k1, self.b = k1, b

    def scores(self, query: str) -> list[float]:
        """The BM25 score of every document, in document order."""
        q = self.tokenize(query)
        out = []
        for tf, length in zip(self.tfs, self.lens, strict=True):
            norm = self.k1 * (1 - self.b + self.b * length / max(self.avg, 1e-9))
            out.append(
                sum(self.idf[w] * tf[w] * (self.k1 + 1) / (tf[w] + norm) for w in q if w in tf)
            )
        return out

    def rank(self, query: str) -> list[int]:
        """Document indexes, best first."""
        scores = self.scores(query)
        return sorted(range(len(scores)), key=lambda i: -scores[i])


def load_embeddings(spec: str) -> tuple[Embeddings, int]:
    """The embedding model a quality benchmark measures instead of the packaged MiniLM.

    ``spec`` is ``module:callable``: the callable, called with no argument, returns a
    LangChain ``Embeddings``; its width is read from one probe query. The model's own
    relevance floor and cosine origin come from the environment as for the product
    (``MEMORY_RETRIEVAL='{"min_cosine": 0.84, "unrelated_cosine": 0.75}'``; docs/embeddings.md).

    Example:
        >>> model, width = load_embeddings("mypackage.models:make_embeddings")  # doctest: +SKIP

    Raises:
        ValueError: ``spec`` is not ``module:callable``, names nothing, or the callable does
            not return an ``Embeddings``.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name.strip() or not attr.strip():
        raise ValueError(f"--embeddings wants module:callable, got {spec!r}")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"--embeddings {spec!r}: {exc}") from exc
    if not callable(factory):
        raise ValueError(f"--embeddings {spec!r}: {attr} is not callable")
    model = factory()
    if not isinstance(model, Embeddings):
        raise ValueError(
            f"--embeddings {spec!r} returned {type(model).__name__}, not a LangChain Embeddings"
        )
    return model, len(model.embed_query("How wide are this model's vectors?"))
