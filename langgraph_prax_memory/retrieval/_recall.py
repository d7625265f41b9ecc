"""The recall plan shared by the sync and async faces: filters, arms, fusion, hits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from qdrant_client import models

from langgraph_prax_memory.models import Memory, MemoryHit
from langgraph_prax_memory.retrieval._fusion import RRF_K, fuse, rank_candidates
from langgraph_prax_memory.vectors._payload import NS_SEP
from langgraph_prax_memory.vectors._plan import StoredPoint, user_filter

__all__ = ["LTM_ROOT", "RecallResult", "assemble_hits", "ltm_filter", "ltm_namespace"]

#: Namespace root of long-term memories: ``("memories", user_id)``.
LTM_ROOT = "memories"


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
    """Points of ``user_id`` under ``("memories", user_id)`` (optionally by tag / source)."""
    extra: list[models.Condition] = [
        models.FieldCondition(
            key="ns_prefixes",
            match=models.MatchValue(value=NS_SEP.join(ltm_namespace(user_id))),
        )
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
) -> list[MemoryHit]:
    """Fuse the arms' rankings, apply decay and boost, and build explainable hits."""
    payloads: dict[str, dict[str, Any]] = {}
    rankings: dict[str, list[str]] = {}
    for arm, points in arm_results.items():
        rankings[arm] = [p.id for p in points]
        for p in points:
            payloads.setdefault(p.id, p.payload)
    fused = fuse(rankings, weights, k=rrf_k)
    ranked = rank_candidates(
        fused,
        payloads,
        now=now,
        halflife_days=halflife_days,
        k=k,
        decay_mode=decay_mode,
        recency_weight=recency_weight,
    )
    return [
        MemoryHit(
            memory=Memory.from_payload(cand.id, payloads[cand.id]),
            score=score,
            fused=cand.fused,
            decay=decay,
            boost=boost,
            ranks=dict(cand.ranks),
            weights={arm: float(weights.get(arm, 1.0)) for arm in cand.ranks},
        )
        for cand, score, decay, boost in ranked
    ]
