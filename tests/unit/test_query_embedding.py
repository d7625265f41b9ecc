"""Questions are embedded as questions: asymmetric models get their ``embed_query``."""

from __future__ import annotations

from langchain_core.embeddings import Embeddings

from langgraph_prax_memory.embeddings import ResilientEmbeddings


class Asymmetric(Embeddings):
    """e5-style: a question and the same text stored as a passage embed differently."""

    def __init__(self) -> None:
        self.queries = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]

    def embed_query(self, text: str) -> list[float]:
        self.queries += 1
        return [0.0, 1.0]


def test_embed_query_uses_the_models_query_side_and_its_own_cache() -> None:
    model = Asymmetric()
    emb = ResilientEmbeddings(model, dimension=2)
    assert emb.embed_documents(["tea?"]) == [[1.0, 0.0]]
    assert emb.embed_query("tea?") == [0.0, 1.0]  # not the cached document vector
    assert emb.embed_query("tea?") == [0.0, 1.0] and model.queries == 1  # cached
    assert emb.embed_documents(["tea?"]) == [[1.0, 0.0]]


async def test_the_async_face_too() -> None:
    emb = ResilientEmbeddings(Asymmetric(), dimension=2)
    assert await emb.aembed_query("tea?") == [0.0, 1.0]
