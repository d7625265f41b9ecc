"""The facade: :class:`PraxMemory` wires configuration → backends → services.

``PraxMemory`` (sync) and ``AsyncPraxMemory`` (async, in ``_async_memory.py``, exported here
too) have the same method names and signatures, as httpx's ``Client`` and ``AsyncClient`` do.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TextIO

from qdrant_client.http import models

from langgraph_prax_memory._conversation import Turn, conversation_items
from langgraph_prax_memory._parts import MemoryParts
from langgraph_prax_memory._progress import ProgressCallback
from langgraph_prax_memory._validation import check_user_id
from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.embeddings import ResilientEmbeddings, SparseTFEncoder
from langgraph_prax_memory.graph import GraphStore, create_graph_store
from langgraph_prax_memory.ltm import LongTermMemory
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
    from langgraph_prax_memory.consolidation import ConsolidationResult, Consolidator, TraceSource
    from langgraph_prax_memory.knowledge import KnowledgeBase
    from langgraph_prax_memory.vectors import VectorClient
    from langgraph_prax_memory.vectorstore import PraxMemoryVectorStore

__all__ = ["AsyncPraxMemory", "PraxMemory"]  # noqa: F822 (AsyncPraxMemory: module __getattr__)

#: Names this module exports from the modules that build on it (imported by name on first
#: use, as the package root does: ``_async_memory`` imports ``PraxMemory`` from here).
_REEXPORTED = {"AsyncPraxMemory": "langgraph_prax_memory._async_memory"}

logger = logging.getLogger(__name__)


class PraxMemory:
    """Layered long-term memory for one process: remember, recall, forget — per user.

    Built from a :class:`MemoryConfig` (environment by default). With no configuration it runs
    offline: Qdrant's engine in-process (qdrant-edge) under the data directory and the packaged
    MiniLM model.

    Args:
        config: Settings; read from the environment when omitted.
        embeddings: A LangChain ``Embeddings`` to use instead of the configured provider.
        embedding_dimension: Width of ``embeddings`` (required with it).
        qdrant_client: An open ``QdrantClient`` (or ``EdgeClient``) to use instead of opening
            one from config.
        graph: A graph store to use instead of the configured one.
        graph_arm: Let recall use the graph neighbourhood arm.
        expansion_model: Chat model for query expansion (``config.retrieval.query_expansion``).
        rerank_model: Chat model for the rerank pass (``config.retrieval.rerank``).
        chat_model: Extraction model of consolidation (default: ``config.model_routing``'s
            consolidation model; the rule-based extractor when there is none).
        checkpointer: The LangGraph checkpointer whose threads consolidation reads.

    Example:
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> with PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir="/tmp/prax")) as mem:
        ...     _ = mem.remember("alice", "Alice prefers dark mode", importance=0.8)
        ...     print(mem.recall("alice", "which theme does she like?")[0].memory.content)
        Alice prefers dark mode
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
        config = config or MemoryConfig()
        self.config = config
        self._chat_model = chat_model
        self._consolidator: Consolidator | None = None
        self._knowledge: KnowledgeBase | None = None
        # guards the parts built on first use: two threads (two users consolidating at once)
        # must not each build a second pipeline
        self._lazy = threading.RLock()
        routing = config.model_routing
        #: Long-term memory: the one write path and the one ranking pipeline.
        self.ltm = LongTermMemory(
            config,
            embeddings=embeddings,
            embedding_dimension=embedding_dimension,
            qdrant_client=qdrant_client,
            graph=(lambda: self.parts.graph) if graph_arm else None,
            expansion_model=expansion_model or routing.resolve("query_expansion"),
            rerank_model=rerank_model or routing.resolve("rerank"),
        )
        #: The parts services take (consolidation, knowledge, the admin services).
        self.parts = MemoryParts(
            config,
            self.ltm,
            # the per-user scratchpad (works without Qdrant)
            ScratchpadStore(config, chat_model=routing.resolve("stm_compaction")),
            # the per-user user_notes.md; items compaction drops are promoted into LTM
            UserNotes(config, remember=self._promote_note),
            graph=graph if graph is not None else (lambda: create_graph_store(config)),
            checkpointer=checkpointer,
        )
        #: The per-user scratchpad (works without Qdrant).
        self.stm = self.parts.stm
        #: The per-user ``user_notes.md``; items compaction drops are promoted into LTM.
        self.notes = self.parts.notes
        self._resumed_deletions: dict[str, ForgetReceipt] = {}
        self._resume_deletions()

    def _resume_deletions(self) -> None:
        """Finish the user deletions an outage interrupted (their markers under ``data_dir``)."""
        from langgraph_prax_memory._forget import PENDING_DIR, resume_pending

        if (self.config.data_dir / PENDING_DIR).is_dir():
            self._resumed_deletions = resume_pending(self.parts, lambda: self.knowledge.store)

    def _promote_note(
        self, user_id: str, content: str, /, *, importance: float, tags: list[str], source: str
    ) -> str:
        return self.remember(user_id, content, importance=importance, tags=tags, source=source)

    # -- properties -------------------------------------------------------------------
    @property
    def available(self) -> bool:
        """Whether long-term memory is enabled (``MEMORY_ENABLED``)."""
        return self.ltm.available

    @property
    def graph(self) -> GraphStore:
        """The knowledge graph (SQLite under ``data_dir`` by default, Neo4j with ``NEO4J_URI``).

        Built on first use; a Neo4j server that is down surfaces as ``BackendUnavailable``
        from graph calls, never from building the memory.
        """
        return self.parts.graph

    @property
    def vectors(self) -> QdrantVectorStore:
        """The vector store (raises :class:`BackendUnavailable` when LTM is disabled)."""
        return self.ltm.vectors

    @property
    def embeddings(self) -> ResilientEmbeddings:
        """The dense embedder (with its cache and fallbacks)."""
        return self.ltm.embeddings

    @property
    def sparse_encoder(self) -> SparseTFEncoder:
        """The sparse term encoder."""
        return self.ltm.sparse_encoder

    # -- writes -----------------------------------------------------------------------
    def remember(
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
        """Store one memory and return its id.

        Identical content for the same user is stored once (the existing id is returned).
        ``created_at`` back-dates a memory (importing history, replaying a conversation).

        Raises:
            MemoryValidationError: Bad input; nothing was stored.
            MemoryWriteError: Qdrant did not take the write.
        """
        item: dict[str, Any] = {
            "content": content,
            "importance": importance,
            "tags": tags,
            "source": source,
            "created_at": created_at,
            "entity_ids": list(entity_ids) if entity_ids else None,
            "key": key,
        }
        return self.remember_many(user_id, [item])[0]

    def remember_conversation(
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
        """Store the turns of one conversation, each indexed with the turn it answers.

        Each turn becomes a memory ``"speaker: text"`` whose ``context`` is the previous turn,
        so that a short answer ("Yes, last May!") is found by the words of its question.
        Turns are LangChain messages, chat-API mappings (``role``, ``content``, ``name``),
        ``(speaker, text)`` pairs, or mappings with ``speaker``, ``text`` and optionally
        ``created_at``, ``key``, ``importance`` and ``tags``. System and tool messages and
        turns without text (an AI turn that only calls tools) are skipped. One call is one
        conversation; ``previous`` gives the first turn its context when a session is stored
        in parts. Turns are ``created_at`` (default: now) plus a millisecond per turn, unless
        they carry their own time. The same words answering two questions are two memories.

        Example:
            >>> mem = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir="/tmp/prax-doc"))
            >>> ids = mem.remember_conversation(
            ...     "alice", [("Bob", "When did you visit Oslo?"), ("Alice", "Last May!")]
            ... )
            >>> len(ids), mem.count("alice")
            (2, 2)
            >>> mem.close()

        Returns:
            The ids of the stored turns, in order (skipped messages have none).

        Raises:
            MemoryValidationError: A malformed turn, or one longer than
                ``max_content_chars``; nothing was stored.
            MemoryWriteError: Qdrant did not take the write.
        """
        items = conversation_items(
            turns,
            created_at=created_at,
            importance=importance,
            tags=tags,
            source=source,
            previous=previous,
        )
        return self.remember_many(user_id, items)

    def remember_many(self, user_id: str, items: Sequence[Mapping[str, Any] | str]) -> list[str]:
        """Store several memories with batched embedding; every item is validated first.

        Each item is a string (its content, every other field at its default) or a mapping
        with ``content`` and optionally ``importance``, ``tags``,
        ``source``, ``created_at``, ``entity_ids``, ``key``, ``summary_level`` and
        ``context``: text indexed with the memory's keywords (the sparse vector) but not part of
        it — e.g. the previous turn of a conversation, so that "Yes, last May!" is found by
        the words of what it answers. The dense vector encodes the content alone: mixing the
        context into it blurs what the memory itself says (docs/retrieval.md has figures).

        Example:
            >>> ids = memory.remember_many(  # doctest: +SKIP
            ...     "alice", ["Alice drinks green tea", {"content": "Alice is a nurse"}]
            ... )
        """
        return self.ltm.remember_many(user_id, items)

    def forget(self, user_id: str, memory_id: str) -> bool:
        """Delete one memory of ``user_id``; ``False`` when it does not exist (for this user)."""
        return self.ltm.forget(user_id, memory_id)

    def delete_user(self, user_id: str) -> dict[str, int]:
        """Delete everything of ``user_id`` except their notes; returns counts.

        Memories, knowledge (concepts and their vectors), graph, scratchpad, consolidation
        state, ``trace.log`` and the OKF bundles under ``data_dir/okf`` go, backends first
        and local files last. Nothing of any other user is touched. The user's notes stay
        in their git workspace (``forget_user`` / ``prax-memory forget-user`` removes them
        too, and can compact the stores so no deleted byte stays on disk).

        Raises:
            MemoryValidationError: ``user_id`` is invalid; nothing was deleted.
            DeletionIncomplete: A backend failed part-way (or a consolidation of the user
                still ran after 120 s, see :meth:`forget_user`); the error says what is
                left, and the deletion resumes on the next call or when a memory is next
                opened on this data directory.
        """
        return self.forget_user(user_id, keep_notes=True).removed

    def forget_user(
        self, user_id: str, *, keep_notes: bool = False, compact: bool = False
    ) -> ForgetReceipt:
        """Delete everything of ``user_id`` in every store; return a receipt.

        Memories, knowledge, graph, scratchpad, consolidation state, ``trace.log``, OKF
        bundles and, unless ``keep_notes``, the user's workspace folder (``user_notes.md``
        with its git history) go, backends first and local files last. ``compact`` then
        rewrites the embedded stores so that no byte of the user stays on disk. The
        receipt's ``remaining`` lists where the user's data may still be (see
        docs/security.md). A consolidation of the user that is running is waited for (up to
        120 s) first, so nothing it extracts outlives the deletion; one asked for meanwhile
        waits for the deletion.

        Raises:
            MemoryValidationError: ``user_id`` is invalid; nothing was deleted.
            DeletionIncomplete: A backend failed part-way, or a consolidation of the user was
                still running after 120 s; the error lists what is left and the deletion
                resumes on the next call (or when a memory is next opened).
        """
        from langgraph_prax_memory._forget import forget

        return forget(
            self.parts,
            user_id,
            keep_notes=keep_notes,
            compact=compact,
            knowledge=lambda: self.knowledge.store,
            resumed=self._resumed_deletions,
        )

    def compact(self) -> list[str]:
        """Rewrite the stores this product owns so no byte of deleted data stays on disk.

        Rebuilds each qdrant-edge collection from its live points and vacuums the SQLite
        graph (see docs/security.md). Other calls wait while a collection is rebuilt, so
        run it at a quiet time; a crash part-way loses nothing.

        Returns:
            What was compacted (a Qdrant server, local mode or Neo4j are not).

        Raises:
            BackendUnavailable: A store could not be compacted (it is left as it was).
        """
        from langgraph_prax_memory._forget import compact_stores

        return compact_stores(self.parts)

    def decay(
        self,
        user_id: str,
        *,
        now: datetime | None = None,
        dry_run: bool = False,
        progress: ProgressCallback | None = None,
    ) -> list[str]:
        """The forgetting pass: prune memories with ``importance·exp(−λ·days) < 0.02``.

        ``progress(done, total, label)`` is told the memories scanned (``"scanned"``) and
        then the ones pruned (``"pruned"``, not called on a ``dry_run``).
        """
        return self.ltm.decay(user_id, now=now, dry_run=dry_run, progress=progress)

    def reembed(
        self, user_id: str, *, force: bool = False, progress: ProgressCallback | None = None
    ) -> int:
        """Add dense vectors to memories stored without one (or by a fallback model).

        ``force=True`` re-embeds every memory of the user: after a model change that kept the
        same name, or for conversation turns stored before the dense vector left the context
        out (earlier builds encoded context + content). ``progress(done, total,
        "memories")`` is called after each chunk of 256.

        Raises:
            EmbeddingError: The configured model failed (naming it and where it is served);
                the memories done so far keep their new vectors.
        """
        return self.ltm.reembed(user_id, force=force, progress=progress)

    # -- consolidation and knowledge ------------------------------------------------------
    @property
    def consolidator(self) -> Consolidator:
        """The consolidation pipeline of this memory (built on first use)."""
        with self._lazy:
            if self._consolidator is None:
                from langgraph_prax_memory.consolidation import Consolidator

                model = self._chat_model or self.config.model_routing.resolve("consolidation")
                self._consolidator = Consolidator(
                    self.parts, chat_model=model, checkpointer=self.parts.checkpointer
                )
            return self._consolidator

    def consolidate(
        self,
        user_id: str,
        source: TraceSource | Sequence[TraceSource] | None = None,
        *,
        now: datetime | None = None,
        wait: bool | float = True,
        progress: ProgressCallback | None = None,
    ) -> ConsolidationResult:
        """Consolidate ``user_id``'s unconsolidated trace now (the ``memory_consolidate`` tool).

        ``source=None`` reads every known source of the user (the checkpointer's threads,
        ``trace.log``); see :class:`~langgraph_prax_memory.consolidation.Consolidator`.
        ``progress(done, total, "batches")`` follows the extraction batches (``total`` is
        ``None`` until the trace is read).

        Example:
            >>> from langgraph_prax_memory._progress import tqdm_progress  # doctest: +SKIP
            >>> with tqdm_progress() as bar:                               # doctest: +SKIP
            ...     result = memory.consolidate("alice", progress=bar)
        """
        check_user_id(user_id)
        return self.consolidator.run(user_id, source, now=now, wait=wait, progress=progress)

    @property
    def knowledge(self) -> KnowledgeBase:
        """The world-knowledge namespace (documents, papers, code), separate from memory."""
        with self._lazy:
            if self._knowledge is None:
                from langgraph_prax_memory.knowledge import KnowledgeBase

                self._knowledge = KnowledgeBase(self.parts)
            return self._knowledge

    # -- maintenance --------------------------------------------------------------------
    def stats(self, user_id: str) -> UserStats:
        """Counts across the layers for ``user_id`` (memories, graph, scratchpad, notes)."""
        from langgraph_prax_memory._stats import collect_stats

        return collect_stats(self.parts, user_id)

    def export_user(
        self, user_id: str, out: TextIO, *, progress: ProgressCallback | None = None
    ) -> ExportSummary:
        """Write one user's memories, graph and notes as portable JSONL (versioned header).

        ``progress(done, total, label)`` follows the records read and written.
        """
        from langgraph_prax_memory._portable import export_user

        return export_user(self.parts, user_id, out, progress=progress)

    def import_user(
        self,
        lines: Iterable[str | bytes],
        *,
        user_id: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> ImportReceipt:
        """Import an :meth:`export_user` file into ``user_id`` (required; never the header's).

        Every record is checked before the first write, and a store failing part-way is
        undone (the user is left as before the import); importing twice changes nothing.
        ``progress(done, total, "records")`` follows the records imported.
        """
        from langgraph_prax_memory._portable import import_user

        return import_user(self.parts, lines, user_id=user_id, progress=progress)

    def doctor(self) -> list[Check]:
        """Check each configured backend and report what works."""
        from langgraph_prax_memory._doctor import run_checks

        return run_checks(self.parts)

    # -- reads ------------------------------------------------------------------------
    def get(self, user_id: str, memory_id: str) -> Memory | None:
        """One memory of ``user_id`` by id (``None`` if absent or another user's)."""
        return self.ltm.get(user_id, memory_id)

    def count(self, user_id: str) -> int:
        """How many long-term memories ``user_id`` has."""
        return self.ltm.count(user_id)

    def list_memories(self, user_id: str, *, limit: int = 100) -> list[Memory]:
        """Memories of ``user_id`` in the order they were first written."""
        return self.ltm.list_memories(user_id, limit=limit)

    def as_vectorstore(self, user_id: str, **kwargs: Any) -> PraxMemoryVectorStore:
        """``user_id``'s long-term memory as a LangChain ``VectorStore`` (``as_retriever()``).

        See :class:`~langgraph_prax_memory.vectorstore.PraxMemoryVectorStore`.
        """
        from langgraph_prax_memory.vectorstore import PraxMemoryVectorStore

        return PraxMemoryVectorStore(self.ltm, user_id, **kwargs)

    def recall(
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
        """The best ``k`` memories of ``user_id`` for ``query``, best first.

        The query's intent sets the arm weights; the dense, sparse and graph-neighbourhood arms
        run concurrently, each returning its top ``max(20, 2k)``; they are fused (evidence
        fusion by default, weighted RRF as an option) and modulated by bounded recency and
        importance terms (``config.retrieval``; docs/retrieval.md). ``now`` sets the clock
        (replaying an old conversation scores it at its own time). Returned memories are
        reinforced in the background unless ``reinforce=False``.

        Memories whose fact was superseded (``valid_until`` set by consolidation: "I now
        prefer light mode" retires "prefers dark mode") are left out; ``include_history=True``
        brings them back (marked ``valid_until`` / ``superseded_by``), ``as_of=<datetime>``
        recalls what was current at that moment.

        Example:
            >>> hits = memory.recall("alice", "theme?", include_history=True)  # doctest: +SKIP
            >>> [h.memory.superseded_by for h in hits]                        # doctest: +SKIP
            [None, 'light mode']
        """
        return self.recall_detailed(
            user_id,
            query,
            k=k,
            now=now,
            reinforce=reinforce,
            tags=tags,
            include_history=include_history,
            as_of=as_of,
        ).hits

    def recall_detailed(
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
        """Like :meth:`recall`, with diagnostics.

        The result carries the intent, the weights, each arm's candidate count, the arms that
        failed, the time taken and each hit's stored point. ``where`` (advanced; what
        :class:`PraxMemoryStore` uses for any namespace) is a Qdrant filter that replaces the
        long-term-memory scope; it must be pinned to ``user_id`` and runs in the engine on
        every arm, so every door ranks with this one pipeline (the vector store refuses a
        filter that is not pinned). ``include_history`` / ``as_of``: see :meth:`recall`
        (they apply to ``where`` too).
        """
        return self.ltm.recall_detailed(
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

    def standing_facts(
        self, user_id: str, query: str, *, k: int | None = None, now: datetime | None = None
    ) -> list[MemoryHit]:
        """The user's standing facts scored for ``query`` (the profile tier, docs/context.md)."""
        return self.ltm.standing_facts(user_id, query, k=k, now=now)

    def flush(self) -> None:
        """Wait for background reinforcement to finish (tests, shutdown)."""
        self.ltm.flush()

    # -- lifecycle --------------------------------------------------------------------
    def close(self) -> None:
        """Finish background work and release the stores (the embedded folder lock too)."""
        self.parts.close()

    def __enter__(self) -> PraxMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> PraxMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.close)


def __getattr__(name: str) -> Any:
    """``AsyncPraxMemory`` (lives in ``_async_memory.py``), imported on first use."""
    if (module := _REEXPORTED.get(name)) is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(module), name)
    return value
