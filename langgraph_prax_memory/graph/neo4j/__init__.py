"""Neo4j backend of the knowledge graph (official driver, sync and native async)."""

from langgraph_prax_memory.graph.neo4j._async import AsyncNeo4jGraphStore
from langgraph_prax_memory.graph.neo4j._scoped import (
    SCOPED_CYPHER_INSTRUCTIONS,
    CypherScopeError,
    ScopedCypherGraph,
    check_scoped_cypher,
    scoped_cypher_prompt,
)
from langgraph_prax_memory.graph.neo4j._store import Neo4jGraphStore

__all__ = [
    "SCOPED_CYPHER_INSTRUCTIONS",
    "AsyncNeo4jGraphStore",
    "CypherScopeError",
    "Neo4jGraphStore",
    "ScopedCypherGraph",
    "check_scoped_cypher",
    "scoped_cypher_prompt",
]
