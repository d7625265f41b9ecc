"""Pure ranking arithmetic: weighted Reciprocal Rank Fusion, time decay, importance boost."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

__all__ = ["RRF_K", "FusedCandidate", "boost_factor", "decay_factor", "fuse", "rank_candidates"]

#: The RRF constant of Cormack et al. (2009).
RRF_K = 60


@dataclass
class FusedCandidate:
    """A candidate id with its fused score and the 1-based rank it got from each arm."""

    id: str
    fused: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)


def fuse(
    rankings: Mapping[str, Sequence[str]], weights: Mapping[str, float], *, k: int = RRF_K
) -> dict[str, FusedCandidate]:
    """Weighted RRF: ``Σ weight_arm / (k + rank_arm)`` over the arms that ranked each id.

    Example:
        >>> out = fuse({"dense": ["a", "b"], "sparse": ["b"]}, {"dense": 1.0, "sparse": 2.0})
        >>> round(out["b"].fused, 6) == round(1 / 62 + 2 / 61, 6)
        True
    """
    out: dict[str, FusedCandidate] = {}
    for arm, ids in rankings.items():
        weight = float(weights.get(arm, 1.0))
        seen: set[str] = set()
        for rank, pid in enumerate(ids, start=1):
            if pid in seen:
                continue
            seen.add(pid)
            cand = out.setdefault(pid, FusedCandidate(pid))
            cand.fused += weight / (k + rank)
            cand.ranks[arm] = rank
    return out


def decay_factor(last_ts: float | None, now: datetime, halflife_days: float) -> float:
    """``exp(−λ·days)`` since ``last_ts`` (epoch seconds), ``λ = ln 2 / halflife``.

    A timestamp in the future of ``now`` counts as age 0 (factor 1).
    """
    if last_ts is None:
        return 1.0
    days = max(0.0, (now.timestamp() - last_ts) / 86400.0)
    return math.exp(-(math.log(2) / halflife_days) * days)


def boost_factor(importance: float) -> float:
    """``0.5 + importance``: from 0.5× for trivia to 1.5× for critical memories."""
    return 0.5 + importance


def rank_candidates(
    fused: Mapping[str, FusedCandidate],
    payloads: Mapping[str, Mapping[str, Any]],
    *,
    now: datetime,
    halflife_days: float,
    k: int,
    decay_mode: str = "score",
    recency_weight: float = 0.1,
) -> list[tuple[FusedCandidate, float, float, float]]:
    """Apply decay and boost, re-sort and keep the top ``k``.

    Decay runs on ``last_accessed`` (which starts at ``created_at``): a recall restarts the
    forgetting clock, as in the seed's Ebbinghaus curve. Ties break by id for determinism.

    ``decay_mode``:

    - ``"score"`` (the seed): ``fused × decay × (0.5 + importance)``.
    - ``"blend"``: ``fused × (1 − w + w × decay) × (0.5 + importance)``: recency can take at
      most ``w`` (``recency_weight``) of the score, so an old but relevant memory stays
      reachable (the additive recency of Park et al.'s generative agents).
    - ``"importance"``: the forgetting curve acts on importance, as the seed's prune pass
      does: ``fused × (0.5 + importance × decay)``. Relevance keeps at least half its weight
      however old the memory is.
    - ``"off"``: ``fused × (0.5 + importance)``.

    Returns:
        ``(candidate, score, decay, boost)`` tuples, best first.
    """
    scored = []
    for pid, cand in fused.items():
        payload = payloads.get(pid)
        if payload is None:
            continue
        ts = payload.get("last_accessed_ts", payload.get("created_ts"))
        decay = decay_factor(float(ts) if ts is not None else None, now, halflife_days)
        importance = float(payload.get("importance", 0.5))
        if decay_mode == "blend":
            decay = 1.0 - recency_weight + recency_weight * decay
            boost = boost_factor(importance)
            score = cand.fused * decay * boost
        elif decay_mode == "importance":
            boost = boost_factor(importance * decay)
            score = cand.fused * boost
        elif decay_mode == "off":
            decay, boost = 1.0, boost_factor(importance)
            score = cand.fused * boost
        else:
            boost = boost_factor(importance)
            score = cand.fused * decay * boost
        scored.append((cand, score, decay, boost))
    scored.sort(key=lambda t: (-t[1], t[0].id))
    return scored[:k]
