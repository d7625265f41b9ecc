"""Score-aware (evidence) fusion: flat arms cannot reorder, relevance gaps survive modulation."""

from __future__ import annotations

import doctest
import importlib
from datetime import UTC, datetime

import pytest

from langgraph_prax_memory.retrieval._fusion import (
    arm_evidence,
    fuse,
    fuse_evidence,
    keyword_coverage,
    keyword_pair_coverage,
    rank_candidates,
)
from langgraph_prax_memory.retrieval._recall import assemble_hits
from langgraph_prax_memory.vectors import StoredPoint

NOW = datetime(2026, 1, 1, tzinfo=UTC)
W = {"dense": 1.0, "sparse": 1.0}


def _order(fused: dict, payloads: dict, **kw: object) -> list[str]:
    ranked = rank_candidates(fused, payloads, now=NOW, halflife_days=7, k=10, **kw)  # type: ignore[arg-type]
    return [c.id for c, *_ in ranked]


def test_a_flat_arm_cannot_outvote_a_confident_one() -> None:
    arms = {
        "dense": {"polars": 0.42, "helix": 0.14, "mit": 0.07},
        "sparse": {"helix": 0.1335, "mit": 0.1335, "polars": 0.1335},
    }
    payloads = {pid: {"importance": 0.5} for pid in arms["dense"]}
    evidence = fuse_evidence(arms, W)
    assert _order(evidence, payloads, additive=True, importance_weight=0.1)[0] == "polars"
    # rank-only RRF turns the flat list into ranks 1, 2, 3 and answers Helix
    ranks = {arm: sorted(s, key=lambda p: (-s[p], p != "helix")) for arm, s in arms.items()}
    assert _order(fuse(ranks, W), payloads)[0] == "helix"


def test_importance_and_recency_break_ties_but_not_a_clear_gap() -> None:
    arms = {"dense": {"polars": 0.50, "peanuts": 0.20, "twin": 0.499}}
    payloads = {
        "polars": {"importance": 0.5, "last_accessed_ts": NOW.timestamp() - 60 * 86400},
        "peanuts": {"importance": 0.9, "last_accessed_ts": NOW.timestamp()},
        "twin": {"importance": 0.6, "last_accessed_ts": NOW.timestamp()},
    }
    order = _order(fuse_evidence(arms, W), payloads, additive=True, importance_weight=0.1)
    assert order == ["twin", "polars", "peanuts"]  # the near-tie flips, the clear gap holds


def test_lone_keyword_match_counts_and_coverage_scales_it() -> None:
    ev = arm_evidence({"a": 5.0}, ["a", "b", "c"])
    assert ev == {"a": 1.0}
    fused = fuse_evidence(
        {"dense": {"a": 0.40, "b": 0.42}, "sparse": {"a": 5.0}},
        W,
        scale={"sparse": {"a": keyword_coverage({"x", "y", "z", "w", "v"}, {"x"})}},
    )
    assert fused["a"].evidence["sparse"] == pytest.approx(0.2)


def test_pair_coverage_counts_only_words_found_together() -> None:
    assert keyword_pair_coverage({"neighbourhood", "home"}, {"home", "tram"}) == 0.0
    assert keyword_pair_coverage({"tom", "son", "old"}, {"tom", "son"}) == pytest.approx(1 / 3)
    assert keyword_pair_coverage({"tom", "son", "old"}, {"tom", "son", "old"}) == 1.0
    assert keyword_pair_coverage({"espresso"}, {"espresso"}) == 1.0
    assert keyword_pair_coverage({"espresso"}, {"bar"}) == 0.0
    assert keyword_pair_coverage(set(), {"bar"}) == 1.0


def _point(pid: str, score: float, importance: float = 0.5) -> StoredPoint:
    ts = NOW.timestamp()
    payload = {
        "user_id": "u",
        "content": pid,
        "importance": importance,
        "created_ts": ts,
        "last_accessed_ts": ts,
        "created_at": NOW.isoformat(),
    }
    return StoredPoint(pid, payload, score=score)


def _head_case(**kw: object) -> list[str]:
    # "What neighbourhood is her home in?": the paraphrased answer ("lives in Chorlton")
    # leads the dense arm; a memory sharing the one word "home" leads the keyword arm
    arms = {
        "dense": [_point("lives", 0.332), _point("tram", 0.317), _point("desk", 0.10)],
        "sparse": [_point("tram", 3.3)],
    }
    hits = assemble_hits(
        arms,
        W,
        now=NOW,
        halflife_days=7.0,
        k=3,
        fusion="evidence",
        coverage={"lives": 0.0, "tram": 0.5, "desk": 0.0},
        **kw,  # type: ignore[arg-type]
    )
    return [h.memory.id for h in hits]


def test_one_shared_word_does_not_take_the_first_place_from_the_dense_arm() -> None:
    assert _head_case() == ["tram", "lives", "desk"]  # the plain share alone: the trap wins
    pairs = {"lives": 0.0, "tram": 0.0, "desk": 0.0}
    assert _head_case(head_coverage=pairs) == ["lives", "tram", "desk"]  # the rest keeps order


def test_the_pairs_winner_needs_the_dense_arm_to_vouch_for_it() -> None:
    # "where does carol work?": no memory holds two of its words, and the dense arm's best
    # ("lives in Berlin") is below the relevance floor: the one-word match keeps the first
    # place rather than a memory nothing vouches for
    pairs = {"lives": 0.0, "tram": 0.0, "desk": 0.0}
    assert _head_case(head_coverage=pairs, min_cosine=0.35) == ["tram", "lives", "desk"]
    assert _head_case(head_coverage=pairs, min_cosine=0.332) == ["lives", "tram", "desk"]


def test_the_first_place_reads_the_raw_cosine_and_the_floor_the_corrected_one() -> None:
    # "lives" is a hub (its cosine to any question sits 0.05 high): it keeps the first place
    # the dense arm gives it, but its relevance is that of cosine 0.282
    pairs = {"lives": 0.0, "tram": 0.0, "desk": 0.0}
    hub = {"lives": 0.05, "tram": 0.0, "desk": 0.0}
    arms = {
        "dense": [_point("lives", 0.332), _point("tram", 0.317), _point("desk", 0.10)],
        "sparse": [_point("tram", 3.3)],
    }
    common = {"now": NOW, "halflife_days": 7.0, "k": 3, "fusion": "evidence"}
    cov = {"lives": 0.0, "tram": 0.5, "desk": 0.0}
    plain, corrected = (
        assemble_hits(
            arms, W, coverage=cov, head_coverage=pairs, min_cosine=0.332, hubness=h, **common
        )  # type: ignore[arg-type]
        for h in (None, hub)
    )
    assert (
        [h.memory.id for h in corrected]
        == [h.memory.id for h in plain]
        == ["lives", "tram", "desk"]
    )
    assert plain[0].relevance == pytest.approx(0.5, abs=0.01) and plain[0].hubness == 0.0
    assert corrected[0].hubness == 0.05 and corrected[0].relevance is not None
    assert corrected[0].relevance < 0.4
    assert "cosine 0.33, hubness-corrected 0.28" in corrected[0].calibration


def test_a_pair_of_question_words_still_takes_the_first_place() -> None:
    arms = {
        "dense": [_point("sister-in-law", 0.657), _point("sister", 0.546), _point("x", 0.1)],
        "sparse": [_point("sister", 11.9), _point("sister-in-law", 6.5)],
    }
    hits = assemble_hits(
        arms,
        W,
        now=NOW,
        halflife_days=7.0,
        k=3,
        fusion="evidence",
        coverage={"sister": 1.0, "sister-in-law": 0.67, "x": 0.0},
        head_coverage={"sister": 1.0, "sister-in-law": 1 / 3, "x": 0.0},
    )
    assert [h.memory.id for h in hits][:2] == ["sister", "sister-in-law"]
    assert "first place" not in hits[0].calibration  # the same winner: nothing moved


def test_the_moved_head_says_why_in_its_explanation() -> None:
    arms = {
        "dense": [_point("lives", 0.332), _point("tram", 0.317)],
        "sparse": [_point("tram", 3.3)],
    }
    hits = assemble_hits(
        arms,
        W,
        now=NOW,
        halflife_days=7.0,
        k=2,
        fusion="evidence",
        coverage={"lives": 0.0, "tram": 0.5},
        head_coverage={"lives": 0.0, "tram": 0.0},
    )
    assert hits[0].memory.id == "lives"
    assert "first place by word-pair keyword coverage 0.00" in hits[0].explain()


def test_near_equal_scores_stay_near_equal_evidence() -> None:
    ev = arm_evidence({"a": 0.1336, "b": 0.1335, "c": 0.1334}, ["a", "b", "c"])
    assert max(ev.values()) < 0.01


@pytest.mark.parametrize(
    "name",
    [
        "langgraph_prax_memory.retrieval._fusion",
        "langgraph_prax_memory.retrieval._recall",
        "langgraph_prax_memory.models",
        "langgraph_prax_memory.retrieval._calibration",
        "langgraph_prax_memory.context",
        "langgraph_prax_memory.prompts.context_check",
    ],
)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_a_high_cosine_floor_is_not_read_as_a_flat_arm() -> None:
    """e5-like cosines (unrelated texts ~0.73): measured from 0, the dense gap between 0.82
    and 0.78 is small next to ``spread × top`` and a partial keyword match overturns it;
    measured from the model's unrelated level it is the clear gap it is."""
    arms = {
        "dense": {"gold": 0.82, "trap": 0.78, "other": 0.74},
        "sparse": {"trap": 4.0},
    }
    scale = {"sparse": {"trap": 0.25}}  # the trap shares one of the question's four words
    plain = fuse_evidence(arms, W, scale=scale)
    assert max(plain, key=lambda pid: plain[pid].fused) == "trap"
    calibrated = fuse_evidence(arms, W, scale=scale, origin={"dense": 0.73})
    assert max(calibrated, key=lambda pid: calibrated[pid].fused) == "gold"
    assert calibrated["gold"].scores["dense"] == 0.82  # raw scores are kept for explain()
    # below the model's unrelated level: no dense evidence at all
    low = fuse_evidence({"dense": {"a": 0.70, "b": 0.65}}, W, origin={"dense": 0.73})
    assert low["a"].evidence["dense"] == low["b"].evidence["dense"] == 0.0
    # the default origin 0 is the previous arithmetic, exactly
    same = fuse_evidence(arms, W, scale=scale, origin={"dense": 0.0})
    assert {p: c.fused for p, c in same.items()} == {p: c.fused for p, c in plain.items()}
