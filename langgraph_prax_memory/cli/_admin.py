"""Maintenance commands: consolidate, knowledge, stats, export, import, forget-user, doctor."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from langgraph_prax_memory._untrusted import safe_for_terminal
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    DeletionIncomplete,
    MemoryValidationError,
)

if TYPE_CHECKING:
    from rich.table import Table

    from langgraph_prax_memory._doctor import Check
    from langgraph_prax_memory.memory import PraxMemory

from langgraph_prax_memory.cli._app import (
    EXIT_BACKEND,
    EXIT_ERROR,
    EXIT_NOT_FOUND,
    EXIT_OK,
    _Call,
    _check_user,
    _command,
    _group,
    _jsonable,
    _ltm,
    _m,
    _Out,
    _text,
    _UsageError,
    cli,
)


@_command(cli, "consolidate", short_help="Turn conversation into durable memory now.")
@click.option(
    "--trace",
    "traces",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Consolidate this transcript (one 'speaker: text' line per turn; repeatable) "
    "instead of the user's known sources.",
)
def _consolidate(call: _Call, mem: PraxMemory, traces: tuple[Path, ...]) -> int:
    """Turn the user's recent conversation into durable memory now, with a progress bar.

    Without --trace it reads the user's trace.log (in their workspace under the data
    directory) and the checkpointer's threads. Re-running is safe: read lines are skipped.
    """
    from langgraph_prax_memory.consolidation import TraceLogSource

    _ltm(mem)
    user = call.user()
    for path in traces:
        if not path.is_file():
            raise _UsageError(f"no such trace file: {path}")
    source = [TraceLogSource(p.resolve()) for p in traces] or None
    with call.out.progress() as progress:
        result = mem.consolidate(user, source, progress=progress)
    data = _jsonable(result)

    def render() -> None:
        from langgraph_prax_memory.tools import summarise_consolidation

        call.out.console.print(summarise_consolidation(result))
        for error in getattr(result, "errors", []):
            call.out.warn(error)

    out: dict[str, Any] = {"user_id": user, "status": "ok", "result": data}
    if not getattr(result, "sources", None) and not getattr(result, "batches", 0):
        trace = mem.config.users_dir / _user_dir(user) / "trace.log"
        hint = (
            f"nothing to consolidate for {user!r}: append turns ('user: ...' lines) to {trace} "
            "or pass --trace FILE"
        )
        out["hint"] = hint
        if not call.as_json:
            call.out.warn(hint)
    call.out.emit(out, render)
    return EXIT_OK


def _user_dir(user: str) -> str:
    from langgraph_prax_memory._validation import user_dir_name

    return user_dir_name(user)


_knowledge = _group(cli, "knowledge", "World knowledge (documents, code), apart from memory.")


#: How many skipped files a folder ingestion lists on the terminal (``--json`` lists all).
_SKIPPED_SHOWN = 20


@_command(_knowledge, "ingest")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--namespace",
    "-n",
    help="Namespace (default: 'codebase' for source code, 'uploads' for documents).",
)
def _knowledge_ingest(
    call: _Call, mem: PraxMemory, paths: tuple[Path, ...], namespace: str | None
) -> int:
    """Ingest files and folders: documents (Markdown, text, PDF) and source code.

    A file is ingested as a document. A folder is sorted by content: its Python, JavaScript
    and TypeScript files are ingested as a codebase, its Markdown, text and PDF files as
    documents, and everything else is listed as skipped, with the reason. A folder with
    nothing to ingest exits with 4. Unchanged content is skipped, so re-running only adds
    what is new.
    """
    _ltm(mem)
    user = call.user()
    kb = mem.knowledge
    results: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    empty: list[str] = []
    with call.out.progress() as progress:
        for path in paths:
            if not path.is_dir():
                res = kb.ingest_document(user, path, namespace or "uploads", progress=progress)
                results.append({"path": str(path), **_jsonable(res)})
                continue
            folder = kb.ingest_folder(user, path, namespace, progress=progress)
            if folder.codebase is not None:
                results.append({"path": str(path), **_jsonable(folder.codebase)})
            for rel, res in folder.documents.items():
                results.append({"path": str(path / rel), **_jsonable(res)})
            skipped += [{"path": str(path / s.path), "reason": s.reason} for s in folder.skipped]
            if folder.found_nothing:
                empty.append(str(path))
    out: dict[str, Any] = {"user_id": user, "results": results, "skipped": skipped}
    if empty:
        out["error"] = (
            f"nothing to ingest in {', '.join(empty)}: no Markdown, text or PDF document and "
            "no Python, JavaScript or TypeScript file"
            + (" (the skipped files are listed with their reasons)" if skipped else "")
        )

    def render() -> None:
        from rich.table import Table

        if results:
            table = Table(title=_text(f"knowledge ingested for {user}"))
            for col in ("path", "namespace", "documents", "concepts", "relations", "skipped"):
                table.add_column(col, overflow="fold")
            for r in results:
                table.add_row(
                    _text(r["path"]),
                    _text(r["namespace"]),
                    str(r["documents"]),
                    str(r["concepts"]),
                    str(r["relations"]),
                    "unchanged" if r["skipped"] else "",
                )
            call.out.console.print(table)
        for r in results:
            for warning in r.get("warnings") or []:
                call.out.warn(warning)
            if r.get("index_error"):
                call.out.warn(f"semantic index: {r['index_error']}")
        for item in skipped[:_SKIPPED_SHOWN]:
            call.out.warn(f"skipped {item['path']}: {item['reason']}")
        if len(skipped) > _SKIPPED_SHOWN:
            more = len(skipped) - _SKIPPED_SHOWN
            call.out.warn(f"... and {more} more skipped (--json lists them all)")

    call.out.emit(out, render)
    if empty:
        call.out.err.print(f"[red]error:[/] {_m(out['error'])}")
        return EXIT_NOT_FOUND
    return EXIT_OK


@_command(_knowledge, "search")
@click.argument("query")
@click.option("--namespace", "-n", help="Search one namespace (default: all).")
@click.option("-k", type=click.IntRange(1, 100), default=10, show_default=True, help="Hits.")
def _knowledge_search(
    call: _Call, mem: PraxMemory, query: str, namespace: str | None, k: int
) -> int:
    """Hybrid concept search (keyword and semantic arms fused)."""
    _ltm(mem)
    user = call.user()
    result = mem.knowledge.search_detailed(user, query, namespace=namespace, k=k)

    def render() -> None:
        from rich.table import Table

        con = call.out.console
        for arm, why in result.errors.items():
            con.print(f"[yellow]{arm} arm down:[/] {_m(why)}")
        if not result.hits:
            con.print("no concepts found")
            return
        table = Table(title=_text(f"{len(result.hits)} concepts for {query!r}"))
        table.add_column("#", justify="right", no_wrap=True)
        table.add_column("concept", overflow="fold")
        table.add_column("kind", no_wrap=True)
        table.add_column("namespace", overflow="fold")
        table.add_column("score", justify="right", no_wrap=True)
        table.add_column("description", overflow="fold", ratio=1)
        for i, h in enumerate(result.hits, 1):
            c = h.concept
            table.add_row(
                str(i),
                _text(c.display_name),
                _text(c.kind),
                _text(c.namespace),
                f"{h.score:.4f}",
                _text(c.description[:200]),
            )
        con.print(table)

    call.out.emit(
        {"user_id": user, "query": query, **_jsonable(result)},
        render,
    )
    return EXIT_OK if result.hits else EXIT_NOT_FOUND


@_command(cli, "stats")
def _stats(call: _Call, mem: PraxMemory) -> int:
    """Counts of every layer."""
    from rich.table import Table

    from langgraph_prax_memory._stats import collect_stats

    user = call.user()
    stats = collect_stats(mem, user)
    data = _jsonable(stats)
    code = EXIT_BACKEND if stats.errors else _check_user(call, mem, user, data)

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
        if stats.hygiene is not None:
            h = stats.hygiene
            rows += [
                ("hygiene: duplicates", h.duplicates),
                ("  junk candidates", h.junk_candidates),
                ("  superseded memories", h.superseded),
                ("  never recalled", h.never_recalled),
                ("  superseded relations", h.superseded_relations),
                ("  memories scanned", h.scanned),
            ]
        for name, value in rows:
            table.add_row(name, "n/a" if value is None else str(value))
        call.out.console.print(table)
        if not stats.ltm_available:
            call.out.console.print("[yellow]long-term memory not available[/]")
        for layer, why in stats.errors.items():
            call.out.console.print(f"[red]{layer}:[/] {_m(why)}")

    call.out.emit(data, render)
    return code


@_command(cli, "export", short_help="Export a user as portable JSONL.")
@click.option("-o", "--output", metavar="FILE", help="File to write (default: stdout).")
def _export(call: _Call, mem: PraxMemory, output: str | None) -> int:
    """A user's memories, graph, scratchpad and notes as portable JSONL.

    Every record is read, page after page; an export that cannot be complete (long-term
    memory disabled, a graph that lists fewer records than it counts) is still written, with
    "complete": false in its header, and the command exits with 3 (disabled) or 1.
    """
    from langgraph_prax_memory._portable import export_user

    user = call.user()
    probe: dict[str, Any] = {}
    if _check_user(call, mem, user, probe) != EXIT_OK:
        if call.as_json:
            sys.stdout.write(json.dumps({"user_id": user, **probe}, indent=2) + "\n")
        return EXIT_NOT_FOUND
    with call.out.progress() as progress:
        if output in (None, "-"):
            summary = export_user(mem, user, sys.stdout, progress=progress)
        else:
            with open(output, "w", encoding="utf-8") as fh:
                summary = export_user(mem, user, fh, progress=progress)
    if output not in (None, "-"):
        call.out.emit(
            {"user_id": user, "path": output, **summary.__dict__},
            lambda: call.out.console.print(
                _m(f"exported {sum(summary.counts.values())} records of {user} to {output}")
            ),
        )
    for warning in summary.warnings:
        call.out.err.print(f"[yellow]warning:[/] {_m(warning)}")
    if summary.complete:
        return EXIT_OK
    # what was read is written (its header says "complete": false); the exit code says so too
    call.out.err.print(
        f"[red]incomplete:[/] the export of {_m(user)} lacks records "
        f"({_m('; '.join(summary.warnings))}); do not rely on it as a full copy"
    )
    return EXIT_BACKEND if not mem.available else EXIT_ERROR


@_command(cli, "import", opens=False, short_help="Load an export into a user (idempotent).")
@click.argument("file", metavar="FILE|-")
def _import(call: _Call, file: str) -> int:
    """Load an export into --user (asked on a terminal); importing twice is a no-op.

    The records go into the user named here, never the one the file's header names; without
    --user a terminal asks for it, anything else is refused (exit 2) before the file is read.
    """
    from rich.table import Table

    from langgraph_prax_memory._portable import PortableFormatError, import_user

    target = _import_target(call, file)
    with call.memory() as mem:
        try:
            with call.out.progress() as progress:
                if file == "-":
                    stdin = getattr(sys.stdin, "buffer", sys.stdin)  # bytes: decoded as UTF-8
                    receipt = import_user(mem, stdin, user_id=target, progress=progress)
                else:
                    with open(file, "rb") as fh:
                        receipt = import_user(mem, fh, user_id=target, progress=progress)
        except PortableFormatError as exc:
            raise MemoryValidationError(str(exc)) from exc

    def render() -> None:
        table = Table(title=_text(f"imported into {receipt.user_id}"))
        table.add_column("record")
        table.add_column("created", justify="right")
        table.add_column("already there", justify="right")
        for kind in sorted(set(receipt.created) | set(receipt.skipped)):
            table.add_row(
                kind, str(receipt.created.get(kind, 0)), str(receipt.skipped.get(kind, 0))
            )
        call.out.console.print(table)
        for warning in receipt.warnings:
            call.out.console.print(f"[yellow]{_m(warning)}[/]")

    call.out.emit(receipt.__dict__, render)
    return EXIT_OK


def _import_target(call: _Call, file: str) -> str:
    """The user an import writes into: ``--user`` (or ``PRAX_MEMORY_USER``), else asked.

    An export's header names the user it was exported from; it never chooses the target, so
    a crafted file cannot write into another user. Checked before anything opens.

    Raises:
        _UsageError: No user given, and none can be asked for (no terminal, or the export
            comes on stdin), or the question was not answered.
        MemoryValidationError: The id is not a usable user id.
    """
    from langgraph_prax_memory._validation import check_user_id

    if call.options.get("user") or os.environ.get("PRAX_MEMORY_USER"):
        return call.user()
    how = (
        "an export's header names the user it came from, never the one it is imported into: "
        f"name that user, e.g. prax-memory import -u alice {shlex.quote(file)}"
    )
    if file == "-" or not sys.stdin.isatty():
        raise _UsageError(f"import needs --user (or PRAX_MEMORY_USER): {how}")
    try:
        answer = input(f"Import {safe_for_terminal(file)} into which user? Type the user id: ")
    except EOFError:
        answer = ""
    if not answer.strip():
        raise _UsageError(f"no user typed; nothing was imported ({how})")
    return check_user_id(answer.strip())


@_command(cli, "forget-user", short_help="Delete a user from every store.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--keep-notes", is_flag=True, help="Keep user_notes.md and its git history.")
@click.option(
    "--compact",
    is_flag=True,
    help="Then rewrite the embedded stores so no deleted byte stays on disk.",
)
def _forget_user(call: _Call, mem: PraxMemory, yes: bool, keep_notes: bool, compact: bool) -> int:
    """Delete a user from every store and print a receipt (resumes if interrupted)."""
    user = call.user()
    if not yes:
        if not sys.stdin.isatty():
            raise _UsageError(f"refusing to delete {user!r} without --yes")
        answer = input(f"Delete everything of {user!r} in every store? Type the user id: ")
        if answer.strip() != user:
            raise _UsageError("not confirmed; nothing was deleted")
    try:
        receipt = mem.forget_user(user, keep_notes=keep_notes, compact=compact)
    except DeletionIncomplete as exc:
        return _forget_incomplete(exc, call.out)

    def render() -> None:
        con = call.out.console
        con.print(_removed_table(user, receipt.removed))
        for what in receipt.compacted:
            con.print(f"[green]compacted[/] {_m(what)}")
        con.print("[bold]may still hold the user's data:[/]")
        for note in receipt.remaining:
            con.print(_text(f"- {note}"))

    call.out.emit(
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
    from rich.table import Table

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
        out.err.print(f"[red]incomplete:[/] {_m(exc)}")

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


@_command(cli, "doctor", opens=False, short_help="Check every configured backend.")
@click.option(
    "--quick",
    is_flag=True,
    help="Only what needs no vectors: settings, data directory, scratchpad, notes (git).",
)
def _doctor(call: _Call, quick: bool) -> int:
    """Check the data directory, scratchpad, notes (git), embedder, Qdrant and graph."""
    from langgraph_prax_memory._doctor import diagnose, quick_checks, run_checks

    if quick:
        injected = call.injected
        make = call.config if injected is None else (lambda: injected.config)
        return _report_checks(quick_checks(make), call.out)
    if call.injected is not None:
        return _report_checks(run_checks(call.injected), call.out)
    # a setting or backend that stops the memory from opening is a failed check
    from langgraph_prax_memory.memory import PraxMemory

    return _report_checks(diagnose(call.config, PraxMemory), call.out)


def _report_checks(checks: list[Check], out: _Out) -> int:
    def render() -> None:
        from rich.table import Table

        table = Table(title="prax-memory doctor")
        for col in ("check", "status", "detail", "ms"):
            table.add_column(col, overflow="fold")
        colours = {"ok": "green", "fail": "red", "skip": "yellow"}
        for c in checks:
            table.add_row(
                c.name, f"[{colours[c.status]}]{c.status}[/]", _text(c.detail), f"{c.ms:g}"
            )
        out.console.print(table)

    out.emit({"checks": [c.__dict__ for c in checks]}, render)
    return EXIT_BACKEND if any(c.status == "fail" for c in checks) else EXIT_OK
