"""Selective promotion of items that compaction dropped to long-term memory.

A pure, deterministic, conservative classifier (no model): only items that fell off a
section because it held more than 16 items are candidates, and of those only durable
natural-language preferences, workflows, aliases, formatting/style preferences and project
constraints are promoted. Duplicates, stale scalar values, reminders and tasks, dated items
and short junk never are. At most :data:`MAX_PROMOTIONS` items per compaction.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from langgraph_prax_memory.notes.compaction import DroppedItem
from langgraph_prax_memory.notes.parsing import normalise_item

__all__ = [
    "Promotion",
    "classify_item",
    "select_promotions",
]

#: Upper bound of promoted items per compaction.
MAX_PROMOTIONS = 10
#: The ``source`` of every promoted memory.
PROMOTION_SOURCE = "user_notes_compaction"
#: The tags a promotion can carry.
PROMOTION_TAGS = ("preference", "workflow", "alias", "project", "formatting")
#: Importance of a promoted memory per tag (the seed's "useful" to "critical" band).
PROMOTION_IMPORTANCE: dict[str, float] = {
    "preference": 0.7,
    "workflow": 0.7,
    "alias": 0.7,
    "formatting": 0.7,
    "project": 0.75,
}


@dataclass(frozen=True)
class Promotion:
    """A dropped notes item worth keeping in long-term memory.

    Attributes:
        content: The text to remember, ``"<Section>: <item>"`` when it had a section.
        tags: One of :data:`PROMOTION_TAGS`.
        importance: 0-1, see :data:`PROMOTION_IMPORTANCE`.
    """

    content: str
    tags: tuple[str, ...]
    importance: float


_SECTION_TAG = {
    "Preferences": "preference",
    "Interests": "preference",
    "Workflows": "workflow",
    "Aliases": "alias",
    "Projects": "project",
    "Formatting": "formatting",
}
_TRANSIENT_SECTIONS = frozenset({"Reminders", "Tasks"})

_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_DATED = re.compile(
    r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|\b\d{1,2}\.\d{1,2}\.\d{2,4}\b"
    rf"|\b(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b"
    r"|\b(?:on|this|next|last|by)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day\b"
    r"|\b(?:today|tomorrow|tonight|yesterday|this (?:week|weekend|month|morning|evening)"
    r"|next (?:week|month|year)|last (?:week|month|year))\b"
    r"|\b\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|\b(?:19|20)\d{2}\b",
    re.IGNORECASE,
)
_TRANSIENT = re.compile(
    r"^\s*\[[ xX]\]|\b(?:remind(?:er)?s?|remind me|todo|to-do|to do|don'?t forget|follow[- ]up"
    r"|deadline|due (?:on|by|date)|asap|pick up|buy|call back|book (?:a|the))\b",
    re.IGNORECASE,
)
_ALIAS = re.compile(
    r"^[`*_]*[A-Z][A-Za-z0-9&.+-]{1,15}[`*_]*\s*(?:[:=]|->|\u2192|\u2014|\u2013"
    r"|\bmeans\b|\bstands for\b|\bis short for\b|\brefers to\b)\s*\S",
)
_KEYWORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "formatting",
        re.compile(
            r"\b(?:format(?:ting|ted)?|markdown|bullet(?:s| points)?|headings?|emojis?|tone"
            r"|concise|verbose|terse|brief|succinct|wordy|style|tables?|code blocks?"
            r"|oxford comma|british|american spelling|capitali[sz]\w*|font|plain text)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "workflow",
        re.compile(
            r"\b(?:workflow|always run|before (?:committing|pushing|merging|deploying)"
            r"|after (?:committing|pushing|merging)|pull requests?|PRs?|code review|branch(?:es)?"
            r"|commit(?:s|ting)?|deploy(?:s|ing|ment)?|pipeline|CI|run (?:the )?tests"
            r"|step[- ]by[- ]step|first\b.*\bthen)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "project",
        re.compile(
            r"\b(?:project|repo(?:sitory)?|codebase|constraint|requirement|must(?: not)?"
            r"|never use|only use|stack|python \d|licen[cs]e|compliance|budget|target"
            r"|supports?|compatib\w*)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "preference",
        re.compile(
            r"\b(?:prefers?|preferred|preference|likes?|loves?|enjoys?|dislikes?|hates?"
            r"|favou?rite|wants?|avoid|rather|please|always|never|don'?t|do not|instead of)\b",
            re.IGNORECASE,
        ),
    ),
)


def _clean(text: str) -> str:
    text = re.sub(r"[*_`]", "", text)
    return " ".join(text.split())


def _is_junk(text: str, tag: str) -> bool:
    letters = sum(ch.isalpha() for ch in text)
    words = len(re.findall(r"[A-Za-z]{2,}", text))
    if re.fullmatch(r"\W*(?:https?://\S+)?\W*", text):
        return True
    if tag == "alias":
        return letters < 5 or words < 2
    return letters < 12 or words < 3


def classify_item(item: DroppedItem) -> str | None:
    """The promotion tag of a dropped item, or None when it must not be promoted.

    Example:
        >>> classify_item(DroppedItem("Prefers concise answers without emojis", "Preferences",
        ...                           "overflow"))
        'preference'
        >>> classify_item(DroppedItem("Call the dentist tomorrow", "Preferences", "overflow"))
    """
    if item.reason != "overflow" or item.key is not None:
        return None
    if item.section in _TRANSIENT_SECTIONS:
        return None
    text = _clean(item.text)
    if _DATED.search(text) or _TRANSIENT.search(text):
        return None
    tag = _SECTION_TAG.get(item.section or "")
    if tag is None and _ALIAS.match(text):
        tag = "alias"
    if tag is None:
        for name, pattern in _KEYWORDS:
            if pattern.search(text):
                tag = name
                break
    if tag is None or _is_junk(text, tag):
        return None
    return tag


def select_promotions(dropped: Iterable[DroppedItem]) -> list[Promotion]:
    """Choose the dropped items worth promoting to long-term memory (pure, deterministic).

    Items are taken in the order given (file order), duplicates (same normalised text) are
    promoted once, and at most :data:`MAX_PROMOTIONS` are returned.

    Args:
        dropped: ``CompactionPlan.dropped_items``.

    Returns:
        Promotions with content, tags and importance, ready for
        ``remember(user_id, p.content, importance=p.importance, tags=list(p.tags),
        source="user_notes_compaction")``.

    Example:
        >>> items = [DroppedItem("NPR: National Public Radio", "Aliases", "overflow"),
        ...          DroppedItem("timezone: UTC", None, "stale_scalar", key="timezone")]
        >>> select_promotions(items)
        [Promotion(content='Aliases: NPR: National Public Radio', tags=('alias',), importance=0.7)]
    """
    out: list[Promotion] = []
    seen: set[str] = set()
    for item in dropped:
        tag = classify_item(item)
        if tag is None:
            continue
        norm = normalise_item(item.text)
        if norm in seen:
            continue
        seen.add(norm)
        text = _clean(item.text)
        content = f"{item.section}: {text}" if item.section else text
        out.append(Promotion(content=content, tags=(tag,), importance=PROMOTION_IMPORTANCE[tag]))
        if len(out) >= MAX_PROMOTIONS:
            break
    return out
