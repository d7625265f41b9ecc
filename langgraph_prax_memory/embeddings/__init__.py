"""Embeddings: dense providers and the sparse term encoder.

Dense: OpenAI, Ollama, and every local model run by fastembed (the packaged MiniLM, models
pulled from Maven with :func:`pull_model`, fastembed's hub models).
"""

from langgraph_prax_memory.embeddings._calibration import (
    CosineCalibration,
    Hubness,
    ScaleKeeper,
    apply_scale,
    collection_scale,
    hubness_of,
    model_stamp,
)
from langgraph_prax_memory.embeddings._catalog import LocalModelSpec, catalog, find_model
from langgraph_prax_memory.embeddings._dense import (
    FastEmbedEmbeddings,
    OllamaEmbeddings,
    PackagedMiniLMEmbeddings,
    ResilientEmbeddings,
    create_dense_embeddings,
)
from langgraph_prax_memory.embeddings._local import LocalEmbeddings, pulled_dir
from langgraph_prax_memory.embeddings._pull import pull_model
from langgraph_prax_memory.embeddings._sparse import SparseTFEncoder, tokenize

__all__ = [
    "CosineCalibration",
    "Hubness",
    "LocalModelSpec",
    "ScaleKeeper",
    "apply_scale",
    "catalog",
    "collection_scale",
    "find_model",
    "hubness_of",
    "model_stamp",
    "pulled_dir",
    "FastEmbedEmbeddings",
    "LocalEmbeddings",
    "OllamaEmbeddings",
    "PackagedMiniLMEmbeddings",
    "ResilientEmbeddings",
    "SparseTFEncoder",
    "create_dense_embeddings",
    "pull_model",
    "tokenize",
]
