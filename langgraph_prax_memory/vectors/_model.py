"""One embedding model per collection: what a collection records of its model, and the error.

A collection's metadata holds ``{"name", "dimension", "fingerprint"}`` of the model its dense
vectors came from (:class:`~langgraph_prax_memory.vectors.QdrantVectorStore` writes it when it
creates the collection and checks it when it opens one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["MODEL_KEY", "label", "model_mismatch", "same_model"]

#: Metadata key of the embedding model a collection was built with.
MODEL_KEY = "prax_embedding_model"


def same_model(stored: Mapping[str, Any], current: Mapping[str, Any]) -> bool:
    """Whether two records name the same model (name, width and weights)."""
    return all(stored.get(k) == current.get(k) for k in ("name", "dimension", "fingerprint"))


def label(stamp: Mapping[str, Any]) -> str:
    """``name (384-d, weights …)``."""
    parts = [str(stamp.get("name", "?"))]
    if stamp.get("dimension"):
        parts.append(f"{stamp['dimension']}-d")
    if stamp.get("fingerprint"):
        parts.append(f"weights {stamp['fingerprint']}")
    return f"{parts[0]} ({', '.join(parts[1:])})" if len(parts) > 1 else parts[0]


def model_mismatch(collection: str, stored: Mapping[str, Any], current: Mapping[str, Any]) -> str:
    """The error message when a collection is opened with another embedding model."""
    return (
        f"collection '{collection}' holds vectors of embedding model {label(stored)}, but this "
        f"memory embeds with {label(current)}: vectors of two models are not comparable, so "
        f"they are never mixed. Set EMBEDDING_MODEL (and EMBEDDING_PROVIDER) back to "
        f"{stored.get('name')!s}, or re-embed every memory of the collection with the new "
        "model: `prax-memory reembed --model-change` (in Python: migrate_embeddings(memory) "
        "from langgraph_prax_memory.migration). A model of another width needs a new "
        "MEMORY_COLLECTION (export, then import)."
    )
