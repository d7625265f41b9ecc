"""Hierarchical summaries: daily (3-5 sentences) → weekly → global, by a model or by rules.

Each level is built from the one below (a day from its current memories, a week from its
daily summaries, the global one from the weekly summaries) and is bounded: a model answer
outside the bounds is re-asked once, then trimmed. The prompts live in
:mod:`langgraph_prax_memory.prompts.summary` (``SUMMARY_PROMPT`` is re-exported here).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING, Any

from langgraph_prax_memory.models import Memory
from langgraph_prax_memory.prompts.summary import (
    SUMMARY_PROMPT,
    daily_summary_prompt,
    global_summary_prompt,
    summary_reask_prompt,
    weekly_summary_prompt,
)

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = [
    "DAILY_SENTENCES",
    "GLOBAL_SENTENCES",
    "SUMMARY_PROMPT",
    "WEEKLY_SENTENCES",
    "bound_sentences",
    "rule_based_summary",
    "sentences",
    "summarise_day",
    "summarise_global",
    "summarise_week",
    "week_label",
]

logger = logging.getLogger(__name__)

#: Sentence bounds of each level (the seed's 3-5 for a day).
DAILY_SENTENCES = (3, 5)
WEEKLY_SENTENCES = (3, 7)
GLOBAL_SENTENCES = (3, 10)
_SPLIT = re.compile(r"(?<=[.!?…])\s+(?=\S)")
_CAPS = re.compile(r"\b[A-Z][a-zA-Z]{2,}\b")
_SPEAKER = re.compile(r"^\s*[\w .'-]{1,40}:\s+")
_MAX_SENTENCE = 220


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > _MAX_SENTENCE:
        text = text[: _MAX_SENTENCE - 1].rsplit(" ", 1)[0] + "…"
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (split after ``.``, ``!``, ``?``, ``…``).

    Example:
        >>> sentences("One. Two! Three?")
        ['One.', 'Two!', 'Three?']
    """
    return [p.strip() for p in _SPLIT.split(" ".join(text.split())) if p.strip()]


def bound_sentences(text: str, hi: int) -> str:
    """``text`` cut to its first ``hi`` sentences."""
    return " ".join(sentences(text)[:hi])


def week_label(day: date) -> str:
    """The ISO week of ``day``: ``"2026-W10"``.

    Example:
        >>> week_label(date(2026, 3, 2))
        '2026-W10'
    """
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def _ask(chat_model: Any, prompt: str, bounds: tuple[int, int], what: str) -> str | None:
    """The model's summary within ``bounds`` sentences (re-asked once, then trimmed)."""
    lo, hi = bounds
    try:
        answer = chat_model.invoke(prompt)
        text = answer.content if isinstance(answer.content, str) else ""
        text = " ".join(text.split())
        if not text:
            logger.warning("%s summary model answered with nothing; using the rule-based one", what)
            return None
        n = len(sentences(text))
        if not lo <= n <= hi:
            again = chat_model.invoke(summary_reask_prompt(text, n, bounds))
            retry = again.content if isinstance(again.content, str) else ""
            retry = " ".join(retry.split())
            if retry and abs(len(sentences(retry)) - hi) <= abs(n - hi):
                text = retry
        return bound_sentences(text, hi)
    except Exception as exc:
        logger.warning("%s summary model failed (%s); using the rule-based one", what, exc)
        return None


def rule_based_summary(day: date, memories: list[Memory]) -> str:
    """A deterministic 3-5 sentence summary: an overview plus the most important memories.

    Example:
        >>> from datetime import UTC, datetime
        >>> m = Memory(id="1", user_id="u", content="user: I prefer tea", importance=0.8,
        ...            created_at=datetime(2026, 3, 1, tzinfo=UTC),
        ...            last_accessed=datetime(2026, 3, 1, tzinfo=UTC))
        >>> rule_based_summary(date(2026, 3, 1), [m])
        'On 2026-03-01, 1 memory was consolidated. user: I prefer tea. Nothing else was recorded.'
    """
    ranked = sorted(memories, key=lambda m: (-m.importance, m.created_at))
    words: Counter[str] = Counter()
    for mem in memories:
        words.update(w for w in _CAPS.findall(_SPEAKER.sub("", mem.content)) if w.lower() != "user")
    topics = [w for w, _ in words.most_common(3)]
    count = len(memories)
    noun = "memory was" if count == 1 else "memories were"
    head = f"On {day.isoformat()}, {count} {noun} consolidated"
    head += f", mostly about {', '.join(topics)}." if topics and count > 1 else "."
    parts = [head]
    for mem in ranked:
        if len(parts) >= DAILY_SENTENCES[1]:
            break
        parts.extend(sentences(_sentence(mem.content))[:1])
    if len(parts) < DAILY_SENTENCES[0]:
        parts.append("Nothing else was recorded.")
    return " ".join(parts[: DAILY_SENTENCES[1]])


def summarise_day(day: date, memories: list[Memory], chat_model: BaseChatModel | None) -> str:
    """The day's summary (3-5 sentences): the model's when it answers, else the rule-based one."""
    if chat_model is not None and memories:
        ranked = sorted(memories, key=lambda m: (-m.importance, m.created_at))[:40]
        prompt = daily_summary_prompt(day, [m.content for m in ranked])
        text = _ask(chat_model, prompt, DAILY_SENTENCES, "daily")
        if text:
            return text
    return rule_based_summary(day, memories)


def summarise_week(label: str, dailies: Sequence[Memory], chat_model: BaseChatModel | None) -> str:
    """A week's summary (3-7 sentences) built from its daily summaries."""
    ordered = sorted(dailies, key=lambda m: m.created_at)
    lo, hi = WEEKLY_SENTENCES
    if chat_model is not None and ordered:
        prompt = weekly_summary_prompt(label, [m.content for m in ordered], WEEKLY_SENTENCES)
        text = _ask(chat_model, prompt, WEEKLY_SENTENCES, "weekly")
        if text:
            return text
    parts = [f"In {label}, {len(ordered)} day(s) were summarised."]
    for mem in ordered:  # each day's most informative sentence (after its overview)
        body = sentences(mem.content)
        parts.extend(body[1:2] or body[:1])
        if len(parts) >= hi:
            break
    if len(parts) < lo:
        parts.append("Nothing else was recorded that week.")
    return " ".join(parts[:hi])


def summarise_global(weeklies: Sequence[Memory], chat_model: BaseChatModel | None) -> str:
    """The global summary (3-10 sentences) built from the weekly summaries, newest first."""
    ordered = sorted(weeklies, key=lambda m: m.created_at, reverse=True)
    lo, hi = GLOBAL_SENTENCES
    if chat_model is not None and ordered:
        prompt = global_summary_prompt([m.content for m in ordered[:26]], GLOBAL_SENTENCES)
        text = _ask(chat_model, prompt, GLOBAL_SENTENCES, "global")
        if text:
            return text
    parts = [f"Across {len(ordered)} week(s) of memory, the most recent first:"]
    for mem in ordered:
        body = sentences(mem.content)
        parts.extend(body[1:3] or body[:1])
        if len(parts) >= hi:
            break
    if len(parts) < lo:
        parts.append("Nothing else was recorded.")
    return " ".join(parts[:hi])
