"""Portable JSONL export / import of one user's memory.

The export is one JSON object per line. The first line is a header::

    {"type": "header", "format": "prax-memory-export", "version": 1, "user_id": "alice", ...}

followed by ``memory``, ``entity``, ``relation``, ``event``, ``causal_link``, ``stm`` and
``notes`` records. Import is idempotent: memories keep their keys (so their point ids), graph
records are matched by name / validity / deterministic id, scratchpad entries by key and
content, notes by content — importing the same file twice changes nothing the second time.
Everything goes through the public facade, so every write stays scoped to one user.

This module exports; the format and the graph's paging are in ``_portable_format``, the
import (every record checked before the first write, all of it written or, when a store
fails part-way, undone) in ``_portable_import`` and ``_portable_undo``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TextIO

from langgraph_prax_memory._parts import HasParts, MemoryParts, parts_of
from langgraph_prax_memory._portable_format import (
    EXPORT_FORMAT,
    EXPORT_VERSION,
    PAGE,
    ImportReceipt,
    PortableFormatError,
    events_and_links,
    pages,
    read_export,
)
from langgraph_prax_memory._portable_import import import_records
from langgraph_prax_memory._progress import ProgressCallback, notify
from langgraph_prax_memory._validation import (
    check_user_id,
    utcnow,
)
from langgraph_prax_memory.graph import (
    Entity,
    Relation,
)

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


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def graph_entities(
    memory: MemoryParts | HasParts, user_id: str, *, total: int | None = None
) -> list[Entity]:
    """Every entity of ``user_id``, by name, whatever the names are written in.

    Read page after page (``graph.list_entities``, 1,000 a page, in id order), so any number
    of entities is listed. A duck-typed graph store without ``list_entities`` gives its
    1,000 most important only; compare with ``graph.stats`` to know whether a listing is
    complete. ``total`` is that count when the caller has just read it (then a store without
    pages is not asked for more than it holds).
    """
    graph = parts_of(memory).graph
    if hasattr(graph, "list_entities"):
        found = list(pages(graph.list_entities, user_id))
    else:
        if total is None:
            total = graph.stats(user_id).entities
        found = graph.top_entities(user_id, limit=min(max(total, 1), PAGE)) if total else []
    return sorted(found, key=lambda e: (e.name, e.id))


def graph_relations(
    memory: MemoryParts | HasParts,
    user_id: str,
    entities: Iterable[Entity],
    *,
    include_superseded: bool,
) -> list[Relation]:
    """The relations touching ``entities`` (deduplicated), oldest ``valid_from`` first."""
    graph = parts_of(memory).graph
    wanted = {ent.id: ent for ent in entities}
    seen: dict[str, Relation] = {}
    if hasattr(graph, "list_relations"):
        for rel in pages(graph.list_relations, user_id):
            touches = rel.source_id in wanted or rel.target_id in wanted
            if touches and (include_superseded or rel.valid_until is None):
                seen.setdefault(rel.id, rel)
    else:
        for ent in wanted.values():
            found = graph.get_entity(user_id, ent.name, include_superseded=include_superseded)
            for rel in found.relations if found else []:
                seen.setdefault(rel.id, rel)
    return sorted(seen.values(), key=lambda r: (r.valid_from, r.source, r.target, r.type, r.id))


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
                # the memory's class, for readers (an import classifies again, the same way)
                **({"fact_class": m.fact_class, "fact_kind": m.fact_kind} if m.fact_class else {}),
            }
        stats = parts.graph.stats(user_id)
        entities = graph_entities(parts, user_id, total=stats.entities)
        relations = graph_relations(parts, user_id, entities, include_superseded=True)
        events, links = events_and_links(parts, user_id)
        for what, got, want in (
            ("entities", len(entities), stats.entities),
            ("relations", len(relations), stats.relations),
            ("temporal events", len(events), stats.temporal_events),
            ("causal links", len(links), stats.causal_links),
        ):
            if got < want:
                summary.complete = False
                summary.warnings.append(
                    f"exported {got} of {want} {what} (the graph listed fewer than it counts)"
                )
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
        for ev in events:
            yield {
                "type": "event",
                "description": ev.description,
                "occurred_at": _iso(ev.occurred_at),
                "importance": ev.importance,
                "created_at": _iso(ev.created_at),
                "participants": list(ev.participants),
            }
        for link in links:
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


def import_user(
    memory: MemoryParts | HasParts,
    lines: Iterable[str | bytes],
    *,
    user_id: str | None = None,
    progress: ProgressCallback | None = None,
) -> ImportReceipt:
    """Load an export into ``user_id`` (see :func:`import_records`, which this calls)."""
    return import_records(memory, lines, user_id=user_id, progress=progress)
