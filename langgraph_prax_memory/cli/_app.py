"""The command group, its global options, safe output and what every command shares."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import shlex
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

import click
from click.core import ParameterSource
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from langgraph_prax_memory._untrusted import safe_for_terminal
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    PraxMemoryError,
)

if TYPE_CHECKING:
    from langgraph_prax_memory._progress import ProgressCallback
    from langgraph_prax_memory.config import MemoryConfig
    from langgraph_prax_memory.memory import PraxMemory
    from langgraph_prax_memory.notes import UserNotes
    from langgraph_prax_memory.stm import ScratchpadStore


EXIT_OK = 0


EXIT_ERROR = 1


EXIT_USAGE = 2


EXIT_BACKEND = 3


EXIT_NOT_FOUND = 4


EXIT_INTERRUPTED = 130


EXIT_BROKEN_PIPE = 141


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


class _UsageError(Exception):
    """A command-line usage problem (exit code 2)."""


class _Exit(Exception):
    """Leave with this exit code (the message, if any, is already printed)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class _LibraryLog(logging.Handler):
    """The library's warnings on stderr, each said once.

    While a memory opens, its warnings are held: a backend that cannot open (the embedded
    store held by another process) logs a warning and then fails the command with the same
    message, which ``main`` prints as the error. A held warning is dropped when the error
    says the same; otherwise it is printed when the command ends.
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.holding = 0
        self.held: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if self.holding:
            self.held.append(message)
        else:
            self._print(message)

    @staticmethod
    def _print(message: str) -> None:
        _SafeConsole(stderr=True).print(f"[yellow]warning:[/] {_m(message)}")

    @contextmanager
    def hold(self) -> Iterator[None]:
        self.holding += 1
        try:
            yield
        finally:
            self.holding -= 1

    def say_held(self, error: BaseException | None = None) -> None:
        """Print the held warnings, except those ``error`` (about to be printed) repeats."""
        said = str(error) if isinstance(error, PraxMemoryError) and str(error) else None
        held, self.held = self.held, []
        for message in held:
            if said is None or said not in message:
                self._print(message)

    @contextmanager
    def installed(self) -> Iterator[_LibraryLog | None]:
        """Route the ``langgraph_prax_memory`` loggers' warnings here while the CLI runs.

        Only when nothing else would print them (no handler configured, as in the
        ``prax-memory`` process): an application that set up logging keeps its own.
        """
        logger = logging.getLogger("langgraph_prax_memory")
        if logger.hasHandlers():
            yield None
            return
        logger.addHandler(self)
        try:
            yield self
        finally:
            logger.removeHandler(self)
            self.say_held()


class _Stores(Protocol):
    """What the commands that need no vectors use: the settings, scratchpad and notes."""

    @property
    def config(self) -> MemoryConfig: ...

    @property
    def stm(self) -> ScratchpadStore: ...

    @property
    def notes(self) -> UserNotes: ...


class _LightMemory:
    """The scratchpad and notes of a data directory, without long-term memory or the graph.

    What ``stm`` and ``notes show`` open: no vector engine, embedding model or LangChain is
    imported, so they answer at once.
    """

    def __init__(self, config: MemoryConfig) -> None:
        from langgraph_prax_memory.notes import UserNotes
        from langgraph_prax_memory.stm import ScratchpadStore

        self.config = config
        chat_model = config.model_routing.resolve("stm_compaction")
        self.stm = ScratchpadStore(config, chat_model=chat_model)
        self.notes = UserNotes(config)


@dataclass
class _Runtime:
    """What ``main`` hands to every command: an injected memory and the merged options."""

    memory: PraxMemory | None = None
    options: dict[str, Any] = field(default_factory=dict)
    log: _LibraryLog | None = None


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
    log: _LibraryLog | None = None

    @property
    def as_json(self) -> bool:
        return bool(self.options.get("json_output"))

    @property
    def data_dir(self) -> Path | None:
        value = self.options.get("data_dir")
        return Path(value) if value else None

    def user(self) -> str:
        """The user id of the command, checked (before any store opens).

        Raises:
            _UsageError: No user was given.
            MemoryValidationError: The id is not a usable user id.
        """
        from langgraph_prax_memory._validation import check_user_id

        user = self.options.get("user") or os.environ.get("PRAX_MEMORY_USER")
        if not user:
            raise _UsageError("--user is required (or set PRAX_MEMORY_USER)")
        return check_user_id(str(user))

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

        with self.log.hold() if self.log is not None else contextlib.nullcontext():
            try:
                mem = PraxMemory(self.config())
            except BaseException as exc:
                self._release(exc)
                raise
        try:
            with mem:
                yield mem
        except BaseException as exc:
            self._release(exc)
            raise
        self._release(None)

    @contextmanager
    def stores(self) -> Iterator[_Stores]:
        """The scratchpad and notes alone (the injected memory's, when there is one)."""
        if self.injected is not None:
            yield self.injected
            return
        yield _LightMemory(self.config())

    def _release(self, error: BaseException | None) -> None:
        if self.log is not None:
            self.log.say_held(error)


def _call() -> _Call:
    ctx = click.get_current_context()
    runtime = ctx.find_object(_Runtime) or _Runtime()
    as_json = bool(runtime.options.get("json_output"))
    out = _Out(_SafeConsole(), _SafeConsole(stderr=True), as_json)
    return _Call(runtime.options, out, runtime.memory, runtime.log)


def _command(
    group: click.Group,
    name: str,
    *,
    opens: bool = True,
    light: bool = False,
    user: bool = True,
    **kwargs: Any,
) -> Callable[[Callable[..., int]], click.Command]:
    """Register ``fn(call, [mem,] **params) -> exit code`` as ``name`` with the global options.

    ``opens=True`` passes an open memory (the injected one, or one built from the options);
    ``light=True`` passes only the scratchpad and notes (:meth:`_Call.stores`: nothing heavy
    is imported). ``user=True``: the command needs ``--user``, checked before anything opens
    (a usage error never waits for the stores).
    """

    def decorate(fn: Callable[..., int]) -> click.Command:
        @functools.wraps(fn)
        def run(**params: Any) -> int:
            call = _call()
            try:
                if user and (opens or light):
                    call.user()
                if light:
                    with call.stores() as stores:
                        return fn(call, stores, **params)
                if not opens:
                    return fn(call, **params)
                with call.memory() as mem:
                    return fn(call, mem, **params)
            except BrokenPipeError:  # before click turns it into exit code 1
                _quiet_stdout()
                raise _Exit(EXIT_BROKEN_PIPE) from None

        return group.command(name, context_settings=_CONTEXT, **kwargs)(_global_options(run))

    return decorate


def _importance(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """Check ``--importance`` while parsing, so a bad one is refused before anything opens."""
    if value is None:
        return None
    from langgraph_prax_memory._validation import check_importance

    return check_importance(value)


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


def _user_is_unknown(call: _Call, mem: PraxMemory | _Stores, user: str) -> bool:
    """Whether ``user`` has nothing here: no memories, notes, scratchpad or graph entities.

    A store that cannot answer (held by another process, disabled) never makes a user unknown.
    Given only the scratchpad and notes (a light command), it opens the memory to look at
    long-term memory and the graph, only when both are empty.
    """
    if mem.stm.all(user) or mem.notes.read(user).strip():
        return False
    if isinstance(mem, _LightMemory):
        with call.memory() as opened:
            return _user_is_unknown(call, opened, user)
    full = cast("PraxMemory", mem)  # a light command given an injected memory
    try:
        if full.available and full.count(user):
            return False
        if full.graph.stats(user).entities:
            return False
    except PraxMemoryError:
        return False
    return True


def _unknown_hint(call: _Call, mem: PraxMemory | _Stores, user: str) -> str:
    return (
        f"user {user!r} has no memories, notes or scratchpad entries in "
        f"{mem.config.data_dir}: check --user (and --data-dir or MEMORY_DATA_DIR), or start "
        f"with: prax-memory remember -u {shlex.quote(user)} TEXT"
    )


def _check_user(call: _Call, mem: PraxMemory | _Stores, user: str, data: dict[str, Any]) -> int:
    """Add the unknown-user hint to ``data`` (and stderr); the exit code it implies."""
    if not _user_is_unknown(call, mem, user):
        return EXIT_OK
    hint = _unknown_hint(call, mem, user)
    data["unknown_user"] = True
    data["hint"] = hint
    if not call.as_json:
        call.out.warn(hint)
    return EXIT_NOT_FOUND


def _quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the interpreter's flush is silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor (tests): nothing to silence
        pass
