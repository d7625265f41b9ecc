"""A deadline on the graph lookups of the memory tools.

Recall bounds its graph arm itself (``retrieval.graph_timeout``, see
:mod:`langgraph_prax_memory.retrieval`); the graph tools (``memory_entity_lookup``,
``memory_graph_query``) call the graph directly, and a graph server that stops answering on a
connection the driver already holds is not covered by any connection timeout: the call would
block until the driver gives up (15 s and more). :class:`GraphDeadline` runs such a call in a
daemon thread and waits for it at most the same ``retrieval.graph_timeout``; a lookup that
outlives it is remembered, and while it still runs the next lookups are answered "graph
unavailable" at once instead of waiting again (one wait, not one per call). Nothing is
cancelled: the late lookup finishes (or fails) on its own, and the graph is used again as
soon as it has.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TypeVar

from langgraph_prax_memory.errors import BackendUnavailable

__all__ = ["GraphDeadline"]

T = TypeVar("T")


class GraphDeadline:
    """Run graph lookups with a deadline; one late lookup is waited for once, not again.

    Example:
        >>> deadline = GraphDeadline()
        >>> deadline.run(lambda: 42, timeout=1.0)
        42
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._late: Future[object] | None = None

    def run(self, call: Callable[[], T], *, timeout: float, what: str = "graph lookup") -> T:
        """``call()``'s result, or :class:`BackendUnavailable` after ``timeout`` seconds.

        Args:
            call: The lookup (it raises what it raises; that is passed on).
            timeout: Seconds to wait (``retrieval.graph_timeout``).
            what: What the lookup is, for the message.

        Raises:
            BackendUnavailable: The lookup gave no answer within ``timeout``, or an earlier
                one that did not has still not answered (then nothing is waited for).
        """
        with self._lock:
            late = self._late
            if late is not None and not late.done():
                raise BackendUnavailable(
                    f"the memory graph is unavailable: an earlier {what} has not answered "
                    "yet (a graph server that stopped answering); try again later"
                )
            self._late = None
        future: Future[object] = Future()

        def work() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(call())
            except BaseException as exc:  # handed to the caller through the future
                future.set_exception(exc)

        threading.Thread(target=work, name="prax-graph-lookup", daemon=True).start()
        try:
            return future.result(timeout=timeout)  # type: ignore[return-value]
        except FutureTimeout:
            with self._lock:
                self._late = future
            raise BackendUnavailable(
                f"the memory graph is unavailable: the {what} gave no answer within "
                f"{timeout:g} s (retrieval.graph_timeout); answering without the graph"
            ) from None
