"""Progress reporting for long operations: one callback shape, and adapters for it.

Every long operation of the library (consolidation, export / import, knowledge and codebase
ingestion, re-embedding, the decay pass) takes ``progress=``: a callable
``progress(done, total, label)`` called as work advances. ``total`` is ``None`` while the
amount of work is not known yet (an honest "unknown", never a guess); ``label`` says what is
being done (``"batches"``, ``"memories"``, a file name, ...). A callback that raises does not
stop the work: the error is logged once and the callback is not called again.

Example:
    >>> seen = []
    >>> report = lambda done, total, label: seen.append((done, total, label))
    >>> notify(report, 1, 3, "memories")
    >>> seen
    [(1, 3, 'memories')]
    >>> with tqdm_progress(disable=True) as bar:  # in a notebook: memory.reembed(u, progress=bar)
    ...     bar(2, 4, "memories")
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol, runtime_checkable

__all__ = ["ProgressCallback", "notify", "rich_progress", "tqdm_progress"]

logger = logging.getLogger(__name__)


@runtime_checkable
class ProgressCallback(Protocol):
    """``(done, total, label) -> None``: ``done`` units of ``total`` (``None``: unknown)."""

    def __call__(self, done: int, total: int | None, label: str) -> None:
        """Report that ``done`` of ``total`` units of ``label`` are finished."""


_BROKEN: set[int] = set()


def notify(progress: ProgressCallback | None, done: int, total: int | None, label: str) -> None:
    """Call ``progress`` if there is one; a failing callback never fails the work.

    A callback that raises is logged once and then left alone for the rest of the process.
    """
    if progress is None or id(progress) in _BROKEN:
        return
    try:
        progress(done, total, label)
    except Exception as exc:  # a progress bar must not break an import half-way
        _BROKEN.add(id(progress))
        logger.warning("progress callback %r failed and is ignored from now on: %s", progress, exc)


class _TqdmProgress:
    """A :class:`ProgressCallback` driving one ``tqdm`` bar per label."""

    def __init__(self, **tqdm_kwargs: Any) -> None:
        from tqdm.auto import tqdm  # type: ignore[import-untyped]

        self._tqdm = tqdm
        self._kwargs = tqdm_kwargs
        self._bars: dict[str, Any] = {}

    def __call__(self, done: int, total: int | None, label: str) -> None:
        bar = self._bars.get(label)
        if bar is None:
            bar = self._bars[label] = self._tqdm(total=total, desc=label, **self._kwargs)
        if total is not None and bar.total != total:
            bar.total = total
            bar.refresh()
        bar.update(max(0, done - bar.n))

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()
        self._bars.clear()


@contextmanager
def tqdm_progress(**tqdm_kwargs: Any) -> Iterator[ProgressCallback]:
    """A progress callback drawing ``tqdm`` bars (widgets in Jupyter, text in a terminal).

    Keyword arguments go to ``tqdm`` (``disable=True``, ``leave=False``, ...).

    Example:
        >>> from langgraph_prax_memory import PraxMemory               # doctest: +SKIP
        >>> with tqdm_progress() as progress:                           # doctest: +SKIP
        ...     memory.import_user(open("a.jsonl"), user_id="alice", progress=progress)
    """
    bars = _TqdmProgress(**tqdm_kwargs)
    try:
        yield bars
    finally:
        bars.close()


class _RichProgress:
    """A :class:`ProgressCallback` driving one ``rich`` task per label."""

    def __init__(self, progress: Any) -> None:
        self.progress = progress
        self._tasks: dict[str, Any] = {}

    def __call__(self, done: int, total: int | None, label: str) -> None:
        task = self._tasks.get(label)
        if task is None:
            from rich.markup import escape

            from langgraph_prax_memory._untrusted import safe_for_terminal

            # a label may name a file or a user: shown as text, never run as markup
            shown = escape(safe_for_terminal(label))
            task = self._tasks[label] = self.progress.add_task(shown, total=total)
        self.progress.update(task, completed=done, total=total)


@contextmanager
def rich_progress(
    console: Any = None, *, transient: bool = False, disable: bool = False
) -> Iterator[ProgressCallback]:
    """A progress callback drawing ``rich`` bars (what ``prax-memory`` shows).

    An unknown total shows as ``done/?`` with a pulsing bar, never as a made-up figure.

    Example:
        >>> with rich_progress(disable=True) as progress:
        ...     progress(1, None, "batches")
    """
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    class _Count(MofNCompleteColumn):
        def render(self, task: Any) -> Any:
            from rich.text import Text

            total = "?" if task.total is None else str(int(task.total))
            return Text(f"{int(task.completed)}/{total}", style="progress.download")

    with Progress(
        SpinnerColumn(),
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        _Count(),
        TimeElapsedColumn(),
        console=console,
        transient=transient,
        disable=disable,
    ) as bar:
        yield _RichProgress(bar)
