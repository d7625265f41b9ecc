"""langgraph-prax-memory: layered long-term memory for LangGraph and LangChain agents.

Example:
    >>> from langgraph_prax_memory import PraxMemory
    >>> memory = PraxMemory()  # offline: embedded Qdrant + the packaged MiniLM model
"""

from langgraph_prax_memory.config import MemoryConfig, RetrievalConfig
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    ConfigError,
    EmbeddingError,
    MemoryValidationError,
    MemoryWriteError,
    PraxMemoryError,
    StoreLockedError,
)
from langgraph_prax_memory.graph import (
    AsyncGraphStore,
    GraphStore,
    create_async_graph_store,
    create_graph_store,
)
from langgraph_prax_memory.memory import AsyncPraxMemory, PraxMemory
from langgraph_prax_memory.models import Memory, MemoryHit
from langgraph_prax_memory.notes import UserNotes
from langgraph_prax_memory.retrieval import RecallResult
from langgraph_prax_memory.retriever import PraxMemoryRetriever
from langgraph_prax_memory.stm import ScratchpadStore
from langgraph_prax_memory.store import PraxMemoryStore

__version__ = "0.1.0"

__all__ = [
    "AsyncGraphStore",
    "AsyncPraxMemory",
    "BackendUnavailable",
    "ConfigError",
    "EmbeddingError",
    "GraphStore",
    "Memory",
    "MemoryConfig",
    "MemoryHit",
    "MemoryValidationError",
    "MemoryWriteError",
    "PraxMemory",
    "PraxMemoryError",
    "PraxMemoryRetriever",
    "PraxMemoryStore",
    "RecallResult",
    "RetrievalConfig",
    "ScratchpadStore",
    "StoreLockedError",
    "UserNotes",
    "__version__",
    "create_async_graph_store",
    "create_graph_store",
]
