"""An import is all or nothing on the real Neo4j server (issue 40, item 6).

The scenario and the faults are those of the SQLite run (``tests/portable_faults.py``): the
vector store, the graph (a batch of its load, after the first one went in), the scratchpad
and the notes each fail half-way; the user is left exactly as before, and what the graph
loaded is deleted from Neo4j when a later store fails.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from langgraph_prax_memory import PraxMemory
from tests.portable_faults import FAULTS, Fault, fails_whole, undo_that_fails_says_so

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(("store", "breaker", "error", "names"), FAULTS, ids=[f[0] for f in FAULTS])
def test_a_store_failing_half_way_leaves_the_user_as_before(
    mem: PraxMemory,
    users: tuple[str, str],
    monkeypatch: pytest.MonkeyPatch,
    store: str,
    breaker: Callable[[PraxMemory, pytest.MonkeyPatch], Fault],
    error: type,
    names: str,
) -> None:
    fails_whole(mem, monkeypatch, *users, breaker, error, names)


def test_an_undo_that_fails_too_says_what_may_be_left(
    mem: PraxMemory, users: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    undo_that_fails_says_so(mem, monkeypatch, *users)
