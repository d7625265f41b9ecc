"""prax-memory: every command, --json output, tables, exit codes (HashEmbeddings memory)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.cli import (
    EXIT_BACKEND,
    EXIT_BROKEN_PIPE,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_USAGE,
    cli,
    main,
    shortest_unique_prefixes,
)
from langgraph_prax_memory.retrieval._recall import ltm_namespace
from langgraph_prax_memory.vectors._plan import point_id

DOCS = Path(__file__).parents[2] / "docs" / "cli.md"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def plain(text: str) -> str:
    """Terminal output without its colour and cursor sequences."""
    return _ANSI.sub("", text)


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
    assert "arm weights" in out and "relevance" in out and "Alice" in out
    assert "memories for" in out and memory_id[:8] in out

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
    code, out, err = run(memory, capsys, "consolidate", "-u", "a")
    assert code == 0 and "batches" in out
    assert "nothing to consolidate" in err and "--trace" in err  # a new user learns how
    calls: list[tuple[int, int | None, str]] = []

    def consolidate(user_id: str, source: Any = None, *, progress: Any) -> dict[str, int]:
        for step in ((0, None), (0, 2), (1, 2), (2, 2)):
            progress(*step, "batches")
            calls.append((*step, "batches"))
        return {"batches": 2, "memories_created": 1}

    monkeypatch.setattr(memory, "consolidate", consolidate, raising=False)
    result = run_json(memory, capsys, "consolidate", "-u", "a")
    assert result["result"] == {"batches": 2, "memories_created": 1}
    assert calls[-1] == (2, 2, "batches")
    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # stderr counts as a terminal: the bar is drawn
    code, out, err = run(memory, capsys, "consolidate", "-u", "a")
    assert code == EXIT_OK and "Consolidation finished: batches 2" in plain(out)
    err = plain(err)
    assert "batches" in err and "2/2" in err and "None" not in err


def test_consolidate_a_transcript_with_progress(
    memory: PraxMemory,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trace = tmp_path / "talk.txt"
    trace.write_text(
        "user: I moved to Berlin last month and I work at Acme Corp now.\n"
        "assistant: Congratulations!\n"
        "user: My sister Jane lives in Hamburg.\n"
    )
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    code, _, err = run(memory, capsys, "consolidate", "-u", "a", "--trace", str(trace))
    assert code == EXIT_OK, err
    err = plain(err)
    assert re.search(r"batches\s.*\b1/1\b", err), err  # the bar reached its known total
    assert "0/?" in err and "None" not in err  # unknown at first, and said so
    result = run_json(memory, capsys, "consolidate", "-u", "a", "--trace", str(trace))
    assert result["result"]["batches"] == 0  # already consolidated: nothing read twice
    code, _, err = run(memory, capsys, "consolidate", "-u", "a", "--trace", str(tmp_path / "no"))
    assert code == EXIT_USAGE and "no such trace file" in err


def test_stats(memory: PraxMemory, capsys: pytest.CaptureFixture[str]) -> None:
    memory.remember("a", "one fact")
    memory.stm.write("a", "k", "v")
    stats = run_json(memory, capsys, "stats", "-u", "a")
    assert (stats["memories"], stats["stm_entries"], stats["entities"]) == (1, 1, 0)
    assert stats["hygiene"]["scanned"] == 1 and stats["hygiene"]["never_recalled"] == 1
    code, out, _ = run(memory, capsys, "stats", "-u", "a")
    assert code == EXIT_OK and "long-term memories" in out
    assert "hygiene: duplicates" in out and "never recalled" in out  # issue 15's report


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
    again = run_json(memory, capsys, "import", str(path), "-u", "a")
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
    code, _, err = run(memory, capsys, "import", str(bad), "-u", "a")
    assert code == EXIT_ERROR and "not a prax-memory-export" in err
    newer = tmp_path / "newer.jsonl"
    newer.write_text('{"type": "header", "format": "prax-memory-export", "version": 99}\n')
    assert "newer" in run(memory, capsys, "import", str(newer), "-u", "a")[2]
    missing = str(tmp_path / "missing.jsonl")
    assert run(memory, capsys, "import", missing, "-u", "a")[0] == EXIT_ERROR


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

    monkeypatch.setattr(memory.ltm, "count", down)
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


def _commands(
    group: click.Group, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    for name, command in group.commands.items():
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*path, name))


def test_every_command_has_json_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    names = {" ".join(path) for path, _ in _commands(cli)}
    assert names >= {
        "demo",
        "remember",
        "recall",
        "forget",
        "stm",
        "stm list",
        "notes show",
        "entity",
        "graph",
        "consolidate",
        "stats",
        "export",
        "import",
        "forget-user",
        "doctor",
        "knowledge ingest",
        "knowledge search",
        "reembed",
        "decay",
    }
    for path, command in _commands(cli):
        assert main([*path, "--help"]) == EXIT_OK
        text = capsys.readouterr().out
        for option in ("--json", "--user", "--data-dir"):
            assert option in text, (path, option)
        for param in command.params:  # per-option help
            if isinstance(param, click.Option):
                assert param.help, (path, param.name)


def test_docs_match_help() -> None:
    """docs/cli.md names every command and every option ``--help`` shows."""
    docs = DOCS.read_text()
    for path, command in [((), cli), *_commands(cli)]:
        assert not path or f"`{' '.join(path)}" in docs or f"| `{path[-1]}" in docs, path
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("-") and opt not in ("--help", "-h"):
                    assert re.search(rf"`[^`]*{re.escape(opt)}\b", docs), (path, opt)
    for code in ("0", "1", "2", "3", "4", "130", "141"):
        assert re.search(rf"^\| {code} \|", docs, re.M), code


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from langgraph_prax_memory import __version__

    assert main(["--version"]) == EXIT_OK
    assert capsys.readouterr().out.strip() == f"prax-memory {__version__}"


def test_global_options_work_in_any_position(
    memory: PraxMemory, capsys: pytest.CaptureFixture[str]
) -> None:
    memory.stm.write("alice", "goal", "ship")
    memory.stm.write("bob", "goal", "rest")
    for argv in (
        ["stm", "-u", "alice", "list", "--json"],
        ["stm", "--json", "list", "-u", "alice"],
        ["--json", "-u", "alice", "stm", "list"],
        ["-u", "alice", "stm", "--json", "list"],
        ["stm", "list", "--json", "--user", "alice"],
        ["-u", "bob", "stm", "-u", "alice", "list", "--json"],  # the nearer value wins
    ):
        code, out, err = run(memory, capsys, *argv)
        assert code == EXIT_OK, (argv, err)
        data = json.loads(out)
        assert data["user_id"] == "alice" and data["entries"][0]["content"] == "ship", argv


def test_usage_errors_return_two(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no-such-command"]) == EXIT_USAGE
    assert "No such command" in capsys.readouterr().err
    assert main(["recall"]) == EXIT_USAGE  # missing QUERY
    assert main(["recall", "q", "-k", "0"]) == EXIT_USAGE
    assert main(["stm"]) == EXIT_USAGE  # a group alone prints its help
    assert "list" in capsys.readouterr().out


def test_remember_uses_the_api_default_source(
    memory: PraxMemory, capsys: pytest.CaptureFixture[str]
) -> None:
    memory_id = run_json(memory, capsys, "remember", "-u", "a", "Alice likes tea")["memory_id"]
    assert memory.get("a", memory_id).source == "conversation"


def test_recall_table_fits_80_columns_and_shows_ids_forget_accepts(
    memory: PraxMemory, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    ids = [
        memory.remember("a", text, importance=0.7)
        for text in (
            "Alice prefers polars over pandas for large dataframes at work and at home, "
            "and she says so in every code review she attends",
            "Alice drinks green tea in the morning",
            "Alice's team uses pandas for small scripts",
        )
    ]
    code, out, _ = run(memory, capsys, "recall", "-u", "a", "pandas polars tea", "-k", "3")
    assert code == EXIT_OK
    assert max(len(line) for line in out.splitlines()) <= 80
    shown = re.findall(r"│\s*\d+\s*│\s*([0-9a-f-]{8,36})\s*│\s*([0-9.]+)\s*│", out)
    assert len(shown) == 3 and all(float(score) > 0 for _, score in shown)
    recalled = run_json(memory, capsys, "recall", "-u", "a", "pandas polars tea", "-k", "3")
    assert [h["id_prefix"] for h in recalled["hits"]] == [p for p, _ in shown]
    prefix = shown[0][0]
    target = next(i for i in ids if i.startswith(prefix))
    assert run_json(memory, capsys, "forget", "-u", "a", prefix)["memory_id"] == target
    assert memory.get("a", target) is None


def test_forget_refuses_an_ambiguous_prefix(
    memory: PraxMemory, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: dict[str, str] = {}
    for i in range(100_000):  # two keys whose point ids share their first 4 hex digits
        key = f"k{i}"
        head = point_id(ltm_namespace("a"), key)[:4]
        if head in seen:
            pair = (seen[head], key)
            break
        seen[head] = key
    first = memory.remember("a", "Alice likes tea", key=pair[0])
    second = memory.remember("a", "Alice likes coffee", key=pair[1])
    code, _, err = run(memory, capsys, "forget", "-u", "a", first[:4])
    assert code == EXIT_USAGE and "ambiguous" in err and "2 memories" in " ".join(err.split())
    assert memory.get("a", first) is not None and memory.get("a", second) is not None
    unique = shortest_unique_prefixes([first], [first, second], minimum=4)[first]
    assert len(unique) > 4 and not second.startswith(unique)
    assert run_json(memory, capsys, "forget", "-u", "a", unique)["deleted"] is True
    assert memory.get("a", second) is not None
    assert run(memory, capsys, "forget", "-u", "a", "xyz!")[0] == EXIT_USAGE
    assert run(memory, capsys, "forget", "-u", "a", "0000")[0] == EXIT_NOT_FOUND


def test_shortest_unique_prefixes() -> None:
    ids = ["abcdef12", "abcdef34", "99999999"]
    assert shortest_unique_prefixes(ids, ids, minimum=2) == {
        "abcdef12": "abcdef1",
        "abcdef34": "abcdef3",
        "99999999": "99",
    }


def test_unknown_user_gets_a_hint(memory: PraxMemory, capsys: pytest.CaptureFixture[str]) -> None:
    memory.remember("known", "Known likes tea")
    for argv in (
        ["stats", "-u", "nobody"],
        ["recall", "-u", "nobody", "tea"],
        ["stm", "list", "-u", "nobody"],
        ["notes", "show", "-u", "nobody"],
        ["graph", "-u", "nobody"],
        ["export", "-u", "nobody"],
    ):
        code, out, err = run(memory, capsys, *argv)
        assert code == EXIT_NOT_FOUND, argv
        assert "has no memories, notes or scratchpad" in " ".join(err.split()), argv
        code, out, err = run(memory, capsys, *argv, "--json")
        assert code == EXIT_NOT_FOUND, argv
        data = json.loads(out)
        assert data["unknown_user"] is True and "prax-memory remember" in data["hint"], argv
    assert run(memory, capsys, "stats", "-u", "known")[0] == EXIT_OK


def test_reembed_and_decay_commands(memory: PraxMemory, capsys: pytest.CaptureFixture[str]) -> None:
    memory.remember("a", "Alice likes tea", importance=0.9)
    memory.remember("a", "Alice once sneezed", importance=0.01, created_at="2001-01-01T00:00:00Z")
    assert run_json(memory, capsys, "reembed", "-u", "a", "--force")["reembedded"] == 2
    dry = run_json(memory, capsys, "decay", "-u", "a", "--dry-run")
    assert len(dry["pruned"]) == 1 and memory.count("a") == 2
    assert len(run_json(memory, capsys, "decay", "-u", "a")["pruned"]) == 1
    assert memory.count("a") == 1


def test_knowledge_ingest_and_search(
    memory: PraxMemory, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    doc = tmp_path / "rrf.md"
    doc.write_text("# Reciprocal Rank Fusion\nReciprocal Rank Fusion combines rankings.\n")
    code_dir = tmp_path / "pkg"
    code_dir.mkdir()
    (code_dir / "engine.py").write_text('class Engine:\n    """Runs jobs."""\n')
    done = run_json(memory, capsys, "knowledge", "ingest", "-u", "a", str(doc), str(code_dir))
    by_path = {r["path"]: r for r in done["results"]}
    assert by_path[str(doc)]["namespace"] == "uploads" and by_path[str(doc)]["concepts"] > 0
    assert by_path[str(code_dir)]["namespace"] == "codebase"
    found = run_json(memory, capsys, "knowledge", "search", "-u", "a", "rank fusion", "-k", "3")
    assert "Reciprocal Rank Fusion" in [h["concept"]["display_name"] for h in found["hits"]]
    code, out, _ = run(memory, capsys, "knowledge", "search", "-u", "a", "Engine", "-n", "codebase")
    assert code == EXIT_OK and "Engine" in out
    again = run_json(memory, capsys, "knowledge", "ingest", "-u", "a", str(doc))
    assert again["results"][0]["skipped"] is True


def test_demo_uses_a_temporary_folder_unless_data_dir_is_given(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    default = Path(os.environ["MEMORY_DATA_DIR"])
    assert main(["demo", "--json", "-k", "2"]) == EXIT_OK
    data = json.loads(capsys.readouterr().out)
    assert data["kept"] is False and not Path(data["data_dir"]).exists()
    assert len(data["hits"]) == 2
    assert not default.exists()  # the real default data folder was not touched
    kept = tmp_path / "demo-data"
    assert main(["--data-dir", str(kept), "demo", "--json", "-k", "2"]) == EXIT_OK
    data = json.loads(capsys.readouterr().out)
    assert data["kept"] is True and Path(data["data_dir"]) == kept and kept.is_dir()


def test_demo_shows_the_context_the_agent_would_receive(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The WITH-memory block is build_memory_context's: relevant hits, then standing facts;
    an episode below the floor stays out."""
    assert main(["demo", "--json", "-k", "6"]) == EXIT_OK
    data = json.loads(capsys.readouterr().out)
    relevant = [h["memory"]["id"] for h in data["hits"] if h["relevant"]]
    assert relevant and data["injected"][: len(relevant)] == relevant  # Rust clears the floor
    assert set(data["injected"][len(relevant) :]) == set(data["profile"])
    below = [
        h["memory"]["content"]
        for h in data["hits"]
        if not h["relevant"] and h["memory"]["id"] not in data["profile"]
    ]
    assert "Rust" in data["with_memory"]
    assert below and not any(text in data["with_memory"] for text in below)
    assert "coffee" not in data["with_memory"]  # the minor episode
    assert main(["demo", "-k", "6"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "no: below the floor" in out and "standing fact" in out


def _process(*argv: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "langgraph_prax_memory.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **env},
    )


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """``prax-memory ... | head``: the reader leaves first; no traceback, exit code 141."""
    env = {"MEMORY_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1"}
    for argv in (["stm", "list", "-u", "nobody", "--json"], ["--help"]):
        proc = _process(*argv, env=env)
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # like `head` exiting before the first write
        err = proc.stderr.read().decode()
        code = proc.wait(timeout=120)
        assert "Traceback" not in err and "Exception ignored" not in err, err
        assert code in (EXIT_BROKEN_PIPE, 1), (argv, code, err)
    proc = _process("stm", "list", "-u", "nobody", "--json", env=env)
    assert proc.stdout is not None
    proc.stdout.close()
    assert proc.wait(timeout=120) == EXIT_BROKEN_PIPE


def test_a_real_pipe_into_head(tmp_path: Path) -> None:
    env = {**os.environ, "MEMORY_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1"}
    cmd = f"{sys.executable} -m langgraph_prax_memory.cli doctor --help | head -n 1"
    done = subprocess.run(cmd, shell=True, capture_output=True, text=True, env=env, timeout=120)
    assert done.stdout.startswith("Usage: prax-memory doctor")
    assert "Traceback" not in done.stderr and "Error" not in done.stderr, done.stderr


def test_interrupt_exits_130(
    memory: PraxMemory, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(memory, "recall_detailed", interrupted)
    code, _, err = run(memory, capsys, "recall", "-u", "a", "tea")
    assert code == EXIT_INTERRUPTED and "interrupted" in err and "Traceback" not in err


def test_click_runner_drives_the_group_directly(tmp_path: Path) -> None:
    from click.testing import CliRunner

    data = tmp_path / "runner"
    result = CliRunner().invoke(
        cli, ["--data-dir", str(data), "stm", "set", "goal", "ship", "-u", "r", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["entry"]["key"] == "goal"
    listed = CliRunner().invoke(cli, ["stm", "--data-dir", str(data), "list", "-u", "r", "--json"])
    assert [e["key"] for e in json.loads(listed.output)["entries"]] == ["goal"]
