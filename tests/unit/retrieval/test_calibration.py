"""Calibrated relevance: one score scale for every query, the floor and its companions."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from langgraph_prax_memory.models import Memory, MemoryHit
from langgraph_prax_memory.retrieval._calibration import (
    CosineScale,
    monotone_scores,
    strength_of,
)
from langgraph_prax_memory.retrieval._recall import calibrate_hits, calibrated

NOW = datetime(2026, 1, 1, tzinfo=UTC)
MINILM = CosineScale(unrelated=0.0, floor=0.3, companion=0.2)
E5 = CosineScale(unrelated=0.75, floor=0.84, companion=0.8)


def _hit(
    key: str, cosine: float | None, coverage: float | None = None, hubness: float = 0.0
) -> MemoryHit:
    scores = {} if cosine is None else {"dense": cosine}
    own, how = calibrated(scores, coverage, MINILM, hubness)
    memory = Memory(id=key, user_id="u", content=key, created_at=NOW, last_accessed=NOW)
    return MemoryHit(
        memory=memory,
        score=own,
        relevance=own,
        fused=0.5,
        decay=1.0,
        boost=0.0,
        scores=scores,
        calibration=how,
        hubness=hubness,
        rank_score=1.0,
    )


def test_the_scale_places_the_models_landmarks() -> None:
    assert MINILM.relevance(0.0) == pytest.approx(0.05)
    assert MINILM.relevance(0.3) == pytest.approx(0.5)
    assert MINILM.relevance(0.6) == pytest.approx(0.95)
    assert MINILM.relevance(1.0) > 0.99  # an exact match
    # the same landmarks for a model whose cosines all sit high
    assert E5.relevance(0.75) == pytest.approx(0.05)
    assert E5.relevance(0.84) == pytest.approx(0.5)
    assert E5.relevance(0.80) < 0.5 < E5.relevance(0.86)
    values = [MINILM.relevance(c / 100) for c in range(-50, 101)]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert values == sorted(values)  # monotone in the cosine


def test_keyword_coverage_and_graph_lower_the_bar_to_halfway() -> None:
    assert MINILM.floor_at(1.0) == pytest.approx(0.15)
    assert MINILM.relevance(0.16, strength=1.0) > 0.5 > MINILM.relevance(0.16)
    assert E5.floor_at(1.0) == pytest.approx(0.795)
    assert E5.relevance(0.76, strength=1.0) < 0.5 < E5.relevance(0.80, strength=1.0)
    # without a cosine (dense arm down) a full keyword or named-entity match passes alone
    assert MINILM.relevance(None, 1.0) > 0.5 > MINILM.relevance(None, 0.5)
    assert strength_of(None, 1.0) == 1.0 and strength_of(None, 0.5) == 0.25
    value, how = calibrated({"dense": 0.2}, 1.0, MINILM)
    assert value > 0.5 and "keyword coverage 1.00 lowers the bar to 0.15" in how


def test_scores_are_non_increasing_and_the_floor_cuts_once() -> None:
    assert monotone_scores([0.3, 0.8, 0.2, 0.4]) == [0.8, 0.8, 0.4, 0.4]
    hits = [_hit("kw", 0.18), _hit("gold", 0.45), _hit("far", 0.05)]
    out = calibrate_hits(hits, MINILM)
    assert [round(h.score, 2) for h in out] == [round(hits[1].score, 2)] * 2 + [
        round(hits[2].score, 2)
    ]
    assert [h.relevant for h in out] == [True, True, False]
    assert out[0].why.startswith("ranked above a hit of relevance")
    assert "lifted from" in out[0].explain()
    assert "cosine 0.45 on the model scale" in out[1].explain()


def test_companions_join_only_a_relevant_hit() -> None:
    out = calibrate_hits([_hit("a", 0.36), _hit("b", 0.22), _hit("c", 0.1)], MINILM)
    assert [h.relevant for h in out] == [True, True, False]
    assert out[1].why == "cosine 0.22 ≥ 0.20 beside a relevant hit"
    # nothing passed the first bar: the second one opens nothing
    assert not any(h.relevant for h in calibrate_hits([_hit("b", 0.29), _hit("c", 0.25)], MINILM))
    # no dense score (dense arm down): the second bar does not apply
    assert not calibrate_hits([_hit("a", 0.4), _hit("d", None)], MINILM)[1].relevant
    off = CosineScale(unrelated=0.0, floor=0.3, companion=None)
    assert [h.relevant for h in calibrate_hits([_hit("a", 0.36), _hit("b", 0.22)], off)] == [
        True,
        False,
    ]


def test_a_standing_fact_opens_no_episodes() -> None:
    hits = [_hit("opener", 0.36), _hit("episode", 0.25), _hit("fact", 0.24)]
    out = calibrate_hits(hits, MINILM, lambda m: m.id in {"opener", "fact"})
    assert [h.relevant for h in out] == [True, False, True]
    assert out[1].why.startswith("relevance 0.")  # the episode must pass on its own
    # an episode that passed opens the bar for both kinds
    out = calibrate_hits(hits, MINILM, lambda m: m.id == "fact")
    assert [h.relevant for h in out] == [True, True, True]


def test_a_memory_near_every_question_needs_a_higher_cosine() -> None:
    # the same raw cosine: a hub (its cosine to any question sits 0.05 high) is not relevant,
    # a memory far from every question is
    hub, plain, far = (
        _hit(k, 0.32, hubness=h) for k, h in (("hub", 0.05), ("plain", 0.0), ("far", -0.03))
    )
    assert calibrate_hits([hub], MINILM)[0].relevant is False
    assert calibrate_hits([plain], MINILM)[0].relevant is True
    assert calibrate_hits([far], MINILM)[0].relevant is True
    assert "cosine 0.32, hubness-corrected 0.27" in hub.calibration
    # the companion bar reads the corrected cosine too
    opener = _hit("opener", 0.5)
    beside = calibrate_hits([opener, _hit("hub", 0.22, hubness=0.05), _hit("ok", 0.22)], MINILM)
    assert [h.relevant for h in beside] == [True, False, True]
    assert beside[2].why == "cosine 0.22 ≥ 0.20 beside a relevant hit"
