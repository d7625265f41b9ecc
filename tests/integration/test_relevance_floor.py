"""The relevance floor's two bars, with the real packaged model.

``min_cosine`` decides whether any memory is injected; once one passes, ``companion_cosine``
keeps the returned hits that are related to the question but scored just under the first bar.
Cosines of these sentences (all-MiniLM-L6-v2, the packaged int8 model), for the question
"What does she like to eat and drink?": oat milk 0.36, Sichuan food 0.22, peanuts 0.10,
Helix and the MIT license below 0.

These memories are standing facts (classified from their text), which the context's profile
tier gives whatever is asked; the blocks here are built without it (``profile_chars=0``), to
test the floor alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.context import build_memory_context

pytestmark = pytest.mark.integration

OAT = "The user drinks oat milk flat whites and no coffee after 2 pm."
SICHUAN = "The user's favourite cuisine is Sichuan food, the spicier the better."
PEANUTS = "The user is allergic to peanuts and carries an EpiPen."
HELIX = "The user's editor is Helix with the catppuccin theme."
MIT = "The user insists on the MIT license for personal projects."
QUESTION = "What does she like to eat and drink?"


def _memory(folder: Path, **retrieval: object) -> PraxMemory:
    config = MemoryConfig(data_dir=folder, qdrant_url=":memory:")
    config = config.model_copy(update={"retrieval": config.retrieval.model_copy(update=retrieval)})
    mem = PraxMemory(config)
    mem.remember_many("u", [{"content": t} for t in (OAT, SICHUAN, PEANUTS, HELIX, MIT)])
    return mem


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    mem = _memory(tmp_path_factory.mktemp("floor"))
    yield mem
    mem.close()


def test_a_related_memory_joins_a_relevant_one(memory: PraxMemory) -> None:
    hits = {h.memory.content: h for h in memory.recall("u", QUESTION, k=5, reinforce=False)}
    floor = memory.ltm.retrieval_config.min_cosine  # MiniLM's, measured: 0.32 (0.3 by hand)
    assert 0.25 <= floor <= 0.35
    assert hits[OAT].relevant and hits[OAT].why.startswith("relevance ")
    assert f"floor {floor:.2f}" in hits[OAT].explain()  # the calibrated scale's landmark
    assert hits[SICHUAN].relevant and "beside a relevant hit" in hits[SICHUAN].explain()
    assert not hits[HELIX].relevant and not hits[MIT].relevant and not hits[PEANUTS].relevant
    block = build_memory_context(memory, "u", QUESTION, profile_chars=0)
    assert OAT in block and SICHUAN in block
    assert HELIX not in block and MIT not in block and PEANUTS not in block


def test_an_off_topic_question_still_injects_nothing(memory: PraxMemory) -> None:
    hits = memory.recall("u", "What's the weather in Paris tomorrow?", k=5, reinforce=False)
    assert hits and not any(h.relevant for h in hits)
    assert (
        build_memory_context(memory, "u", "What's the weather in Paris tomorrow?", profile_chars=0)
        == ""
    )


def test_the_second_bar_can_be_turned_off(tmp_path: Path) -> None:
    with _memory(tmp_path, companion_cosine=None) as mem:
        block = build_memory_context(mem, "u", QUESTION, profile_chars=0)
        assert OAT in block and SICHUAN not in block
