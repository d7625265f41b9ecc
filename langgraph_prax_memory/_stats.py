"""Per-user statistics across every layer, built only from the public facade."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from langgraph_prax_memory.errors import BackendUnavailable, PraxMemoryError
from langgraph_prax_memory.stm import PENDING_REVIEW_TAG

if TYPE_CHECKING:
    from langgraph_prax_memory.memory import PraxMemory

__all__ = ["UserStats", "collect_stats"]

logger = logging.getLogger(__name__)


class UserStats(BaseModel):
    """Counts of one user's memory in each layer.

    A layer that could not be read has ``None`` counts and its reason in ``errors``.

    Example:
        >>> UserStats(user_id="alice", ltm_available=False).summary()
        'alice: STM 0 entries; notes 0 lines; LTM not available'
    """

    user_id: str
    ltm_available: bool
    memories: int | None = None
    stm_entries: int = 0
    stm_pending_review: int = 0
    notes_lines: int = 0
    notes_chars: int = 0
    entities: int | None = None
    relations: int | None = None
    current_relations: int | None = None
    temporal_events: int | None = None
    causal_links: int | None = None
    errors: dict[str, str] = Field(default_factory=dict)

    def summary(self) -> str:
        """One line for a model or a log."""
        parts = [
            f"STM {self.stm_entries} entries"
            + (f" ({self.stm_pending_review} pending review)" if self.stm_pending_review else ""),
            f"notes {self.notes_lines} lines",
        ]
        if not self.ltm_available:
            parts.append("LTM not available")
        else:
            parts.append(
                "LTM " + (f"{self.memories} memories" if self.memories is not None else "error")
            )
            if self.entities is not None:
                parts.append(
                    f"graph {self.entities} entities, {self.current_relations} current "
                    f"relations ({self.relations} total), {self.temporal_events} events, "
                    f"{self.causal_links} causal links"
                )
            else:
                parts.append("graph error")
        return f"{self.user_id}: " + "; ".join(parts)


def collect_stats(memory: PraxMemory, user_id: str) -> UserStats:
    """Count ``user_id``'s STM entries, notes, memories and graph; never raises for a layer.

    Example:
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir="/tmp/prax-stats"))
        >>> collect_stats(mem, "nobody").memories
        0
    """
    stats: dict[str, Any] = {"user_id": user_id, "ltm_available": memory.available}
    errors: dict[str, str] = {}
    try:
        entries = memory.stm.all(user_id)
        stats["stm_entries"] = len(entries)
        stats["stm_pending_review"] = sum(PENDING_REVIEW_TAG in e.tags for e in entries)
    except PraxMemoryError as exc:
        errors["stm"] = str(exc)
    notes = memory.notes.read(user_id)
    stats["notes_lines"] = sum(1 for line in notes.splitlines() if line.strip())
    stats["notes_chars"] = len(notes)
    if memory.available:
        try:
            stats["memories"] = memory.count(user_id)
        except BackendUnavailable as exc:
            errors["ltm"] = str(exc)
        try:
            graph = memory.graph.stats(user_id)
        except BackendUnavailable as exc:
            errors["graph"] = str(exc)
        else:
            stats.update(
                entities=graph.entities,
                relations=graph.relations,
                current_relations=graph.current_relations,
                temporal_events=graph.temporal_events,
                causal_links=graph.causal_links,
            )
    for layer, why in errors.items():
        logger.warning("stats of %s: %s unavailable: %s", user_id, layer, why)
    return UserStats(**stats, errors=errors)
