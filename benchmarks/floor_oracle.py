"""The relevance floor against the best floor one could set by hand (an in-sample oracle).

Runs the personal-memory benchmark (``benchmarks/personal_memory.py``, any ``--data`` and
``--embeddings``) once, recording what every recall fetched (each arm's candidates and the
fusion's inputs), then *replays* the recorded recalls through the product's own ranking and
floor (``assemble_hits`` and ``calibrate_hits``) under other settings, without storing or
embedding again:

- the product as measured (the calibrated floor, hubness-corrected);
- the best hand-set floor on the raw cosine, and on the hubness-corrected cosine: a grid over
  ``min_cosine`` (the calibrated value ± 0.04, step ``--step``) and ``companion_cosine``
  (none, or 0.5 / 1 / 1.5 calibrated gaps below it); the best is the one with the most
  on-topic gold among those that keep off-topic questions empty in ≥ 95 % of cases at every
  space size — chosen on the data it is scored on, so it bounds what tuning could reach;
- P@1 of the recall door with and without the word-pair first place (``head_coverage``),
  beside the dense-only ranking;
- the floor's tail: the floor at ``m + z·s`` for z from 1.9 to 2.4 (``m`` and ``s`` read back
  from the calibrated floor and companion bar), and whether each z meets both targets (off-topic
  questions empty in ≥ 95 % of cases at every size, on-topic gold within 0.03 of the best
  hand-set corrected floor at every size). The calibration keeps ``z = 2.326`` (the 1 % tail):
  lower tails keep more gold here but let off-topic requests open episodes in
  ``benchmarks/context.py`` (docs/retrieval.md, "The floor's tail").

Figures: off-topic questions that inject nothing, and on-topic questions whose gold fact is
in the block (k = 5, the benchmark's floor measurement), by space size.

Run: .venv/bin/python -m benchmarks.floor_oracle [--data PATH] [--embeddings MODULE:CALLABLE]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from benchmarks import personal_memory as pm
from benchmarks._common import load_embeddings, print_table

Figures = dict[str, tuple[float, float]]


@contextmanager
def recording() -> Iterator[list[dict[str, Any]]]:
    """Record every recall's arm results and fusion settings (the user, question and k too)."""
    from langgraph_prax_memory.retrieval import _recaller

    records: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    recall, assemble = _recaller.Recaller.recall, getattr(_recaller, "assemble_hits")  # noqa: B009

    def recorded_recall(self: Any, user_id: str, text: str, **kw: Any) -> Any:
        current.update(user=user_id, text=text, k=kw.get("k"))
        return recall(self, user_id, text, **kw)

    def recorded_assemble(arms: Any, weights: Any, **kw: Any) -> Any:
        records.append({**current, "arms": dict(arms), "weights": dict(weights), "kw": dict(kw)})
        return assemble(arms, weights, **kw)

    _recaller.Recaller.recall = recorded_recall  # type: ignore[method-assign]
    setattr(_recaller, "assemble_hits", recorded_assemble)  # noqa: B010 (the module global recall calls)
    try:
        yield records
    finally:
        _recaller.Recaller.recall = recall  # type: ignore[method-assign]
        setattr(_recaller, "assemble_hits", assemble)  # noqa: B010


class Replay:
    """The recorded recalls of one benchmark run, replayed under other settings."""

    def __init__(self, data: pm.Data, records: list[dict[str, Any]]) -> None:
        self.size = {s.user: (size, len(s.facts)) for size, ss in data.spaces.items() for s in ss}
        self.gold = {q.text: q.gold for q in data.questions}
        self.off = set(data.off_topic)
        self.floor_calls: dict[tuple[str, str], dict[str, Any]] = {}
        self.rank_calls: dict[tuple[str, str], dict[str, Any]] = {}
        for r in records:
            if r["user"] not in self.size:
                continue
            key = (r["user"], r["text"])
            if r["k"] == 5 and (r["text"] in self.gold or r["text"] in self.off):
                self.floor_calls[key] = r  # the floor's recall (k = 5)
            if r["text"] in self.gold and r["k"] == min(10, self.size[r["user"]][1]):
                self.rank_calls[key] = r  # the recall door's ranking (k = min(10, size))
        first = next(iter(self.floor_calls.values()))["kw"]
        self.calibrated = (first["min_cosine"], first["companion_cosine"])

    def floor(
        self, min_cosine: float | None, companion: float | None, hubness: bool = True
    ) -> Figures:
        """(off-topic empty, on-topic gold kept) by size; ``None``: the recorded setting."""
        from langgraph_prax_memory.retrieval._calibration import CosineScale
        from langgraph_prax_memory.retrieval._recall import assemble_hits, calibrate_hits

        tot: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        for (user, text), r in self.floor_calls.items():
            kw = dict(r["kw"])
            if not hubness:
                kw["hubness"] = None
            if min_cosine is not None:
                kw["min_cosine"], kw["companion_cosine"] = min_cosine, companion
            hits = assemble_hits(r["arms"], r["weights"], **kw)[:5]
            scale = CosineScale(kw["unrelated_cosine"], kw["min_cosine"], kw["companion_cosine"])
            kept = [h.memory.key for h in calibrate_hits(hits, scale) if h.relevant]
            t = tot[self.size[user][0]]
            if text in self.off:
                t[0], t[1] = t[0] + 1, t[1] + (not kept)
            else:
                t[2], t[3] = t[2] + 1, t[3] + (self.gold[text] in kept)
        return {s: (v[1] / v[0], v[3] / v[2]) for s, v in tot.items()}

    def p_at_1(self, change: Callable[[dict[str, Any]], None]) -> dict[str, tuple[float, float]]:
        """(product P@1, dense-only P@1) by size, with ``change`` applied to the settings."""
        from langgraph_prax_memory.retrieval._recall import assemble_hits

        tot: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for (user, text), r in self.rank_calls.items():
            kw = dict(r["kw"])
            change(kw)
            hits = assemble_hits(r["arms"], r["weights"], **kw)
            dense = r["arms"].get("dense") or []
            t = tot[self.size[user][0]]
            t[0] += 1
            t[1] += bool(hits) and hits[0].memory.key == self.gold[text]
            t[2] += bool(dense) and dense[0].payload.get("key") == self.gold[text]
        return {s: (v[1] / v[0], v[2] / v[0]) for s, v in tot.items()}

    def tails(self, oracle: Figures) -> list[list[str]]:
        """Rows of :meth:`floor` at ``m + z·s`` for z in 1.9 … 2.4, against ``oracle``'s gold.

        ``m`` and ``s`` are read back from the calibrated floor and companion bar (``m + 2.326·s``
        and ``m + 1.282·s``), which holds while neither is capped (the floor at the related
        pairs' median, the companion at the floor): true of the three catalog models.
        """
        from langgraph_prax_memory.embeddings._calibration import _COMPANION_Z, _MIN_Z

        fl, comp = self.calibrated
        spread = (fl - comp) / (_MIN_Z - _COMPANION_Z)
        mean = comp - _COMPANION_Z * spread
        rows = []
        for z in np.arange(1.9, 2.4 + 1e-9, 0.05):
            res = self.floor(float(mean + z * spread), comp)
            met = all(
                off >= 0.95 and kept >= oracle[s][1] - 0.03 - 1e-9 for s, (off, kept) in res.items()
            )
            rows.append([*_row(f"{z:.2f}", res), "yes" if met else "no"])
        return rows

    def best(self, hubness: bool, step: float) -> tuple[float, float | None, Figures] | None:
        """The hand-set (floor, companion) keeping the most gold at ≥ 95 % off-topic empty."""
        low, gap = self.calibrated[0] - 0.04, self.calibrated[0] - self.calibrated[1]
        found: tuple[float, float, float | None, Figures] | None = None
        for fl in np.arange(low, self.calibrated[0] + 0.04 + 1e-9, step):
            for g in (None, gap / 2, gap, gap * 1.5):
                comp = None if g is None else float(fl - g)
                res = self.floor(float(fl), comp, hubness)
                if all(off >= 0.95 for off, _ in res.values()):
                    gold = float(np.mean([kept for _, kept in res.values()]))
                    if found is None or gold > found[0]:
                        found = (gold, float(fl), comp, res)
        return None if found is None else found[1:]


def _row(label: str, res: Figures) -> list[str]:
    cells = [label]
    for size in pm.SIZES:
        off, kept = res.get(size, (float("nan"), float("nan")))
        cells.append(f"{off:.3f} / {kept:.3f}")
    return cells


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=pm.DEFAULT_DATA)
    parser.add_argument("--embeddings", metavar="MODULE:CALLABLE")
    parser.add_argument("--step", type=float, default=0.01, help="grid step of min_cosine")
    args = parser.parse_args(argv)
    data = pm.load(args.data)
    model: Embeddings | None = None
    dimension: int | None = None
    if args.embeddings:
        model, dimension = load_embeddings(args.embeddings)
    with tempfile.TemporaryDirectory(prefix="prax-oracle-") as tmp, recording() as records:
        pm.run(
            data,
            Path(tmp),
            quick=False,
            log=lambda m: print(m, file=sys.stderr),
            embeddings=model,
            dimension=dimension,
        )
    replay = Replay(data, records)
    fl, comp = replay.calibrated
    rows = [_row(f"product: calibrated {fl:.3f} / {comp:.3f}, corrected", replay.floor(None, None))]
    best = None
    for hubness in (False, True):
        best = replay.best(hubness, args.step)  # the corrected one is kept for the z table
        what = "corrected" if hubness else "raw"
        if best is None:
            rows.append([f"best hand-set, {what} cosine: none keeps ≥ 95 %", "", "", ""])
        else:
            bfl, bcomp, res = best
            shown = "none" if bcomp is None else f"{bcomp:.3f}"
            rows.append(_row(f"best hand-set, {what} cosine: {bfl:.3f} / {shown}", res))
    print_table(
        f"Floor, {args.data.name}, {args.embeddings or 'packaged MiniLM'}: off-topic empty / "
        "on-topic gold kept (k = 5)",
        ["setting", *pm.SIZES],
        rows,
    )
    if best is not None:
        print_table(
            "The floor's tail z (floor = m + z·s, companion bar as calibrated)",
            ["z", *pm.SIZES, "both targets met"],
            replay.tails(best[2]),
        )
    product = replay.p_at_1(lambda kw: None)
    plain = replay.p_at_1(lambda kw: kw.update(head_coverage=None))
    print_table(
        "P@1, recall door (replayed)",
        ["size", "product", "without the word-pair first place", "dense-only"],
        [
            [s, f"{product[s][0]:.3f}", f"{plain[s][0]:.3f}", f"{product[s][1]:.3f}"]
            for s in pm.SIZES
            if s in product
        ],
    )
    print(
        "The calibrated floor without the correction uses the raw pairs' tails, which the "
        "recording does not hold: run the benchmark with MEMORY_RETRIEVAL="
        "'{\"hubness_correction\": false}' for it."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
