"""The examples in the public docstrings of the STM and notes packages run and pass."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "langgraph_prax_memory.stm",
    "langgraph_prax_memory.stm.models",
    "langgraph_prax_memory.stm.compaction",
    "langgraph_prax_memory.stm.render",
    "langgraph_prax_memory.stm.store",
    "langgraph_prax_memory.notes",
    "langgraph_prax_memory.notes.parsing",
    "langgraph_prax_memory.notes.compaction",
    "langgraph_prax_memory.notes.promotion",
    "langgraph_prax_memory.notes.selection",
    "langgraph_prax_memory.notes.store",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
