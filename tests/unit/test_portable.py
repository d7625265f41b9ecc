"""Import lands whole or not at all: every record is checked before the first write."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from langgraph_prax_memory import MemoryValidationError, PraxMemory


def _export(memory: PraxMemory, user_id: str) -> list[str]:
    buf = io.StringIO()
    memory.export_user(user_id, buf)
    return buf.getvalue().splitlines()


def _tamper(lines: list[str], kind: str, index: int, **change: object) -> list[str]:
    """``lines`` with the ``index``-th record of ``kind`` updated by ``change``."""
    out, seen = [], 0
    for line in lines:
        row = json.loads(line)
        if row.get("type") == kind:
            if seen == index:
                row.update(change)
            seen += 1
        out.append(json.dumps(row))
    return out


@pytest.mark.parametrize(
    ("kind", "index", "change", "message"),
    [
        ("memory", 99, {"importance": 5}, "record .* importance"),  # past the first 64-chunk
        ("memory", 70, {"content": ""}, "record .*memory.* lacks content"),
        ("relation", 0, {"valid_from": "not a time"}, "record .*relation"),
        ("stm", 0, {"importance": "high"}, "record .*stm.*importance"),
    ],
)
def test_an_invalid_record_anywhere_imports_nothing(
    memory: PraxMemory, kind: str, index: int, change: dict[str, object], message: str
) -> None:
    memory.remember_many("alice", [f"Alice fact number {i}" for i in range(100)])
    memory.graph.add_relation("alice", "Alice", "jazz", "interested_in")
    memory.stm.write("alice", "todo", "buy milk", 0.5, [])
    lines = _tamper(_export(memory, "alice"), kind, index, **change)

    with pytest.raises(MemoryValidationError, match=message):
        memory.import_user(lines, user_id="carol")
    assert memory.count("carol") == 0
    assert memory.graph.get_entity("carol", "Alice") is None
    assert memory.stm.get("carol", "todo") is None

    # the untouched export still imports whole
    receipt = memory.import_user(_export(memory, "alice"), user_id="carol")
    assert receipt.user_id == "carol"
    assert memory.count("carol") == 100
    assert memory.count("alice") == 100  # the source is untouched


@pytest.mark.parametrize(
    "lines",
    [["not json"], ['{"type": "memory"}'], ['{"no": "type"}'], []],
    ids=["not-json", "no-header", "not-a-record", "empty"],
)
def test_a_file_that_is_no_export_is_one_of_our_errors(
    memory: PraxMemory, lines: list[str]
) -> None:
    from langgraph_prax_memory import PraxMemoryError
    from langgraph_prax_memory._portable import PortableFormatError

    memory.remember("carol", "Carol keeps this")
    with pytest.raises(PortableFormatError) as caught:
        memory.import_user(lines, user_id="carol")
    assert isinstance(caught.value, PraxMemoryError) and isinstance(caught.value, ValueError)
    assert memory.count("carol") == 1  # nothing lost


def test_export_lists_every_entity_whatever_its_name(memory: PraxMemory) -> None:
    # names without an ASCII letter or digit: a listing by letter and digit never finds them
    for name in ("東京", "Москва", "Zürich", "4-7-8"):
        memory.graph.merge_entity("dana", name)
    memory.graph.merge_entity("erin", "東京")  # another user's entity stays out
    lines = [json.loads(line) for line in _export(memory, "dana")]
    names = sorted(r["display_name"] for r in lines if r.get("type") == "entity")
    assert names == sorted(["東京", "Москва", "Zürich", "4-7-8"])
    assert lines[0]["complete"] is True


def test_export_past_one_query_lists_the_least_important_in_any_script(
    memory: PraxMemory,
) -> None:
    """Issue 40, item 8: 1,000 entities at importance 0.9, then three at 0.05 whose names no
    letter or digit probe reaches (Georgian, Ethiopic, Thai), and their two relations."""
    for i in range(1000):
        memory.graph.merge_entity("dana", f"topic {i:04d}", importance=0.9)
    for name in ("თბილისი", "አዲስ አበባ", "กรุงเทพ"):
        memory.graph.merge_entity("dana", name, importance=0.05)
    memory.graph.add_relation("dana", "თბილისი", "አዲስ አበባ", "related_to")
    memory.graph.add_relation("dana", "አዲስ አበባ", "กรุงเทพ", "related_to")
    lines = [json.loads(line) for line in _export(memory, "dana")]
    names = {r["display_name"] for r in lines if r.get("type") == "entity"}
    assert len(names) == 1003 and {"თბილისი", "አዲስ አበባ", "กรุงเทพ"} <= names
    assert len([r for r in lines if r.get("type") == "relation"]) == 2
    assert lines[0]["complete"] is True and not lines[0]["warnings"]


# ------------------------------------------------- unreadable files (issue 40, item 7)

HEADER = '{"type": "header", "format": "prax-memory-export", "version": 1, "user_id": "bob"}'


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([HEADER.encode(), b'{"type": "stm", "key": "k", "content": "caf\xe9"}\n'], "UTF-8"),
        ([HEADER, '{"type": "stm", "content": ' + "[" * 100_000 + "]" * 100_000 + "}"], "deep"),
        ([HEADER.replace('"version": 1', '"version": "1"')], "version '1' is not a number"),
        ([HEADER.replace('"version": 1', '"version": true')], "version True is not a number"),
        ([HEADER.replace('"version": 1', '"version": 0')], "version 0 is not one"),
    ],
    ids=["invalid-utf8", "100000-deep", "version-string", "version-bool", "version-zero"],
)
def test_an_unreadable_file_is_a_clear_format_error(
    memory: PraxMemory, lines: list[str | bytes], message: str
) -> None:
    from langgraph_prax_memory._portable import PortableFormatError

    memory.stm.write("carol", "keep", "Carol keeps this")
    with pytest.raises(PortableFormatError, match=message) as caught:
        memory.import_user(lines, user_id="carol")  # type: ignore[arg-type]
    assert "newer" not in str(caught.value)
    assert [e.key for e in memory.stm.all("carol")] == ["keep"]  # nothing written or lost


def test_invalid_utf8_names_the_line_and_byte(memory: PraxMemory, tmp_path: Any) -> None:
    from langgraph_prax_memory._portable import PortableFormatError

    path = tmp_path / "latin1.jsonl"
    path.write_bytes(HEADER.encode() + b'\n{"type": "notes", "content": "Z\xfcrich"}\n')
    with path.open("rb") as fh, pytest.raises(PortableFormatError) as caught:
        memory.import_user(fh, user_id="carol")
    text = str(caught.value)
    assert "line 2" in text and "0xfc" in text and "UTF-8" in text
    assert memory.notes.read("carol") == ""


# ------------------------------------------------- all or nothing (issue 40, item 6)

VALID = [
    {"type": "header", "format": "prax-memory-export", "version": 1, "user_id": "x"},
    {"type": "memory", "key": "m1", "content": "Dana drinks green tea"},
    {"type": "memory", "key": "m2", "content": "Dana lives in Tbilisi"},
    {"type": "memory", "key": "m3", "content": "Dana plays the oud"},
    {"type": "entity", "name": "tbilisi", "display_name": "Tbilisi", "entity_type": "place"},
    {
        "type": "relation",
        "source": "dana",
        "target": "tbilisi",
        "relation_type": "lives_in",
        "valid_from": "2026-01-01T00:00:00+00:00",
    },
    {"type": "event", "description": "Dana moved", "occurred_at": "2026-01-01T00:00:00+00:00"},
    {"type": "causal_link", "cause": "a new job", "effect": "Dana moved"},
    {"type": "notes", "content": "name: Dana\n"},
    {"type": "stm", "key": "todo", "content": "unpack"},
]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"type": "stm", "key": "bad\x01key", "content": "x"}, "record 11 .*stm.*key"),
        ({"type": "stm", "key": "k" * 300, "content": "x"}, "stm.*key"),
        ({"type": "stm", "key": "k", "content": "x" * 100_000}, "stm"),
        ({"type": "stm", "key": "k", "content": 5}, "stm"),
        ({"type": "stm", "key": "k", "content": "x", "tags": [1]}, "stm.*tag"),
        ({"type": "notes", "content": "a\x00b"}, "notes.*NUL"),
        ({"type": "notes", "content": "x" * 70_000}, "notes.*bytes"),
        ({"type": "entity", "name": "q", "display_name": "Q", "entity_type": "planet"}, "entity"),
        ({"type": "entity", "name": "q", "display_name": "Q", "importance": 7}, "entity"),
        ({"type": "entity", "name": "q", "display_name": "Q", "properties": [1]}, "entity"),
        (
            {
                "type": "relation",
                "source": "a",
                "target": "b",
                "relation_type": "mentors",
                "valid_from": "2026-01-01T00:00:00+00:00",
            },
            "relation.*relation type",
        ),
        (
            {
                "type": "relation",
                "source": "a",
                "target": "a",
                "relation_type": "related_to",
                "valid_from": "2026-01-01T00:00:00+00:00",
            },
            "relation",
        ),
        (
            {
                "type": "relation",
                "source": "a",
                "target": "b",
                "relation_type": "related_to",
                "valid_from": "2026-02-01T00:00:00+00:00",
                "valid_until": "2026-01-01T00:00:00+00:00",
            },
            "relation.*valid_until",
        ),
        (
            {"type": "event", "description": "x", "occurred_at": "2026-01-01", "participants": "a"},
            "event",
        ),
        ({"type": "causal_link", "cause": "x", "effect": "y", "importance": "high"}, "causal"),
        ({"type": "memory", "key": "m4", "content": "x", "tags": "a" * 500}, "memory"),
        ({"type": "memory", "key": ["not", "text"], "content": "x"}, "memory.*key"),
    ],
)
def test_one_invalid_record_after_valid_ones_writes_nothing_at_all(
    memory: PraxMemory, bad: dict[str, object], message: str
) -> None:
    """Three memories, a graph, notes and a scratchpad entry, then one invalid record: the
    import is refused and none of it is written, in any layer."""
    lines = [json.dumps(r) for r in [*VALID, bad]]
    with pytest.raises(MemoryValidationError, match=message):
        memory.import_user(lines, user_id="dana")
    assert memory.count("dana") == 0
    assert memory.graph.stats("dana").entities == 0
    assert memory.graph.stats("dana").temporal_events == 0
    assert memory.stm.all("dana") == []
    assert memory.notes.read("dana") == ""
    # without the bad record the same file imports whole
    receipt = memory.import_user(lines[:-1], user_id="dana")
    assert receipt.created == {
        "memory": 3,
        "entity": 1,
        "relation": 1,
        "event": 1,
        "causal_link": 1,
        "notes": 1,
        "stm": 1,
    }


def test_an_export_of_5000_entities_in_mixed_scripts_round_trips_exactly(
    memory: PraxMemory,
) -> None:
    """Issue 40, item 8 ("Done means"), on SQLite; the Neo4j run is in
    tests/integration/graph/test_neo4j_portable.py."""
    from tests.portable_cases import round_trip

    round_trip(memory, "dana", "erin", entities=5000, relations=600)
