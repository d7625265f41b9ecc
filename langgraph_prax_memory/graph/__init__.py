"""The knowledge graph: entities, bi-temporal relations, temporal events and causal links.

One base class (:class:`GraphStore`, and its async face :class:`AsyncGraphStore` with the same
method names) whose public methods are written once over op objects; two backends that run
the ops: :class:`SQLiteGraphStore` (embedded default) and :class:`Neo4jGraphStore` (a Neo4j
server through the official driver). :func:`create_graph_store` picks one from a
:class:`~langgraph_prax_memory.config.MemoryConfig`. See ``docs/graph.md``.

Example:
    >>> from langgraph_prax_memory.graph import SQLiteGraphStore
    >>> store = SQLiteGraphStore(":memory:")
    >>> _ = store.add_relation("u1", "Alice", "Prax", "works_on", evidence="said so")
    >>> [e.display_name for e in store.current_targets("u1", "alice", "works_on")]
    ['Prax']
"""

from typing import TYPE_CHECKING, Any

from langgraph_prax_memory.graph._async_base import AsyncGraphStore
from langgraph_prax_memory.graph._base import GraphStore
from langgraph_prax_memory.graph._decay import (
    DEFAULT_GRAPH_HALFLIFE_DAYS as DEFAULT_GRAPH_HALFLIFE_DAYS,
)
from langgraph_prax_memory.graph._decay import (
    ENTITY_PRUNE_THRESHOLD as ENTITY_PRUNE_THRESHOLD,
)
from langgraph_prax_memory.graph._decay import (
    RELATION_PRUNE_THRESHOLD as RELATION_PRUNE_THRESHOLD,
)
from langgraph_prax_memory.graph._decay import (
    decay_lambda,
    effective_value,
    graph_halflife,
    should_prune_entity,
    should_prune_relation,
)
from langgraph_prax_memory.graph._factory import create_async_graph_store, create_graph_store
from langgraph_prax_memory.graph._types import (
    DEFAULT_ENTITY_TYPE as DEFAULT_ENTITY_TYPE,
)
from langgraph_prax_memory.graph._types import (
    ENTITY_TYPES as ENTITY_TYPES,
)
from langgraph_prax_memory.graph._types import (
    RELATION_TYPES as RELATION_TYPES,
)
from langgraph_prax_memory.graph._types import (
    CausalLink,
    DecayResult,
    Entity,
    EntityWithRelations,
    GraphLoad,
    GraphStats,
    Neighbour,
    Relation,
    TemporalEvent,
    Vocabulary,
    canonical_name,
    entity_id,
)
from langgraph_prax_memory.graph.sqlite import AsyncSQLiteGraphStore, SQLiteGraphStore

__all__ = [
    "AsyncGraphStore",
    "AsyncNeo4jGraphStore",
    "AsyncSQLiteGraphStore",
    "CausalLink",
    "DecayResult",
    "Entity",
    "EntityWithRelations",
    "GraphLoad",
    "GraphStats",
    "GraphStore",
    "Neighbour",
    "Neo4jGraphStore",
    "Relation",
    "SQLiteGraphStore",
    "TemporalEvent",
    "Vocabulary",
    "canonical_name",
    "create_async_graph_store",
    "create_graph_store",
    "decay_lambda",
    "effective_value",
    "entity_id",
    "graph_halflife",
    "should_prune_entity",
    "should_prune_relation",
]

# used by the other packages of langgraph_prax_memory (not re-exported at the root): the
# checks a write makes, run without writing (an import checks every record first)
from langgraph_prax_memory.graph._inputs import Moment, prep_causal, prep_event
from langgraph_prax_memory.graph._load import prep_load
from langgraph_prax_memory.graph._ops import build_add_relation, build_merge_entity
from langgraph_prax_memory.graph._outage import OutageLog

__all__ += [
    "Moment",
    "OutageLog",
    "build_add_relation",
    "build_merge_entity",
    "prep_causal",
    "prep_event",
    "prep_load",
]

if TYPE_CHECKING:
    from langgraph_prax_memory.graph.neo4j import AsyncNeo4jGraphStore, Neo4jGraphStore


def __getattr__(name: str) -> Any:
    # the Neo4j backend (and its driver) is imported when it is asked for, not by every memory
    if name in ("Neo4jGraphStore", "AsyncNeo4jGraphStore"):
        from langgraph_prax_memory.graph import neo4j

        return getattr(neo4j, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
