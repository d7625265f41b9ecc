"""The dated tier: a person's episodes in the span of days a request names.

"Block out my calendar for the next two weeks" shares no word with "User is flying to Kansai
on 9 December", and no embedding puts them close; a good assistant checks the diary all the
same. Each memory records, when it is written, the days its text names
(:func:`dated_fields`: ``when_start`` / ``when_end``, epoch seconds, read by
:func:`langgraph_prax_memory._when.spans_of` relative to the memory's creation time). A
request that names a span (:func:`~langgraph_prax_memory._when.spans_of` read at its
``now``) selects the user's episodes dated in it
with one engine filter (:func:`dated_filter`); for a span in the past ("the people who wrote
to me yesterday") an episode that names no day counts when it was recorded in the span;
for spans of at most two weeks, routines on their weekdays count too (``weekdays``).
Other standing facts are the profile tier's; small talk is never given.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from qdrant_client.http import models

from langgraph_prax_memory._time import to_datetime
from langgraph_prax_memory._weekdays import weekdays_of
from langgraph_prax_memory._when import (
    NEAR_DAYS,
    SITUATION_DAYS,
    Span,
    asked_spans,
    dates_an_episode,
    envelope,
    spans_of,
    weekdays_in,
)
from langgraph_prax_memory.facts import EPISODE, SMALL_TALK, STANDING, FactClass
from langgraph_prax_memory.retrieval import ltm_filter

if TYPE_CHECKING:
    from langgraph_prax_memory.models import MemoryHit
    from langgraph_prax_memory.retrieval import RecallResult


class _Recalls(Protocol):
    """What the tier needs of a memory (``PraxMemory``; no import of the facade here)."""

    def recall_detailed(
        self,
        user_id: str,
        query: str,
        *,
        k: int = ...,
        now: datetime | None = ...,
        reinforce: bool = ...,
        where: models.Filter | None = ...,
    ) -> RecallResult: ...


__all__ = ["DATED_FIELDS", "dated_episodes", "dated_fields", "dated_filter"]

#: A request about the person's own life: it speaks of what is theirs ("my trip", "our
#: anniversary"). "How do I ..." and "Tell me ..." are everyone's.
_OWN_LIFE = re.compile(r"\b(?:my|our|mine|ours)\b", re.I)
_NAME_WORD = re.compile(r"[^\W\d_][\w'\u2019-]*")

#: The payload fields of a memory's dated span (epoch seconds, ``[start, end)``) and of
#: the weekdays of its routine.
DATED_FIELDS = ("when_start", "when_end", "weekdays")


def dated_fields(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The payload fields a stored memory gets for the days its text names.

    ``when_start`` / ``when_end`` (epoch seconds) when it names any; ``weekdays`` (Monday
    is 0) when it names a recurring time ("on Saturday mornings": a routine's days); and a
    memory its text alone called small talk that names a day other than the here and now
    ("essay due on Friday 4 December"), or called standing that dates a plan or an event
    near when it was said (:func:`~langgraph_prax_memory._when.dates_an_episode`: "check-up
    on the 17th"), is an episode (``fact_by`` ``"date"``): a plan when the day is still to
    come when it was said, else an event; one the grammar made standing, only when the day
    is within :data:`~langgraph_prax_memory._when.SITUATION_DAYS` to come (as the grammar
    reads a text: a day further off dates its own clause, "is 17 and sits his exams next
    June"). Empty when it names no day.

    Example:
        >>> dated_fields({"content": "User flies to Kansai on 9 December.",
        ...               "created_ts": datetime(2026, 12, 1, tzinfo=UTC).timestamp()})
        {'when_start': 1796774400.0, 'when_end': 1796860800.0}
    """
    text = str(payload.get("content") or "")
    created = payload.get("created_ts")
    if not text.strip() or not isinstance(created, (int, float)):
        return {}
    out: dict[str, Any] = {}
    days = weekdays_of(text)
    if days:
        out["weekdays"] = sorted(days)
    said = datetime.fromtimestamp(float(created), UTC)
    spans = spans_of(text, said)
    span = envelope(spans)
    if span is None:
        return out
    out.update(when_start=span.start.timestamp(), when_end=span.end.timestamp())
    by_text = payload.get("fact_by") in ("text", "grammar")
    if by_text and (
        (payload.get("fact_class") == SMALL_TALK and any(not s.here_and_now for s in spans))
        or (
            payload.get("fact_class") == STANDING
            and dates_an_episode(
                text,
                said,
                spans,
                ahead=SITUATION_DAYS if payload.get("fact_by") == "grammar" else NEAR_DAYS,
            )
        )
    ):
        confidence = payload.get("fact_confidence")
        kind = "plan" if span.end > said else "event"
        dated = FactClass(EPISODE, kind, float(confidence or 0.5), "date")
        out.update(dated.payload())
    return out


def dated_filter(user_id: str, spans: Sequence[Span], now: datetime) -> models.Filter:
    """The user's memories in ``spans``: episodes dated there, routines on their weekdays.

    An episode counts when its days meet a span (or, for a past span, when it names no day
    and was recorded in it); for spans of at most two weeks in all, a routine (any class
    but small talk) on one of the weekdays they cover counts too.

    Example:
        >>> s = Span(datetime(2026, 12, 7, tzinfo=UTC), datetime(2026, 12, 14, tzinfo=UTC))
        >>> f = dated_filter("alice", [s], datetime(2026, 12, 2, tzinfo=UTC))
        >>> len(f.should)  # a routine on those weekdays, an episode dated in them
        2
    """
    base = ltm_filter(user_id)
    episode = models.FieldCondition(key="fact_class", match=models.MatchValue(value="episode"))
    small_talk = models.FieldCondition(
        key="fact_class", match=models.MatchValue(value="small_talk")
    )
    should: list[models.Condition] = []
    days = weekdays_in(list(spans))
    if days:  # a routine on those days ("next week": the Tuesday swim)
        on_days = models.FieldCondition(key="weekdays", match=models.MatchAny(any=sorted(days)))
        should.append(models.Filter(must=[on_days], must_not=[small_talk]))
    for span in spans:
        start, end = span.start.timestamp(), span.end.timestamp()
        should.append(
            models.Filter(
                must=[
                    episode,
                    models.FieldCondition(key="when_start", range=models.Range(lt=end)),
                    models.FieldCondition(key="when_end", range=models.Range(gt=start)),
                ]
            )
        )
        if span.start < now:  # what happened then: recorded in the span, naming no day
            should.append(
                models.Filter(
                    must=[
                        episode,
                        models.IsEmptyCondition(is_empty=models.PayloadField(key="when_start")),
                        models.FieldCondition(
                            key="created_ts",
                            range=models.Range(gte=start, lt=min(end, now.timestamp())),
                        ),
                    ]
                )
            )
    return models.Filter(must=base.must, must_not=base.must_not, should=should)


def _in_spans(hit: MemoryHit, spans: Sequence[Span], now: datetime) -> bool:
    """Whether the memory's days meet ``spans``.

    Its routine's weekdays, else its own spans, else (naming no day) its creation day.
    """
    m = hit.memory
    if weekdays_of(m.content) & weekdays_in(list(spans)):
        return True
    created = to_datetime(m.created_at)
    own = spans_of(m.content, created)
    if own:
        return any(a.overlaps(b) for a in own for b in spans)
    return any(s.start <= created < min(s.end, now) for s in spans)


def dated_episodes(
    memory: _Recalls,
    user_id: str,
    message: str,
    *,
    limit: int,
    now: datetime,
    coming_days: int = 0,
    coming_limit: int = 0,
    companion: float | None = None,
    people: Collection[str] = (),
) -> tuple[list[MemoryHit], list[Span]]:
    """The user's episodes in the span of days ``message`` names, most relevant first.

    A request about the person's own life ("Make me a packing list for my trip", "Help me
    choose a present for my wife") that names no day is about their coming weeks: with
    ``coming_days`` > 0, the next ``coming_days`` days stand for its span, and at most
    ``coming_limit`` of the episodes dated there join, those whose (hubness-corrected)
    cosine to it reaches ``companion`` — as near as a hit kept beside a relevant one must
    be. A good assistant has the person's flight on the 20th in mind when asked to pack.
    ``people``: the names of those the request calls by their relation to the user ("a
    present for my wife": Kasia, :func:`~langgraph_prax_memory.retrieval.kin_named`): their
    episodes of the past and the coming ``coming_days`` days join too, whatever the cosine
    ("Kasia's birthday is on the 10th", "Mum had a fall last week"), the nearest in time first.

    Returns:
        ``(hits, spans)``: at most ``limit`` episodes (scored for the message, nothing
        reinforced) and the spans the message names (the coming days when it stands for
        them); both empty when it names none.

    Example:
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir="/tmp/prax-dated"))
        >>> at = datetime(2026, 12, 2, tzinfo=UTC)
        >>> _ = mem.remember("u1", "User flies to Kansai on 9 December.", created_at=at)
        >>> hits, spans = dated_episodes(mem, "u1", "Plan my next week.", limit=3, now=at)
        >>> [h.memory.content for h in hits], [str(s) for s in spans]
        (['User flies to Kansai on 9 December.'], ['2026-12-07..2026-12-13'])
    """
    spans = asked_spans(message, now)
    coming = not spans and coming_days > 0 and _OWN_LIFE.search(message) is not None
    ahead: list[Span] = []
    if coming:
        today = datetime(now.year, now.month, now.day, tzinfo=now.tzinfo or UTC)
        ahead = [Span(today, today + timedelta(days=coming_days), coming=True)]
        back = [Span(today - timedelta(days=coming_days), today, coming=True)] if people else []
        spans = ahead + back
        limit = min(limit, coming_limit)
    if not spans or limit <= 0:
        return [], ([] if coming else spans)
    where = dated_filter(user_id, spans, now)
    result = memory.recall_detailed(
        user_id,
        message,
        k=50 if people else min(4 * limit, 50),
        now=now,
        reinforce=False,
        where=where,
    )
    hits = [h for h in result.hits if _in_spans(h, spans, now)]
    # the diary of those days first: an episode dated there, then a routine on their weekdays
    # (the week's background, which the profile tier may give too)
    hits.sort(key=lambda h: h.memory.fact_class != EPISODE)
    if coming:
        bar = 0.0 if companion is None else companion
        theirs = [h for h in hits if names_in(h.memory.content, people)]
        theirs.sort(key=lambda h: abs((_day_of(h) - now).total_seconds()))
        taken = {h.memory.id for h in theirs}
        near = [
            h
            for h in hits
            if h.memory.id not in taken
            and _in_spans(h, ahead, now)
            and (h.scores.get("dense") or 0.0) - h.hubness >= bar
        ]
        hits = theirs + near
    return hits[:limit], ahead if coming else spans


def names_in(content: str, names: Collection[str]) -> set[str]:
    """Which of ``names`` (case-folded) ``content`` names ("Kasia's" names Kasia).

    A name is written with a capital: "will" does not name Will.

    Example:
        >>> sorted(names_in("Kasia's birthday: Will will bake.", {"kasia", "will", "tom"}))
        ['kasia', 'will']
        >>> names_in("I will call later.", {"will"})
        set()
    """
    if not names:
        return set()
    words = {
        w.casefold().replace("\u2019", "'").removesuffix("'s")
        for w in _NAME_WORD.findall(content)
        if w[:1].isupper()
    }
    return words & set(names)


def _day_of(hit: MemoryHit) -> datetime:
    """The first day a memory names, else the day it was written."""
    created = to_datetime(hit.memory.created_at)
    own = spans_of(hit.memory.content, created)
    return own[0].start if own else created
