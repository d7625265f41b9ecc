"""The facade: :class:`PraxMemory` wires configuration → backends → services.

``PraxMemory`` (sync) and ``AsyncPraxMemory`` (async) have the same method names, as httpx's
``Client`` and ``AsyncClient`` do.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TextIO

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from qdrant_client import models

from langgraph_prax_memory._conversation import Turn, conversation_items
from langgraph_prax_memory._progress import ProgressCallback, notify
from langgraph_prax_memory._validation import (
    check_importance,
    check_tags,
    check_text,
    check_unicode,
    check_user_id,
    to_utc,
    utcnow,
)
from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.embeddings import (
    ResilientEmbeddings,
    SparseTFEncoder,
    create_dense_embeddings,
)
from langgraph_prax_memory.errors import (
    BackendUnavailable,
    EmbeddingError,
    MemoryValidationError,
    StoreLockedError,
)
from langgraph_prax_memory.graph import GraphStore, create_graph_store
from langgraph_prax_memory.models import Memory, MemoryHit
from langgraph_prax_memory.notes import UserNotes
from langgraph_prax_memory.retrieval._arms import Recaller
from langgraph_prax_memory.retrieval._recall import (
    RecallResult,
    ltm_filter,
    ltm_namespace,
)
from langgraph_prax_memory.stm import ScratchpadStore
from langgraph_prax_memory.vectors._payload import build_payload, content_hash, keyword_text
from langgraph_prax_memory.vectors._plan import StoredPoint, VectorRecord, decay_victims, point_id
from langgraph_prax_memory.vectors._store import (
    QdrantVectorStore,
    VectorClient,
    open_qdrant_client,
)

if TYPE_CHECKING:
    from langgraph_prax_memory._doctor import Check
    from langgraph_prax_memory._forget import ForgetReceipt
    from langgraph_prax_memory._portable import ExportSummary, ImportReceipt
    from langgraph_prax_memory._stats import UserStats
    from langgraph_prax_memory.consolidation import (
        ConsolidationResult,
        Consolidator,
        TraceSource,
    )
    from langgraph_prax_memory.knowledge import AsyncKnowledgeBase, KnowledgeBase
    from langgraph_prax_memory.vectorstore import PraxMemoryVectorStore

__all__ = ["AsyncPraxMemory", "PraxMemory"]

logger = logging.getLogger(__name__)
_UPSERT_CHUNK = 256
_MAX_K = 1000


@dataclass(frozen=True)
class _Prepared:
    """A validated memory ready to embed."""

    key: str
    text: str
    value: dict[str, Any]
    explicit_key: bool
    index_text: str


def _prepare(user_id: str, item: Mapping[str, Any] | str, max_chars: int) -> _Prepared:
    if isinstance(item, str):
        item = {"content": item}
    if not isinstance(item, Mapping):
        raise MemoryValidationError(
            "each memory must be a string or a mapping with at least 'content'"
        )
    unknown = set(item) - {
        "content",
        "importance",
        "tags",
        "source",
        "created_at",
        "entity_ids",
        "key",
        "summary_level",
        "context",
    }
    if unknown:
        raise MemoryValidationError(f"unknown memory field(s): {sorted(unknown)}")
    text = check_text(item.get("content"), max_chars=max_chars)
    explicit = item.get("key") is not None
    key = item.get("key") if explicit else uuid.uuid4().hex
    if not isinstance(key, str) or not key.strip():
        raise MemoryValidationError("key must be a non-empty string")
    check_unicode(key, what="key")
    source = item.get("source") or "conversation"
    if isinstance(source, str):
        check_unicode(source, what="source")
    value: dict[str, Any] = {
        "content": text,
        "importance": check_importance(item.get("importance", 0.5)),
        "tags": check_tags(item.get("tags")),
        "source": source,
    }
    if item.get("created_at") is not None:
        value["created_at"] = to_utc(item["created_at"], what="created_at").isoformat()
    if item.get("entity_ids"):
        value["entity_ids"] = list(item["entity_ids"])
    if item.get("summary_level"):
        value["summary_level"] = item["summary_level"]
    if item.get("context") is not None:
        value["context"] = check_text(item["context"], max_chars=max_chars, what="context")
    index_text = keyword_text(text, value.get("context"))
    return _Prepared(key=key, text=text, value=value, explicit_key=explicit, index_text=index_text)


class _Core:
    """State and pure helpers shared by the sync and async facades."""

    def __init__(
        self,
        config: MemoryConfig | None,
        *,
        embeddings: Embeddings | None,
        embedding_dimension: int | None,
        qdrant_client: VectorClient | None,
    ) -> None:
        self.config = config or MemoryConfig()
        self.sparse = SparseTFEncoder(self.config.sparse_scheme, stem=self.config.sparse_stem)
        self.dense: ResilientEmbeddings = create_dense_embeddings(
            self.config, primary=embeddings, dimension=embedding_dimension
        )
        self.enabled = self.config.enabled
        self.vectors: QdrantVectorStore | None = None
        self._opening = threading.Lock()
        if self.enabled:
            try:
                self._open(qdrant_client)
            except StoreLockedError as exc:
                # Another process holds the embedded folder: the scratchpad, the notes, the
                # graph and doctor still work here; long-term calls retry the folder and
                # raise this error (naming the holder) while it is held.
                logger.warning("long-term memory unavailable for now: %s", exc)

    def _open(self, client: VectorClient | None = None) -> QdrantVectorStore:
        with self._opening:
            if self.vectors is None:
                self.vectors = QdrantVectorStore(
                    client or open_qdrant_client(self.config),
                    collection=self.config.collection_name,
                    dimension=self.dense.dimension,
                    breaker_failures=self.config.breaker_failures,
                    breaker_cooldown=self.config.breaker_cooldown,
                )
            return self.vectors

    def store(self) -> QdrantVectorStore:
        if not self.enabled:
            raise BackendUnavailable("Memory system not available: MEMORY_ENABLED is false")
        return self.vectors if self.vectors is not None else self._open()

    def records(
        self,
        user_id: str,
        prepared: Sequence[_Prepared],
        dense: list[list[float]] | None,
        previous: Mapping[str, StoredPoint],
        now: datetime,
    ) -> list[VectorRecord]:
        ns = ltm_namespace(user_id)
        sparse = self.sparse.embed_documents([p.index_text for p in prepared])
        out = []
        for i, p in enumerate(prepared):
            pid = point_id(ns, p.key)
            prev = previous.get(pid)
            payload = build_payload(
                user_id=user_id,
                namespace=ns,
                key=p.key,
                value=p.value,
                text=p.text,
                now=now,
                previous=prev.payload if prev else None,
                embedding_model=self.dense.last_model if dense is not None else None,
                dense_pending=dense is None,
            )
            out.append(VectorRecord(pid, payload, dense[i] if dense else None, sparse[i]))
        return out

    @staticmethod
    def dedupe_filter(user_id: str, hashes: Sequence[str]) -> models.Filter:
        return ltm_filter(user_id, hashes=hashes)

    @staticmethod
    def check_query(user_id: str, query: object, k: int) -> str:
        check_user_id(user_id)
        text = check_text(query, max_chars=10_000, what="query")
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= _MAX_K:
            raise MemoryValidationError(f"k must be an integer between 1 and {_MAX_K}")
        return text


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
        self._graph = graph
        self._chat_model = chat_model
        self._checkpointer = checkpointer
        self._consolidator: Consolidator | None = None
        self._knowledge: KnowledgeBase | None = None
        self._use_graph_arm = graph_arm
        self._recaller_obj: Recaller | None = None
        # guards the parts built on first use: two threads (two users consolidating at once)
        # must not each open the graph file or build a second pipeline
        self._lazy = threading.RLock()
        self._core = _Core(
            config,
            embeddings=embeddings,
            embedding_dimension=embedding_dimension,
            qdrant_client=qdrant_client,
        )
        self.config = self._core.config
        routing = self.config.model_routing
        self._expansion_model = expansion_model or routing.resolve("query_expansion")
        self._rerank_model = rerank_model or routing.resolve("rerank")
        self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prax-reinforce")
        #: The per-user scratchpad (works without Qdrant).
        self.stm = ScratchpadStore(self.config, chat_model=routing.resolve("stm_compaction"))
        #: The per-user ``user_notes.md``; items compaction drops are promoted into LTM.
        self.notes = UserNotes(self.config, remember=self._promote_note)
        self._resumed_deletions: dict[str, ForgetReceipt] = {}
        self._resume_deletions()

    def _resume_deletions(self) -> None:
        """Finish the user deletions an outage interrupted (their markers under ``data_dir``)."""
        from langgraph_prax_memory._forget import PENDING_DIR, resume_pending

        if (self.config.data_dir / PENDING_DIR).is_dir():
            self._resumed_deletions = resume_pending(self)

    def _promote_note(
        self, user_id: str, content: str, /, *, importance: float, tags: list[str], source: str
    ) -> str:
        return self.remember(user_id, content, importance=importance, tags=tags, source=source)

    # -- properties -------------------------------------------------------------------
    @property
    def available(self) -> bool:
        """Whether long-term memory is enabled (``MEMORY_ENABLED``)."""
        return self._core.enabled

    @property
    def graph(self) -> GraphStore:
        """The knowledge graph (SQLite under ``data_dir`` by default, Neo4j with ``NEO4J_URI``).

        Built on first use; a Neo4j server that is down surfaces as ``BackendUnavailable``
        from graph calls, never from building the memory.
        """
        with self._lazy:
            if self._graph is None:
                self._graph = create_graph_store(self.config)
            return self._graph

    @property
    def vectors(self) -> QdrantVectorStore:
        """The vector store (raises :class:`BackendUnavailable` when LTM is disabled)."""
        return self._core.store()

    @property
    def embeddings(self) -> ResilientEmbeddings:
        """The dense embedder (with its cache and fallbacks)."""
        return self._core.dense

    @property
    def sparse_encoder(self) -> SparseTFEncoder:
        """The sparse term encoder."""
        return self._core.sparse

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
        if isinstance(items, str):
            raise MemoryValidationError("items must be a list of memories, not one string")
        check_user_id(user_id)
        store = self._core.store()
        prepared = [_prepare(user_id, it, self.config.max_content_chars) for it in items]
        if not prepared:
            return []
        ids, todo, alias = self._dedupe(user_id, prepared, store)
        if todo:
            try:
                dense: list[list[float]] | None = self._core.dense.embed_documents(
                    [p.text for _, p in todo]
                )
            except EmbeddingError as exc:
                logger.warning("storing %d memories without dense vectors: %s", len(todo), exc)
                dense = None
            ns = ltm_namespace(user_id)
            previous = {
                p.id: p
                for p in store.retrieve(user_id, [point_id(ns, prep.key) for _, prep in todo])
            }
            records = self._core.records(user_id, [p for _, p in todo], dense, previous, utcnow())
            for start in range(0, len(records), _UPSERT_CHUNK):
                store.upsert(user_id, records[start : start + _UPSERT_CHUNK])
            for (slot, _), rec in zip(todo, records, strict=True):
                ids[slot] = rec.id
        for slot, first in alias.items():
            ids[slot] = ids[first]
        return [i for i in ids if i is not None]

    def _dedupe(
        self, user_id: str, prepared: list[_Prepared], store: QdrantVectorStore
    ) -> tuple[list[str | None], list[tuple[int, _Prepared]], dict[int, int]]:
        """Split items into already-stored (by content hash), in-batch repeats, and new.

        The hash covers a memory's context too: the same words answering another question
        are another memory.
        """
        hashes = [content_hash(user_id, p.index_text) for p in prepared]
        existing: dict[str, str] = {}
        for point in store.scroll(
            user_id, flt=_Core.dedupe_filter(user_id, sorted(set(hashes))), limit=len(hashes) * 4
        ):
            existing.setdefault(point.payload["content_hash"], point.id)
        ids: list[str | None] = [None] * len(prepared)
        todo: list[tuple[int, _Prepared]] = []
        first: dict[str, int] = {}
        alias: dict[int, int] = {}
        for i, (p, h) in enumerate(zip(prepared, hashes, strict=True)):
            if p.explicit_key:
                todo.append((i, p))
            elif h in existing:
                ids[i] = existing[h]
            elif h in first:
                alias[i] = first[h]
            else:
                first[h] = i
                todo.append((i, p))
        return ids, todo, alias

    def forget(self, user_id: str, memory_id: str) -> bool:
        """Delete one memory of ``user_id``; ``False`` when it does not exist (for this user)."""
        check_user_id(user_id)
        if not isinstance(memory_id, str) or not memory_id.strip():
            raise MemoryValidationError("memory_id must be a non-empty string")
        try:
            uuid.UUID(memory_id)
        except ValueError:
            return False
        return self._core.store().delete(user_id, [memory_id]) > 0

    def delete_user(self, user_id: str) -> dict[str, int]:
        """Delete everything of ``user_id`` except their notes; returns counts.

        Memories, knowledge (concepts and their vectors), graph, scratchpad, consolidation
        state, ``trace.log`` and the OKF bundles under ``data_dir/okf`` go, backends first
        and local files last. Nothing of any other user is touched. The user's notes stay
        in their git workspace (``forget_user`` / ``prax-memory forget-user`` removes them
        too, and can compact the stores so no deleted byte stays on disk).

        Raises:
            MemoryValidationError: ``user_id`` is invalid; nothing was deleted.
            DeletionIncomplete: A backend failed part-way; the error says what is left,
                and the deletion resumes on the next call or when a memory is next opened
                on this data directory.
        """
        from langgraph_prax_memory._forget import forget

        return forget(self, user_id, keep_notes=True).removed

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

        return compact_stores(self)

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
        check_user_id(user_id)
        store = self._core.store()
        if progress is None:
            return store.decay_memories(
                user_id, halflife_days=self.config.decay_halflife_days, now=now, dry_run=dry_run
            )
        notify(progress, 0, None, "scanned")
        points = store.iter_points(user_id)
        notify(progress, len(points), len(points), "scanned")
        victims = decay_victims(points, now or utcnow(), self.config.decay_halflife_days)
        if dry_run:
            return victims
        for start in range(0, len(victims), _UPSERT_CHUNK):
            store.delete(user_id, victims[start : start + _UPSERT_CHUNK])
            notify(progress, min(start + _UPSERT_CHUNK, len(victims)), len(victims), "pruned")
        return victims

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
        check_user_id(user_id)
        store = self._core.store()
        todo = [
            p
            for p in store.iter_points(user_id)
            if force
            or p.payload.get("dense_pending")
            or p.payload.get("embedding_model") not in (None, self._core.dense.model_name)
        ]
        done = 0
        notify(progress, 0, len(todo), "memories")
        for start in range(0, len(todo), _UPSERT_CHUNK):
            chunk = todo[start : start + _UPSERT_CHUNK]
            try:
                vectors = self._core.dense.embed_primary(
                    [str(p.payload.get("content", "")) for p in chunk]
                )
            except EmbeddingError as exc:
                raise EmbeddingError(
                    f"reembed for {user_id!r} stopped after {done} of {len(todo)} memories: "
                    f"{exc}. The others keep their sparse vectors and stay marked for reembed."
                ) from exc
            store.set_dense(
                user_id,
                {p.id: v for p, v in zip(chunk, vectors, strict=True)},
                self._core.dense.model_name,
            )
            done += len(chunk)
            notify(progress, done, len(todo), "memories")
        return done

    # -- consolidation and knowledge ------------------------------------------------------
    @property
    def consolidator(self) -> Consolidator:
        """The consolidation pipeline of this memory (built on first use)."""
        with self._lazy:
            if self._consolidator is None:
                from langgraph_prax_memory.consolidation import Consolidator

                model = self._chat_model or self.config.model_routing.resolve("consolidation")
                self._consolidator = Consolidator(
                    self, chat_model=model, checkpointer=self._checkpointer
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

                self._knowledge = KnowledgeBase(self)
            return self._knowledge

    # -- maintenance --------------------------------------------------------------------
    def stats(self, user_id: str) -> UserStats:
        """Counts across the layers for ``user_id`` (memories, graph, scratchpad, notes)."""
        from langgraph_prax_memory._stats import collect_stats

        return collect_stats(self, user_id)

    def export_user(
        self, user_id: str, out: TextIO, *, progress: ProgressCallback | None = None
    ) -> ExportSummary:
        """Write one user's memories, graph and notes as portable JSONL (versioned header).

        ``progress(done, total, label)`` follows the records read and written.
        """
        from langgraph_prax_memory._portable import export_user

        return export_user(self, user_id, out, progress=progress)

    def import_user(
        self,
        lines: Iterable[str],
        *,
        user_id: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> ImportReceipt:
        """Import an :meth:`export_user` file (into ``user_id``, default its own user).

        Importing the same file twice changes nothing. ``progress(done, total, "records")``
        follows the records imported.
        """
        from langgraph_prax_memory._portable import import_user

        return import_user(self, lines, user_id=user_id, progress=progress)

    def doctor(self) -> list[Check]:
        """Check each configured backend and report what works."""
        from langgraph_prax_memory._doctor import run_checks

        return run_checks(self)

    # -- reads ------------------------------------------------------------------------
    def get(self, user_id: str, memory_id: str) -> Memory | None:
        """One memory of ``user_id`` by id (``None`` if absent or another user's)."""
        check_user_id(user_id)
        try:
            uuid.UUID(memory_id)
        except (ValueError, TypeError, AttributeError):
            return None
        found = self._core.store().retrieve(user_id, [memory_id])
        return Memory.from_payload(found[0].id, found[0].payload) if found else None

    def count(self, user_id: str) -> int:
        """How many long-term memories ``user_id`` has."""
        check_user_id(user_id)
        return self._core.store().count(user_id, ltm_filter(user_id))

    def list_memories(self, user_id: str, *, limit: int = 100) -> list[Memory]:
        """Memories of ``user_id`` in the order they were first written."""
        check_user_id(user_id)
        points = self._core.store().scroll(
            user_id, flt=ltm_filter(user_id), limit=limit, order_by="seq"
        )
        return [Memory.from_payload(p.id, p.payload) for p in points]

    def as_vectorstore(self, user_id: str, **kwargs: Any) -> PraxMemoryVectorStore:
        """``user_id``'s long-term memory as a LangChain ``VectorStore`` (``as_retriever()``).

        See :class:`~langgraph_prax_memory.vectorstore.PraxMemoryVectorStore`.
        """
        from langgraph_prax_memory.vectorstore import PraxMemoryVectorStore

        return PraxMemoryVectorStore(self, user_id, **kwargs)

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
        run concurrently, each returning its top ``max(20, 2k)``; they are fused by weighted
        RRF, then weighed by recency (days since last access; ``config.retrieval.decay_mode``,
        see docs/retrieval.md) and by ``0.5 + importance``. ``now`` sets the clock (replaying
        an old conversation scores it at its own time). Returned memories are reinforced in the
        background unless ``reinforce=False``.

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
        text = _Core.check_query(user_id, query, k)
        when = to_utc(now) if now is not None else utcnow()
        if include_history and as_of is not None:
            raise MemoryValidationError("give include_history or as_of, not both")
        moment = to_utc(as_of, what="as_of") if as_of is not None else None
        result = self._recaller().recall(
            user_id,
            text,
            k=k,
            now=when,
            tags=tags,
            flt=where,
            include_history=include_history,
            as_of=moment,
        )
        if reinforce and result.hits:
            self._background.submit(
                self._reinforce, user_id, [h.memory.id for h in result.hits], when
            )
        return result

    def _recaller(self) -> Recaller:
        with self._lazy:
            if self._recaller_obj is None:
                self._recaller_obj = Recaller(
                    self._core.store(),
                    self._core.dense,
                    self._core.sparse,
                    (lambda: self.graph) if self._use_graph_arm else None,
                    self.config.retrieval,
                    halflife_days=self.config.decay_halflife_days,
                    expansion_model=self._expansion_model,
                    rerank_model=self._rerank_model,
                )
            return self._recaller_obj

    def _reinforce(self, user_id: str, ids: list[str], now: datetime) -> None:
        try:
            self._core.store().reinforce(user_id, ids, now=now)
        except Exception as exc:  # best effort: a failed reinforcement never fails a recall
            logger.warning("reinforcement of %d memories failed: %s", len(ids), exc)

    def flush(self) -> None:
        """Wait for background reinforcement to finish (tests, shutdown)."""
        self._background.submit(lambda: None).result()

    # -- lifecycle --------------------------------------------------------------------
    def close(self) -> None:
        """Finish background work and release the stores (the embedded folder lock too)."""
        self._background.shutdown(wait=True)
        if self._recaller_obj is not None:
            self._recaller_obj.close()
        if self._core.vectors is not None:
            self._core.vectors.close()
        if self._graph is not None:
            self._graph.close()

    def __enter__(self) -> PraxMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> PraxMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.close)


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
    ) -> None:
        self.sync = PraxMemory(
            config,
            embeddings=embeddings,
            embedding_dimension=embedding_dimension,
            qdrant_client=qdrant_client,
        )
        self.config = self.sync.config

    @property
    def available(self) -> bool:
        """Whether long-term memory is enabled."""
        return self.sync.available

    async def remember(self, user_id: str, content: str, **kwargs: Any) -> str:
        """Store one memory (see :meth:`PraxMemory.remember`)."""
        ids = await self.remember_many(user_id, [{"content": content, **kwargs}])
        return ids[0]

    async def remember_conversation(
        self, user_id: str, turns: Sequence[Turn], **kwargs: Any
    ) -> list[str]:
        """Store a conversation's turns (see :meth:`PraxMemory.remember_conversation`)."""
        return await asyncio.to_thread(self.sync.remember_conversation, user_id, turns, **kwargs)

    async def remember_many(
        self, user_id: str, items: Sequence[Mapping[str, Any] | str]
    ) -> list[str]:
        """Store several memories (see :meth:`PraxMemory.remember_many`)."""
        return await asyncio.to_thread(self.sync.remember_many, user_id, items)

    async def recall(self, user_id: str, query: str, **kwargs: Any) -> list[MemoryHit]:
        """Recall (see :meth:`PraxMemory.recall`); reinforcement runs after returning."""
        return (await self.recall_detailed(user_id, query, **kwargs)).hits

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

    async def decay(self, user_id: str, **kwargs: Any) -> list[str]:
        """The forgetting pass."""
        return await asyncio.to_thread(self.sync.decay, user_id, **kwargs)

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
        lines: Iterable[str],
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
