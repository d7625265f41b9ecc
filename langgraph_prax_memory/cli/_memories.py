"""Long-term memory commands: demo, remember, recall, forget, reembed, decay."""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from langgraph_prax_memory.memory import PraxMemory

from langgraph_prax_memory.cli._app import (
    EXIT_NOT_FOUND,
    EXIT_OK,
    _Call,
    _check_user,
    _command,
    _importance,
    _ltm,
    _m,
    _text,
    _UsageError,
    cli,
)

#: The shortest id prefix the recall table shows (longer when needed to stay unique).
MIN_ID_PREFIX = 8


#: Above this many memories the recall table does not list every id to prove a prefix unique;
#: it shows :data:`LONG_ID_PREFIX` characters instead (``forget`` still refuses an ambiguous one).
PREFIX_SCAN_LIMIT = 20_000


LONG_ID_PREFIX = 13


_MIN_PREFIX_ACCEPTED = 4


DEMO_USER = "demo-user"


DEMO_FACTS: list[tuple[str, float, str]] = [
    ("User prefers Rust for systems projects and Python for scripts.", 0.8, "preference,language"),
    ("User uses NixOS with flake-based project templates.", 0.7, "preference,tooling"),
    ("User insists on MIT license for all personal projects.", 0.9, "preference,license"),
    ("User's preferred editor is Helix with catppuccin theme.", 0.6, "preference,editor"),
    ("User mentioned having coffee before the standup.", 0.2, "minor"),
    ("User is a data scientist at FinCorp working on fraud detection with XGBoost.", 0.8, "work"),
]


DEMO_QUESTION = "Can you help me set up a new Rust project?"


@_command(cli, "demo", opens=False, short_help="Try it: store facts, recall, show the context.")
@click.option("--question", default=DEMO_QUESTION, show_default=True, help="Follow-up question.")
@click.option(
    "-k", type=click.IntRange(1, 50), default=4, show_default=True, help="Facts recalled."
)
def _demo(call: _Call, question: str, k: int) -> int:
    """Store a few facts, recall them, print the agent's context with and without memory.

    Runs in a temporary folder (deleted afterwards) unless --data-dir is given.
    """
    if call.injected is not None:
        return _demo_run(call, call.injected, question, k, kept=True)
    from langgraph_prax_memory.memory import PraxMemory

    if call.data_dir is not None:
        with PraxMemory(call.config()) as mem:
            return _demo_run(call, mem, question, k, kept=True)
    with (
        tempfile.TemporaryDirectory(prefix="prax-demo-") as tmp,
        PraxMemory(call.config(data_dir=Path(tmp))) as mem,
    ):
        return _demo_run(call, mem, question, k, kept=False)


def _demo_run(call: _Call, mem: PraxMemory, question: str, k: int, *, kept: bool) -> int:
    from rich.panel import Panel
    from rich.table import Table

    from langgraph_prax_memory.context import assemble_context

    _ltm(mem)
    with call.out.progress() as progress:
        for i, (content, importance, tags) in enumerate(DEMO_FACTS, 1):
            mem.remember(DEMO_USER, content, importance=importance, tags=tags)
            progress(i, len(DEMO_FACTS), "storing facts")
    result = mem.recall_detailed(DEMO_USER, question, k=k, reinforce=False)
    # exactly what build_memory_context gives the agent: the recalled memories above the
    # relevance floor, then the user's standing facts (the profile tier), each line with the
    # rule that put it there, and every recalled memory left out with why not
    ctx = assemble_context(mem, DEMO_USER, question, k=k)
    injected = list(ctx.memories)
    block = ctx.text
    profile_ids = {h.memory.id for h in ctx.profile}
    data = {
        "question": question,
        "data_dir": str(mem.config.data_dir),
        "kept": kept,
        "without_memory": "",
        "with_memory": block,
        "hits": [h.model_dump(mode="json") for h in result.hits],
        "injected": [h.memory.id for h in injected],
        "profile": sorted(profile_ids),
        "lines": [_why_row(line) for line in ctx.lines],
        "left_out": [_why_row(line) for line in ctx.omitted],
    }

    def render() -> None:
        con = call.out.console
        where = _m(mem.config.data_dir) if kept else "a temporary folder (deleted on exit)"
        con.print(f"[bold]Stored {len(DEMO_FACTS)} facts for[/] {DEMO_USER} in {where}")
        con.print(f"[bold]Follow-up question:[/] {_m(question)}\n")
        con.print(Panel("(empty)", title="WITHOUT memory: the context the agent receives"))
        con.print(
            Panel(
                _text(block or "(nothing relevant)"),
                title=(
                    f"WITH memory: {len(injected) - len(profile_ids)} relevant recalled facts "
                    f"+ {len(profile_ids)} standing facts (profile)"
                ),
            )
        )
        table = Table(title="Why each line of the context is there (and each other recall not)")
        table.add_column("#", justify="right")
        table.add_column("memory", overflow="fold")
        table.add_column("in context")
        table.add_column("ranks")
        table.add_column("score", justify="right")
        rows = [(str(i), line) for i, line in enumerate(ctx.lines, 1)]
        rows += [("-", line) for line in ctx.omitted]
        for n, line in rows:
            hit = line.hit
            table.add_row(
                n,
                _text(hit.memory.content if hit is not None else line.text),
                _in_context(line),
                _ranks(hit) if hit is not None and hit.ranks else "-",
                f"{hit.score:.2f}" if hit is not None else "-",
            )
        con.print(table)
        for n, line in rows:
            said = f"{n}. {line.tier}: {line.why}"
            if line.hit is not None:
                said += f" | {line.hit.explain()}"
            con.print(_text(said, style="dim"))
        con.print(
            '\n[bold]Next:[/] prax-memory remember -u you "I prefer tea" · '
            'prax-memory recall -u you "what do I drink?" · prax-memory --help'
        )

    call.out.emit(data, render)
    return EXIT_OK


@_command(cli, "remember", short_help="Store one long-term memory.")
@click.argument("content")
@click.option(
    "--importance",
    type=float,
    default=0.5,
    show_default=True,
    callback=_importance,
    help="0..1; higher is kept longer.",
)
@click.option("--tags", metavar="A,B", help="Comma-separated tags.")
@click.option(
    "--source",
    default="conversation",
    show_default=True,
    help="Where the memory came from (the API's default too).",
)
def _remember(
    call: _Call, mem: PraxMemory, content: str, importance: float, tags: str | None, source: str
) -> int:
    """Store one long-term memory (identical content is stored once)."""
    _ltm(mem)
    user = call.user()
    memory_id = mem.remember(user, content, importance=importance, tags=tags, source=source)
    call.out.emit(
        {"user_id": user, "memory_id": memory_id},
        lambda: call.out.console.print(f"[green]remembered[/] {memory_id}"),
    )
    return EXIT_OK


def _in_context(line: Any) -> str:
    """``yes: <rule>`` for a line of the block, ``no: <why>`` for a recalled memory left out."""
    if line.tier != "left out":
        return f"yes: {line.tier}"
    why = line.why
    for cue, short in (
        ("model check", "dropped by the model check"),
        ("profile tier was full", "below the floor; the profile tier was full"),
        ("below the floor", "below the floor"),
        ("section was full", "relevant, but no room (ltm_chars)"),
    ):
        if cue in why:
            return f"no: {short}"
    return "no"


def _why_row(line: Any) -> dict[str, Any]:
    """One line of the block (or a memory left out) for ``--json``."""
    return {
        "tier": line.tier,
        "text": line.text,
        "why": line.why,
        "memory_id": line.hit.memory.id if line.hit is not None else None,
    }


def _ranks(hit: Any) -> str:
    """``d1 s3 g-``: the hit's rank in the dense, sparse and graph arms."""
    return " ".join(f"{arm[0]}{hit.ranks.get(arm, '-')}" for arm in ("dense", "sparse", "graph"))


def _user_ids(mem: PraxMemory, user: str) -> list[str]:
    return [p.id for p in mem.vectors.iter_points(user)]


def _id_prefixes(mem: PraxMemory, user: str, ids: list[str]) -> dict[str, str]:
    """The id prefix to show for each of ``ids`` (unique among the user's memories)."""
    if not ids:
        return {}
    if mem.count(user) > PREFIX_SCAN_LIMIT:
        return {i: i[:LONG_ID_PREFIX] for i in ids}
    return shortest_unique_prefixes(ids, _user_ids(mem, user))


def shortest_unique_prefixes(
    ids: Sequence[str], among: Sequence[str], *, minimum: int = MIN_ID_PREFIX
) -> dict[str, str]:
    """For each of ``ids``, its shortest prefix (at least ``minimum`` long) unique in ``among``.

    Example:
        >>> shortest_unique_prefixes(["abcd1"], ["abcd1", "abce2"], minimum=2)
        {'abcd1': 'abcd'}
    """
    out: dict[str, str] = {}
    others = sorted(set(among) | set(ids))
    for target in ids:
        length = min(minimum, len(target))
        while length < len(target) and any(
            o != target and o.startswith(target[:length]) for o in others
        ):
            length += 1
        out[target] = target[:length]
    return out


@_command(cli, "recall", short_help="Recall memories, explained.")
@click.argument("query")
@click.option("-k", type=click.IntRange(1, 1000), default=5, show_default=True, help="Hits.")
@click.option("--no-reinforce", is_flag=True, help="Do not reset the hits' decay clocks.")
def _recall(call: _Call, mem: PraxMemory, query: str, k: int, no_reinforce: bool) -> int:
    """Recall memories, with each hit's rank per arm, score and explanation.

    The id column shows the shortest unique prefix of each id; `forget` accepts it.
    """
    from rich.table import Table

    _ltm(mem)
    user = call.user()
    result = mem.recall_detailed(user, query, k=k, reinforce=not no_reinforce)
    prefixes = _id_prefixes(mem, user, [h.memory.id for h in result.hits])
    data: dict[str, Any] = {
        "user_id": user,
        "query": query,
        "weights": result.weights,
        "arms": result.arms,
        "errors": result.errors,
        "hits": [
            {
                **h.model_dump(mode="json"),
                "id_prefix": prefixes.get(h.memory.id, h.memory.id),
                "explanation": h.explain(),
            }
            for h in result.hits
        ],
    }
    code = _check_user(call, mem, user, data) if not result.hits else EXIT_OK

    def render() -> None:
        con = call.out.console
        weights = ", ".join(f"{a} ×{w:g}" for a, w in result.weights.items())
        arms = ", ".join(f"{a}: {n}" for a, n in result.arms.items())
        con.print(f"[bold]arm weights[/] {weights}   [bold]candidates[/] {arms}")
        for arm, why in result.errors.items():
            con.print(f"[yellow]{arm} arm down:[/] {_m(why)}")
        if not result.hits:
            con.print("no memories found")
            return
        table = Table(title=_text(f"{len(result.hits)} memories for {query!r}"), expand=False)
        table.add_column("#", justify="right", no_wrap=True)
        table.add_column("id", no_wrap=True)
        table.add_column("score", justify="right", no_wrap=True)
        table.add_column("ranks", no_wrap=True)
        table.add_column("memory", overflow="fold", ratio=1)
        for i, h in enumerate(result.hits, 1):
            content = h.memory.content
            shown = content if len(content) <= 240 else content[:239] + "…"
            table.add_row(str(i), prefixes[h.memory.id], f"{h.score:.4f}", _ranks(h), _text(shown))
        con.print(table)
        con.print("[dim]ranks: d = dense, s = sparse, g = graph arm (- = not found by that arm)[/]")
        for i, h in enumerate(result.hits, 1):
            con.print(_text(f"{i}. {h.explain()}", style="dim"))

    call.out.emit(data, render)
    return code


def _id_format(given: str) -> str:
    """``given`` lower-cased if it is a memory id or an id prefix (hex digits, at least 4).

    Raises:
        _UsageError: It is neither (checked while parsing, before anything opens).
    """
    text = given.strip().lower()
    try:
        return str(uuid.UUID(text))
    except ValueError:
        pass
    if len(text.replace("-", "")) < _MIN_PREFIX_ACCEPTED or any(
        ch not in "0123456789abcdef-" for ch in text
    ):
        raise _UsageError(
            f"{given!r} is not a memory id or an id prefix of at least "
            f"{_MIN_PREFIX_ACCEPTED} hex digits (recall shows the ids)"
        )
    return text


def _id_argument(ctx: click.Context, param: click.Parameter, value: str) -> str:
    _id_format(value)
    return value


def _resolve_id(mem: PraxMemory, user: str, given: str) -> str | None:
    """A full id from a full id or a unique prefix; ``None`` when nothing matches.

    Raises:
        _UsageError: The prefix is too short, not hexadecimal, or matches several memories.
    """
    text = _id_format(given)
    try:
        return str(uuid.UUID(text))
    except ValueError:
        pass
    matches = [i for i in _user_ids(mem, user) if i.startswith(text)]
    if len(matches) > 1:
        shown = ", ".join(sorted(matches)[:5]) + (" …" if len(matches) > 5 else "")
        raise _UsageError(
            f"id prefix {given!r} is ambiguous: {len(matches)} memories match ({shown}); "
            "give more characters"
        )
    return matches[0] if matches else None


@_command(cli, "forget", short_help="Delete one memory (id or unique id prefix).")
@click.argument("memory_id", callback=_id_argument)
def _forget(call: _Call, mem: PraxMemory, memory_id: str) -> int:
    """Delete one long-term memory, by id or by a unique id prefix (as recall shows it)."""
    _ltm(mem)
    user = call.user()
    full = _resolve_id(mem, user, memory_id)
    deleted = mem.forget(user, full) if full is not None else False
    call.out.emit(
        {"user_id": user, "memory_id": full or memory_id, "deleted": deleted},
        lambda: call.out.console.print(
            f"[green]forgot[/] {_m(full)}" if deleted else f"no memory {_m(memory_id)}"
        ),
    )
    return EXIT_OK if deleted else EXIT_NOT_FOUND


@_command(
    cli, "reembed", user=False, short_help="Add missing dense vectors (after a model change)."
)
@click.option("--force", is_flag=True, help="Re-embed every memory, not only those missing one.")
@click.option(
    "--model-change",
    is_flag=True,
    help="Move the whole collection (every user) to the configured embedding model.",
)
def _reembed(call: _Call, mem: PraxMemory, force: bool, model_change: bool) -> int:
    """Add dense vectors to memories stored without one (or by a fallback model).

    With --model-change: re-embed every memory of every user with the configured model and
    record it as the collection's model (one model per collection).
    """
    _ltm(mem)
    if model_change:
        from langgraph_prax_memory.migration import migrate_embeddings

        with call.out.progress() as progress:
            moved = migrate_embeddings(mem, progress=progress)
        model = mem.embeddings.model_name
        call.out.emit(
            {"model": model, "reembedded": moved},
            lambda: call.out.console.print(f"re-embedded {moved} memories with {model}"),
        )
        return EXIT_OK
    user = call.user()
    with call.out.progress() as progress:
        done = mem.reembed(user, force=force, progress=progress)
    data: dict[str, Any] = {"user_id": user, "reembedded": done}
    code = _check_user(call, mem, user, data) if not done else EXIT_OK
    call.out.emit(data, lambda: call.out.console.print(f"re-embedded {done} memories"))
    return code


@_command(cli, "decay", short_help="Run the forgetting pass.")
@click.option("--dry-run", is_flag=True, help="List what would be pruned; delete nothing.")
def _decay(call: _Call, mem: PraxMemory, dry_run: bool) -> int:
    """Run the forgetting pass: prune memories whose decayed importance fell below 0.02."""
    _ltm(mem)
    user = call.user()
    with call.out.progress() as progress:
        victims = mem.decay(user, dry_run=dry_run, progress=progress)
    data = {"user_id": user, "dry_run": dry_run, "pruned": victims}
    verb = "would prune" if dry_run else "pruned"
    call.out.emit(data, lambda: call.out.console.print(f"{verb} {len(victims)} memories"))
    return EXIT_OK
