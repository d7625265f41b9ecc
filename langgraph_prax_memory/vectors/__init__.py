"""Qdrant long-term memory: collection schema, payloads, and the sync/async vector stores."""

from langgraph_prax_memory.vectors._plan import (
    VECTOR_PRUNE_THRESHOLD,
    StoredPoint,
    VectorRecord,
    decay_factor,
    point_id,
    user_filter,
)
from langgraph_prax_memory.vectors._store import (
    AsyncQdrantVectorStore,
    QdrantVectorStore,
    open_qdrant_client,
)

__all__ = [
    "VECTOR_PRUNE_THRESHOLD",
    "AsyncQdrantVectorStore",
    "QdrantVectorStore",
    "StoredPoint",
    "VectorRecord",
    "decay_factor",
    "open_qdrant_client",
    "point_id",
    "user_filter",
]
