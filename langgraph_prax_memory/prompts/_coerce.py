"""Tolerant coercion of the scores and times a model writes into its answer."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from langgraph_prax_memory._validation import to_utc
from langgraph_prax_memory.errors import MemoryValidationError


def unit(value: Any, default: float) -> float:
    """Coerce a model-provided 0-1 score: strings and out-of-range numbers are tolerated.

    ``None``, a boolean, a non-number or a non-finite number is ``default``; a score on a
    1-10 scale is divided by ten; the result is clamped to 0-1.
    """
    if value is None or isinstance(value, bool):
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    if not math.isfinite(number):
        return default
    if 1.0 < number <= 10.0:  # a 1-10 scale slipped through
        number /= 10.0
    return min(1.0, max(0.0, number))


def optional_time(value: Any) -> datetime | None:
    """A UTC datetime from a model's date or datetime, ``None`` when it is none or unparseable."""
    if value is None or value == "":
        return None
    try:
        return to_utc(value)
    except MemoryValidationError:
        return None
