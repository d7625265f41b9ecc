"""No silent loss: every item a model produced ends as a memory, a review entry or stays in the
backlog, whatever shape the answer (and its re-ask) came in (issue 26).

Real parts (the packaged embedding model, the embedded vector engine, the SQLite graph, the
STM); only the chat model is scripted (tests/scripted.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.consolidation import (
    Consolidator,
    Extraction,
    LLMExtractor,
    TraceLogSource,
)
from langgraph_prax_memory.consolidation._llm import merge_reask
from langgraph_prax_memory.consolidation._models import ConsolidationResult, ExtractedFact
from tests.scripted import ScriptedChatModel
from tests.unit.consolidation.conftest import NOW, write_lines

FACT = "The user keeps a garden of tomatoes on the balcony."
OTHER = "The user has a cat called Miso."
GOOD = f'{{"content": "{FACT}", "importance": 0.7, "confidence": 0.9}}'
GOOD2 = f'{{"content": "{OTHER}", "importance": 0.7, "confidence": 0.9}}'
TRUNCATED = '{"facts": [' + GOOD + ', {"cont'

_users = (f"u{i}" for i in itertools.count())


@pytest.fixture(scope="module")
def real_memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path_factory.mktemp("loss") / "data"))
    yield mem
    mem.close()


def _run(
    memory: PraxMemory, tmp_path: Path, *answers: str
) -> tuple[str, ConsolidationResult, Consolidator]:
    user = next(_users)
    trace = tmp_path / f"{user}.log"
    write_lines(trace, ["user: I keep a garden of tomatoes on the balcony."])
    model = ScriptedChatModel(script=[AIMessage(content=a) for a in answers])
    consolidator = Consolidator(memory, extractor=LLMExtractor(model, structured=False))
    result = consolidator.run(user, TraceLogSource(trace), now=NOW)
    return user, result, consolidator


def _memories(memory: PraxMemory, user: str) -> list[str]:
    return [m.content for m in memory.list_memories(user, limit=100)]


def _review(memory: PraxMemory, user: str) -> list[str]:
    return [e.content for e in memory.stm.all(user)]


def test_a_truncated_item_then_an_empty_re_ask_keeps_the_valid_fact(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    """The issue's case: a valid fact plus a truncated item, and the re-ask answers ``{}``."""
    user, result, _ = _run(real_memory, tmp_path, TRUNCATED, "{}")
    assert _memories(real_memory, user) == [FACT]
    assert any(r.startswith("Unparsed: ") and "cont" in r for r in _review(real_memory, user))
    assert result.items_rejected == 1
    assert result.batches == 1


@pytest.mark.parametrize(
    "reask",
    ["[]", '{"facts": []}', "", "Sorry, I cannot do that.", '{"entities": []}', "null"],
    ids=["empty list", "empty facts", "empty answer", "prose", "empty entities", "null"],
)
def test_whatever_the_re_ask_answers_the_first_valid_fact_stays(
    real_memory: PraxMemory, tmp_path: Path, reask: str
) -> None:
    user, result, _ = _run(real_memory, tmp_path, TRUNCATED, reask)
    assert result.batches == 1
    assert FACT in _memories(real_memory, user)
    assert any("cont" in r for r in _review(real_memory, user))


def test_a_re_ask_that_fixes_the_item_but_omits_the_valid_one_keeps_both(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    user, result, _ = _run(real_memory, tmp_path, TRUNCATED, '{"facts": [' + GOOD2 + "]}")
    assert result.memories_created == 2
    assert sorted(_memories(real_memory, user)) == sorted([FACT, OTHER])
    assert not any(r.startswith("Unparsed") for r in _review(real_memory, user))


#: (shape, first answer, re-ask, where FACT / OTHER must end: "memory" or "review").
SHAPES: list[tuple[str, str, str, dict[str, str]]] = [
    ("repeated keys", '{"facts": [' + GOOD + '], "facts": [' + GOOD2 + "]}", "{}",
     {FACT: "memory", OTHER: "memory"}),
    ("items keyed by id", '{"facts": {"f1": ' + GOOD + ', "f2": ' + GOOD2 + "}}", "{}",
     {FACT: "memory", OTHER: "memory"}),
    ("list nested once too often", '{"facts": [[' + GOOD + ", " + GOOD2 + "]]}", "{}",
     {FACT: "memory", OTHER: "memory"}),
    ("the same fact twice", '{"facts": [' + GOOD + ", " + GOOD + "]}", "{}", {FACT: "memory"}),
    ("wrong type: content a number, then empty",
     '{"facts": [' + GOOD + ', {"content": 42, "confidence": 0.9}]}', "{}",
     {FACT: "memory", "42": "review"}),
    ("wrong type: facts a number", '{"facts": 4711}', "{}", {"4711": "review"}),
    ("partial item: no content", '{"facts": [{"importance": 0.9, "note": "' + OTHER + '"}]}',
     "{}", {OTHER: "review"}),
    ("confidence a list", '{"facts": [{"content": "' + FACT + '", "confidence": [0.9]}]}', "{}",
     {FACT: "review"}),
    ("relation without a target, then the same again",
     '{"relations": [{"source": "User", "type": "grows", "evidence": "' + FACT + '"}], '
     '"facts": [' + GOOD2 + "]}",
     '{"relations": [{"source": "User", "type": "grows", "evidence": "' + FACT + '"}]}',
     {OTHER: "memory", FACT: "review"}),
    ("truncated inside the only item", '{"facts": [{"content": "' + FACT[:30], "{}",
     {FACT[:30]: "review"}),
    ("fenced and truncated", "```json\n" + TRUNCATED, "```json\n{}\n```",
     {FACT: "memory"}),
    ("commentary under a key of its own", '{"facts": [' + GOOD2 + '], "notes": "' + FACT + '"}',
     "{}", {OTHER: "memory", FACT: "review"}),
]  # fmt: skip


@pytest.mark.parametrize(("shape", "first", "reask", "where"), SHAPES, ids=[s[0] for s in SHAPES])
def test_every_malformed_shape_ends_in_memory_or_review(
    real_memory: PraxMemory,
    tmp_path: Path,
    shape: str,
    first: str,
    reask: str,
    where: dict[str, str],
) -> None:
    user, result, _ = _run(real_memory, tmp_path, first, reask, reask)
    assert result.batches == 1, shape  # consumed: everything it held is accounted for
    memories, review = _memories(real_memory, user), _review(real_memory, user)
    for text, place in where.items():
        if place == "memory":
            assert memories.count(text) == 1, (shape, memories, review)
        else:
            assert any(text in r for r in review), (shape, memories, review)
            assert not any(text == m for m in memories), shape


@pytest.mark.parametrize(
    "answer",
    ["", "   ", "I cannot help with that.", "null", "42", '{"weather": "sunny"}', "[1, 2]"],
    ids=["empty", "blank", "prose", "null", "number", "no extraction keys", "list of numbers"],
)
def test_an_unusable_answer_twice_keeps_the_batch_in_the_backlog(
    real_memory: PraxMemory, tmp_path: Path, answer: str
) -> None:
    user, result, consolidator = _run(real_memory, tmp_path, answer, answer)
    assert result.batches == 0 and result.batches_failed == 1
    assert result.pending_lines == 1
    (source,) = consolidator.state(user).sources.values()
    assert source.pointer == 0 and source.last_error


def test_a_review_write_that_fails_keeps_the_batch_in_the_backlog(
    real_memory: PraxMemory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    low = '{"facts": [{"content": "' + FACT + '", "confidence": 0.3}]}'
    stm = real_memory.stm

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")  # fault injection

    monkeypatch.setattr(stm, "add_pending_review", full_disk)
    user, result, consolidator = _run(real_memory, tmp_path, low)
    assert result.batches == 0 and result.batches_failed == 1
    assert "pending review" in result.failures[0].reason
    (source,) = consolidator.state(user).sources.values()
    assert source.pointer == 0
    monkeypatch.undo()
    model = ScriptedChatModel(script=[AIMessage(content=low)])
    again = Consolidator(real_memory, extractor=LLMExtractor(model, structured=False))
    trace = Path(next(iter(consolidator.state(user).sources)).removeprefix("trace:"))
    retry = again.run(user, TraceLogSource(trace), now=NOW)
    assert retry.batches == 1 and retry.pending_review == 1
    assert FACT in _review(real_memory, user)


def test_merge_reask_keeps_the_first_answers_items() -> None:
    fact = ExtractedFact(content=FACT, confidence=0.9)
    first = Extraction(facts=[fact], rejected=["facts: x"])
    assert merge_reask(first, Extraction()).facts == [fact]
    assert merge_reask(first, Extraction()).rejected == ["facts: x"]
    fixed = merge_reask(first, Extraction(facts=[fact, ExtractedFact(content=OTHER)]))
    assert [f.content for f in fixed.facts] == [FACT, OTHER] and fixed.rejected == []
