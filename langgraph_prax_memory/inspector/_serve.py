"""The inspector served from the process that already holds the memory (a running agent).

The embedded store is held by one process at a time: a second process that opens the same
folder (``prax-memory inspect`` beside a running agent) either takes the folder from the
agent (whose ``recall`` then raises :class:`~langgraph_prax_memory.errors.StoreLockedError`
and whose context block loses its long-term memories) or cannot read it. :func:`serve` runs
the inspector inside the agent's own process instead, over the agent's own ``PraxMemory``:
no second holder, no lock, and every page shows what the agent's memory holds now.
"""

from __future__ import annotations

import secrets
import socket
import threading
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from langgraph_prax_memory.errors import MemoryValidationError

if TYPE_CHECKING:
    from langgraph_prax_memory.memory import PraxMemory

#: The only address the inspector binds.
HOST = "127.0.0.1"


class InspectorServer:
    """A running inspector (a uvicorn server on a background thread); :meth:`close` stops it.

    Attributes:
        url: The page to open, with its token (``http://127.0.0.1:PORT/?token=...``).
        token: The secret every request carries.
        port: The port on 127.0.0.1.
    """

    def __init__(self, server: Any, thread: threading.Thread, sock: socket.socket, token: str):
        self._server, self._thread, self._sock = server, thread, sock
        self.token = token
        self.port = int(sock.getsockname()[1])
        self.url = f"http://{HOST}:{self.port}/?token={token}"

    def close(self, timeout: float = 10.0) -> None:
        """Stop serving (the memory stays open: it is the caller's); idempotent."""
        self._server.should_exit = True
        self._thread.join(timeout=timeout)
        self._sock.close()

    def __enter__(self) -> InspectorServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"InspectorServer(url={self.url!r})"


def serve(
    memory: PraxMemory,
    *,
    port: int = 0,
    token: str | None = None,
    allow_changes: bool = False,
    users: Iterable[str] | None = None,
    timeout: float = 30.0,
) -> InspectorServer:
    """Serve the inspector from this process, over ``memory``, on 127.0.0.1; returns at once.

    For a running agent: call it where the agent's ``PraxMemory`` is built and open
    :attr:`InspectorServer.url`. The pages read the agent's memory as it is (no copy, no
    second process, no lock taken from the agent); like ``prax-memory inspect`` they are
    read-only unless ``allow_changes``, behind a random token, on the loopback only.

    Args:
        memory: The memory to show (not closed by the server).
        port: A port on 127.0.0.1 (0: a free one).
        token: The secret every request must carry (default: a random one).
        allow_changes: Accept pending-review decisions and forgetting a user.
        users: Only these users (others answer 404).
        timeout: Seconds to wait for the server to answer.

    Raises:
        MemoryValidationError: The port cannot be bound, or the server did not start.

    Example:
        >>> import tempfile
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> memory = PraxMemory(MemoryConfig(data_dir=tempfile.mkdtemp()))
        >>> inspector = serve(memory)  # the agent keeps using ``memory`` meanwhile
        >>> inspector.url.startswith("http://127.0.0.1:")
        True
        >>> inspector.close(); memory.close()
    """
    import uvicorn

    from langgraph_prax_memory.inspector._app import create_app

    secret = token or secrets.token_urlsafe(24)
    app = create_app(memory, token=secret, allow_changes=allow_changes, users=users)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        raise MemoryValidationError(
            f"the inspector cannot listen on {HOST}:{port}: {exc.strerror or exc}"
        ) from exc
    sock.listen(128)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    # uvicorn installs signal handlers only on the main thread: the agent keeps its own
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="prax-inspector", daemon=True
    )
    thread.start()
    running = InspectorServer(server, thread, sock, secret)
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            running.close(timeout=1.0)
            raise MemoryValidationError("the inspector did not start")
        time.sleep(0.02)
    return running
