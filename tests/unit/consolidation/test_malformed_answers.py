"""Robust LLM extraction: a corpus of malformed model answers, and nothing is lost.

Every answer in ``CORPUS`` states the fact "Bob uses Rust" in a shape models produce in the
wild; the lenient parser (``json_repair`` plus shape unwrapping) must recover it. The pipeline
tests check what happens to what cannot be recovered: re-asked once, then kept in the backlog
with the reason (never dropped), and an unstated / non-numeric confidence goes to review.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from langgraph_prax_memory import PraxMemory
from langgraph_prax_memory.consolidation import (
    Consolidator,
    ExtractionError,
    LLMExtractor,
    TraceLogSource,
    parse_extraction,
)
from langgraph_prax_memory.consolidation._models import UNSTATED_CONFIDENCE
from tests.unit.consolidation.conftest import NOW, ScriptedToolModel, write_lines

USER = "alice"
FACT = "Bob uses Rust"
GOOD = '{"facts": [{"content": "Bob uses Rust", "confidence": 0.9, "importance": 0.7}]}'

#: (shape, answer): each holds the one fact.
CORPUS: list[tuple[str, str]] = [
    ("plain", GOOD),
    ("fenced", f"```json\n{GOOD}\n```"),
    ("fenced without language", f"```\n{GOOD}\n```"),
    ("prose before", f"Sure! Here is the extraction:\n{GOOD}"),
    ("trailing prose", f"{GOOD}\nLet me know if you need anything else."),
    ("prose around a fence", f"Here you go:\n```json\n{GOOD}\n```\nHope this helps!"),
    ("top-level list of facts", '[{"content": "Bob uses Rust", "confidence": 0.9}]'),
    ("top-level list of sentences", '["Bob uses Rust"]'),
    ("top-level list of partial objects", f'[{GOOD}, {{"entities": []}}]'),
    ("result wrapper", f'{{"result": {GOOD}}}'),
    ("data wrapper", f'{{"data": {GOOD}}}'),
    ("data wrapper around a list", '{"data": [{"content": "Bob uses Rust", "confidence": 0.9}]}'),
    ("nested wrappers", f'{{"response": {{"output": {GOOD}}}}}'),
    ("JSON string inside JSON", '{"result": "' + GOOD.replace('"', '\\"') + '"}'),
    ("single quotes", "{'facts': [{'content': 'Bob uses Rust', 'confidence': 0.9}]}"),
    ("trailing commas", '{"facts": [{"content": "Bob uses Rust", "confidence": 0.9,},],}'),
    ("comments", '{\n// the facts\n"facts": [{"content": "Bob uses Rust"}] /* done */\n}'),
    ("unquoted keys", '{facts: [{content: "Bob uses Rust", confidence: 0.9}]}'),
    ("python literals", '{"facts": [{"content": "Bob uses Rust", "durable": True, "x": None}]}'),
    ("truncated tail", '{"facts": [{"content": "Bob uses Rust", "confidence": 0.9}, {"cont'),
    ("alias key", '{"key_facts": [{"fact": "Bob uses Rust"}]}'),
    ("bare string facts", '{"facts": ["Bob uses Rust"]}'),
    ("single object instead of a list", '{"facts": {"content": "Bob uses Rust"}}'),
    ("text field", '{"memories": [{"text": "Bob uses Rust"}]}'),
    ("upper-case keys", '{"Facts": [{"Content": "Bob uses Rust", "Confidence": "0.9"}]}'),
    ("confidence as a word", '{"facts": [{"content": "Bob uses Rust", "confidence": "high"}]}'),
]

#: (shape, answer cut off inside its last item): the complete items are kept, the cut one is
#: never returned (issue 38: no fragment), and the answer says it was cut.
CUT: list[tuple[str, str, list[str]]] = [
    ("fence and a truncated tail", '```json\n{"facts": [{"content": "Bob uses Rust"', []),
    ("inside a fact's text", '{"facts": [{"content": "Bob uses Rust"}, {"content": "User is',
     [FACT]),
    ("inside a bare sentence", '{"facts": ["Bob uses Rust", "User\'s sister', [FACT]),
    ("inside a key", '{"facts": [{"content": "Bob uses Rust"}, {"cont', [FACT]),
    ("after a number", '{"facts": [{"content": "Bob uses Rust", "confidence": 0.9', []),
    ("inside a list of the item", '{"facts": [{"content": "Bob uses Rust", "entities": ["Bo',
     []),
    ("inside an id-keyed item", '{"facts": {"f1": {"content": "Bob uses Rust"}, "f2": {"con',
     [FACT]),
    ("a relation as the whole answer", '{"source": "User", "type": "lives_in", "target": "Ber',
     []),
    ("in a wrapper", '{"result": {"facts": [{"content": "Bob uses Rust"}, {"content": "Ann',
     [FACT]),
    ("single quotes", "{'facts': [{'content': 'Bob uses Rust'}, {'content': 'User\\'s", [FACT]),
    ("after a whole item", '{"facts": [{"content": "Bob uses Rust"}], "relations": [', [FACT]),
]  # fmt: skip


@pytest.mark.parametrize(("shape", "answer"), CORPUS, ids=[s for s, _ in CORPUS])
def test_every_malformed_shape_keeps_the_fact(shape: str, answer: str) -> None:
    extraction = parse_extraction(answer)
    kept = [f.content for f in extraction.facts] + extraction.rejected
    assert any(FACT in text for text in kept), shape


def test_corpus_loses_zero_facts() -> None:
    lost = [
        shape
        for shape, answer in CORPUS
        if FACT not in {f.content for f in parse_extraction(answer).facts}
    ]
    assert lost == []


@pytest.mark.parametrize(("shape", "answer", "facts"), CUT, ids=[s for s, _, _ in CUT])
def test_an_answer_cut_off_keeps_its_whole_items_and_never_a_fragment(
    shape: str, answer: str, facts: list[str]
) -> None:
    extraction = parse_extraction(answer)
    assert extraction.cut == 1, shape
    assert [f.content for f in extraction.facts] == facts, shape
    assert extraction.rejected == [] and not extraction.relations, shape
    whole = parse_extraction('{"facts": [{"content": "Bob uses Rust"}]}\nHope this helps {')
    assert whole.cut == 0 and [f.content for f in whole.facts] == [FACT]


def test_missing_or_non_numeric_confidence_is_unstated_and_goes_to_review(
    memory: PraxMemory, trace: Path
) -> None:
    assert parse_extraction('{"facts": [{"content": "a"}]}').facts[0].confidence == 0.0
    assert (
        parse_extraction('{"facts": [{"content": "a", "confidence": "low"}]}').facts[0].confidence
        == UNSTATED_CONFIDENCE
    )
    assert (
        parse_extraction('{"facts": [{"content": "a", "confidence": "0.8"}]}').facts[0].confidence
        == 0.8
    )
    write_lines(trace, ["user: I use Rust at work."])
    model = FakeListChatModel(
        responses=[
            '{"facts": [{"content": "The user uses Rust at work.", "confidence": "low"},'
            ' {"content": "The user works with Rust.", "importance": 0.9}]}'
        ]
    )
    result = Consolidator(memory, extractor=LLMExtractor(model, structured=False)).run(
        USER, TraceLogSource(trace), now=NOW
    )
    assert result.memories_created == 0 and result.pending_review == 2
    queued = [e.content for e in memory.stm.all(USER)]
    assert "The user uses Rust at work." in queued and "The user works with Rust." in queued


def test_structured_output_with_a_missing_confidence_goes_to_review(
    memory: PraxMemory, trace: Path
) -> None:
    write_lines(trace, ["user: I use Rust at work."])
    model = ScriptedToolModel(answers=[{"facts": [{"content": "The user uses Rust."}]}])
    result = Consolidator(memory, extractor=LLMExtractor(model)).run(
        USER, TraceLogSource(trace), now=NOW
    )
    assert result.memories_created == 0 and result.pending_review == 1


def test_an_unusable_answer_is_re_asked_once_with_the_error(
    memory: PraxMemory, trace: Path
) -> None:
    write_lines(trace, ["user: I use Rust at work."])
    model = FakeListChatModel(responses=["I cannot help with that.", GOOD])
    extractor = LLMExtractor(model, structured=False)
    result = Consolidator(memory, extractor=extractor).run(USER, TraceLogSource(trace), now=NOW)
    assert (result.batches, result.batches_failed, result.memories_created) == (1, 0, 1)


def test_items_that_do_not_validate_are_re_asked_then_kept_for_review(
    memory: PraxMemory, trace: Path
) -> None:
    write_lines(trace, ["user: I use Rust at work."])
    bad = '{"facts": [{"content": "The user uses Rust.", "confidence": 0.9}, {"importance": 1}]}'
    model = FakeListChatModel(responses=[bad, bad])
    result = Consolidator(memory, extractor=LLMExtractor(model, structured=False)).run(
        USER, TraceLogSource(trace), now=NOW
    )
    assert result.memories_created == 1
    unparsed = [e for e in memory.stm.all(USER) if "unparsed" in e.tags]
    assert len(unparsed) == 1 and '"importance": 1' in unparsed[0].content


def test_a_batch_that_still_fails_stays_in_the_backlog_with_the_reason(
    memory: PraxMemory, trace: Path
) -> None:
    write_lines(trace, ["user: I use Rust at work.", "user: I like tea."])
    model = FakeListChatModel(responses=["no idea", "still no idea"])
    consolidator = Consolidator(memory, extractor=LLMExtractor(model, structured=False))
    results = []
    for _ in range(4):  # more runs than max_batch_attempts: nothing is ever dropped
        results.append(consolidator.run(USER, TraceLogSource(trace), now=NOW))
        assert consolidator.state(USER).sources[f"trace:{trace}"].pointer == 0
    for result in results:
        assert result.batches == 0 and result.pending_lines == 2
        assert result.failures and "no JSON" in result.failures[0].reason
        assert "after a re-ask" in result.failures[0].reason


def test_an_empty_object_or_list_is_an_empty_extraction() -> None:
    for answer in ("{}", "[]", "```json\n{}\n```", '{"facts": [], "entities": []}'):
        assert parse_extraction(answer).size == 0


def test_an_answer_with_no_extraction_at_all_raises() -> None:
    for answer in ("", "   ", "no json", '{"weather": "sunny"}', "[1, 2, 3]"):
        with pytest.raises(ExtractionError):
            parse_extraction(answer)
