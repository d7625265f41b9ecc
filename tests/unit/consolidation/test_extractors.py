"""Extractors: the rule-based one and the LLM one (scripted chat models)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from langgraph_prax_memory.consolidation import (
    Extraction,
    ExtractionError,
    Extractor,
    LLMExtractor,
    RuleBasedExtractor,
    parse_extraction,
)
from tests.unit.consolidation.conftest import ScriptedToolModel


def test_both_extractors_satisfy_the_protocol() -> None:
    assert isinstance(RuleBasedExtractor(), Extractor)
    assert isinstance(LLMExtractor(FakeListChatModel(responses=["{}"])), Extractor)


def test_rules_find_entities_relations_and_scored_facts() -> None:
    out = RuleBasedExtractor().extract(
        [
            "user: I work on Prax with Alice at Acme Corp.",
            "assistant: Great, I will remember that you prefer Python.",
            "user: I decided to always use Docker. Nice weather today!",
            "user: Maybe I like Haskell.",
        ]
    )
    types = {e.name: e.type for e in out.entities}
    assert types["User"] == "person"
    assert types["Alice"] == "person"
    assert types["Acme Corp"] == "organization"
    assert types["Docker"] == "tool" and types["Prax"] == "project"
    assert "Nice" not in types and "Great" not in types
    rels = {(r.source, r.type, r.target) for r in out.relations}
    assert ("User", "works_on", "Prax") in rels
    assert ("Alice", "mentioned_with", "Prax") in rels
    by_content = {f.content: f for f in out.facts}
    assert by_content["User decided to always use Docker."].importance >= 0.8
    assert by_content["User works on Prax with Alice at Acme Corp."].importance == pytest.approx(
        0.55
    )
    assert by_content["Maybe User likes Haskell."].confidence < 0.6
    assert not any(f.content.startswith("assistant") for f in out.facts)


def test_rules_events_and_causal_links() -> None:
    when = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    out = RuleBasedExtractor().extract(
        ["Caroline: I went to the LGBTQ support group yesterday.",
         "Melanie: I stopped running because my knee hurt after the marathon."],
        times=[when, when],
    )  # fmt: skip
    event = out.temporal_events[0]
    assert event.occurred_at == datetime(2023, 5, 7, 13, 56, tzinfo=UTC)
    assert "Caroline" in event.participants
    link = out.causal_links[0]
    assert link.cause.startswith("my knee hurt") and link.effect.startswith("I stopped running")


def test_rules_supersession_patterns() -> None:
    ext = RuleBasedExtractor()
    now = ext.extract(["user: I now prefer light mode over dark mode."]).relations
    assert [(r.target, r.supersedes) for r in now if r.type == "prefers"] == [
        ("light mode", "dark mode")
    ]
    stop = ext.extract(["user: I no longer like jazz."]).relations
    assert [(r.target, r.supersedes) for r in stop if r.type == "prefers"] == [("jazz", "jazz")]


def test_llm_plain_json_and_almost_json() -> None:
    answers = [
        '{"entities": [{"name": "Bob", "type": "person", "confidence": 0.9}], '
        '"facts": [{"content": "Bob uses Rust", "importance": 0.7, "confidence": 0.8}]}',
        "Here you go:\n```json\n{facts: [{'content': 'Bob likes tea', importance: '0.9',},],"
        " relationships: [{from: 'Bob', relation: 'prefers', to: 'tea', confidence: True}]}\n```",
    ]
    extractor = LLMExtractor(FakeListChatModel(responses=answers), structured=False)
    first = extractor.extract(["Bob: I use Rust"])
    assert first.entities[0].name == "Bob" and first.facts[0].importance == 0.7
    second = extractor.extract(["Bob: I like tea"])
    assert second.facts[0].content == "Bob likes tea" and second.facts[0].importance == 0.9
    assert (second.relations[0].source, second.relations[0].type, second.relations[0].target) == (
        "Bob", "prefers", "tea",
    )  # fmt: skip


def test_llm_failed_parse_raises() -> None:
    extractor = LLMExtractor(FakeListChatModel(responses=["no json here"]), structured=False)
    with pytest.raises(ExtractionError):
        extractor.extract(["x"])


def test_llm_structured_output_path() -> None:
    model = ScriptedToolModel(
        answers=[{"facts": [{"content": "Ann prefers tea", "confidence": 0.95}]}]
    )
    extractor = LLMExtractor(model)
    out = extractor.extract(["Ann: tea please"])
    assert out.facts[0].content == "Ann prefers tea" and model.calls == 1


def test_structured_answer_that_does_not_validate_falls_back_to_repair() -> None:
    model = ScriptedToolModel(answers=[{"facts": ["Ann prefers tea"], "entities": "oops"}])
    out = LLMExtractor(model).extract(["Ann: tea please"])
    assert [f.content for f in out.facts] == ["Ann prefers tea"]


def test_parse_extraction_repairs_a_truncated_answer_and_drops_bad_items() -> None:
    out = parse_extraction(
        '{"facts": [{"content": "ok fact"}, {"importance": 0.3}], "entities": ["Zed", 3], '
        '"relations": [{"source": "A", "target": "B"'
    )
    assert [f.content for f in out.facts] == ["ok fact"]
    assert [e.name for e in out.entities] == ["Zed"]
    assert isinstance(out, Extraction)


def test_llm_input_is_capped() -> None:
    model = FakeListChatModel(responses=["{}"])
    extractor = LLMExtractor(model, structured=False, max_chars=10)
    assert extractor._messages(["a" * 50])[1][1].endswith("a" * 10)
