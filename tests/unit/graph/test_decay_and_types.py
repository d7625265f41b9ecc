"""Pure parts of the graph: decay arithmetic, vocabularies, ids, canonical names."""

from __future__ import annotations

import math

import pytest

from langgraph_prax_memory._text import append_evidence
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.graph import (
    ENTITY_TYPES,
    RELATION_TYPES,
    GraphStats,
    Vocabulary,
    canonical_name,
    decay_lambda,
    effective_value,
    entity_id,
    graph_halflife,
    should_prune_entity,
    should_prune_relation,
)
from langgraph_prax_memory.graph._decay import days_between

DAY = 86_400.0


def test_lambda_and_halflife() -> None:
    assert graph_halflife(7) == 14.0
    assert decay_lambda(14) == pytest.approx(math.log(2) / 14)
    lam = decay_lambda(14)
    assert effective_value(0.8, 0.0, 14 * DAY, lam) == pytest.approx(0.4)
    assert effective_value(0.8, 0.0, 28 * DAY, lam) == pytest.approx(0.2)
    with pytest.raises(MemoryValidationError):
        decay_lambda(0)
    with pytest.raises(MemoryValidationError):
        decay_lambda(float("inf"))
    with pytest.raises(MemoryValidationError):
        graph_halflife(-1)


def test_total_days_from_epoch_seconds() -> None:
    assert days_between(0.0, 45 * DAY) == 45.0
    assert days_between(1_000.0, 1_000.0 + 1.5 * DAY) == 1.5
    assert days_between(10 * DAY, 0.0) == 0.0  # a future last_seen does not grow the value


@pytest.mark.parametrize(
    ("days", "importance", "pruned"),
    [(0, 0.3, False), (7, 0.3, False), (36, 0.3, False), (37, 0.3, True), (45, 0.5, False)],
)
def test_entity_predicate(days: float, importance: float, pruned: bool) -> None:
    assert should_prune_entity(importance, 0.0, days * DAY, decay_lambda(14)) is pruned


@pytest.mark.parametrize(
    ("days", "weight", "pruned"),
    [(0, 0.2, False), (7, 0.2, False), (45, 0.2, True), (45, 1.0, False), (200, 1.0, True)],
)
def test_relation_predicate(days: float, weight: float, pruned: bool) -> None:
    assert should_prune_relation(weight, 0.0, days * DAY, decay_lambda(14)) is pruned


def test_forty_five_days_is_not_fifteen() -> None:
    lam = decay_lambda(14)
    # The old bug read a 45-day gap ("1 month 15 days") as 15 days.
    assert should_prune_entity(0.3, 0.0, 45 * DAY, lam)
    assert not should_prune_entity(0.3, 0.0, 15 * DAY, lam)


def test_vocabulary() -> None:
    vocab = Vocabulary()
    assert vocab.relation_types == RELATION_TYPES
    assert vocab.entity_types == ENTITY_TYPES
    assert vocab.check_relation_type(" Works_On ") == "works_on"
    with pytest.raises(MemoryValidationError, match="unknown relation type"):
        vocab.check_relation_type("mentors")
    with pytest.raises(MemoryValidationError, match="must be a string"):
        vocab.check_relation_type(3)
    with pytest.raises(MemoryValidationError, match="unknown entity type"):
        vocab.check_entity_type("vehicle")
    bigger = vocab.extend(relation_types=["Mentors"], entity_types=["vehicle"])
    assert bigger.check_relation_type("mentors") == "mentors"
    assert bigger.check_entity_type("VEHICLE") == "vehicle"
    assert "mentors" not in vocab.relation_types  # the original is unchanged
    with pytest.raises(MemoryValidationError, match="not a valid type name"):
        vocab.extend(relation_types=["bad type`) DETACH"])
    with pytest.raises(MemoryValidationError):
        Vocabulary(relation_types=frozenset({"1abc"}))


def test_ids_and_names() -> None:
    assert canonical_name("  Alice  ") == "alice"
    assert entity_id("u1", "Alice") == entity_id("u1", "  ALICE ")
    assert entity_id("u1", "Alice") != entity_id("u2", "Alice")
    assert len(entity_id("u1", "x")) == 36
    with pytest.raises(MemoryValidationError):
        canonical_name("   ")


def test_append_evidence() -> None:
    assert append_evidence("", "a") == "a"
    assert append_evidence("a", "b") == "a; b"
    assert append_evidence("a; b", "a") == "a; b"
    assert append_evidence("a", "") == "a"


def test_stats_helpers() -> None:
    stats = GraphStats(entities=3, relations=4, current_relations=1, temporal_events=2)
    assert stats.superseded_relations == 3
    assert stats.total == 9
