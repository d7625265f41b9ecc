"""Times read back from storage, as aware UTC datetimes: one parser for every backend.

The graph backends (SQLite text, Neo4j temporal values) and the knowledge rows store times in
different shapes; :func:`to_datetime` turns each of them into the same aware UTC
:class:`~datetime.datetime`. Input checking of times a caller passes in is
:func:`langgraph_prax_memory._validation.to_utc`, which this builds on (one ISO-8601 parser).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time

from langgraph_prax_memory._validation import to_utc

__all__ = ["to_datetime"]


def to_datetime(value: object, *, what: str = "stored time") -> datetime:
    """A stored time as an aware UTC datetime.

    Accepts a :class:`~datetime.datetime` (naive ones are read as UTC), ISO-8601 text (``Z``
    or an offset; none means UTC), epoch seconds, a :class:`~datetime.date` (midnight UTC), a
    Neo4j temporal value (anything with ``to_native()``, e.g. ``neo4j.time.DateTime``) and any
    other object whose ``str()`` is ISO-8601 text.

    Args:
        value: The stored value.
        what: What the value is, for the error message.

    Returns:
        The same instant, aware, in UTC.

    Raises:
        MemoryValidationError: The value is not a time (a ``ValueError``).

    Example:
        >>> to_datetime("2026-01-01T12:00:00+02:00")
        datetime.datetime(2026, 1, 1, 10, 0, tzinfo=datetime.timezone.utc)
        >>> to_datetime(datetime(2026, 1, 1))
        datetime.datetime(2026, 1, 1, 0, 0, tzinfo=datetime.timezone.utc)
    """
    to_native = getattr(value, "to_native", None)
    if callable(to_native):
        value = to_native()
    if isinstance(value, date) and not isinstance(value, datetime):
        value = datetime.combine(value, time(), tzinfo=UTC)
    if not isinstance(value, datetime | str | int | float) or isinstance(value, bool):
        value = str(value)
    return to_utc(value, what=what)
