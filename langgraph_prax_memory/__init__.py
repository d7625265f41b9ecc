"""langgraph-prax-memory: layered long-term memory for LangGraph and LangChain agents.

Example:
    >>> from langgraph_prax_memory import PraxMemory
    >>> memory = PraxMemory()  # offline: embedded Qdrant + the packaged MiniLM model
"""

from langgraph_prax_memory.agents import (
    MEMORY_AGENT_PROMPT,
    ModelRoute,
    ModelRouting,
    create_agent_with_memory,
    create_delegate_memory_tool,
    create_memory_agent,
)
from langgraph_prax_memory.config import MemoryConfig, RetrievalConfig
from langgraph_prax_memory.consolidation import (
    ConsolidatingCheckpointer,
    ConsolidationResult,
    Consolidator,
    LLMExtractor,
    RuleBasedExtractor,
    build_consolidation_graph,
    consolidate_if_due,
)
from langgraph_prax_memory.context import (
    build_memory_context,
    memory_context_node,
    memory_pre_model_hook,
)
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    CircuitOpenError,
    ConfigError,
    DeletionIncomplete,
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
from langgraph_prax_memory.knowledge import (
    AsyncKnowledgeBase,
    ConceptHit,
    IngestResult,
    KnowledgeBase,
    KnowledgeConcept,
    KnowledgeNotFound,
)
from langgraph_prax_memory.memory import AsyncPraxMemory, PraxMemory
from langgraph_prax_memory.models import Memory, MemoryHit
from langgraph_prax_memory.notes import UserNotes
from langgraph_prax_memory.retrieval import RecallResult
from langgraph_prax_memory.retriever import PraxMemoryRetriever
from langgraph_prax_memory.stm import ScratchpadStore
from langgraph_prax_memory.store import PraxMemoryStore
from langgraph_prax_memory.tools import (
    TOOL_NAMES,
    MemoryTool,
    MissingUserIdError,
    create_memory_tool_node,
    create_memory_tools,
)

__version__ = "0.1.0"

__all__ = [
    "AsyncGraphStore",
    "AsyncKnowledgeBase",
    "AsyncPraxMemory",
    "BackendUnavailable",
    "CircuitOpenError",
    "ConceptHit",
    "ConfigError",
    "ConsolidatingCheckpointer",
    "ConsolidationResult",
    "Consolidator",
    "DeletionIncomplete",
    "EmbeddingError",
    "GraphStore",
    "IngestResult",
    "KnowledgeBase",
    "KnowledgeConcept",
    "KnowledgeNotFound",
    "LLMExtractor",
    "MEMORY_AGENT_PROMPT",
    "Memory",
    "MemoryConfig",
    "MemoryHit",
    "MemoryTool",
    "MemoryValidationError",
    "MemoryWriteError",
    "MissingUserIdError",
    "ModelRoute",
    "ModelRouting",
    "PraxMemory",
    "PraxMemoryError",
    "PraxMemoryRetriever",
    "PraxMemoryStore",
    "RecallResult",
    "RetrievalConfig",
    "RuleBasedExtractor",
    "ScratchpadStore",
    "StoreLockedError",
    "TOOL_NAMES",
    "UserNotes",
    "build_consolidation_graph",
    "build_memory_context",
    "consolidate_if_due",
    "create_agent_with_memory",
    "create_async_graph_store",
    "create_delegate_memory_tool",
    "create_graph_store",
    "create_memory_agent",
    "create_memory_tool_node",
    "create_memory_tools",
    "memory_context_node",
    "memory_pre_model_hook",
    "__version__",
]
