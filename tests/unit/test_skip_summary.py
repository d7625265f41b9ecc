"""A run that skipped tests says so, loudly, as its last line (issue 27).

Runs a small test file in a fresh pytest process with this suite's ``tests/conftest.py`` as a
plugin: one test that needs a service that cannot be had (it fails, under CI or not), one
skipped, one passing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SAMPLE = """
import pytest

from tests.services import unavailable


def test_needs_neo4j() -> None:
    unavailable("Neo4j", "connection refused", hint="set NEO4J_TEST_URI")


def test_other_skip() -> None:
    pytest.skip("not on this platform")


def test_runs() -> None:
    assert 1 + 1 == 2
"""


def _pytest(
    tmp_path: Path, sample: str = SAMPLE, *, ci: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``sample`` run by pytest outside CI (``ci``: with ``CI`` set to it), with this suite's
    root conftest as a plugin."""
    (tmp_path / "test_sample.py").write_text(sample)
    env = {k: v for k, v in os.environ.items() if k not in {"CI", "PYTEST_ADDOPTS"}}
    if ci is not None:
        env["CI"] = ci
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(tmp_path / "test_sample.py"),
            "-p",
            "tests.conftest",
            "-p",
            "no:cacheprovider",
            "-q",
            "--rootdir",
            str(tmp_path),
            "-c",
            os.devnull,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
        check=False,
    )


def test_skips_end_the_run_with_a_loud_line(tmp_path: Path) -> None:
    done = _pytest(tmp_path, SAMPLE.replace("def test_needs_neo4j", "def _unused"))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert "1 TESTS SKIPPED, NOT RUN (outside CI)" in lines[-1], done.stdout
    # the reasons, each with its count, are listed above
    assert any("1 x not on this platform" in x for x in lines)


def test_a_run_without_skips_has_no_such_line(tmp_path: Path) -> None:
    done = _pytest(tmp_path, "def test_runs() -> None:\n    assert True\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    assert "SKIPPED, NOT RUN" not in done.stdout


def test_a_missing_service_fails_under_ci_and_everywhere_else(tmp_path: Path) -> None:
    for value in (None, "true", "1", ""):  # outside CI, and any CI variable, even an empty one
        done = _pytest(tmp_path, ci=value)
        assert done.returncode == 1, done.stdout
        assert "FAILED" in done.stdout and "test_needs_neo4j" in done.stdout
        assert (
            "Neo4j is required but is unavailable (set NEO4J_TEST_URI): connection refused"
            in done.stdout
        )
        assert "1 failed, 1 passed, 1 skipped" in done.stdout
        # the summary names each missing service once, with why and how to provide it
        assert "MISSING: Neo4j" in done.stdout
        assert "  Neo4j: connection refused (set NEO4J_TEST_URI)" in done.stdout
