"""One word shared with a same-topic memory does not take the first place (real packaged model).

Written for this test (no benchmark data): the answer is a paraphrase the dense arm ranks
first, and another memory of the same person shares one word with the question.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory

pytestmark = pytest.mark.integration

CASES = {
    "What neighbourhood is her home in?": (
        "Sara lives in Kreuzberg, close to the canal.",
        "Sara's office is a short bike ride from home.",
    ),
    "What are his plans after he stops working?": (
        "Omar wants to retire to a farmhouse in Portugal.",
        "Omar writes his lesson plans in a notebook.",
    ),
}
OTHERS = ("Sara bought a new standing desk.", "Omar plays chess on Sundays.")


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    folder: Path = tmp_path_factory.mktemp("first-place")
    mem = PraxMemory(MemoryConfig(data_dir=folder, qdrant_url=":memory:"))
    for i, (answer, trap) in enumerate(CASES.values()):
        mem.remember_many(f"u{i}", [{"content": t} for t in (answer, trap, *OTHERS)])
    yield mem
    mem.close()


@pytest.mark.parametrize("index", range(len(CASES)))
def test_the_paraphrased_answer_stays_first(memory: PraxMemory, index: int) -> None:
    question, (answer, trap) = list(CASES.items())[index]
    hits = memory.recall(f"u{index}", question, k=4, reinforce=False)
    order = [h.memory.content for h in hits]
    assert order[0] == answer, [h.explain() for h in hits]
    assert order[1] == trap  # still second: one shared word keeps it in the list
    assert "first place by word-pair keyword coverage" in hits[0].explain()
