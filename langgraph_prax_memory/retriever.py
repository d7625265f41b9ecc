"""``PraxMemoryRetriever``: a LangChain retriever over one user's long-term memory."""

from __future__ import annotations

import asyncio
import sys
from datetime import datetime
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableConfig
from pydantic import ConfigDict, Field

from langgraph_prax_memory._documents import hit_to_document
from langgraph_prax_memory._validation import check_user_id
from langgraph_prax_memory.context import reinforce_chosen, select_memories
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.memory import PraxMemory

__all__ = ["PraxMemoryRetriever"]


class PraxMemoryRetriever(BaseRetriever):
    """Recall a user's memories as ``Document`` objects, for LCEL chains and agents.

    The user comes from the constructor or from ``config["configurable"]["user_id"]`` at
    call time (LangGraph's convention); with neither, the call fails — there is no shared
    default user. A retriever bound to a user refuses a run configured for another one.
    ``k`` is set at construction and may be overridden per call.

    The retriever applies the context block's judgement: memories below the relevance floor
    (calibrated score < 0.5, see :class:`~langgraph_prax_memory.MemoryHit`) are left out, so
    an off-topic question puts nothing into a chain's prompt (``relevance_floor=False``
    returns the plain top ``k``; the default follows ``config.retrieval.relevance_floor``).
    ``include_profile=True`` adds the user's standing facts (the context's profile tier)
    after the relevant hits, within ``profile_chars``. Each document's
    ``metadata["score"]`` is the calibrated relevance in [0, 1].

    Example:
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir="/tmp/prax-r"))
        >>> _ = mem.remember("alice", "Alice drinks green tea")
        >>> retriever = PraxMemoryRetriever(memory=mem, k=2)
        >>> docs = retriever.invoke("tea?", {"configurable": {"user_id": "alice"}})
        >>> docs[0].page_content
        'Alice drinks green tea'
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: PraxMemory
    user_id: str | None = None
    k: int = Field(4, ge=1, le=1000)
    now: datetime | None = None
    """Score at this moment instead of the wall clock (replaying history)."""
    reinforce: bool = True
    tags: list[str] | None = None
    relevance_floor: bool | None = None
    """Leave out memories below the relevance floor, as the context block does (``None``:
    ``config.retrieval.relevance_floor``, on by default)."""
    include_profile: bool = False
    """Add the user's standing facts (the context's profile tier) after the relevant hits."""
    profile_chars: int | None = Field(None, ge=0)
    """Budget of the standing facts (``None``: ``config.retrieval.profile_chars``)."""

    def _select(self, user: str, query: str, k: int) -> list[Document]:
        hits = self.memory.recall(user, query, k=k, now=self.now, reinforce=False, tags=self.tags)
        cfg = self.memory.config.retrieval
        budget = cfg.profile_chars if self.profile_chars is None else self.profile_chars
        facts = (
            self.memory.standing_facts(user, query, now=self.now)
            if self.include_profile and budget > 0
            else []
        )
        chosen, profile, _ = select_memories(
            hits,
            facts,
            ltm_chars=sys.maxsize,
            profile_chars=budget,
            importance_weight=cfg.profile_importance_weight,
            floor=cfg.relevance_floor if self.relevance_floor is None else self.relevance_floor,
        )
        if self.reinforce:
            reinforce_chosen(self.memory, user, chosen, profile, self.now)
        return [hit_to_document(h) for h in chosen]

    def _user(self, user_id: str | None) -> str:
        if self.user_id is not None and user_id is not None and user_id != self.user_id:
            # a retriever bound to one user never answers for another (as the tools refuse)
            raise MemoryValidationError(
                f"this PraxMemoryRetriever is bound to user {self.user_id!r} but the run is "
                f"for user {user_id!r}; refusing to mix users' memories"
            )
        user = user_id or self.user_id
        if user is None:
            raise MemoryValidationError(
                "PraxMemoryRetriever needs a user: pass user_id= when building it or "
                'config={"configurable": {"user_id": ...}} when invoking it'
            )
        return check_user_id(user)

    def invoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        """Retrieve; ``k=`` overrides the constructor's, the user may come from ``config``."""
        configurable = (config or {}).get("configurable") or {}
        kwargs.setdefault("user_id", configurable.get("user_id"))
        return super().invoke(input, config, **kwargs)

    async def ainvoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        """Async :meth:`invoke`."""
        configurable = (config or {}).get("configurable") or {}
        kwargs.setdefault("user_id", configurable.get("user_id"))
        return await super().ainvoke(input, config, **kwargs)

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        user_id: str | None = None,
    ) -> list[Document]:
        return self._select(self._user(user_id), query, k or self.k)

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        user_id: str | None = None,
    ) -> list[Document]:
        return await asyncio.to_thread(self._select, self._user(user_id), query, k or self.k)
