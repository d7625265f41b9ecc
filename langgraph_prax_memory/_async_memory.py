"""The async face of :class:`PraxMemory`: :class:`AsyncPraxMemory`, same names and signatures.

Every method runs the sync facade in a worker thread (``asyncio.to_thread``), as httpx's
``AsyncClient`` mirrors ``Client``. The signatures are written out, so type checkers and
editors see them; ``tests/unit/test_async_face.py`` fails when one drifts from the sync face.
It sits at the facade's layer: ``langgraph_prax_memory.memory`` and the package root export it
by name.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TextIO

from qdrant_client.http import models

from langgraph_prax_memory._conversation import Turn
from langgraph_prax_memory._parts import MemoryParts
from langgraph_prax_memory._progress import ProgressCallback
from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.embeddings import ResilientEmbeddings, SparseTFEncoder
from langgraph_prax_memory.graph import GraphStore
from langgraph_prax_memory.ltm import LongTermMemory
from langgraph_prax_memory.memory import PraxMemory
from langgraph_prax_memory.models import Memory, MemoryHit
from langgraph_prax_memory.notes import UserNotes
from langgraph_prax_memory.retrieval import RecallResult
from langgraph_prax_memory.stm import ScratchpadStore
from langgraph_prax_memory.vectors import QdrantVectorStore

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel

    from langgraph_prax_memory._doctor import Check
    from langgraph_prax_memory._forget import ForgetReceipt
    from langgraph_prax_memory._portable import ExportSummary, ImportReceipt
    from langgraph_prax_memory._stats import UserStats
    from langgraph_prax_memory.consolidation import (
        ConsolidationResult,
        Consolidator,
        TraceSource,
    )
    from langgraph_prax_memory.knowledge import AsyncKnowledgeBase
    from langgraph_prax_memory.vectors import VectorClient
    from langgraph_prax_memory.vectorstore import PraxMemoryVectorStore

__all__ = ["AsyncPraxMemory"]


class AsyncPraxMemory:
    """The async face of :class:`PraxMemory`, with the same method names.

    Each call runs the sync facade in a worker thread, so the event loop never blocks; recall's
    three arms already run concurrently inside it, and reinforcement runs after the answer.
    (Qdrant's local mode is synchronous code, and one process may open its folder only once,
    so a second, natively async client would not help the embedded default.)

    Example:
        >>> import asyncio
        >>> async def main() -> None:
        ...     async with AsyncPraxMemory(MemoryConfig(qdrant_url=":memory:")) as mem:
        ...         await mem.remember("alice", "Alice prefers dark mode")
        ...         hits = await mem.recall("alice", "theme?")
    """

    def __init__(
        self,
        config: MemoryConfig | None = None,
        *,
        embeddings: Embeddings | None = None,
        embedding_dimension: int | None = None,
        qdrant_client: VectorClient | None = None,
        graph: GraphStore | None = None,
        graph_arm: bool = True,
        expansion_model: BaseChatModel | None = None,
        rerank_model: BaseChatModel | None = None,
        chat_model: BaseChatModel | str | None = None,
        checkpointer: Any = None,
    ) -> None:
        #: The sync facade every call runs on (in a worker thread).
        self.sync = PraxMemory(
            config,
            embeddings=embeddings,
            embedding_dimension=embedding_dimension,
            qdrant_client=qdrant_client,
            graph=graph,
            graph_arm=graph_arm,
            expansion_model=expansion_model,
            rerank_model=rerank_model,
            chat_model=chat_model,
            checkpointer=checkpointer,
        )
        self.config = self.sync.config

    @property
    def ltm(self) -> LongTermMemory:
        """The long-term memory (see :attr:`PraxMemory.ltm`)."""
        return self.sync.ltm

    @property
    def parts(self) -> MemoryParts:
        """The parts services take (see :attr:`PraxMemory.parts`)."""
        return self.sync.parts

    @property
    def graph(self) -> GraphStore:
        """The knowledge graph (the sync store; its calls are quick and local or pooled)."""
        return self.sync.graph

    @property
    def vectors(self) -> QdrantVectorStore:
        """The vector store (see :attr:`PraxMemory.vectors`)."""
        return self.sync.vectors

    @property
    def embeddings(self) -> ResilientEmbeddings:
        """The dense embedder (LangChain ``Embeddings``: it has ``aembed_*`` itself)."""
        return self.sync.embeddings

    @property
    def sparse_encoder(self) -> SparseTFEncoder:
        """The sparse term encoder."""
        return self.sync.sparse_encoder

    @property
    def stm(self) -> ScratchpadStore:
        """The per-user scratchpad (see :attr:`PraxMemory.stm`)."""
        return self.sync.stm

    @property
    def notes(self) -> UserNotes:
        """The per-user ``user_notes.md`` (see :attr:`PraxMemory.notes`)."""
        return self.sync.notes

    @property
    def available(self) -> bool:
        """Whether long-term memory is enabled."""
        return self.sync.available

    async def remember(
        self,
        user_id: str,
        content: str,
        *,
        importance: float = 0.5,
        tags: Sequence[str] | str | None = None,
        source: str = "conversation",
        created_at: datetime | str | float | None = None,
        entity_ids: Sequence[str] | None = None,
        key: str | None = None,
    ) -> str:
        """Store one memory (see :meth:`PraxMemory.remember`)."""
        return await asyncio.to_thread(
            self.sync.remember,
            user_id,
            content,
            importance=importance,
            tags=tags,
            source=source,
            created_at=created_at,
            entity_ids=entity_ids,
            key=key,
        )

    async def remember_conversation(
        self,
        user_id: str,
        turns: Sequence[Turn],
        *,
        created_at: datetime | str | float | None = None,
        importance: float = 0.5,
        tags: Sequence[str] | str | None = None,
        source: str = "conversation",
        previous: str | None = None,
    ) -> list[str]:
        """Store a conversation's turns (see :meth:`PraxMemory.remember_conversation`)."""
        return await asyncio.to_thread(
            self.sync.remember_conversation,
            user_id,
            turns,
            created_at=created_at,
            importance=importance,
            tags=tags,
            source=source,
            previous=previous,
        )

    async def remember_many(
        self, user_id: str, items: Sequence[Mapping[str, Any] | str]
    ) -> list[str]:
        """Store several memories (see :meth:`PraxMemory.remember_many`)."""
        return await asyncio.to_thread(self.sync.remember_many, user_id, items)

    async def recall(
        self,
        user_id: str,
        query: str,
        *,
        k: int = 5,
        now: datetime | None = None,
        reinforce: bool = True,
        tags: Sequence[str] | None = None,
        include_history: bool = False,
        as_of: datetime | None = None,
    ) -> list[MemoryHit]:
        """Recall (see :meth:`PraxMemory.recall`); reinforcement runs after returning."""
        result = await self.recall_detailed(
            user_id,
            query,
            k=k,
            now=now,
            reinforce=reinforce,
            tags=tags,
            include_history=include_history,
            as_of=as_of,
        )
        return result.hits

    async def recall_detailed(
        self,
        user_id: str,
        query: str,
        *,
        k: int = 5,
        now: datetime | None = None,
        reinforce: bool = True,
        tags: Sequence[str] | None = None,
        where: models.Filter | None = None,
        include_history: bool = False,
        as_of: datetime | None = None,
    ) -> RecallResult:
        """Recall with diagnostics (see :meth:`PraxMemory.recall_detailed`).

        The arms already run concurrently in worker threads; this face keeps the event loop
        free while they do, and reinforcement runs after the answer is returned.
        """
        return await asyncio.to_thread(
            self.sync.recall_detailed,
            user_id,
            query,
            k=k,
            now=now,
            reinforce=reinforce,
            tags=tags,
            where=where,
            include_history=include_history,
            as_of=as_of,
        )

    async def standing_facts(
        self,
        user_id: str,
        query: str,
        *,
        k: int | None = None,
        now: datetime | None = None,
    ) -> list[MemoryHit]:
        """The standing facts scored for ``query`` (see :meth:`PraxMemory.standing_facts`)."""
        return await asyncio.to_thread(self.sync.standing_facts, user_id, query, k=k, now=now)

    async def flush(self) -> None:
        """Wait for background reinforcement."""
        await asyncio.to_thread(self.sync.flush)

    async def get(self, user_id: str, memory_id: str) -> Memory | None:
        """One memory by id."""
        return await asyncio.to_thread(self.sync.get, user_id, memory_id)

    async def forget(self, user_id: str, memory_id: str) -> bool:
        """Delete one memory."""
        return await asyncio.to_thread(self.sync.forget, user_id, memory_id)

    async def count(self, user_id: str) -> int:
        """How many memories ``user_id`` has."""
        return await asyncio.to_thread(self.sync.count, user_id)

    async def list_memories(self, user_id: str, *, limit: int = 100) -> list[Memory]:
        """Memories in first-write order."""
        return await asyncio.to_thread(self.sync.list_memories, user_id, limit=limit)

    async def decay(
        self,
        user_id: str,
        *,
        now: datetime | None = None,
        dry_run: bool = False,
        progress: ProgressCallback | None = None,
    ) -> list[str]:
        """The forgetting pass (see :meth:`PraxMemory.decay`)."""
        return await asyncio.to_thread(
            self.sync.decay, user_id, now=now, dry_run=dry_run, progress=progress
        )

    async def reembed(
        self, user_id: str, *, force: bool = False, progress: ProgressCallback | None = None
    ) -> int:
        """Fill in missing dense vectors (see :meth:`PraxMemory.reembed`)."""
        return await asyncio.to_thread(self.sync.reembed, user_id, force=force, progress=progress)

    @property
    def consolidator(self) -> Consolidator:
        """The consolidation pipeline (its ``arun`` is the async entry point)."""
        return self.sync.consolidator

    def as_vectorstore(self, user_id: str, **kwargs: Any) -> PraxMemoryVectorStore:
        """``user_id``'s long-term memory as a LangChain ``VectorStore``.

        The same object as :meth:`PraxMemory.as_vectorstore`: LangChain's ``VectorStore`` has
        both faces (``asimilarity_search``, ``aadd_texts`` run off the event loop), so building
        it needs no ``await``.
        """
        return self.sync.as_vectorstore(user_id, **kwargs)

    @property
    def knowledge(self) -> AsyncKnowledgeBase:
        """The world-knowledge namespace, async face."""
        from langgraph_prax_memory.knowledge import AsyncKnowledgeBase

        return AsyncKnowledgeBase(self.sync.knowledge)

    async def consolidate(
        self,
        user_id: str,
        source: TraceSource | Sequence[TraceSource] | None = None,
        *,
        now: datetime | None = None,
        wait: bool | float = True,
        progress: ProgressCallback | None = None,
    ) -> ConsolidationResult:
        """Consolidate now (see :meth:`PraxMemory.consolidate`)."""
        return await asyncio.to_thread(
            self.sync.consolidate, user_id, source, now=now, wait=wait, progress=progress
        )

    async def stats(self, user_id: str) -> UserStats:
        """Counts across the layers (see :meth:`PraxMemory.stats`)."""
        return await asyncio.to_thread(self.sync.stats, user_id)

    async def export_user(
        self, user_id: str, out: TextIO, *, progress: ProgressCallback | None = None
    ) -> ExportSummary:
        """Portable JSONL export (see :meth:`PraxMemory.export_user`)."""
        return await asyncio.to_thread(self.sync.export_user, user_id, out, progress=progress)

    async def import_user(
        self,
        lines: Iterable[str | bytes],
        *,
        user_id: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> ImportReceipt:
        """Idempotent import (see :meth:`PraxMemory.import_user`)."""
        return await asyncio.to_thread(
            self.sync.import_user, lines, user_id=user_id, progress=progress
        )

    async def doctor(self) -> list[Check]:
        """Backend checks (see :meth:`PraxMemory.doctor`)."""
        return await asyncio.to_thread(self.sync.doctor)

    async def delete_user(self, user_id: str) -> dict[str, int]:
        """Delete everything of ``user_id`` but their notes (see :meth:`PraxMemory.delete_user`)."""
        return await asyncio.to_thread(self.sync.delete_user, user_id)

    async def forget_user(
        self, user_id: str, *, keep_notes: bool = False, compact: bool = False
    ) -> ForgetReceipt:
        """Delete everything of ``user_id`` (see :meth:`PraxMemory.forget_user`)."""
        return await asyncio.to_thread(
            self.sync.forget_user, user_id, keep_notes=keep_notes, compact=compact
        )

    async def compact(self) -> list[str]:
        """Rewrite the owned stores without deleted bytes (see :meth:`PraxMemory.compact`)."""
        return await asyncio.to_thread(self.sync.compact)

    async def close(self) -> None:
        """Finish background work and release the stores."""
        await asyncio.to_thread(self.sync.close)

    async def __aenter__(self) -> AsyncPraxMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
