r"""Cutting the unconsolidated part of a trace into extractor-sized batches.

A batch is consecutive non-blank items whose joined text (``"\n"``) fits the extractor's own
character cap, so nothing batched is truncated. A single item longer than the cap is sent
alone, cut to the cap, and the cut-off tail is reported as ``bytes_skipped``. Blank items are
separators: they sit inside a batch's ``[start, end)`` range and are never re-read, because the
pointer is always a *raw* position.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from langgraph_prax_memory.consolidation._models import Batch, TraceItem

__all__ = ["EXTRACTION_CHAR_BUDGET", "MAX_BATCHES_PER_RUN", "BatchPlan", "backlog", "plan_batches"]

#: Characters per batch: the extractor's own cap (the seed's ``EXTRACTION_CHAR_BUDGET``).
EXTRACTION_CHAR_BUDGET = 4000
#: Batches (extractor calls) per run (the seed's ``MAX_BATCHES_PER_RUN``).
MAX_BATCHES_PER_RUN = 8


def _bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def backlog(items: Sequence[TraceItem], start: int) -> tuple[int, int]:
    """Non-blank items at or after ``start`` and their UTF-8 bytes."""
    lines = size = 0
    for item in items[start:]:
        if not item.blank:
            lines += 1
            size += _bytes(item.text)
    return lines, size


@dataclass
class BatchPlan:
    """The batches of one source for one run, and what is left after them.

    ``final_pointer`` is where the pointer lands once every batch is committed; it also steps
    over a tail of blank items (nothing there to read).
    """

    batches: list[Batch] = field(default_factory=list)
    final_pointer: int = 0
    pending_lines: int = 0
    pending_bytes: int = 0


def plan_batches(
    items: Sequence[TraceItem],
    start: int,
    *,
    source_key: str,
    budget: int = EXTRACTION_CHAR_BUDGET,
    max_batches: int = MAX_BATCHES_PER_RUN,
    fingerprint: str | None = None,
) -> BatchPlan:
    """Plan up to ``max_batches`` batches of at most ``budget`` characters from ``start``.

    Example:
        >>> items = [TraceItem(text=t) for t in ["a" * 10, "", "b" * 10, "c" * 10]]
        >>> plan = plan_batches(items, 0, source_key="s", budget=21)
        >>> [(b.start, b.end, b.texts) for b in plan.batches]
        [(0, 3, ['aaaaaaaaaa', 'bbbbbbbbbb']), (3, 4, ['cccccccccc'])]
    """
    if budget < 1:
        raise ValueError("budget must be at least 1 character")
    plan = BatchPlan(final_pointer=start)
    pos = start
    n = len(items)
    while len(plan.batches) < max_batches:
        texts: list[str] = []
        times = []
        length = skipped = 0
        last_id: str | None = None
        end = pos
        k = pos
        while k < n:
            item = items[k]
            if item.blank:
                k += 1
                continue
            extra = len(item.text) + (1 if texts else 0)
            if length + extra <= budget:
                texts.append(item.text)
                length += extra
            elif not texts:  # one item longer than the whole budget: send it cut, not dropped
                cut = item.text[:budget]
                texts.append(cut)
                length = len(cut)
                skipped = _bytes(item.text) - _bytes(cut)
            else:
                break
            times.append(item.timestamp)
            last_id = item.id
            k += 1
            end = k
            if skipped:
                break
        if not texts:
            break
        batch = Batch(
            source_key=source_key,
            start=pos,
            end=end,
            texts=texts,
            times=times,
            last_item_id=last_id,
            fingerprint=fingerprint,
            lines=len(texts),
            bytes_seen=_bytes("\n".join(texts)),
            bytes_skipped=skipped,
        )
        plan.batches.append(batch)
        pos = end
    lines, size = backlog(items, pos)
    if lines == 0 and pos < n:
        pos = n  # only blank separators left: step over them
        if plan.batches:
            plan.batches[-1].end = pos
    plan.final_pointer = pos
    plan.pending_lines, plan.pending_bytes = lines, size
    # Per-batch backlog (what would remain if the run stopped right after that batch).
    after_lines, after_bytes = lines, size
    for batch in reversed(plan.batches):
        batch.pending_lines_after, batch.pending_bytes_after = after_lines, after_bytes
        after_lines += batch.lines
        after_bytes += sum(_bytes(t) for t in batch.texts) + batch.bytes_skipped
    return plan
