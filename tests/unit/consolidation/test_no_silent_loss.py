"""No silent loss: every item a model produced ends as a memory, a review entry or stays in the
backlog, whatever shape the answer (and its re-ask) came in (issues 26 and 38).

Issue 38: an answer cut off inside an item never leaves a fragment ("User is", "User's
sister") in memory or in the review queue; the batch is re-asked, split, or stays in the
backlog (counted, logged, the pointer before it); the extraction call has a timeout.

Real parts (the packaged embedding model, the embedded vector engine, the SQLite graph, the
STM); only the chat model is scripted (tests/scripted.py).
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.consolidation import (
    Consolidator,
    Extraction,
    LLMExtractor,
    TraceLogSource,
)
from langgraph_prax_memory.consolidation._llm import merge_reask
from langgraph_prax_memory.consolidation._models import ConsolidationResult, ExtractedFact
from langgraph_prax_memory.errors import ConfigError
from tests.scripted import ScriptedChatModel, tool_call
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


LINES = ["user: I keep a garden of tomatoes on the balcony."]
CUT_FACT = '{"facts": [' + GOOD + ', {"content": "User\'s sister'  # cut inside the 2nd fact


def _run(
    memory: PraxMemory,
    tmp_path: Path,
    *answers: str | AIMessage,
    lines: list[str] | None = None,
    structured: bool = False,
    user: str | None = None,
) -> tuple[str, ConsolidationResult, Consolidator]:
    user = user or next(_users)
    trace = tmp_path / f"{user}.log"
    write_lines(trace, lines or LINES)
    script: list[Any] = [a if isinstance(a, AIMessage) else AIMessage(content=a) for a in answers]
    model = ScriptedChatModel(script=script)
    consolidator = Consolidator(memory, extractor=LLMExtractor(model, structured=structured))
    result = consolidator.run(user, TraceLogSource(trace), now=NOW)
    return user, result, consolidator


def _memories(memory: PraxMemory, user: str) -> list[str]:
    return [m.content for m in memory.list_memories(user, limit=100)]


def _review(memory: PraxMemory, user: str) -> list[str]:
    return [e.content for e in memory.stm.all(user)]


def _in_backlog(consolidator: Consolidator, user: str, result: ConsolidationResult) -> None:
    """The batch was not consumed: counted as failed, the pointer before it, the reason told."""
    assert result.batches == 0 and result.batches_failed == 1
    assert result.pending_lines == len(LINES) or result.pending_lines > 0
    (source,) = consolidator.state(user).sources.values()
    assert source.pointer == 0 and source.last_error
    assert "cut off" in result.failures[0].reason


def _nowhere(memory: PraxMemory, user: str, *fragments: str) -> None:
    """No fragment of a cut item in memory or in the review queue."""
    stored = _memories(memory, user) + _review(memory, user)
    for fragment in fragments:
        assert not any(fragment in text for text in stored), (fragment, stored)


def test_a_valid_item_plus_a_cut_one_then_an_empty_re_ask_keeps_the_batch_in_the_backlog(
    real_memory: PraxMemory, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 38's case: the cut fact would be lost if the valid one were stored and the
    pointer moved on; the batch stays in the backlog, counted and logged, and the next run
    (a model that answers whole) stores both facts."""
    with caplog.at_level(logging.WARNING):
        user, result, consolidator = _run(real_memory, tmp_path, CUT_FACT, "{}")
    _in_backlog(consolidator, user, result)
    assert result.answers_cut == 1
    _nowhere(real_memory, user, "User's sister", FACT)
    assert any("cut off" in r.getMessage() for r in caplog.records)
    whole = '{"facts": [' + GOOD + ", " + GOOD2 + "]}"
    _, again, _ = _run(real_memory, tmp_path, whole, user=user)
    assert again.batches == 1 and again.answers_cut == 0
    assert sorted(_memories(real_memory, user)) == sorted([FACT, OTHER])


@pytest.mark.parametrize(
    "reask",
    ["[]", '{"facts": []}', "", "Sorry, I cannot do that.", '{"entities": []}', "null",
     '{"facts": [' + GOOD + "]}", CUT_FACT],
    ids=["empty list", "empty facts", "empty answer", "prose", "empty entities", "null",
         "only the first fact again", "cut again"],
)  # fmt: skip
def test_whatever_the_re_ask_of_a_cut_answer_says_nothing_is_lost(
    real_memory: PraxMemory, tmp_path: Path, reask: str
) -> None:
    user, result, consolidator = _run(real_memory, tmp_path, CUT_FACT, reask)
    _in_backlog(consolidator, user, result)
    _nowhere(real_memory, user, "User's sister", FACT)


@pytest.mark.parametrize(
    "answer",
    [
        '{"facts": [{"content": "User is',
        '{"facts": [{"content": "User\'s sister lives in Osaka", "confidence": 0.9',
        '{"relations": [{"source": "User", "type": "lives_in", "target": "Osa',
        '["User is',
        '```json\n{"facts": [{"content": "User is',
        '{"result": {"facts": [{"content": "User is',
    ],
    ids=["inside the only fact", "after a number", "inside a relation", "a bare sentence",
         "fenced", "in a wrapper"],
)  # fmt: skip
def test_an_answer_cut_inside_its_only_item_stores_no_fragment(
    real_memory: PraxMemory, tmp_path: Path, answer: str
) -> None:
    user, result, consolidator = _run(real_memory, tmp_path, answer, "{}")
    _in_backlog(consolidator, user, result)
    _nowhere(real_memory, user, "User is", "User's sister", "Osa")
    assert real_memory.graph.get_entity(user, "Osa") is None


def test_a_re_ask_that_completes_a_cut_answer_is_used(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    whole = '{"facts": [' + GOOD + ", " + GOOD2 + "]}"
    user, result, _ = _run(real_memory, tmp_path, CUT_FACT, whole)
    assert result.batches == 1 and result.answers_cut == 1
    assert sorted(_memories(real_memory, user)) == sorted([FACT, OTHER])
    assert _review(real_memory, user) == []


def test_a_batch_whose_answers_keep_being_cut_is_split_in_halves(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    lines = ["user: I keep a garden of tomatoes on the balcony.", "user: My cat is called Miso."]
    one, two = '{"facts": [' + GOOD + "]}", '{"facts": [' + GOOD2 + "]}"
    user, result, _ = _run(real_memory, tmp_path, CUT_FACT, CUT_FACT, one, two, lines=lines)
    assert result.batches == 1 and result.answers_cut == 2
    assert sorted(_memories(real_memory, user)) == sorted([FACT, OTHER])
    _nowhere(real_memory, user, "User's sister")


def test_a_one_line_batch_cut_twice_stays_in_the_backlog(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    user, result, consolidator = _run(real_memory, tmp_path, CUT_FACT, CUT_FACT)
    _in_backlog(consolidator, user, result)
    assert result.answers_cut == 2


def _tool_answer(args: dict[str, Any], **meta: Any) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[tool_call("Extraction", "c1", **args)], response_metadata=meta
    )


def test_a_tool_call_cut_at_the_output_cap_drops_its_last_item_and_is_re_asked(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    """The provider parsed what it had (``finish_reason: length``): its last item may be a
    fragment ("User is"); it is never stored, and the re-ask's whole answer is used."""
    cut = {"facts": [{"content": FACT, "confidence": 0.9}, {"content": "User is"}]}
    whole = {"facts": [{"content": FACT, "confidence": 0.9}, {"content": OTHER, "confidence": 0.9}]}
    user, result, _ = _run(
        real_memory,
        tmp_path,
        _tool_answer(cut, finish_reason="length"),
        _tool_answer(whole, finish_reason="tool_calls"),
        structured=True,
    )
    assert result.batches == 1 and result.answers_cut == 1
    assert sorted(_memories(real_memory, user)) == sorted([FACT, OTHER])
    _nowhere(real_memory, user, "User is")


def test_tool_arguments_cut_off_never_leave_a_fragment(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    """Arguments that did not parse (``invalid_tool_calls``) are read as a cut answer."""
    invalid = AIMessage(
        content="",
        invalid_tool_calls=[
            {"name": "Extraction", "args": CUT_FACT, "id": "c1", "error": "bad JSON",
             "type": "invalid_tool_call"}
        ],
        response_metadata={"stop_reason": "max_tokens"},
    )  # fmt: skip
    user, result, consolidator = _run(
        real_memory, tmp_path, invalid, _tool_answer({}), structured=True
    )
    _in_backlog(consolidator, user, result)
    _nowhere(real_memory, user, "User's sister", FACT)


def test_a_hung_model_times_out_and_the_batch_stays_in_the_backlog(
    real_memory: PraxMemory, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    release = threading.Event()

    def hang(messages: list[BaseMessage]) -> AIMessage:
        release.wait(30)  # a model that stops answering (released at the end of the test)
        return AIMessage(content='{"facts": [' + GOOD + "]}")

    user = next(_users)
    traces = [tmp_path / f"{user}-{i}.log" for i in range(2)]
    for trace in traces:
        write_lines(trace, LINES)
    model = ScriptedChatModel()
    model.script.extend([hang, AIMessage(content='{"facts": [' + GOOD + "]}")])
    extractor = LLMExtractor(model, structured=False, timeout=0.5)
    consolidator = Consolidator(real_memory, extractor=extractor)
    try:
        with caplog.at_level(logging.WARNING):
            result = consolidator.run(user, [TraceLogSource(t) for t in traces], now=NOW)
        # the first batch waited 0.5 s; the second failed at once (the model still hangs)
        assert result.batches == 0 and result.batches_failed == 2
        assert "no answer within 0.5 s" in result.failures[0].reason
        assert "has not answered yet" in result.failures[1].reason
        assert all(s.pointer == 0 for s in consolidator.state(user).sources.values())
        assert len(model.received) == 1
        assert any("no answer within" in r.getMessage() for r in caplog.records)
    finally:
        release.set()
    for _ in range(100):  # the late call finishes on its own
        if extractor._late is None or extractor._late.done():
            break
        threading.Event().wait(0.05)
    again = consolidator.run(user, TraceLogSource(traces[0]), now=NOW)
    assert again.batches == 1 and _memories(real_memory, user) == [FACT]


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
    ("truncated, then fenced and whole", "```json\n" + TRUNCATED,
     "```json\n{\"facts\": [" + GOOD + ", " + GOOD2 + "]}\n```",
     {FACT: "memory", OTHER: "memory"}),
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


def test_the_extraction_timeout_is_a_setting_with_a_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert MemoryConfig(data_dir=tmp_path).consolidation_extraction_timeout == 120.0
    monkeypatch.setenv("MEMORY_CONSOLIDATION_EXTRACTION_TIMEOUT", "7.5")
    config = MemoryConfig(data_dir=tmp_path / "data")
    assert config.consolidation_extraction_timeout == 7.5
    memory = PraxMemory(config)
    try:
        consolidator = Consolidator(memory, chat_model=ScriptedChatModel())
        assert isinstance(consolidator.extractor, LLMExtractor)
        assert consolidator.extractor.timeout == 7.5
    finally:
        memory.close()
    for bad in ("0", "-1", "soon", "7200"):
        monkeypatch.setenv("MEMORY_CONSOLIDATION_EXTRACTION_TIMEOUT", bad)
        with pytest.raises(ConfigError, match="MEMORY_CONSOLIDATION_EXTRACTION_TIMEOUT"):
            MemoryConfig(data_dir=tmp_path)
    with pytest.raises(ConfigError):
        LLMExtractor(ScriptedChatModel(), timeout=0)


def test_a_model_that_leaves_its_json_unclosed_twice_is_believed(
    real_memory: PraxMemory, tmp_path: Path
) -> None:
    """Only closing brackets missing, twice the same whole items (and no output cap
    reported): a model that does not close its JSON, not a cut; the batch is consumed."""
    unclosed = '{"facts": [' + GOOD + ", " + GOOD2 + "]"
    user, result, _ = _run(real_memory, tmp_path, unclosed, unclosed)
    assert result.batches == 1 and result.answers_cut == 2
    assert sorted(_memories(real_memory, user)) == sorted([FACT, OTHER])
    capped = AIMessage(content=unclosed, response_metadata={"finish_reason": "length"})
    user, result, consolidator = _run(real_memory, tmp_path, capped, capped)
    _in_backlog(consolidator, user, result)  # the provider says it stopped at its cap
