"""Memory classes from the text alone: the classifier, without and with its grammar, in one run.

Each statement of a labelled set is classified as it would be when written untagged (the
packaged MiniLM, ``FactClassifier`` with ``grammar=False`` and ``grammar=True``), and the
table prints, per true class, how many were called standing, episode and small talk, plus
standing precision and recall — the figures that matter most (a standing fact taken wrongly
shows on every turn; one missed is only recalled when relevant).

Sets: ``benchmarks/data/statement_classes_blind.json`` (default; 240 statements written by a
session that never saw the code, docs or other data: ``{"items": [{"id", "class", "text"}]}``)
or a context persona file (``--data benchmarks/data/context_personas_heldout.json``: durable
memories are standing, the others episodes).

Run: ``python -m benchmarks.statement_classes [--data PATH] [-v]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmarks._common import write_json
from langgraph_prax_memory.embeddings import PackagedMiniLMEmbeddings
from langgraph_prax_memory.facts import EPISODE, SMALL_TALK, STANDING, FactClassifier

DATA = Path(__file__).with_name("data") / "statement_classes_blind.json"
CLASSES = (STANDING, EPISODE, SMALL_TALK)


def load(path: Path) -> list[tuple[str, str, str]]:
    """``(id, true class, text)`` of each statement of ``path``."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    if "items" in raw:
        out = [(i["id"], i["class"], i["text"]) for i in raw["items"]]
    else:  # a context persona file
        out = [
            (m["id"], STANDING if m["kind"] == "durable" else EPISODE, m["content"])
            for p in raw["personas"]
            for m in p["memories"]
        ]
    bad = [i for i, c, _ in out if c not in CLASSES]
    if bad:
        raise SystemExit(f"{path}: unknown class for {bad[:5]}")
    return out


def measure(items: list[tuple[str, str, str]], grammar: bool, root: Path) -> dict:
    """Counts per (true, called) class and the statements called wrongly."""
    model = PackagedMiniLMEmbeddings(root / "models")
    clf = FactClassifier(model.embed_documents, model.model_name, grammar=grammar, cache=False)
    texts = [t for _, _, t in items]
    started = time.perf_counter()
    found = clf.classify(texts)
    seconds = time.perf_counter() - started
    counts = {(a, b): 0 for a in CLASSES for b in CLASSES}
    wrong = []
    for (sid, truth, text), got in zip(items, found, strict=True):
        counts[(truth, got.fact_class)] += 1
        if got.fact_class != truth:
            wrong.append((sid, truth, got.fact_class, got.by, text))
    said = sum(counts[(t, STANDING)] for t in CLASSES)
    true = sum(counts[(STANDING, c)] for c in CLASSES)
    return {
        "counts": {f"{a}->{b}": n for (a, b), n in counts.items()},
        "standing_precision": counts[(STANDING, STANDING)] / said if said else float("nan"),
        "standing_recall": counts[(STANDING, STANDING)] / true if true else float("nan"),
        "accuracy": sum(counts[(c, c)] for c in CLASSES) / len(items),
        "seconds": seconds,
        "wrong": wrong,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--json", metavar="PATH", nargs="?", const="-")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every miss")
    args = parser.parse_args(argv)
    items = load(args.data)
    console = Console(stderr=args.json == "-")
    with tempfile.TemporaryDirectory(prefix="prax-classes-") as tmp:
        runs = {g: measure(items, g, Path(tmp)) for g in (False, True)}
    table = Table(title=f"Memory classes from the text ({args.data.name}, {len(items)} statements)")
    table.add_column("true class")
    for g in (False, True):
        table.add_column(f"{'with' if g else 'without'} grammar: standing / episode / small talk")
    for truth in CLASSES:
        n = sum(1 for _, c, _ in items if c == truth)
        table.add_row(
            f"{truth} ({n})",
            *(" / ".join(str(runs[g]["counts"][f"{truth}->{c}"]) for c in CLASSES) for g in runs),
        )
    for key in ("standing_precision", "standing_recall", "accuracy"):
        table.add_row(key.replace("_", " "), *(f"{runs[g][key]:.3f}" for g in runs))
    table.add_row("seconds to classify", *(f"{runs[g]['seconds']:.2f}" for g in runs))
    console.print(table)
    if args.verbose:
        for sid, truth, got, by, text in runs[True]["wrong"]:
            console.print(f"{sid} {truth} -> {got} ({by}): {text}")
    if args.json:
        write_json(args.json, {str(g): runs[g] for g in runs})
    return 0


if __name__ == "__main__":
    sys.exit(main())
