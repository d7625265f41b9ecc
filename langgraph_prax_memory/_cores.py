"""The cores this process may run on (the local model's runs, the engine's search pool)."""

from __future__ import annotations

import os

__all__ = ["available_cores"]


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS has one), at least 1.

    Example:
        >>> available_cores() >= 1
        True
    """
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1
