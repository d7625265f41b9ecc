"""The parts of one memory, for the services that need more than long-term memory.

The composition root (:class:`~langgraph_prax_memory.PraxMemory`) builds them.

Consolidation, knowledge and the admin services (stats, export/import, doctor, deletion) take
a :class:`MemoryParts` (or anything that has one, such as a ``PraxMemory``, through
:func:`parts_of`), never the facade itself: dependencies point from the facade down to the
services, so no service imports ``memory.py``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from langgraph_prax_memory._graph_deadline import GraphDeadline
from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.errors import ConfigError
from langgraph_prax_memory.graph import GraphStore
from langgraph_prax_memory.ltm import LongTermMemory
from langgraph_prax_memory.notes import UserNotes
from langgraph_prax_memory.stm import ScratchpadStore

__all__ = ["HasParts", "MemoryParts", "parts_of"]


class MemoryParts:
    """Configuration, long-term memory, scratchpad, notes and (built on first use) the graph.

    Args:
        config: The settings every part was built from.
        ltm: The long-term memory (vectors, encoders, ranking).
        stm: The per-user scratchpad.
        notes: The per-user ``user_notes.md``.
        graph: Builds the knowledge graph on first use (a Neo4j server that is down must
            not fail building the memory); or the graph itself.
        checkpointer: The LangGraph checkpointer whose threads consolidation reads.

    Example:
        >>> from langgraph_prax_memory import MemoryConfig
        >>> from langgraph_prax_memory.graph import SQLiteGraphStore
        >>> config = MemoryConfig(qdrant_url=":memory:", data_dir="/tmp/prax-parts")
        >>> parts = MemoryParts(
        ...     config, LongTermMemory(config), ScratchpadStore(config), UserNotes(config),
        ...     graph=lambda: SQLiteGraphStore(":memory:"),
        ... )
        >>> parts.graph_opened, parts.graph.stats("alice").entities, parts.graph_opened
        (False, 0, True)
        >>> parts.close()
    """

    def __init__(
        self,
        config: MemoryConfig,
        ltm: LongTermMemory,
        stm: ScratchpadStore,
        notes: UserNotes,
        *,
        graph: GraphStore | Callable[[], GraphStore],
        checkpointer: Any = None,
    ) -> None:
        self.config = config
        self.ltm = ltm
        self.stm = stm
        self.notes = notes
        self._graph: GraphStore | None = None
        self._make_graph: Callable[[], GraphStore] | None = None
        if isinstance(graph, GraphStore) or not callable(graph):
            self._graph = graph  # a store (even a callable one) is used as given
        else:
            self._make_graph = graph
        #: The LangGraph checkpointer whose threads hold the users' conversations (or None).
        self.checkpointer = checkpointer
        self._lock = threading.Lock()
        #: The deadline of the graph tools' lookups (``retrieval.graph_timeout``).
        self.graph_deadline = GraphDeadline()

    @property
    def graph(self) -> GraphStore:
        """The knowledge graph, built on first use (two threads build it once)."""
        with self._lock:
            if self._graph is None:
                assert self._make_graph is not None
                self._graph = self._make_graph()
            return self._graph

    @property
    def graph_opened(self) -> bool:
        """Whether the graph has been built (a deletion need not open one that never was)."""
        return self._graph is not None

    def close(self) -> None:
        """Release long-term memory and the graph (if it was built).

        Both are released even when the first one fails; then its error is raised (e.g. a
        :class:`~langgraph_prax_memory.errors.DiskFullError` when the embedded engine's final
        flush found the disk full).
        """
        try:
            self.ltm.close()
        finally:
            if self._graph is not None:
                self._graph.close()


@runtime_checkable
class HasParts(Protocol):
    """Anything that carries the parts of a memory (``PraxMemory``, ``AsyncPraxMemory``)."""

    @property
    def parts(self) -> MemoryParts:
        """The parts."""
        ...


def parts_of(obj: MemoryParts | HasParts) -> MemoryParts:
    """The :class:`MemoryParts` of ``obj`` (itself, or its ``parts``).

    Raises:
        ConfigError: ``obj`` is neither (a clear error instead of an ``AttributeError``
            deep inside a service).
    """
    if isinstance(obj, MemoryParts):
        return obj
    parts = getattr(obj, "parts", None)
    if isinstance(parts, MemoryParts):
        return parts
    raise ConfigError(f"expected a PraxMemory or its MemoryParts, got {type(obj).__name__}")
