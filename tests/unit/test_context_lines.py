"""Every line of the context block says which rule put it there; every hit left out, why not.

Over a real memory (embedded Qdrant, the packaged model, git notes): the relevance floor and
the profile tier decide as they do for an agent.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.cli._memories import DEMO_FACTS, DEMO_QUESTION, DEMO_USER
from langgraph_prax_memory.context import MemoryContext, assemble_context


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PraxMemory]:
    mem = PraxMemory(MemoryConfig(data_dir=tmp_path_factory.mktemp("lines") / "data"))
    for content, importance, tags in DEMO_FACTS:
        mem.remember(DEMO_USER, content, importance=importance, tags=tags.split(","))
    mem.notes.update(DEMO_USER, "- Prefers short answers\n- Uses Rust for systems work\n")
    mem.stm.write(DEMO_USER, "task", "setting up a project skeleton")
    yield mem
    mem.close()


def _block_lines(ctx: MemoryContext) -> list[str]:
    """The block's lines under its section headers (what an agent reads as content)."""
    return [line for line in ctx.text.splitlines() if line and not line.startswith("## ")]


def _every_line_explained(ctx: MemoryContext, recalled: list[str]) -> None:
    assert [line.text for line in ctx.lines] == _block_lines(ctx)
    assert all(line.why for line in ctx.lines)
    in_block = {line.hit.memory.id for line in ctx.lines if line.hit is not None}
    left = {line.hit.memory.id for line in ctx.omitted if line.hit is not None}
    # every recalled hit is either a line of the block or left out with a reason, not both
    assert in_block | left >= set(recalled)
    assert not in_block & left
    assert all(line.tier == "left out" and line.why for line in ctx.omitted)
    explained = ctx.explain().splitlines()
    assert len(explained) == len(ctx.lines) + len(ctx.omitted)


@pytest.mark.parametrize("k", [4, 6])
def test_every_line_of_the_demo_block_names_its_rule(demo: PraxMemory, k: int) -> None:
    ctx = assemble_context(demo, DEMO_USER, DEMO_QUESTION, k=k)
    hits = demo.recall(DEMO_USER, DEMO_QUESTION, k=k, reinforce=False)
    _every_line_explained(ctx, [h.memory.id for h in hits])
    tiers = {line.text: line.tier for line in ctx.lines}
    assert tiers["- Uses Rust for systems work"] == "note"
    assert tiers["- **task**: setting up a project skeleton"] == "scratchpad"
    by_content = {line.hit.memory.content: line for line in ctx.lines if line.hit is not None}
    rust = by_content["User prefers Rust for systems projects and Python for scripts."]
    assert rust.tier == "relevant" and "recalled #1" in rust.why and "≥ 0.50" in rust.why
    # the standing facts that entered below the floor say so: never "left out"
    standing = [line for line in ctx.lines if line.tier == "standing fact"]
    assert standing and len(standing) == len(ctx.profile)
    for line in standing:
        assert line.hit is not None and line.hit.memory.id not in {
            h.memory.id for h in ctx.left_out
        }
        assert "given whatever is asked" in line.why
        assert "profile tier" in line.why
    coffee = [line for line in ctx.omitted if "coffee" in line.text]
    if k == 6:  # recalled, below the floor, no standing fact
        assert len(coffee) == 1 and "below the floor" in coffee[0].why


def test_a_relevant_hit_over_the_budget_says_so(demo: PraxMemory) -> None:
    ctx = assemble_context(demo, DEMO_USER, DEMO_QUESTION, k=6, ltm_chars=120, profile_chars=0)
    _every_line_explained(ctx, [h.hit.memory.id for h in ctx.omitted if h.hit is not None])
    assert any("long-term section was full (ltm_chars 120)" in line.why for line in ctx.omitted)
    assert any("the profile tier is off" in line.why for line in ctx.omitted)
    assert not any(line.tier == "standing fact" for line in ctx.lines)


def test_a_standing_fact_the_profile_tier_had_no_room_for(demo: PraxMemory) -> None:
    ctx = assemble_context(demo, DEMO_USER, DEMO_QUESTION, k=6, profile_chars=80)
    assert any("the profile tier was full (profile_chars 80" in line.why for line in ctx.omitted)


def test_with_the_floor_off_each_line_says_top_k(tmp_path: Path) -> None:
    cfg = MemoryConfig(data_dir=tmp_path / "data")
    cfg = cfg.model_copy(
        update={"retrieval": cfg.retrieval.model_copy(update={"relevance_floor": False})}
    )
    with PraxMemory(cfg) as mem:
        mem.remember("u", "User went to the dentist on Tuesday.", importance=0.3)
        ctx = assemble_context(mem, "u", "What's the capital of Peru?", profile_chars=0)
        assert [line.tier for line in ctx.lines] == ["top k"]
        assert "the relevance floor is off" in ctx.lines[0].why


def test_an_empty_block_explains_itself() -> None:
    assert MemoryContext(text="").explain() == "nothing in the block"
