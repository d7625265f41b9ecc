"""Weights, RRF arithmetic, decay and boost against hand-computed values."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from langgraph_prax_memory.config import RetrievalConfig
from langgraph_prax_memory.retrieval import (
    assemble_hits,
    boost_factor,
    decay_factor,
    fuse,
)
from langgraph_prax_memory.retrieval._intent import arm_weights, classify_intent, query_phrases
from langgraph_prax_memory.vectors import StoredPoint


@pytest.mark.parametrize(
    ("query", "intent", "weights"),
    [
        ('error "E-4012"', "identifier", (0.8, 1.5, 1.3)),
        ("what does E-4012 mean", "identifier", (0.8, 1.5, 1.3)),
        ("How are Alice and Bob related?", "entity", (1.0, 1.2, 1.4)),
        ("How do you feel about the approach?", "semantic", (1.4, 0.9, 1.0)),
        ("memory test", "neutral", (1.0, 1.0, 1.0)),
    ],
)
def test_intent_table_of_the_seed(query: str, intent: str, weights: tuple[float, ...]) -> None:
    got_intent, got = arm_weights(query, RetrievalConfig())
    assert got_intent == intent == classify_intent(query)
    assert (got["dense"], got["sparse"], got["graph"]) == weights


def test_weights_are_configuration() -> None:
    cfg = RetrievalConfig(weights={"neutral": {"dense": 2.0, "sparse": 0.5, "graph": 0.0}})
    assert arm_weights("memory test", cfg)[1] == {"dense": 2.0, "sparse": 0.5, "graph": 0.0}


def test_query_phrases() -> None:
    assert query_phrases('What did "Project X" and Alice Smith decide?') == [
        "Project X",
        "Alice Smith",
        "decide",
    ]


def test_weighted_rrf_by_hand() -> None:
    out = fuse(
        {"dense": ["a", "b", "c"], "sparse": ["c", "a"], "graph": ["c"]},
        {"dense": 1.4, "sparse": 0.9, "graph": 1.0},
        k=60,
    )
    assert math.isclose(out["a"].fused, 1.4 / 61 + 0.9 / 62)
    assert math.isclose(out["b"].fused, 1.4 / 62)
    assert math.isclose(out["c"].fused, 1.4 / 63 + 0.9 / 61 + 1.0 / 61)
    assert out["c"].ranks == {"dense": 3, "sparse": 1, "graph": 1}


def test_equal_weights_reduce_to_plain_rrf() -> None:
    out = fuse({"x": ["a", "b"], "y": ["b", "a"]}, {}, k=60)
    assert math.isclose(out["a"].fused, out["b"].fused)


def test_decay_and_boost_by_hand() -> None:
    now = datetime(2024, 1, 15, tzinfo=UTC)
    week = (now - timedelta(days=7)).timestamp()
    assert math.isclose(decay_factor(week, now, 7.0), 0.5)
    assert math.isclose(decay_factor(now.timestamp() + 3600, now, 7.0), 1.0)  # future → 1
    assert math.isclose(boost_factor(0.0), 0.5) and math.isclose(boost_factor(1.0), 1.5)


def test_assembled_score_is_fused_times_decay_times_boost() -> None:
    now = datetime(2024, 1, 15, tzinfo=UTC)

    def point(pid: str, days: float, importance: float) -> StoredPoint:
        ts = (now - timedelta(days=days)).timestamp()
        return StoredPoint(
            pid,
            {
                "user_id": "u",
                "content": pid,
                "importance": importance,
                "created_ts": ts,
                "last_accessed_ts": ts,
                "created_at": datetime.fromtimestamp(ts, UTC).isoformat(),
            },
        )

    old_important = point("old", 14, 1.0)  # decay 0.25, boost 1.5
    fresh_minor = point("fresh", 0, 0.1)  # decay 1, boost 0.6
    hits = assemble_hits(
        {"dense": [old_important, fresh_minor], "sparse": [fresh_minor]},
        {"dense": 1.0, "sparse": 1.0},
        now=now,
        halflife_days=7.0,
        k=5,
    )
    by_id = {h.memory.id: h for h in hits}
    assert by_id["old"].rank_score is not None and math.isclose(
        by_id["old"].rank_score, (1 / 61) * 0.25 * 1.5
    )
    assert math.isclose(by_id["fresh"].rank_score, (1 / 62 + 1 / 61) * 1.0 * 0.6)
    assert [h.memory.id for h in hits] == ["fresh", "old"]
    assert "dense #1" in by_id["old"].explain() and "decay 0.250" in by_id["old"].explain()


def test_decay_modes_by_hand() -> None:
    from langgraph_prax_memory.retrieval import FusedCandidate, rank_candidates

    now = datetime(2024, 1, 15, tzinfo=UTC)
    ts = (now - timedelta(days=7)).timestamp()  # decay 0.5
    fused = {"a": FusedCandidate("a", 0.02)}
    payloads = {"a": {"importance": 0.5, "last_accessed_ts": ts}}

    def score(mode: str, **kw: float) -> float:
        return rank_candidates(
            fused, payloads, now=now, halflife_days=7, k=1, decay_mode=mode, **kw
        )[0][1]

    assert math.isclose(score("score"), 0.02 * 0.5 * 1.0)
    assert math.isclose(score("blend", recency_weight=0.2), 0.02 * (0.8 + 0.2 * 0.5) * 1.0)
    assert math.isclose(score("importance"), 0.02 * (0.5 + 0.5 * 0.5))
    assert math.isclose(score("off"), 0.02 * 1.0)
