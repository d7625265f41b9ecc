"""The recall plan shared by the sync and async faces: filters, arms, fusion, hits."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from qdrant_client.http import models

from langgraph_prax_memory.models import Memory, MemoryHit
from langgraph_prax_memory.retrieval._fusion import (
    RRF_K,
    FusedCandidate,
    fuse,
    fuse_evidence,
    rank_candidates,
)
from langgraph_prax_memory.vectors import NS_SEP, StoredPoint, unexpired, user_filter

__all__ = [
    "HISTORY_FIELD",
    "LTM_ROOT",
    "RecallResult",
    "assemble_hits",
    "ltm_filter",
    "ltm_namespace",
    "mark_companions",
    "relevance",
    "validity_filter",
]

#: Namespace root of long-term memories: ``("memories", user_id)``.
LTM_ROOT = "memories"


#: Payload field (epoch seconds) set on a memory whose fact was superseded; absent while current.
HISTORY_FIELD = "valid_until_ts"


def validity_filter(
    flt: models.Filter,
    *,
    include_history: bool = False,
    as_of: datetime | None = None,
) -> models.Filter:
    """``flt`` narrowed to the memories that were current (the engine applies it on every arm).

    * default: memories never superseded (no ``valid_until``): what is true now;
    * ``as_of``: memories that existed at that moment and were not yet superseded then
      (``created_ts <= as_of`` and no ``valid_until`` at or before it);
    * ``include_history=True``: no narrowing (superseded memories come back, marked).

    Example:
        >>> from langgraph_prax_memory.vectors._plan import user_filter
        >>> f = validity_filter(user_filter("alice"))
        >>> [type(c).__name__ for c in f.must]
        ['FieldCondition', 'IsEmptyCondition']
    """
    if include_history and as_of is None:
        return flt
    must = list(flt.must or []) if isinstance(flt.must, list) else [flt.must] if flt.must else []
    must_not = (
        list(flt.must_not or [])
        if isinstance(flt.must_not, list)
        else [flt.must_not]
        if flt.must_not
        else []
    )
    if as_of is None:
        must.append(models.IsEmptyCondition(is_empty=models.PayloadField(key=HISTORY_FIELD)))
    else:
        ts = as_of.timestamp()
        must.append(models.FieldCondition(key="created_ts", range=models.Range(lte=ts)))
        must_not.append(models.FieldCondition(key=HISTORY_FIELD, range=models.Range(lte=ts)))
    return models.Filter(must=must, must_not=must_not or None, should=flt.should)


def ltm_namespace(user_id: str) -> tuple[str, str]:
    """The store namespace of a user's long-term memories."""
    return (LTM_ROOT, user_id)


def ltm_filter(
    user_id: str,
    *,
    tags: Sequence[str] | None = None,
    sources: Sequence[str] | None = None,
    hashes: Sequence[str] | None = None,
) -> models.Filter:
    """Points of ``user_id`` under ``("memories", user_id)`` (optionally by tag / source).

    Items past a TTL the store gave them are left out at once (:func:`unexpired`).
    """
    extra: list[models.Condition] = [
        models.FieldCondition(
            key="ns_prefixes",
            match=models.MatchValue(value=NS_SEP.join(ltm_namespace(user_id))),
        ),
        unexpired(time.time()),
    ]
    if tags:
        extra.append(models.FieldCondition(key="tags", match=models.MatchAny(any=list(tags))))
    if sources:
        extra.append(models.FieldCondition(key="source", match=models.MatchAny(any=list(sources))))
    if hashes:
        extra.append(
            models.FieldCondition(key="content_hash", match=models.MatchAny(any=list(hashes)))
        )
    return user_filter(user_id, *extra)


@dataclass
class RecallResult:
    """Hits plus diagnostics: which arms ran, how many candidates each gave, what failed."""

    hits: list[MemoryHit]
    arms: dict[str, int] = field(default_factory=dict)
    """Candidates each arm that ran returned."""
    errors: dict[str, str] = field(default_factory=dict)
    """Arms that failed (backend down, embedding provider down) and why."""
    weights: dict[str, float] = field(default_factory=dict)
    intent: str = "neutral"
    elapsed_ms: float = 0.0
    points: dict[str, StoredPoint] = field(default_factory=dict, repr=False)
    """The stored point (full payload) of each hit, by id."""


def relevance(
    cand: FusedCandidate, min_cosine: float, unrelated_cosine: float = 0.0
) -> tuple[bool, str]:
    """Whether a fused candidate passes the relevance floor, and why.

    Relevant when its dense cosine reaches ``min_cosine``, or when the keyword or graph arm
    points at it strongly (evidence ≥ 0.5) and its cosine reaches halfway from
    ``unrelated_cosine`` (the model's cosine for unrelated texts, 0 for MiniLM) to
    ``min_cosine`` (an exact name or identifier whose sentence is otherwise unlike the
    question). A memory
    without a dense score (dense arm down, or not in its list) passes on strong keyword or
    graph evidence alone.

    Example:
        >>> relevance(FusedCandidate("a", scores={"dense": 0.12}, evidence={"dense": 1.0}), 0.3)
        (False, 'cosine 0.12 < 0.30, no strong keyword or graph match')
    """
    cosine = cand.scores.get("dense")
    halfway = unrelated_cosine + (min_cosine - unrelated_cosine) / 2
    if cosine is not None and cosine >= min_cosine:
        return True, f"cosine {cosine:.2f} ≥ {min_cosine:.2f}"
    for arm, label in (("sparse", "keyword"), ("graph", "graph")):
        ev = cand.evidence.get(arm, 0.0)
        if ev >= 0.5 and (cosine is None or cosine >= halfway):
            shown = "no cosine" if cosine is None else f"cosine {cosine:.2f}"
            return True, f"{label} evidence {ev:.2f} ({shown})"
    shown = "no cosine" if cosine is None else f"cosine {cosine:.2f} < {min_cosine:.2f}"
    return False, f"{shown}, no strong keyword or graph match"


def mark_companions(hits: Sequence[MemoryHit], companion_cosine: float | None) -> list[MemoryHit]:
    """Keep the hits related to a relevant one: the floor's second, lower bar.

    The floor decides *whether* memories are injected on the strongest evidence: at least
    one hit must pass :func:`relevance`. Once one has, the other returned hits whose dense
    cosine reaches ``companion_cosine`` (above what unrelated sentences score) are relevant
    too: the question is about the user, and a paraphrase the model scores a little under
    ``min_cosine`` still belongs beside it. An off-topic question opens nothing, so it still
    injects nothing. ``None`` turns the second bar off.

    Example:
        >>> from datetime import UTC, datetime
        >>> at = datetime(2026, 1, 1, tzinfo=UTC)
        >>> def hit(key, cos, ok):
        ...     memory = Memory(id=key, user_id="u", content=key, created_at=at, last_accessed=at)
        ...     return MemoryHit(memory=memory, score=cos, fused=cos, decay=1.0, boost=1.0,
        ...                      scores={"dense": cos}, relevant=ok)
        >>> out = mark_companions([hit("a", 0.36, True), hit("b", 0.27, False)], 0.2)
        >>> [h.relevant for h in out], out[1].why
        ([True, True], 'cosine 0.27 ≥ 0.20 beside a relevant hit')
        >>> [h.relevant for h in mark_companions([hit("b", 0.27, False)], 0.2)]
        [False]
    """
    if companion_cosine is None or not any(h.relevant for h in hits):
        return list(hits)
    out = []
    for h in hits:
        cosine = h.scores.get("dense")
        if not h.relevant and cosine is not None and cosine >= companion_cosine:
            why = f"cosine {cosine:.2f} ≥ {companion_cosine:.2f} beside a relevant hit"
            h = h.model_copy(update={"relevant": True, "why": why})
        out.append(h)
    return out


def assemble_hits(
    arm_results: Mapping[str, Sequence[StoredPoint]],
    weights: Mapping[str, float],
    *,
    now: datetime,
    halflife_days: float,
    k: int,
    rrf_k: int = RRF_K,
    decay_mode: str = "score",
    recency_weight: float = 0.1,
    fusion: str = "rrf",
    importance_weight: float | None = None,
    evidence_spread: float = 0.5,
    unrelated_cosine: float = 0.0,
    depth: int | None = None,
    min_cosine: float | None = None,
    coverage: Mapping[str, float] | None = None,
) -> list[MemoryHit]:
    """Fuse the arms, apply decay and boost, and build explainable hits.

    ``fusion`` is ``"evidence"`` (score-aware, the product default) or ``"rrf"``; ``depth``
    is how many candidates each arm was asked for (a list that long was cut);
    ``min_cosine`` marks each hit relevant or not (``None``: all relevant); ``coverage``
    scales the keyword arm's evidence per memory (:func:`keyword_coverage`);
    ``unrelated_cosine`` is where the dense arm's evidence starts (the model's cosine for
    unrelated texts).
    """
    payloads: dict[str, dict[str, Any]] = {}
    rankings: dict[str, list[str]] = {}
    arm_scores: dict[str, dict[str, float]] = {}
    for arm, points in arm_results.items():
        rankings[arm] = [p.id for p in points]
        scores = arm_scores.setdefault(arm, {})
        for p in points:
            payloads.setdefault(p.id, p.payload)
            if p.id not in scores:
                scores[p.id] = float(p.score) if p.score is not None else 0.0
    full = {arm: depth is not None and len(pts) >= depth for arm, pts in arm_results.items()}
    scale = {"sparse": coverage} if coverage is not None else None
    fused = fuse_evidence(
        arm_scores,
        weights,
        full=full,
        spread=evidence_spread,
        scale=scale,
        origin={"dense": unrelated_cosine},
    )
    iw = 0.1 if importance_weight is None else importance_weight
    if fusion == "rrf":  # ranks decide; raw scores and evidence stay for the floor and explain
        by_evidence = fused
        fused = fuse(rankings, weights, k=rrf_k)
        for pid, cand in fused.items():
            cand.scores = by_evidence[pid].scores
            cand.evidence = by_evidence[pid].evidence
        iw = 1.0 if importance_weight is None else importance_weight
    ranked = rank_candidates(
        fused,
        payloads,
        now=now,
        halflife_days=halflife_days,
        k=k,
        decay_mode=decay_mode,
        recency_weight=recency_weight,
        importance_weight=iw,
        additive=fusion == "evidence",
    )
    hits = []
    for cand, score, decay, boost in ranked:
        relevant, why = (
            (True, "") if min_cosine is None else relevance(cand, min_cosine, unrelated_cosine)
        )
        hits.append(
            MemoryHit(
                memory=Memory.from_payload(cand.id, payloads[cand.id]),
                score=score,
                fused=cand.fused,
                decay=decay,
                boost=boost,
                ranks=dict(cand.ranks),
                weights={arm: float(weights.get(arm, 1.0)) for arm in cand.ranks},
                scores=dict(cand.scores),
                evidence=dict(cand.evidence),
                relevant=relevant,
                why=why,
                fusion=fusion,
                recency=(cand.fused + boost - score) if fusion == "evidence" else 0.0,
            )
        )
    return hits
