"""Export and import on the real Neo4j server (issue 40, item 8): every entity, any script."""

from __future__ import annotations

import io
import json

import pytest

from langgraph_prax_memory import PraxMemory
from tests.portable_cases import round_trip

pytestmark = pytest.mark.integration


def test_export_past_one_query_lists_the_least_important_in_any_script(
    mem: PraxMemory, users: tuple[str, str]
) -> None:
    user = users[0]
    for i in range(1000):
        mem.graph.merge_entity(user, f"topic {i:04d}", importance=0.9)
    for name in ("თბილისი", "አዲስ አበባ", "กรุงเทพ"):
        mem.graph.merge_entity(user, name, importance=0.05)
    mem.graph.add_relation(user, "თბილისი", "አዲስ አበባ", "related_to")
    mem.graph.add_relation(user, "አዲስ አበባ", "กรุงเทพ", "related_to")
    buf = io.StringIO()
    mem.export_user(user, buf)
    rows = [json.loads(line) for line in buf.getvalue().splitlines()]
    names = {r["display_name"] for r in rows if r["type"] == "entity"}
    assert len(names) == 1003 and {"თბილისი", "አዲስ አበባ", "กรุงเทพ"} <= names
    assert len([r for r in rows if r["type"] == "relation"]) == 2
    assert rows[0]["complete"] is True


def test_an_export_of_5000_entities_in_mixed_scripts_round_trips_exactly(
    mem: PraxMemory, users: tuple[str, str]
) -> None:
    round_trip(mem, *users, entities=5000, relations=600)
