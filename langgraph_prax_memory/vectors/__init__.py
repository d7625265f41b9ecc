"""Qdrant long-term memory: collection schema, payloads, and the sync/async vector stores."""

from typing import TYPE_CHECKING, Any

from langgraph_prax_memory.vectors._client import open_qdrant_client
from langgraph_prax_memory.vectors._plan import (
    VECTOR_PRUNE_THRESHOLD as VECTOR_PRUNE_THRESHOLD,
)
from langgraph_prax_memory.vectors._plan import (
    StoredPoint,
    VectorRecord,
    decay_factor,
    point_id,
    user_filter,
)
from langgraph_prax_memory.vectors._store import QdrantVectorStore

__all__ = [
    "QdrantVectorStore",
    "StoredPoint",
    "VectorRecord",
    "decay_factor",
    "open_qdrant_client",
    "point_id",
    "user_filter",
]

# used by the other packages of langgraph_prax_memory (not re-exported at the root)
if TYPE_CHECKING:
    from langgraph_prax_memory.vectors._client import VectorClient
from langgraph_prax_memory.vectors._edge import EdgeClient
from langgraph_prax_memory.vectors._payload import (
    FOLDED_CONTENT as FOLDED_CONTENT,
)
from langgraph_prax_memory.vectors._payload import (
    NS_SEP as NS_SEP,
)
from langgraph_prax_memory.vectors._payload import (
    build_payload,
    content_hash,
    extract_text,
    keyword_text,
)
from langgraph_prax_memory.vectors._plan import (
    EXPIRES_AT as EXPIRES_AT,
)
from langgraph_prax_memory.vectors._plan import (
    assert_pinned,
    decay_victims,
    existing_dimension,
    ids_condition,
    payloads_plan,
    unexpired,
)

__all__ += [
    "EdgeClient",
    "assert_pinned",
    "build_payload",
    "content_hash",
    "extract_text",
    "keyword_text",
    "decay_victims",
    "existing_dimension",
    "ids_condition",
    "payloads_plan",
    "unexpired",
    "VectorClient",
]
from langgraph_prax_memory.vectors._client import is_local_client, is_remote_client  # noqa: E402

__all__ += ["is_local_client", "is_remote_client"]


def __getattr__(name: str) -> Any:
    # VectorClient names qdrant-client's client class: imported only when asked for
    if name == "VectorClient":
        from langgraph_prax_memory.vectors import _client

        return _client.VectorClient
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
