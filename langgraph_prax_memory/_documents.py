"""Memories as LangChain ``Document`` objects (the retriever and the vector store view)."""

from __future__ import annotations

from langchain_core.documents import Document

from langgraph_prax_memory.models import MemoryHit

__all__ = ["hit_to_document"]


def hit_to_document(hit: MemoryHit) -> Document:
    """A ``Document`` whose metadata explains the hit (ids, time, ranks, score factors)."""
    m = hit.memory
    return Document(
        id=m.id,
        page_content=m.content,
        metadata={
            "id": m.id,
            "user_id": m.user_id,
            "source": m.source,
            "importance": m.importance,
            "created_at": m.created_at.isoformat(),
            "last_accessed": m.last_accessed.isoformat(),
            "access_count": m.access_count,
            "tags": list(m.tags),
            "entity_ids": list(m.entity_ids),
            "score": hit.score,
            "relevant": hit.relevant,
            "rank_score": hit.rank_score,
            "fused": hit.fused,
            "decay": hit.decay,
            "boost": hit.boost,
            "ranks": dict(hit.ranks),
        },
    )
