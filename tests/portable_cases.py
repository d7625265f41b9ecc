"""A large graph in mixed scripts, and its export-import round trip (issue 40, item 8).

Shared by the SQLite run (``tests/unit/test_portable.py``) and the Neo4j run
(``tests/integration/graph/test_neo4j_portable.py``).
"""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta
from typing import Any

from langgraph_prax_memory import PraxMemory

T0 = datetime(2026, 1, 20, 9, 30, tzinfo=UTC)

#: Letters of each script: Georgian, Ethiopic, Thai, CJK, Cyrillic, Latin.
SCRIPTS = [
    [chr(c) for c in range(0x10D0, 0x10F1)],
    [chr(c) for c in range(0x1200, 0x1248)],
    [chr(c) for c in range(0x0E01, 0x0E2F)],
    [chr(c) for c in range(0x4E00, 0x4F00)],
    [chr(c) for c in range(0x0430, 0x0450)],
    [chr(c) for c in range(ord("a"), ord("z") + 1)],
]


def name(i: int) -> str:
    """The ``i``-th name: letters of one script only (no digit, no ASCII in five of six)."""
    letters = SCRIPTS[i % len(SCRIPTS)]
    n, word = i // len(SCRIPTS), ""
    for _ in range(3):
        n, d = divmod(n, len(letters))
        word += letters[d]
    word = letters[0] + word + letters[-1]
    return word.capitalize() if i % len(SCRIPTS) >= 4 else word  # Cyrillic, Latin: a capital


def build(mem: PraxMemory, user: str, entities: int, relations: int) -> list[str]:
    """``entities`` entities in six scripts, ``relations`` relations (a third superseded),
    events and causal links; returns the names."""
    names = [name(i) for i in range(entities)]
    assert len({n.lower() for n in names}) == entities
    types = ["person", "place", "organization", "concept", "topic", "tool"]
    for i, n in enumerate(names):
        mem.graph.merge_entity(
            user,
            n,
            entity_type=types[i % len(types)],
            importance=round(0.05 + (i % 90) / 100, 2),
            properties={"index": i, "label": n} if i % 7 == 0 else None,
            now=T0 + timedelta(minutes=i),
        )
    for i in range(relations):
        a, b = names[i], names[(i * 7 + 1) % entities]
        if a.lower() == b.lower():
            continue
        when = T0 + timedelta(hours=i)
        mem.graph.add_relation(
            user, a, b, "related_to", weight=1.0 + i % 3, evidence=f"seen {i}", valid_from=when,
            now=when,
        )  # fmt: skip
        if i % 3 == 0:
            mem.graph.supersede_relation(user, a, b, "related_to", now=when + timedelta(days=1))
    for i in range(0, entities, 5):  # seen again: mention counts above 1, later last sightings
        for again in range(1 + i % 3):
            mem.graph.merge_entity(user, names[i], now=T0 + timedelta(days=30 + again, minutes=i))
    for i in range(0, relations, 4):  # strengthened later: last_seen after first_seen
        a, b = names[i], names[(i * 7 + 1) % entities]
        if a.lower() != b.lower() and i % 3:
            later = T0 + timedelta(hours=i, days=2)
            mem.graph.add_relation(user, a, b, "related_to", evidence=f"again {i}", now=later)
    for i in range(20):
        mem.graph.merge_temporal_event(
            user, f"{names[i]} event", participants=[names[i], names[i + 1]],
            occurred_at=T0 + timedelta(days=i), importance=0.6,
            now=T0 + timedelta(days=i, seconds=7.25),
        )  # fmt: skip
        mem.graph.add_causal_link(
            user, f"cause {names[i]}", f"effect {names[i]}", cause_entities=[names[i]],
            effect_entities=[names[i + 2]], importance=0.7,
            now=T0 + timedelta(days=i, microseconds=123456),
        )  # fmt: skip
    return names


def export(mem: PraxMemory, user: str) -> list[dict[str, Any]]:
    buf = io.StringIO()
    mem.export_user(user, buf)
    return [json.loads(line) for line in buf.getvalue().splitlines()]


#: What an import does not carry over as it was: ids, derived again for the target user.
#: Everything else is (issue 40): an entity's mention count and first and last sightings, a
#: relation's weight, sightings and validity, an event's and a causal link's creation time.
DERIVED = {"id"}


def comparable(rows: list[dict[str, Any]]) -> dict[str, list[str]]:
    """The graph records of an export, by type, as sorted JSON without the ids."""
    out: dict[str, list[str]] = {}
    for row in rows[1:]:
        kept = {k: v for k, v in row.items() if k not in DERIVED}
        out.setdefault(row["type"], []).append(json.dumps(kept, sort_keys=True))
    return {kind: sorted(texts) for kind, texts in out.items()}


def by_name(rows: list[dict[str, Any]], kind: str, key: str) -> dict[str, dict[str, Any]]:
    """The records of ``kind`` of an export, by their ``key`` field."""
    return {r[key]: r for r in rows if r["type"] == kind}


def round_trip(mem: PraxMemory, source: str, target: str, entities: int, relations: int) -> None:
    """Build, export, import into ``target``, export again: the same records, exactly."""
    names = build(mem, source, entities, relations)
    first = export(mem, source)
    header = first[0]
    assert header["complete"] is True, header["warnings"]
    assert header["counts"]["entity"] == entities
    exported = {r["display_name"] for r in first if r["type"] == "entity"}
    assert exported == set(names)  # every name, byte for byte
    stats = mem.graph.stats(source)
    assert header["counts"]["relation"] == stats.relations
    receipt = mem.import_user([json.dumps(r) for r in first], user_id=target)
    assert receipt.created["entity"] == entities
    again = export(mem, target)
    assert again[0]["complete"] is True and again[0]["counts"] == header["counts"]
    # the counters and times that an import used to restart, field by field
    before, after = by_name(first, "entity", "name"), by_name(again, "entity", "name")
    assert any(e["mention_count"] > 1 for e in before.values())
    for field in ("mention_count", "first_seen", "last_seen"):
        assert {n: e[field] for n, e in after.items()} == {n: e[field] for n, e in before.items()}
    for kind, key in (("event", "description"), ("causal_link", "cause")):
        assert {k: r["created_at"] for k, r in by_name(again, kind, key).items()} == {
            k: r["created_at"] for k, r in by_name(first, kind, key).items()
        }
    rel = sorted((r["source"], r["target"], r["valid_from"], r["first_seen"], r["last_seen"])
                 for r in first if r["type"] == "relation")  # fmt: skip
    assert any(r[3] != r[4] for r in rel)
    assert rel == sorted((r["source"], r["target"], r["valid_from"], r["first_seen"],
                          r["last_seen"]) for r in again if r["type"] == "relation")  # fmt: skip
    assert comparable(again) == comparable(first)  # every record, every field but the ids
    assert mem.graph.stats(target) == stats
    # importing the same file again changes nothing
    second = mem.import_user([json.dumps(r) for r in first], user_id=target)
    assert second.created == {} and mem.graph.stats(target) == stats
