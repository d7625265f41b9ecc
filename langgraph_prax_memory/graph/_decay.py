"""Time-based forgetting for the graph: pure functions shared by both backends.

The rule (seed, "Memory Decay"): an entity with no relations is pruned when
``importance × exp(−λ·days) < 0.05`` and a relation when ``weight × exp(−λ·days) < 0.025``,
where ``days`` is the *total* time since ``last_seen`` computed from epoch seconds (a 45-day
gap is 45 days, never the "days component" 15 of a 1-month-15-day duration) and
``λ = ln 2 / half-life``. The graph's half-life is twice the vector one (14 days by default).
Nothing is written back: the stored values never change, so two passes at the same moment
prune the same set.
"""

from __future__ import annotations

import math

from langgraph_prax_memory.errors import MemoryValidationError

__all__ = [
    "DEFAULT_GRAPH_HALFLIFE_DAYS",
    "ENTITY_PRUNE_THRESHOLD",
    "RELATION_PRUNE_THRESHOLD",
    "SECONDS_PER_DAY",
    "check_halflife",
    "days_between",
    "decay_lambda",
    "effective_value",
    "graph_halflife",
    "should_prune_entity",
    "should_prune_relation",
]

SECONDS_PER_DAY = 86_400.0
ENTITY_PRUNE_THRESHOLD = 0.05
RELATION_PRUNE_THRESHOLD = 0.025
DEFAULT_GRAPH_HALFLIFE_DAYS = 14.0


def check_halflife(days: object) -> float:
    """Return a half-life in days: a finite number above 0."""
    if isinstance(days, bool) or not isinstance(days, int | float):
        raise MemoryValidationError(f"halflife_days must be a number, got {type(days).__name__}")
    value = float(days)
    if not math.isfinite(value) or value <= 0:
        raise MemoryValidationError(f"halflife_days must be finite and above 0, got {days!r}")
    return value


def graph_halflife(vector_halflife_days: float) -> float:
    """The graph half-life for a vector half-life: twice as long (relations are more stable).

    Example:
        >>> graph_halflife(7.0)
        14.0
    """
    return 2.0 * check_halflife(vector_halflife_days)


def decay_lambda(halflife_days: float) -> float:
    """``λ = ln 2 / half-life`` (per day).

    Example:
        >>> round(decay_lambda(14.0), 6)
        0.049511
    """
    return math.log(2.0) / check_halflife(halflife_days)


def days_between(then_epoch: float, now_epoch: float) -> float:
    """Total days from ``then_epoch`` to ``now_epoch`` (epoch seconds); never negative.

    Example:
        >>> days_between(0.0, 45 * 86_400.0)
        45.0
    """
    return max(0.0, (now_epoch - then_epoch) / SECONDS_PER_DAY)


def effective_value(stored: float, last_seen_epoch: float, now_epoch: float, lam: float) -> float:
    """``stored × exp(−λ·days)`` — the decayed value, evaluated, never stored."""
    return stored * math.exp(-lam * days_between(last_seen_epoch, now_epoch))


def should_prune_entity(
    importance: float, last_seen_epoch: float, now_epoch: float, lam: float
) -> bool:
    """The entity predicate (only applied to entities that have no relations)."""
    return effective_value(importance, last_seen_epoch, now_epoch, lam) < ENTITY_PRUNE_THRESHOLD


def should_prune_relation(
    weight: float, last_seen_epoch: float, now_epoch: float, lam: float
) -> bool:
    """The relation predicate."""
    return effective_value(weight, last_seen_epoch, now_epoch, lam) < RELATION_PRUNE_THRESHOLD
