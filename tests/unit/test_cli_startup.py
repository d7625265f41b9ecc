"""The CLI answers at once when it can (issue 27): what each command imports, errors said once.

Each case runs ``prax-memory`` (its ``main``) in a fresh interpreter and reports which heavy
packages ended up in ``sys.modules``: usage errors, bad arguments and the commands that need no
vectors (``stm``, ``notes show``, ``doctor --quick``) must import none of qdrant-client, the
embedded engine, LangChain, LangGraph, the embedding runtime or the Neo4j driver. These are
import checks, not timings (the timings are in ``benchmarks/startup.py``).
"""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.cli import EXIT_BACKEND, EXIT_ERROR, EXIT_OK, EXIT_USAGE, main
from tests.fakes import HashEmbeddings

ROOT = Path(__file__).resolve().parents[2]

#: Top-level packages none of the light commands may import.
HEAVY = (
    "qdrant_client",
    "qdrant_edge",
    "langchain_core",
    "langchain",
    "langchain_qdrant",
    "langsmith",
    "langgraph",
    "fastembed",
    "onnxruntime",
    "huggingface_hub",
    "neo4j",
)

_PROBE = """
import json, sys
from langgraph_prax_memory.cli import main
code = main(sys.argv[1:])
from langgraph_prax_memory._lazy_packages import is_deferred
loaded = {m.split(".")[0] for m, mod in list(sys.modules.items()) if not is_deferred(mod)}
heavy = sorted(loaded & set(HEAVY))
sys.stdout.flush()
print("\\n@@" + json.dumps({"code": code, "heavy": heavy}))
""".replace("HEAVY", repr(HEAVY))


def _run(data: Path, *argv: str, **settings: str) -> dict[str, Any]:
    """``prax-memory ARGV`` in a fresh interpreter on ``data``, with only ``settings`` set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_", "PRAX_MEMORY"))}
    env.update(settings)
    env["MEMORY_DATA_DIR"] = str(data)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert "@@" in proc.stdout, proc.stderr[-3000:]
    report: dict[str, Any] = json.loads(proc.stdout.rsplit("@@", 1)[1])
    report["out"] = proc.stdout.rsplit("@@", 1)[0]
    report["err"] = proc.stderr
    return report


@pytest.mark.parametrize(
    ("argv", "code", "says"),
    [
        (("stm", "list"), EXIT_USAGE, "--user is required"),
        (("remember", "Alice likes tea"), EXIT_USAGE, "--user is required"),
        (("recall", "tea"), EXIT_USAGE, "--user is required"),
        (("remember", "-u", "alice", "tea", "--importance", "5"), EXIT_ERROR, "importance"),
        (("stm", "set", "-u", "alice", "k", "v", "--importance", "-1"), EXIT_ERROR, "importance"),
        (("forget", "-u", "alice", "zz"), EXIT_USAGE, "not a memory id"),
        (("remember", "-u", "bad\x01id", "tea"), EXIT_ERROR, "control characters"),
        (("recall", "-u", "alice", "tea", "-k", "0"), EXIT_USAGE, "-k"),
        (("no-such-command",), EXIT_USAGE, "No such command"),
    ],
)
def test_usage_errors_import_nothing_heavy(
    tmp_path: Path, argv: tuple[str, ...], code: int, says: str
) -> None:
    report = _run(tmp_path, *argv)
    assert report["code"] == code, report["err"]
    assert says in report["err"] + report["out"]
    assert report["heavy"] == [], f"{argv} imported {report['heavy']}"


def test_scratchpad_notes_and_quick_doctor_import_nothing_heavy(tmp_path: Path) -> None:
    saved = _run(tmp_path, "stm", "set", "-u", "alice", "editor", "Helix", "--importance", "0.7")
    assert saved["code"] == EXIT_OK and saved["heavy"] == [], saved
    for argv in (
        ("stm", "list", "-u", "alice"),
        ("stm", "get", "-u", "alice", "editor"),
        ("--json", "stm", "list"),
        ("notes", "show", "-u", "alice"),
        ("doctor", "--quick"),
    ):
        report = _run(tmp_path, *argv, PRAX_MEMORY_USER="alice")
        assert report["code"] == EXIT_OK, (argv, report["err"])
        assert report["heavy"] == [], f"{argv} imported {report['heavy']}"
    listed = _run(tmp_path, "--json", "stm", "list", "-u", "alice")
    entries = json.loads(listed["out"])["entries"]
    assert [(e["key"], e["content"], e["importance"]) for e in entries] == [
        ("editor", "Helix", 0.7)
    ]
    doctor = _run(tmp_path, "--json", "doctor", "--quick")
    statuses = {c["name"]: c["status"] for c in json.loads(doctor["out"])["checks"]}
    assert statuses == {
        "config": "ok",
        "data_dir": "ok",
        "stm": "ok",
        "notes": "ok",
        "embeddings": "skip",
        "vectors": "skip",
        "graph": "skip",
    }


def test_doctor_quick_reports_a_bad_setting(tmp_path: Path) -> None:
    report = _run(tmp_path, "--json", "doctor", "--quick", MEMORY_STM_MAX_ENTRIES="lots")
    assert report["code"] == EXIT_BACKEND
    [check] = json.loads(report["out"])["checks"]
    assert check["name"] == "config" and check["status"] == "fail"
    assert "MEMORY_STM_MAX_ENTRIES" in check["detail"] or "stm_max_entries" in check["detail"]
    assert report["heavy"] == []


def test_an_unknown_user_still_gets_the_hint(tmp_path: Path) -> None:
    """An empty scratchpad: the light command looks further (memories, graph) before saying so."""
    report = _run(tmp_path, "stm", "list", "-u", "nobody")
    assert report["code"] == 4
    assert "has no memories, notes or scratchpad entries" in report["err"]


def test_a_held_store_is_reported_once(tmp_path: Path) -> None:
    """The embedded store held by another process: one message, not a warning plus the error."""
    holder = PraxMemory(
        MemoryConfig(data_dir=tmp_path), embeddings=HashEmbeddings(), embedding_dimension=384
    )
    try:
        holder.remember("alice", "Alice drinks green tea")
        report = _run(tmp_path, "recall", "-u", "alice", "tea")
        assert report["code"] == EXIT_BACKEND
        said = " ".join(report["err"].split())  # rich wraps long lines
        assert said.count("is open in another process") == 1, report["err"]
        assert "unavailable:" in report["err"]
        # the scratchpad does not need the held store at all
        assert _run(tmp_path, "stm", "set", "-u", "alice", "k", "v")["code"] == EXIT_OK
    finally:
        holder.close()


class _Terminal(io.StringIO):
    """A stdin that says it is a terminal and holds the user's answer."""

    def isatty(self) -> bool:
        return True


def _with_data(config: MemoryConfig) -> PraxMemory:
    mem = PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384)
    mem.remember("alice", "Alice drinks green tea")
    mem.stm.write("alice", "editor", "Helix")
    return mem


def test_forget_user_asks_on_a_terminal(
    config: MemoryConfig,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with _with_data(config) as mem:
        monkeypatch.setattr("sys.stdin", _Terminal("bob\n"))
        assert main(["forget-user", "-u", "alice"], memory=mem) == EXIT_USAGE
        captured = capsys.readouterr()
        assert "Type the user id" in captured.out
        assert "not confirmed; nothing was deleted" in captured.err
        assert mem.count("alice") == 1 and mem.stm.get("alice", "editor") is not None

        monkeypatch.setattr("sys.stdin", _Terminal("alice\n"))
        assert main(["forget-user", "-u", "alice"], memory=mem) == EXIT_OK
        assert mem.count("alice") == 0 and mem.stm.all("alice") == []


def test_forget_user_without_a_terminal_needs_yes(
    config: MemoryConfig,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with _with_data(config) as mem:
        piped = io.StringIO("alice\n")  # an answer on a pipe is not a confirmation
        monkeypatch.setattr("sys.stdin", piped)
        assert main(["forget-user", "-u", "alice"], memory=mem) == EXIT_USAGE
        assert "refusing to delete 'alice' without --yes" in capsys.readouterr().err
        assert piped.read() == "alice\n"  # nothing was asked, nothing read
        assert mem.count("alice") == 1
        assert main(["forget-user", "-u", "alice", "--yes"], memory=mem) == EXIT_OK
        assert mem.count("alice") == 0


def test_forget_user_asks_on_a_real_pseudo_terminal(tmp_path: Path) -> None:
    """The real command in its own process, its stdin a pseudo-terminal: it asks, and waits."""
    assert _run(tmp_path, "stm", "set", "-u", "bob", "k", "v")["code"] == EXIT_OK
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_", "PRAX_MEMORY"))}
    env.update(MEMORY_DATA_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    primary, secondary = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "langgraph_prax_memory.cli", "forget-user", "-u", "bob"],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env=env,
        cwd=ROOT,
    )
    os.close(secondary)
    seen, answered, deadline = b"", False, time.monotonic() + 240
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([primary], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(primary, 4096)
                except OSError:  # the command exited and closed the terminal
                    break
                if not chunk:
                    break
                seen += chunk
                if b"Type the user id" in seen and not answered:
                    os.write(primary, b"not-bob\n")
                    answered = True
            elif proc.poll() is not None:
                break
        assert proc.wait(timeout=60) == EXIT_USAGE, seen.decode(errors="replace")
    finally:
        os.close(primary)
        if proc.poll() is None:
            proc.kill()
    assert answered, seen.decode(errors="replace")
    assert b"nothing was deleted" in seen
    assert _run(tmp_path, "--json", "stm", "list", "-u", "bob")["code"] == EXIT_OK
