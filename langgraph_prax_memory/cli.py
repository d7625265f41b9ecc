"""The ``prax-memory`` command line.

Every command that touches a user's memory takes ``--user``; every command takes ``--json``
for scripts (one JSON document on stdout). Exit codes: ``0`` success, ``1`` a memory error
(bad input, a write that did not land), ``2`` a usage error, ``3`` a backend is unavailable
(or ``doctor`` found a failing check), ``4`` the thing asked for does not exist.

Example:
    >>> from langgraph_prax_memory.cli import build_parser
    >>> build_parser().parse_args(["recall", "--user", "alice", "dark mode"]).query
    'dark mode'
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from langgraph_prax_memory._doctor import Check, diagnose, run_checks
from langgraph_prax_memory._graph_query import answer_graph_question, describe_relation
from langgraph_prax_memory._portable import (
    PortableFormatError,
    export_user,
    forget_user,
    graph_entities,
    graph_relations,
    import_user,
)
from langgraph_prax_memory._stats import collect_stats
from langgraph_prax_memory._untrusted import safe_for_terminal
from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.context import format_memories
from langgraph_prax_memory.errors import BackendUnavailable, DeletionIncomplete, PraxMemoryError
from langgraph_prax_memory.memory import PraxMemory
from langgraph_prax_memory.tools import _jsonable, consolidation_hook, summarise_consolidation

__all__ = [
    "EXIT_BACKEND",
    "EXIT_ERROR",
    "EXIT_NOT_FOUND",
    "EXIT_OK",
    "EXIT_USAGE",
    "build_parser",
    "main",
]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_BACKEND = 3
EXIT_NOT_FOUND = 4

DEMO_USER = "demo-user"
DEMO_FACTS: list[tuple[str, float, str]] = [
    ("User prefers Rust for systems projects and Python for scripts.", 0.8, "preference,language"),
    ("User uses NixOS with flake-based project templates.", 0.7, "preference,tooling"),
    ("User insists on MIT license for all personal projects.", 0.9, "preference,license"),
    ("User's preferred editor is Helix with catppuccin theme.", 0.6, "preference,editor"),
    ("User mentioned having coffee before the standup.", 0.2, "minor"),
    ("User is a data scientist at FinCorp working on fraud detection with XGBoost.", 0.8, "work"),
]
DEMO_QUESTION = "Can you help me set up a new project?"


class _SafeConsole(Console):
    r"""A rich console that never lets stored text drive the terminal.

    Every string it renders (markup strings and table cells) has its control sequences made
    visible first (:func:`safe_for_terminal`); :func:`_text` does the same for ``Text``
    objects and :func:`_m` escapes stored text interpolated into markup, so a memory holding
    ``\x1b[2J`` or ``[blink]`` is shown, not executed.
    """

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(safe_for_terminal(text), **kwargs)


def _text(value: str, **kwargs: Any) -> Text:
    """A ``Text`` of stored (untrusted) text, control sequences made visible."""
    return Text(safe_for_terminal(value), **kwargs)


def _m(value: object) -> str:
    """Stored text to interpolate into rich markup: control sequences and markup inert."""
    return escape(safe_for_terminal(str(value)))


def _config(args: argparse.Namespace) -> MemoryConfig:
    overrides = {}
    if getattr(args, "data_dir", None):
        overrides["data_dir"] = Path(args.data_dir)
    return MemoryConfig(**overrides)


def _demo(args: argparse.Namespace, console: Console) -> int:
    with PraxMemory(_config(args)) as memory:
        for content, importance, tags in DEMO_FACTS:
            memory.remember(DEMO_USER, content, importance=importance, tags=tags)
        result = memory.recall_detailed(DEMO_USER, args.question, k=args.k, reinforce=False)
        block = format_memories(result.hits)
        if args.json:
            print(
                json.dumps(
                    {
                        "question": args.question,
                        "without_memory": "",
                        "with_memory": block,
                        "hits": [h.model_dump(mode="json") for h in result.hits],
                    },
                    indent=2,
                )
            )
            return 0
        console.print(
            f"[bold]Stored {len(DEMO_FACTS)} facts for[/] {DEMO_USER} "
            f"in {_m(memory.config.data_dir)}"
        )
        console.print(f"[bold]Follow-up question:[/] {_m(args.question)}\n")
        console.print(Panel("(empty)", title="WITHOUT memory: the context the agent receives"))
        console.print(
            Panel(
                _text(block or "(nothing relevant)"),
                title=f"WITH memory: {len(result.hits)} facts recalled",
            )
        )
        table = Table(title="Why each memory ranked where it did")
        for col in ("#", "memory", "dense", "sparse", "fused", "decay", "boost", "score"):
            table.add_column(col)
        for i, h in enumerate(result.hits, 1):
            table.add_row(
                str(i),
                _text(h.memory.content[:60]),
                str(h.ranks.get("dense", "-")),
                str(h.ranks.get("sparse", "-")),
                f"{h.fused:.4f}",
                f"{h.decay:.3f}",
                f"{h.boost:.2f}",
                f"{h.score:.4f}",
            )
        console.print(table)
    return 0


class _Out:
    """Where a command's result goes: a rich console, or one JSON document on stdout."""

    def __init__(self, console: Console, as_json: bool) -> None:
        self.console = console
        self.json = as_json

    def emit(self, data: Any, render: Callable[[], None]) -> None:
        if self.json:
            print(json.dumps(_jsonable(data), indent=2, ensure_ascii=False))
        else:
            render()


@contextmanager
def _opened(args: argparse.Namespace, memory: PraxMemory | None) -> Iterator[PraxMemory]:
    if memory is not None:
        yield memory
        return
    with PraxMemory(_config(args)) as mem:
        yield mem


def _user(args: argparse.Namespace) -> str:
    user = args.user or os.environ.get("PRAX_MEMORY_USER")
    if not user:
        raise _UsageError("--user is required (or set PRAX_MEMORY_USER)")
    return str(user)


class _UsageError(Exception):
    """A command-line usage problem (exit code 2)."""


def _ltm(memory: PraxMemory) -> None:
    if not memory.available:
        raise BackendUnavailable("Memory system not available: MEMORY_ENABLED is false")


# ----------------------------------------------------------------------- commands


def _remember(args: argparse.Namespace, mem: PraxMemory, out: _Out) -> int:
    _ltm(mem)
    user = _user(args)
    memory_id = mem.remember(
        user, args.content, importance=args.importance, tags=args.tags, source=args.source
    )
    out.emit(
        {"user_id": user, "memory_id": memory_id},
        lambda: out.console.print(f"[green]remembered[/] {memory_id}"),
    )
    return EXIT_OK


def _recall(args: argparse.Namespace, mem: PraxMemory, out: _Out) -> int:
    _ltm(mem)
    user = _user(args)
    result = mem.recall_detailed(user, args.query, k=args.k, reinforce=not args.no_reinforce)
    data = {
        "user_id": user,
        "query": args.query,
        "weights": result.weights,
        "arms": result.arms,
        "errors": result.errors,
        "hits": [{**h.model_dump(mode="json"), "explanation": h.explain()} for h in result.hits],
    }

    def render() -> None:
        weights = ", ".join(f"{a} ×{w:g}" for a, w in result.weights.items())
        arms = ", ".join(f"{a}: {n}" for a, n in result.arms.items())
        out.console.print(f"[bold]arm weights[/] {weights}   [bold]candidates[/] {arms}")
        for arm, why in result.errors.items():
            out.console.print(f"[yellow]{arm} arm down:[/] {_m(why)}")
        if not result.hits:
            out.console.print("no memories found")
            return
        table = Table(title=_text(f"{len(result.hits)} memories for {args.query!r}"))
        for col in ("#", "memory", "id", "dense", "sparse", "graph", "fused", "decay", "boost"):
            table.add_column(col)
        table.add_column("score", justify="right")
        for i, h in enumerate(result.hits, 1):
            table.add_row(
                str(i),
                _text(h.memory.content[:70]),
                h.memory.id[:8],
                *(str(h.ranks.get(a, "-")) for a in ("dense", "sparse", "graph")),
                f"{h.fused:.4f}",
                f"{h.decay:.3f}",
                f"{h.boost:.2f}",
                f"{h.score:.4f}",
            )
        out.console.print(table)
        for i, h in enumerate(result.hits, 1):
            out.console.print(_text(f"{i}. {h.explain()}", style="dim"))

    out.emit(data, render)
    return EXIT_OK


def _forget(args: argparse.Namespace, mem: PraxMemory, out: _Out) -> int:
    _ltm(mem)
    user = _user(args)
    deleted = mem.forget(user, args.memory_id)
    out.emit(
        {"user_id": user, "memory_id": args.memory_id, "deleted": deleted},
        lambda: out.console.print(
            f"[green]forgot[/] {_m(args.memory_id)}"
            if deleted
            else f"no memory {_m(args.memory_id)}"
        ),
    )
    return EXIT_OK if deleted else EXIT_NOT_FOUND


def _stm(args: argparse.Namespace, mem: PraxMemory, out: _Out) -> int:
    user = _user(args)
    action = args.stm_command
    if action == "list":
        entries = mem.stm.all(user)

        def render() -> None:
            table = Table(title=_text(f"scratchpad of {user}"))
            for col in ("key", "content", "importance", "tags", "access", "created"):
                table.add_column(col)
            for e in entries:
                table.add_row(
                    _text(e.key),
                    _text(e.content),
                    f"{e.importance:g}",
                    _text(", ".join(e.tags)),
                    str(e.access_count),
                    e.created_at.isoformat(timespec="seconds"),
                )
            out.console.print(table)

        out.emit({"user_id": user, "entries": [e.to_json_dict() for e in entries]}, render)
        return EXIT_OK
    if action == "get":
        found = mem.stm.get(user, args.key)
        if found is None:
            out.emit({"user_id": user, "entry": None}, lambda: out.console.print("no such key"))
            return EXIT_NOT_FOUND
        entry = found
        out.emit(
            {"user_id": user, "entry": entry.to_json_dict()},
            lambda: out.console.print(_text(f"{entry.key}: {entry.content}")),
        )
        return EXIT_OK
    if action == "set":
        entry = mem.stm.write(user, args.key, args.content, args.importance, args.tags)
        out.emit(
            {"user_id": user, "entry": entry.to_json_dict()},
            lambda: out.console.print(f"[green]saved[/] {_m(entry.key)}"),
        )
        return EXIT_OK
    if action == "delete":
        deleted = mem.stm.delete(user, args.key)
        out.emit(
            {"user_id": user, "key": args.key, "deleted": deleted},
            lambda: out.console.print("[green]deleted[/]" if deleted else "no such key"),
        )
        return EXIT_OK if deleted else EXIT_NOT_FOUND
    removed = mem.stm.clear(user)
    out.emit(
        {"user_id": user, "removed": removed},
        lambda: out.console.print(f"removed {removed} entries"),
    )
    return EXIT_OK


def _notes(args: argparse.Namespace, mem: PraxMemory, out: _Out) -> int:
    user = _user(args)
    if args.notes_command == "show":
        content = mem.notes.read(user)
        out.emit(
            {"user_id": user, "path": str(mem.notes.path(user)), "content": content},
            lambda: out.console.print(
                Panel(_text(content or "(empty)"), title=_text(str(mem.notes.path(user))))
            ),
        )
        return EXIT_OK
    if args.file == "-":
        content = sys.stdin.read()
    elif args.file:
        content = Path(args.file).read_text(encoding="utf-8")
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
        if result.raw_commit is None:
            out.console.print("notes unchanged")
        else:
            out.console.print(f"[green]notes saved[/] (commit {result.raw_commit[:10]})")
        if result.compacted:
            out.console.print(f"compacted: {', '.join(result.triggers)}")
        for warning in result.warnings:
            out.console.print(f"[yellow]{_m(warning)}[/]")

    out.emit(data, render)
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


def _entity(args: argparse.Namespace, mem: PraxMemory, out: _Out) -> int:
    _ltm(mem)
    user = _user(args)
    found = mem.graph.get_entity(user, args.name, include_superseded=args.history)
    if found is None:
        similar = [e.display_name for e in mem.graph.search_entities(user, args.name, limit=5)]
        out.emit(
            {"user_id": user, "entity": None, "suggestions": similar},
            lambda: out.console.print(
                _m(
                    f"no entity {args.name!r}"
                    + (f"; similar: {', '.join(similar)}" if similar else "")
                )
            ),
        )
        return EXIT_NOT_FOUND
    ent = found.entity

    def render() -> None:
        out.console.print(
            f"[bold]{_m(ent.display_name)}[/] ({_m(ent.type)}) importance {ent.importance:.2f}, "
            f"mentioned {ent.mention_count}×, last seen {ent.last_seen.date().isoformat()}"
        )
        out.console.print(_relations_table(found.relations, f"relations of {_m(ent.display_name)}"))

    out.emit(
        {"user_id": user, "entity": ent, "relations": found.relations},
        render,
    )
    return EXIT_OK


def _relations_table(relations: Sequence[Any], title: str) -> Table:
    table = Table(title=title)
    for col in ("source", "relation", "target", "weight", "valid from", "valid until"):
        table.add_column(col)
    for r in relations:
        table.add_row(
            _text(r.source),
            _text(r.type),
            _text(r.target),
            f"{r.weight:g}",
            r.valid_from.date().isoformat(),
            r.valid_until.date().isoformat() if r.valid_until else "current",
        )
    return table


def _graph(args: argparse.Namespace, mem: PraxMemory, out: _Out) -> int:
    _ltm(mem)
    user = _user(args)
    if args.question:
        answer = answer_graph_question(mem.graph, user, args.question)
        out.emit(
            {
                "user_id": user,
                "question": args.question,
                "entities": answer.entities,
                "connections": answer.connections,
                "bridges": answer.bridges,
                "relations": answer.relations,
                "answer": answer.to_text(),
            },
            lambda: out.console.print(_text(answer.to_text())),
        )
        return EXIT_OK if answer.entities else EXIT_NOT_FOUND
    stats = mem.graph.stats(user)
    entities = graph_entities(mem, user)
    relations = graph_relations(mem, user, entities, include_superseded=args.history)

    def render() -> None:
        out.console.print(
            f"[bold]{_m(user)}[/]: {stats.entities} entities, {stats.current_relations} current "
            f"relations ({stats.relations} total), {stats.temporal_events} events, "
            f"{stats.causal_links} causal links"
        )
        if relations:
            out.console.print(_relations_table(relations, "relations"))
        for e in entities:
            if not any(e.name in (r.source, r.target) for r in relations):
                out.console.print(_text(f"- {e.display_name} ({e.type}), no relations"))

    out.emit(
        {
            "user_id": user,
            "stats": stats,
            "entities": entities,
            "relations": relations,
            "lines": [describe_relation(r) for r in relations],
        },
        render,
    )
    return EXIT_OK


def _consolidate(args: argparse.Namespace, mem: PraxMemory, out: _Out) -> int:
    _ltm(mem)
    user = _user(args)
    hook = consolidation_hook(mem)
    if hook is None:
        out.emit(
            {"user_id": user, "status": "not_configured"},
            lambda: out.console.print("consolidation is not configured for this memory"),
        )
        return EXIT_ERROR
    params = inspect.signature(hook).parameters
    with Progress(
        SpinnerColumn(),
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} batches"),
        TimeElapsedColumn(),
        console=out.console,
        disable=out.json or not out.console.is_terminal,
    ) as progress:
        task = progress.add_task(f"consolidating {_m(user)}", total=None)

        def on_batch(done: int, total: int | None = None) -> None:
            progress.update(task, completed=done, total=total)

        result = hook(user, on_batch=on_batch) if "on_batch" in params else hook(user)
    out.emit(
        {"user_id": user, "status": "ok", "result": result},
        lambda: out.console.print(summarise_consolidation(result)),
    )
    return EXIT_OK


def _stats(args: argparse.Namespace, mem: PraxMemory, out: _Out) -> int:
    user = _user(args)
    stats = collect_stats(mem, user)

    def render() -> None:
        table = Table(title=_text(f"memory of {user}"))
        table.add_column("layer")
        table.add_column("count", justify="right")
        rows = [
            ("scratchpad entries", stats.stm_entries),
            ("  pending review", stats.stm_pending_review),
            ("note lines", stats.notes_lines),
            ("long-term memories", stats.memories),
            ("entities", stats.entities),
            ("relations (current)", stats.current_relations),
            ("relations (all)", stats.relations),
            ("temporal events", stats.temporal_events),
            ("causal links", stats.causal_links),
        ]
        for name, value in rows:
            table.add_row(name, "n/a" if value is None else str(value))
        out.console.print(table)
        if not stats.ltm_available:
            out.console.print("[yellow]long-term memory not available[/]")
        for layer, why in stats.errors.items():
            out.console.print(f"[red]{layer}:[/] {_m(why)}")

    out.emit(stats, render)
    return EXIT_BACKEND if stats.errors else EXIT_OK


def _export(args: argparse.Namespace, mem: PraxMemory, out: _Out) -> int:
    user = _user(args)
    if args.output in (None, "-"):
        summary = export_user(mem, user, sys.stdout)
    else:
        with open(args.output, "w", encoding="utf-8") as fh:
            summary = export_user(mem, user, fh)
        out.emit(
            {"user_id": user, "path": args.output, **summary.__dict__},
            lambda: out.console.print(
                _m(f"exported {sum(summary.counts.values())} records of {user} to {args.output}")
            ),
        )
    for warning in summary.warnings:
        _SafeConsole(stderr=True).print(f"[yellow]warning:[/] {_m(warning)}")
    return EXIT_OK


def _import(args: argparse.Namespace, mem: PraxMemory, out: _Out) -> int:
    if args.file == "-":
        receipt = import_user(mem, sys.stdin, user_id=args.user)
    else:
        with open(args.file, encoding="utf-8") as fh:
            receipt = import_user(mem, fh, user_id=args.user)

    def render() -> None:
        table = Table(title=_text(f"imported into {receipt.user_id}"))
        table.add_column("record")
        table.add_column("created", justify="right")
        table.add_column("already there", justify="right")
        for kind in sorted(set(receipt.created) | set(receipt.skipped)):
            table.add_row(
                kind, str(receipt.created.get(kind, 0)), str(receipt.skipped.get(kind, 0))
            )
        out.console.print(table)
        for warning in receipt.warnings:
            out.console.print(f"[yellow]{_m(warning)}[/]")

    out.emit(receipt.__dict__, render)
    return EXIT_OK


def _forget_user(args: argparse.Namespace, mem: PraxMemory, out: _Out) -> int:
    user = _user(args)
    if not args.yes:
        if not sys.stdin.isatty():
            raise _UsageError(f"refusing to delete {user!r} without --yes")
        answer = input(f"Delete everything of {user!r} in every store? Type the user id: ")
        if answer.strip() != user:
            raise _UsageError("not confirmed; nothing was deleted")
    try:
        receipt = forget_user(mem, user, keep_notes=args.keep_notes, compact=args.compact)
    except DeletionIncomplete as exc:
        return _forget_incomplete(exc, out)

    def render() -> None:
        out.console.print(_removed_table(user, receipt.removed))
        for what in receipt.compacted:
            out.console.print(f"[green]compacted[/] {_m(what)}")
        out.console.print("[bold]may still hold the user's data:[/]")
        for note in receipt.remaining:
            out.console.print(_text(f"- {note}"))

    out.emit(
        {
            "user_id": user,
            "complete": True,
            "removed": receipt.removed,
            "compacted": receipt.compacted,
            "remaining": receipt.remaining,
        },
        render,
    )
    return EXIT_OK


def _removed_table(user: str, removed: dict[str, int]) -> Table:
    table = Table(title=_text(f"removed for {user}"))
    table.add_column("what")
    table.add_column("removed", justify="right")
    for what, count in removed.items():
        table.add_row(what.replace("_", " "), str(count))
    return table


def _forget_incomplete(exc: DeletionIncomplete, out: _Out) -> int:
    """Report a deletion that stopped part-way: what went, what is left, how it resumes."""

    def render() -> None:
        if exc.removed:
            out.console.print(_removed_table(exc.user_id, exc.removed))
        else:
            out.console.print(_text(f"nothing of {exc.user_id} was deleted yet"))
        out.console.print("[bold red]still to delete:[/]")
        for what in exc.left:
            out.console.print(_text(f"- {what}"))
        _SafeConsole(stderr=True).print(f"[red]incomplete:[/] {_m(exc)}")

    out.emit(
        {
            "user_id": exc.user_id,
            "complete": False,
            "error": str(exc),
            "removed": exc.removed,
            "left": exc.left,
            "remaining": exc.remaining,
            "marker": str(exc.marker),
        },
        render,
    )
    return EXIT_BACKEND if isinstance(exc.__cause__, BackendUnavailable) else EXIT_ERROR


def _doctor(args: argparse.Namespace, mem: PraxMemory, out: _Out) -> int:
    return _report_checks(run_checks(mem), out)


def _report_checks(checks: list[Check], out: _Out) -> int:
    def render() -> None:
        table = Table(title="prax-memory doctor")
        for col in ("check", "status", "detail", "ms"):
            table.add_column(col)
        colours = {"ok": "green", "fail": "red", "skip": "yellow"}
        for c in checks:
            table.add_row(
                c.name, f"[{colours[c.status]}]{c.status}[/]", _text(c.detail), f"{c.ms:g}"
            )
        out.console.print(table)

    out.emit({"checks": [c.__dict__ for c in checks]}, render)
    return EXIT_BACKEND if any(c.status == "fail" for c in checks) else EXIT_OK


_COMMANDS: dict[str, Callable[[argparse.Namespace, PraxMemory, _Out], int]] = {
    "remember": _remember,
    "recall": _recall,
    "forget": _forget,
    "stm": _stm,
    "notes": _notes,
    "entity": _entity,
    "graph": _graph,
    "consolidate": _consolidate,
    "stats": _stats,
    "export": _export,
    "import": _import,
    "forget-user": _forget_user,
    "doctor": _doctor,
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    parser = argparse.ArgumentParser(prog="prax-memory", description="Prax memory for agents")
    parser.add_argument(
        "--data-dir",
        help="data directory (default: MEMORY_DATA_DIR or the platform's user data dir)",
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="machine-readable output")
    common.add_argument("-u", "--user", help="the user id (or PRAX_MEMORY_USER)")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="store a few facts, recall them, print the agent context")
    demo.add_argument("--question", default=DEMO_QUESTION)
    demo.add_argument("-k", type=int, default=4)
    demo.add_argument("--json", action="store_true", help="machine-readable output")

    p = sub.add_parser("remember", parents=[common], help="store a long-term memory")
    p.add_argument("content")
    p.add_argument("--importance", type=float, default=0.5)
    p.add_argument("--tags", help="comma-separated tags")
    p.add_argument("--source", default="note")

    p = sub.add_parser("recall", parents=[common], help="recall, with the per-arm explanation")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=5)
    p.add_argument("--no-reinforce", action="store_true", help="do not reset decay clocks")

    p = sub.add_parser("forget", parents=[common], help="delete one long-term memory")
    p.add_argument("memory_id")

    p = sub.add_parser("stm", parents=[common], help="the scratchpad")
    stm = p.add_subparsers(dest="stm_command", required=True)
    stm.add_parser("list", parents=[common], help="every entry")
    q = stm.add_parser("get", parents=[common], help="one entry")
    q.add_argument("key")
    q = stm.add_parser("set", parents=[common], help="write an entry")
    q.add_argument("key")
    q.add_argument("content")
    q.add_argument("--importance", type=float)
    q.add_argument("--tags", help="comma-separated tags")
    q = stm.add_parser("delete", parents=[common], help="remove an entry")
    q.add_argument("key")
    stm.add_parser("clear", parents=[common], help="remove every entry")

    p = sub.add_parser("notes", parents=[common], help="user_notes.md")
    notes = p.add_subparsers(dest="notes_command", required=True)
    notes.add_parser("show", parents=[common], help="print the notes")
    q = notes.add_parser("edit", parents=[common], help="edit in $EDITOR (or --file)")
    q.add_argument("--file", help="new content from a file ('-' for stdin)")

    p = sub.add_parser("entity", parents=[common], help="an entity and its relations")
    p.add_argument("name")
    p.add_argument("--history", action="store_true", help="include superseded relations")

    p = sub.add_parser("graph", parents=[common], help="the user's graph, or answer a question")
    p.add_argument("question", nargs="?")
    p.add_argument("--history", action="store_true", help="include superseded relations")

    sub.add_parser("consolidate", parents=[common], help="run consolidation now")
    sub.add_parser("stats", parents=[common], help="counts of every layer")
    p = sub.add_parser("export", parents=[common], help="a user's memory as portable JSONL")
    p.add_argument("-o", "--output", help="file to write (default: stdout)")
    p = sub.add_parser("import", parents=[common], help="load an export (idempotent)")
    p.add_argument("file", help="the JSONL export ('-' for stdin)")
    p = sub.add_parser("forget-user", parents=[common], help="delete a user everywhere")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.add_argument("--keep-notes", action="store_true", help="keep user_notes.md and its history")
    p.add_argument(
        "--compact",
        action="store_true",
        help="then rewrite the embedded stores so no deleted byte stays on disk",
    )
    sub.add_parser("doctor", parents=[common], help="check each configured backend")
    return parser


def main(argv: Sequence[str] | None = None, *, memory: PraxMemory | None = None) -> int:
    """Entry point of ``prax-memory``; returns the exit code.

    Args:
        argv: Arguments (``sys.argv[1:]`` when omitted).
        memory: Run against this memory instead of opening one from ``--data-dir`` / the
            environment (embedding the CLI, tests). It is not closed.
    """
    args = build_parser().parse_args(argv)
    console = _SafeConsole()
    err = _SafeConsole(stderr=True)
    try:
        if args.command == "demo":
            return _demo(args, console)
        out = _Out(console, bool(getattr(args, "json", False)))
        if args.command == "doctor" and memory is None:
            # a setting or backend that stops the memory from opening is a failed check
            return _report_checks(diagnose(lambda: _config(args)), out)
        with _opened(args, memory) as mem:
            return _COMMANDS[args.command](args, mem, out)
    except _UsageError as exc:
        err.print(f"[red]usage:[/] {_m(exc)}")
        return EXIT_USAGE
    except BackendUnavailable as exc:
        err.print(f"[red]unavailable:[/] {_m(exc)}")
        return EXIT_BACKEND
    except (PraxMemoryError, PortableFormatError, OSError) as exc:
        err.print(f"[red]error:[/] {_m(exc)}")
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
