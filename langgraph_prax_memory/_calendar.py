"""Calendar arithmetic for reading dates: spans of days, months, weeks, weekdays.

The pure part of :mod:`langgraph_prax_memory._when` (which reads the words): a :class:`Span`
of calendar days and how a day, week, month or relative word ("next week", "tomorrow")
becomes one, relative to the day something was said. Dates are UTC calendar days: a span is
``[start, end)`` at midnight UTC.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

__all__ = ["Span"]

_DAY = timedelta(days=1)


@dataclass(frozen=True)
class Span:
    """Calendar days ``[start, end)`` (aware UTC midnights).

    ``here_and_now`` marks a span named relative to the moment of speech that holds it
    ("today", "tonight", "this week", "this year"): the here and now of small talk, where
    any other span dates a plan or an event.
    """

    start: datetime
    end: datetime
    here_and_now: bool = field(default=False, compare=False)
    #: named after "since": the start of a state that holds ("since March"), not an episode
    since: bool = field(default=False, compare=False)
    #: not named: the coming days a request about the person's own life stands for
    coming: bool = field(default=False, compare=False)

    def overlaps(self, other: Span) -> bool:
        """Whether the two spans share a moment."""
        return self.start < other.end and other.start < self.end

    def __str__(self) -> str:
        last = (self.end - _DAY).date()
        first = self.start.date()
        return first.isoformat() if first == last else f"{first.isoformat()}..{last.isoformat()}"


_MONTHS = {
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "may": 5,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
}
_MONTH_ABBR = {m[:3]: n for m, n in _MONTHS.items()} | {"sept": 9}
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "couple of": 2,
    "a couple of": 2,
    "three": 3,
    "few": 3,
    "a few": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_ORDINALS = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3}


def _midnight(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def _days(first: date, count: int = 1) -> Span:
    start = _midnight(first)
    return Span(start, start + count * _DAY)


def _month_span(year: int, month: int) -> Span:
    start = date(year, month, 1)
    end = date(year + (month == 12), month % 12 + 1, 1)
    return Span(_midnight(start), _midnight(end))


def _month_of(name: str) -> int:
    key = name.lower().rstrip(".")
    return _MONTHS.get(key) or _MONTH_ABBR[key[:4] if key == "sept" else key[:3]]


def _nearest_year(ref: date, month: int, day: int = 1) -> int:
    """The year whose ``month``/``day`` lies nearest ``ref`` (within half a year)."""
    best = ref.year
    for year in (ref.year - 1, ref.year, ref.year + 1):
        try:
            candidate = date(year, month, min(day, 28 if month == 2 else day))
        except ValueError:
            continue
        try:
            current = date(best, month, min(day, 28 if month == 2 else day))
        except ValueError:
            current = candidate
        if abs((candidate - ref).days) < abs((current - ref).days):
            best = year
    return best


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _count(raw: str) -> int:
    raw = raw.lower()
    return int(raw) if raw.isdigit() else _NUMBERS.get(raw, 1)


def _unit_days(unit: str, n: int) -> int:
    unit = unit.lower()
    if unit.startswith("fortnight"):
        return 14 * n
    if unit.startswith("week"):
        return 7 * n
    if unit.startswith("month"):
        return 30 * n
    return n


def _week(monday: date) -> Span:
    return _days(monday, 7)


def _relative(word: str, ref: date) -> Span:
    word = " ".join(word.lower().split())
    monday = ref - timedelta(days=ref.weekday())
    # this weekend's Saturday: the coming one, today's, or (on a Sunday) yesterday's
    saturday = ref + timedelta(days=(5 - ref.weekday()) % 7 if ref.weekday() < 6 else -1)
    if word in ("today", "tonight", "this morning", "this afternoon", "this evening"):
        return _days(ref)
    if word == "tomorrow":
        return _days(ref + _DAY)
    if word == "the day after tomorrow":
        return _days(ref + 2 * _DAY)
    if word == "yesterday":
        return _days(ref - _DAY)
    if word.endswith("weekend"):
        shift = {"next": 7, "last": -7}.get(word.split()[0], 0)
        if ref.weekday() == 6 and not shift:  # on a Sunday, "this weekend" is today
            return _days(ref)
        return _days(saturday + timedelta(days=shift), 2)
    if word == "the week after next":
        return _week(monday + timedelta(days=14))
    if word.endswith("week"):
        shift = {"next": 7, "last": -7}.get(word.split()[0], 0)
        if word.startswith("later"):
            return Span(_midnight(ref), _midnight(monday + timedelta(days=7)))
        if word.startswith("earlier"):
            return Span(_midnight(monday), _midnight(ref + _DAY))
        return _week(monday + timedelta(days=shift))
    if word.endswith("month"):
        shift = {"next": 1, "last": -1}.get(word.split()[0], 0)
        index = ref.year * 12 + ref.month - 1 + shift
        return _month_span(index // 12, index % 12 + 1)
    shift = {"next": 1, "last": -1}.get(word.split()[0], 0)  # a year
    return Span(
        _midnight(date(ref.year + shift, 1, 1)), _midnight(date(ref.year + shift + 1, 1, 1))
    )


def _day_of_month(ref: date, d: int, month: int | None) -> date | None:
    """The ``d``-th of ``month`` nearest ``ref``, or, with no month, the next ``d``-th."""
    if month is not None:
        return _safe_date(_nearest_year(ref, month, d), month, d)
    for shift in range(0, 3):
        index = ref.year * 12 + ref.month - 1 + shift
        when = _safe_date(index // 12, index % 12 + 1, d)
        if when is not None and when >= ref:
            return when
    return None


def _weekday(ref: date, weekday: int, which: str, past: bool) -> date:
    """The day a weekday names, said on ``ref``.

    The next one; the previous one after "last" or in the past tense; after "next", next
    week's (Monday to Sunday): "next Thursday" said on a Wednesday is eight days away, said
    on a Saturday five ("this Thursday", "this coming Thursday": the nearest).
    """
    ahead = (weekday - ref.weekday()) % 7
    if which == "last" or (past and which not in ("next", "this", "coming", "this coming")):
        return ref - timedelta(days=(ref.weekday() - weekday) % 7 or 7)
    if which == "next" and ref.weekday() + ahead <= 6:  # next week's ("next Thursday")
        ahead += 7
    return ref + timedelta(days=ahead)
