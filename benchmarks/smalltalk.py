"""Small talk held aside: what consolidation stores from chat as people type it (issue 38).

Our data (``benchmarks/data/smalltalk_heldout.json``, written for this project by a session
that saw neither the filter nor the classifier, and measured once when it landed): eight
conversations of 20 user turns each — moods, weather, requests to the assistant, passing
states, trivia, with about twelve durable facts among them, several said inside a
multi-clause turn or one that ends in a question. Each fact names the words any faithful
memory of it must contain (``keys``).

Each conversation runs through the real pipeline (``Consolidator`` on a fresh ``PraxMemory``:
the SQLite graph, Qdrant's embedded engine, the packaged model), on the rule path (the
offline ``RuleBasedExtractor``). Figures:

* **junk fraction** — stored raw memories that state none of the conversation's facts (that
  contain no fact's keys), over all raw memories stored (target ≤ 10 %);
* **facts kept** — facts a stored raw memory states (contains every key of; target: all);
* **small-talk turns stored** — turns with no fact that left at least one raw memory.

Run: .venv/bin/python -m benchmarks.smalltalk [--data PATH] [--json PATH|-] [-v]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks._common import print_table, write_json
from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.consolidation import Consolidator, TraceLogSource

DATA = Path(__file__).resolve().parent / "data" / "smalltalk_heldout.json"
START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
TARGET_JUNK = 0.10


@dataclass(frozen=True)
class Turn:
    text: str
    facts: tuple[tuple[str, ...], ...]  # the keys of each fact the turn states


@dataclass(frozen=True)
class Conversation:
    id: str
    turns: tuple[Turn, ...]


def load(path: Path = DATA) -> list[Conversation]:
    """The conversations; every key must appear in its turn (checked)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for conv in raw["conversations"]:
        turns = []
        for t in conv["turns"]:
            facts = tuple(tuple(k.lower() for k in f["keys"]) for f in t.get("facts", []))
            for keys in facts:
                missing = [k for k in keys if k not in t["text"].lower()]
                if missing or not keys:
                    raise ValueError(f"{conv['id']}: keys {missing or keys} not in {t['text']!r}")
            turns.append(Turn(t["text"], facts))
        out.append(Conversation(conv["id"], tuple(turns)))
    return out


def _states(content: str, keys: Sequence[str]) -> bool:
    low = content.lower()
    return all(k in low for k in keys)


def run_conversation(memory: PraxMemory, root: Path, conv: Conversation) -> dict[str, Any]:
    """Consolidate one conversation on the rule path and judge what was stored."""
    user = f"talk-{conv.id}"
    trace = root / f"{user}.log"
    stored_by_turn: list[list[str]] = []
    seen: set[str] = set()
    # one turn at a time, so each stored memory is traced to the turn that made it
    lines: list[str] = []
    for turn in conv.turns:
        lines.append(f"user: {turn.text}\n")
        trace.write_text("".join(lines), encoding="utf-8")
        Consolidator(memory).run(user, TraceLogSource(trace), now=START)
        now = {m.id: m.content for m in memory.list_memories(user, limit=1000)
               if m.summary_level == "raw"}  # fmt: skip
        stored_by_turn.append([c for i, c in now.items() if i not in seen])
        seen |= set(now)
    facts = [keys for t in conv.turns for keys in t.facts]
    stored = [c for batch in stored_by_turn for c in batch]
    junk = [c for c in stored if not any(_states(c, keys) for keys in facts)]
    kept = [keys for keys in facts if any(_states(c, keys) for c in stored)]
    talk_turns = [(t, s) for t, s in zip(conv.turns, stored_by_turn, strict=True) if not t.facts]
    return {
        "id": conv.id,
        "stored": len(stored),
        "junk": junk,
        "facts": len(facts),
        "kept": len(kept),
        "missed": [" ".join(k) for k in facts if k not in kept],
        "talk_turns": len(talk_turns),
        "talk_turns_stored": sum(bool(s) for _, s in talk_turns),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--json", metavar="PATH", nargs="?", const="-")
    parser.add_argument("-v", "--verbose", action="store_true", help="print junk and misses")
    args = parser.parse_args(argv)
    convs = load(args.data)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="prax-smalltalk-") as tmp:
        memory = PraxMemory(MemoryConfig(data_dir=Path(tmp) / "data"))
        try:
            rows = [run_conversation(memory, Path(tmp), c) for c in convs]
        finally:
            memory.close()
    stored = sum(r["stored"] for r in rows)
    junk = sum(len(r["junk"]) for r in rows)
    facts = sum(r["facts"] for r in rows)
    kept = sum(r["kept"] for r in rows)
    talk = sum(r["talk_turns"] for r in rows)
    talk_stored = sum(r["talk_turns_stored"] for r in rows)
    fraction = junk / stored if stored else 0.0
    if args.verbose:
        for r in rows:
            for text in r["junk"]:
                print(f"{r['id']} junk: {text}")
            for keys in r["missed"]:
                print(f"{r['id']} missed: {keys}")
    print_table(
        f"Small talk held aside ({args.data.name}, rule path)",
        ["figure", "target", "value"],
        [
            ["junk fraction (raw memories stating no fact)", f"≤ {TARGET_JUNK:.2f}",
             f"{fraction:.2f} ({junk} of {stored})"],
            ["facts kept", "all", f"{kept} of {facts}"],
            ["small-talk turns that stored a memory", "(info)", f"{talk_stored} of {talk}"],
        ],
    )  # fmt: skip
    print(f"run took {time.perf_counter() - started:.0f}s", file=sys.stderr)
    if args.json:
        write_json(
            args.json,
            {"junk_fraction": fraction, "stored": stored, "junk": junk, "facts": facts,
             "kept": kept, "talk_turns": talk, "talk_turns_stored": talk_stored, "rows": rows},
        )  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
