"""Import lands whole or not at all: every record is checked before the first write."""

from __future__ import annotations

import io
import json

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
