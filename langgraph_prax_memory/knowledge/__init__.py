"""The world-knowledge namespace: documents, papers and code, apart from the user's memory.

Memory is about the *user* (``Entity`` nodes); this namespace is about the *world*:
``KnowledgeConcept`` / ``KnowledgeDocument`` nodes with ``KNOWLEDGE_RELATES``,
``EXTRACTED_FROM`` and ``REFERENCES_ENTITY`` edges, in the same graph backend as the memory
(SQLite file or Neo4j driver) and a dedicated Qdrant collection ``prax_knowledge_concepts``.
Memory recall and entity lookup never see concepts. See ``docs/knowledge.md``.

Example:
    >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
    >>> from langgraph_prax_memory.knowledge import KnowledgeBase
    >>> import tempfile
    >>> config = MemoryConfig(qdrant_url=":memory:", data_dir=tempfile.mkdtemp())
    >>> mem = PraxMemory(config)
    >>> kb = KnowledgeBase(mem)
    >>> _ = kb.ingest_document("u1", "Qdrant uses HNSW indexes.", namespace="docs")
    >>> [n.namespace for n in kb.namespaces("u1")]
    ['docs']
    >>> [h.concept.display_name for h in kb.search("u1", "HNSW")][:1]
    ['HNSW']
    >>> _ = kb.delete_user("u1"); mem.close()
"""

from langgraph_prax_memory.knowledge._async import AsyncKnowledgeBase
from langgraph_prax_memory.knowledge._store import AsyncKnowledgeStore, KnowledgeStore
from langgraph_prax_memory.knowledge.base import KnowledgeBase, create_knowledge_store
from langgraph_prax_memory.knowledge.code import (
    DependencyReport,
    FileStructure,
    code_dependencies,
    code_search_ast,
    code_structure,
)
from langgraph_prax_memory.knowledge.documents import chunk_text, load_document
from langgraph_prax_memory.knowledge.extract import (
    ConceptExtraction,
    ConceptExtractionError,
    ConceptExtractor,
    ExtractedConcept,
    ExtractedRelation,
    LLMConceptExtractor,
    RuleBasedConceptExtractor,
)
from langgraph_prax_memory.knowledge.models import (
    KNOWN_NAMESPACES as KNOWN_NAMESPACES,
)
from langgraph_prax_memory.knowledge.models import (
    ConceptHit,
    ConceptInput,
    DocumentInput,
    FolderIngestResult,
    IngestResult,
    KnowledgeConcept,
    KnowledgeDocument,
    KnowledgeNotFound,
    KnowledgeRelation,
    KnowledgeSearchResult,
    KnowledgeStats,
    NamespaceInfo,
    RelationInput,
    SkippedFile,
    WriteResult,
    concept_id,
)
from langgraph_prax_memory.knowledge.neo4j import AsyncNeo4jKnowledgeStore, Neo4jKnowledgeStore
from langgraph_prax_memory.knowledge.okf import (
    OkfExportResult,
    OkfImportResult,
    export_namespace_okf,
    import_okf,
)
from langgraph_prax_memory.knowledge.sqlite import AsyncSQLiteKnowledgeStore, SQLiteKnowledgeStore
from langgraph_prax_memory.knowledge.vectors import KNOWLEDGE_COLLECTION as KNOWLEDGE_COLLECTION
from langgraph_prax_memory.knowledge.vectors import KnowledgeVectors

__all__ = [
    "AsyncKnowledgeBase",
    "AsyncKnowledgeStore",
    "AsyncNeo4jKnowledgeStore",
    "AsyncSQLiteKnowledgeStore",
    "ConceptExtraction",
    "ConceptExtractionError",
    "ConceptExtractor",
    "ConceptHit",
    "ConceptInput",
    "DependencyReport",
    "DocumentInput",
    "ExtractedConcept",
    "ExtractedRelation",
    "FileStructure",
    "FolderIngestResult",
    "IngestResult",
    "KnowledgeBase",
    "KnowledgeConcept",
    "KnowledgeDocument",
    "KnowledgeNotFound",
    "KnowledgeRelation",
    "KnowledgeSearchResult",
    "KnowledgeStats",
    "KnowledgeStore",
    "KnowledgeVectors",
    "LLMConceptExtractor",
    "NamespaceInfo",
    "Neo4jKnowledgeStore",
    "OkfExportResult",
    "OkfImportResult",
    "RelationInput",
    "RuleBasedConceptExtractor",
    "SkippedFile",
    "SQLiteKnowledgeStore",
    "WriteResult",
    "chunk_text",
    "code_dependencies",
    "code_search_ast",
    "code_structure",
    "concept_id",
    "create_knowledge_store",
    "export_namespace_okf",
    "import_okf",
    "load_document",
]
