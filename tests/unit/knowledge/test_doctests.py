"""The examples in the public docstrings of the knowledge package run and pass."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "langgraph_prax_memory.knowledge",
    "langgraph_prax_memory.knowledge._store",
    "langgraph_prax_memory.knowledge.base",
    "langgraph_prax_memory.knowledge.code",
    "langgraph_prax_memory.knowledge.code._parsing",
    "langgraph_prax_memory.knowledge.code._project",
    "langgraph_prax_memory.knowledge.code._search",
    "langgraph_prax_memory.knowledge.documents",
    "langgraph_prax_memory.knowledge.extract",
    "langgraph_prax_memory.knowledge.models",
    "langgraph_prax_memory.knowledge.okf",
    "langgraph_prax_memory.knowledge.sqlite",
    "langgraph_prax_memory.knowledge.tools",
    "langgraph_prax_memory.knowledge.vectors",
    "langgraph_prax_memory.knowledge._async",
    "langgraph_prax_memory.knowledge._terms",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
