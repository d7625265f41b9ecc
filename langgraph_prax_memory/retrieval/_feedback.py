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

from langgraph_prax_memory.vectors import keyword_text

__all__ = ["MAX_FEEDBACK_TERMS", "expand_sparse", "indexed_text"]

#: At most this many feedback terms join the query (those with the most weight across the
#: feedback documents), so a few long memories cannot turn the query into thousands of terms.
MAX_FEEDBACK_TERMS = 256


def indexed_text(payload: Mapping[str, Any]) -> str:
    """The text a stored memory's sparse vector was built from (see ``keyword_text``).

    Example:
        >>> indexed_text({"content": "Yes!", "value": {"context": "Bob: Tea?"}}).splitlines()
        ['Bob: Tea?', 'Yes!']
    """
    value = payload.get("value")
    context = value.get("context") if isinstance(value, Mapping) else None
    return keyword_text(str(payload.get("content", "")), context)


def expand_sparse(
    query: Any, documents: Sequence[Any], weight: float, *, max_terms: int = MAX_FEEDBACK_TERMS
) -> SparseVector:
    """``query + weight × mean(documents)``, as a sparse vector.

    Args:
        query: The query's sparse vector (``indices``, ``values``).
        documents: Sparse vectors of the feedback documents.
        weight: Weight of the feedback part against the query's own terms.
        max_terms: Most feedback terms added (the heaviest; ties by index). The query's own
            terms always stay.

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
        added: dict[int, float] = {}
        for doc in documents:
            for idx, val in zip(doc.indices, doc.values, strict=True):
                added[idx] = added.get(idx, 0.0) + share * val
        new = sorted((i for i in added if i not in merged), key=lambda i: (-added[i], i))
        keep = set(new[: max(0, max_terms)])
        for idx, val in added.items():
            if idx in merged or idx in keep:
                merged[idx] = merged.get(idx, 0.0) + val
    indices = sorted(merged)
    return SparseVector(indices=indices, values=[merged[i] for i in indices])
