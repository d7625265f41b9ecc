"""What a test says when a service it needs (Neo4j) cannot be had outside CI.

Under ``CI`` a missing service fails the test; elsewhere the test is skipped with a reason
that starts with :data:`SERVICE_SKIP`, and ``tests/conftest.py`` ends the run with a loud line
counting those skips, so a run that did not test the graph never looks like one that did.
"""

from __future__ import annotations

#: The start of every skip reason for a missing service.
SERVICE_SKIP = "service unavailable, skipped outside CI"

#: What the session's service fixtures said they use ("Neo4j test server: bolt://..."),
#: repeated in the run's summary.
SERVICES: list[str] = []
