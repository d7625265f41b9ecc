"""`prax-memory import` / `export` at the edges (issue 40, items 5-8): who an import writes into,
files that are no export, and exports that cannot be complete."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from langgraph_prax_memory import PraxMemory
from langgraph_prax_memory.cli import EXIT_ERROR, EXIT_OK, EXIT_USAGE, main

ROOT = Path(__file__).parents[2]


def run(memory: PraxMemory, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv), memory=memory)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _victim(memory: PraxMemory) -> dict[str, object]:
    """Bob's data before an attack: what must be the same afterwards."""
    memory.remember("bob", "Bob's own secret plan", key="plan")
    memory.graph.add_relation("bob", "Bob", "Acme", "works_at")
    memory.stm.write("bob", "todo", "Bob's own todo")
    memory.notes.update("bob", "name: Bob\n")
    return _state(memory, "bob")


def _state(memory: PraxMemory, user: str) -> dict[str, object]:
    return {
        "memories": sorted(m.content for m in memory.list_memories(user)),
        "graph": memory.graph.stats(user),
        "stm": [(e.key, e.content) for e in memory.stm.all(user)],
        "notes": memory.notes.read(user),
    }


def _crafted(path: Path) -> Path:
    """An export whose header names bob, whose records name bob and reuse bob's key."""
    rows = [
        {"type": "header", "format": "prax-memory-export", "version": 1, "user_id": "bob"},
        {"type": "memory", "user_id": "bob", "key": "plan", "content": "OVERWRITTEN by a file"},
        {"type": "entity", "user_id": "bob", "name": "bob", "display_name": "Bob"},
        {
            "type": "relation",
            "user_id": "bob",
            "source": "bob",
            "target": "evil corp",
            "relation_type": "works_at",
            "valid_from": "2026-01-01T00:00:00+00:00",
        },
        {"type": "stm", "user_id": "bob", "key": "todo", "content": "OVERWRITTEN todo"},
        {"type": "notes", "user_id": "bob", "content": "name: OVERWRITTEN\n"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_an_import_without_a_user_is_refused_off_a_terminal_and_writes_nothing(
    memory: PraxMemory,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    before = _victim(memory)
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    monkeypatch.delenv("PRAX_MEMORY_USER", raising=False)
    code, _, err = run(memory, capsys, "import", str(_crafted(tmp_path / "f.jsonl")))
    assert code == EXIT_USAGE
    assert "--user" in err and "header" in err
    assert _state(memory, "bob") == before


def test_an_import_writes_only_into_the_user_named_on_the_command_line(
    memory: PraxMemory, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    before = _victim(memory)
    code, out, err = run(
        memory, capsys, "import", str(_crafted(tmp_path / "f.jsonl")), "-u", "alice", "--json"
    )
    assert code == EXIT_OK, err
    assert json.loads(out)["user_id"] == "alice"
    assert _state(memory, "bob") == before  # the file's header and records name bob: no effect
    alice = _state(memory, "alice")
    assert alice["memories"] == ["OVERWRITTEN by a file"]
    assert alice["stm"] == [("todo", "OVERWRITTEN todo")]
    assert alice["notes"] == "name: OVERWRITTEN\n"
    rel = memory.graph.get_entity("alice", "bob")
    assert rel is not None and [r.target for r in rel.relations] == ["evil corp"]


def test_the_library_needs_the_target_user_too(memory: PraxMemory, tmp_path: Path) -> None:
    from langgraph_prax_memory import MemoryValidationError

    before = _victim(memory)
    lines = _crafted(tmp_path / "f.jsonl").read_text().splitlines()
    with pytest.raises(MemoryValidationError, match="user_id"):
        memory.import_user(lines)
    assert _state(memory, "bob") == before


def test_an_import_from_stdin_needs_the_user_on_the_command_line(
    memory: PraxMemory,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    import io

    before = _victim(memory)
    data = _crafted(tmp_path / "f.jsonl").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    monkeypatch.delenv("PRAX_MEMORY_USER", raising=False)
    code, _, err = run(memory, capsys, "import", "-")
    assert code == EXIT_USAGE and "--user" in err
    assert _state(memory, "bob") == before
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    code, _, err = run(memory, capsys, "import", "-", "-u", "carol")
    assert code == EXIT_OK, err
    assert _state(memory, "carol")["stm"] == [("todo", "OVERWRITTEN todo")]
    assert _state(memory, "bob") == before


def _pty_run(argv: list[str], answer: str, env: dict[str, str]) -> tuple[int, str]:
    """Run the real command on a pseudo-terminal, typing ``answer`` at its question."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        argv, stdin=follower, stdout=follower, stderr=follower, env=env, cwd=ROOT
    )
    os.close(follower)
    seen = b""
    answered = False
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the command ended and closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        if not answered and b"which user" in seen:
            os.write(leader, answer.encode() + b"\n")
            answered = True
        if proc.poll() is not None and not ready:
            break
    code = proc.wait(timeout=60)
    os.close(leader)
    return code, seen.decode("utf-8", "replace")


def test_on_a_terminal_an_import_without_a_user_asks_for_one(tmp_path: Path) -> None:
    data = tmp_path / "data"
    rows = [
        {"type": "header", "format": "prax-memory-export", "version": 1, "user_id": "bob"},
        {"type": "stm", "key": "todo", "content": "from the file"},
    ]
    path = tmp_path / "f.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = {k: v for k, v in os.environ.items() if k != "PRAX_MEMORY_USER"}
    env.update(MEMORY_DATA_DIR=str(data), QDRANT_URL=":memory:", COLUMNS="100")
    cli = [sys.executable, "-m", "langgraph_prax_memory.cli"]
    code, screen = _pty_run([*cli, "import", str(path)], "dora", env)
    assert code == EXIT_OK, screen
    assert "which user" in screen and "dora" in screen
    stm = json.loads((data / "users" / "dora" / "memory" / "stm.json").read_text())
    assert [e["content"] for e in stm] == ["from the file"]
    assert not (data / "users" / "bob").exists()
    code, screen = _pty_run([*cli, "import", str(path)], "", env)  # nothing typed: nothing done
    assert code == EXIT_USAGE, screen
    assert not (data / "users" / "bob").exists()


# ------------------------------------------------- unreadable files (issue 40, item 7)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"type": "notes", "content": "Z\xfcrich"}\n', "not valid UTF-8"),
        (b'{"type": "notes", "content": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n", "deep"),
    ],
    ids=["invalid-utf8", "100000-deep"],
)
def test_an_unreadable_file_is_a_clear_error_not_a_traceback(
    memory: PraxMemory,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    content: bytes,
    message: str,
) -> None:
    header = b'{"type": "header", "format": "prax-memory-export", "version": 1}\n'
    path = tmp_path / "bad.jsonl"
    path.write_bytes(header + content)
    code, _, err = run(memory, capsys, "import", str(path), "-u", "carol")
    assert code == EXIT_ERROR
    assert message in err and "line 2" in err and "Traceback" not in err
    assert memory.notes.read("carol") == ""


def test_a_string_version_is_not_called_newer(
    memory: PraxMemory, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "v.jsonl"
    path.write_text('{"type": "header", "format": "prax-memory-export", "version": "1"}\n')
    code, _, err = run(memory, capsys, "import", str(path), "-u", "carol")
    assert code == EXIT_ERROR
    assert "not a number" in err and "newer" not in err


# ------------------------------------------------- exports that cannot be complete (item 8)


def test_an_export_that_cannot_be_complete_exits_non_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from langgraph_prax_memory import MemoryConfig

    config = MemoryConfig(enabled=False, data_dir=tmp_path / "data")
    with PraxMemory(config) as disabled:
        disabled.stm.write("alice", "goal", "ship")
        disabled.graph.merge_entity("alice", "Tbilisi")
        out = tmp_path / "alice.jsonl"
        code, _, err = run(disabled, capsys, "export", "-u", "alice", "-o", str(out))
        assert code == 3
        assert "incomplete" in err and "long-term memory is disabled" in err
        header = json.loads(out.read_text().splitlines()[0])
        assert header["complete"] is False  # what was read is written, and says so
        code, stdout, err = run(disabled, capsys, "export", "-u", "alice")
        assert code == 3 and json.loads(stdout.splitlines()[0])["complete"] is False


def test_a_complete_export_of_many_entities_in_any_script_exits_zero(
    memory: PraxMemory, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for i in range(1200):
        memory.graph.merge_entity("alice", f"topic {i}", importance=0.9)
    memory.graph.merge_entity("alice", "กรุงเทพ", importance=0.01)
    out = tmp_path / "alice.jsonl"
    code, _, err = run(memory, capsys, "export", "-u", "alice", "-o", str(out))
    assert code == EXIT_OK, err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["complete"] is True and rows[0]["counts"]["entity"] == 1201
    assert "กรุงเทพ" in {r.get("display_name") for r in rows}
