"""Calibrated relevance: one score scale for every query, user and tenant (pure arithmetic).

The ranker (evidence fusion or RRF, :mod:`._fusion`) orders a query's candidates by evidence
*relative to that query's own result list*: good for ordering, meaningless across queries (a
lone exact match had evidence 0; an off-topic question's best hit had 1). This module turns
each hit's *absolute* signals into a relevance in [0, 1] on the embedding model's own cosine
scale, so a score means the same thing for every query:

* the dense cosine, placed on the model's scale: ``unrelated_cosine`` (what the model gives
  unrelated texts) maps to 0.05, ``min_cosine`` (the relevance floor) to 0.5, and a logistic
  curve runs through both (``0.95`` at twice the floor's distance, ``≈ 1`` for an exact match);
* keyword coverage (the share of the question's content words the memory contains) and graph
  proximity (an entity the question names) lower the floor the cosine must reach, down to
  halfway between ``unrelated_cosine`` and ``min_cosine`` for a memory that covers the whole
  question (the floor's old keyword rule, made continuous);
* without a cosine (dense arm down), keyword or graph strength alone: ``0.6 × strength``.

The hit's score adds the bounded importance and recency terms of the ranker (±0.05, ≤ 0.1),
clipped to [0, 1]. Scores are then made non-increasing in the ranker's order (a hit the
ranker put above a more relevant one is shown at that one's level), so a sorted list stays
sorted and a threshold on the score cuts the ranked list in one place. The relevance floor is
0.5 on this scale; the companion bar (``companion_cosine``) is the same curve's value at that
cosine.

Example:
    >>> scale = CosineScale(unrelated=0.0, floor=0.3)
    >>> round(scale.relevance(0.3), 2), round(scale.relevance(0.0), 2)
    (0.5, 0.05)
    >>> scale.relevance(0.6) > 0.9 > scale.relevance(0.45) > 0.5 > scale.relevance(0.2)
    True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["FLOOR", "CosineScale", "monotone_scores", "strength_of"]

#: Where the relevance floor sits on the calibrated scale.
FLOOR = 0.5
#: Calibrated relevance of a cosine at ``unrelated_cosine``: the curve's slope follows from it.
_AT_UNRELATED = 0.05
_SLOPE = math.log((1 - _AT_UNRELATED) / _AT_UNRELATED)
#: Relevance of a full-strength keyword or graph match when no cosine is known.
_NO_COSINE = 0.6


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@dataclass(frozen=True)
class CosineScale:
    """The embedding model's cosine scale: where unrelated texts sit and where the floor is.

    Args:
        unrelated: The cosine the model gives unrelated texts (``unrelated_cosine``).
        floor: The cosine at which a memory is relevant on its own (``min_cosine``).
        companion: The lower bar for hits beside a relevant one (``companion_cosine``).
    """

    unrelated: float = 0.0
    floor: float = 0.3
    companion: float | None = 0.2

    def relevance(self, cosine: float | None, strength: float = 0.0) -> float:
        """Calibrated relevance in [0, 1] of a cosine, with keyword/graph ``strength`` in [0, 1].

        ``strength`` lowers the cosine the memory must reach for 0.5, down to halfway between
        ``unrelated`` and ``floor`` at full strength.
        """
        strength = min(1.0, max(0.0, strength))
        if cosine is None:
            return _NO_COSINE * strength
        # a floor at or below the unrelated level (a hand-set value mixed with a measured
        # one) would make a step of the curve: keep at least 0.05 of cosine between them
        span = max(self.floor - self.unrelated, 0.05) * (1.0 - 0.5 * strength)
        return _sigmoid(_SLOPE * ((cosine - self.unrelated) / span - 1.0))

    def floor_at(self, strength: float) -> float:
        """The cosine that scores 0.5 at this keyword/graph strength."""
        strength = min(1.0, max(0.0, strength))
        return self.unrelated + (self.floor - self.unrelated) * (1.0 - 0.5 * strength)

    @property
    def companion_relevance(self) -> float | None:
        """The companion bar on the calibrated scale (``None``: off)."""
        return None if self.companion is None else self.relevance(self.companion)

    def describe(self) -> str:
        """The scale in one phrase, for explanations."""
        return f"model scale: unrelated {self.unrelated:.2f}, floor {self.floor:.2f}"


def strength_of(coverage: float | None, graph_proximity: float | None) -> float:
    """Keyword/graph strength in [0, 1]: the larger of keyword coverage and graph proximity².

    Graph proximity is 1 for an entity the question names, ½ one hop away, ⅓ two hops away;
    squared, a neighbour lends a quarter of a named entity's strength.

    Example:
        >>> strength_of(0.5, None), strength_of(None, 1.0), round(strength_of(0.1, 0.5), 2)
        (0.5, 1.0, 0.25)
    """
    kw = min(1.0, max(0.0, coverage or 0.0))
    graph = min(1.0, max(0.0, graph_proximity or 0.0)) ** 2
    return max(kw, graph)


def monotone_scores(values: Sequence[float]) -> list[float]:
    """``values`` made non-increasing: each becomes the largest value at or below its rank.

    Example:
        >>> monotone_scores([0.3, 0.8, 0.2, 0.4])
        [0.8, 0.8, 0.4, 0.4]
    """
    out = list(values)
    for i in range(len(out) - 2, -1, -1):
        out[i] = max(out[i], out[i + 1])
    return out


def clip01(value: float) -> float:
    """``value`` clipped to [0, 1]."""
    return min(1.0, max(0.0, value))


def signals(scores: Mapping[str, float]) -> tuple[float | None, float | None]:
    """The dense cosine and the graph proximity among a hit's raw arm scores."""
    return scores.get("dense"), scores.get("graph")
