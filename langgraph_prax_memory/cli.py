"""The ``prax-memory`` command line (click, with rich tables and progress bars).

The options every command takes (``--data-dir``, ``-u/--user``, ``--json``) work in any
position: before the command (``prax-memory -u alice recall tea``), after it, or on a
sub-command (``prax-memory stm -u alice list``); a value given closer to the command wins.
``--json`` prints one JSON document on stdout. Progress bars and warnings go to stderr.

Exit codes (see docs/cli.md): ``0`` success, ``1`` a memory error (bad input, a write that
did not land, an unreadable export), ``2`` a usage error, ``3`` a backend is unavailable (or
``doctor`` / ``stats`` found a failure), ``4`` the thing asked for does not exist (an unknown
id, key or entity, or a user with no memories, notes or scratchpad), ``130`` interrupted,
``141`` stdout was closed early (``| head``), quietly.

Heavy modules (Qdrant, LangChain, the embedding model) are imported inside the commands, so
``prax-memory --help`` starts in a fraction of a second.

Example:
    >>> from langgraph_prax_memory.cli import main
    >>> main(["--version"])  # doctest: +SKIP
    prax-memory 0.1.0
    0
"""

from __future__ import annotations

import errno
import functools
import json
import os
import shlex
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from langgraph_prax_memory._untrusted import safe_for_terminal
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    DeletionIncomplete,
    MemoryValidationError,
    PraxMemoryError,
)

if TYPE_CHECKING:
    from rich.table import Table

    from langgraph_prax_memory._doctor import Check
    from langgraph_prax_memory._progress import ProgressCallback
    from langgraph_prax_memory.config import MemoryConfig
    from langgraph_prax_memory.memory import PraxMemory

__all__ = [
    "EXIT_BACKEND",
    "EXIT_BROKEN_PIPE",
    "EXIT_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_NOT_FOUND",
    "EXIT_OK",
    "EXIT_USAGE",
    "cli",
    "main",
]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_BACKEND = 3
EXIT_NOT_FOUND = 4
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141

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


# ----------------------------------------------------------------------- safe output


class _SafeConsole(Console):
    r"""A rich console that never lets stored text drive the terminal.

    Every string it renders (markup strings and table cells) has its control sequences made
    visible first (:func:`safe_for_terminal`); :func:`_text` does the same for ``Text``
    objects and :func:`_m` escapes stored text interpolated into markup, so a memory holding
    ``\x1b[2J`` or ``[blink]`` is shown, not executed.
    """

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(safe_for_terminal(text), **kwargs)

    def on_broken_pipe(self) -> None:
        """The reader went away (``| head``): stop quietly with :data:`EXIT_BROKEN_PIPE`."""
        self.quiet = True
        _quiet_stdout()
        raise _Exit(EXIT_BROKEN_PIPE)


def _text(value: str, **kwargs: Any) -> Text:
    """A ``Text`` of stored (untrusted) text, control sequences made visible."""
    return Text(safe_for_terminal(value), **kwargs)


def _m(value: object) -> str:
    """Stored text to interpolate into rich markup: control sequences and markup inert."""
    return escape(safe_for_terminal(str(value)))


def _jsonable(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if hasattr(value, "__dataclass_fields__"):
        return {k: _jsonable(getattr(value, k)) for k in value.__dataclass_fields__}
    return str(value)


class _Out:
    """Where a command's result goes: a rich console, or one JSON document on stdout."""

    def __init__(self, console: Console, err: Console, as_json: bool) -> None:
        self.console = console
        self.err = err
        self.json = as_json

    def emit(self, data: Any, render: Callable[[], None]) -> None:
        if self.json:
            sys.stdout.write(json.dumps(_jsonable(data), indent=2, ensure_ascii=False) + "\n")
            sys.stdout.flush()
        else:
            render()

    def warn(self, message: str) -> None:
        """A warning or hint on stderr (stdout stays the command's result)."""
        self.err.print(f"[yellow]{_m(message)}[/]")

    @contextmanager
    def progress(self) -> Iterator[ProgressCallback]:
        """A rich progress callback on stderr, drawn only when stderr is a terminal."""
        from langgraph_prax_memory._progress import rich_progress

        with rich_progress(self.err, disable=not self.err.is_terminal) as bar:
            yield bar


# ----------------------------------------------------------------------- options


class _UsageError(Exception):
    """A command-line usage problem (exit code 2)."""


class _Exit(Exception):
    """Leave with this exit code (the message, if any, is already printed)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


@dataclass
class _Runtime:
    """What ``main`` hands to every command: an injected memory and the merged options."""

    memory: PraxMemory | None = None
    options: dict[str, Any] = field(default_factory=dict)


def _remember_option(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    """Merge a global option given at any level (the one nearest the command wins)."""
    if param.name is None or ctx.get_parameter_source(param.name) in (
        None,
        ParameterSource.DEFAULT,
    ):
        return
    # `cli` run on its own (click's CliRunner, `cli()`) has no runtime yet: the root keeps one
    ctx.find_root().ensure_object(_Runtime).options[param.name] = value


_GLOBAL_OPTIONS: list[Callable[[Callable[..., Any]], Callable[..., Any]]] = [
    click.option(
        "--data-dir",
        type=click.Path(file_okay=False, path_type=Path),
        expose_value=False,
        callback=_remember_option,
        help="Data directory (default: $MEMORY_DATA_DIR or the platform's user data dir).",
    ),
    click.option(
        "-u",
        "--user",
        metavar="USER",
        expose_value=False,
        callback=_remember_option,
        help="The user id (default: $PRAX_MEMORY_USER).",
    ),
    click.option(
        "--json",
        "json_output",
        is_flag=True,
        expose_value=False,
        callback=_remember_option,
        help="Print one JSON document on stdout instead of tables.",
    ),
]


def _global_options(f: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(_GLOBAL_OPTIONS):
        f = option(f)
    return f


_CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class _Group(click.Group):
    """A group whose commands are listed in the order they were added."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)


@dataclass
class _Call:
    """One command invocation: the merged options, the output and (lazily) the memory."""

    options: dict[str, Any]
    out: _Out
    injected: PraxMemory | None

    @property
    def as_json(self) -> bool:
        return bool(self.options.get("json_output"))

    @property
    def data_dir(self) -> Path | None:
        value = self.options.get("data_dir")
        return Path(value) if value else None

    def user(self) -> str:
        user = self.options.get("user") or os.environ.get("PRAX_MEMORY_USER")
        if not user:
            raise _UsageError("--user is required (or set PRAX_MEMORY_USER)")
        return str(user)

    def config(self, **overrides: Any) -> MemoryConfig:
        from langgraph_prax_memory.config import MemoryConfig

        if self.data_dir is not None:
            overrides.setdefault("data_dir", self.data_dir)
        return MemoryConfig(**overrides)

    @contextmanager
    def memory(self) -> Iterator[PraxMemory]:
        if self.injected is not None:
            yield self.injected
            return
        from langgraph_prax_memory.memory import PraxMemory

        with PraxMemory(self.config()) as mem:
            yield mem


def _call() -> _Call:
    ctx = click.get_current_context()
    runtime = ctx.find_object(_Runtime) or _Runtime()
    as_json = bool(runtime.options.get("json_output"))
    out = _Out(_SafeConsole(), _SafeConsole(stderr=True), as_json)
    return _Call(runtime.options, out, runtime.memory)


def _command(
    group: click.Group, name: str, *, opens: bool = True, **kwargs: Any
) -> Callable[[Callable[..., int]], click.Command]:
    """Register ``fn(call, [mem,] **params) -> exit code`` as ``name`` with the global options.

    ``opens=True`` passes an open memory (the injected one, or one built from the options).
    """

    def decorate(fn: Callable[..., int]) -> click.Command:
        @functools.wraps(fn)
        def run(**params: Any) -> int:
            call = _call()
            try:
                if not opens:
                    return fn(call, **params)
                with call.memory() as mem:
                    return fn(call, mem, **params)
            except BrokenPipeError:  # before click turns it into exit code 1
                _quiet_stdout()
                raise _Exit(EXIT_BROKEN_PIPE) from None

        return group.command(name, context_settings=_CONTEXT, **kwargs)(_global_options(run))

    return decorate


def _group(parent: click.Group, name: str, help_text: str) -> click.Group:
    @parent.group(name, cls=_Group, context_settings=_CONTEXT, help=help_text)
    @_global_options
    def sub() -> None:
        pass

    return sub


def _version() -> str:
    from langgraph_prax_memory._version import __version__

    return __version__


@click.group(cls=_Group, context_settings=_CONTEXT, name="prax-memory")
@click.version_option(
    _version(), "-V", "--version", prog_name="prax-memory", message="%(prog)s %(version)s"
)
@_global_options
def cli() -> None:
    """Prax memory for agents: long-term memory, graph, scratchpad and notes per user.

    Start with `prax-memory demo`, then `prax-memory remember -u you TEXT` and
    `prax-memory recall -u you QUESTION`. Options --data-dir, -u/--user and --json work
    before or after any command.
    """


def _ltm(memory: PraxMemory) -> None:
    if not memory.available:
        raise BackendUnavailable("Memory system not available: MEMORY_ENABLED is false")


def _user_is_unknown(mem: PraxMemory, user: str) -> bool:
    """Whether ``user`` has nothing here: no memories, notes, scratchpad or graph entities.

    A store that cannot answer (held by another process, disabled) never makes a user unknown.
    """
    if mem.stm.all(user) or mem.notes.read(user).strip():
        return False
    try:
        if mem.available and mem.count(user):
            return False
        if mem.graph.stats(user).entities:
            return False
    except PraxMemoryError:
        return False
    return True


def _unknown_hint(call: _Call, mem: PraxMemory, user: str) -> str:
    return (
        f"user {user!r} has no memories, notes or scratchpad entries in "
        f"{mem.config.data_dir}: check --user (and --data-dir or MEMORY_DATA_DIR), or start "
        f"with: prax-memory remember -u {shlex.quote(user)} TEXT"
    )


def _check_user(call: _Call, mem: PraxMemory, user: str, data: dict[str, Any]) -> int:
    """Add the unknown-user hint to ``data`` (and stderr); the exit code it implies."""
    if not _user_is_unknown(mem, user):
        return EXIT_OK
    hint = _unknown_hint(call, mem, user)
    data["unknown_user"] = True
    data["hint"] = hint
    if not call.as_json:
        call.out.warn(hint)
    return EXIT_NOT_FOUND


# ----------------------------------------------------------------------- demo


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

    from langgraph_prax_memory.context import format_memories

    _ltm(mem)
    with call.out.progress() as progress:
        for i, (content, importance, tags) in enumerate(DEMO_FACTS, 1):
            mem.remember(DEMO_USER, content, importance=importance, tags=tags)
            progress(i, len(DEMO_FACTS), "storing facts")
    result = mem.recall_detailed(DEMO_USER, question, k=k, reinforce=False)
    # what build_memory_context gives the agent: hits below the relevance floor stay out
    floor = mem.config.retrieval.relevance_floor
    injected = [h for h in result.hits if h.relevant or not floor]
    block = format_memories(injected)
    injected_ids = {h.memory.id for h in injected}
    data = {
        "question": question,
        "data_dir": str(mem.config.data_dir),
        "kept": kept,
        "without_memory": "",
        "with_memory": block,
        "hits": [h.model_dump(mode="json") for h in result.hits],
        "injected": [h.memory.id for h in injected],
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
                title=f"WITH memory: {len(injected)} of {len(result.hits)} recalled facts",
            )
        )
        table = Table(title="Why each memory ranked where it did")
        table.add_column("#", justify="right")
        table.add_column("memory", overflow="fold")
        table.add_column("ranks")
        table.add_column("score", justify="right")
        table.add_column("in context")
        for i, h in enumerate(result.hits, 1):
            shown = "yes" if h.memory.id in injected_ids else "no: below the floor"
            table.add_row(str(i), _text(h.memory.content), _ranks(h), f"{h.score:.4f}", shown)
        con.print(table)
        for i, h in enumerate(result.hits, 1):
            con.print(_text(f"{i}. {h.explain()}", style="dim"))
        con.print(
            '\n[bold]Next:[/] prax-memory remember -u you "I prefer tea" · '
            'prax-memory recall -u you "what do I drink?" · prax-memory --help'
        )

    call.out.emit(data, render)
    return EXIT_OK


# ----------------------------------------------------------------------- long-term memory


@_command(cli, "remember", short_help="Store one long-term memory.")
@click.argument("content")
@click.option(
    "--importance",
    type=float,
    default=0.5,
    show_default=True,
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


def _resolve_id(mem: PraxMemory, user: str, given: str) -> str | None:
    """A full id from a full id or a unique prefix; ``None`` when nothing matches.

    Raises:
        _UsageError: The prefix is too short, not hexadecimal, or matches several memories.
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
    matches = [i for i in _user_ids(mem, user) if i.startswith(text)]
    if len(matches) > 1:
        shown = ", ".join(sorted(matches)[:5]) + (" …" if len(matches) > 5 else "")
        raise _UsageError(
            f"id prefix {given!r} is ambiguous: {len(matches)} memories match ({shown}); "
            "give more characters"
        )
    return matches[0] if matches else None


@_command(cli, "forget", short_help="Delete one memory (id or unique id prefix).")
@click.argument("memory_id")
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


@_command(cli, "reembed", short_help="Add missing dense vectors (after a model change).")
@click.option("--force", is_flag=True, help="Re-embed every memory, not only those missing one.")
def _reembed(call: _Call, mem: PraxMemory, force: bool) -> int:
    """Add dense vectors to memories stored without one (or by a fallback model)."""
    _ltm(mem)
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


# ----------------------------------------------------------------------- scratchpad


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


@_command(_stm, "list")
def _stm_list(call: _Call, mem: PraxMemory) -> int:
    """Every entry."""
    user = call.user()
    entries = mem.stm.all(user)
    data: dict[str, Any] = {"user_id": user, "entries": [e.to_json_dict() for e in entries]}
    code = _check_user(call, mem, user, data) if not entries else EXIT_OK
    call.out.emit(data, lambda: call.out.console.print(_entries_table(user, entries)))
    return code


@_command(_stm, "get")
@click.argument("key")
def _stm_get(call: _Call, mem: PraxMemory, key: str) -> int:
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


@_command(_stm, "set")
@click.argument("key")
@click.argument("content")
@click.option("--importance", type=float, help="0..1 (default: the scratchpad's default).")
@click.option("--tags", metavar="A,B", help="Comma-separated tags.")
def _stm_set(
    call: _Call,
    mem: PraxMemory,
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


@_command(_stm, "delete")
@click.argument("key")
def _stm_delete(call: _Call, mem: PraxMemory, key: str) -> int:
    """Remove an entry."""
    user = call.user()
    deleted = mem.stm.delete(user, key)
    call.out.emit(
        {"user_id": user, "key": key, "deleted": deleted},
        lambda: call.out.console.print("[green]deleted[/]" if deleted else "no such key"),
    )
    return EXIT_OK if deleted else EXIT_NOT_FOUND


@_command(_stm, "clear")
def _stm_clear(call: _Call, mem: PraxMemory) -> int:
    """Remove every entry."""
    user = call.user()
    removed = mem.stm.clear(user)
    call.out.emit(
        {"user_id": user, "removed": removed},
        lambda: call.out.console.print(f"removed {removed} entries"),
    )
    return EXIT_OK


# ----------------------------------------------------------------------- notes


_notes = _group(cli, "notes", "The user's quick-reference notes (user_notes.md, git-backed).")


@_command(_notes, "show")
def _notes_show(call: _Call, mem: PraxMemory) -> int:
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


# ----------------------------------------------------------------------- graph


def _relations_table(relations: Sequence[Any], title: str) -> Table:
    from rich.table import Table

    table = Table(title=title)
    for col in ("source", "relation", "target", "weight", "valid from", "valid until"):
        table.add_column(col, overflow="fold")
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


@_command(cli, "entity")
@click.argument("name")
@click.option("--history", is_flag=True, help="Include superseded relations.")
def _entity(call: _Call, mem: PraxMemory, name: str, history: bool) -> int:
    """An entity of the user's graph and its relations."""
    _ltm(mem)
    user = call.user()
    found = mem.graph.get_entity(user, name, include_superseded=history)
    if found is None:
        similar = [e.display_name for e in mem.graph.search_entities(user, name, limit=5)]
        call.out.emit(
            {"user_id": user, "entity": None, "suggestions": similar},
            lambda: call.out.console.print(
                _m(
                    f"no entity {name!r}"
                    + (
                        f"; similar: {', '.join(similar)}"
                        if similar
                        else f"; `prax-memory graph -u {user}` lists every entity "
                        "(the user themselves is 'user')"
                    )
                )
            ),
        )
        return EXIT_NOT_FOUND
    ent = found.entity

    def render() -> None:
        call.out.console.print(
            f"[bold]{_m(ent.display_name)}[/] ({_m(ent.type)}) importance {ent.importance:.2f}, "
            f"mentioned {ent.mention_count}×, last seen {ent.last_seen.date().isoformat()}"
        )
        call.out.console.print(
            _relations_table(found.relations, f"relations of {_m(ent.display_name)}")
        )

    call.out.emit({"user_id": user, "entity": ent, "relations": found.relations}, render)
    return EXIT_OK


@_command(cli, "graph")
@click.argument("question", required=False)
@click.option("--history", is_flag=True, help="Include superseded relations.")
def _graph(call: _Call, mem: PraxMemory, question: str | None, history: bool) -> int:
    """The user's whole graph, or the answer to a QUESTION about it."""
    from langgraph_prax_memory._graph_query import answer_graph_question, describe_relation
    from langgraph_prax_memory._portable import graph_entities, graph_relations

    _ltm(mem)
    user = call.user()
    if question:
        answer = answer_graph_question(mem.graph, user, question)
        call.out.emit(
            {
                "user_id": user,
                "question": question,
                "entities": answer.entities,
                "connections": answer.connections,
                "bridges": answer.bridges,
                "relations": answer.relations,
                "answer": answer.to_text(),
            },
            lambda: call.out.console.print(_text(answer.to_text())),
        )
        return EXIT_OK if answer.entities else EXIT_NOT_FOUND
    stats = mem.graph.stats(user)
    entities = graph_entities(mem.parts, user)
    relations = graph_relations(mem.parts, user, entities, include_superseded=history)

    def render() -> None:
        con = call.out.console
        con.print(
            f"[bold]{_m(user)}[/]: {stats.entities} entities, {stats.current_relations} current "
            f"relations ({stats.relations} total), {stats.temporal_events} events, "
            f"{stats.causal_links} causal links"
        )
        if relations:
            con.print(_relations_table(relations, "relations"))
        for e in entities:
            if not any(e.name in (r.source, r.target) for r in relations):
                con.print(_text(f"- {e.display_name} ({e.type}), no relations"))

    data: dict[str, Any] = {
        "user_id": user,
        "stats": stats,
        "entities": entities,
        "relations": relations,
        "lines": [describe_relation(r) for r in relations],
    }
    code = _check_user(call, mem, user, data) if not entities else EXIT_OK
    call.out.emit(data, render)
    return code


# ----------------------------------------------------------------------- consolidation


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


# ----------------------------------------------------------------------- knowledge


_knowledge = _group(cli, "knowledge", "World knowledge (documents, code), apart from memory.")


@_command(_knowledge, "ingest")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--namespace",
    "-n",
    help="Namespace (default: 'codebase' for a directory, 'uploads' for a file).",
)
def _knowledge_ingest(
    call: _Call, mem: PraxMemory, paths: tuple[Path, ...], namespace: str | None
) -> int:
    """Ingest files (markdown, text, PDF) as documents and directories as codebases.

    Unchanged content is skipped, so re-running only adds what is new.
    """
    _ltm(mem)
    user = call.user()
    kb = mem.knowledge
    results: list[dict[str, Any]] = []
    with call.out.progress() as progress:
        for path in paths:
            if path.is_dir():
                res = kb.ingest_codebase(user, path, namespace or "codebase", progress=progress)
            else:
                res = kb.ingest_document(user, path, namespace or "uploads", progress=progress)
            results.append({"path": str(path), **_jsonable(res)})

    def render() -> None:
        from rich.table import Table

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
                "yes" if r["skipped"] else "",
            )
        call.out.console.print(table)
        for r in results:
            for warning in r.get("warnings") or []:
                call.out.warn(warning)
            if r.get("index_error"):
                call.out.warn(f"semantic index: {r['index_error']}")

    call.out.emit({"user_id": user, "results": results}, render)
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


# ----------------------------------------------------------------------- maintenance


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
    """A user's memories, graph, scratchpad and notes as portable JSONL."""
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
    return EXIT_OK


@_command(cli, "import", short_help="Load an export (idempotent).")
@click.argument("file", metavar="FILE|-")
def _import(call: _Call, mem: PraxMemory, file: str) -> int:
    """Load an export (into --user if given, else its own user); importing twice is a no-op."""
    from rich.table import Table

    from langgraph_prax_memory._portable import PortableFormatError, import_user

    target = call.options.get("user")
    try:
        with call.out.progress() as progress:
            if file == "-":
                receipt = import_user(mem, sys.stdin, user_id=target, progress=progress)
            else:
                with open(file, encoding="utf-8") as fh:
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
def _doctor(call: _Call) -> int:
    """Check the data directory, scratchpad, notes (git), embedder, Qdrant and graph."""
    from langgraph_prax_memory._doctor import diagnose, run_checks

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


# ----------------------------------------------------------------------- entry point


def _quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the interpreter's flush is silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor (tests): nothing to silence
        pass


def main(argv: Sequence[str] | None = None, *, memory: PraxMemory | None = None) -> int:
    """Entry point of ``prax-memory``; returns the exit code.

    Args:
        argv: Arguments (``sys.argv[1:]`` when omitted).
        memory: Run against this memory instead of opening one from ``--data-dir`` / the
            environment (embedding the CLI, tests). It is not closed.

    Example:
        >>> main(["--help"])  # doctest: +SKIP
        0
    """
    args = list(sys.argv[1:] if argv is None else argv)
    err = _SafeConsole(stderr=True)
    try:
        code = cli.main(
            args=args,
            prog_name="prax-memory",
            standalone_mode=False,
            obj=_Runtime(memory=memory),
        )
        return int(code or 0)
    except click.exceptions.NoArgsIsHelpError as exc:
        # bare `prax-memory` or `prax-memory stm`: the help, on stdout, is the answer
        click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
        return EXIT_USAGE
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.exceptions.Abort:
        err.print("[red]interrupted[/]")
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        err.print("[red]interrupted[/]")
        return EXIT_INTERRUPTED
    except _Exit as exc:
        return exc.code
    except _UsageError as exc:
        err.print(f"[red]usage:[/] {_m(exc)}")
        return EXIT_USAGE
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except BackendUnavailable as exc:
        err.print(f"[red]unavailable:[/] {_m(exc)}")
        return EXIT_BACKEND
    except (PraxMemoryError, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
            _quiet_stdout()
            return EXIT_BROKEN_PIPE
        err.print(f"[red]error:[/] {_m(exc)}")
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
