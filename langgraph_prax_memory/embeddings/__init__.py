"""Embeddings: dense providers and the sparse term encoder.

Dense: OpenAI, Ollama, fastembed and the offline packaged model.
"""

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
