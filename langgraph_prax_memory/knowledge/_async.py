"""The async face of :class:`~langgraph_prax_memory.knowledge.KnowledgeBase`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langgraph_prax_memory.knowledge.base import KnowledgeBase
from langgraph_prax_memory.knowledge.models import (
    ConceptHit,
    KnowledgeSearchResult,
    KnowledgeStats,
    NamespaceInfo,
)

__all__ = ["AsyncKnowledgeBase"]


class AsyncKnowledgeBase:
    """The async face of :class:`KnowledgeBase` (same method names, coroutines).

    The knowledge calls are short and the SQLite / local-Qdrant backends are synchronous, so
    each call runs the sync facade in a worker thread; the event loop never blocks.

    Example:
        >>> # akb = AsyncKnowledgeBase(KnowledgeBase(mem)); await akb.search("u1", "rrf")
    """

    def __init__(self, sync: KnowledgeBase) -> None:
        self.sync = sync

    async def _run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(fn, *args, **kwargs)

    async def ingest_document(self, user_id: str, source: str | Path, *a: Any, **kw: Any) -> Any:
        """See :meth:`KnowledgeBase.ingest_document`."""
        return await self._run(self.sync.ingest_document, user_id, source, *a, **kw)

    async def ingest_codebase(self, user_id: str, root: str | Path, *a: Any, **kw: Any) -> Any:
        """See :meth:`KnowledgeBase.ingest_codebase`."""
        return await self._run(self.sync.ingest_codebase, user_id, root, *a, **kw)

    async def search(self, user_id: str, query: str, **kw: Any) -> list[ConceptHit]:
        """See :meth:`KnowledgeBase.search`."""
        return list(await self._run(self.sync.search, user_id, query, **kw))

    async def search_detailed(self, user_id: str, query: str, **kw: Any) -> KnowledgeSearchResult:
        """See :meth:`KnowledgeBase.search_detailed`."""
        result: KnowledgeSearchResult = await self._run(
            self.sync.search_detailed, user_id, query, **kw
        )
        return result

    async def namespaces(self, user_id: str) -> list[NamespaceInfo]:
        """See :meth:`KnowledgeBase.namespaces`."""
        return list(await self._run(self.sync.namespaces, user_id))

    async def delete_namespace(self, user_id: str, namespace: str) -> KnowledgeStats:
        """See :meth:`KnowledgeBase.delete_namespace`."""
        result: KnowledgeStats = await self._run(self.sync.delete_namespace, user_id, namespace)
        return result

    async def delete_user(self, user_id: str) -> KnowledgeStats:
        """See :meth:`KnowledgeBase.delete_user`."""
        result: KnowledgeStats = await self._run(self.sync.delete_user, user_id)
        return result

    async def connect(self, user_id: str, namespace: str, concept: str, entity: str) -> bool:
        """See :meth:`KnowledgeBase.connect`."""
        return bool(await self._run(self.sync.connect, user_id, namespace, concept, entity))

    async def reindex_user_concepts(self, user_id: str, **kw: Any) -> int:
        """See :meth:`KnowledgeBase.reindex_user_concepts`."""
        return int(await self._run(self.sync.reindex_user_concepts, user_id, **kw))

    async def export_namespace_okf(self, user_id: str, namespace: str, dest: str | Path) -> Any:
        """See :meth:`KnowledgeBase.export_namespace_okf`."""
        return await self._run(self.sync.export_namespace_okf, user_id, namespace, dest)

    async def import_okf(self, user_id: str, src: str | Path, namespace: str) -> Any:
        """See :meth:`KnowledgeBase.import_okf`."""
        return await self._run(self.sync.import_okf, user_id, src, namespace)
