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

The commands live by group in private modules: ``_memories`` (``demo``, ``remember``,
``recall``, ``forget``, ``reembed``, ``decay``), ``_scratchpad`` (``stm``, ``notes``),
``_graph`` (``entity``, ``graph``), ``_admin`` (``consolidate``, ``knowledge``, ``stats``,
``export``, ``import``, ``forget-user``, ``doctor``), ``_inspect`` (``inspect``) and ``_models``
(``models list``, ``models pull``); ``_app`` holds the group, the global options and the
output. Importing this package registers them, in the order ``--help`` lists.

Example:
    >>> from langgraph_prax_memory.cli import main
    >>> main(["--version"])
    prax-memory ...
    0
"""

from __future__ import annotations

import errno
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from langgraph_prax_memory.cli._app import (
    EXIT_BACKEND,
    EXIT_BROKEN_PIPE,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_USAGE,
    _Exit,
    _LibraryLog,
    _m,
    _quiet_stdout,
    _Runtime,
    _SafeConsole,
    _UsageError,
    cli,
)
from langgraph_prax_memory.cli._memories import shortest_unique_prefixes as shortest_unique_prefixes
from langgraph_prax_memory.errors import BackendUnavailable, PraxMemoryError

if TYPE_CHECKING:
    from langgraph_prax_memory.memory import PraxMemory

# The command modules register their commands on ``cli`` as they are imported: this order is
# the order ``--help`` lists them in (hence one import each, unsorted).
from langgraph_prax_memory.cli import _memories  # noqa: F401, I001
from langgraph_prax_memory.cli import _scratchpad  # noqa: F401
from langgraph_prax_memory.cli import _graph  # noqa: F401
from langgraph_prax_memory.cli import _admin  # noqa: F401
from langgraph_prax_memory.cli import _inspect  # noqa: F401
from langgraph_prax_memory.cli import _models  # noqa: F401

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
        with _LibraryLog().installed() as log:
            code = cli.main(
                args=args,
                prog_name="prax-memory",
                standalone_mode=False,
                obj=_Runtime(memory=memory, log=log),
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
