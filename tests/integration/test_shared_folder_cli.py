"""While one process holds the embedded vectors, another's CLI still serves STM, notes, doctor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.cli import EXIT_BACKEND, EXIT_OK

pytestmark = pytest.mark.integration


def _cli(data_dir: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_", "QDRANT_"))}
    return subprocess.run(
        [sys.executable, "-m", "langgraph_prax_memory.cli", "--data-dir", str(data_dir), *argv],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_second_process_keeps_stm_notes_and_doctor_while_vectors_are_held(
    tmp_path: Path,
) -> None:
    holder = PraxMemory(MemoryConfig(data_dir=tmp_path))
    try:
        holder.remember("bob", "Bob plays the cello")
        pid = f"pid {os.getpid()}"
        done = _cli(tmp_path, "stm", "set", "goal", "ship the release", "-u", "bob")
        assert done.returncode == EXIT_OK, done.stderr
        listed = _cli(tmp_path, "stm", "list", "-u", "bob", "--json")
        assert listed.returncode == EXIT_OK, listed.stderr
        assert [e["key"] for e in json.loads(listed.stdout)["entries"]] == ["goal"]
        shown = _cli(tmp_path, "notes", "show", "-u", "bob", "--json")
        assert shown.returncode == EXIT_OK, shown.stderr
        doctor = _cli(tmp_path, "doctor", "--json")
        assert doctor.returncode == EXIT_BACKEND  # a failing check, reported, not a crash
        checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
        assert checks["stm"]["status"] == checks["notes"]["status"] == "ok"
        assert checks["vectors"]["status"] == "fail" and pid in checks["vectors"]["detail"]
        recall = _cli(tmp_path, "recall", "-u", "bob", "cello")
        assert recall.returncode == EXIT_BACKEND and pid in " ".join(recall.stderr.split())
        assert holder.stm.get("bob", "goal") is not None  # the holder sees the other's write
    finally:
        holder.close()
    recall = _cli(tmp_path, "recall", "-u", "bob", "cello", "--json")
    assert recall.returncode == EXIT_OK, recall.stderr
    assert "cello" in json.loads(recall.stdout)["hits"][0]["memory"]["content"]
