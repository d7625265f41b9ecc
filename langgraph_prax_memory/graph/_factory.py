"""Pick the graph backend from a :class:`MemoryConfig`."""

from __future__ import annotations

from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.graph._async_base import AsyncGraphStore
from langgraph_prax_memory.graph._base import GraphStore
from langgraph_prax_memory.graph._decay import graph_halflife
from langgraph_prax_memory.graph._types import Vocabulary

__all__ = ["create_async_graph_store", "create_graph_store"]


def create_graph_store(
    config: MemoryConfig | None = None, *, vocabulary: Vocabulary | None = None
) -> GraphStore:
    """The configured graph store: Neo4j when ``NEO4J_URI`` is set, else SQLite.

    The SQLite file is ``config.graph_path`` (``<data_dir>/graph.sqlite3``). The decay
    half-life is twice ``MEMORY_DECAY_HALFLIFE_DAYS``. Building a Neo4j store does not connect:
    an unreachable server surfaces as ``BackendUnavailable`` from the first graph call.

    Args:
        config: The memory configuration (``MemoryConfig()`` from the environment if omitted).
        vocabulary: Allowed entity and relation types (the seed's by default).

    Example:
        >>> import tempfile
        >>> store = create_graph_store(MemoryConfig(data_dir=tempfile.mkdtemp()))
        >>> type(store).__name__
        'SQLiteGraphStore'
        >>> store.halflife_days
        14.0
    """
    config = config or MemoryConfig()
    if config.neo4j_uri:
        from langgraph_prax_memory.graph.neo4j import Neo4jGraphStore

        return Neo4jGraphStore(config, vocabulary=vocabulary)
    from langgraph_prax_memory.graph.sqlite import SQLiteGraphStore

    return SQLiteGraphStore(
        config.graph_path,
        vocabulary=vocabulary,
        halflife_days=graph_halflife(config.decay_halflife_days),
    )


def create_async_graph_store(
    config: MemoryConfig | None = None, *, vocabulary: Vocabulary | None = None
) -> AsyncGraphStore:
    """The async face of :func:`create_graph_store` (native async driver for Neo4j).

    Example:
        >>> import tempfile
        >>> store = create_async_graph_store(MemoryConfig(data_dir=tempfile.mkdtemp()))
        >>> type(store).__name__
        'AsyncSQLiteGraphStore'
    """
    config = config or MemoryConfig()
    if config.neo4j_uri:
        from langgraph_prax_memory.graph.neo4j import AsyncNeo4jGraphStore

        return AsyncNeo4jGraphStore(config, vocabulary=vocabulary)
    from langgraph_prax_memory.graph.sqlite import AsyncSQLiteGraphStore

    return AsyncSQLiteGraphStore(
        config.graph_path,
        vocabulary=vocabulary,
        halflife_days=graph_halflife(config.decay_halflife_days),
    )
