"""langgraph-prax-memory: layered long-term memory for LangGraph and LangChain agents.

The root holds what an agent builder reaches for first (``__all__``, 24 names and
``__version__``); everything else lives in its subpackage (``langgraph_prax_memory.graph``,
``.consolidation``, ``.knowledge``, ``.tools``, ``.agents``, ``.errors``, ...), each with its own
``__all__``. Every name is imported on first use (PEP 562), so ``import langgraph_prax_memory``
and ``prax-memory --help`` stay light: Qdrant, LangChain, LangGraph and the Neo4j driver load
only when a name that needs them is touched.

Example:
    >>> from langgraph_prax_memory import PraxMemory
    >>> memory = PraxMemory()  # offline: embedded Qdrant + the packaged MiniLM model
"""

import importlib as _importlib
import typing as _typing
import warnings as _warnings

from langgraph_prax_memory._lazy_packages import defer_package as _defer_package
from langgraph_prax_memory._version import __version__

# qdrant-client's __init__ loads both of its clients, httpx and fastembed (~0.8 s of CPU);
# the embedded engine needs only its data models: its __init__ runs when something uses it.
_defer_package("qdrant_client")
_defer_package("qdrant_client.http")
# httpx (the OpenAI-compatible embedding client's HTTP) loads its command line, rich and
# pygments with it; it is used only when such an embedder or a Qdrant server is called
_defer_package("httpx")
# langchain-qdrant's __init__ imports its vector stores (and so all of qdrant-client); the
# sparse encoder needs only its SparseEmbeddings base class
_defer_package(
    "langchain_qdrant",
    {
        "SparseEmbeddings": "langchain_qdrant.sparse_embeddings",
        "SparseVector": "langchain_qdrant.sparse_embeddings",
    },
)

if _typing.TYPE_CHECKING:
    from langgraph_prax_memory._async_memory import (
        AsyncPraxMemory,
    )
    from langgraph_prax_memory.agents import (
        create_agent_with_memory,
    )
    from langgraph_prax_memory.config import (
        MemoryConfig,
        RetrievalConfig,
    )
    from langgraph_prax_memory.consolidation import (
        ConsolidatingCheckpointer,
        Consolidator,
        consolidate_if_due,
    )
    from langgraph_prax_memory.context import (
        build_memory_context,
        memory_context_node,
    )
    from langgraph_prax_memory.errors import (
        BackendUnavailable,
        ConfigError,
        MemoryValidationError,
        MemoryWriteError,
        PraxMemoryError,
    )
    from langgraph_prax_memory.knowledge import (
        KnowledgeBase,
    )
    from langgraph_prax_memory.memory import (
        PraxMemory,
    )
    from langgraph_prax_memory.middleware import (
        PraxMemoryMiddleware,
    )
    from langgraph_prax_memory.models import (
        Memory,
        MemoryHit,
    )
    from langgraph_prax_memory.retriever import (
        PraxMemoryRetriever,
    )
    from langgraph_prax_memory.store import (
        PraxMemoryStore,
    )
    from langgraph_prax_memory.tools import (
        create_memory_tool_node,
        create_memory_tools,
    )
    from langgraph_prax_memory.vectorstore import (
        PraxMemoryVectorStore,
    )

#: Where each public name lives (imported on first access).
_LAZY: dict[str, str] = {
    "AsyncPraxMemory": "langgraph_prax_memory._async_memory",
    "BackendUnavailable": "langgraph_prax_memory.errors",
    "ConfigError": "langgraph_prax_memory.errors",
    "ConsolidatingCheckpointer": "langgraph_prax_memory.consolidation",
    "Consolidator": "langgraph_prax_memory.consolidation",
    "KnowledgeBase": "langgraph_prax_memory.knowledge",
    "Memory": "langgraph_prax_memory.models",
    "MemoryConfig": "langgraph_prax_memory.config",
    "MemoryHit": "langgraph_prax_memory.models",
    "MemoryValidationError": "langgraph_prax_memory.errors",
    "MemoryWriteError": "langgraph_prax_memory.errors",
    "PraxMemory": "langgraph_prax_memory.memory",
    "PraxMemoryError": "langgraph_prax_memory.errors",
    "PraxMemoryMiddleware": "langgraph_prax_memory.middleware",
    "PraxMemoryRetriever": "langgraph_prax_memory.retriever",
    "PraxMemoryStore": "langgraph_prax_memory.store",
    "PraxMemoryVectorStore": "langgraph_prax_memory.vectorstore",
    "RetrievalConfig": "langgraph_prax_memory.config",
    "build_memory_context": "langgraph_prax_memory.context",
    "consolidate_if_due": "langgraph_prax_memory.consolidation",
    "create_agent_with_memory": "langgraph_prax_memory.agents",
    "create_memory_tool_node": "langgraph_prax_memory.tools",
    "create_memory_tools": "langgraph_prax_memory.tools",
    "memory_context_node": "langgraph_prax_memory.context",
}

#: Names the root exported before 0.2 and that now live only in their subpackage: still
#: importable from the root for a while, with a ``DeprecationWarning`` naming their home.
_MOVED: dict[str, str] = {
    "AsyncGraphStore": "langgraph_prax_memory.graph",
    "AsyncKnowledgeBase": "langgraph_prax_memory.knowledge",
    "CircuitOpenError": "langgraph_prax_memory.errors",
    "ConceptHit": "langgraph_prax_memory.knowledge",
    "ConsolidationResult": "langgraph_prax_memory.consolidation",
    "DeletionIncomplete": "langgraph_prax_memory.errors",
    "EmbeddingError": "langgraph_prax_memory.errors",
    "GraphStore": "langgraph_prax_memory.graph",
    "IngestResult": "langgraph_prax_memory.knowledge",
    "KnowledgeConcept": "langgraph_prax_memory.knowledge",
    "KnowledgeNotFound": "langgraph_prax_memory.knowledge",
    "LLMExtractor": "langgraph_prax_memory.consolidation",
    "MEMORY_AGENT_PROMPT": "langgraph_prax_memory.agents",
    "MemoryTool": "langgraph_prax_memory.tools",
    "MissingUserIdError": "langgraph_prax_memory.tools",
    "ModelRoute": "langgraph_prax_memory.agents",
    "ModelRouting": "langgraph_prax_memory.agents",
    "RecallResult": "langgraph_prax_memory.retrieval",
    "RuleBasedExtractor": "langgraph_prax_memory.consolidation",
    "ScratchpadStore": "langgraph_prax_memory.stm",
    "StoreLockedError": "langgraph_prax_memory.errors",
    "TOOL_NAMES": "langgraph_prax_memory.tools",
    "UserNotes": "langgraph_prax_memory.notes",
    "build_consolidation_graph": "langgraph_prax_memory.consolidation",
    "create_async_graph_store": "langgraph_prax_memory.graph",
    "create_delegate_memory_tool": "langgraph_prax_memory.agents",
    "create_graph_store": "langgraph_prax_memory.graph",
    "create_memory_agent": "langgraph_prax_memory.agents",
    "memory_pre_model_hook": "langgraph_prax_memory.context",
}

__all__ = [
    "AsyncPraxMemory",
    "BackendUnavailable",
    "ConfigError",
    "ConsolidatingCheckpointer",
    "Consolidator",
    "KnowledgeBase",
    "Memory",
    "MemoryConfig",
    "MemoryHit",
    "MemoryValidationError",
    "MemoryWriteError",
    "PraxMemory",
    "PraxMemoryError",
    "PraxMemoryMiddleware",
    "PraxMemoryRetriever",
    "PraxMemoryStore",
    "PraxMemoryVectorStore",
    "RetrievalConfig",
    "build_memory_context",
    "consolidate_if_due",
    "create_agent_with_memory",
    "create_memory_tool_node",
    "create_memory_tools",
    "memory_context_node",
    "__version__",
]


def __getattr__(name: str) -> _typing.Any:
    """Import a public name on first use and keep it (``AttributeError`` for others)."""
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(_importlib.import_module(module), name)
        globals()[name] = value
        return value
    home = _MOVED.get(name)
    if home is not None:
        _warnings.warn(
            f"import {name} from {home}: the package root no longer exports it",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(_importlib.import_module(home), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
