"""``prax-memory inspect``: the local inspector page (docs/inspector.md)."""

from __future__ import annotations

import secrets
import socket
import sys
from typing import TYPE_CHECKING

import click

from langgraph_prax_memory.cli._app import EXIT_OK, _Call, _command, _UsageError, cli

if TYPE_CHECKING:
    from langgraph_prax_memory.memory import PraxMemory

#: The only address the inspector binds.
HOST = "127.0.0.1"
#: The section of docs/inspector.md for a running agent.
RECIPE = "Inspect a running agent"


def _hold_embedded(mem: PraxMemory) -> bool:
    """Open the long-term store now; whether it is the embedded one (held by this process).

    Raises:
        StoreLockedError: Another process (a running agent) holds the embedded store: taking
            it over would fail that agent's recalls; the error says how to inspect it.
    """
    from langgraph_prax_memory.errors import StoreLockedError

    if not mem.available or mem.config.qdrant_url:
        return False
    try:
        mem.ltm.store()
    except StoreLockedError as exc:
        raise StoreLockedError(
            f"{exc} To inspect a running agent's memory, serve the inspector from the agent's "
            "own process: `from langgraph_prax_memory.inspector import serve; "
            f"print(serve(memory).url)` (docs/inspector.md, {RECIPE!r})."
        ) from exc
    return True


def bind(port: int) -> socket.socket:
    """A listening TCP socket on 127.0.0.1 (``port`` 0: any free port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        raise _UsageError(f"cannot listen on {HOST}:{port}: {exc.strerror or exc}") from exc
    sock.listen(128)
    return sock


@_command(cli, "inspect", user=False, short_help="Open a local web page over the stored memory.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port on 127.0.0.1 (0: a free one).",
)
@click.option(
    "--allow-changes",
    is_flag=True,
    help="Accept approving/rejecting pending review and forgetting a user (POST).",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in a browser.")
@click.option(
    "--only-user",
    "only_users",
    multiple=True,
    metavar="USER",
    help="Show only this user (repeatable); every other user answers 404.",
)
def _inspect(
    call: _Call,
    mem: PraxMemory,
    port: int,
    allow_changes: bool,
    open_browser: bool,
    only_users: tuple[str, ...],
) -> int:
    """Serve a read-only page over the data folder on 127.0.0.1, behind a random token.

    Pages: users with their counts; a user's memories (search, sort, filter, decay and prune
    dates); a recall playground (ranked hits with their signals and the exact context block);
    the graph; consolidation and the pending-review queue; forgetting a user. The URL
    printed carries the token; every request needs it. Ctrl-C stops the server.
    """
    import uvicorn

    from langgraph_prax_memory.inspector import create_app

    embedded = _hold_embedded(mem)
    token = secrets.token_urlsafe(24)
    # `-u USER` (given on the command line, not from the environment) means one user too
    named = call.options.get("user")
    users = list(only_users) or ([str(named)] if named else None)
    app = create_app(mem, token=token, allow_changes=allow_changes, users=users)
    sock = bind(port)
    url = f"http://{HOST}:{sock.getsockname()[1]}/?token={token}"
    mode = "changes allowed (POST with the token)" if allow_changes else "read-only"
    # the URL goes to stdout (a script can read it); everything else to stderr
    sys.stdout.write(url + "\n")
    sys.stdout.flush()
    call.out.err.print(f"inspecting {mem.config.data_dir} ({mode}); Ctrl-C stops")
    if embedded:
        call.out.err.print(
            "this process now holds the embedded store: an agent started on this folder while "
            "it runs cannot recall. To inspect a running agent, serve the inspector from the "
            "agent's own process (inspector.serve(memory); docs/inspector.md, "
            f"{RECIPE!r})"
        )
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    return EXIT_OK
