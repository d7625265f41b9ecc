"""LangGraph's ``index["embed"]`` as the memory's dense embedder."""

from __future__ import annotations

import asyncio
import concurrent.futures

from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    ensure_embeddings,
)

from langgraph_prax_memory.errors import (
    ConfigError,
)


class _SyncOverAsync(Embeddings):
    """An async-only embedding function (LangGraph accepts one) for the sync pipeline.

    The memory embeds in worker threads; each call runs the coroutine to completion there
    (in a fresh thread when the calling thread already runs an event loop).
    """

    def __init__(self, inner: Embeddings) -> None:
        self.inner = inner

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        def run() -> list[list[float]]:
            return asyncio.run(self.inner.aembed_documents(texts))

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return run()
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(run).result()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return await self.inner.aembed_documents(texts)

    async def aembed_query(self, text: str) -> list[float]:
        return (await self.inner.aembed_documents([text]))[0]


def _embedder(embed: object) -> Embeddings:
    """LangGraph's ``index["embed"]`` (``Embeddings``, function or ``"provider:model"``)."""
    try:
        emb = ensure_embeddings(embed)  # type: ignore[arg-type]
    except Exception as exc:
        raise ConfigError(f"index['embed'] = {embed!r} cannot be used: {exc}") from exc
    if hasattr(emb, "afunc") and getattr(emb, "func", None) is None:  # an async function
        return _SyncOverAsync(emb)
    return emb


def _width(emb: Embeddings) -> int:
    try:
        return len(emb.embed_query("dimension probe"))
    except Exception as exc:
        raise ConfigError(f"index['embed'] failed on a probe text: {exc}") from exc
