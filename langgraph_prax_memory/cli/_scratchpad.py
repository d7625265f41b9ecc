"""The ``stm`` (scratchpad) and ``notes`` (user_notes.md) command groups."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from rich.table import Table

    from langgraph_prax_memory.memory import PraxMemory

from langgraph_prax_memory.cli._app import (
    EXIT_NOT_FOUND,
    EXIT_OK,
    _Call,
    _check_user,
    _command,
    _group,
    _importance,
    _m,
    _Stores,
    _text,
    _UsageError,
    cli,
)

_stm = _group(cli, "stm", "The scratchpad (short-term memory) of a user.")


def _entries_table(user: str, entries: Sequence[Any]) -> Table:
    from rich.table import Table

    table = Table(title=_text(f"scratchpad of {user}"))
    for col in ("key", "content", "importance", "tags", "access", "created"):
        table.add_column(col, overflow="fold")
    for e in entries:
        table.add_row(
            _text(e.key),
            _text(e.content),
            f"{e.importance:g}",
            _text(", ".join(e.tags)),
            str(e.access_count),
            e.created_at.isoformat(timespec="seconds"),
        )
    return table


@_command(_stm, "list", light=True)
def _stm_list(call: _Call, mem: _Stores) -> int:
    """Every entry."""
    user = call.user()
    entries = mem.stm.all(user)
    data: dict[str, Any] = {"user_id": user, "entries": [e.to_json_dict() for e in entries]}
    code = _check_user(call, mem, user, data) if not entries else EXIT_OK
    call.out.emit(data, lambda: call.out.console.print(_entries_table(user, entries)))
    return code


@_command(_stm, "get", light=True)
@click.argument("key")
def _stm_get(call: _Call, mem: _Stores, key: str) -> int:
    """One entry."""
    user = call.user()
    found = mem.stm.get(user, key)
    if found is None:
        call.out.emit(
            {"user_id": user, "entry": None}, lambda: call.out.console.print("no such key")
        )
        return EXIT_NOT_FOUND
    call.out.emit(
        {"user_id": user, "entry": found.to_json_dict()},
        lambda: call.out.console.print(_text(f"{found.key}: {found.content}")),
    )
    return EXIT_OK


@_command(_stm, "set", light=True)
@click.argument("key")
@click.argument("content")
@click.option(
    "--importance",
    type=float,
    callback=_importance,
    help="0..1 (default: the scratchpad's default).",
)
@click.option("--tags", metavar="A,B", help="Comma-separated tags.")
def _stm_set(
    call: _Call,
    mem: _Stores,
    key: str,
    content: str,
    importance: float | None,
    tags: str | None,
) -> int:
    """Write an entry (replacing the one with the same key)."""
    user = call.user()
    entry = mem.stm.write(user, key, content, importance, tags)
    call.out.emit(
        {"user_id": user, "entry": entry.to_json_dict()},
        lambda: call.out.console.print(f"[green]saved[/] {_m(entry.key)}"),
    )
    return EXIT_OK


@_command(_stm, "delete", light=True)
@click.argument("key")
def _stm_delete(call: _Call, mem: _Stores, key: str) -> int:
    """Remove an entry."""
    user = call.user()
    deleted = mem.stm.delete(user, key)
    call.out.emit(
        {"user_id": user, "key": key, "deleted": deleted},
        lambda: call.out.console.print("[green]deleted[/]" if deleted else "no such key"),
    )
    return EXIT_OK if deleted else EXIT_NOT_FOUND


@_command(_stm, "clear", light=True)
def _stm_clear(call: _Call, mem: _Stores) -> int:
    """Remove every entry."""
    user = call.user()
    removed = mem.stm.clear(user)
    call.out.emit(
        {"user_id": user, "removed": removed},
        lambda: call.out.console.print(f"removed {removed} entries"),
    )
    return EXIT_OK


_notes = _group(cli, "notes", "The user's quick-reference notes (user_notes.md, git-backed).")


@_command(_notes, "show", light=True)
def _notes_show(call: _Call, mem: _Stores) -> int:
    """Print the notes."""
    from rich.panel import Panel

    user = call.user()
    content = mem.notes.read(user)
    data: dict[str, Any] = {"user_id": user, "path": str(mem.notes.path(user)), "content": content}
    code = _check_user(call, mem, user, data) if not content.strip() else EXIT_OK
    call.out.emit(
        data,
        lambda: call.out.console.print(
            Panel(_text(content or "(empty)"), title=_text(str(mem.notes.path(user))))
        ),
    )
    return code


@_command(_notes, "edit")
@click.option(
    "--file",
    "file",
    metavar="PATH",
    help="New content from a file ('-' for stdin); without it $VISUAL/$EDITOR opens.",
)
def _notes_edit(call: _Call, mem: PraxMemory, file: str | None) -> int:
    """Replace the notes (compaction and promotion run as on any update)."""
    user = call.user()
    if file == "-":
        content = sys.stdin.read()
    elif file:
        content = Path(file).read_text(encoding="utf-8")
    else:
        content = _edit_in_editor(mem.notes.read(user))
    result = mem.notes.update(user, content)
    data = {
        "user_id": user,
        "raw_commit": result.raw_commit,
        "compaction_commit": result.compaction_commit,
        "triggers": list(result.triggers),
        "promoted": [p.content for p in result.promoted],
        "warnings": list(result.warnings),
    }

    def render() -> None:
        con = call.out.console
        if result.raw_commit is None:
            con.print("notes unchanged")
        else:
            con.print(f"[green]notes saved[/] (commit {result.raw_commit[:10]})")
        if result.compacted:
            con.print(f"compacted: {', '.join(result.triggers)}")
        for warning in result.warnings:
            con.print(f"[yellow]{_m(warning)}[/]")

    call.out.emit(data, render)
    return EXIT_OK


def _edit_in_editor(current: str) -> str:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        raise _UsageError("set $EDITOR, or pass --file PATH (or --file - for stdin)")
    with tempfile.NamedTemporaryFile("w+", suffix=".md", delete=False, encoding="utf-8") as fh:
        fh.write(current)
        path = fh.name
    try:
        subprocess.run([*shlex.split(editor), path], check=True)
        return Path(path).read_text(encoding="utf-8")
    finally:
        Path(path).unlink(missing_ok=True)
