"""What every LLM task sends to the model, pinned byte for byte (``rendered.json``).

The golden file was written from the prompts as they were before ``prompts/`` existed (issue
13 moved them there unchanged); every call goes through the public entry point that sends it,
with the scripted chat model recording the messages. The JSON schemas of the response models
are pinned too: with structured output they are what the model is shown.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage

from langgraph_prax_memory import agents
from langgraph_prax_memory.consolidation import Extraction, LLMExtractor
from langgraph_prax_memory.consolidation._summary import (
    summarise_day,
    summarise_global,
    summarise_week,
)
from langgraph_prax_memory.knowledge.extract import ConceptExtraction, LLMConceptExtractor
from langgraph_prax_memory.models import Memory
from langgraph_prax_memory.prompts.extraction import CandidateMemory
from langgraph_prax_memory.retrieval import _precision
from langgraph_prax_memory.stm import StmEntry
from langgraph_prax_memory.stm.compaction import summary_messages
from tests.scripted import ScriptedChatModel, calls, tool_call

GOLDEN = Path(__file__).with_name("rendered.json")
WHEN = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _calls(model: ScriptedChatModel) -> list[list[list[str]]]:
    return [[[m.type, str(m.content)] for m in call] for call in model.received]


def _memory(content: str, importance: float, minutes: int) -> Memory:
    when = WHEN.replace(minute=minutes)
    return Memory(
        id=str(minutes),
        user_id="alice",
        content=content,
        importance=importance,
        created_at=when,
        last_accessed=when,
    )


def render_all() -> dict[str, Any]:
    """Every prompt of the package, rendered through the code that sends it."""
    out: dict[str, Any] = {}

    # consolidation extraction: an unusable answer, then the re-ask
    model = ScriptedChatModel(
        script=[AIMessage("no JSON here"), AIMessage('{"facts": [{"content": "x"}]}')]
    )
    LLMExtractor(model, structured=False).extract(["alice: I prefer dark mode", "bob: I use Rust"])
    out["extraction"] = _calls(model)

    # with the current memories the batch may change, an answer cut off, then the re-ask
    model = ScriptedChatModel(
        script=[
            AIMessage('{"facts": [{"content": "x", "replaces": ["m1"]}, {"content": "Alice is'),
            AIMessage('{"facts": [{"content": "x"}, {"content": "Alice is vegan."}]}'),
        ]
    )
    shown = [
        CandidateMemory(id="m1", memory_id="a", content="Alice eats meat.", created_at=WHEN),
        CandidateMemory(id="m2", memory_id="b", content="Alice lives in Lisbon."),
    ]
    LLMExtractor(model, structured=False).extract(["alice: I'm vegan now"], candidates=shown)
    out["extraction_candidates_cut"] = _calls(model)

    # knowledge extraction: JSON mode and structured mode
    model = ScriptedChatModel(script=[AIMessage('{"concepts": [{"name": "BM25"}]}')])
    LLMConceptExtractor(model, max_concepts=7, structured=False).extract(
        "BM25 ranks documents.", headings=("Search", "Ranking")
    )
    out["knowledge_extraction_json"] = _calls(model)
    model = ScriptedChatModel(
        script=[calls(tool_call("ConceptExtraction", "c1", concepts=[{"name": "BM25"}]))]
    )
    LLMConceptExtractor(model).extract("BM25 ranks documents.")
    out["knowledge_extraction_structured"] = _calls(model)

    # retrieval precision passes
    model = ScriptedChatModel(script=[AIMessage('{"variants": ["a", "b"]}')])
    _precision.expand_query(model, "which editor does alice use", 3)
    out["expansion"] = _calls(model)
    model = ScriptedChatModel(script=[AIMessage('{"scores": {"0": 2, "1": 9}}')])
    _precision.rerank_order(model, "editor", ["alice uses vim", "alice uses helix"])
    out["rerank"] = _calls(model)

    # summaries: one sentence is out of bounds, so each level is re-asked once
    short, good = AIMessage("Too short."), AIMessage("One. Two. Three.")
    model = ScriptedChatModel(script=[short, good, short, good, short, good])
    dailies = [_memory("alice: I prefer tea", 0.8, 1), _memory("bob uses Rust", 0.4, 2)]
    summarise_day(date(2026, 3, 2), dailies, model)
    summarise_week("2026-W10", dailies, model)
    summarise_global(dailies, model)
    out["summaries"] = _calls(model)

    # short-term memory compaction
    entries = [
        StmEntry(key="task", content="draft the  report", created_at="2026-03-02T09:00:00Z"),
        StmEntry(key="note", content="ask Bob", importance=0.8, tags=["todo"], created_at=WHEN),
    ]
    out["compaction"] = [[[m.type, str(m.content)] for m in summary_messages(entries)]]

    # agents' system prompts
    out["agents"] = {
        "memory_agent": agents.MEMORY_AGENT_PROMPT,
        "default_system": agents.DEFAULT_SYSTEM_PROMPT,
        "delegate_hint": agents._DELEGATE_HINT,
    }

    # the schemas a structured-output model is shown
    out["schemas"] = {
        "Extraction": Extraction.model_json_schema(),
        "ConceptExtraction": ConceptExtraction.model_json_schema(),
        "QueryVariants": _precision.QueryVariants.model_json_schema(),
        "RerankJudgement": _precision.RerankJudgement.model_json_schema(),
    }
    return out


def test_every_prompt_renders_as_pinned() -> None:
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    rendered = json.loads(json.dumps(render_all()))
    for task in expected:
        assert rendered[task] == expected[task], task
    assert set(rendered) == set(expected)


def test_the_pins_hold_every_message() -> None:
    pinned = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert [m[0] for m in pinned["extraction"][1]] == ["system", "human", "ai", "human"]
    cut = pinned["extraction_candidates_cut"]
    assert "m1: Alice eats meat. (2026-03-02)" in cut[0][1][1]
    assert "cut off" in cut[1][3][1]
    assert len(pinned["summaries"]) == 6  # three levels, each asked and re-asked
    assert pinned["compaction"][0][0][0] == "system"
