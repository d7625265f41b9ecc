"""The time-anchoring cues of a statement: closed classes of English words.

The memory-class classifier (:mod:`._classifier`) reads them beside a statement's
embedding; its grammar's second reading asks them of a clause (:mod:`._classifier`,
``_dated_clause``). Pure functions of the text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

import numpy as np

from langgraph_prax_memory.facts._cue_words import INTERJECTIONS, PAST, STATIVE_AUX

__all__ = ["cue_features", "cue_rows", "states_a_goal"]


# -- linguistic cues (closed classes of English words) -----------------------------------
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+(?::\d+)?(?:st|nd|rd|th)?|[?!]")
_WEEKDAYS = frozenset(
    ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "weekend"]
)
_MONTHS = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ]
)
_DEICTIC_PAST = frozenset(["yesterday", "ago", "earlier", "recently", "lately"])
_DEICTIC_NOW = frozenset(["today", "tonight", "moment"])  # "right now": see cue_features
_LONG_PERIODS = frozenset(["years", "decades", "months"])
_DEICTIC_FUTURE = frozenset(["tomorrow", "soon", "upcoming"])
_RECURRING = frozenset(["every", "each"])
_PARTS_OF_DAYS = frozenset(["mornings", "afternoons", "evenings", "nights"])
_RELATIVE = frozenset(["last", "next", "this", "coming"])
_PERIODS = (
    frozenset(
        [
            "week",
            "weekend",
            "month",
            "year",
            "morning",
            "evening",
            "night",
            "afternoon",
            "summer",
            "winter",
            "spring",
            "autumn",
            "fall",
            "holiday",
            "holidays",
            "term",
            "season",
        ]
    )
    | _WEEKDAYS
)
_HABITUAL = frozenset(
    [
        "every",
        "each",
        "usually",
        "always",
        "never",
        "often",
        "daily",
        "weekly",
        "monthly",
        "nightly",
        "regularly",
        "sometimes",
        "normally",
        "generally",
        "typically",
        "mostly",
    ]
)
_FUTURE = frozenset(
    ["will", "shall", "gonna", "going", "plans", "planning", "intends", "hopes", "considering"]
)
#: An intention: "thinking of / about buying", "deciding whether".
_INTENDING = frozenset(["thinking", "deciding", "debating"])
#: Words of obligation or need before an infinitive ("needs to", "has to", "got to").
_OBLIGING = frozenset(["need", "needs", "has", "have", "got"])


def states_a_goal(text: str) -> bool:
    """Whether a statement states an obligation or a need of something done.

    "needs to call the bank", "has to wear a brace", "must pick up the keys", "gotta renew
    it", "needs someone to feed the cats": a goal, a one-off to-do or a lasting constraint
    by what is to be done (not "has time to", "needs a minute").

    Example:
        >>> states_a_goal("Needs to renew the insurance."), states_a_goal("Has a cat.")
        (True, False)
        >>> states_a_goal("Must take her tablets with food."), states_a_goal("Has time to read.")
        (True, False)
        >>> states_a_goal("That must have been tough."), states_a_goal("Dairy-free is a must.")
        (False, False)
    """
    words = _WORD.findall(text.lower())
    for i, w in enumerate(words):
        after = words[i + 1 : i + 3]
        if w in ("must", "gotta"):
            # not a guess ("must have been tough", "gotta be a rush") nor a noun ("a must")
            if after[:1] not in (["be"], ["have"], ["'ve"]) and words[i - 1 : i] != ["a"]:
                return True
            continue
        if w in _OBLIGING and after[:1] == ["to"]:
            return True
        if w in ("need", "needs") and after[1:] == ["to"]:  # "needs someone to ..."
            return True
    return False


#: Named days of the year that date an episode like a month does ("over Christmas").
_FEASTS = frozenset(
    ["christmas", "easter", "thanksgiving", "halloween", "diwali", "eid", "hanukkah", "ramadan"]
)


#: Words after an ordinal that leave it a date ("on the 3rd at 5", "the 12th of May"); any
#: other word is the noun the ordinal counts ("the 3rd floor", "her 40th birthday").
_AFTER_A_DATE = frozenset(
    ["of", "at", "and", "or", "to", "in", "on", "for", "from", "until", "till", "by", "with",
     "when", "so", "but", "then", "i", "we", "she", "he", "they", "user", "is", "was", "will",
     "before", "after", "through", "thru", "a", "the", "this", "next", "which", "as"]
)  # fmt: skip
_ORDINAL = re.compile(r"\b(?:the\s+)?\d+(?:st|nd|rd|th)?\b(?:\s+([a-z]+))?")
_ORDINAL_SHAPE = re.compile(r"\b\d+(?:st|nd|rd|th)\b|\bthe\s+\d")


def _dates_by_number(text: str) -> bool:
    """Whether a number dates the text: an ordinal or "the" + a number ("on the 12th").

    Not one counting the noun after it ("lives on the 3rd floor", "her 40th birthday").
    """
    for m in _ORDINAL.finditer(text):
        if not _ORDINAL_SHAPE.search(m.group(0)):
            continue
        after = m.group(1)
        if after is None or after in _AFTER_A_DATE or after in _MONTHS:
            return True
    return False


def _plural(word: str) -> bool:
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _recurring_days(words: Sequence[str]) -> set[str]:
    """Weekdays a text names as recurring, not as one day.

    After "every" / "each" / "other", or before a plural part of the day ("Mass on Sunday
    mornings"); after "a" ("on a Saturday afternoon"); before a plural noun, a part of the
    day between or not ("Sunday services", "Wednesday evening rehearsals", "the weekend
    matches"); or a range of weekdays ("open Tuesday to Sunday").
    """
    out: set[str] = set()
    for i, w in enumerate(words):
        if w not in _WEEKDAYS:
            continue
        before = words[i - 1] if i else ""
        after = [*words[i + 1 : i + 3], "", ""][:2]
        if (
            before in _RECURRING
            or before in ("other", "a")
            or after[0] in _PARTS_OF_DAYS
            or _plural(after[0])
            or (after[0] in _PERIODS and _plural(after[1]))
        ):
            out.add(w)
        elif after[0] in ("to", "through", "till", "until") and after[1] in _WEEKDAYS:
            out.update((after[1], w))
    return out


def cue_features(text: str) -> list[float]:
    """The time-anchoring cues of a statement, each in [0, 1].

    In order: a time anchor (a weekday, a month, a date, "yesterday", "last week"), a
    past-deictic word, a present-deictic word ("today", "right now"), a future anchor
    ("tomorrow", "next month", "will"), a habitual marker ("every", "usually"), the past
    tense of a one-off action (an irregular past or a regular "-ed" verb after the
    subject), a stative present ("is", "has", "lives"), an interjection or a question or
    exclamation, and shortness (fewer than five words).

    Example:
        >>> cue_features("User ran the marathon last Sunday.")[:2]
        [1.0, 0.0]
    """
    words = _WORD.findall(text.lower())
    n = len(words)
    toks = set(words)
    pairs = set(itertools.pairwise(words))
    relative = any(a in _RELATIVE and b in _PERIODS for a, b in pairs)
    dated = _dates_by_number(text.lower())
    # a long-ago anchor ("five years ago", "since she was a child") is the history of a
    # standing fact, not the date of an episode
    distant = any(a in _LONG_PERIODS and b in ("ago", "old") for a, b in pairs) or "since" in toks
    near_past = bool(toks & _DEICTIC_PAST) and not distant
    # a weekday or month after "every" / "each", or a weekday named as recurring, recurs
    # ("visits them every December", "Mass on Sunday mornings", "Sunday services"): a
    # routine's time, not an episode's date
    recurring = {b for a, b in pairs if a in _RECURRING or a == "other"} | _recurring_days(words)
    # a day after "since" starts what still holds ("going to Aldi since Christmas", "vegan
    # since March"): the start of a state, not an episode's date
    started = {b for a, b in pairs if a == "since"} | {
        c for a, b, c in zip(words, words[1:], words[2:], strict=False) if a == "since"
    }
    named = any(
        w in _WEEKDAYS or w in _MONTHS or w in _FEASTS
        for w in words
        if w not in recurring and w not in started
    ) or any(a == "new" and b == "year" and "every" not in toks for a, b in pairs)
    relative = relative and not any(a == "since" for a in words)
    anchor = named or relative or dated or near_past
    # "been going to the gym since May" is a habit's history, not a plan
    habit = {b for a, b in pairs if a in ("been", "keep", "keeps", "kept")}
    future = (
        bool((toks - habit) & (_DEICTIC_FUTURE | _FUTURE))
        or any(a in ("next", "coming") and b in _PERIODS for a, b in pairs)
        or any(a in _INTENDING and b in ("of", "about", "whether") for a, b in pairs)
    )
    # a regular past after the subject's first word ("User painted", "I booked"), or opening
    # a note without its subject ("Tried the new bar"), not a participle of a state ("is
    # married", "is retired")
    regular_past = (bool(words) and words[0].endswith("ed") and len(words[0]) > 4) or any(
        b.endswith("ed") and len(b) > 4 and a not in ("is", "are", "am", "was", "be", "been", "get")
        for a, b in itertools.pairwise(words[:4])
    )
    return [
        float(anchor),
        float(near_past),
        # "now" alone also marks a current standing state ("lives in Leith now")
        float(bool(toks & _DEICTIC_NOW) or ("right", "now") in pairs),
        float(future),
        float(bool(toks & _HABITUAL)),
        float(bool(toks & PAST) or regular_past),
        float(bool(toks & STATIVE_AUX)),
        float(bool(toks & INTERJECTIONS) or "?" in toks or "!" in toks),
        float(n < 5),
    ]


_N_CUES = len(cue_features(""))


def cue_rows(texts: Sequence[str]) -> np.ndarray:
    """:func:`cue_features` of each text, one row each (``(0, _N_CUES)`` for no text)."""
    return np.array([cue_features(t) for t in texts], dtype=np.float64).reshape(-1, _N_CUES)
