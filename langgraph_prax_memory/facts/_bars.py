"""How the classifier's bars are chosen: cross-validation on the training statements."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from langgraph_prax_memory.facts._classifier import (
    KINDS,
    STANDING,
    _decide,
    _features,
    _ridge,
    class_of_kind,
    training_statements,
)

__all__ = ["cross_validated_bars"]


def cross_validated_bars(
    embed: Callable[[list[str]], list[list[float]]],
    bars: Sequence[float],
    folds: int = 10,
    fact_class: str = STANDING,
) -> list[tuple[float, float, float]]:
    """Precision and recall of ``fact_class`` at each bar under ``folds``-fold cross-validation.

    How :data:`STANDING_CONFIDENCE` (and consolidation's small-talk bar) is chosen: on the
    training statements alone, each fold trained on the rest, the folds taken in a fixed
    shuffled order. A text counts as ``fact_class`` when it is decided so with a confidence of
    at least the bar (the standing bar is the decision's own).

    Returns:
        ``(bar, precision, recall)`` for each of ``bars``.
    """
    data = training_statements()
    texts = [t for _, t in data]
    labels = np.array([KINDS.index(k) for k, _ in data])
    x = _features(np.asarray(embed(texts), dtype=np.float64), texts)
    order = np.random.default_rng(0).permutation(len(texts))
    scores = np.zeros((len(texts), len(KINDS)))
    for f in range(folds):
        test = order[f::folds]
        train = np.setdiff1d(order, test)
        scores[test] = x[test] @ _ridge(x[train], list(labels[train]), len(KINDS))
    truth = np.array([class_of_kind(KINDS[i]) == fact_class for i in labels])
    out = []
    for bar in bars:
        decided = [_decide(s, bar=bar if fact_class == STANDING else None) for s in scores]
        said = np.array([d.fact_class == fact_class and d.confidence >= bar for d in decided])
        hits = int((said & truth).sum())
        out.append((bar, hits / max(int(said.sum()), 1), hits / int(truth.sum())))
    return out
