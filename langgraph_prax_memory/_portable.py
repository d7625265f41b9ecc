"""Portable JSONL export / import of one user's memory, and forgetting a user everywhere.

The export is one JSON object per line. The first line is a header::

    {"type": "header", "format": "prax-memory-export", "version": 1, "user_id": "alice", ...}

followed by ``memory``, ``entity``, ``relation``, ``event``, ``causal_link``, ``stm`` and
``notes`` records. Import is idempotent: memories keep their keys (so their point ids), graph
records are matched by name / validity / deterministic id, scratchpad entries by key and
content, notes by content — importing the same file twice changes nothing the second time.
Everything goes through the public facade, so every write stays scoped to one user.
"""

from __future__ import annotations

import json
import string
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TextIO

from langgraph_prax_memory._parts import HasParts, MemoryParts, parts_of
from langgraph_prax_memory._progress import ProgressCallback, notify
from langgraph_prax_memory._validation import (
    check_importance,
    check_tags,
    check_text,
    check_user_id,
    to_utc,
    utcnow,
)
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.graph import Entity, Relation, entity_id

__all__ = [
    "EXPORT_FORMAT",
    "EXPORT_VERSION",
    "ExportSummary",
    "ImportReceipt",
    "PortableFormatError",
    "export_user",
    "graph_entities",
    "graph_relations",
    "import_user",
    "read_export",
]

EXPORT_FORMAT = "prax-memory-export"
EXPORT_VERSION = 1
_PROBES = string.ascii_lowercase + string.digits
_MAX_LIMIT = 1000
#: Memories embedded and written per call during an import (the progress step).
_IMPORT_CHUNK = 64


class PortableFormatError(MemoryValidationError):
    """The file is not a prax-memory export this version can read.

    A :class:`~langgraph_prax_memory.errors.MemoryValidationError` (so a
    :class:`~langgraph_prax_memory.errors.PraxMemoryError` and a ``ValueError``): bad input.
    """


@dataclass
class ExportSummary:
    """What :func:`export_user` wrote.

    Attributes:
        counts: Records written per type.
        complete: Whether every graph record counted by ``graph.stats`` was found.
        warnings: Why the export may be incomplete.
    """

    counts: dict[str, int] = field(default_factory=dict)
    complete: bool = True
    warnings: list[str] = field(default_factory=list)


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


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def graph_entities(
    memory: MemoryParts | HasParts, user_id: str, *, total: int | None = None
) -> list[Entity]:
    """Every entity of ``user_id``, by name.

    Up to 1,000 entities (one query's most) the user's whole list is one ``top_entities``
    read, whatever the names are written in. Past that (or when the read returns fewer than
    ``graph.stats`` counts), the 1,000 most important are read and the rest are probed by name
    with the graph's substring search (each letter and digit, plus every character seen in
    names found); compare with ``graph.stats`` to know whether such a listing is complete.
    ``total`` is that count when the caller has just read it (else it is read here).
    """
    parts = parts_of(memory)
    graph = parts.graph
    if total is None:
        total = graph.stats(user_id).entities
    if total == 0:
        return []
    top = graph.top_entities(user_id, limit=min(total, _MAX_LIMIT))
    found: dict[str, Entity] = {ent.id: ent for ent in top}
    if len(found) < total:  # past one read (or a store whose count and listing disagree)
        probes = list(_PROBES) + sorted({ch for ent in top for ch in ent.name if ch.strip()})
        tried: set[str] = set()
        while probes:
            probe = probes.pop()
            if probe in tried:
                continue
            tried.add(probe)
            for ent in graph.search_entities(user_id, probe, limit=_MAX_LIMIT):
                found.setdefault(ent.id, ent)
                probes.extend(ch for ch in set(ent.name) if ch.strip() and ch not in tried)
    return sorted(found.values(), key=lambda e: e.name)


def graph_relations(
    memory: MemoryParts | HasParts,
    user_id: str,
    entities: Iterable[Entity],
    *,
    include_superseded: bool,
) -> list[Relation]:
    """The relations touching ``entities`` (deduplicated), oldest ``valid_from`` first."""
    parts = parts_of(memory)
    seen: dict[str, Relation] = {}
    for ent in entities:
        found = parts.graph.get_entity(user_id, ent.name, include_superseded=include_superseded)
        for rel in found.relations if found else []:
            seen.setdefault(rel.id, rel)
    return sorted(seen.values(), key=lambda r: (r.valid_from, r.source, r.target, r.type))


def _records(parts: MemoryParts, user_id: str, summary: ExportSummary) -> Iterator[dict[str, Any]]:
    if parts.ltm.available:
        total = parts.ltm.count(user_id)
        for m in parts.ltm.list_memories(user_id, limit=max(total, 1)):
            yield {
                "type": "memory",
                "id": m.id,
                "key": m.key or m.id,
                "content": m.content,
                "source": m.source,
                "importance": m.importance,
                "created_at": _iso(m.created_at),
                "last_accessed": _iso(m.last_accessed),
                "access_count": m.access_count,
                "tags": list(m.tags),
                "entity_ids": list(m.entity_ids),
                "summary_level": m.summary_level,
                **({"context": m.context} if m.context else {}),
            }
        stats = parts.graph.stats(user_id)
        entities = graph_entities(parts, user_id, total=stats.entities)
        relations = graph_relations(parts, user_id, entities, include_superseded=True)
        events = parts.graph.get_events(user_id, limit=_MAX_LIMIT)
        links = parts.graph.get_causal_links(user_id, limit=_MAX_LIMIT)
        for what, got, want in (
            ("entities", len(entities), stats.entities),
            ("relations", len(relations), stats.relations),
            ("temporal events", len(events), stats.temporal_events),
            ("causal links", len(links), stats.causal_links),
        ):
            if got < want:
                summary.complete = False
                summary.warnings.append(f"exported {got} of {want} {what}")
        for e in entities:
            yield {
                "type": "entity",
                "id": e.id,
                "name": e.name,
                "display_name": e.display_name,
                "entity_type": e.type,
                "importance": e.importance,
                "mention_count": e.mention_count,
                "first_seen": _iso(e.first_seen),
                "last_seen": _iso(e.last_seen),
                "properties": e.properties,
            }
        for r in relations:
            yield {
                "type": "relation",
                "source": r.source,
                "target": r.target,
                "relation_type": r.type,
                "weight": r.weight,
                "evidence": r.evidence,
                "first_seen": _iso(r.first_seen),
                "last_seen": _iso(r.last_seen),
                "valid_from": _iso(r.valid_from),
                "valid_until": _iso(r.valid_until),
            }
        for ev in reversed(events):
            yield {
                "type": "event",
                "description": ev.description,
                "occurred_at": _iso(ev.occurred_at),
                "importance": ev.importance,
                "created_at": _iso(ev.created_at),
                "participants": list(ev.participants),
            }
        for link in reversed(links):
            yield {
                "type": "causal_link",
                "cause": link.cause,
                "effect": link.effect,
                "importance": link.importance,
                "created_at": _iso(link.created_at),
                "cause_entities": list(link.cause_entities),
                "effect_entities": list(link.effect_entities),
            }
    else:
        summary.warnings.append("long-term memory is disabled: memories and graph not exported")
        summary.complete = False
    for entry in parts.stm.all(user_id):
        yield {"type": "stm", **entry.to_json_dict()}
    notes = parts.notes.read(user_id)
    if notes:
        yield {"type": "notes", "content": notes}


def export_user(
    memory: MemoryParts | HasParts,
    user_id: str,
    out: TextIO,
    *,
    progress: ProgressCallback | None = None,
) -> ExportSummary:
    """Write ``user_id``'s memories, graph, scratchpad and notes to ``out`` as JSONL.

    ``progress(done, total, label)`` counts the records read (``"reading"``, total unknown
    until the end) and then written (``"writing"``).

    Example:
        >>> import io, tempfile
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(qdrant_url=":memory:", data_dir=tempfile.mkdtemp()))
        >>> _ = mem.remember("alice", "Alice prefers tea")
        >>> buf = io.StringIO()
        >>> export_user(mem, "alice", buf).counts
        {'memory': 1}
        >>> json.loads(buf.getvalue().splitlines()[0])["format"]
        'prax-memory-export'
    """
    check_user_id(user_id)
    parts = parts_of(memory)
    summary = ExportSummary()
    records: list[dict[str, Any]] = []
    notify(progress, 0, None, "reading")
    for rec in _records(parts, user_id, summary):
        records.append(rec)
        if len(records) % 100 == 0:
            notify(progress, len(records), None, "reading")
    notify(progress, len(records), len(records), "reading")
    for rec in records:
        summary.counts[rec["type"]] = summary.counts.get(rec["type"], 0) + 1
    from langgraph_prax_memory._version import __version__

    header = {
        "type": "header",
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "user_id": user_id,
        "exported_at": utcnow().isoformat(),
        "library_version": __version__,
        "counts": summary.counts,
        "complete": summary.complete,
        "warnings": summary.warnings,
    }
    out.write(json.dumps(header, ensure_ascii=False, sort_keys=True) + "\n")
    for done, rec in enumerate(records, 1):
        out.write(json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
        if done % 100 == 0 or done == len(records):
            notify(progress, done, len(records), "writing")
    return summary


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


_REQUIRED: dict[str, tuple[str, ...]] = {
    "memory": ("content",),
    "entity": ("name", "display_name"),
    "relation": ("source", "target", "relation_type", "valid_from"),
    "event": ("description", "occurred_at"),
    "causal_link": ("cause", "effect"),
    "stm": ("key", "content"),
    "notes": ("content",),
}


def _memory_item(row: dict[str, Any], id_map: dict[str, str]) -> dict[str, Any]:
    """The ``remember_many`` item an exported memory record becomes.

    Raises:
        MemoryValidationError: ``entity_ids`` is not a list of strings.
    """
    ids = row.get("entity_ids") or []
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise MemoryValidationError("entity_ids must be a list of entity ids (strings)")
    return {
        "key": row.get("key") or row.get("id"),
        "content": row.get("content"),
        "importance": row.get("importance", 0.5),
        "tags": row.get("tags") or None,
        "source": row.get("source") or "conversation",
        "created_at": row.get("created_at"),
        "entity_ids": [id_map[i] for i in ids if i in id_map],
        "summary_level": row.get("summary_level") or None,
        "context": row.get("context") or None,
    }


def _when(row: dict[str, Any], name: str) -> datetime | None:
    """The record's time field ``name`` (``None`` when absent), checked."""
    value = row.get(name)
    return None if value in (None, "") else to_utc(value, what=name)


def _check_record(
    parts: MemoryParts, user_id: str, row: dict[str, Any], id_map: dict[str, str]
) -> None:
    """Check one record with the checks its write makes (nothing is written).

    Raises:
        MemoryValidationError: The record would be refused by its write.
    """
    from langgraph_prax_memory.graph._inputs import prep_causal, prep_event
    from langgraph_prax_memory.graph._ops import build_add_relation, build_merge_entity
    from langgraph_prax_memory.ltm import prepare_memory
    from langgraph_prax_memory.notes.store import check_notes_content
    from langgraph_prax_memory.stm import check_key

    kind = row["type"]
    vocabulary = parts.graph.vocabulary
    if kind == "memory":
        prepare_memory(user_id, _memory_item(row, id_map), parts.config.max_content_chars)
    elif kind == "entity":
        if not isinstance(row["name"], str):
            raise MemoryValidationError("name must be a string")
        build_merge_entity(
            vocabulary,
            user_id,
            row["display_name"],
            entity_type=row.get("entity_type"),
            importance=row.get("importance"),
            properties=row.get("properties") or None,
            now=_when(row, "first_seen"),
        )
    elif kind == "relation":
        valid_from = _when(row, "valid_from")
        build_add_relation(
            vocabulary,
            user_id,
            row["source"],
            row["target"],
            row["relation_type"],
            weight=row.get("weight") or 1.0,
            evidence=row.get("evidence") or None,
            valid_from=valid_from,
            now=_when(row, "first_seen"),
        )
        until = _when(row, "valid_until")
        if until is not None and valid_from is not None and until < valid_from:
            raise MemoryValidationError("valid_until is before valid_from")
    elif kind == "event":
        prep_event(
            user_id,
            row["description"],
            participants=row.get("participants") or (),
            occurred_at=_when(row, "occurred_at"),
            importance=row.get("importance"),
            now=None,
        )
    elif kind == "causal_link":
        prep_causal(
            user_id,
            row["cause"],
            row["effect"],
            cause_entities=row.get("cause_entities") or (),
            effect_entities=row.get("effect_entities") or (),
            importance=row.get("importance"),
            now=None,
        )
    elif kind == "stm":
        check_key(row["key"])
        check_text(row["content"], max_chars=parts.config.max_content_chars)
        check_importance(row.get("importance", 0.5))
        check_tags(row.get("tags"))
    elif kind == "notes":
        check_notes_content(row["content"], parts.notes.max_bytes)


def _check_records(
    parts: MemoryParts, user_id: str, rows: list[dict[str, Any]], id_map: dict[str, str]
) -> None:
    """Validate every record before anything is written (an import lands whole or not at all).

    Each record is checked with the checks its write makes (the same functions), so a record
    that passes is one its write accepts.

    Raises:
        MemoryValidationError: The first invalid record, by its line in the file.
    """
    for number, row in enumerate(rows, 2):  # line 1 is the header
        kind = row["type"]
        missing = [f for f in _REQUIRED.get(kind, ()) if row.get(f) in (None, "")]
        if missing:
            raise MemoryValidationError(
                f"record {number} ({kind}) lacks {', '.join(missing)}; nothing of the file "
                "was imported"
            )
        try:
            _check_record(parts, user_id, row, id_map)
        except MemoryValidationError as exc:
            raise MemoryValidationError(
                f"record {number} ({kind}): {exc}; nothing of the file was imported"
            ) from exc


def _import_memories(
    parts: MemoryParts,
    user_id: str,
    rows: list[dict[str, Any]],
    id_map: dict[str, str],
    receipt: ImportReceipt,
    tick: Callable[[int], None],
) -> None:
    if not rows:
        return
    existing = {
        m.key: m for m in parts.ltm.list_memories(user_id, limit=parts.ltm.count(user_id) + 1)
    }
    items = []
    for row in rows:
        item = _memory_item(row, id_map)
        old = existing.get(item["key"])
        if old is not None and old.content == item["content"]:
            receipt.add("memory", False)
            tick(1)
            continue
        items.append(item)
        receipt.add("memory", True)
    for start in range(0, len(items), _IMPORT_CHUNK):
        chunk = items[start : start + _IMPORT_CHUNK]
        parts.ltm.remember_many(user_id, chunk)
        tick(len(chunk))


def _import_graph(
    parts: MemoryParts,
    user_id: str,
    rows: list[dict[str, Any]],
    receipt: ImportReceipt,
    tick: Callable[[int], None],
) -> None:
    graph = parts.graph
    entities = [r for r in rows if r["type"] == "entity"]
    present = graph.entity_ids_for(user_id, [r["name"] for r in entities]) if entities else {}
    for row in entities:
        tick(1)
        if row["name"] in present:
            receipt.add("entity", False)
            continue
        graph.merge_entity(
            user_id,
            row["display_name"],
            entity_type=row.get("entity_type"),
            importance=row.get("importance"),
            properties=row.get("properties") or None,
            now=to_utc(row["first_seen"]) if row.get("first_seen") else None,
        )
        receipt.add("entity", True)
    relations = [r for r in rows if r["type"] == "relation"]
    relations.sort(key=lambda r: (r.get("valid_until") is None, r["valid_from"]))
    for row in relations:
        tick(1)
        found = graph.get_entity(user_id, row["source"], include_superseded=True)
        valid_from = to_utc(row["valid_from"])
        if found and any(
            rel.source == row["source"]
            and rel.target == row["target"]
            and rel.type == row["relation_type"]
            and rel.valid_from == valid_from
            for rel in found.relations
        ):
            receipt.add("relation", False)
            continue
        graph.add_relation(
            user_id,
            row["source"],
            row["target"],
            row["relation_type"],
            weight=row.get("weight") or 1.0,
            evidence=row.get("evidence") or None,
            valid_from=valid_from,
            now=to_utc(row["first_seen"]) if row.get("first_seen") else None,
        )
        if row.get("valid_until"):
            graph.supersede_relation(
                user_id,
                row["source"],
                row["target"],
                row["relation_type"],
                now=to_utc(row["valid_until"]),
            )
        receipt.add("relation", True)
    known_events = {
        (e.description, e.occurred_at) for e in graph.get_events(user_id, limit=_MAX_LIMIT)
    }
    for row in (r for r in rows if r["type"] == "event"):
        tick(1)
        occurred = to_utc(row["occurred_at"])
        new = (row["description"], occurred) not in known_events
        if new:
            graph.merge_temporal_event(
                user_id,
                row["description"],
                participants=row.get("participants") or (),
                occurred_at=occurred,
                importance=row.get("importance"),
            )
        receipt.add("event", new)
    known_links = {(c.cause, c.effect) for c in graph.get_causal_links(user_id, limit=_MAX_LIMIT)}
    for row in (r for r in rows if r["type"] == "causal_link"):
        tick(1)
        new = (row["cause"], row["effect"]) not in known_links
        if new:
            graph.add_causal_link(
                user_id,
                row["cause"],
                row["effect"],
                cause_entities=row.get("cause_entities") or (),
                effect_entities=row.get("effect_entities") or (),
                importance=row.get("importance"),
            )
        receipt.add("causal_link", new)


def import_user(
    memory: MemoryParts | HasParts,
    lines: Iterable[str | bytes],
    *,
    user_id: str | None = None,
    progress: ProgressCallback | None = None,
) -> ImportReceipt:
    """Load an export into ``user_id``. Idempotent; the file lands whole or not at all.

    The records go into ``user_id`` only: the header's ``user_id`` (the user the file was
    exported from) and any user id inside a record are never used, so a crafted file cannot
    write into another user. ``lines`` are text lines or bytes (decoded as UTF-8).

    ``progress(done, total, "records")`` is called as records are imported (memories in
    chunks of 64, each chunk embedded in one call).

    Raises:
        MemoryValidationError: No ``user_id`` was given (nothing is read), or a record holds
            invalid data; every record is checked before anything is written, so nothing of
            the file is imported.
        PortableFormatError: The input is not a readable export (nothing is written).
    """
    if user_id is None:
        raise MemoryValidationError(
            "import_user needs user_id=: the user the records are written into (an export's "
            "header names the user it came from and never chooses where it goes)"
        )
    target = check_user_id(user_id)
    parts = parts_of(memory)
    _header, rows = read_export(lines)
    receipt = ImportReceipt(user_id=target)
    graph_rows = [r for r in rows if r["type"] in {"entity", "relation", "event", "causal_link"}]
    memory_rows = [r for r in rows if r["type"] == "memory"]
    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        notify(progress, done, len(rows), "records")

    id_map = {
        r["id"]: entity_id(target, r["name"])
        for r in graph_rows
        if isinstance(r.get("id"), str) and isinstance(r.get("name"), str) and r["name"]
    }
    _check_records(parts, target, rows, id_map)
    notify(progress, 0, len(rows), "records")
    if parts.ltm.available:
        _import_graph(parts, target, graph_rows, receipt, tick)
        _import_memories(parts, target, memory_rows, id_map, receipt, tick)
    elif graph_rows or memory_rows:
        receipt.warnings.append(
            f"long-term memory is disabled: {len(memory_rows)} memories and "
            f"{len(graph_rows)} graph records were not imported"
        )
        tick(len(graph_rows) + len(memory_rows))
    for row in (r for r in rows if r["type"] == "stm"):
        old = parts.stm.get(target, row["key"])
        same = old is not None and (old.content, old.importance, old.tags) == (
            row["content"],
            row.get("importance", 0.5),
            row.get("tags") or [],
        )
        if not same:
            parts.stm.write(
                target, row["key"], row["content"], row.get("importance"), row.get("tags") or []
            )
        receipt.add("stm", not same)
        tick(1)
    for row in (r for r in rows if r["type"] == "notes"):
        same = parts.notes.read(target) == row["content"]
        if not same:
            parts.notes.update(target, row["content"])
        receipt.add("notes", not same)
        tick(1)
    if done < len(rows):  # records of a type this version does not import
        notify(progress, len(rows), len(rows), "records")
    return receipt
