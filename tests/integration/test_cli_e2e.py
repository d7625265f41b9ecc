"""prax-memory as a user runs it: separate processes on the offline defaults."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def _cli(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "MEMORY_DATA_DIR": str(data)}
    return subprocess.run(
        [sys.executable, "-m", "langgraph_prax_memory.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )


def test_remember_recall_export_import_forget_user_doctor(tmp_path: Path) -> None:
    data = tmp_path / "data"
    out = _cli(data, "remember", "-u", "alice", "Alice prefers polars over pandas", "--json")
    assert out.returncode == 0, out.stderr
    memory_id = json.loads(out.stdout)["memory_id"]

    recall = _cli(data, "recall", "-u", "alice", "which dataframe library?", "--json")
    assert recall.returncode == 0, recall.stderr
    assert json.loads(recall.stdout)["hits"][0]["memory"]["id"] == memory_id

    export = tmp_path / "alice.jsonl"
    assert _cli(data, "export", "-u", "alice", "-o", str(export)).returncode == 0
    other = tmp_path / "other"
    first = json.loads(_cli(other, "import", str(export), "-u", "alice", "--json").stdout)
    assert first["created"] == {"memory": 1}
    second = json.loads(_cli(other, "import", "-u", "alice", str(export), "--json").stdout)
    assert second["created"] == {} and second["skipped"] == {"memory": 1}

    gone = json.loads(_cli(data, "forget-user", "-u", "alice", "--yes", "--json").stdout)
    assert gone["removed"]["memories"] == 1
    assert _cli(data, "forget", "-u", "alice", memory_id).returncode == 4

    doctor = _cli(data, "doctor", "--json")
    assert doctor.returncode == 0, doctor.stdout
    assert {c["status"] for c in json.loads(doctor.stdout)["checks"]} == {"ok"}


def test_a_first_session_from_the_docs(tmp_path: Path) -> None:
    """docs/cli.md "A first session": demo, remember, consolidate, recall, explain, forget."""
    data = tmp_path / "data"
    demo = _cli(data, "demo")
    assert demo.returncode == 0, demo.stderr
    assert "temporary folder" in demo.stdout and not data.exists()  # the demo left no trace
    assert _cli(data, "-u", "alice", "remember", "Alice prefers polars over pandas").returncode == 0
    talk = tmp_path / "talk.txt"
    talk.write_text("user: I moved to Berlin and I work at Acme Corp now.\n")
    done = _cli(data, "consolidate", "-u", "alice", "--trace", str(talk), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"]["memories_created"] >= 1
    recall = _cli(data, "recall", "-u", "alice", "where does alice work?")
    assert recall.returncode == 0, recall.stderr
    assert "Acme Corp" in recall.stdout and "relevant" in recall.stdout  # ranked and explained
    prefix = json.loads(
        _cli(data, "recall", "-u", "alice", "where does alice work?", "--json").stdout
    )["hits"][0]["id_prefix"]
    assert prefix in recall.stdout
    entity = _cli(data, "entity", "-u", "alice", "user")
    assert entity.returncode == 0 and "berlin" in entity.stdout.lower()
    gone = _cli(data, "forget", "-u", "alice", prefix, "--json")
    assert gone.returncode == 0 and json.loads(gone.stdout)["deleted"] is True
    unknown = _cli(data, "stats", "-u", "alcie")
    assert unknown.returncode == 4 and "check --user" in " ".join(unknown.stderr.split())
