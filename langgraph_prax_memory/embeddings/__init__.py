"""Embeddings: dense providers (OpenAI, Ollama, fastembed, the offline packaged model) and the
sparse term encoder."""

from langgraph_prax_memory.embeddings._dense import (
    FastEmbedEmbeddings,
    OllamaEmbeddings,
    PackagedMiniLMEmbeddings,
    ResilientEmbeddings,
    create_dense_embeddings,
)
from langgraph_prax_memory.embeddings._sparse import SparseTFEncoder, tokenize

__all__ = [
    "FastEmbedEmbeddings",
    "OllamaEmbeddings",
    "PackagedMiniLMEmbeddings",
    "ResilientEmbeddings",
    "SparseTFEncoder",
    "create_dense_embeddings",
    "tokenize",
]
