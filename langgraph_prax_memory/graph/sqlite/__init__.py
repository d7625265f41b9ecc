"""Embedded SQLite backend of the knowledge graph (the default when no Neo4j URI is set)."""

from langgraph_prax_memory.graph.sqlite._async import AsyncSQLiteGraphStore
from langgraph_prax_memory.graph.sqlite._store import SQLiteGraphStore

__all__ = ["AsyncSQLiteGraphStore", "SQLiteGraphStore"]
