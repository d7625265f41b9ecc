r"""Moved: the notes-line selection is :mod:`langgraph_prax_memory.notes.selection`.

This module name sat beside the ``retrieval`` package and said less than the new one. Its
names still import from here for a while, with a ``DeprecationWarning`` naming their home.

Example:
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     from langgraph_prax_memory.notes.retrieval import select_note_lines
    >>> select_note_lines("timezone: UTC\n", "what time is it?")
    ['timezone: UTC']
    >>> caught[0].category.__name__
    'DeprecationWarning'
"""

import importlib as _importlib
import typing as _typing
import warnings as _warnings

#: The names this module had, now in :mod:`langgraph_prax_memory.notes.selection`.
_MOVED = frozenset(
    {"MAX_CONTEXT_CHARS", "MAX_CONTEXT_LINES", "MAX_QUERY_CHARS", "select_note_lines"}
)
_HOME = "langgraph_prax_memory.notes.selection"

__all__ = ["select_note_lines"]  # noqa: F822 (served by __getattr__, with a warning)


def __getattr__(name: str) -> _typing.Any:
    """A moved name, from its new home, with a ``DeprecationWarning``."""
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _warnings.warn(
        f"import {name} from {_HOME}: langgraph_prax_memory.notes.retrieval is deprecated",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(_importlib.import_module(_HOME), name)
