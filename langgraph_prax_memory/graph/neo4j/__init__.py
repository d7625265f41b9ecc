"""Neo4j backend of the knowledge graph (official driver, sync and native async)."""

from langgraph_prax_memory.graph.neo4j._async import AsyncNeo4jGraphStore
from langgraph_prax_memory.graph.neo4j._store import Neo4jGraphStore

__all__ = ["AsyncNeo4jGraphStore", "Neo4jGraphStore"]
