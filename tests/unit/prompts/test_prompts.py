"""The ``prompts`` package: one module per LLM task, its response model beside the prompt."""

from __future__ import annotations

import doctest
import importlib

import pytest
from langchain_core.messages import AIMessage

from langgraph_prax_memory import agents, prompts
from langgraph_prax_memory.consolidation import LLMExtractor
from langgraph_prax_memory.prompts import extraction, knowledge_extraction
from tests.scripted import ScriptedChatModel

TASKS = [
    "compaction",
    "expansion",
    "extraction",
    "knowledge_extraction",
    "memory_agent",
    "rerank",
    "summary",
]


@pytest.mark.parametrize("task", TASKS)
def test_every_task_module_runs_its_examples(task: str) -> None:
    module = importlib.import_module(f"langgraph_prax_memory.prompts.{task}")
    result = doctest.testmod(module)
    assert result.failed == 0
    assert module.__doc__


def test_the_package_runs_its_example() -> None:
    assert doctest.testmod(prompts).failed == 0


@pytest.mark.parametrize(
    ("old_home", "name", "new_home"),
    [
        ("consolidation", "Extraction", "prompts.extraction"),
        ("consolidation", "ExtractedFact", "prompts.extraction"),
        ("consolidation", "ExtractedRelation", "prompts.extraction"),
        ("consolidation", "DEFAULT_CONFIDENCE", "prompts.extraction"),
        ("consolidation", "UNSTATED_CONFIDENCE", "prompts.extraction"),
        ("consolidation", "EXTRACTION_PROMPT", "prompts.extraction"),
        ("consolidation._llm", "REASK_PROMPT", "prompts.extraction"),
        ("consolidation._models", "ExtractedEntity", "prompts.extraction"),
        ("consolidation._summary", "SUMMARY_PROMPT", "prompts.summary"),
        ("knowledge.extract", "ConceptExtraction", "prompts.knowledge_extraction"),
        ("knowledge.extract", "ExtractedConcept", "prompts.knowledge_extraction"),
        ("knowledge.extract", "ExtractedRelation", "prompts.knowledge_extraction"),
        ("retrieval._precision", "QueryVariants", "prompts.expansion"),
        ("retrieval._precision", "RerankJudgement", "prompts.rerank"),
        ("stm.compaction", "SYSTEM_PROMPT", "prompts.compaction"),
        ("agents", "MEMORY_AGENT_PROMPT", "prompts.memory_agent"),
        ("agents", "DEFAULT_SYSTEM_PROMPT", "prompts.memory_agent"),
    ],
)
def test_moved_names_still_import_from_their_old_home(
    old_home: str, name: str, new_home: str
) -> None:
    old = importlib.import_module(f"langgraph_prax_memory.{old_home}")
    new = importlib.import_module(f"langgraph_prax_memory.{new_home}")
    assert getattr(old, name) is getattr(new, name)


def test_a_custom_extraction_prompt_replaces_the_default() -> None:
    model = ScriptedChatModel(script=[AIMessage('{"facts": [{"content": "Bob uses Rust"}]}')])
    LLMExtractor(model, structured=False, prompt="Extract facts as JSON.").extract(["bob: Rust"])
    system, human = model.received[0]
    assert system.content == "Extract facts as JSON."
    assert human.content == "Conversation excerpt:\nbob: Rust"


def test_the_response_models_keep_their_tolerance() -> None:
    fact = extraction.ExtractedFact.model_validate({"content": "x", "confidence": "high"})
    assert fact.confidence == extraction.UNSTATED_CONFIDENCE  # not a number: review it
    assert extraction.ExtractedEntity(name="Rust", importance=8).importance == 0.8
    concept = knowledge_extraction.ExtractedConcept(name="BM25", kind="Ranking Function")
    assert concept.kind == "ranking_function"
    relation = knowledge_extraction.ExtractedRelation(source="a", target="b", type="!!")
    assert relation.type == "related_to"


def test_the_agents_prompts_are_the_defaults_of_their_parameters() -> None:
    import inspect

    memory_agent = importlib.import_module("langgraph_prax_memory.prompts.memory_agent")
    prompt = inspect.signature(agents.create_memory_agent).parameters["prompt"]
    assert prompt.default is memory_agent.MEMORY_AGENT_PROMPT
    system = inspect.signature(agents.create_agent_with_memory).parameters["system_prompt"]
    assert system.default is memory_agent.DEFAULT_SYSTEM_PROMPT
