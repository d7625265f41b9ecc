"""The portable export format: its header, reading a file, and paging through a graph.

Shared by the export (:mod:`langgraph_prax_memory._portable`) and the import
(:mod:`langgraph_prax_memory._portable_import`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from langgraph_prax_memory._parts import MemoryParts
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.graph import CausalLink, TemporalEvent

__all__ = [
    "EXPORT_FORMAT",
    "EXPORT_VERSION",
    "ImportReceipt",
    "PortableFormatError",
    "read_export",
]

T = TypeVar("T")

EXPORT_FORMAT = "prax-memory-export"
EXPORT_VERSION = 1
#: Records per page of the graph's paged listings (their largest page).
PAGE = 1000


class PortableFormatError(MemoryValidationError):
    """The file is not a prax-memory export this version can read.

    A :class:`~langgraph_prax_memory.errors.MemoryValidationError` (so a
    :class:`~langgraph_prax_memory.errors.PraxMemoryError` and a ``ValueError``): bad input.
    """


@dataclass
class ImportReceipt:
    """What :func:`import_user` did: ``created`` and ``skipped`` (already there) per type."""

    user_id: str
    created: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def add(self, kind: str, created: bool) -> None:
        """Count one record."""
        bucket = self.created if created else self.skipped
        bucket[kind] = bucket.get(kind, 0) + 1


def pages(list_page: Callable[..., list[T]], user_id: str) -> Iterator[T]:
    """Every record a ``list_*`` method of the graph pages through, page after page."""
    after: str | None = None
    while True:
        page = list_page(user_id, after=after, limit=PAGE)
        yield from page
        if len(page) < PAGE:
            return
        after = page[-1].id  # type: ignore[attr-defined]


def events_and_links(
    parts: MemoryParts, user_id: str
) -> tuple[list[TemporalEvent], list[CausalLink]]:
    """Every event and causal link of ``user_id``, oldest first."""
    graph = parts.graph
    if hasattr(graph, "list_events") and hasattr(graph, "list_causal_links"):
        events = list(pages(graph.list_events, user_id))
        links = list(pages(graph.list_causal_links, user_id))
    else:
        events = graph.get_events(user_id, limit=PAGE)
        links = graph.get_causal_links(user_id, limit=PAGE)
    events.sort(key=lambda e: (e.occurred_at, e.created_at, e.id))
    links.sort(key=lambda c: (c.created_at, c.id))
    return events, links


def _decoded(lines: Iterable[str | bytes]) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of each line; bytes are decoded as UTF-8 (strictly).

    Raises:
        PortableFormatError: A line is not valid UTF-8 (read as bytes here, or by the text
            file the caller opened).
    """
    source = iter(lines)
    number = 0
    while True:
        number += 1
        try:
            line = next(source)
        except StopIteration:
            return
        except UnicodeDecodeError as exc:  # a text file opened by the caller
            raise _not_utf8(number, exc) from exc
        if isinstance(line, bytes | bytearray):
            try:
                line = bytes(line).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _not_utf8(number, exc) from exc
        yield number, line


def _not_utf8(number: int, exc: UnicodeDecodeError) -> PortableFormatError:
    bad = exc.object[exc.start : exc.start + 1].hex() if exc.object else "?"
    return PortableFormatError(
        f"line {number} is not valid UTF-8 (byte 0x{bad} at position {exc.start} of the "
        "line): an export is UTF-8 JSON Lines, as prax-memory export writes it; convert the "
        "file to UTF-8 (e.g. iconv -t UTF-8) or export it again"
    )


def read_export(lines: Iterable[str | bytes]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Parse an export: ``(header, records)``.

    ``lines`` are text lines, or bytes (decoded as UTF-8), e.g. a file opened ``"rb"``.

    Raises:
        PortableFormatError: Not an export (not UTF-8, not JSON, nested deeper than JSON
            can be read, no header), or a version this library does not read.
    """
    rows: list[dict[str, Any]] = []
    for number, line in _decoded(lines):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise PortableFormatError(f"line {number} is not JSON: {exc}") from exc
        except RecursionError:
            raise PortableFormatError(
                f"line {number} nests JSON arrays or objects too deep to read (an export "
                "nests at most a few levels): the file is not a prax-memory export"
            ) from None
        if not isinstance(row, dict) or "type" not in row:
            raise PortableFormatError(f"line {number} is not a record")
        rows.append(row)
    if not rows or rows[0].get("type") != "header" or rows[0].get("format") != EXPORT_FORMAT:
        raise PortableFormatError(f"not a {EXPORT_FORMAT} file (the first line is no header)")
    version = rows[0].get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise PortableFormatError(
            f"the header's version {version!r} is not a number: prax-memory export writes "
            f'"version": {EXPORT_VERSION} (a JSON number); the file was edited or written by '
            "another program"
        )
    if version < 1:
        raise PortableFormatError(
            f"the header's version {version} is not one prax-memory export writes (1 to "
            f"{EXPORT_VERSION}); the file was edited or written by another program"
        )
    if version > EXPORT_VERSION:
        raise PortableFormatError(
            f"export version {version} is newer than this library reads ({EXPORT_VERSION}): "
            "upgrade langgraph-prax-memory to import it"
        )
    return rows[0], rows[1:]
