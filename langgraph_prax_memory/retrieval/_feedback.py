"""Pseudo-relevance feedback for the sparse arm: pure functions, no I/O.

The sparse arm runs twice. Its first few hits are taken as relevant, their terms join the query
with a small weight (Rocchio's formula with only the positive part), and the second run ranks
with the expanded query. Qdrant's IDF modifier still weighs every term, so common words that
come in with the feedback documents count for little.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_qdrant import SparseVector

__all__ = ["expand_sparse", "indexed_text"]


def indexed_text(payload: Mapping[str, Any]) -> str:
    """The text a memory's sparse vector was built from: its ``context``, then its content.

    Example:
        >>> indexed_text({"content": "Yes!", "value": {"context": "Bob: Tea?"}}).splitlines()
        ['Bob: Tea?', 'Yes!']
    """
    context = (payload.get("value") or {}).get("context")
    content = str(payload.get("content", ""))
    return f"{context}\n{content}" if context else content


def expand_sparse(query: Any, documents: Sequence[Any], weight: float) -> SparseVector:
    """``query + weight × mean(documents)``, as a sparse vector.

    Args:
        query: The query's sparse vector (``indices``, ``values``).
        documents: Sparse vectors of the feedback documents.
        weight: Weight of the feedback part against the query's own terms.

    Example:
        >>> q = SparseVector(indices=[1], values=[1.0])
        >>> d = SparseVector(indices=[1, 2], values=[1.0, 0.5])
        >>> v = expand_sparse(q, [d], 0.5)
        >>> v.indices, v.values
        ([1, 2], [1.5, 0.25])
    """
    merged: dict[int, float] = dict(zip(query.indices, query.values, strict=True))
    if documents and weight > 0:
        share = weight / len(documents)
        for doc in documents:
            for idx, val in zip(doc.indices, doc.values, strict=True):
                merged[idx] = merged.get(idx, 0.0) + share * val
    indices = sorted(merged)
    return SparseVector(indices=indices, values=[merged[i] for i in indices])
