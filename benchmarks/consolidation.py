"""Consolidation throughput with the rule-based extractor on the LoCoMo development split.

Each LoCoMo conversation is replayed as one user's thread: every dialogue turn is one message
("<speaker>: <text>", dated by its session time). Consolidation is triggered the way an agent
triggers it — every 5 turns, over the new messages — and runs the whole pipeline (extraction,
gate, SQLite graph, Qdrant local mode with the offline MiniLM model, decay, daily summaries).
Reported: items/s, extractor calls per 1,000 turns, and batches per run, against two baselines
measured in the same run: the extractor alone (no storage) and plain ``remember_many`` of every
turn (storage without extraction).

    .venv/bin/python -m benchmarks.consolidation            # all 5 conversations (~2,760 turns)
    .venv/bin/python -m benchmarks.consolidation --limit 1  # one conversation

The data (CC BY-NC 4.0) is read from ../shared/bench/locomo-dev.json and never copied; the
script exits with a message when it is absent.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage

from benchmarks._common import print_table
from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.consolidation import (
    Consolidator,
    MessagesTraceSource,
    RuleBasedExtractor,
    message_to_item,
)

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "bench" / "locomo-dev.json"


def session_time(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' → an aware UTC datetime."""
    from datetime import UTC

    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def turns_of(sample: dict[str, Any]) -> list[HumanMessage]:
    conv = sample["conversation"]
    out: list[HumanMessage] = []
    n = 1
    while f"session_{n}" in conv:
        when = session_time(conv[f"session_{n}_date_time"])
        for turn in conv[f"session_{n}"]:
            out.append(
                HumanMessage(
                    turn["text"],
                    name=turn["speaker"],
                    id=turn["dia_id"],
                    additional_kwargs={"timestamp": when.isoformat()},
                )
            )
        n += 1
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="conversations to replay")
    parser.add_argument("--every", type=int, default=5, help="turns between consolidations")
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA} is absent (see ../shared/bench/README.md)")
        return 0
    samples = json.loads(DATA.read_text())[: args.limit]
    conversations = [(s["sample_id"], turns_of(s)) for s in samples]
    total = sum(len(t) for _, t in conversations)

    with tempfile.TemporaryDirectory() as tmp:
        memory = PraxMemory(MemoryConfig(data_dir=Path(tmp) / "data"))
        memory.embeddings.embed_documents(["warm up"])

        # Baseline 1: the extractor alone, over the same 5-turn windows.
        extractor = RuleBasedExtractor()
        started = time.perf_counter()
        for _, turns in conversations:
            for start in range(0, len(turns), args.every):
                window = [message_to_item(m).text for m in turns[start : start + args.every]]
                extractor.extract(window)
        extract_s = time.perf_counter() - started

        # Baseline 2: storing every turn as a memory (no extraction, no graph), in its own
        # store so its points do not slow down the pipeline's filtered scans.
        raw = PraxMemory(MemoryConfig(data_dir=Path(tmp) / "raw"))
        started = time.perf_counter()
        for sample_id, turns in conversations:
            items = [{"content": message_to_item(m).text} for m in turns]
            for start in range(0, len(items), 100):
                raw.remember_many(sample_id, items[start : start + 100])
        remember_s = time.perf_counter() - started
        raw.close()

        # The pipeline, every `--every` turns, clock = the conversation's own time.
        consolidator = Consolidator(memory)
        runs = batches = calls = created = entities = relations = review = 0
        started = time.perf_counter()
        for sample_id, turns in conversations:
            for end in range(args.every, len(turns) + args.every, args.every):
                window = turns[: min(end, len(turns))]
                now = datetime.fromisoformat(window[-1].additional_kwargs["timestamp"])
                source = MessagesTraceSource(window, thread_id=sample_id, roles={"user"})
                result = consolidator.run(sample_id, source, now=now)
                runs += 1
                batches += result.batches
                calls += result.extractor_calls
                created += result.memories_created
                entities += result.entities_upserted
                relations += result.relations_upserted
                review += result.pending_review
        pipeline_s = time.perf_counter() - started
        memory.close()

    rows = [
        ["extractor alone", f"{total / extract_s:,.0f}", "—", "1.00×"],
        ["remember_many of every turn", f"{total / remember_s:,.0f}", "—",
         f"{extract_s / remember_s:.2f}×"],
        ["consolidation pipeline", f"{total / pipeline_s:,.0f}",
         f"{1000 * calls / total:,.0f}", f"{extract_s / pipeline_s:.3f}×"],
    ]  # fmt: skip
    print_table(
        f"Consolidation on LoCoMo dev: {len(conversations)} conversations, {total:,} turns, "
        f"every {args.every} turns",
        ["path", "items/s", "extractor calls / 1,000 turns", "speed vs extractor"],
        rows,
    )
    print(
        f"runs {runs}, batches {batches} ({batches / max(runs, 1):.2f}/run), memories created "
        f"{created}, entity upserts {entities}, relation upserts {relations}, "
        f"sent to review {review}, wall {pipeline_s:.1f}s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
