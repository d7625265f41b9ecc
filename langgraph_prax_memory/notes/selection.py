"""Deterministic selection of the user-notes lines relevant to the current message.

No model, no randomness, no clock: the same notes and the same message always give the
same lines in the same order. The steps:

1. Tokenise the message (words, lower-cased, light suffix stemming, stop words removed).
   All-caps tokens such as ``NPR`` are *aliases*: they match only the exact, case-sensitive
   whole word in a note line (``npr`` or ``Npr`` do not), unless the whole message is
   shouted in capitals.
2. Score every scalar line and list item: the IDF-weighted overlap of message tokens with
   the item's tokens, half weight for tokens that only match the item's section name,
   +3 per exact alias, and category boosts — ``timezone`` for reminder/time/schedule
   questions, ``name`` for greetings and "who am I", ``location`` for weather/local
   questions, the ``Formatting`` section for writing requests.
   Older values of a repeated scalar key and earlier copies of a repeated line are never
   candidates (the latest one stands, as compaction would keep it).
3. Keep items with a positive score, best first (ties: file order), at most 8 lines and
   1,200 characters; emit them in file order. No match → ``""``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from langgraph_prax_memory._text import STOP_WORDS
from langgraph_prax_memory.notes.parsing import (
    NoteItem,
    normalise_item,
    parse_notes,
    scalar_identity,
)

__all__ = ["select_note_lines"]

#: At most this many lines are injected.
MAX_CONTEXT_LINES = 8
#: At most this many characters are injected (lines joined by newlines).
MAX_CONTEXT_CHARS = 1200
#: Only the first this-many characters of the message are tokenised.
MAX_QUERY_CHARS = 8000

_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_CAPS = re.compile(r"^[A-Z][A-Z0-9&]*[A-Z0-9]$")

# The shared English stop words, plus chat filler that never identifies a note line.
_STOP = STOP_WORDS | frozenset(
    [
        "cannot",
        "done",
        "hello",
        "hey",
        "hi",
        "i'd",
        "i'm",
        "it's",
        "know",
        "let's",
        "like",
        "ok",
        "okay",
        "please",
        "sure",
        "tell",
        "thank",
        "thanks",
        "that's",
        "what's",
        "yeah",
        "yes",
    ]
)

_TIME_WORDS = frozenset(
    [
        "remind",
        "reminder",
        "reminders",
        "reminding",
        "schedule",
        "scheduled",
        "scheduling",
        "calendar",
        "meeting",
        "meetings",
        "appointment",
        "appointments",
        "tomorrow",
        "today",
        "tonight",
        "morning",
        "afternoon",
        "evening",
        "noon",
        "midnight",
        "clock",
        "alarm",
        "deadline",
        "deadlines",
        "hour",
        "hours",
        "minute",
        "minutes",
        "time",
        "times",
        "timezone",
        "tz",
        "date",
        "dates",
        "week",
        "weekend",
        "weekday",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "later",
        "o'clock",
        "when",
    ]
)
_LOCATION_WORDS = frozenset(
    [
        "weather",
        "forecast",
        "temperature",
        "rain",
        "snow",
        "nearby",
        "near",
        "local",
        "locally",
        "restaurant",
        "restaurants",
    ]
)
_FORMAT_WORDS = frozenset(
    [
        "write",
        "draft",
        "format",
        "formatting",
        "summarise",
        "summarize",
        "summary",
        "email",
        "reply",
        "rewrite",
        "edit",
        "document",
        "report",
        "essay",
        "letter",
        "post",
        "outline",
    ]
)
_IDENTITY = re.compile(
    r"\b(?:hi|hello|hey|howdy|greetings|good (?:morning|afternoon|evening)|who am i|my name"
    r"|what(?:'s| is) my name|call me|name)\b",
    re.IGNORECASE,
)
_CLOCK = re.compile(r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|\b\d{1,2}:\d{2}\b", re.IGNORECASE)

_BOOSTS_TIME = {"timezone": 4.0}
_BOOSTS_IDENTITY = {
    "name": 4.0,
    "preferred_name": 4.0,
    "nickname": 3.0,
    "full_name": 2.0,
    "pronouns": 1.0,
}
_BOOSTS_LOCATION = {"location": 3.0, "city": 3.0, "country": 2.0}
_FORMAT_BOOST = 1.5
_ALIAS_WEIGHT = 3.0
_GENERIC_SECTIONS = frozenset({"Notes"})


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed"):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _terms(words: Iterable[str]) -> set[str]:
    out = set()
    for word in words:
        low = word.lower().replace("\u2019", "'")
        if low in _STOP or len(low) < 2:
            continue
        out.add(_stem(low))
    return out


@dataclass(frozen=True)
class _Query:
    terms: frozenset[str]
    aliases: tuple[str, ...]
    time: bool
    identity: bool
    location: bool
    formatting: bool


def _parse_query(user_input: str) -> _Query:
    text = user_input[:MAX_QUERY_CHARS]
    words = _WORD.findall(text)
    caps = [w for w in words if _CAPS.match(w)]
    alphabetic = [w for w in words if any(ch.isalpha() for ch in w)]
    shouting = len(caps) >= 3 and len(caps) * 2 > len(alphabetic)
    aliases = () if shouting else tuple(dict.fromkeys(caps))
    plain = [w for w in words if shouting or w not in aliases]
    lower = {w.lower() for w in words}
    return _Query(
        terms=frozenset(_terms(plain)),
        aliases=aliases,
        time=bool(lower & _TIME_WORDS) or bool(_CLOCK.search(text)),
        identity=bool(_IDENTITY.search(text)),
        location=bool(lower & _LOCATION_WORDS),
        formatting=bool(lower & _FORMAT_WORDS),
    )


def _alias_hits(line: str, aliases: Iterable[str]) -> int:
    return sum(
        1 for a in aliases if re.search(rf"(?<![A-Za-z0-9]){re.escape(a)}(?![A-Za-z0-9])", line)
    )


def _boost(item: NoteItem, query: _Query) -> float:
    score = 0.0
    if item.kind == "scalar" and item.key is not None:
        if query.time:
            score += _BOOSTS_TIME.get(item.key, 0.0)
        if query.identity:
            score += _BOOSTS_IDENTITY.get(item.key, 0.0)
        if query.location:
            score += _BOOSTS_LOCATION.get(item.key, 0.0)
    if query.formatting and item.section == "Formatting":
        score += _FORMAT_BOOST
    return score


def _identity(item: NoteItem) -> object:
    if item.kind == "scalar":
        return scalar_identity(item)
    return (item.section, normalise_item(item.text))


def _live_items(items: list[NoteItem]) -> list[NoteItem]:
    """Drop what compaction would drop as stale: older values of a scalar, repeated lines."""
    last = {_identity(item): item.index for item in items}
    return [item for item in items if last[_identity(item)] == item.index]


def _fit(ranked: list[tuple[int, str]], max_lines: int, max_chars: int) -> list[tuple[int, str]]:
    kept: list[tuple[int, str]] = []
    used = 0
    for index, line in ranked:
        if len(kept) >= max_lines:
            break
        cost = len(line) + (1 if kept else 0)
        if used + cost <= max_chars:
            kept.append((index, line))
            used += cost
        elif not kept:
            kept.append((index, line[: max_chars - 1] + "…"))
            used = max_chars
    return kept


def select_note_lines(
    notes: str,
    user_input: str,
    *,
    max_lines: int = MAX_CONTEXT_LINES,
    max_chars: int = MAX_CONTEXT_CHARS,
) -> list[str]:
    r"""The note lines relevant to ``user_input``, in file order (pure and deterministic).

    Args:
        notes: The full ``user_notes.md`` text.
        user_input: The current user message.
        max_lines: Line cap (8 by default).
        max_chars: Character cap of the lines joined by newlines (1,200 by default).

    Returns:
        The selected lines (stripped; a multi-line item joined into one line); ``[]`` when
        nothing in the notes is relevant.

    Example:
        >>> notes = "timezone: Europe/Berlin\n## Aliases\n- NPR: National Public Radio\n"
        >>> select_note_lines(notes, "Remind me at 9am")
        ['timezone: Europe/Berlin']
        >>> select_note_lines(notes, "play NPR")
        ['- NPR: National Public Radio']
        >>> select_note_lines(notes, "play npr please")
        ['- NPR: National Public Radio']
        >>> select_note_lines(notes, "what is 2+2")
        []
    """
    if not notes.strip() or not user_input.strip():
        return []
    query = _parse_query(user_input)
    if not (
        query.terms
        or query.aliases
        or query.time
        or query.identity
        or query.location
        or query.formatting
    ):
        return []
    items = _live_items(parse_notes(notes).items())
    if not items:
        return []
    item_terms = [_terms(_WORD.findall(item.text)) for item in items]
    section_terms = [
        _terms(_WORD.findall(item.section or ""))
        if item.section not in _GENERIC_SECTIONS
        else set()
        for item in items
    ]
    n = len(items)
    df: dict[str, int] = {}
    for terms in item_terms:
        for term in terms & query.terms:
            df[term] = df.get(term, 0) + 1

    def weight(term: str) -> float:
        return 1.0 + math.log(n / df.get(term, 1)) if df.get(term) else 1.0

    scored: list[tuple[float, int, str]] = []
    for i, item in enumerate(items):
        own = item_terms[i] & query.terms
        via_section = (section_terms[i] & query.terms) - own
        score = sum(weight(t) for t in own) + 0.5 * sum(weight(t) for t in via_section)
        score += _ALIAS_WEIGHT * _alias_hits(item.one_line, query.aliases)
        score += _boost(item, query)
        if score > 0:
            scored.append((score, item.index, item.one_line))
    if not scored:
        return []
    ranked = sorted(scored, key=lambda s: (-s[0], s[1]))
    chosen = _fit([(index, line) for _, index, line in ranked], max_lines, max_chars)
    return [line for _, line in sorted(chosen)]
