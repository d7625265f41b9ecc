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
        valid_until: When the fact it states stopped being current (a superseded preference);
            ``None`` while it is current. Superseded memories leave default recall.
        superseded_by: What replaced it (the new fact's target, e.g. ``"light mode"``).
        fact_class: ``"standing"`` (a preference, identity, relationship, work, health or
            constraint, routine, possession), ``"episode"`` (a dated event, a one-off plan)
            or ``"small_talk"``, given when it was written (docs/context.md, "Memory
            classes"); ``None`` for a memory written before classes existed.
        fact_kind: The finer kind (``"health"``, ``"event"``...).
        fact_by: How the class was reached: ``"text"``, ``"cues"``, ``"grammar"``,
            ``"tags"``, ``"importance"``, ``"date"`` or ``"summary"``.
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
    valid_until: datetime | None = None
    superseded_by: str | None = None
    fact_class: str | None = None
    fact_kind: str | None = None
    fact_by: str | None = None

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
            valid_until=(
                to_utc(payload["valid_until_ts"])
                if payload.get("valid_until_ts") is not None
                else None
            ),
            superseded_by=payload.get("superseded_by"),
            fact_class=payload.get("fact_class"),
            fact_kind=payload.get("fact_kind"),
            fact_by=payload.get("fact_by"),
        )


def _context(payload: dict[str, Any]) -> str | None:
    value = payload.get("value")
    context = value.get("context") if isinstance(value, dict) else None
    return context if isinstance(context, str) and context else None


class MemoryHit(BaseModel):
    """A recalled memory, how relevant it is and why it ranked where it did.

    ``score`` is the memory's *calibrated relevance* in [0, 1], comparable across queries,
    users and tenants: its dense cosine placed on the embedding model's own scale (the
    model's cosine for unrelated texts maps to 0.05, the relevance floor ``min_cosine`` to
    0.5), the floor lowered by keyword coverage or a graph match; made non-increasing in the
    ranked order. A hit is ``relevant`` (context injection keeps it) when its score reaches
    0.5, or when it sits beside a relevant hit with a cosine at the companion bar.

    The *order* comes from the ranker: ``rank_score`` (evidence fusion: ``fused`` relevance
    relative to the query's candidates ``+ boost − recency``; RRF: ``fused × decay ×
    boost``). ``fused`` is the weighted mean of each arm's evidence in [0, 1] (evidence
    fusion) or ``Σ weight_arm / (k + rank_arm)`` (RRF); ``decay`` the recency factor;
    ``boost`` the importance term. ``explain()`` shows both.
    """

    model_config = ConfigDict(frozen=True)

    memory: Memory
    score: float
    """Calibrated relevance in [0, 1] (see the class docstring)."""
    fused: float
    decay: float
    boost: float
    ranks: dict[str, int] = Field(default_factory=dict)
    """1-based rank per arm (``dense``, ``sparse``, ``graph``) for the arms that found it."""
    weights: dict[str, float] = Field(default_factory=dict)
    scores: dict[str, float] = Field(default_factory=dict)
    """Raw score per arm (cosine, TF-IDF, graph proximity); evidence fusion only."""
    evidence: dict[str, float] = Field(default_factory=dict)
    """Evidence in [0, 1] per arm; evidence fusion only."""
    relevant: bool = True
    """Passes the relevance floor (context injection leaves out the others)."""
    why: str = ""
    """How the floor decided (``cosine 0.42 ≥ 0.30``, ``keyword evidence 0.80``, ...)."""
    fusion: str = "rrf"
    """``"evidence"``: ``rank_score = fused + boost − recency``, with ``boost`` the importance
    term and ``recency = recency_weight × (1 − decay)``; ``"rrf"``: ``fused × decay × boost``."""
    recency: float = 0.0
    """Evidence fusion: what recency took from the rank score."""
    rank_score: float | None = None
    """The ranker's score, which orders the hits (``None``: same as ``score``)."""
    relevance: float | None = None
    """The hit's own calibrated relevance before the list was made non-increasing."""
    calibration: str = ""
    """How the relevance was reached (cosine on the model's scale, keyword coverage)."""
    hubness: float = 0.0
    """How far this memory's mean cosine to generic questions sits above the model's
    unrelated level (its pull on every question); the floor and the companion bar read the
    dense cosine less this (0: no correction, e.g. a hand-set ``min_cosine``)."""
    off_subject: str | None = None
    """Set when the memory is about another named person than the one the question asks
    about ("about Noah, the question asks about carol"): no match, held under the floor."""

    def explain(self) -> str:
        """A one-line human explanation of the score, the order and the relevance floor.

        Example:
            >>> from datetime import UTC, datetime
            >>> t = datetime(2026, 1, 1, tzinfo=UTC)
            >>> m = Memory(id="1", user_id="u", content="x", created_at=t, last_accessed=t)
            >>> MemoryHit(memory=m, score=0.9, fused=0.9, decay=1.0, boost=1.0,
            ...           ranks={"dense": 1}, scores={"dense": 0.5}, evidence={"dense": 1.0},
            ...           why="cosine 0.50 ≥ 0.30").explain()
            'score 0.90000 = fused 0.90000 [dense #1 s=0.500 e=1.00 (w=1)] × decay 1.000 × boost 1.00; relevant: cosine 0.50 ≥ 0.30'
        """  # noqa: E501
        parts = []
        for arm, rank in self.ranks.items():
            detail = f"{arm} #{rank}"
            if arm in self.evidence:
                detail += f" s={self.scores.get(arm, 0.0):.3f} e={self.evidence[arm]:.2f}"
            parts.append(f"{detail} (w={self.weights.get(arm, 1.0):g})")
        arms = ", ".join(parts) or "no arm"
        ranked = self.score if self.rank_score is None else self.rank_score
        if self.fusion == "evidence":
            order = (
                f"{ranked:.5f} = evidence {self.fused:.5f} [{arms}] "
                f"{'+' if self.boost >= 0 else '−'} importance {abs(self.boost):.3f} "
                f"− recency {self.recency:.3f} (decay {self.decay:.3f})"
            )
        else:
            order = (
                f"{ranked:.5f} = fused {self.fused:.5f} [{arms}] "
                f"× decay {self.decay:.3f} × boost {self.boost:.2f}"
            )
        if self.rank_score is None:
            text = f"score {order}"
        else:
            own = self.score if self.relevance is None else self.relevance
            lifted = "" if abs(own - self.score) < 5e-4 else f", lifted from {own:.2f} by rank"
            text = f"score {self.score:.2f} ({self.calibration}{lifted}); rank score {order}"
        if self.why:
            text += f"; {'relevant' if self.relevant else 'below the floor'}: {self.why}"
        m = self.memory
        if m.fact_class is not None:
            what = {"standing": "standing fact", "episode": "episode", "small_talk": "small talk"}
            how = {
                "text": "from its text",
                "cues": "from its wording alone",
                "grammar": "a main clause holds now",
                "tags": "by its tags",
                "importance": "by its importance",
                "summary": "a summary",
                "date": "it names a day",
            }
            detail = ", ".join(x for x in (m.fact_kind, how.get(m.fact_by or "", "")) if x)
            text += f"; {what.get(m.fact_class, m.fact_class)}" + (f" ({detail})" if detail else "")
        return text
