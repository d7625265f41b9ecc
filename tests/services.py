"""What a test says when a service it needs (Neo4j, Chromium, a tmpfs mount) cannot be had.

A missing service fails the test, under ``CI`` and everywhere else: the README's test command
sets up every service the suite needs where it can (a Neo4j server, Chromium when it runs as
root, tmpfs disks in a namespace of their own), so one that cannot be had is a failure of that
set-up, never a silent pass. The message names the service, why it is missing and how to
provide it, and the run's summary lists each missing service once (tests/conftest.py);
``pytest -m "not integration"`` is the quick loop that needs none of them.
"""

from __future__ import annotations

import os
from contextlib import nullcontext

import pytest

#: What the session's service fixtures said they use ("Neo4j test server: bolt://..."),
#: repeated in the run's summary.
SERVICES: list[str] = []

#: Each service that could not be had this run: its name -> "why (how to provide it)".
MISSING: dict[str, str] = {}


def under_ci() -> bool:
    """Whether this run is CI's: the ``CI`` variable is present (whatever its value)."""
    return "CI" in os.environ


def unavailable(service: str, reason: str, *, hint: str = "") -> None:
    """Fail the test: ``service`` is required and cannot be had.

    Args:
        service: What is missing ("Neo4j", "Chromium", ...).
        reason: Why it cannot be had.
        hint: How to provide it (shown in the failure).
    """
    how = f" ({hint})" if hint else ""
    MISSING.setdefault(service, f"{reason}{how}")
    pytest.fail(f"{service} is required but is unavailable{how}: {reason}", pytrace=False)


def announce(config: pytest.Config, line: str) -> None:
    """Say ``line`` on the terminal now (past the capture) and again in the run's summary."""
    SERVICES.append(line)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    if reporter is None:
        return
    with capture.global_and_fixture_disabled() if capture is not None else nullcontext():
        reporter.write_line("")
        reporter.write_line(line, bold=True)
