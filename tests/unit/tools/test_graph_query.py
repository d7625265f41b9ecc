"""Noun-phrase extraction and graph answers (no LLM, no Cypher generation)."""

from __future__ import annotations

from langgraph_prax_memory._graph_query import answer_graph_question, noun_phrases
from langgraph_prax_memory.graph import SQLiteGraphStore


def test_noun_phrases_longest_first_without_stopwords() -> None:
    phrases = noun_phrases("How are quantum computing and my research project connected?")
    assert phrases[:2] == ["quantum computing", "research project"]
    assert set(phrases) == {
        "quantum computing",
        "research project",
        "quantum",
        "computing",
        "research",
        "project",
    }
    assert noun_phrases("what do you know about it?") == []


def test_noun_phrases_keep_identifiers() -> None:
    assert "c++" in noun_phrases("Who uses C++ at work?")
    assert "e-4012" in noun_phrases("What caused error E-4012?")


def test_sub_phrase_of_a_matched_entity_is_not_matched_again() -> None:
    g = SQLiteGraphStore(":memory:")
    g.add_relation("u", "research project", "quantum computing", "related_to")
    g.merge_entity("u", "project")
    ans = answer_graph_question(g, "u", "tell me about my research project")
    assert [e.name for e in ans.entities] == ["research project"]


def test_falls_back_to_substring_search() -> None:
    g = SQLiteGraphStore(":memory:")
    g.add_relation("u", "Project Alpha", "Rust", "related_to")
    ans = answer_graph_question(g, "u", "anything on alpha?")
    assert [e.display_name for e in ans.entities] == ["Project Alpha"]
    assert "project alpha —related_to→ rust" in ans.to_text()


def test_superseded_relations_are_not_current_answers() -> None:
    g = SQLiteGraphStore(":memory:")
    g.add_relation("u", "Alice", "dark mode", "prefers")
    g.supersede_relation("u", "Alice", "dark mode", "prefers")
    g.add_relation("u", "Alice", "light mode", "prefers")
    text = answer_graph_question(g, "u", "What does Alice prefer?").to_text()
    assert "light mode" in text and "dark mode" not in text


def test_entity_without_relations() -> None:
    g = SQLiteGraphStore(":memory:")
    g.merge_entity("u", "Helix")
    assert answer_graph_question(g, "u", "Helix?").to_text() == (
        "Entities: Helix (concept)\nNo current relations are recorded for these entities."
    )
