"""Import of a portable export: every record checked first, then written into one user.

The other half of :mod:`langgraph_prax_memory._portable` (the format, reading and export).
Every record is checked with the checks its write makes before the first write, so a file
with one invalid record imports nothing; the records go into the caller's user only. The
writes are all or nothing: a store that fails half-way has everything undone
(:mod:`langgraph_prax_memory._portable_undo`). Graph records are loaded as they were
exported (mention counts, sightings and creation times kept).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from langgraph_prax_memory._parts import HasParts, MemoryParts, parts_of
from langgraph_prax_memory._portable_format import ImportReceipt, read_export
from langgraph_prax_memory._portable_undo import ImportUndo
from langgraph_prax_memory._progress import ProgressCallback, notify
from langgraph_prax_memory._validation import (
    check_importance,
    check_tags,
    check_text,
    check_user_id,
    to_utc,
    utcnow,
)
from langgraph_prax_memory.errors import ConfigError, MemoryValidationError
from langgraph_prax_memory.graph import (
    DEFAULT_ENTITY_TYPE,
    CausalLink,
    Entity,
    Relation,
    TemporalEvent,
    entity_id,
    prep_load,
)
from langgraph_prax_memory.vectors import point_id

__all__ = ["import_records"]

#: Memories embedded and written per call during an import (the progress step).
_IMPORT_CHUNK = 64


#: The record types of the graph.
GRAPH_KINDS = frozenset({"entity", "relation", "event", "causal_link"})

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


GraphRecord = Entity | Relation | TemporalEvent | CausalLink


def _graph_record(user_id: str, row: dict[str, Any], now: datetime) -> GraphRecord:
    """The graph record (as ``list_*`` returns them) an exported row stands for.

    Times an older or hand-written file leaves out are filled in: a first sighting is the
    last one (or ``now``), a last sighting the first, a creation time ``now``; a mention
    count is 1, an importance 0.5.

    Raises:
        MemoryValidationError: A field of the wrong kind.
    """
    kind = row["type"]
    try:
        if kind == "entity":
            first = _when(row, "first_seen") or _when(row, "last_seen") or now
            return Entity(
                id="",
                user_id=user_id,
                name=row["name"],
                display_name=row["display_name"],
                type=row.get("entity_type") or DEFAULT_ENTITY_TYPE,
                importance=_or(row.get("importance"), 0.5),
                mention_count=_or(row.get("mention_count"), 1),
                first_seen=first,
                last_seen=_when(row, "last_seen") or first,
                properties=_or(row.get("properties"), {}),
            )
        if kind == "relation":
            first = _when(row, "first_seen") or _when(row, "last_seen") or now
            return Relation(
                id="",
                user_id=user_id,
                source=row["source"],
                target=row["target"],
                source_id="",
                target_id="",
                type=row["relation_type"],
                weight=row.get("weight") or 1.0,
                evidence=_or(row.get("evidence"), ""),
                first_seen=first,
                last_seen=_when(row, "last_seen") or first,
                valid_from=to_utc(row["valid_from"], what="valid_from"),
                valid_until=_when(row, "valid_until"),
            )
        if kind == "event":
            return TemporalEvent(
                id="",
                user_id=user_id,
                description=row["description"],
                occurred_at=to_utc(row["occurred_at"], what="occurred_at"),
                importance=_or(row.get("importance"), 0.5),
                created_at=_when(row, "created_at") or now,
                participants=_or(row.get("participants"), []),
            )
        return CausalLink(
            id="",
            user_id=user_id,
            cause=row["cause"],
            effect=row["effect"],
            importance=_or(row.get("importance"), 0.5),
            created_at=_when(row, "created_at") or now,
            cause_entities=_or(row.get("cause_entities"), []),
            effect_entities=_or(row.get("effect_entities"), []),
        )
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or kind}: {err['msg']}" for err in exc.errors()
        )
        raise MemoryValidationError(problems) from None


def _or(value: Any, default: Any) -> Any:
    """``value``, or ``default`` when it is ``None`` (an exported ``null``)."""
    return default if value is None else value


def _check_record(
    parts: MemoryParts,
    user_id: str,
    row: dict[str, Any],
    id_map: dict[str, str],
    now: datetime,
) -> GraphRecord | None:
    """Check one record with the checks its write makes (nothing is written).

    Returns:
        The graph record of a graph row (``None`` for other rows).

    Raises:
        MemoryValidationError: The record would be refused by its write.
    """
    from langgraph_prax_memory.ltm import prepare_memory
    from langgraph_prax_memory.notes.store import check_notes_content
    from langgraph_prax_memory.stm import check_key

    kind = row["type"]
    if kind in GRAPH_KINDS:
        record = _graph_record(user_id, row, now)
        prep_load(parts.graph.vocabulary, user_id, record)
        return record
    if kind == "memory":
        prepare_memory(user_id, _memory_item(row, id_map), parts.config.max_content_chars)
    elif kind == "stm":
        check_key(row["key"])
        check_text(row["content"], max_chars=parts.config.max_content_chars)
        check_importance(row.get("importance", 0.5))
        check_tags(row.get("tags"))
    elif kind == "notes":
        check_notes_content(row["content"], parts.notes.max_bytes)
    return None


def _check_records(
    parts: MemoryParts,
    user_id: str,
    rows: list[dict[str, Any]],
    id_map: dict[str, str],
    now: datetime,
) -> list[GraphRecord]:
    """Validate every record before anything is written (an invalid record imports nothing).

    Each record is checked with the checks its write makes (the same functions), so a record
    that passes is one its write accepts.

    Returns:
        The graph records of the graph rows, in order.

    Raises:
        MemoryValidationError: The first invalid record, by its line in the file.
    """
    records: list[GraphRecord] = []
    for number, row in enumerate(rows, 2):  # line 1 is the header
        kind = row["type"]
        missing = [f for f in _REQUIRED.get(kind, ()) if row.get(f) in (None, "")]
        if missing:
            raise MemoryValidationError(
                f"record {number} ({kind}) lacks {', '.join(missing)}; nothing of the file "
                "was imported"
            )
        try:
            record = _check_record(parts, user_id, row, id_map, now)
        except MemoryValidationError as exc:
            raise MemoryValidationError(
                f"record {number} ({kind}): {exc}; nothing of the file was imported"
            ) from exc
        if record is not None:
            records.append(record)
    return records


def _memories_to_write(
    parts: MemoryParts,
    user_id: str,
    rows: list[dict[str, Any]],
    id_map: dict[str, str],
    receipt: ImportReceipt,
) -> list[dict[str, Any]]:
    """The ``remember_many`` items of the memories the user does not have as they are."""
    if not rows:
        return []
    existing = {
        m.key: m for m in parts.ltm.list_memories(user_id, limit=parts.ltm.count(user_id) + 1)
    }
    items = []
    for row in rows:
        item = _memory_item(row, id_map)
        old = existing.get(item["key"])
        if old is not None and old.content == item["content"]:
            receipt.add("memory", False)
            continue
        items.append(item)
        receipt.add("memory", True)
    return items


def _memory_ids(parts: MemoryParts, user_id: str, items: list[dict[str, Any]]) -> list[str]:
    """The ids of the points ``items`` are written to (their keys decide them)."""
    from langgraph_prax_memory.ltm import prepare_memory
    from langgraph_prax_memory.retrieval import ltm_namespace

    ns = ltm_namespace(user_id)
    limit = parts.config.max_content_chars
    return [point_id(ns, prepare_memory(user_id, item, limit).key) for item in items]


def _load_graph(
    parts: MemoryParts,
    user_id: str,
    records: list[GraphRecord],
    receipt: ImportReceipt,
    undo: ImportUndo,
) -> None:
    """Load the graph records as they are, in one transaction, and count what was new."""
    graph = parts.graph
    undo.graph = made = graph.load_records(
        user_id,
        entities=[r for r in records if isinstance(r, Entity)],
        relations=[r for r in records if isinstance(r, Relation)],
        events=[r for r in records if isinstance(r, TemporalEvent)],
        links=[r for r in records if isinstance(r, CausalLink)],
    )
    new_entities = set(made.entities)
    given: set[str] = set()
    created = {
        "relation": len(made.relations),
        "event": len(made.temporal_events),
        "causal_link": len(made.causal_links),
    }
    for record in records:
        if isinstance(record, Entity):
            ent = entity_id(user_id, record.display_name)
            receipt.add("entity", ent in new_entities and ent not in given)
            given.add(ent)
            continue
        kind = {Relation: "relation", TemporalEvent: "event", CausalLink: "causal_link"}[
            type(record)
        ]
        receipt.add(kind, created[kind] > 0)
        created[kind] -= 1


def import_records(
    memory: MemoryParts | HasParts,
    lines: Iterable[str | bytes],
    *,
    user_id: str | None = None,
    progress: ProgressCallback | None = None,
) -> ImportReceipt:
    """Load an export into ``user_id``: all of it or nothing. Idempotent.

    The records go into ``user_id`` only: the header's ``user_id`` (the user the file was
    exported from) and any user id inside a record are never used, so a crafted file cannot
    write into another user. ``lines`` are text lines or bytes (decoded as UTF-8).

    Every record is checked before the first write, so an invalid one imports nothing. Then
    the graph is written (one transaction; entities, relations, events and causal links as
    they were exported: mention counts, sightings, creation times), the memories, the
    scratchpad and the notes. When one of them fails half-way, what the import wrote is
    undone: the records it created are deleted, the memories, scratchpad entries and notes
    it replaced are written back as they were, so the user is left as before the import.
    Records the user already has are skipped, so importing the same file twice changes
    nothing the second time.

    ``progress(done, total, "records")`` is called as records are imported (memories in
    chunks of 64, each chunk embedded in one call).

    Raises:
        MemoryValidationError: No ``user_id`` was given (nothing is read), or a record holds
            invalid data (nothing is written).
        PortableFormatError: The input is not a readable export (nothing is written).
        ConfigError: The file holds graph records and the graph store cannot load records
            (a duck-typed store without ``load_records``; nothing is written).
        PraxMemoryError: A store failed while the import wrote: the error's own class
            (``DiskFullError``, ``BackendUnavailable``, ...) or ``MemoryWriteError``, saying
            what failed and that nothing of the file was kept, or, when undoing failed too,
            that the user may hold part of it (importing the file again completes it).
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
    graph_rows = [r for r in rows if r["type"] in GRAPH_KINDS]
    memory_rows = [r for r in rows if r["type"] == "memory"]
    stm_rows = [r for r in rows if r["type"] == "stm"]
    notes_rows = [r for r in rows if r["type"] == "notes"]
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
    records = _check_records(parts, target, rows, id_map, utcnow())
    notify(progress, 0, len(rows), "records")
    ltm = parts.ltm.available
    if ltm and graph_rows and not hasattr(parts.graph, "load_records"):
        raise ConfigError(
            f"the graph store {type(parts.graph).__name__} cannot load records "
            "(no load_records): subclass langgraph_prax_memory.graph.GraphStore to import "
            "graph records; nothing was imported"
        )
    items = _memories_to_write(parts, target, memory_rows, id_map, receipt) if ltm else []
    undo = ImportUndo(parts, target)
    if items:
        undo.before_memories(_memory_ids(parts, target, items))
    if stm_rows:
        undo.before_scratchpad()
    if notes_rows:
        undo.before_notes()
    with undo.guard():
        if ltm:
            if graph_rows:
                undo.begin("graph", f"{len(graph_rows)} graph records")
                _load_graph(parts, target, records, receipt, undo)
                tick(len(graph_rows))
            tick(len(memory_rows) - len(items))  # those already there
            for start in range(0, len(items), _IMPORT_CHUNK):
                chunk = items[start : start + _IMPORT_CHUNK]
                undo.begin("memories", f"memories {start + 1} to {start + len(chunk)}")
                parts.ltm.remember_many(target, chunk)
                tick(len(chunk))
        elif graph_rows or memory_rows:
            receipt.warnings.append(
                f"long-term memory is disabled: {len(memory_rows)} memories and "
                f"{len(graph_rows)} graph records were not imported"
            )
            tick(len(graph_rows) + len(memory_rows))
        for row in stm_rows:
            old = parts.stm.get(target, row["key"])
            same = old is not None and (old.content, old.importance, old.tags) == (
                row["content"],
                row.get("importance", 0.5),
                row.get("tags") or [],
            )
            if not same:
                undo.begin("scratchpad", f"scratchpad entry {row['key']!r}")
                parts.stm.write(
                    target, row["key"], row["content"], row.get("importance"), row.get("tags") or []
                )
            receipt.add("stm", not same)
            tick(1)
        for row in notes_rows:
            same = parts.notes.read(target) == row["content"]
            if not same:
                undo.begin("notes", "notes")
                parts.notes.update(target, row["content"])
            receipt.add("notes", not same)
            tick(1)
    if done < len(rows):  # records of a type this version does not import
        notify(progress, len(rows), len(rows), "records")
    return receipt
