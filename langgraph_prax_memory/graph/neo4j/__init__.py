"""Neo4j backend of the knowledge graph (official driver, sync and native async)."""

from langgraph_prax_memory.graph.neo4j._async import AsyncNeo4jGraphStore
from langgraph_prax_memory.graph.neo4j._scoped import (
    SCOPED_CYPHER_INSTRUCTIONS as SCOPED_CYPHER_INSTRUCTIONS,
)
from langgraph_prax_memory.graph.neo4j._scoped import (
    CypherScopeError,
    ScopedCypherGraph,
    check_scoped_cypher,
    scoped_cypher_prompt,
)
from langgraph_prax_memory.graph.neo4j._store import Neo4jGraphStore

__all__ = [
    "AsyncNeo4jGraphStore",
    "CypherScopeError",
    "Neo4jGraphStore",
    "ScopedCypherGraph",
    "check_scoped_cypher",
    "scoped_cypher_prompt",
]

# used by the other packages of langgraph_prax_memory (not re-exported at the root)
from langgraph_prax_memory.graph.neo4j._connection import (
    DEFAULT_CALL_TIMEOUT as DEFAULT_CALL_TIMEOUT,
)
from langgraph_prax_memory.graph.neo4j._connection import (
    SLOW_CALL_FACTOR as SLOW_CALL_FACTOR,
)
from langgraph_prax_memory.graph.neo4j._connection import (
    Neo4jConnection,
    Op,
    Query,
    acall_within,
    arun_op,
    call_within,
    run_op,
    translate,
)
from langgraph_prax_memory.graph.neo4j._cypher import SETUP_QUERIES as SETUP_QUERIES
from langgraph_prax_memory.graph.neo4j._cypher_ops import to_entity

__all__ += [
    "Neo4jConnection",
    "Op",
    "Query",
    "acall_within",
    "arun_op",
    "call_within",
    "run_op",
    "to_entity",
    "translate",
]
