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

# used by the other packages of langgraph_prax_memory (not re-exported at the root)
from langgraph_prax_memory.vectors._edge import EdgeClient
from langgraph_prax_memory.vectors._payload import (
    NS_SEP,
    build_payload,
    content_hash,
    extract_text,
    keyword_text,
)
from langgraph_prax_memory.vectors._plan import (
    EXPIRES_AT,
    decay_victims,
    existing_dimension,
    ids_condition,
    unexpired,
)
from langgraph_prax_memory.vectors._store import VectorClient

__all__ += [
    "EdgeClient",
    "NS_SEP",
    "build_payload",
    "content_hash",
    "extract_text",
    "keyword_text",
    "EXPIRES_AT",
    "decay_victims",
    "existing_dimension",
    "ids_condition",
    "unexpired",
    "VectorClient",
]
from langgraph_prax_memory.vectors._store import is_local_client, is_remote_client  # noqa: E402

__all__ += ["is_local_client", "is_remote_client"]
