"""A real Neo4j server for the integration tests (graph, consolidation).

``NEO4J_TEST_URI`` (with optional ``NEO4J_TEST_USER`` / ``NEO4J_TEST_PASSWORD``) points the
tests at a server that is already running. Otherwise the session starts one with the
repository's ``scripts/neo4j-server start`` (Maven-fetched Neo4j Community, no Docker) on a
free port the script picks (``PRAX_NEO4J_PORT`` forces one), says which URI on the terminal,
and stops the server at the end only if it started it. A server this checkout already runs is
reused on its port.

When no server can be had, the tests FAIL under ``CI`` (a missing service is a failure there)
and are skipped with the reason elsewhere; ``tests/conftest.py`` then ends the run with a loud
summary line counting those skips.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

import neo4j
import pytest

from tests.services import SERVICE_SKIP, SERVICES

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = ROOT / "scripts" / "neo4j-server"
START_TIMEOUT = float(os.environ.get("NEO4J_TEST_START_TIMEOUT", "1200"))


@dataclass(frozen=True)
class Neo4jServer:
    uri: str
    auth: tuple[str, str] | None


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"Neo4j is required under CI but is unavailable: {reason}", pytrace=False)
    hint = "set NEO4J_TEST_URI or fix scripts/neo4j-server"
    pytest.skip(f"{SERVICE_SKIP}: Neo4j ({hint}): {reason}")


def _announce(config: pytest.Config, line: str) -> None:
    """Say ``line`` on the terminal now (past the capture) and again in the run's summary."""
    SERVICES.append(line)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    if reporter is None:
        return
    with capture.global_and_fixture_disabled() if capture is not None else nullcontext():
        reporter.write_line("")
        reporter.write_line(line, bold=True)


def _script(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _check_reachable(server: Neo4jServer) -> None:
    try:
        with neo4j.GraphDatabase.driver(
            server.uri, auth=server.auth, connection_timeout=10
        ) as driver:
            driver.verify_connectivity()
    except Exception as exc:
        _unavailable(f"cannot connect to {server.uri}: {type(exc).__name__}: {exc}")


def _uri_from(out: str) -> str:
    lines = [line.strip() for line in out.strip().splitlines() if line.strip()]
    return lines[-1] if lines and lines[-1].startswith(("bolt://", "neo4j://")) else ""


@pytest.fixture(scope="session")
def neo4j_server(request: pytest.FixtureRequest) -> Iterator[Neo4jServer]:
    uri = os.environ.get("NEO4J_TEST_URI", "").strip()
    if uri:
        user = os.environ.get("NEO4J_TEST_USER", "neo4j")
        password = os.environ.get("NEO4J_TEST_PASSWORD")
        server = Neo4jServer(uri=uri, auth=(user, password) if password else None)
        _check_reachable(server)
        yield server
        return
    if not SCRIPT.exists():
        _unavailable(f"{SCRIPT.relative_to(ROOT)} does not exist")
    was_running = _script("status", timeout=60).returncode == 0
    try:
        started = _script("start", timeout=START_TIMEOUT)
    except subprocess.TimeoutExpired:
        _unavailable(f"scripts/neo4j-server start did not finish within {START_TIMEOUT:.0f} s")
    if started.returncode != 0:
        _unavailable(
            f"scripts/neo4j-server start exited {started.returncode}: "
            f"{started.stderr.strip()[-2000:]}"
        )
    uri = _uri_from(started.stdout)  # start prints the URI of the port it picked
    if not uri:
        found = _script("uri", timeout=60)
        uri = _uri_from(found.stdout)
        if found.returncode != 0 or not uri:
            _unavailable(f"scripts/neo4j-server gave no URI: {found.stderr.strip()[-2000:]}")
    how = "already running, reused" if was_running else "started for this session"
    _announce(request.config, f"Neo4j test server: {uri} ({how}; scripts/neo4j-server)")
    try:
        server = Neo4jServer(uri=uri, auth=None)
        _check_reachable(server)
        yield server
    finally:
        if not was_running:
            _script("stop", timeout=180)
