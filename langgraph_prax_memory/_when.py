"""When a text says something happens, and which days a request asks about.

A person's plans and events are dated in the words they were said with: "on 19 December",
"on the 12th", "this Friday", "next week", "in January", "over Christmas". A request that
names a span of time ("block out my calendar for the next two weeks", "plan the week of the
7th", "what should I pack for my outing on the 12th") makes what the person has on in that
span relevant, whatever words it shares with it: a good assistant checks the diary.

:func:`spans_of` reads the spans a text names, relative to a reference time (a memory's
creation time, a request's ``now``). English time expressions are a closed grammar (dates,
weekdays, parts of the week, months, a few feasts, "the next two weeks"), so this is a small
reader of that grammar rather than a model; a recurring time ("every Friday", "on Saturday
mornings") names no single span and is left out (a routine is a standing fact, given by the
profile tier). Months and days without a year take the occurrence nearest to the reference
time, a weekday the next one (the previous one when the text is in the past tense).

Dates are UTC calendar days: a span is ``[start, end)`` at midnight UTC.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from langgraph_prax_memory._calendar import (
    _DAY,
    _ORDINALS,
    Span,
    _count,
    _day_of_month,
    _days,
    _midnight,
    _month_of,
    _month_span,
    _nearest_year,
    _relative,
    _safe_date,
    _unit_days,
    _week,
    _weekday,
)
from langgraph_prax_memory._weekdays import _SENTENCE_END, WEEKDAY, WEEKDAYS, recurs

__all__ = [
    "Span",
    "asked_spans",
    "dates_an_episode",
    "envelope",
    "names_a_day",
    "spans_of",
    "weekdays_in",
]


# "May" and "March" are months only when capitalized; other full names in any case
_MONTH = (
    r"(?P<month>(?i:january|february|april|june|july|august|september|october|november|december)"
    r"|May|March|(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?(?=\s*\d))"
    r"(?![^\W\d_])"  # a whole word: "Maya", "Mayfair", "Marchant" name no month
)
_DAYNUM = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(?P<year>(?:19|20)\d\d))?"
_NUM = (
    r"(?P<n>\d{1,2}|a couple of|couple of|a few|few|an?|one|two|three|four|five|six|seven|"
    r"eight|nine|ten)"
)
_UNIT = r"(?P<unit>day|days|week|weeks|month|months|night|nights|fortnight)"

_ISO = re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>[01]\d)-(?P<day>[0-3]\d)\b")
_ON_WEEKDAY = r"(?:(?i:monday|tuesday|wednesday|thursday|friday|saturday|sunday),?\s+)?"
_DAY_MONTH = re.compile(rf"\b{_ON_WEEKDAY}{_DAYNUM}(?:\s+of)?\s+{_MONTH}{_YEAR}\b")
_MONTH_DAY = re.compile(rf"\b{_ON_WEEKDAY}{_MONTH}\s+{_DAYNUM}\b{_YEAR}(?![:.]\d)")
_WEEK_OF = re.compile(rf"(?i:\bweek\s+of\s+(?:the\s+)?){_DAYNUM}(?:(?:\s+of)?\s+{_MONTH})?\b")
_NTH_WEEK = re.compile(
    r"(?i:\b(?P<nth>first|1st|second|2nd|third|3rd|fourth|last)\s+(?:full\s+)?week\s+of\s+)"
    + _MONTH
)
# "on the 12th": an ordinal that stands alone (a date), not one before a noun ("the 3rd floor")
_ORDINAL_DAY = re.compile(
    r"(?i:\b(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday),?\s+)?the\s+)"
    r"(?P<day>[0-3]?\d)(?i:st|nd|rd|th)\b"
    r"(?=\s*(?:$|[.,;:!?)\u2013-]|(?i:at|and|or|to|till|until|for|when|if|so|but|from|in|on|"
    r"this|next|is|was|i|we|please|then|as|because|since|that|which|with|before|after|"
    r"between|by|around|about)\b))"
)
#: the next days of a list after "the 10th": ", 17th and 24th"
_MORE_ORDINAL = re.compile(
    r"\s*(?:,|\band\b|\bor\b|&)\s*(?:the\s+)?(?P<day>[0-3]?\d)(?i:st|nd|rd|th)\b"
)
_TO = r"\s*(?:-|\u2013|\u2014|(?i:to|till|until|through|thru))\s*"
#: a range of days of one month: "from 10 to 17 March", "between the 3rd and 5th of May",
#: "March 10-17" (``first`` and ``day``)
_DAY_RANGE = re.compile(
    rf"\b(?:(?i:between)\s+(?:the\s+)?(?P<first>[0-3]?\d)(?i:st|nd|rd|th)?\s+(?i:and)\s+"
    rf"|(?:(?i:from)\s+)?(?:the\s+)?(?P<first2>[0-3]?\d)(?i:st|nd|rd|th)?{_TO})"
    rf"(?:the\s+)?{_DAYNUM}(?:\s+of)?\s+{_MONTH}{_YEAR}\b"
)
_MONTH_RANGE = re.compile(
    rf"\b{_MONTH}\s+(?P<first>[0-3]?\d)(?i:st|nd|rd|th)?{_TO}{_DAYNUM}\b{_YEAR}(?![:.]\d)"
)
#: what joins two days into one span: "Monday to Wednesday", "the 10th till the 17th"
_JOIN = re.compile(rf"^{_TO}(?:the\s+)?$")
#: "between Monday and Thursday": the first day after "between", the second after "and"
_BETWEEN = re.compile(r"(?i:\bbetween\s*(?:the\s+)?)$")
#: a request's span from now up to a day: "anything due before the end of the month"
_UP_TO = re.compile(r"(?i:\b(?:before|by|until|till|up\s+to)\s*(?:the\s+)?)$")
#: a month named as the topic: "May — what's already fixed?", "April: plan it"
_TOPIC = re.compile(r"\s*(?:[\u2013\u2014:]|-\s)")
#: a time that comes back every year: a month or feast in its sentence names no one span
#: ("swims in the sea all year round, even in January", "usually in Spain in August")
_EVERY_YEAR = re.compile(
    r"(?i:\b(?:every|each)\s+(?:year|winter|summer|spring|autumn|fall)\b|\ball\s+year\b|"
    r"\byear[-\s]round\b|\bannually\b|\byearly\b|\busually\b|\balways\b)"
)
# a month alone is a span after a preposition or with a year ("in January", "May 2027"),
# never as the first word of "May I ..."
_BARE_MONTH = re.compile(
    rf"(?P<pre>(?i:\b(?:in|during|by|until|till|through|throughout|over|from|this|next|last|"
    rf"early|late|mid|end of|beginning of|start of|since|my)\s+(?:mid-?)?|\bmid-))?{_MONTH}{_YEAR}"
    rf"(?!\s*[0-3]?\d\b)"
)
_RELATIVE = re.compile(
    r"(?i:\b(?P<word>today|tonight|tomorrow|yesterday|this morning|this afternoon|"
    r"this evening|the day after tomorrow|(?:this|next|last|the coming|the)\s+weekend|"
    r"the week after next|"
    r"(?:this|next|last)\s+(?:week|month|year)|(?:later|earlier)\s+this\s+(?:week|month))\b)"
)
#: "the end of next week", "the start of the month": a part of a relative week or month
_PART_OF = re.compile(
    r"(?i:\b(?P<part>end|start|beginning)\s+of\s+(?P<which>the|this|next|last)\s+"
    r"(?P<unit>week|month)\b)"
)
_NEXT_N = re.compile(rf"(?i:\b(?P<dir>next|coming|past|last|following)\s+){_NUM}\s+{_UNIT}\b", re.I)
#: "the coming fortnight", "the past fortnight": a fortnight is no calendar unit, so it is
#: the fourteen days from (or up to) today, as "the next two weeks" is
_FORTNIGHT = re.compile(r"(?i:\b(?P<dir>next|coming|past|last|following)\s+fortnight\b)")
_IN_N = re.compile(rf"\bin\s+{_NUM}\s+{_UNIT}\b", re.I)
#: "How many minutes are there in a week?": a unit measured, not a day to come
_MEASURE = re.compile(r"\bhow\s+(?:many|much)\b[^.?!]*$", re.I)
_FOR_N = re.compile(rf"\b(?:for|spend|spending|spends)\s+{_NUM}\s+{_UNIT}\b", re.I)
_FEASTS = {
    "christmas eve": ((12, 24), 1),
    "christmas": ((12, 24), 3),
    "boxing day": ((12, 26), 1),
    "new year's eve": ((12, 31), 1),
    "new year's day": ((1, 1), 1),
    "new year": ((12, 31), 2),
    "hogmanay": ((12, 31), 1),
    "valentine's day": ((2, 14), 1),
    "halloween": ((10, 31), 1),
}
_FEAST = re.compile(
    r"(?i:\b(?P<feast>christmas eve|christmas|boxing day|new year's eve|new year's day|"
    r"new year|hogmanay|valentine's day|halloween)\b)"
)
#: Feasts whose day moves: (days from Easter Sunday, length) and US Thanksgiving
_MOVABLE = {
    "good friday": (-2, 1),
    "easter sunday": (0, 1),
    "easter monday": (1, 1),
    "easter": (-2, 4),  # Good Friday to Easter Monday
}
_MOVABLE_FEAST = re.compile(
    r"(?i:\b(?P<feast>good friday|easter sunday|easter monday|easter|thanksgiving)\b)"
)
_SINCE = re.compile(r"(?i:\bsince\s+(?:the\s+)?$)")
#: a date that comes back every year (a birthday is a standing fact, not an episode)
_YEARLY = re.compile(r"(?i:\b(?:birthdays?|anniversary|anniversaries|name day|born)\b)")
_PAST = re.compile(
    r"(?i:\b(?:was|were|went|had|did|saw|met|got|took|came|left|told|said|wrote|bought|"
    r"\w+ed)\b)"
)
_CLAUSE = re.compile(r"[,;]|\b(?:and|but)\b", re.I)
_FUTURE = re.compile(  # a verb of arranging tells of a day to come ("booked a table for Friday")
    r"(?i:\b(?:will|'ll|going to|gonna|plans?|planning|next|coming|upcoming|is|are|am|due|"
    r"(?:it|he|she|that|there|what|who|here)'s|starts?|booked|arranged|scheduled|planned|"
    r"organi[sz]ed|reserved|invited)\b)"
)


def spans_of(text: str, ref: datetime) -> list[Span]:
    """The spans of days ``text`` names, read relative to ``ref`` (UTC).

    Args:
        text: A memory's content or a request.
        ref: When it was said (a memory's creation time, a request's now).

    Returns:
        The spans in the order found (empty when the text names no day).

    Example:
        >>> ref = datetime(2026, 12, 2, tzinfo=UTC)  # a Wednesday
        >>> [str(s) for s in spans_of("User flies to Osaka on 19 December.", ref)]
        ['2026-12-19']
        >>> [str(s) for s in spans_of("Block out my calendar for the next two weeks.", ref)]
        ['2026-12-02..2026-12-15']
        >>> [str(s) for s in spans_of("Plan the week of the 7th.", ref)]
        ['2026-12-07..2026-12-13']
        >>> spans_of("User plays cricket on Saturday mornings.", ref)
        []
    """
    return _read(text, ref, asked=False)


def _read(text: str, ref: datetime, *, asked: bool) -> list[Span]:
    try:
        return _spans(text, ref, asked=asked)
    except (ValueError, OverflowError):  # a span past the calendar's ends (year 1, 9999)
        return []


def _spans(text: str, ref: datetime, *, asked: bool = False) -> list[Span]:
    day = ref.astimezone(UTC).date()
    past = bool(_PAST.search(text)) and not _FUTURE.search(text)
    found: list[_Found] = []
    sentences = _Sentences(text)

    def free(m: re.Match[str]) -> bool:
        return not any(f.start < m.end() and m.start() < f.end for f in found)

    def add(m: re.Match[str], span: Span, kind: str = "") -> None:
        if _SINCE.search(text, 0, m.start()) or m.group(0).lower().startswith("since"):
            span = Span(span.start, span.end, span.here_and_now, since=True)
        elif asked and _UP_TO.search(text, 0, m.start()) and span.end > _midnight(day):
            span = Span(min(span.start, _midnight(day)), span.end)  # "before the 20th"
        found.append(_Found(m.start(), m.end(), span, kind))

    for m in [*_DAY_RANGE.finditer(text), *_MONTH_RANGE.finditer(text)]:
        if not free(m):  # "from 10 to 17 March", "March 10-17"
            continue
        of, to_day = _month_of(m.group("month")), int(m.group("day"))
        from_day = int(m.groupdict().get("first") or m.group("first2"))
        year = int(m.group("year")) if m.group("year") else _nearest_year(day, of, from_day)
        start, end = _safe_date(year, of, from_day), _safe_date(year, of, to_day)
        if start is not None and end is not None and start < end:
            add(m, Span(_midnight(start), _midnight(end) + _DAY))

    for m in _WEEK_OF.finditer(text):
        d = int(m.group("day"))
        month = _month_of(m.group("month")) if m.group("month") else None
        target = _day_of_month(day, d, month)
        if target is not None:
            add(m, _week(target - timedelta(days=target.weekday())))
    for m in _NTH_WEEK.finditer(text):
        month = _month_of(m.group("month"))
        year = _nearest_year(day, month)
        nth = m.group("nth").lower()
        last = _month_span(year, month).end.date() - timedelta(days=7)
        first = last if nth == "last" else date(year, month, 1 + 7 * _ORDINALS[nth])
        add(m, _days(first, 7))
    for m in _ISO.finditer(text):  # "2026-12-07", as summaries and tools write dates
        when = _safe_date(int(m.group("year")), int(m.group("month")), int(m.group("day")))
        if when is not None:
            add(m, _days(when))
    for pattern in (_DAY_MONTH, _MONTH_DAY):
        for m in pattern.finditer(text):
            if not free(m):
                continue
            month, d = _month_of(m.group("month")), int(m.group("day"))
            year = int(m.group("year")) if m.group("year") else _nearest_year(day, month, d)
            when = _safe_date(year, month, d)
            if when is not None:
                add(m, _days(when))
    for m in _NEXT_N.finditer(text):
        if free(m):
            n = _count(m.group("n"))
            length = _unit_days(m.group("unit"), n)
            if m.group("dir").lower() in ("past", "last"):
                add(m, Span(_midnight(day - timedelta(days=length)), _midnight(day + _DAY)))
            else:
                add(m, Span(_midnight(day), _midnight(day + timedelta(days=length))))
    for m in _FORTNIGHT.finditer(text):
        if free(m):
            if m.group("dir").lower() in ("past", "last"):
                add(m, Span(_midnight(day - timedelta(days=14)), _midnight(day + _DAY)))
            else:
                add(m, Span(_midnight(day), _midnight(day + timedelta(days=14))))
    for m in _IN_N.finditer(text):
        if free(m) and not _MEASURE.search(text[: m.start()]):
            length = _unit_days(m.group("unit"), _count(m.group("n")))
            add(m, _days(day + timedelta(days=length)))

    def yearly(m: re.Match[str]) -> bool:  # "swims all year round, even in January"
        begin, stop = sentences.of(m.start())
        return _EVERY_YEAR.search(text, begin, stop) is not None

    for m in _FEAST.finditer(text):
        if free(m) and not yearly(m):
            (month, d), length = _FEASTS[m.group("feast").lower()]
            year = _nearest_year(day, month, d)
            add(m, _days(date(year, month, d), length))
    for m in _MOVABLE_FEAST.finditer(text):
        if free(m) and not yearly(m):
            feast = m.group("feast").lower()
            year = min(
                (day.year - 1, day.year, day.year + 1),
                key=lambda y: abs((_feast_day(feast, y) - day).days),
            )
            first = _feast_day(feast, year)
            add(m, _days(first, _MOVABLE.get(feast, (0, 1))[1]))
    for m in _PART_OF.finditer(text):
        if not free(m):
            continue
        which = m.group("which").lower()
        whole = _relative(f"{'this' if which == 'the' else which} {m.group('unit')}", day)
        length = (whole.end - whole.start).days
        part = max(3, length // 4)  # the first or last few days: 3 of a week, 7 of a month
        if m.group("part").lower() == "end":
            add(m, Span(whole.end - part * _DAY, whole.end))
        else:
            add(m, Span(whole.start, whole.start + part * _DAY))
    for m in _RELATIVE.finditer(text):
        if free(m):
            span = _relative(m.group("word"), day)
            if span.start <= _midnight(day) < span.end:  # "this week": the here and now
                span = Span(span.start, span.end, here_and_now=True)
            add(m, span)
    for m in _BARE_MONTH.finditer(text):
        topic = _TOPIC.match(text, m.end()) is not None  # "May — what's already fixed?"
        if not free(m) or not (m.group("pre") or m.group("year") or topic):
            continue
        if not m.group("year") and yearly(m):
            continue
        month = _month_of(m.group("month"))
        pre = (m.group("pre") or "").strip().lower()
        if m.group("year"):
            year = int(m.group("year"))
        elif pre == "next":
            year = day.year + (month <= day.month)
        elif pre in ("last", "since"):
            year = day.year - (month >= day.month)
        else:
            year = _nearest_year(day, month)
        span = _month_span(year, month)
        if pre in ("until", "till", "by"):
            span = Span(min(span.start, _midnight(day)), span.end)
        add(m, span)
    for m in _ORDINAL_DAY.finditer(text):  # "on the 12th", "in April: the 10th, 17th and 24th"
        if not free(m):
            continue
        within = _context(found, sentences.of(m.start()), m.start())
        item: re.Match[str] | None = m
        while item is not None:
            d = int(item.group("day"))
            on = _day_in(within, d) or _day_of_month(day, d, None)
            if on is not None:
                add(item, _days(on))
            item = _MORE_ORDINAL.match(text, item.end())
    for m in WEEKDAY.finditer(text):
        if not free(m) or recurs(text, m, ranges=not asked):
            continue
        which = (m.group("which") or "").lower()
        weekday = WEEKDAYS.index(m.group("wd").lower())
        week = _context(found, sentences.of(m.start("wd")), m.start("wd"), weeks=True)
        if week is not None and which in ("", "on"):  # "Monday to Wednesday next week"
            add(m, _days(week.start.date() + timedelta(days=weekday)), "weekday")
        else:  # the tense of the weekday's own clause, when it has one ("..., fitted it on Tue")
            clause = _CLAUSE.split(text[: m.start()])[-1] + _CLAUSE.split(text[m.start() :])[0]
            tensed = _PAST.search(clause) or _FUTURE.search(clause)
            told = bool(_PAST.search(clause)) and not _FUTURE.search(clause) if tensed else past
            add(m, _days(_weekday(day, weekday, which, told)), "weekday")
    for m in _FOR_N.finditer(text):  # "... on 9 December for a week": the span lasts
        before = [f for f in found if f.start < m.start()]
        if before:
            length = _unit_days(m.group("unit"), _count(m.group("n")))
            stay = max(before, key=lambda f: f.start)  # the day named just before
            stay.span = Span(stay.span.start, max(stay.span.end, stay.span.start + length * _DAY))
    return [f.span for f in _joined(sorted(found, key=lambda f: f.start), text)]


def asked_spans(text: str, now: datetime) -> list[Span]:
    """The spans of days a request asks about, read at ``now``.

    As :func:`spans_of`, and as a request means them: a span after "before", "by" or "until"
    runs from today ("anything due before the end of the month"), and a span that holds a
    narrower one named with it gives way to it ("early next week, Monday to Wednesday": the
    Monday to the Wednesday; "in April, on the 10th": the 10th).

    Example:
        >>> now = datetime(2027, 3, 10, tzinfo=UTC)  # a Wednesday
        >>> [str(s) for s in asked_spans("What do I have next week, Monday to Wednesday?", now)]
        ['2027-03-15..2027-03-17']
        >>> [str(s) for s in asked_spans("Any deadlines before the end of the month?", now)]
        ['2027-03-10..2027-03-31']
    """
    spans = _read(text, now, asked=True)
    return [
        s
        for s in spans
        if not any(o is not s and s.start <= o.start and o.end <= s.end and o != s for o in spans)
    ]


@dataclass
class _Found:
    """A span read from a text, where its words are, and what named it."""

    start: int
    end: int
    span: Span
    kind: str = ""


def _context(
    found: list[_Found], bounds: tuple[int, int], at: int, *, weeks: bool = False
) -> Span | None:
    """The week or month named in the sentence ``bounds`` of ``at`` that a day is read in.

    A day of the month ("the 5th") takes the week or month named before it ("in the first
    week of May, on the 5th"); a weekday takes the one week named anywhere in its sentence
    (``weeks``: "Monday to Wednesday next week").
    """
    begin, stop = bounds
    best: Span | None = None
    for f in found:
        length = (f.span.end - f.span.start).days
        if weeks:
            fits = length == 7 and f.span.start.weekday() == 0 and begin <= f.start < stop
        else:
            fits = 7 <= length <= 31 and begin <= f.start and f.end <= at
        if fits and not f.span.since:
            best = f.span
    return best


class _Sentences:
    """Where the sentences of a text begin and end (read once, on first use)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._marks: tuple[list[int], list[int]] | None = None

    def of(self, at: int) -> tuple[int, int]:
        """``(begin, stop)`` of the sentence holding position ``at``."""
        if self._marks is None:
            found = list(_SENTENCE_END.finditer(self._text))
            self._marks = ([m.start() for m in found], [m.end() for m in found])
        starts, ends = self._marks
        i = bisect.bisect_right(ends, at)
        j = bisect.bisect_left(starts, at)
        return (ends[i - 1] if i else 0, starts[j] if j < len(starts) else len(self._text))


def _day_in(span: Span | None, d: int) -> date | None:
    """The day of ``span`` that is the ``d``-th of its month (``None``: none is)."""
    if span is None:
        return None
    when = span.start.date()
    while _midnight(when) < span.end:
        if when.day == d:
            return when
        when += _DAY
    return None


def _joined(found: list[_Found], text: str) -> list[_Found]:
    """``found`` with each two days joined into one span by "to", "till", "-" or "between".

    "Monday to Wednesday", "the 10th till the 17th", "between Monday and Thursday": the
    first day to the second (a weekday before the first is the next week's).
    """
    out: list[_Found] = []
    for f in found:
        prev = out[-1] if out else None
        gap = text[prev.end : f.start] if prev else ""
        if prev is not None and (
            _JOIN.match(gap)
            or (
                re.fullmatch(r"\s*(?i:and)\s*(?:the\s+)?", gap)
                and _BETWEEN.search(text[: prev.start])
            )
        ):
            end = f.span.end
            while f.kind == "weekday" and end <= prev.span.start:
                end += 7 * _DAY
            if prev.span.start < end <= prev.span.start + 62 * _DAY:
                prev.span = Span(prev.span.start, end, prev.span.here_and_now, prev.span.since)
                prev.end = f.end
                continue
        out.append(f)
    return out


def _easter(year: int) -> date:
    """Easter Sunday of ``year`` (the Gregorian computus, Meeus/Jones/Butcher)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    ell = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 19 * ell) // 433
    month = (h + ell - 7 * m + 90) // 25
    return date(year, month, (h + ell - 7 * m + 33 * month + 19) % 32)


def _feast_day(feast: str, year: int) -> date:
    """The first day of a movable feast in ``year``."""
    if feast == "thanksgiving":  # the fourth Thursday of November (the US)
        first = date(year, 11, 1)
        return first + timedelta(days=(3 - first.weekday()) % 7 + 21)
    return _easter(year) + timedelta(days=_MOVABLE[feast][0])


def envelope(spans: list[Span]) -> Span | None:
    """The smallest span holding all of ``spans`` (``None`` for none).

    Example:
        >>> a = Span(datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC))
        >>> b = Span(datetime(2026, 1, 5, tzinfo=UTC), datetime(2026, 1, 6, tzinfo=UTC))
        >>> str(envelope([a, b]))
        '2026-01-01..2026-01-05'
    """
    if not spans:
        return None
    return Span(min(s.start for s in spans), max(s.end for s in spans))


def names_a_day(text: str) -> bool:
    """Whether ``text`` dates something: names a day or span other than the here and now.

    A statement that does is a plan or an event, never small talk, whatever else it says.

    Example:
        >>> names_a_day("User has an essay due on Friday 4 December.")
        True
        >>> names_a_day("It's freezing today."), names_a_day("User likes tea.")
        (False, False)
    """
    return any(not s.here_and_now for s in spans_of(text, datetime.now(UTC)))


#: How many days to come a date may be to date an episode near the moment it was said
#: (:func:`dates_an_episode`: "exams in June"); one further off is a standing fact's future.
NEAR_DAYS = 183

#: Within how many days to come an episode a statement dates makes what else it says that
#: episode's situation ("flies out on the 20th and needs a lift"); one further off dates
#: only its own clause ("is 17 and sits his exams next June": docs/context.md, step 5).
SITUATION_DAYS = 31


def dates_an_episode(
    text: str, ref: datetime, spans: Sequence[Span] | None = None, *, ahead: int = NEAR_DAYS
) -> bool:
    """Whether ``text``, said at ``ref``, dates a plan or an event near that moment.

    A day or span other than the here and now, not the start of a state ("since March"),
    not a yearly date (a birthday), beginning between 45 days before and half a year after
    ``ref``: "check-up on the 17th", "exams in June", "blood test last week". Dates further
    back are the history of a standing fact ("married in June 2019"). ``spans``: the text's
    spans when the caller has read them already (``spans_of(text, ref)``); ``ahead``: how
    many days after ``ref``'s day count as near (0: only what has happened, up to today).

    Example:
        >>> at = datetime(2027, 3, 10, tzinfo=UTC)
        >>> dates_an_episode("Diabetes check-up on the 17th at 10:00.", at)
        True
        >>> [dates_an_episode(t, at) for t in ("User got married in June 2019.",
        ...  "User has been vegan since January.", "User's birthday is on 2 April.")]
        [False, False, False]
    """
    if _YEARLY.search(text):
        return False
    said = _midnight(ref.astimezone(UTC).date())
    return any(
        said - 45 * _DAY <= s.start <= said + ahead * _DAY
        for s in (spans_of(text, ref) if spans is None else spans)
        if not (s.here_and_now or s.since)
    )


def weekdays_in(spans: list[Span], *, longest: int = 14) -> frozenset[int]:
    """The weekdays ``spans`` cover, when they cover at most ``longest`` days in all.

    A request about "next week" or "this weekend" is about the routines of those days; one
    about "January" is not about every routine.

    Example:
        >>> sat = datetime(2026, 12, 5, tzinfo=UTC)
        >>> sorted(weekdays_in([Span(sat, sat + 2 * _DAY)]))
        [5, 6]
    """
    total = sum((s.end - s.start).days for s in spans)
    if not spans or total > longest:
        return frozenset()
    days: set[int] = set()
    for s in spans:
        day = s.start
        while day < s.end and len(days) < 7:
            days.add(day.weekday())
            day += _DAY
    return frozenset(days)
