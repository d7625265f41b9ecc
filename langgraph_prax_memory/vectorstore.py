"""``PraxMemoryVectorStore``: one user's long-term memory as a LangChain ``VectorStore``.

Chains written for a vector store (``langchain_qdrant.QdrantVectorStore``, ``InMemoryVectorStore``)
call ``add_texts`` / ``add_documents``, ``similarity_search[_with_score]``, ``get_by_ids``,
``delete`` and ``as_retriever()``. This view offers that surface over the long-term memory, bound
to one user: writes go through :meth:`PraxMemory.remember_many` (validation, deduplication,
dense + sparse vectors) and searches through :meth:`PraxMemory.recall` (the hybrid ranking,
decay and importance), so a chain composed over the view ranks exactly as the agent's memory
does and can never read or write another user's memories.

Why not ``langchain_qdrant.QdrantVectorStore`` over the memory collection: it would bypass
the tenant pin (its searches take any filter, or none), write payloads in its own layout
(``page_content`` / ``metadata``) that the rest of the memory does not read, and needs a
``QdrantClient`` where the embedded default engine is qdrant-edge. See docs/dependencies.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import VectorStore

from langgraph_prax_memory._documents import hit_to_document
from langgraph_prax_memory._validation import check_user_id
from langgraph_prax_memory.errors import ConfigError, MemoryValidationError
from langgraph_prax_memory.ltm import LongTermMemory

__all__ = ["PraxMemoryVectorStore"]

_ITEM_KEYS = ("importance", "tags", "source", "created_at", "context")


class HasLongTermMemory(Protocol):
    """A facade that carries a long-term memory (``PraxMemory``, ``AsyncPraxMemory``)."""

    @property
    def ltm(self) -> LongTermMemory:
        """The long-term memory."""
        ...


class PraxMemoryVectorStore(VectorStore):
    """A ``VectorStore`` over one user's long-term memory (``PraxMemory.as_vectorstore``).

    Document metadata on write may carry ``importance``, ``tags``, ``source``,
    ``created_at`` and ``context`` (they become the memory's fields; other keys are ignored);
    the ids returned are the memory ids. Search results are ``Document`` objects with the
    retriever's metadata (id, importance, ranks, fused score, ...); the score of
    :meth:`similarity_search_with_score` and the relevance score of
    ``similarity_search_with_relevance_scores`` are the memory's calibrated relevance in
    ``[0, 1]`` (``MemoryHit.score``: comparable across queries, 0.5 is the relevance floor),
    so ``as_retriever(search_type="similarity_score_threshold",
    search_kwargs={"score_threshold": 0.5})`` keeps what the context block would.

    Args:
        memory: The memory.
        user_id: The one user this view reads and writes.
        source: ``source`` of memories written without one.
        reinforce: Whether searches strengthen what they return (as recall does).

    Example:
        >>> import tempfile
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir=tempfile.mkdtemp()))
        >>> store = mem.as_vectorstore("alice")
        >>> _ = store.add_texts(["Alice drinks green tea"])
        >>> store.similarity_search("What does Alice drink?", k=1)[0].page_content
        'Alice drinks green tea'
    """

    def __init__(
        self,
        memory: LongTermMemory | HasLongTermMemory,
        user_id: str,
        *,
        source: str = "vectorstore",
        reinforce: bool = True,
    ) -> None:
        ltm = memory if isinstance(memory, LongTermMemory) else getattr(memory, "ltm", None)
        if not isinstance(ltm, LongTermMemory):
            raise ConfigError(
                f"PraxMemoryVectorStore needs a PraxMemory, got {type(memory).__name__}"
            )
        #: The long-term memory this view reads and writes.
        self.memory = ltm
        self.user_id = check_user_id(user_id)
        self.source = source
        self.reinforce = reinforce

    @property
    def embeddings(self) -> Embeddings:
        """The memory's dense embedder (with its cache and fallbacks)."""
        return self.memory.embeddings

    # -- writes ---------------------------------------------------------------------------
    def add_texts(
        self,
        texts: Iterable[str],
        metadatas: list[dict[str, Any]] | None = None,
        *,
        ids: list[str] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        """Remember each text (validated first: a bad one stores nothing); the memory ids.

        ``ids`` become the memories' keys, so adding the same id again replaces it.
        """
        items = list(texts)
        metas = list(metadatas) if metadatas is not None else [{} for _ in items]
        keys = list(ids) if ids is not None else [None] * len(items)
        if len(metas) != len(items) or len(keys) != len(items):
            raise MemoryValidationError("texts, metadatas and ids must have the same length")
        batch: list[dict[str, Any]] = []
        for text, meta, key in zip(items, metas, keys, strict=True):
            item: dict[str, Any] = {"content": text, "source": self.source}
            item.update({k: meta[k] for k in _ITEM_KEYS if meta and meta.get(k) is not None})
            if key is not None:
                item["key"] = str(key)
            batch.append(item)
        return self.memory.remember_many(self.user_id, batch)

    def add_documents(self, documents: list[Document], **kwargs: Any) -> list[str]:
        """Remember each document's text with its metadata (see :meth:`add_texts`)."""
        ids = kwargs.pop("ids", None)
        if ids is None and any(d.id for d in documents):
            ids = [d.id for d in documents]
        return self.add_texts(
            [d.page_content for d in documents],
            [dict(d.metadata) for d in documents],
            ids=ids,
            **kwargs,
        )

    def delete(self, ids: list[str] | None = None, **kwargs: Any) -> bool | None:
        """Forget these memories of the user; ``True`` when every one existed."""
        if ids is None:
            raise MemoryValidationError(
                "delete needs ids; delete a user's whole memory with PraxMemory.delete_user"
            )
        return all([self.memory.forget(self.user_id, i) for i in ids])

    # -- reads ----------------------------------------------------------------------------
    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        """The user's memories with these ids (missing ones and other users' are left out)."""
        docs = []
        for memory_id in ids:
            found = self.memory.get(self.user_id, memory_id)
            if found is not None:
                docs.append(
                    Document(
                        id=found.id,
                        page_content=found.content,
                        metadata={
                            "id": found.id,
                            "user_id": found.user_id,
                            "source": found.source,
                            "importance": found.importance,
                            "tags": list(found.tags),
                            "created_at": found.created_at.isoformat(),
                        },
                    )
                )
        return docs

    def similarity_search_with_score(
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        """The ``k`` best memories for ``query`` with their ranking scores, best first.

        ``tags=`` keeps memories with all of these tags; ``now=`` scores at that moment.
        """
        hits = self.memory.recall(
            self.user_id,
            query,
            k=k,
            now=kwargs.get("now"),
            reinforce=kwargs.get("reinforce", self.reinforce),
            tags=kwargs.get("tags"),
        )
        return [(hit_to_document(h), h.score) for h in hits]

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        """The ``k`` best memories for ``query`` (see :meth:`similarity_search_with_score`)."""
        return [doc for doc, _ in self.similarity_search_with_score(query, k, **kwargs)]

    def _similarity_search_with_relevance_scores(
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        hits = self.memory.recall(
            self.user_id,
            query,
            k=k,
            now=kwargs.get("now"),
            reinforce=kwargs.get("reinforce", self.reinforce),
            tags=kwargs.get("tags"),
        )
        return [(hit_to_document(h), h.score) for h in hits]

    @classmethod
    def from_texts(
        cls,
        texts: list[str],
        embedding: Embeddings,
        metadatas: list[dict[str, Any]] | None = None,
        *,
        ids: list[str] | None = None,
        **kwargs: Any,
    ) -> PraxMemoryVectorStore:
        """Build over ``memory=`` for ``user_id=`` and add ``texts``.

        ``embedding`` is not used: the memory embeds with its own model (one model per
        collection). Pass ``memory=`` and ``user_id=`` as keyword arguments.
        """
        memory = kwargs.pop("memory", None)
        user_id = kwargs.pop("user_id", None)
        if memory is None or user_id is None:
            raise ConfigError("PraxMemoryVectorStore.from_texts needs memory= and user_id=")
        store = cls(memory, user_id, **kwargs)
        store.add_texts(texts, metadatas, ids=ids)
        return store
