"""Batching: the 4,000-char budget, blank separators, over-long items, the 8-batch cap."""

from __future__ import annotations

from langgraph_prax_memory.consolidation import TraceItem, plan_batches


def items(*texts: str) -> list[TraceItem]:
    return [TraceItem(text=t) for t in texts]


def test_blank_separators_are_inside_the_range_and_never_counted_as_content() -> None:
    trace = items("a" * 10, "", "  ", "b" * 10, "", "c" * 10)
    plan = plan_batches(trace, 0, source_key="s", budget=4000)
    assert len(plan.batches) == 1
    batch = plan.batches[0]
    assert batch.texts == ["a" * 10, "b" * 10, "c" * 10]
    assert (batch.start, batch.end) == (0, 6)
    assert batch.lines == 3
    assert plan.final_pointer == 6
    assert (plan.pending_lines, plan.pending_bytes) == (0, 0)


def test_trailing_blank_separators_are_stepped_over() -> None:
    plan = plan_batches(items("x", "", ""), 0, source_key="s")
    assert plan.batches[0].end == 3 == plan.final_pointer
    only_blanks = plan_batches(items("x", "", ""), 1, source_key="s")
    assert only_blanks.batches == []
    assert only_blanks.final_pointer == 3


def test_budget_counts_the_joining_newlines_and_nothing_is_truncated() -> None:
    trace = items(*["y" * 999 for _ in range(9)])
    plan = plan_batches(trace, 0, source_key="s", budget=4000)
    # 4 x 999 + 3 newlines = 3999 fits; a fifth item would need 5000.
    assert [len(b.texts) for b in plan.batches] == [4, 4, 1]
    for batch in plan.batches:
        assert len(batch.text) <= 4000
        assert all(len(t) == 999 for t in batch.texts)
        assert batch.bytes_skipped == 0
    assert [b.start for b in plan.batches] == [0, 4, 8]
    assert plan.batches[0].bytes_seen == 3999


def test_single_item_over_budget_is_sent_cut_with_its_tail_counted_in_bytes() -> None:
    long = "é" * 5000  # 2 UTF-8 bytes per character
    plan = plan_batches(items("short", long, "after"), 0, source_key="s", budget=4000)
    texts = [b.texts for b in plan.batches]
    assert texts == [["short"], ["é" * 4000], ["after"]]
    cut = plan.batches[1]
    assert cut.bytes_skipped == 2000
    assert cut.bytes_seen == 8000
    assert (cut.start, cut.end) == (1, 2)


def test_cap_leaves_a_backlog_with_lines_and_bytes() -> None:
    trace = items(*[f"{i:04d}" + "z" * 2496 for i in range(40)])  # 2500 chars: 1 per batch
    plan = plan_batches(trace, 0, source_key="s", budget=4000, max_batches=8)
    assert len(plan.batches) == 8
    assert plan.final_pointer == 8
    assert plan.pending_lines == 32
    assert plan.pending_bytes == 32 * 2500
    assert plan.batches[0].pending_lines_after == 39
    assert plan.batches[-1].pending_lines_after == 32


def test_plan_starts_at_the_pointer() -> None:
    plan = plan_batches(items("a", "b", "", "c"), 2, source_key="s")
    assert plan.batches[0].texts == ["c"]
    assert plan.batches[0].start == 2
