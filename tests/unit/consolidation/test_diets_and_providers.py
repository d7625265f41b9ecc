"""One list of diets for every table that reads them; a provider is not a partner (issue 38).

A diet change used to live in several tables (the extractor's pattern, supersession's cue
words, slot supersession's categories), each with its own list: "plant-based" was in none,
"pescatarian" not in supersession's, and the hyphenated restrictions never matched their
normalized form. And "I'm with Santander" was read as a partner. The sentences were written
for these tests (not taken from a benchmark's data).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.consolidation import Consolidator, RuleBasedExtractor, TraceLogSource
from langgraph_prax_memory.consolidation._resolve import same_slot

from .conftest import NOW


@pytest.mark.parametrize(
    "said",
    [
        "I'm with Santander for my mortgage and the app is awful",
        "I'm with Vodafone and the signal in the kitchen is rubbish",
    ],
)
def test_a_provider_is_not_a_partner(said: str) -> None:
    out = RuleBasedExtractor().extract([f"user: {said}"])
    assert not [r for r in out.relations if r.type == "partner_of"]
    assert not any("partner" in f.content for f in out.facts)


def test_a_partner_is_still_read_by_the_words_of_a_relation() -> None:
    out = RuleBasedExtractor().extract(["user: I'm seeing Dana these days"])
    assert [(r.type, r.target) for r in out.relations if r.type == "partner_of"] == [
        ("partner_of", "Dana")
    ]


def test_one_list_of_diets() -> None:
    out = RuleBasedExtractor().extract(["user: I've gone plant-based since the new year"])
    assert ("prefers", "plant-based") in {(r.type, r.target) for r in out.relations}
    assert same_slot("pescatarian", "plant-based") and same_slot("vegetarian", "meat-free")
    # a restriction adds to a diet; it does not replace it
    assert not same_slot("vegan", "gluten-free")


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[PraxMemory]:
    memory = PraxMemory(MemoryConfig(data_dir=tmp_path / "data"))
    yield memory
    memory.close()


def test_a_new_diet_retires_the_old_one(mem: PraxMemory, tmp_path: Path) -> None:
    """Fails when "plant-based" is no diet to the rules (the vegetarian fact stays current)."""
    for day, line in (
        (0, "I'm vegetarian, have been for about ten years, so no meat or fish please"),
        (14, "after reading that book about dairy farming I've gone plant-based, no honey even"),
    ):
        trace = tmp_path / f"day{day}.log"
        trace.write_text(f"user: {line}\n", encoding="utf-8")
        Consolidator(mem).run("ana", TraceLogSource(trace), now=NOW + timedelta(days=day))
    raw = [m for m in mem.list_memories("ana", limit=50) if m.summary_level == "raw"]
    old = [m for m in raw if "vegetarian" in m.content]
    new = [m for m in raw if "plant-based" in m.content]
    assert old and all(m.valid_until is not None for m in old), [m.content for m in raw]
    assert new and all(m.valid_until is None for m in new)
