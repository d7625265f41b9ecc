"""The recall plan shared by the sync and async faces: filters, arms, fusion, hits."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from qdrant_client.http import models

from langgraph_prax_memory.models import Memory, MemoryHit
from langgraph_prax_memory.retrieval._calibration import (
    FLOOR,
    CosineScale,
    monotone_scores,
    strength_of,
)
from langgraph_prax_memory.retrieval._fusion import (
    RRF_K,
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
    "calibrate_hits",
    "ltm_filter",
    "ltm_namespace",
    "is_standing",
    "profile_filter",
    "calibrated",
    "validity_filter",
]

#: Namespace root of long-term memories: ``("memories", user_id)``.
LTM_ROOT = "memories"


#: The relevance a memory about another named person than the one asked about is held at.
OFF_SUBJECT_RELEVANCE = 0.2

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


def is_standing(memory: Memory, *, tags: Sequence[str], min_importance: float) -> bool:
    """Whether ``memory`` is a standing fact (what :func:`profile_filter` selects).

    A memory classified when it was written is one when its class says so (the caller's tags
    and importance were weighed then); an older one when it has a profile tag or at least
    ``min_importance``.

    Example:
        >>> from datetime import UTC, datetime
        >>> at = datetime(2026, 1, 1, tzinfo=UTC)
        >>> m = Memory(id="1", user_id="u", content="x", created_at=at, last_accessed=at,
        ...            tags=["Preference"])
        >>> is_standing(m, tags=["preference"], min_importance=0.8)
        True
    """
    if memory.fact_class is not None:  # classified when written (tags and importance included)
        return memory.fact_class == "standing"
    wanted = {t.lower() for t in tags}
    return memory.importance >= min_importance or any(t.lower() in wanted for t in memory.tags)


def profile_filter(user_id: str, *, tags: Sequence[str], min_importance: float) -> models.Filter:
    """The user's standing facts: memories classified standing.

    A memory written before classes existed counts with a profile tag or high importance.

    Example:
        >>> f = profile_filter("alice", tags=["preference"], min_importance=0.8)
        >>> [type(c).__name__ for c in f.should]
        ['FieldCondition', 'Filter']
    """
    base = ltm_filter(user_id)
    legacy: list[models.Condition] = [
        models.FieldCondition(key="importance", range=models.Range(gte=min_importance)),
    ]
    if tags:
        legacy.insert(0, models.FieldCondition(key="tags", match=models.MatchAny(any=list(tags))))
    should: list[models.Condition] = [
        models.FieldCondition(key="fact_class", match=models.MatchValue(value="standing")),
        # a memory written before classes existed (until the upgrade classifies it)
        models.Filter(
            must=[models.IsEmptyCondition(is_empty=models.PayloadField(key="fact_class"))],
            should=legacy,
        ),
    ]
    return models.Filter(must=base.must, must_not=base.must_not, should=should)


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
    shared_names: list[str] = field(default_factory=list)
    """Names most of the user's memories hold, left out of the question's meaning (the dense
    and graph arms read it without them; see ``retrieval._evidence``)."""


def calibrated(
    scores: Mapping[str, float],
    coverage: float | None,
    scale: CosineScale,
    hubness: float = 0.0,
) -> tuple[float, str]:
    """A hit's calibrated relevance in [0, 1] from its raw arm scores, and how it was reached.

    The dense cosine on the model's scale, its bar lowered by keyword coverage (the share of
    the question's content words the memory holds) or graph proximity (see
    :class:`~langgraph_prax_memory.retrieval._calibration.CosineScale`). ``hubness`` (the
    memory's pull on every question, :class:`~langgraph_prax_memory.embeddings.Hubness`) is
    taken from the cosine first.

    Example:
        >>> scale = CosineScale(unrelated=0.0, floor=0.3)
        >>> value, how = calibrated({"dense": 0.12}, None, scale)
        >>> round(value, 2), how
        (0.15, 'cosine 0.12 on the model scale: unrelated 0.00, floor 0.30')
    """
    cosine = scores.get("dense")
    strength = strength_of(coverage, scores.get("graph"))
    value = scale.relevance(None if cosine is None else cosine - hubness, strength)
    shown = "no cosine" if cosine is None else f"cosine {cosine:.2f}"
    if cosine is not None and hubness:
        shown += f", hubness-corrected {cosine - hubness:.2f}"
    how = f"{shown} on the {scale.describe()}"
    if strength > 0:
        what = (
            "keyword coverage"
            if (coverage or 0.0) >= (scores.get("graph") or 0.0) ** 2
            else ("graph match")
        )
        how += f"; {what} {strength:.2f} lowers the bar to {scale.floor_at(strength):.2f}"
    return value, how


def calibrate_hits(
    hits: Sequence[MemoryHit],
    scale: CosineScale,
    standing: Callable[[Memory], bool] | None = None,
) -> list[MemoryHit]:
    """Final scores and floor decisions for hits in their final order.

    Scores become non-increasing in the given order (each hit's score is the largest own
    relevance at or below its rank), so a threshold cuts the ranked list in one place. A hit
    is relevant when its score reaches 0.5; once one is, the hits whose dense cosine reaches
    the companion bar are kept beside it (an off-topic question opens nothing, so it still
    injects nothing). With ``standing`` (is this memory one of the user's standing facts?),
    a standing fact may join any relevant hit, an episode only a relevant episode.

    Example:
        >>> from datetime import UTC, datetime
        >>> at = datetime(2026, 1, 1, tzinfo=UTC)
        >>> def hit(key, cos):
        ...     memory = Memory(id=key, user_id="u", content=key, created_at=at, last_accessed=at)
        ...     own = CosineScale().relevance(cos)
        ...     return MemoryHit(memory=memory, score=own, relevance=own, fused=cos, decay=1.0,
        ...                      boost=0.0, scores={"dense": cos})
        >>> out = calibrate_hits([hit("a", 0.36), hit("b", 0.27), hit("c", 0.05)], CosineScale())
        >>> [h.relevant for h in out], out[1].why
        ([True, True, False], 'cosine 0.27 ≥ 0.20 beside a relevant hit')
        >>> [h.relevant for h in calibrate_hits([hit("b", 0.27)], CosineScale())]
        [False]
    """
    own = [h.score if h.relevance is None else h.relevance for h in hits]
    lifted = monotone_scores(own)
    out = []
    for h, value, mine in zip(hits, lifted, own, strict=True):
        ok = value >= FLOOR
        if ok and mine >= FLOOR:
            why = f"relevance {mine:.2f} ≥ {FLOOR:.2f}"
        elif ok:
            why = f"ranked above a hit of relevance {value:.2f} ≥ {FLOOR:.2f}"
        else:
            why = f"relevance {value:.2f} < {FLOOR:.2f}"
        out.append(h.model_copy(update={"score": value, "relevant": ok, "why": why}))
    if scale.companion is None or not any(h.relevant for h in out):
        return out
    # an episode joins only an episode that passed on its own: a standing fact that matches
    # an off-topic question ("a riddle about a clock" -> "hates mornings") opens no episodes
    episode_opened = standing is None or any(h.relevant and not standing(h.memory) for h in out)
    final = []
    for h in out:
        cosine = h.scores.get("dense")
        if cosine is not None:
            cosine -= h.hubness
        eligible = episode_opened or (standing is not None and standing(h.memory))
        if (
            not h.relevant
            and eligible
            and h.off_subject is None
            and cosine is not None
            and cosine >= scale.companion
        ):
            what = "hubness-corrected cosine" if h.hubness else "cosine"
            why = f"{what} {cosine:.2f} ≥ {scale.companion:.2f} beside a relevant hit"
            h = h.model_copy(update={"relevant": True, "why": why})
        final.append(h)
    return final


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
    companion_cosine: float | None = None,
    head_coverage: Mapping[str, float] | None = None,
    hubness: Mapping[str, float] | None = None,
    calibration: CosineScale | None = None,
    calibrated_ids: Collection[str] = (),
    off_subject: Mapping[str, str] | None = None,
) -> list[MemoryHit]:
    """Fuse the arms, apply decay and boost, and build explainable hits.

    ``fusion`` is ``"evidence"`` (score-aware, the product default) or ``"rrf"``; ``depth``
    is how many candidates each arm was asked for (a list that long was cut);
    ``min_cosine`` is the floor's cosine (``None``: 0.3); ``coverage``
    scales the keyword arm's evidence per memory (:func:`keyword_coverage`);
    ``unrelated_cosine`` is where the dense arm's evidence starts (the model's cosine for
    unrelated texts). Each hit's ``score`` is its calibrated relevance on the model's scale
    (:mod:`._calibration`), ``rank_score`` the ranker's score; :func:`calibrate_hits` then
    makes the scores non-increasing and applies the floor (call it after any reordering).

    ``head_coverage`` (evidence fusion; :func:`keyword_pair_coverage`) decides the *first
    place*: the candidates are fused a second time with the keyword evidence scaled by it
    instead of ``coverage``, and that ranking's winner is put first; the rest of the list
    keeps the order of ``coverage``. The plain share of the question's words is the right
    evidence for filling a list (a memory about part of the question belongs in it); the
    first place claims the memory *answers* the question, and one word shared with a
    same-topic memory says nothing about that, so there the keyword arm counts only pairs of
    the question's words found together. The pairs' winner takes the first place only when
    its dense cosine reaches the relevance floor (``min_cosine``): without the dense arm's
    word for it, a memory has nothing left to claim the first place with.

    ``hubness`` (memory id → its pull on every question, see
    :class:`~langgraph_prax_memory.embeddings.Hubness`) is taken from the dense cosine where
    relevance is decided (each hit's relevance and :func:`calibrate_hits`' companion bar);
    the ranking, that first-place check included, reads the raw cosine. ``calibration``: the
    scale the relevance of the memories in ``calibrated_ids`` is read on instead of the
    model's (``unrelated_cosine``, ``min_cosine``, ``companion_cosine``), without hubness:
    the scale of partial cosines, for the memories that hold the name most of the user's
    memories hold (its direction taken out of their cosines); the ranking is not changed.

    ``off_subject`` (memory id → why): memories about another named person than the one the
    question asks about (:func:`~langgraph_prax_memory.retrieval._evidence.off_subject`).
    They are no match for the question: ranked after the others, their relevance held at
    :data:`OFF_SUBJECT_RELEVANCE` (under the floor), and never companions.
    """
    hub = hubness or {}
    off = off_subject or {}
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
        # memories about someone else go after the others before the list is cut to k
        k=len(fused) if off else k,
        decay_mode=decay_mode,
        recency_weight=recency_weight,
        importance_weight=iw,
        additive=fusion == "evidence",
    )
    head_note = ""
    if head_coverage is not None and fusion == "evidence" and ranked:
        by_pairs = fuse_evidence(
            arm_scores,
            weights,
            full=full,
            spread=evidence_spread,
            scale={"sparse": head_coverage},
            origin={"dense": unrelated_cosine},
        )
        head = rank_candidates(
            by_pairs,
            payloads,
            now=now,
            halflife_days=halflife_days,
            k=1,
            decay_mode=decay_mode,
            recency_weight=recency_weight,
            importance_weight=iw,
            additive=True,
        )
        floor = (
            calibration.floor
            if calibration is not None and head and head[0][0].id in calibrated_ids
            else (min_cosine if min_cosine is not None else 0.3)
        )
        if (
            head
            and head[0][0].id != ranked[0][0].id
            # the dense arm must vouch for the new first: a memory below the relevance floor
            # whose keyword pairs are no better cannot claim to answer the question
            and (head[0][0].scores.get("dense") or -1.0) >= floor
        ):
            rest = [t for t in ranked if t[0].id != head[0][0].id]
            ranked = (head + rest)[: len(ranked)]
            head_note = (
                "; first place by word-pair keyword coverage "
                f"{head_coverage.get(head[0][0].id, 0.0):.2f}"
            )
    if off:  # about someone else: after every memory about whom the question asks
        ranked = [t for t in ranked if t[0].id not in off] + [t for t in ranked if t[0].id in off]
        ranked = ranked[:k]
    model_scale = CosineScale(
        unrelated=unrelated_cosine,
        floor=min_cosine if min_cosine is not None else 0.3,
        companion=companion_cosine,
    )
    hits = []
    for i, (cand, score, decay, boost) in enumerate(ranked):
        partial = calibration is not None and cand.id in calibrated_ids
        offset = hub.get(cand.id, 0.0) if "dense" in cand.scores and not partial else 0.0
        on = calibration if partial and calibration is not None else model_scale
        own, how = calibrated(cand.scores, (coverage or {}).get(cand.id), on, offset)
        if partial:
            # the shared name's direction taken out of the cosine: its own scale
            how = "partial " + how.replace("the model scale", "the partial-cosine scale")
        if i == 0:
            how += head_note
        if cand.id in off:
            own = min(own, OFF_SUBJECT_RELEVANCE)
            how += f"; {off[cand.id]}: no match (held at {OFF_SUBJECT_RELEVANCE:.2f})"
        hits.append(
            MemoryHit(
                memory=Memory.from_payload(cand.id, payloads[cand.id]),
                score=own,
                fused=cand.fused,
                decay=decay,
                boost=boost,
                ranks=dict(cand.ranks),
                weights={arm: float(weights.get(arm, 1.0)) for arm in cand.ranks},
                scores=dict(cand.scores),
                evidence=dict(cand.evidence),
                fusion=fusion,
                recency=(cand.fused + boost - score) if fusion == "evidence" else 0.0,
                rank_score=score,
                relevance=own,
                calibration=how,
                off_subject=off.get(cand.id),
                hubness=offset,
            )
        )
    return hits
