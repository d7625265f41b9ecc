"""The async face of the vector store (local mode: shared sync store in a worker thread)."""

from __future__ import annotations

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.vectors import AsyncQdrantVectorStore


async def test_async_vector_store_same_methods(memory: PraxMemory) -> None:
    mid = memory.remember("alice", "Alice drinks green tea")
    store = AsyncQdrantVectorStore.from_config(memory.config, memory.vectors)
    assert await store.count("alice") == 1
    assert [p.id for p in await store.retrieve("alice", [mid])] == [mid]
    assert await store.retrieve("bob", [mid]) == []
    hits = await store.search_sparse(
        "alice", memory.sparse_encoder.embed_query("green tea"), limit=3
    )
    assert [p.id for p in hits] == [mid]
    dense = memory.embeddings.embed_query("tea")
    fused = await store.search_hybrid(
        "alice", dense, memory.sparse_encoder.embed_query("tea"), limit=3
    )
    assert [p.id for p in fused] == [mid]
    await store.reinforce("alice", [mid])
    got = memory.get("alice", mid)
    assert got is not None and got.access_count == 1
    assert await store.delete("bob", [mid]) == 0
    assert await store.delete("alice", [mid]) == 1
    await store.close()


def test_server_url_builds_a_native_async_client(config: MemoryConfig) -> None:
    from qdrant_client import QdrantClient

    from langgraph_prax_memory.vectors import QdrantVectorStore

    server = config.model_copy(update={"qdrant_url": "http://127.0.0.1:6333"})
    sync = QdrantVectorStore(QdrantClient(":memory:"), dimension=384)
    store = AsyncQdrantVectorStore.from_config(server, sync)
    assert type(store._client).__name__ == "AsyncQdrantClient"
