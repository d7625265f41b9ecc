"""``notes.retrieval`` moved to ``notes.selection``: the old import works, with a warning."""

from __future__ import annotations

import importlib

import pytest

from langgraph_prax_memory.notes import selection


@pytest.mark.parametrize(
    "name", ["select_note_lines", "MAX_CONTEXT_LINES", "MAX_CONTEXT_CHARS", "MAX_QUERY_CHARS"]
)
def test_the_old_module_serves_its_names_with_a_warning(name: str) -> None:
    old = importlib.import_module("langgraph_prax_memory.notes.retrieval")
    with pytest.warns(DeprecationWarning, match="langgraph_prax_memory.notes.selection"):
        value = getattr(old, name)
    assert value is getattr(selection, name)


def test_the_old_module_has_only_its_old_names() -> None:
    old = importlib.import_module("langgraph_prax_memory.notes.retrieval")
    with pytest.raises(AttributeError):
        old.parse_notes  # noqa: B018
    with pytest.warns(DeprecationWarning):
        from langgraph_prax_memory.notes.retrieval import select_note_lines
    assert select_note_lines("timezone: UTC\n", "what time is it?") == ["timezone: UTC"]
