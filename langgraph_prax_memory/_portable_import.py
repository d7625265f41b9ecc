"""Import of a portable export: every record checked first, then written into one user.

The other half of :mod:`langgraph_prax_memory._portable` (the format, reading and export).
Every record is checked with the checks its write makes before the first write, so a file
with one invalid record imports nothing; the records go into the caller's user only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from langgraph_prax_memory._parts import HasParts, MemoryParts, parts_of
from langgraph_prax_memory._portable_format import (
    ImportReceipt,
    events_and_links,
    pages,
    read_export,
)
from langgraph_prax_memory._progress import ProgressCallback, notify
from langgraph_prax_memory._validation import (
    check_importance,
    check_tags,
    check_text,
    check_user_id,
    to_utc,
)
from langgraph_prax_memory.errors import MemoryValidationError
from langgraph_prax_memory.graph import (
    build_add_relation,
    build_merge_entity,
    entity_id,
    prep_causal,
    prep_event,
)

__all__ = ["import_records"]

#: Memories embedded and written per call during an import (the progress step).
_IMPORT_CHUNK = 64


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
    """Validate every record before anything is written (an invalid record imports nothing).

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
    known: set[tuple[str, str, str, datetime]] | None = None
    if relations and hasattr(graph, "list_relations"):  # read once, not once per record
        known = {
            (rel.source, rel.target, rel.type, rel.valid_from)
            for rel in pages(graph.list_relations, user_id)
        }
    for row in relations:
        tick(1)
        valid_from = to_utc(row["valid_from"])
        key = (row["source"], row["target"], row["relation_type"], valid_from)
        if known is not None:
            there = key in known
            known.add(key)
        else:
            found = graph.get_entity(user_id, row["source"], include_superseded=True)
            there = found is not None and any(
                (rel.source, rel.target, rel.type, rel.valid_from) == key for rel in found.relations
            )
        if there:
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
    old_events, old_links = events_and_links(parts, user_id)
    known_events = {(e.description, e.occurred_at) for e in old_events}
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
    known_links = {(c.cause, c.effect) for c in old_links}
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


def import_records(
    memory: MemoryParts | HasParts,
    lines: Iterable[str | bytes],
    *,
    user_id: str | None = None,
    progress: ProgressCallback | None = None,
) -> ImportReceipt:
    """Load an export into ``user_id``. Idempotent; an invalid record imports nothing.

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
