"""``prax-memory demo``: its "why" table explains every line of the context it prints.

The demo stores its facts in a temporary folder with the packaged model (real recall, real
relevance floor); the table must have a row for each line of the WITH-memory block (the
standing facts that entered without being recalled among the top k included) and one for
each recalled memory left out.
"""

from __future__ import annotations

import json
import re

import pytest

from langgraph_prax_memory.cli import EXIT_OK, main


def _block_lines(block: str) -> list[str]:
    return [line for line in block.splitlines() if line and not line.startswith("## ")]


@pytest.mark.parametrize("k", [4, 6])
def test_every_line_of_the_demo_context_is_explained(
    capsys: pytest.CaptureFixture[str], k: int
) -> None:
    assert main(["demo", "--json", "-k", str(k)]) == EXIT_OK
    data = json.loads(capsys.readouterr().out)
    lines = _block_lines(data["with_memory"])
    assert len(lines) >= 5  # the default question gets the four preferences and the job
    assert [row["text"] for row in data["lines"]] == lines
    assert all(row["why"] and row["tier"] != "left out" for row in data["lines"])
    assert [row["memory_id"] for row in data["lines"]] == data["injected"]
    tiers = {row["memory_id"]: row["tier"] for row in data["lines"]}
    assert {i for i, t in tiers.items() if t == "standing fact"} == set(data["profile"])
    # every recalled memory is in the block or left out, with why
    explained = set(tiers) | {row["memory_id"] for row in data["left_out"]}
    assert {h["memory"]["id"] for h in data["hits"]} <= explained
    assert all("below the floor" in row["why"] for row in data["left_out"])

    assert main(["demo", "-k", str(k)]) == EXIT_OK
    out = capsys.readouterr().out
    numbered = re.findall(r"^│ +(\d+) │", out, re.M)
    assert numbered == [str(i) for i in range(1, len(lines) + 1)]
    assert len(re.findall(r"^│ +- │", out, re.M)) == len(data["left_out"])
    for i in range(1, len(lines) + 1):
        assert re.search(rf"^{i}\. (relevant|companion|standing fact|top k): ", out, re.M)
    flat = " ".join(out.split())  # the terminal's width wraps long lines
    # with k=4 the job entered as a standing fact without being among the 4 recalled
    assert "not among the recalled hits" in flat or k == 6
    assert "yes: standing fact" in flat
