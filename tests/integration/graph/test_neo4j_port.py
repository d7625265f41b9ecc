"""The test session's Neo4j never needs a fixed port (issue 27).

With 127.0.0.1:17687 (the old fixed default) held by another listener, a fresh test session
still starts its own Neo4j, on a free port it picks and names, and the Neo4j tests run and
pass. The inner session uses its own ``PRAX_NEO4J_HOME`` (the jars linked from this checkout's
cache when there are any, so no second Maven fetch) and runs under ``CI=1``, where a missing
server is a failure, not a skip.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]
OLD_FIXED_PORT = 17687


@pytest.fixture
def old_port_taken() -> Iterator[None]:
    """A listener on 127.0.0.1:17687 (ours, or whoever already holds it)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", OLD_FIXED_PORT))
        sock.listen(1)
    except OSError:
        sock.close()
        sock = None  # type: ignore[assignment]
    with socket.create_connection(("127.0.0.1", OLD_FIXED_PORT), timeout=5):
        pass  # something listens there now
    try:
        yield
    finally:
        if sock is not None:
            sock.close()


def _cache_with_jars(tmp_path: Path) -> Path:
    """A fresh Neo4j home that reuses this checkout's fetched jars when there are some."""
    home = tmp_path / "neo4j-home"
    home.mkdir()
    cache = Path(os.environ.get("PRAX_NEO4J_HOME") or ROOT / ".neo4j")
    if (cache / "jars.stamp").is_file() and (cache / "lib").is_dir():
        (home / "lib").symlink_to(cache / "lib")
        (home / "plugins").symlink_to(cache / "plugins")
        shutil.copy(cache / "jars.stamp", home / "jars.stamp")
    return home


def test_neo4j_tests_run_while_the_old_fixed_port_is_taken(
    old_port_taken: None, tmp_path: Path
) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"NEO4J_TEST_URI", "PRAX_NEO4J_PORT", "PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST"}
    }
    env.update(CI="1", PRAX_NEO4J_HOME=str(_cache_with_jars(tmp_path)), PYTHON=sys.executable)
    test = "tests/integration/graph/test_neo4j_backend.py::test_store_from_memory_config"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", test, "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert re.search(r"\b1 passed\b", out), out[-4000:]
    assert "skipped" not in out, out[-4000:]
    said = re.search(
        r"Neo4j test server: bolt://127\.0\.0\.1:(\d+) \(started for this session", out
    )
    assert said, f"the session did not say which port it took:\n{out[-4000:]}"
    assert int(said.group(1)) != OLD_FIXED_PORT
    # it stopped the server it started: nothing answers on that port any more
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", int(said.group(1))), timeout=2).close()
