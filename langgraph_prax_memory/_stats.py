"""Per-user statistics across every layer, built only from the public facade."""

from __future__ import annotations

import logging
import re
from collections import Counter
from typing import Any

from pydantic import BaseModel, Field

from langgraph_prax_memory._parts import HasParts, MemoryParts, parts_of
from langgraph_prax_memory.errors import BackendUnavailable, PraxMemoryError
from langgraph_prax_memory.stm import PENDING_REVIEW_TAG

__all__ = ["HygieneReport", "UserStats", "collect_stats"]

logger = logging.getLogger(__name__)


#: Memories the hygiene report reads at most per user (a bounded scan; ``scanned`` says how many).
HYGIENE_SCAN_LIMIT = 50_000
_PUNCT = re.compile(r"[^\w\s]")
_SPEAKER = re.compile(r"^\s*[A-Za-z][\w .'@-]{0,40}?\s*:\s+")


class HygieneReport(BaseModel):
    """What is worth cleaning in one user's long-term memory.

    Attributes:
        scanned: Memories read (all of them up to ``HYGIENE_SCAN_LIMIT``).
        duplicates: Memories whose normalised text (case, punctuation, speaker prefix and
            spacing ignored) another memory already states: the extra copies.
        junk_candidates: Raw memories that read as small talk ("I love it!"), by the same
            filter the rule-based extractor applies at write time.
        superseded: Memories marked superseded (``valid_until``): history, out of default
            recall.
        never_recalled: Raw memories never returned by a recall (``access_count == 0``).
        superseded_relations: Graph relations closed by a newer one (history).

    Example:
        >>> HygieneReport(scanned=3, duplicates=1).summary()
        'hygiene: 1 duplicate, 0 junk candidates, 0 superseded, 0 never recalled (3 scanned)'
    """

    scanned: int = 0
    duplicates: int = 0
    junk_candidates: int = 0
    superseded: int = 0
    never_recalled: int = 0
    superseded_relations: int | None = None

    def summary(self) -> str:
        """One line for a model, a log or the CLI."""
        dup = "duplicate" if self.duplicates == 1 else "duplicates"
        text = (
            f"hygiene: {self.duplicates} {dup}, {self.junk_candidates} junk candidates, "
            f"{self.superseded} superseded, {self.never_recalled} never recalled "
            f"({self.scanned} scanned)"
        )
        if self.superseded_relations:
            text += f"; {self.superseded_relations} superseded relations"
        return text


def _normalised(text: str) -> str:
    return " ".join(_PUNCT.sub(" ", _SPEAKER.sub("", text, count=1).lower()).split())


def hygiene_report(memory: MemoryParts | HasParts, user_id: str) -> HygieneReport:
    """Scan ``user_id``'s memories (payloads only, no vectors) for the :class:`HygieneReport`."""
    parts = parts_of(memory)
    from qdrant_client.http import models

    from langgraph_prax_memory.consolidation import is_junk
    from langgraph_prax_memory.retrieval import ltm_namespace
    from langgraph_prax_memory.vectors import NS_SEP, user_filter

    # every long-term memory, superseded ones included (the default recall filter hides them)
    prefix = models.FieldCondition(
        key="ns_prefixes", match=models.MatchValue(value=NS_SEP.join(ltm_namespace(user_id)))
    )
    points = parts.ltm.vectors.scroll(
        user_id, flt=user_filter(user_id, prefix), limit=HYGIENE_SCAN_LIMIT
    )
    seen: Counter[str] = Counter()
    report = HygieneReport(scanned=len(points))
    for point in points:
        payload = point.payload or {}
        content = str(payload.get("content", ""))
        raw = payload.get("summary_level", "raw") == "raw"
        seen[_normalised(content)] += 1
        if payload.get("valid_until_ts") is not None or payload.get("valid_until") is not None:
            report.superseded += 1
        if raw and int(payload.get("access_count", 0) or 0) == 0:
            report.never_recalled += 1
        if raw and is_junk(content):
            report.junk_candidates += 1
    report.duplicates = sum(n - 1 for key, n in seen.items() if key and n > 1)
    return report


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
    hygiene: HygieneReport | None = None
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
            if self.hygiene is not None:
                parts.append(self.hygiene.summary())
        return f"{self.user_id}: " + "; ".join(parts)


def collect_stats(memory: MemoryParts | HasParts, user_id: str) -> UserStats:
    """Count ``user_id``'s STM entries, notes, memories and graph; never raises for a layer.

    Example:
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir="/tmp/prax-stats"))
        >>> collect_stats(mem, "nobody").memories
        0
    """
    parts = parts_of(memory)
    stats: dict[str, Any] = {"user_id": user_id, "ltm_available": parts.ltm.available}
    errors: dict[str, str] = {}
    try:
        entries = parts.stm.all(user_id)
        stats["stm_entries"] = len(entries)
        stats["stm_pending_review"] = sum(PENDING_REVIEW_TAG in e.tags for e in entries)
    except PraxMemoryError as exc:
        errors["stm"] = str(exc)
    notes = parts.notes.read(user_id)
    stats["notes_lines"] = sum(1 for line in notes.splitlines() if line.strip())
    stats["notes_chars"] = len(notes)
    if parts.ltm.available:
        try:
            stats["memories"] = parts.ltm.count(user_id)
        except BackendUnavailable as exc:
            errors["ltm"] = str(exc)
        try:
            graph = parts.graph.stats(user_id)
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
        try:
            report = hygiene_report(parts, user_id)
        except BackendUnavailable as exc:
            errors["hygiene"] = str(exc)
        else:
            if stats.get("relations") is not None:
                report.superseded_relations = stats["relations"] - stats["current_relations"]
            stats["hygiene"] = report
    for layer, why in errors.items():
        logger.warning("stats of %s: %s unavailable: %s", user_id, layer, why)
    return UserStats(**stats, errors=errors)
