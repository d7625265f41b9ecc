"""prax-memory: every command, --json output, tables, exit codes (HashEmbeddings memory)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.cli import (
    EXIT_BACKEND,
    EXIT_ERROR,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_USAGE,
    build_parser,
    main,
)


def run(memory: PraxMemory, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv), memory=memory)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(memory: PraxMemory, capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(memory, capsys, *argv, "--json")
    assert code == EXIT_OK, err
    return json.loads(out)


def test_remember_recall_forget(memory: PraxMemory, capsys: pytest.CaptureFixture[str]) -> None:
    stored = run_json(
        memory,
        capsys,
        "remember",
        "-u",
        "alice",
        "Alice prefers polars over pandas",
        "--importance",
        "0.8",
        "--tags",
        "preference,tools",
    )
    memory_id = stored["memory_id"]
    assert memory.get("alice", memory_id).tags == ["preference", "tools"]

    recalled = run_json(memory, capsys, "recall", "-u", "alice", "polars or pandas?", "-k", "3")
    hit = recalled["hits"][0]
    assert hit["memory"]["id"] == memory_id
    assert hit["explanation"].startswith("score ")
    assert set(hit["ranks"]) >= {"dense", "sparse"}
    assert recalled["weights"] and recalled["arms"]

    code, out, _ = run(memory, capsys, "recall", "-u", "alice", "polars or pandas?")
    assert code == EXIT_OK
    assert "arm weights" in out and "fused" in out and "Alice" in out
    assert "memories for" in out

    assert run_json(memory, capsys, "forget", "-u", "alice", memory_id)["deleted"] is True
    code, out, _ = run(memory, capsys, "forget", "-u", "alice", memory_id)
    assert code == EXIT_NOT_FOUND and "no memory" in out


def test_user_is_required(memory: PraxMemory, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(memory, capsys, "recall", "anything")
    assert code == EXIT_USAGE and "--user is required" in err


def test_user_from_environment(
    memory: PraxMemory, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRAX_MEMORY_USER", "erin")
    run_json(memory, capsys, "stm", "set", "k", "v")
    assert memory.stm.get("erin", "k") is not None


def test_validation_error_exit_code(memory: PraxMemory, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(memory, capsys, "remember", "-u", "a", "x", "--importance", "7")
    assert code == EXIT_ERROR and "importance" in err


def test_stm_commands(memory: PraxMemory, capsys: pytest.CaptureFixture[str]) -> None:
    run_json(memory, capsys, "stm", "set", "-u", "a", "goal", "ship", "--importance", "0.9")
    entry = run_json(memory, capsys, "stm", "get", "-u", "a", "goal")["entry"]
    assert entry["content"] == "ship" and entry["importance"] == 0.9
    listed = run_json(memory, capsys, "stm", "list", "-u", "a")
    assert [e["key"] for e in listed["entries"]] == ["goal"]
    code, out, _ = run(memory, capsys, "stm", "list", "-u", "a")
    assert code == EXIT_OK and "goal" in out and "scratchpad of a" in out
    assert run(memory, capsys, "stm", "get", "-u", "a", "nope")[0] == EXIT_NOT_FOUND
    assert run_json(memory, capsys, "stm", "delete", "-u", "a", "goal")["deleted"] is True
    assert run(memory, capsys, "stm", "delete", "-u", "a", "goal")[0] == EXIT_NOT_FOUND
    run_json(memory, capsys, "stm", "set", "-u", "a", "x", "y")
    assert run_json(memory, capsys, "stm", "clear", "-u", "a")["removed"] == 1


def test_notes_show_and_edit(
    memory: PraxMemory,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    src = tmp_path / "notes.md"
    src.write_text("name: Alice\ntimezone: UTC\ntimezone: CET\n")
    edited = run_json(memory, capsys, "notes", "edit", "-u", "a", "--file", str(src))
    assert edited["raw_commit"] and edited["triggers"] == ["duplicate_scalar"]
    shown = run_json(memory, capsys, "notes", "show", "-u", "a")
    assert shown["content"] == "name: Alice\ntimezone: CET\n"

    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nprintf "name: Alice\\n## Aliases\\n- NPR: radio\\n" > "$1"\n')
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)
    run_json(memory, capsys, "notes", "edit", "-u", "a")
    assert "NPR: radio" in memory.notes.read("a")

    monkeypatch.delenv("EDITOR")
    code, _, err = run(memory, capsys, "notes", "edit", "-u", "a")
    assert code == EXIT_USAGE and "$EDITOR" in err


def test_entity_and_graph(memory: PraxMemory, capsys: pytest.CaptureFixture[str]) -> None:
    g = memory.graph
    g.add_relation("a", "Alice", "Project Alpha", "works_on")
    g.add_relation("a", "Project Alpha", "Rust", "related_to")
    g.add_relation("a", "Alice", "dark mode", "prefers")
    g.supersede_relation("a", "Alice", "dark mode", "prefers")
    g.merge_entity("a", "Helix", entity_type="tool")

    ent = run_json(memory, capsys, "entity", "-u", "a", "project alpha")
    assert ent["entity"]["display_name"] == "Project Alpha"
    assert len(ent["relations"]) == 2
    code, out, _ = run(memory, capsys, "entity", "-u", "a", "Alpha")
    assert code == EXIT_NOT_FOUND and "similar: Project Alpha" in out
    history = run_json(memory, capsys, "entity", "-u", "a", "alice", "--history")
    assert len(history["relations"]) == 2

    whole = run_json(memory, capsys, "graph", "-u", "a")
    assert whole["stats"]["entities"] == 5
    assert [line.split(" (")[0] for line in whole["lines"]] == [
        "alice —works_on→ project alpha",
        "project alpha —related_to→ rust",
    ]
    assert len(whole["relations"]) == 2  # current only
    assert len(run_json(memory, capsys, "graph", "-u", "a", "--history")["relations"]) == 3
    code, out, _ = run(memory, capsys, "graph", "-u", "a")
    assert "Helix (tool), no relations" in out

    answer = run_json(memory, capsys, "graph", "-u", "a", "How are Alice and Rust connected?")
    assert answer["bridges"] == [["alice", "project alpha", "rust"]]
    assert run(memory, capsys, "graph", "-u", "a", "zeppelins?")[0] == EXIT_NOT_FOUND


def test_consolidate(
    memory: PraxMemory, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(memory, capsys, "consolidate", "-u", "a")
    assert code == 0 and "batches" in out
    progress: list[tuple[int, int | None]] = []

    def consolidate(user_id: str, *, on_batch: Any) -> dict[str, int]:
        for i in (1, 2):
            on_batch(i, 2)
            progress.append((i, 2))
        return {"batches": 2, "memories_created": 1}

    monkeypatch.setattr(memory, "consolidate", consolidate, raising=False)
    result = run_json(memory, capsys, "consolidate", "-u", "a")
    assert result["result"] == {"batches": 2, "memories_created": 1}
    assert progress == [(1, 2), (2, 2)]
    code, out, _ = run(memory, capsys, "consolidate", "-u", "a")
    assert code == EXIT_OK and "Consolidation finished: batches 2" in out


def test_stats(memory: PraxMemory, capsys: pytest.CaptureFixture[str]) -> None:
    memory.remember("a", "one fact")
    memory.stm.write("a", "k", "v")
    stats = run_json(memory, capsys, "stats", "-u", "a")
    assert (stats["memories"], stats["stm_entries"], stats["entities"]) == (1, 1, 0)
    code, out, _ = run(memory, capsys, "stats", "-u", "a")
    assert code == EXIT_OK and "long-term memories" in out


def _populate(memory: PraxMemory) -> None:
    memory.remember("a", "Alice prefers polars", importance=0.8, tags=["pref"])
    memory.remember("a", "Alice met Bob in 2024", created_at="2024-05-01T10:00:00+00:00")
    memory.graph.add_relation("a", "Alice", "Bob", "related_to", evidence="met")
    memory.graph.add_relation("a", "Alice", "dark mode", "prefers")
    memory.graph.supersede_relation("a", "Alice", "dark mode", "prefers")
    memory.graph.merge_temporal_event("a", "Alice met Bob", participants=["Alice", "Bob"])
    memory.graph.add_causal_link("a", "deadline moved", "Alice works weekends")
    memory.stm.write("a", "goal", "ship", importance=0.7, tags=["task"])
    memory.notes.update("a", "name: Alice\n")
    memory.remember("other", "someone else's secret")


def test_export_import_round_trip_is_idempotent(
    memory: PraxMemory, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _populate(memory)
    path = tmp_path / "alice.jsonl"
    summary = run_json(memory, capsys, "export", "-u", "a", "-o", str(path))
    assert summary["complete"] is True
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["format"] == "prax-memory-export" and header["version"] == 1
    assert header["counts"] == {
        "memory": 2,
        "entity": 3,
        "relation": 2,
        "event": 1,
        "causal_link": 1,
        "stm": 1,
        "notes": 1,
    }
    assert "secret" not in path.read_text()

    # Same user: everything already there.
    again = run_json(memory, capsys, "import", str(path))
    assert again["created"] == {} and sum(again["skipped"].values()) == 11

    # Into a new user, twice: the second import changes nothing.
    first = run_json(memory, capsys, "import", str(path), "-u", "b")
    assert first["created"] == header["counts"]
    second = run_json(memory, capsys, "import", str(path), "-u", "b")
    assert second["created"] == {}
    assert memory.count("b") == 2
    assert memory.graph.stats("b") == memory.graph.stats("a")
    assert [e.key for e in memory.stm.all("b")] == ["goal"]
    assert memory.notes.read("b") == "name: Alice\n"
    old = next(m for m in memory.list_memories("b") if "2024" in m.content)
    assert old.created_at.year == 2024
    current = memory.graph.get_entity("b", "alice")
    assert current is not None and {r.target for r in current.relations} == {"bob"}


def test_export_to_stdout_and_import_errors(
    memory: PraxMemory, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    memory.stm.write("a", "k", "v")
    code, out, _ = run(memory, capsys, "export", "-u", "a")
    assert code == EXIT_OK and json.loads(out.splitlines()[0])["user_id"] == "a"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "memory"}\n')
    code, _, err = run(memory, capsys, "import", str(bad))
    assert code == EXIT_ERROR and "not a prax-memory-export" in err
    newer = tmp_path / "newer.jsonl"
    newer.write_text('{"type": "header", "format": "prax-memory-export", "version": 99}\n')
    assert "newer" in run(memory, capsys, "import", str(newer))[2]
    assert run(memory, capsys, "import", str(tmp_path / "missing.jsonl"))[0] == EXIT_ERROR


def test_forget_user_receipt(
    memory: PraxMemory, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _populate(memory)
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    code, _, err = run(memory, capsys, "forget-user", "-u", "a")
    assert code == EXIT_USAGE and "--yes" in err
    receipt = run_json(memory, capsys, "forget-user", "-u", "a", "--yes")["removed"]
    assert receipt["memories"] == 2 and receipt["stm_entries"] == 1
    assert receipt["entities"] == 3 and receipt["relations"] == 2
    assert receipt["temporal_events"] == 1 and receipt["causal_links"] == 1
    assert receipt["notes_lines"] == 1 and receipt["workspace_files"] > 0
    assert memory.count("a") == 0 and memory.notes.read("a") == ""
    assert memory.count("other") == 1
    code, out, _ = run(memory, capsys, "forget-user", "-u", "other", "--yes", "--keep-notes")
    assert code == EXIT_OK and "memories" in out


def test_doctor(memory: PraxMemory, capsys: pytest.CaptureFixture[str]) -> None:
    checks = run_json(memory, capsys, "doctor")["checks"]
    assert [c["name"] for c in checks] == [
        "data_dir",
        "stm",
        "notes",
        "embeddings",
        "vectors",
        "graph",
    ]
    assert all(c["status"] == "ok" for c in checks), checks
    code, out, _ = run(memory, capsys, "doctor")
    assert code == EXIT_OK and "prax-memory doctor" in out


def test_doctor_fails_on_a_broken_backend(
    memory: PraxMemory, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from langgraph_prax_memory import BackendUnavailable

    def down(user_id: str) -> int:
        raise BackendUnavailable("qdrant unreachable")

    monkeypatch.setattr(memory, "count", down)
    code, out, _ = run(memory, capsys, "doctor", "--json")
    assert code == EXIT_BACKEND
    vectors = next(c for c in json.loads(out)["checks"] if c["name"] == "vectors")
    assert vectors["status"] == "fail" and "qdrant unreachable" in vectors["detail"]


def test_ltm_disabled(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mem = PraxMemory(MemoryConfig(enabled=False, data_dir=tmp_path / "off"))
    try:
        code, _, err = run(mem, capsys, "recall", "-u", "a", "x")
        assert code == EXIT_BACKEND and "not available" in err
        assert run_json(mem, capsys, "stm", "set", "-u", "a", "k", "v")["entry"]["key"] == "k"
        checks = run_json(mem, capsys, "doctor")["checks"]
        assert [c["status"] for c in checks[-3:]] == ["skip", "skip", "skip"]
        assert run_json(mem, capsys, "stats", "-u", "a")["ltm_available"] is False
    finally:
        mem.close()


def test_every_command_has_json_and_help() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    names = set(sub.choices)  # type: ignore[union-attr]
    assert names == {
        "demo",
        "remember",
        "recall",
        "forget",
        "stm",
        "notes",
        "entity",
        "graph",
        "consolidate",
        "stats",
        "export",
        "import",
        "forget-user",
        "doctor",
    }
    for name in names - {"stm", "notes"}:
        assert "--json" in sub.choices[name].format_help()  # type: ignore[union-attr]


def test_usage_error_from_argparse() -> None:
    with pytest.raises(SystemExit) as exc:
        main(["no-such-command"])
    assert exc.value.code == EXIT_USAGE
