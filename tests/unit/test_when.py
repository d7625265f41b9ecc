"""The days a text names (``_when.spans_of``): dates, weekdays, weeks, months, feasts.

Pure: every case is read against a fixed reference time, Wednesday 2 December 2026.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from langgraph_prax_memory._weekdays import weekdays_of
from langgraph_prax_memory._when import Span, envelope, spans_of, weekdays_in

REF = datetime(2026, 12, 2, 15, 30, tzinfo=UTC)  # a Wednesday


def _read(text: str, ref: datetime = REF) -> list[str]:
    return [str(s) for s in spans_of(text, ref)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a day of a month, either order, with or without its weekday or year
        ("User flies to Osaka on 19 December.", ["2026-12-19"]),
        ("the meeting is on December 19th at 10", ["2026-12-19"]),
        ("Essay due on Friday 4 December.", ["2026-12-04"]),
        ("User was born on 4 July 1990.", ["1990-07-04"]),
        ("Flight lands Dec 3.", ["2026-12-03"]),
        ("On 2026-03-02, 1 memory was consolidated.", ["2026-03-02"]),
        # the nearest occurrence: January said in December is next January
        ("Samira flies to Beirut on 15 January.", ["2027-01-15"]),
        ("User went to Lisbon on 3 October.", ["2026-10-03"]),
        # a stay that lasts
        ("User flies to Kansai on 9 December for a week of meetings.", ["2026-12-09..2026-12-15"]),
        ("flying out on 15 January to spend six weeks with her sister", ["2027-01-15..2027-02-25"]),
        # ordinals alone, weekdays, relative days
        ("Write me a packing list for my outing on the 12th.", ["2026-12-12"]),
        ("see you on the 1st.", ["2027-01-01"]),
        ("The gig is on Friday.", ["2026-12-04"]),
        ("next Wednesday", ["2026-12-09"]),
        ("User saw the dentist on Monday.", ["2026-11-30"]),
        ("Suggest something for dinner tonight.", ["2026-12-02"]),
        ("tomorrow", ["2026-12-03"]),
        ("Reply to whoever wrote yesterday.", ["2026-12-01"]),
        # weeks and weekends
        ("When could I fit in a dentist appointment next week?", ["2026-12-07..2026-12-13"]),
        ("Make me a study schedule for this week.", ["2026-11-30..2026-12-06"]),
        ("Plan something for this weekend.", ["2026-12-05..2026-12-06"]),
        ("Plan the week of the 7th.", ["2026-12-07..2026-12-13"]),
        ("Block out my calendar for the next two weeks.", ["2026-12-02..2026-12-15"]),
        ("anything in the next few days?", ["2026-12-02..2026-12-04"]),
        ("Who collects the kids in the first week of January?", ["2027-01-01..2027-01-07"]),
        # months after a preposition, feasts
        ("Georges' roster changes in January.", ["2027-01-01..2027-01-31"]),
        ("Naidoo is on sabbatical until March.", ["2026-12-02..2027-03-31"]),
        ("User got married in June 2019.", ["2019-06-01..2019-06-30"]),
        ("wait until after Christmas?", ["2026-12-24..2026-12-26"]),
        # movable feasts: Easter 2027 is 28 March, US Thanksgiving 2026 the 26th of November
        ("User is visiting her parents over Easter.", ["2027-03-26..2027-03-29"]),
        ("the shop shuts on Good Friday", ["2027-03-26"]),
        ("User hosted Thanksgiving for twelve.", ["2026-11-26"]),
        ("the report is due at the end of next week", ["2026-12-11..2026-12-13"]),
        ("at the start of the month", ["2026-12-01..2026-12-07"]),
        ("Book something for the week after next.", ["2026-12-14..2026-12-20"]),
        ("User's sister visits mid-December.", ["2026-12-01..2026-12-31"]),
        ("How many bags can I take? I fly in a week.", ["2026-12-09"]),  # its own sentence
        # a fortnight is no calendar unit: the fourteen days from, or up to, today
        ("What have I got on over the coming fortnight?", ["2026-12-02..2026-12-15"]),
        ("User has been ill for the past fortnight.", ["2026-11-18..2026-12-02"]),
    ],
)
def test_spans_read(text: str, expected: list[str]) -> None:
    assert _read(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # recurring times are routines, not a span
        "Karim plays cricket on Saturday mornings.",
        "User runs every Friday.",
        "User swims on Sundays.",
        "User swims every Tuesday and Thursday.",
        # words that only look like dates
        "May I ask something?",
        "We march on.",
        "January is always busy.",
        "User lives on the 3rd floor.",
        "User is the 2nd child.",
        "User is 5 feet 10.",
        "The user's shop has a business loan until 2028.",
        "User prefers tea over coffee.",
        # a unit measured, not a day to come (session 9)
        "How many minutes are there in a week?",
        "How much does a nurse earn in a year?",
        # a time that comes back every year names no one span (session 12)
        "Ingrid swims in the sea all year round, even in January.",
        "User is usually in Spain in August.",
        "Every year the family goes to Kraków over Christmas.",
        # a month is a whole word (session 12: "in Maya" read May)
        "Does the dog stay in Maya's flat?",
        "User lives in Mayfair and works in Marchmont Street.",
        "Drinks in Juneau's bar.",
        "",
    ],
)
def test_no_span(text: str) -> None:
    assert spans_of(text, REF) == []


def test_a_sunday_weekend_is_today() -> None:
    sunday = datetime(2026, 12, 6, 9, tzinfo=UTC)
    assert _read("this weekend", sunday) == ["2026-12-06"]
    assert _read("next weekend", sunday) == ["2026-12-12..2026-12-13"]


def test_reference_time_in_another_zone_is_read_in_utc() -> None:
    from datetime import timedelta, timezone

    late = datetime(2026, 12, 2, 23, 30, tzinfo=timezone(timedelta(hours=-5)))  # 3 Dec UTC
    assert _read("tomorrow", late) == ["2026-12-04"]


def test_spans_overlap_and_envelope() -> None:
    a = spans_of("on 9 December for a week", REF)[0]
    b = spans_of("on the 12th", REF)[0]
    c = spans_of("on 19 December", REF)[0]
    assert a.overlaps(b) and b.overlaps(a)
    assert not a.overlaps(c)
    whole = envelope([a, c])
    assert isinstance(whole, Span) and str(whole) == "2026-12-09..2026-12-19"
    assert envelope([]) is None


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("Karim plays junior cricket on Saturday mornings.", {5}),
        ("User swims every Tuesday and Thursday.", {1, 3}),
        ("User does the big shop at Tesco every Thursday.", {3}),
        ("Tuesdays are for choir.", {1}),
        ("User works from home at weekends.", {5, 6}),
        ("User went hiking over the weekend.", set()),
        ("User cycles to work every weekday.", {0, 1, 2, 3, 4}),
        ("The café is shut on weekdays.", {0, 1, 2, 3, 4}),
        ("The team holds a sprint review every second Thursday at 10:00.", {3}),
        ("User runs a book club on the first Tuesday of each month.", {1}),
        ("User pays the staff on the last Friday of the month.", {4}),
        ("Ellie plays in a Saturday morning football team.", {5}),
        ("User works night shifts from Monday to Wednesday.", {0, 1, 2}),
        ("so Tuesday and Wednesday mornings I sleep", {1, 2}),
        ("The gig is on Friday.", set()),
        ("User prefers tea.", set()),
    ],
)
def test_weekdays_of_a_routine(text: str, days: set[int]) -> None:
    assert weekdays_of(text) == days


def test_weekdays_in_a_short_span_only() -> None:
    assert weekdays_in(spans_of("this weekend", REF)) == {5, 6}
    assert weekdays_in(spans_of("next week", REF)) == set(range(7))
    assert weekdays_in(spans_of("in January", REF)) == set()
    assert weekdays_in([]) == set()


def test_a_state_since_a_recent_day_is_not_an_episode() -> None:
    from langgraph_prax_memory._when import dates_an_episode

    assert not dates_an_episode("User has been vegan since November.", REF)
    assert not dates_an_episode("User has lived in Leeds since last week.", REF)
    assert dates_an_episode("User moved to Leeds last week.", REF)


def test_the_calendars_ends_read_no_span_and_raise_nothing() -> None:
    end = datetime(9999, 12, 20, tzinfo=UTC)
    assert spans_of("next month", end) == []
    assert [str(s) for s in spans_of("on 19 December", end)] == ["9999-12-19"]
    assert spans_of("last month", datetime(1, 1, 5, tzinfo=UTC)) == []


# -- session 12: ranges, days in a named month or week, next week's weekday, what a request asks


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a range of days is one span, each end in
        ("Rui is away from 10 to 17 December.", ["2026-12-10..2026-12-17"]),
        ("an onsen trip for their anniversary, 17–19 December", ["2026-12-17..2026-12-19"]),
        ("a coding camp running 12 to 16 January", ["2027-01-12..2027-01-16"]),
        ("pickup December 22nd to 24th", ["2026-12-22..2026-12-24"]),
        ("December 10-12 in Leeds", ["2026-12-10..2026-12-12"]),
        ("between the 3rd and 5th of January", ["2027-01-03..2027-01-05"]),
        ("from the 10th till the 17th", ["2026-12-10..2026-12-17"]),
        # a day of the month after a named month or week is that month's or week's
        (
            "a course on three Saturdays in January: the 9th, 16th and 23rd.",
            ["2027-01-01..2027-01-31", "2027-01-09", "2027-01-16", "2027-01-23"],
        ),
        (
            "Lena defends in the first week of February, on the 5th.",
            ["2027-02-01..2027-02-07", "2027-02-05"],
        ),
        ("the 5th. In February, maybe.", ["2026-12-05", "2027-02-01..2027-02-28"]),  # not across
        # a weekday beside its date is the one day
        ("Technician coming Thursday the 10th between 9:00 and 13:00", ["2026-12-10"]),
        ("her e-bike back by Friday the 4th", ["2026-12-04"]),
        # "next <weekday>": next week's (REF is a Wednesday)
        ("next Thursday", ["2026-12-10"]),
        ("next Monday", ["2026-12-07"]),
        ("this Thursday", ["2026-12-03"]),
        # a weekday range inside a named week is those days, not a weekly schedule
        (
            "User is in Berlin Monday to Wednesday next week.",
            ["2026-12-07..2026-12-09", "2026-12-07..2026-12-13"],
        ),
        ("Last week I saw Tom on Monday.", ["2026-11-23..2026-11-29", "2026-11-23"]),
    ],
)
def test_ranges_and_days_in_their_context(text: str, expected: list[str]) -> None:
    assert _read(text) == expected


def test_next_weekday_from_the_end_of_a_week() -> None:
    saturday = datetime(2026, 12, 5, tzinfo=UTC)
    assert _read("next Thursday", saturday) == ["2026-12-10"]
    assert _read("next Sunday", saturday) == ["2026-12-13"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a narrower span named with a broader one is what is asked
        ("What have I got on early next week, Monday to Wednesday?", ["2026-12-07..2026-12-09"]),
        ("What do I have between Monday and Thursday next week?", ["2026-12-07..2026-12-10"]),
        ("In January, what's on the 9th?", ["2027-01-09"]),
        # a weekday range alone in a request is the coming days
        ("What do I have Monday to Wednesday?", ["2026-12-07..2026-12-09"]),
        # up to a day: from today
        ("Anything with a deadline before the end of the month?", ["2026-12-02..2026-12-31"]),
        ("What must be done by Friday?", ["2026-12-02..2026-12-04"]),
        # a month as the topic, a month as the person's
        ("May — what's already fixed?", ["2027-05-01..2027-05-31"]),
        ("Plan my January for me.", ["2027-01-01..2027-01-31"]),
        ("May I ask you something?", []),
    ],
)
def test_what_a_request_asks(text: str, expected: list[str]) -> None:
    from langgraph_prax_memory._when import asked_spans

    assert [str(s) for s in asked_spans(text, REF)] == expected


def test_a_yearly_time_is_read_only_in_its_own_sentence() -> None:
    text = "User always swims in the lake. The family visits in January."
    assert _read(text) == ["2027-01-01..2027-01-31"]
    assert _read("User got married in June 2019, as always.") == ["2019-06-01..2019-06-30"]


def test_a_memory_reads_its_deadline_and_schedule_as_said() -> None:
    # only a request runs from today to a deadline; a memory is dated on its day
    assert _read("User must return the book by the 15th.") == ["2026-12-15"]
    # "works Monday to Wednesday" is a routine, in a memory as before
    assert spans_of("User works night shifts from Monday to Wednesday.", REF) == []
    assert weekdays_of("User is in Berlin Monday to Wednesday next week.") == set()
    # the week named must be the range's sentence's
    schedule = "User works Monday to Wednesday. Next week she is off."
    assert weekdays_of(schedule) == {0, 1, 2}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the weekday's own clause is past though the sentence has a present (session 14)
        ("User's broadband is with Gigaclear now, the engineer fitted it on Tuesday.",
         ["2026-12-01"]),
        ("User went to the dentist on Monday and is going back on Friday.",
         ["2026-11-30", "2026-12-04"]),
        # a clause with no tense of its own takes the sentence's
        ("On Tuesday User fixed the boiler.", ["2026-12-01"]),
        ("User is seeing the dentist on Tuesday.", ["2026-12-08"]),
        # a verb of arranging tells of a day to come, whatever its form or clause (review)
        ("User has booked a table at Dishoom for Friday and is excited", ["2026-12-04"]),
        ("User arranged a viewing on Friday, they are nervous", ["2026-12-04"]),
        ("User booked a table for Friday.", ["2026-12-04"]),
        # a possessive is no "is": the past of the clause holds
        ("User's boiler was fixed on Monday.", ["2026-11-30"]),
        ("User's party is on Saturday.", ["2026-12-05"]),
    ],
)  # fmt: skip
def test_a_weekday_is_read_in_the_tense_of_its_own_clause(text: str, expected: list[str]) -> None:
    """Fails when one present verb anywhere makes every weekday of the text the next one."""
    assert [str(s) for s in spans_of(text, REF)] == expected
