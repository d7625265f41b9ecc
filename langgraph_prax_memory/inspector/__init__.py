"""See the memory: a local inspector page and notebook views (docs/inspector.md).

``prax-memory inspect`` serves :func:`create_app` on 127.0.0.1 with a random token in the
URL, read-only unless started with ``--allow-changes``; :func:`serve` runs the same pages
inside a running agent's own process, over its own memory (no second process holds the
embedded store). The notebook views below render in Jupyter (``_repr_html_``) from the same
templates as the pages:

- :class:`RecallView`: ranked hits with each signal drawn and ``explain()``;
- :class:`MemoryListView`: memories with effective importance, prune date and supersession;
- :class:`GraphView`: entities and relations as a picture, events and causal links;
- :class:`ContextView`: the exact block ``build_memory_context`` gives an agent.

Example:
    >>> from langgraph_prax_memory.inspector import RecallView  # doctest: +SKIP
    >>> RecallView.of(memory, "alice", "which theme?")          # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from langgraph_prax_memory._validation import utcnow
from langgraph_prax_memory.inspector import _data
from langgraph_prax_memory.inspector._app import InspectorSettings, create_app
from langgraph_prax_memory.inspector._render import (
    GRAPH_NODE_CAP,
    PAGE_SIZE,
    GraphData,
    MemoryRow,
    context_fragment,
    graph_fragment,
    hits_fragment,
    memories_fragment,
    memory_row,
    notebook_html,
)
from langgraph_prax_memory.inspector._serve import InspectorServer, serve

if TYPE_CHECKING:
    from langgraph_prax_memory.context import MemoryContext
    from langgraph_prax_memory.memory import PraxMemory
    from langgraph_prax_memory.models import Memory, MemoryHit

__all__ = [
    "ContextView",
    "GraphData",
    "GraphView",
    "InspectorServer",
    "InspectorSettings",
    "MemoryListView",
    "MemoryRow",
    "RecallView",
    "create_app",
    "serve",
]


@dataclass
class RecallView:
    """Recall hits, best first, that draw themselves in a notebook.

    Example:
        >>> from langgraph_prax_memory.inspector import RecallView
        >>> "no memory found" in RecallView([])._repr_html_()
        True
    """

    hits: Sequence[MemoryHit]
    query: str = ""

    @classmethod
    def of(cls, memory: PraxMemory, user_id: str, query: str, *, k: int = 5) -> RecallView:
        """``memory.recall(user_id, query, k=k)`` without reinforcing, as a view."""
        return cls(memory.recall(user_id, query, k=k, reinforce=False), query)

    def _repr_html_(self) -> str:
        return notebook_html(hits_fragment(self.hits, query=self.query))


@dataclass
class MemoryListView:
    """Memories with their decay (effective importance, prune date) for a notebook.

    Example:
        >>> from langgraph_prax_memory.inspector import MemoryListView
        >>> "no memory" in MemoryListView([])._repr_html_()
        True
    """

    memories: Sequence[Memory]
    halflife_days: float | None = None
    """The decay half-life (default: ``MemoryConfig``'s default, 7 days)."""
    now: datetime | None = None
    rows: list[MemoryRow] = field(init=False)

    def __post_init__(self) -> None:
        from langgraph_prax_memory.config import MemoryConfig

        when = self.now or utcnow()
        halflife = self.halflife_days
        if halflife is None:
            halflife = float(MemoryConfig.model_fields["decay_halflife_days"].default)
        self.rows = [memory_row(m, when, halflife) for m in self.memories]

    @classmethod
    def of(cls, memory: PraxMemory, user_id: str, *, limit: int = PAGE_SIZE) -> MemoryListView:
        """The first ``limit`` memories of ``user_id`` (first written first)."""
        return cls(memory.list_memories(user_id, limit=limit), memory.config.decay_halflife_days)

    def _repr_html_(self) -> str:
        return notebook_html(memories_fragment(self.rows))


@dataclass
class GraphView:
    """A user's graph (capped at ``cap`` entities, the cap shown) for a notebook.

    Example:
        >>> from langgraph_prax_memory.inspector import GraphData, GraphView
        >>> "no entity" in GraphView(GraphData())._repr_html_()
        True
    """

    data: GraphData
    cap: int = GRAPH_NODE_CAP

    @classmethod
    def of(cls, memory: PraxMemory, user_id: str, *, cap: int = GRAPH_NODE_CAP) -> GraphView:
        """What the inspector's graph page shows of ``user_id`` (``cap`` entities drawn)."""
        return cls(_data.graph_data(memory, user_id, cap=cap), cap)

    def _repr_html_(self) -> str:
        return notebook_html(graph_fragment(self.data, cap=self.cap))


@dataclass
class ContextView:
    """The context block an agent would receive, for a notebook.

    Example:
        >>> from langgraph_prax_memory.inspector import ContextView
        >>> "nothing would be injected" in ContextView("")._repr_html_()
        True
    """

    block: str
    query: str = ""
    context: MemoryContext | None = None
    """The block tier by tier (:func:`~langgraph_prax_memory.context.assemble_context`):
    with it, each line is shown with the rule that put it there, and each hit left out
    with why not."""

    @classmethod
    def of(cls, memory: PraxMemory, user_id: str, message: str, *, k: int = 5) -> ContextView:
        """``build_memory_context(memory, user_id, message, k=k)`` and each line's rule."""
        built = _data.playground(memory, user_id, message, k=k)[1]
        return cls(built.text, message, built)

    def __str__(self) -> str:
        return self.block

    def _repr_html_(self) -> str:
        return notebook_html(context_fragment(self.block, query=self.query, context=self.context))
