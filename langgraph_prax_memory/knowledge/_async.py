"""The async face of :class:`~langgraph_prax_memory.knowledge.KnowledgeBase`.

Every method of :class:`KnowledgeBase` is here with the same signature, as a coroutine that
runs the sync method in a worker thread (``tests/unit/knowledge/test_async_knowledge_base.py``
fails when the two faces drift apart).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from langchain_core.language_models import BaseChatModel

from langgraph_prax_memory._parts import HasParts, MemoryParts
from langgraph_prax_memory._progress import ProgressCallback
from langgraph_prax_memory.knowledge import okf as okf_mod
from langgraph_prax_memory.knowledge._store import KnowledgeStore
from langgraph_prax_memory.knowledge.base import KnowledgeBase
from langgraph_prax_memory.knowledge.documents import DEFAULT_CHUNK_CHARS
from langgraph_prax_memory.knowledge.extract import ConceptExtractor
from langgraph_prax_memory.knowledge.models import (
    ConceptHit,
    FolderIngestResult,
    IngestResult,
    KnowledgeConcept,
    KnowledgeRelation,
    KnowledgeSearchResult,
    KnowledgeStats,
    NamespaceInfo,
)

__all__ = ["AsyncKnowledgeBase"]


class AsyncKnowledgeBase:
    """The async face of :class:`KnowledgeBase`: the same methods, as coroutines.

    The knowledge calls are short and the SQLite / local-Qdrant backends are synchronous, so
    each call runs the sync service in a worker thread; the event loop never blocks.

    Args:
        memory: A :class:`KnowledgeBase` to wrap, or what :class:`KnowledgeBase` takes (a
            ``PraxMemory`` or its parts) to build one with the other arguments.
        chat_model: See :class:`KnowledgeBase`.
        extractor: See :class:`KnowledgeBase`.
        store: See :class:`KnowledgeBase`.
        hybrid: See :class:`KnowledgeBase`.
        chunk_chars: See :class:`KnowledgeBase`.

    Example:
        >>> import asyncio, tempfile
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir=tempfile.mkdtemp()))
        >>> akb = AsyncKnowledgeBase(mem)
        >>> _ = asyncio.run(akb.ingest_document("u1", "Qdrant uses HNSW.", namespace="docs"))
        >>> [n.namespace for n in asyncio.run(akb.namespaces("u1"))]
        ['docs']
        >>> _ = asyncio.run(akb.delete_user("u1")); mem.close()
    """

    def __init__(
        self,
        memory: KnowledgeBase | MemoryParts | HasParts,
        *,
        chat_model: BaseChatModel | None = None,
        extractor: ConceptExtractor | None = None,
        store: KnowledgeStore | None = None,
        hybrid: bool | None = None,
        chunk_chars: int = DEFAULT_CHUNK_CHARS,
    ) -> None:
        if isinstance(memory, KnowledgeBase):
            #: The sync service every call runs on (in a worker thread).
            self.sync = memory
        else:
            self.sync = KnowledgeBase(
                memory,
                chat_model=chat_model,
                extractor=extractor,
                store=store,
                hybrid=hybrid,
                chunk_chars=chunk_chars,
            )

    @property
    def parts(self) -> MemoryParts:
        """The parts of the memory the knowledge base shares (see :class:`KnowledgeBase`)."""
        return self.sync.parts

    @property
    def store(self) -> KnowledgeStore:
        """The sync knowledge store (see :class:`KnowledgeBase`)."""
        return self.sync.store

    async def reindex_user_concepts(self, user_id: str, *, namespace: str | None = None) -> int:
        """See :meth:`KnowledgeBase.reindex_user_concepts`."""
        return await asyncio.to_thread(
            self.sync.reindex_user_concepts, user_id, namespace=namespace
        )

    async def ingest_document(
        self,
        user_id: str,
        source: str | Path,
        namespace: str = "uploads",
        *,
        title: str | None = None,
        source_type: str | None = None,
        now: datetime | None = None,
        progress: ProgressCallback | None = None,
    ) -> IngestResult:
        """See :meth:`KnowledgeBase.ingest_document`."""
        return await asyncio.to_thread(
            self.sync.ingest_document,
            user_id,
            source,
            namespace,
            title=title,
            source_type=source_type,
            now=now,
            progress=progress,
        )

    async def ingest_codebase(
        self,
        user_id: str,
        root: str | Path,
        namespace: str = "codebase",
        *,
        now: datetime | None = None,
        progress: ProgressCallback | None = None,
    ) -> IngestResult:
        """See :meth:`KnowledgeBase.ingest_codebase`."""
        return await asyncio.to_thread(
            self.sync.ingest_codebase, user_id, root, namespace, now=now, progress=progress
        )

    async def ingest_folder(
        self,
        user_id: str,
        root: str | Path,
        namespace: str | None = None,
        *,
        now: datetime | None = None,
        progress: ProgressCallback | None = None,
    ) -> FolderIngestResult:
        """See :meth:`KnowledgeBase.ingest_folder`."""
        return await asyncio.to_thread(
            self.sync.ingest_folder, user_id, root, namespace, now=now, progress=progress
        )

    async def search_detailed(
        self, user_id: str, query: str, *, namespace: str | None = None, k: int = 10
    ) -> KnowledgeSearchResult:
        """See :meth:`KnowledgeBase.search_detailed`."""
        return await asyncio.to_thread(
            self.sync.search_detailed, user_id, query, namespace=namespace, k=k
        )

    async def search(
        self, user_id: str, query: str, *, namespace: str | None = None, k: int = 10
    ) -> list[ConceptHit]:
        """See :meth:`KnowledgeBase.search`."""
        return await asyncio.to_thread(self.sync.search, user_id, query, namespace=namespace, k=k)

    async def namespaces(self, user_id: str) -> list[NamespaceInfo]:
        """See :meth:`KnowledgeBase.namespaces`."""
        return await asyncio.to_thread(self.sync.namespaces, user_id)

    async def delete_namespace(self, user_id: str, namespace: str) -> KnowledgeStats:
        """See :meth:`KnowledgeBase.delete_namespace`."""
        return await asyncio.to_thread(self.sync.delete_namespace, user_id, namespace)

    async def delete_user(self, user_id: str) -> KnowledgeStats:
        """See :meth:`KnowledgeBase.delete_user`."""
        return await asyncio.to_thread(self.sync.delete_user, user_id)

    async def connect(
        self,
        user_id: str,
        namespace: str,
        concept: str,
        entity: str,
        *,
        now: datetime | None = None,
    ) -> bool:
        """See :meth:`KnowledgeBase.connect`."""
        return await asyncio.to_thread(
            self.sync.connect, user_id, namespace, concept, entity, now=now
        )

    async def knowledge_for_entities(
        self, user_id: str, entities: Iterable[str], *, namespace: str | None = None
    ) -> list[KnowledgeConcept]:
        """See :meth:`KnowledgeBase.knowledge_for_entities`."""
        return await asyncio.to_thread(
            self.sync.knowledge_for_entities, user_id, list(entities), namespace=namespace
        )

    async def dependents(
        self, user_id: str, name: str, *, namespace: str = "codebase"
    ) -> list[str]:
        """See :meth:`KnowledgeBase.dependents`."""
        return await asyncio.to_thread(self.sync.dependents, user_id, name, namespace=namespace)

    async def relations(
        self, user_id: str, namespace: str, name: str, *, direction: str = "both"
    ) -> list[KnowledgeRelation]:
        """See :meth:`KnowledgeBase.relations`."""
        return await asyncio.to_thread(
            self.sync.relations, user_id, namespace, name, direction=direction
        )

    async def stats(self, user_id: str) -> KnowledgeStats:
        """See :meth:`KnowledgeBase.stats`."""
        return await asyncio.to_thread(self.sync.stats, user_id)

    async def export_namespace_okf(
        self, user_id: str, namespace: str, dest: str | Path
    ) -> okf_mod.OkfExportResult:
        """See :meth:`KnowledgeBase.export_namespace_okf`."""
        return await asyncio.to_thread(self.sync.export_namespace_okf, user_id, namespace, dest)

    async def import_okf(
        self, user_id: str, src: str | Path, namespace: str, *, now: datetime | None = None
    ) -> okf_mod.OkfImportResult:
        """See :meth:`KnowledgeBase.import_okf`."""
        return await asyncio.to_thread(self.sync.import_okf, user_id, src, namespace, now=now)

    async def close(self) -> None:
        """See :meth:`KnowledgeBase.close`."""
        await asyncio.to_thread(self.sync.close)
