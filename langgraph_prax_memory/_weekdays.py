"""Recurring weekdays: the days of a routine ("on Saturday mornings", "every Thursday").

A weekday a text names is either a date ("on Friday": the next one, read by
:mod:`langgraph_prax_memory._when`) or a recurring time (a routine's day): plural
("Sundays"), with a part of the day in the plural ("Saturday mornings"), after "every" /
"each" / "every second", as a kind ("a Saturday morning team"), "the first Tuesday of each
month", a weekly schedule ("Monday to Wednesday"), weekends and weekdays. :func:`recurs`
tells which, :func:`weekdays_of` lists a routine's days (Monday is 0).
"""

from __future__ import annotations

import re

__all__ = ["WEEKDAY", "WEEKDAYS", "recurs", "weekdays_of"]

#: The weekdays by index (Monday is 0, as ``date.weekday()``).
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
#: A weekday as texts name it, with what may come before and after it.
WEEKDAY = re.compile(
    r"(?i:\b(?P<which>on|this|next|last|coming|this coming)?\s*)"
    r"(?P<wd>(?i:monday|tuesday|wednesday|thursday|friday|saturday|sunday))(?P<plural>s)?"
    r"(?P<part>\s+(?i:mornings|afternoons|evenings|nights))?\b"
)
# "every Friday", "every second Thursday", "a Saturday morning team" (a weekday as a kind)
_RECURRING = re.compile(
    r"(?i:\b(?:(?:every|each|most|on alternate|other)\s+(?:other\s+|second\s+|third\s+)?"
    r"|an?\s+)$)"
)
# "the first Tuesday of each month", "the last Friday of the month"
_NTH_OF_MONTH = re.compile(
    r"(?i:^\s+(?:mornings?\s+|evenings?\s+|afternoons?\s+|nights?\s+)?"
    r"of\s+(?:each|every|the|a)\s+month)"
)
# "Tuesday and Wednesday mornings": the first day shares the second's recurring part
_SHARED_PART = re.compile(
    r"(?i:^\s+(?:and|or|&)\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
    r"\s+(?:mornings|afternoons|evenings|nights)\b)"
)
# "from Monday to Wednesday", "Monday to Friday": a weekly schedule
_WEEKDAY_RANGE = re.compile(
    r"(?i:\b(?:from\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\s+"
    r"(?:to|till|until|through|-|–)\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b)"
)

# "at weekends", "every weekend": a routine's days; "over the weekend" is one weekend (a span)
_WEEKENDS = re.compile(r"(?i:\b(?:every|each|most)\s+weekend\b|\bweekends\b)")
_WEEKDAYS_ALL = re.compile(
    r"(?i:\b(?:every|each)\s+weekday\b|\bweekdays\b|\bweekday\s+(?:mornings|evenings))"
)


#: "every Tuesday and Thursday": the second day recurs as the first does
_JOINED = re.compile(r"(?i:\b(?:every|each)\s+\w+day\s+(?:and|or|&)\s+$)")


#: the end of a sentence (also read by ``_when``)
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
#: one week named in the sentence: "Monday to Wednesday next week" is a span of it, not a
#: weekly schedule
_ONE_WEEK = re.compile(
    r"(?i:\b(?:this|next|last|coming|following)\s+week\b|\bweek\s+(?:of|after\s+next)\b)"
)


def recurs(text: str, m: re.Match[str], *, ranges: bool = True) -> bool:
    """Whether the weekday ``m`` found is a recurring time ("Sundays", "every Friday").

    Also "the first Tuesday of each month", a weekday as a kind ("a Saturday morning
    team"), a bare weekday in brackets after a recurring one, which restates it ("every
    Sunday morning here (Saturday evening at home)") and, with ``ranges``, a range of
    weekdays without "next" or "this" ("works Monday to Wednesday") unless its sentence
    names one week ("Monday to Wednesday next week"). A request reads a range as the coming
    days (``ranges=False``: "what do I have Monday to Wednesday?").
    """
    if _recurs_itself(text, m):
        return True
    which = (m.group("which") or "").lower()
    begin = max((e.end() for e in _SENTENCE_END.finditer(text, 0, m.start())), default=0)
    close = _SENTENCE_END.search(text, m.end())
    end = close.start() if close else len(text)
    opened = text.rfind("(", begin, m.start("wd"))
    if not which and opened >= 0 and text.find(")", opened, m.start("wd")) < 0:
        # a bare weekday in brackets after a recurring one restates it ("video call every
        # Sunday morning Hobart time (Saturday evening in Chile)"): the same routine
        others = WEEKDAY.finditer(text, begin, opened)
        if any(_recurs_itself(text, o) for o in others):
            return True
    if not ranges or which in ("next", "this", "coming", "this coming", "last"):
        return False
    return not _ONE_WEEK.search(text, begin, end) and any(
        r.start() <= m.start("wd") < r.end() for r in _WEEKDAY_RANGE.finditer(text)
    )


def _recurs_itself(text: str, m: re.Match[str]) -> bool:
    """Whether the weekday ``m`` recurs by its own words (plural, "every", "of each month")."""
    before = text[: m.start("wd")]
    if m.group("plural") or m.group("part") or _RECURRING.search(before) or _JOINED.search(before):
        return True
    after = text[m.end("wd") :]
    return bool(_NTH_OF_MONTH.search(after) or _SHARED_PART.search(after))


def weekdays_of(text: str) -> frozenset[int]:
    """The weekdays a recurring time in ``text`` names (Monday is 0), empty when none.

    "on Saturday mornings", "every Thursday", "Tuesdays", "at weekends", "on weekdays": a
    routine's days, the complement of ``_when.spans_of`` (which leaves recurring times out).

    Example:
        >>> sorted(weekdays_of("Karim plays cricket on Saturday mornings."))
        [5]
        >>> sorted(weekdays_of("User swims every Tuesday and Thursday.")), weekdays_of("on Friday")
        ([1, 3], frozenset())
    """
    days = {
        WEEKDAYS.index(m.group("wd").lower()) for m in WEEKDAY.finditer(text) if recurs(text, m)
    }
    for r in _WEEKDAY_RANGE.finditer(text):  # every day of a weekly schedule
        ends = [
            WEEKDAYS.index(w)
            for w in re.findall(
                r"(?i)monday|tuesday|wednesday|thursday|friday|saturday|sunday", r.group(0).lower()
            )
        ]
        if len(ends) == 2 and ends[0] in days and ends[1] in days:
            first, last = ends
            days.update((first + i) % 7 for i in range((last - first) % 7 + 1))
    if _WEEKENDS.search(text):
        days.update((5, 6))
    if _WEEKDAYS_ALL.search(text):
        days.update(range(5))
    return frozenset(days)
