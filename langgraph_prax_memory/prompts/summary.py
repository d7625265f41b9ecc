"""The hierarchical summaries: a day's, a week's and the global one, and the length re-ask.

A summary is plain text, not a structured record: there is no response model, and the answer's
sentence count is checked by :mod:`langgraph_prax_memory.consolidation` (re-asked once with
:data:`REASK_PROMPT`, then trimmed). Each builder renders one prompt string, sent as the only
(human) message.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

__all__ = [
    "daily_summary_prompt",
    "global_summary_prompt",
    "summary_reask_prompt",
    "weekly_summary_prompt",
]

SUMMARY_PROMPT = (
    "Summarise what was learned about the user on {day} in 3-5 plain sentences. Keep "
    "preferences, decisions and plans; drop chit-chat. Memories, most important first:\n{items}"
)
WEEKLY_PROMPT = (
    "Summarise what was learned about the user in {label} in {lo}-{hi} plain sentences, "
    "from these daily summaries (oldest first). Keep durable preferences, decisions and "
    "plans; drop chit-chat:\n{items}"
)
GLOBAL_PROMPT = (
    "Write a profile of the user in {lo}-{hi} plain sentences from these weekly summaries "
    "(newest first). Keep what is still true; drop what was replaced:\n{items}"
)
REASK_PROMPT = (
    "Your summary has {n} sentences. Rewrite it in {lo} to {hi} plain sentences, keeping the "
    "most important facts:\n{text}"
)


def _listing(contents: Sequence[str], max_chars: int) -> str:
    return "\n".join(f"- {c[:max_chars]}" for c in contents)


def daily_summary_prompt(day: date, contents: Sequence[str]) -> str:
    """The prompt for ``day``'s summary from its memories (most important first).

    Example:
        >>> daily_summary_prompt(date(2026, 3, 2), ["User prefers tea"]).splitlines()[-1]
        '- User prefers tea'
    """
    return SUMMARY_PROMPT.format(day=day.isoformat(), items=_listing(contents, 500))


def weekly_summary_prompt(label: str, contents: Sequence[str], bounds: tuple[int, int]) -> str:
    """The prompt for week ``label``'s summary from its daily summaries (oldest first)."""
    lo, hi = bounds
    return WEEKLY_PROMPT.format(label=label, lo=lo, hi=hi, items=_listing(contents, 1000))


def global_summary_prompt(contents: Sequence[str], bounds: tuple[int, int]) -> str:
    """The prompt for the global profile from the weekly summaries (newest first)."""
    lo, hi = bounds
    return GLOBAL_PROMPT.format(lo=lo, hi=hi, items=_listing(contents, 1500))


def summary_reask_prompt(text: str, sentences: int, bounds: tuple[int, int]) -> str:
    """The follow-up asking to rewrite ``text`` (``sentences`` long) within ``bounds``.

    Example:
        >>> summary_reask_prompt("Hi.", 1, (3, 5)).splitlines()[0]
        'Your summary has 1 sentences. Rewrite it in 3 to 5 plain sentences, keeping the most important facts:'
    """  # noqa: E501
    lo, hi = bounds
    return REASK_PROMPT.format(n=sentences, lo=lo, hi=hi, text=text)
