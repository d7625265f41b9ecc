"""An import is all or nothing when a store fails half-way (issue 40, item 6), on SQLite.

The scenario and the faults are in ``tests/portable_faults.py`` (the Neo4j run is in
``tests/integration/graph/test_neo4j_import_atomic.py``).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from langgraph_prax_memory import PraxMemory
from langgraph_prax_memory.errors import MemoryWriteError
from tests.portable_faults import (
    FAULTS,
    Fault,
    fails_whole,
    prepare,
    state,
    undo_that_fails_says_so,
)


@pytest.mark.parametrize(("store", "breaker", "error", "names"), FAULTS, ids=[f[0] for f in FAULTS])
def test_a_store_failing_half_way_leaves_the_user_as_before(
    memory: PraxMemory,
    monkeypatch: pytest.MonkeyPatch,
    store: str,
    breaker: Callable[[PraxMemory, pytest.MonkeyPatch], Fault],
    error: type,
    names: str,
) -> None:
    fails_whole(memory, monkeypatch, "source", "dana", breaker, error, names)


def test_an_undo_that_fails_too_says_what_may_be_left(
    memory: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    undo_that_fails_says_so(memory, monkeypatch, "source", "dana")


def test_an_error_that_is_not_the_librarys_is_a_write_error(
    memory: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A raw error inside a store (a bug, an unexpected exception) is undone like the
    others and comes out as ``MemoryWriteError``."""
    lines = prepare(memory, "source", "dana")
    before = state(memory, "dana")
    ltm = memory.ltm
    monkeypatch.setattr(
        ltm, "remember_many", Fault(ltm.remember_many, 3, KeyError("injected: a bug"))
    )
    with pytest.raises(MemoryWriteError, match=r"memories 129 to 150.*Nothing of the file"):
        memory.import_user(lines, user_id="dana")
    assert state(memory, "dana") == before


def test_an_interrupt_is_undone_and_raised_as_it_is(
    memory: PraxMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = prepare(memory, "source", "dana")
    before = state(memory, "dana")
    stm = memory.stm
    monkeypatch.setattr(stm, "write", Fault(stm.write, 2, KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        memory.import_user(lines, user_id="dana")
    assert state(memory, "dana") == before
