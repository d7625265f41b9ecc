"""Pure ranking arithmetic: score-aware fusion (default) or weighted RRF, decay, importance.

**Evidence fusion** (the default, ``RetrievalConfig.fusion="evidence"``). Each arm's raw
scores (cosine, TF-IDF, graph proximity) become *evidence* in [0, 1]: how far a candidate
stands above the lowest score in the candidate pool, relative to the arm's top score. An
arm whose scores are flat over the pool — three memories that share only the word "user"
with the query — gives every candidate the same (near-zero) evidence, so it cannot reorder
what a confident arm ranked; rank-only RRF turns the same flat list into ranks 1, 2, 3 and
lets that noise outvote the confident arm. The fused relevance is the weighted mean of the
arms' evidence. Importance and recency are then *added* as bounded terms (±0.05 and at most
−0.1 by default), so they break near-ties but can never overturn a relevance gap larger than
their sum.

**RRF** (``fusion="rrf"``, the seed's formula) is kept: ``Σ weight / (k + rank)``.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

__all__ = [
    "RRF_K",
    "FusedCandidate",
    "arm_evidence",
    "boost_factor",
    "decay_factor",
    "fuse",
    "fuse_evidence",
    "keyword_coverage",
    "keyword_pair_coverage",
    "rank_candidates",
]

#: The RRF constant of Cormack et al. (2009).
RRF_K = 60
#: Weight of the raw-score tie-break among candidates without evidence.
_TIE = 1e-3


@dataclass
class FusedCandidate:
    """A candidate id with its fused score and the 1-based rank it got from each arm."""

    id: str
    fused: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)
    """Raw score per arm that found it (evidence fusion only)."""
    evidence: dict[str, float] = field(default_factory=dict)
    """Evidence in [0, 1] per arm that found it (evidence fusion only)."""


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


def arm_evidence(
    scores: Mapping[str, float],
    pool: Sequence[str],
    *,
    missing: float = 0.0,
    spread: float = 0.5,
) -> dict[str, float]:
    """How strongly one arm points at each of its candidates, in [0, 1].

    ``(score − low) / max(top − low, spread × top)``, clipped to [0, 1], where ``low`` is the
    lowest score over the whole candidate ``pool`` (candidates this arm did not return count
    as ``missing``: 0 when the arm returned everything that matched, its lowest score when
    its list was cut). A flat arm gives everyone ~0; a lone strong match gets 1; the
    ``spread`` floor keeps tiny differences between near-equal scores tiny.

    Example:
        >>> flat = arm_evidence({"a": 0.13, "b": 0.13, "c": 0.13}, ["a", "b", "c"])
        >>> sorted(flat.values())
        [0.0, 0.0, 0.0]
        >>> arm_evidence({"a": 0.42, "b": 0.14, "c": 0.07}, ["a", "b", "c"])["a"]
        1.0
    """
    if not scores:
        return {}
    top = max(scores.values())
    if not math.isfinite(top) or top <= 0:
        return {pid: 0.0 for pid in scores}
    low = min([scores.get(pid, missing) for pid in pool] or [missing])
    low = max(low, 0.0) if top > 0 else low
    denom = max(top - low, spread * top)
    return {pid: min(1.0, max(0.0, (s - low) / denom)) for pid, s in scores.items()}


def fuse_evidence(
    arm_scores: Mapping[str, Mapping[str, float]],
    weights: Mapping[str, float],
    *,
    full: Mapping[str, bool] | None = None,
    spread: float = 0.5,
    scale: Mapping[str, Mapping[str, float]] | None = None,
    origin: Mapping[str, float] | None = None,
) -> dict[str, FusedCandidate]:
    """Fuse arms by their evidence: ``Σ weight × evidence / Σ weight`` over the arms that ran.

    ``scale[arm][id]`` (in [0, 1]) multiplies an arm's evidence for one candidate: the
    keyword arm's evidence is scaled by how much of the question the memory covers (see
    :func:`keyword_coverage`), so one incidental shared word is weak evidence however high
    it ranks in that arm.

    ``origin[arm]`` is the score that arm gives unrelated items (the dense arm: the cosine
    the embedding model gives unrelated texts, 0 for all-MiniLM-L6-v2): evidence is measured
    from it, so a model whose cosines all sit high (e5's unrelated pairs score about 0.73) is
    not read as a flat arm.

    ``arm_scores`` maps each arm to ``{id: raw score}`` (best first or not); ``full[arm]``
    says the arm's list was cut at its depth (so unseen candidates score at most its lowest).
    Every arm that returned candidates counts in the denominator, so a candidate only one arm
    found is not inflated. Candidates with no evidence at all (below every arm's typical
    score) keep the order of their raw scores through a tie-break term a thousand times
    smaller than any evidence. Ranks are recorded for the explanation.

    Example:
        >>> out = fuse_evidence(
        ...     {"dense": {"a": 0.42, "b": 0.14, "c": 0.07}, "sparse": {"a": .1, "b": .1, "c": .1}},
        ...     {"dense": 1.0, "sparse": 1.0},
        ... )
        >>> max(out, key=lambda pid: out[pid].fused)
        'a'
    """
    pool = list(dict.fromkeys(pid for scores in arm_scores.values() for pid in scores))
    out: dict[str, FusedCandidate] = {pid: FusedCandidate(pid) for pid in pool}
    total = sum(float(weights.get(arm, 1.0)) for arm, sc in arm_scores.items() if sc) or 1.0
    for arm, scores in arm_scores.items():
        if not scores:
            continue
        weight = float(weights.get(arm, 1.0))
        cut = bool((full or {}).get(arm))
        zero = float((origin or {}).get(arm, 0.0))
        shifted = {pid: v - zero for pid, v in scores.items()} if zero else scores
        missing = min(shifted.values()) if cut else 0.0
        ev = arm_evidence(shifted, pool, missing=missing, spread=spread)
        top = max(scores.values())
        ranked = sorted(scores, key=lambda pid: -scores[pid])
        factors = (scale or {}).get(arm) or {}
        for rank, pid in enumerate(ranked, start=1):
            cand = out[pid]
            if pid in factors:
                ev[pid] *= min(1.0, max(0.0, factors[pid]))
            cand.ranks[arm] = rank
            cand.scores[arm] = float(scores[pid])
            cand.evidence[arm] = ev[pid]
            tie = max(0.0, scores[pid] / top) if top > 0 else 0.0
            cand.fused += weight * (ev[pid] + _TIE * tie) / total
    return out


def keyword_coverage(
    query_terms: Collection[str], doc_terms: Collection[str], *, full: float = 1.0
) -> float:
    """How much of the question a memory's words cover, as a factor in [0, 1].

    The share of the query's distinct terms (stop words removed, stemmed as the sparse
    encoder does) that the memory contains, divided by ``full`` (1: the keyword arm's evidence
    counts in proportion to how much of the question the memory explains; one incidental
    shared word out of five counts a fifth).

    Example:
        >>> keyword_coverage({"packag", "import", "tabular", "analysi", "notebook"}, {"notebook"})
        0.2
        >>> keyword_coverage({"dark", "mode"}, {"dark", "mode", "prefer"})
        1.0
    """
    terms = set(query_terms)
    if not terms:
        return 1.0
    share = len(terms & set(doc_terms)) / len(terms)
    return min(1.0, share / full)


def keyword_pair_coverage(query_terms: Collection[str], doc_terms: Collection[str]) -> float:
    """How many of the question's *word pairs* a memory holds both words of, in [0, 1].

    With ``n`` distinct query terms of which the memory contains ``m``:
    ``m (m − 1) / (n (n − 1))``, the share of the question's unordered pairs of distinct terms
    found together in the memory (a one-term question: 1 when the memory holds the term).
    One shared word is no pair: memories about the same person and topic share single words
    by chance ("home", "milk", "plans"), so one word says a memory is *about* part of the
    question, not that it *answers* it; two of the question's words together are specific.
    Recall uses it to decide the first place (see ``assemble_hits``), the plain share
    (:func:`keyword_coverage`) for the rest of the list. No constant is involved.

    Example:
        >>> keyword_pair_coverage({"neighbourhood", "home"}, {"home", "tram"})
        0.0
        >>> round(keyword_pair_coverage({"tom", "son", "old"}, {"tom", "son", "seven"}), 3)
        0.333
        >>> keyword_pair_coverage({"dark", "mode"}, {"dark", "mode"})
        1.0
        >>> keyword_pair_coverage({"espresso"}, {"espresso", "bar"})
        1.0
    """
    terms = set(query_terms)
    n = len(terms)
    if n == 0:
        return 1.0
    m = len(terms & set(doc_terms))
    if n == 1:
        return float(m)
    return m * (m - 1) / (n * (n - 1))


def decay_factor(last_ts: float | None, now: datetime, halflife_days: float) -> float:
    """``exp(−λ·days)`` since ``last_ts`` (epoch seconds), ``λ = ln 2 / halflife``.

    A timestamp in the future of ``now`` counts as age 0 (factor 1).
    """
    if last_ts is None:
        return 1.0
    days = max(0.0, (now.timestamp() - last_ts) / 86400.0)
    return math.exp(-(math.log(2) / halflife_days) * days)


def boost_factor(importance: float, weight: float = 1.0) -> float:
    """``1 + weight × (importance − 0.5)``; ``weight`` 1 is the seed's ``0.5 + importance``.

    (Evidence fusion does not multiply: it adds ``importance_weight × (importance − 0.5)``,
    see :func:`rank_candidates`.)
    """
    return 1.0 + weight * (importance - 0.5)


def rank_candidates(
    fused: Mapping[str, FusedCandidate],
    payloads: Mapping[str, Mapping[str, Any]],
    *,
    now: datetime,
    halflife_days: float,
    k: int,
    decay_mode: str = "score",
    recency_weight: float = 0.1,
    importance_weight: float = 1.0,
    additive: bool = False,
) -> list[tuple[FusedCandidate, float, float, float]]:
    """Apply decay and boost, re-sort and keep the top ``k``.

    Decay runs on ``last_accessed`` (which starts at ``created_at``): a recall restarts the
    forgetting clock, as in the seed's Ebbinghaus curve. Ties break by id for determinism.

    ``decay_mode``:

    ``boost`` is ``1 + importance_weight × (importance − 0.5)`` (the seed's ``0.5 +
    importance`` with weight 1).

    - ``"score"`` (the seed): ``fused × decay × (0.5 + importance)``.
    - ``"blend"``: ``fused × (1 − w + w × decay) × (0.5 + importance)``: recency can take at
      most ``w`` (``recency_weight``) of the score, so an old but relevant memory stays
      reachable (the additive recency of Park et al.'s generative agents).
    - ``"importance"``: the forgetting curve acts on importance, as the seed's prune pass
      does: ``fused × (0.5 + importance × decay)``. Relevance keeps at least half its weight
      however old the memory is.
    - ``"off"``: ``fused × (0.5 + importance)``.

    ``additive`` (evidence fusion): ``fused + importance_weight × (importance − 0.5) +
    recency_weight × (decay − 1)``, with ``decay`` the forgetting curve (``decay_mode``
    ``"off"`` drops the recency term). The bounded terms break near-ties and can never
    overturn a relevance gap larger than ``importance_weight / 2 + recency_weight``. The
    returned ``boost`` is then the importance term and ``decay`` the curve's factor.

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
        iw = importance_weight
        if additive:
            if decay_mode == "off":
                decay = 1.0
            boost = iw * (importance - 0.5)
            score = cand.fused + boost + recency_weight * (decay - 1.0)
        elif decay_mode == "blend":
            decay = 1.0 - recency_weight + recency_weight * decay
            boost = boost_factor(importance, iw)
            score = cand.fused * decay * boost
        elif decay_mode == "importance":
            boost = boost_factor(importance * decay, iw)
            score = cand.fused * boost
        elif decay_mode == "off":
            decay, boost = 1.0, boost_factor(importance, iw)
            score = cand.fused * boost
        else:
            boost = boost_factor(importance, iw)
            score = cand.fused * decay * boost
        scored.append((cand, score, decay, boost))
    scored.sort(key=lambda t: (-t[1], t[0].id))
    return scored[:k]
