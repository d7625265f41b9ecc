"""The lines of the memory-context block with the rule that put each there (``explain``).

:class:`ContextLine` is one line of :class:`~langgraph_prax_memory.context.MemoryContext`
and the rule behind it; :class:`_Why` writes those rules, and why each recalled hit left out
is not in the block. ``context.py`` assembles the block and imports these.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from langgraph_prax_memory._dated import names_in
from langgraph_prax_memory._untrusted import quote_for_prompt
from langgraph_prax_memory._world import WORLD_WHY
from langgraph_prax_memory.models import MemoryHit
from langgraph_prax_memory.retrieval import FLOOR

if TYPE_CHECKING:
    from langgraph_prax_memory.config import RetrievalConfig

#: The rules that put a line in the block (:attr:`ContextLine.tier`); ``"left out"`` marks a
#: recalled hit that is not in it.
CONTEXT_TIERS = (
    "note",
    "scratchpad",
    "relevant",
    "companion",
    "model check",
    "dated",
    "standing fact",
    "top k",
)


@dataclass(frozen=True)
class ContextLine:
    """One line of the block and the rule that put it there (or a recalled hit left out).

    Attributes:
        tier: ``"note"`` (a line of the user's notes that matches the message),
            ``"scratchpad"``, ``"relevant"`` (a recalled hit that passed the floor),
            ``"companion"`` (kept beside a relevant hit), ``"model check"`` (kept by the
            optional model check), ``"dated"`` (an episode dated in the days the message
            names, or a routine on their weekdays), ``"standing fact"`` (the profile
            tier), ``"top k"`` (the floor is off); ``"left out"`` for a recalled hit that
            is not in the block.
        text: The line as the block has it (a left-out hit: its content).
        why: The rule in words (a left-out hit: why not).
        hit: The memory behind a long-term line or a left-out hit (``None`` otherwise).
    """

    tier: str
    text: str
    why: str
    hit: MemoryHit | None = None


def _line(hit: MemoryHit) -> str:
    m = hit.memory
    source = quote_for_prompt(m.source, max_chars=40)
    return f"- [{source}, {m.created_at.date().isoformat()}] {quote_for_prompt(m.content)}"


_NOTE_WHY = "a line of the user's notes that matches the message"
_SCRATCH_WHY = "the user's scratchpad: every entry, newest state, within stm_chars"


class _Why:
    """The rule behind each long-term line of the block, and why each other hit is not in it."""

    def __init__(
        self,
        cfg: RetrievalConfig,
        hits: Sequence[MemoryHit],
        facts: Sequence[MemoryHit],
        profile: Sequence[MemoryHit],
        ltm_chars: int,
        profile_chars: int,
        floor: bool,
    ) -> None:
        self.cfg = cfg
        self.rank = {h.memory.id: i for i, h in enumerate(hits, 1)}
        self.hits = {h.memory.id: h for h in hits}
        self.facts = {h.memory.id for h in facts}
        self.profile = {h.memory.id: i for i, h in enumerate(profile, 1)}
        self.shown: set[str] = set()
        self.ltm_chars, self.profile_chars, self.floor = ltm_chars, profile_chars, floor
        self.dated: set[str] = set()
        self.spans = ""
        self.coming = False
        self.people: dict[str, set[str]] = {}
        self.called: set[str] = set()

    def date(
        self, dated: Sequence[MemoryHit], spans: Sequence[object], people: Collection[str] = ()
    ) -> None:
        """Mark the hits the dated tier gave, the spans of days, the people by relation.

        ``spans``: those the message names (or the coming days); ``people``: the names of
        those it calls by their relation to the user.
        """
        self.dated = {h.memory.id for h in dated}
        self.spans = ", ".join(str(s) for s in spans)
        self.coming = any(getattr(s, "coming", False) for s in spans)
        self.people = {
            h.memory.id: names for h in dated if (names := names_in(h.memory.content, people))
        }
        self.called = set(people)

    def _standing(self, hit: MemoryHit) -> str:
        """What makes ``hit`` a standing fact, in a few words (``""``: not known here)."""
        m = hit.memory
        kind, by = getattr(m, "fact_kind", None), getattr(m, "fact_by", None)
        if kind or by:
            return ", ".join(x for x in (kind, f"classed by {by}" if by else "") if x)
        wanted = {t.lower() for t in self.cfg.profile_tags}
        tags = [t for t in m.tags if t.lower() in wanted]
        if tags:
            return f"tagged {', '.join(tags)}"
        if m.importance >= self.cfg.profile_min_importance:
            return f"importance {m.importance:.2f} ≥ {self.cfg.profile_min_importance:.2f}"
        return ""

    def _recalled(self, hit: MemoryHit) -> str:
        rank = self.rank.get(hit.memory.id)
        return f"recalled #{rank}" if rank is not None else "not among the recalled hits"

    def line(self, hit: MemoryHit) -> ContextLine:
        """The block's line for ``hit`` and the rule that put it there."""
        self.shown.add(hit.memory.id)
        text = _line(hit)
        if hit.memory.id in self.profile:
            recalled = self.hits.get(hit.memory.id)
            said = f"; {self._recalled(hit)}" + (
                f", {'relevant' if recalled.relevant else 'below the floor'}: {recalled.why}"
                if recalled is not None and recalled.why
                else ""
            )
            what = self._standing(hit)
            called = names_in(hit.memory.content, self.called)
            order = (
                f"names {', '.join(n.title() for n in sorted(called))}, whom the request calls "
                "by their relation to the user, then by relevance + importance"
                if called
                else "by relevance + importance"
            )
            why = (
                f"{what + '; ' if what else ''}given whatever is asked: "
                f"#{self.profile[hit.memory.id]} of the profile tier {order}, "
                f"within profile_chars ({self.profile_chars}){said}"
            )
            return ContextLine("standing fact", text, why, hit)
        head = self._recalled(hit)
        if hit.memory.id in self.dated:
            what = (
                "a routine on a weekday of"
                if hit.memory.fact_class == "standing"
                else "an episode dated in"
            )
            theirs = self.people.get(hit.memory.id)
            days = (
                f"the days around now ({self.spans} and the {self.cfg.coming_days} days "
                "before) of "
                f"{', '.join(n.title() for n in sorted(theirs))}, whom the request calls by "
                "their relation to the user"
                if self.coming and theirs
                else f"the coming days ({self.spans}) of a request about the user's own life "
                "that names no day, as near as a companion"
                if self.coming
                else f"the days the message names ({self.spans}), given whatever words it shares"
            )
            why = f"{what} {days}; {head}" + (f", below the floor: {hit.why}" if hit.why else "")
            return ContextLine("dated", text, why, hit)
        if not self.floor:
            return ContextLine("top k", text, f"{head}: the relevance floor is off", hit)
        if hit.why.startswith("kept by the model check"):
            return ContextLine("model check", text, f"{head}, {hit.why}", hit)
        if hit.score < FLOOR:
            return ContextLine("companion", text, f"{head}, {hit.why}", hit)
        return ContextLine("relevant", text, f"{head}, {hit.why}", hit)

    def left_out(self, hit: MemoryHit) -> ContextLine:
        """Why the recalled ``hit`` is not in the block."""
        head = self._recalled(hit)
        content = hit.memory.content
        if hit.why.startswith("dropped by the model check") or hit.why.endswith(WORLD_WHY):
            return ContextLine("left out", content, f"{head}, {hit.why}", hit)
        if self.floor and not hit.relevant:
            why = f"{head}, below the floor: {hit.why or f'score {hit.score:.2f}'}"
            if hit.memory.id in self.facts:
                what = self._standing(hit)
                why += (
                    f"; a standing fact{f' ({what})' if what else ''}, but the profile tier was "
                    f"full (profile_chars {self.profile_chars}, ltm_chars {self.ltm_chars})"
                )
            elif self.profile_chars <= 0:
                why += "; the profile tier is off"
            return ContextLine("left out", content, why, hit)
        return ContextLine(
            "left out",
            content,
            f"{head}, relevant, but the long-term section was full (ltm_chars {self.ltm_chars})",
            hit,
        )
