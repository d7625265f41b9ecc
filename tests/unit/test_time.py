"""``_time.to_datetime``: every shape a backend stores a time in, as an aware UTC datetime."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import neo4j.time
import pytest

from langgraph_prax_memory._time import to_datetime
from langgraph_prax_memory.errors import MemoryValidationError

NOON = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "value",
    [
        "2026-01-01T12:00:00+00:00",  # what SQLite stores (Moment.iso)
        "2026-01-01T12:00:00Z",
        "2026-01-01T14:00:00+02:00",
        "2026-01-01T12:00:00",  # naive text is UTC
        NOON,
        datetime(2026, 1, 1, 12, 0),  # naive datetime is UTC
        datetime(2026, 1, 1, 7, 0, tzinfo=timezone(timedelta(hours=-5))),
        NOON.timestamp(),
        int(NOON.timestamp()),
        neo4j.time.DateTime(2026, 1, 1, 12, 0, 0, tzinfo=UTC),  # what Neo4j returns
        neo4j.time.DateTime(2026, 1, 1, 12, 0, 0),  # a LocalDateTime-like value
    ],
)
def test_every_stored_shape_is_the_same_utc_instant(value: object) -> None:
    got = to_datetime(value)
    assert got == NOON
    assert got.tzinfo is UTC


def test_a_date_is_midnight_utc() -> None:
    assert to_datetime(date(2026, 1, 1)) == datetime(2026, 1, 1, tzinfo=UTC)
    assert to_datetime(neo4j.time.Date(2026, 1, 1)) == datetime(2026, 1, 1, tzinfo=UTC)


def test_an_object_whose_text_is_iso_is_read() -> None:
    class Stamp:
        def __str__(self) -> str:
            return "2026-01-01T12:00:00+00:00"

    assert to_datetime(Stamp()) == NOON


def test_neo4j_nanoseconds_are_truncated_to_microseconds() -> None:
    value = neo4j.time.DateTime(2026, 1, 1, 12, 0, 0, 123456789, tzinfo=UTC)
    assert to_datetime(value) == NOON.replace(microsecond=123456)


@pytest.mark.parametrize("bad", ["yesterday", "", True, None, float("nan"), object()])
def test_what_is_not_a_time_is_a_value_error(bad: object) -> None:
    with pytest.raises(MemoryValidationError, match="stored time"):
        to_datetime(bad)
    with pytest.raises(ValueError):
        to_datetime(bad)
