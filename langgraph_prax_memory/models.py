"""Pydantic records shared by the layers: memories and recall hits.

Graph records (entities, relations, events, causal links) live in
:mod:`langgraph_prax_memory.graph` beside the store that owns them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from langgraph_prax_memory._validation import to_utc

__all__ = ["Memory", "MemoryHit", "SummaryLevel"]

SummaryLevel = Literal["raw", "daily", "weekly", "global"]


class Memory(BaseModel):
    """One long-term memory as stored in Qdrant.

    Attributes:
        id: Point id (uuid5 of namespace and key).
        user_id: The tenant. Every read and write is scoped by it.
        content: The text that was embedded.
        source: Where it came from (``conversation``, ``note``, ``consolidation`` ...).
        importance: 0–1 as stored (decay is evaluated at read time, never written back).
        created_at: When the memory came to be (caller-supplied for imported history).
        last_accessed: Last recall (equals ``created_at`` until the first recall).
        access_count: How often it was recalled.
        dense_pending: Stored with its sparse vector only; ``reembed`` will add the dense one.
        context: What the memory answers (a conversation turn's previous turn): indexed with
            its keywords, not part of its content.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    user_id: str
    content: str
    source: str = "conversation"
    importance: float = 0.5
    created_at: datetime
    last_accessed: datetime
    access_count: int = 0
    tags: list[str] = Field(default_factory=list)
    entity_ids: list[str] = Field(default_factory=list)
    summary_level: str = "raw"
    namespace: tuple[str, ...] = ()
    key: str = ""
    dense_pending: bool = False
    embedding_model: str | None = None
    context: str | None = None

    @classmethod
    def from_payload(cls, point_id: str, payload: dict[str, Any]) -> Memory:
        """Build from a Qdrant payload."""
        created = to_utc(payload.get("created_at") or payload.get("created_ts") or 0)
        return cls(
            id=point_id,
            user_id=payload["user_id"],
            content=payload.get("content", ""),
            source=payload.get("source", "conversation"),
            importance=float(payload.get("importance", 0.5)),
            created_at=created,
            last_accessed=to_utc(payload.get("last_accessed") or created),
            access_count=int(payload.get("access_count", 0)),
            tags=list(payload.get("tags") or []),
            entity_ids=list(payload.get("entity_ids") or []),
            summary_level=payload.get("summary_level", "raw"),
            namespace=tuple(payload.get("ns") or ()),
            key=payload.get("key", ""),
            dense_pending=bool(payload.get("dense_pending", False)),
            embedding_model=payload.get("embedding_model"),
            context=_context(payload),
        )


def _context(payload: dict[str, Any]) -> str | None:
    value = payload.get("value")
    context = value.get("context") if isinstance(value, dict) else None
    return context if isinstance(context, str) and context else None


class MemoryHit(BaseModel):
    """A recalled memory and why it ranked where it did.

    ``score = fused × decay × boost`` where ``fused = Σ weight_arm / (k + rank_arm)`` over the
    arms that found it, ``decay = exp(−λ·days since last access)`` and
    ``boost = 0.5 + importance``.
    """

    model_config = ConfigDict(frozen=True)

    memory: Memory
    score: float
    fused: float
    decay: float
    boost: float
    ranks: dict[str, int] = Field(default_factory=dict)
    """1-based rank per arm (``dense``, ``sparse``, ``graph``) for the arms that found it."""
    weights: dict[str, float] = Field(default_factory=dict)

    def explain(self) -> str:
        """A one-line human explanation of the score."""
        arms = ", ".join(
            f"{arm} #{rank} (w={self.weights.get(arm, 1.0):g})" for arm, rank in self.ranks.items()
        )
        return (
            f"score {self.score:.5f} = fused {self.fused:.5f} [{arms or 'no arm'}] "
            f"× decay {self.decay:.3f} × boost {self.boost:.2f}"
        )
