"""A question of the world gets no episode of the person's (session 12, issue 37).

The question reader (``facts.QuestionReader``) on the packaged model: its shipped weights are
the trained ones, it reads requests it was not trained on, never calls a request in the
first person or one naming what the memories name the world's; the context block then
leaves the person's episodes out of such a question's block (and runs no dated tier), says
why, and can be turned off.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory, RetrievalConfig
from langgraph_prax_memory._world import WORLD_WHY, names_held
from langgraph_prax_memory.context import assemble_context
from langgraph_prax_memory.facts import QuestionReader, question_examples, speaks_of_self
from langgraph_prax_memory.facts._questions import _platt

NOW = datetime(2027, 3, 10, 12, tzinfo=UTC)
USER = "world-u"
BIKE = "User restored a 1970s racing bicycle and sold it to a collector on Saturday."
TRIP = "User and Keiko are taking the bullet train to Kyoto on 20 March."
ALLERGY = "User is allergic to penicillin."
SNOW = "User grumbled that the snow has been heavier than usual this winter."


@pytest.fixture(scope="module")
def mem(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    memory = PraxMemory(MemoryConfig(data_dir=tmp_path_factory.mktemp("world") / "data"))
    for text, days in ((BIKE, 4), (TRIP, 6), (ALLERGY, 300), (SNOW, 2)):
        memory.remember(USER, text, created_at=NOW - timedelta(days=days))
    yield memory
    memory.close()


# requests written for this test, none of them in questions.txt
WORLD = [
    "Who invented the bicycle?",
    "When did the first bullet train run?",
    "What is the freezing point of seawater?",
    "Why do zebras have stripes?",
    "Translate 'thank you very much' into Italian.",
    "How many centimetres are in a foot?",
]
LIFE = [
    "When is the piano lesson?",
    "Did the landlord ever reply?",
    "Where is the conference dinner?",
    "When is the boiler being serviced?",
    "Is the bike sold yet?",
    "Help me plan Saturday.",
]


def test_the_reader_tells_the_world_from_a_life(mem: PraxMemory) -> None:
    reader = mem.ltm.classes.questions()
    assert [reader.of_the_world(q) for q in WORLD] == [True] * len(WORLD)
    assert [reader.of_the_world(q) for q in LIFE] == [False] * len(LIFE)
    assert not set(WORLD + LIFE) & {t for _, t in question_examples()}


def test_the_first_person_or_a_name_the_memories_hold_is_never_the_worlds(
    mem: PraxMemory,
) -> None:
    reader = mem.ltm.classes.questions()
    assert reader.score("How do I say thank you in Italian?") > reader.bar()  # it reads so
    assert not reader.of_the_world("How do I say thank you in Italian?")  # but says "I"
    assert speaks_of_self("What have we got on?") and not speaks_of_self("Who is Ada?")
    assert not reader.of_the_world("Who is Keiko?", ["Keiko"])
    # as an agent's tool asks: "the user", "she"
    assert not reader.of_the_world("Does the user take sugar in coffee?")
    assert not reader.of_the_world("Which editor does she use?")
    # a timetable question reads as the world's alone; the trip the memories name makes it hers
    kyoto = "What time does the train to Kyoto leave?"
    assert reader.of_the_world(kyoto) and not reader.of_the_world(kyoto, ["Kyoto"])
    held = names_held("Who is Keiko? And what about Kyoto in March?", [TRIP])
    assert held == ["Keiko", "Kyoto"]
    assert names_held("Why is Easter in March this year?", [TRIP, "Over Easter"]) == []  # days


def test_the_packaged_model_ships_the_readers_weights(tmp_path: Path) -> None:
    with PraxMemory(MemoryConfig(data_dir=tmp_path / "data")) as memory:
        dense = memory.ltm.dense
        reader = QuestionReader(dense.embed_query, dense.model_name, cache=False)
        shipped = reader.shipped_file()
        assert shipped.is_file(), "run scripts/ship-fact-weights"
        assert sorted(shipped.parent.glob("*.npz")) == [shipped]
        with np.load(shipped) as saved:
            np.testing.assert_allclose(saved["w"], reader.trained_weights(), atol=1e-5)
        reader.trained_weights = None  # type: ignore[method-assign,assignment]
        reader.warm()  # loaded, not trained
        assert 0.0 < reader.bar() < 0.5


def test_platt_scaling_finds_the_odds() -> None:
    scores = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 0.2, -0.2])
    positive = np.array([False, False, False, True, True, True, True, False, True])
    a, b = _platt(scores, positive)
    assert a > 0  # a higher score is likelier positive
    p = 1 / (1 + np.exp(-(a * scores + b)))
    assert abs(p.sum() - positive.sum()) < 1e-6  # the fit's mean matches the labels'


def test_a_question_of_the_world_gets_no_episode(mem: PraxMemory) -> None:
    ctx = assemble_context(mem, USER, "Who invented the bicycle?", now=NOW)
    assert BIKE not in {h.memory.content for h in ctx.memories}
    assert ALLERGY in {h.memory.content for h in ctx.memories}  # standing facts stay
    # the bike was relevant (0.9 and more: the word is shared); the rule left it out, and says so
    [why] = [line.why for line in ctx.omitted if line.text == BIKE]
    assert "relevance 0.9" in why and why.endswith(WORLD_WHY)
    # nor small talk ("the snow this winter")
    snow = assemble_context(mem, USER, "Why is there more snow in some winters?", now=NOW)
    assert SNOW not in {h.memory.content for h in snow.memories}
    assert next(line.why for line in snow.omitted if line.text == SNOW).endswith(WORLD_WHY)
    # a day named in it opens no diary ("20 March": the trip)
    spring = assemble_context(mem, USER, "Why does spring start on 20 March?", now=NOW)
    assert not spring.dated and TRIP not in {h.memory.content for h in spring.memories}
    # the person's own questions keep their episodes
    mine = assemble_context(mem, USER, "Who bought the bicycle I restored?", now=NOW)
    assert BIKE in {h.memory.content for h in mine.memories}
    plan = assemble_context(mem, USER, "What have I got on 20 March?", now=NOW)
    assert TRIP in {h.memory.content for h in plan.memories}


def test_the_world_rule_can_be_turned_off(tmp_path: Path) -> None:
    config = MemoryConfig(data_dir=tmp_path, retrieval=RetrievalConfig(world_questions=False))
    with PraxMemory(config) as memory:
        for text, days in ((BIKE, 4), (TRIP, 6)):
            memory.remember(USER, text, created_at=NOW - timedelta(days=days))
        ctx = assemble_context(memory, USER, "Who invented the bicycle?", now=NOW)
        assert BIKE in {h.memory.content for h in ctx.memories}
        ctx = assemble_context(memory, USER, "Why does spring start on 20 March?", now=NOW)
        assert TRIP in {h.memory.content for h in ctx.memories}


@pytest.mark.parametrize(
    "name",
    [
        "langgraph_prax_memory._world",
        "langgraph_prax_memory.facts._questions",
        "langgraph_prax_memory._when",
        "langgraph_prax_memory._calendar",
        "langgraph_prax_memory._weekdays",
    ],
)
def test_the_docstring_examples_run(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_a_reader_that_cannot_answer_leaves_the_block_as_before(
    mem: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fault injection: the reader's model down reads every request as the person's."""
    from langgraph_prax_memory.errors import EmbeddingError

    def down() -> QuestionReader:
        raise EmbeddingError("embedding model unreachable")

    monkeypatch.setattr(mem.ltm.classes, "questions", down)
    ctx = assemble_context(mem, USER, "Who invented the bicycle?", now=NOW)
    assert BIKE in {h.memory.content for h in ctx.memories}  # as before the reader
    assert ALLERGY in {h.memory.content for h in ctx.memories}
