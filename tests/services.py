"""What a test says when a service it needs (Neo4j) cannot be had outside CI.

Under ``CI`` a missing service fails the test; elsewhere the test is skipped with a reason
that starts with :data:`SERVICE_SKIP`, and ``tests/conftest.py`` ends the run with a loud line
counting those skips, so a run that did not test the graph never looks like one that did.
"""

from __future__ import annotations

import os

import pytest

#: The start of every skip reason for a missing service.
SERVICE_SKIP = "service unavailable, skipped outside CI"

#: What the session's service fixtures said they use ("Neo4j test server: bolt://..."),
#: repeated in the run's summary.
SERVICES: list[str] = []


def under_ci() -> bool:
    """Whether this run is CI's: the ``CI`` variable is present (whatever its value)."""
    return "CI" in os.environ


def unavailable(service: str, reason: str, *, hint: str = "") -> None:
    """Fail under ``CI`` (a missing service is a failure there); elsewhere skip, counted.

    Args:
        service: What is missing ("Neo4j", "Chromium", ...).
        reason: Why it cannot be had.
        hint: How to provide it (shown in the skip reason).
    """
    if under_ci():
        pytest.fail(f"{service} is required under CI but is unavailable: {reason}", pytrace=False)
    else:  # outside CI only: skipped, and counted in the run's summary line
        how = f" ({hint})" if hint else ""
        pytest.skip(f"{SERVICE_SKIP}: {service}{how}: {reason}")
