"""Life changes as people talk: does consolidation keep memory current? (issue 38)

Our data (``benchmarks/data/changes.json``, written for this project, no third-party data):
48 changes, each two sessions of chat turns (multi-clause, small talk around the fact, some
turns ending in a question) ``gap_days`` apart (14 or 90): session 1 states the old value,
session 2 changes it in other words (explicitly, only implied by a new value, or recording an
end: a break-up, quitting), plus additions to many-valued attributes as controls (nothing may
be retired). Twelve cases were written first and kept aside (``split: heldout``); the figures
are printed per split.

Each case runs through the real pipeline (``Consolidator`` on a fresh ``PraxMemory``: SQLite
graph, Qdrant's embedded engine, the packaged model), on two paths:

* **rules** — the offline ``RuleBasedExtractor`` reads the raw turns;
* **llm** — a scripted model answers each batch as a good model would: the sentence that
  states the attribute, in the third person, and (session 2) in ``replaces`` the ids of the
  listed current memories that mention the old value (single-valued changes and recorded
  ends only). It reads nothing but the prompt and the case's keywords.

Figures per path and split:

* **current first** — the top hit of ``recall(question)`` states a new value (a recorded end:
  is not an old fact); controls: an old fact is still current;
* **stale absent** — no session-1 memory that mentions the old value is in
  ``build_memory_context(question)`` (controls: not counted);
* **kept in history** — every session-1 memory that mentioned the old value and was retired
  has its ``valid_until`` (an interval), and comes back with ``include_history=True``;
  over the cases where session 1 stored one (the number of such cases is printed);
* **old stored** — cases where session 1 stored a memory of the old value at all;
* **new value stored** — changes with a new value where session 2 stored a memory stating it
  (the rest lost it: never extracted, or dropped as small talk);
* **replay adds** — memories added when both traces are consolidated again (must be 0).

Run: .venv/bin/python -m benchmarks.changes [--path rules|llm|both] [--split dev|heldout|all]
     [--json PATH|-]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from benchmarks._common import print_table, write_json
from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.consolidation import Consolidator, LLMExtractor, TraceLogSource
from langgraph_prax_memory.consolidation._normalize import third_person
from langgraph_prax_memory.context import build_memory_context
from tests.scripted import ScriptedChatModel

DATA = Path(__file__).resolve().parent / "data" / "changes.json"
START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
TARGETS = {
    "llm": {"first": 0.90, "stale_absent": 0.95},
    "rules": {"first": 0.80, "stale_absent": 0.80},
}
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")
_CANDIDATE = re.compile(r"^(m\d+): (.*?)(?: \(\d{4}-\d\d-\d\d\))?$", re.M)


@dataclass(frozen=True)
class Case:
    id: str
    split: str
    pattern: str
    attribute: str
    single_valued: bool
    gap_days: int
    session1: tuple[str, ...]
    session2: tuple[str, ...]
    question: str
    old: tuple[str, ...]
    new: tuple[str, ...]
    records_change: bool

    @property
    def control(self) -> bool:
        """An addition to a many-valued attribute: nothing may be retired."""
        return not self.single_valued and not self.records_change


def load(path: Path = DATA) -> list[Case]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return [
        Case(
            id=c["id"],
            split=c["split"],
            pattern=c["pattern"],
            attribute=c["attribute"],
            single_valued=bool(c["single_valued"]),
            gap_days=int(c["gap_days"]),
            session1=tuple(c["session1"]),
            session2=tuple(c["session2"]),
            question=c["question"],
            old=tuple(k.lower() for k in c["old"]),
            new=tuple(k.lower() for k in c["new"]),
            records_change=bool(c.get("records_change", False)),
        )
        for c in raw["cases"]
    ]


def has_any(text: str, words: Sequence[str]) -> bool:
    """Whether ``text`` holds one of ``words`` as a whole word (or phrase), case-folded."""
    low = text.casefold()
    return any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", low) for w in words)


# -- the scripted good model (llm path) ----------------------------------------------------


def _sentences(turns: Sequence[str]) -> list[str]:
    return [s.strip() for t in turns for s in _SENTENCE.findall(t) if s.strip()]


def ideal_answer(case: Case, session: int, messages: list[BaseMessage]) -> AIMessage:
    """What a good model answers for one session: the stating sentence(s), and replaces."""
    prompt = "\n".join(str(m.content) for m in messages)
    turns = case.session1 if session == 1 else case.session2
    words = case.old if session == 1 else (case.new or case.old)
    stating = [s for s in _sentences(turns) if has_any(s, words)] or _sentences(turns)[:1]
    replaces: list[str] = []
    if session == 2 and not case.control:
        replaces = [sid for sid, text in _CANDIDATE.findall(prompt) if has_any(text, case.old)]
    facts = [
        {
            "content": third_person("User", s.rstrip(" ?")),
            "importance": 0.8,
            "confidence": 0.9,
            "replaces": replaces,
        }
        for s in stating
    ]
    body = {"entities": [], "relations": [], "facts": facts}
    return AIMessage(content=json.dumps(body))


# -- one case ------------------------------------------------------------------------------


def _consolidate(
    memory: PraxMemory, user: str, trace: Path, turns: Sequence[str], at: datetime, extractor: Any
) -> None:
    trace.write_text("".join(f"user: {t}\n" for t in turns), encoding="utf-8")
    Consolidator(memory, extractor=extractor).run(user, TraceLogSource(trace), now=at)


def run_case(memory: PraxMemory, root: Path, case: Case, path: str) -> dict[str, Any]:
    user = f"{path}-{case.id}"
    t1, t2 = root / f"{user}-1.log", root / f"{user}-2.log"
    later = START + timedelta(days=case.gap_days)

    def extractor(session: int) -> Any:
        if path != "llm":
            return None
        model = ScriptedChatModel(script=[lambda m: ideal_answer(case, session, m)] * 4)
        return LLMExtractor(model)

    _consolidate(memory, user, t1, case.session1, START, extractor(1))
    old_facts = {
        m.id: m.content
        for m in memory.list_memories(user, limit=1000)
        if m.summary_level == "raw" and has_any(m.content, case.old)
    }
    _consolidate(memory, user, t2, case.session2, later, extractor(2))
    new_stored = any(
        m.summary_level == "raw" and m.id not in old_facts and has_any(m.content, case.new)
        for m in memory.list_memories(user, limit=1000)
    )
    now = later + timedelta(hours=1)
    hits = memory.recall(user, case.question, k=3, reinforce=False, now=now)
    top = hits[0].memory if hits else None
    if case.control:
        current = {m.id for m in memory.list_memories(user, limit=1000) if m.valid_until is None}
        first = bool(old_facts) and all(i in current for i in old_facts)
    elif case.new:
        first = top is not None and has_any(top.content, case.new) and top.id not in old_facts
    else:
        first = top is not None and top.id not in old_facts
    context = build_memory_context(memory, user, case.question, now=now)
    stale = any(text in context for text in old_facts.values())
    history = {
        h.memory.id: h.memory
        for h in memory.recall(
            user, case.question, k=50, reinforce=False, include_history=True, now=now
        )
    }
    everything = {m.id: m for m in memory.list_memories(user, limit=1000)}
    retired = [everything[i] for i in old_facts if i in everything and everything[i].valid_until]
    # the old fact kept in history: retired (not deleted), with its interval, recallable
    kept = (
        bool(old_facts)
        and not case.control
        and bool(retired)
        and all(i in everything for i in old_facts)
    )
    interval = all(m.valid_until is not None and m.valid_until >= m.created_at for m in retired)
    in_history = all(m.id in history for m in retired)
    before = len(everything)
    # replay: both traces consolidated again (the pointer) must add nothing
    _consolidate(memory, user, t1, case.session1, START, extractor(1))
    _consolidate(memory, user, t2, case.session2, later, extractor(2))
    added = len(memory.list_memories(user, limit=1000)) - before
    return {
        "id": case.id,
        "split": case.split,
        "pattern": case.pattern,
        "control": case.control,
        "old_stored": bool(old_facts),
        "new_stored": new_stored if case.new else None,
        "first": first,
        "stale": stale,
        "history": (kept and interval and in_history) if old_facts else None,
        "retired": len(retired),
        "replay_added": added,
        "top": (top.content[:90] if top else ""),
    }


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    changes = [r for r in rows if not r["control"]]
    controls = [r for r in rows if r["control"]]
    stored = [r for r in changes if r["old_stored"]]
    return {
        "cases": len(rows),
        "changes": len(changes),
        "controls": len(controls),
        "first": sum(r["first"] for r in changes) / max(1, len(changes)),
        "stale_absent": sum(not r["stale"] for r in changes) / max(1, len(changes)),
        "old_stored": len(stored),
        "new_stored": sum(bool(r["new_stored"]) for r in changes),
        "with_new": sum(r["new_stored"] is not None for r in changes),
        "kept_in_history": sum(bool(r["history"]) for r in stored) / max(1, len(stored)),
        "controls_kept": sum(r["first"] for r in controls) / max(1, len(controls)),
        "replay_added": sum(r["replay_added"] for r in rows),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--path", choices=("rules", "llm", "both"), default="both")
    parser.add_argument("--split", choices=("dev", "heldout", "all"), default="all")
    parser.add_argument("--json", metavar="PATH", nargs="?", const="-")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every case")
    args = parser.parse_args(argv)
    cases = [c for c in load() if args.split == "all" or c.split == args.split]
    paths = ("rules", "llm") if args.path == "both" else (args.path,)
    started = time.perf_counter()
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="prax-changes-") as tmp:
        memory = PraxMemory(MemoryConfig(data_dir=Path(tmp) / "data"))
        try:
            for path in paths:
                rows = [run_case(memory, Path(tmp), c, path) for c in cases]
                out[path] = {
                    split: summarise([r for r in rows if r["split"] == split])
                    for split in ("dev", "heldout")
                    if any(r["split"] == split for r in rows)
                }
                out[path]["rows"] = rows
                if args.verbose:
                    for r in rows:
                        flags = (
                            f"first={'Y' if r['first'] else 'n'} "
                            f"stale={'Y' if r['stale'] else 'n'} stored={r['old_stored']}"
                        )
                        print(f"{path} {r['id']} {r['pattern'][:40]:40} {flags} | {r['top']}")
        finally:
            memory.close()
    table: list[list[str]] = []
    for path in paths:
        for split, s in out[path].items():
            if split == "rows":
                continue
            t = TARGETS[path]
            table.append(
                [
                    path,
                    split,
                    f"{s['changes']} (+{s['controls']} controls)",
                    f"{s['first']:.2f} (≥ {t['first']:.2f})",
                    f"{s['stale_absent']:.2f} (≥ {t['stale_absent']:.2f})",
                    f"{s['kept_in_history']:.2f} of {s['old_stored']}",
                    f"{s['new_stored']} of {s['with_new']}",
                    f"{s['controls_kept']:.2f}",
                    str(s["replay_added"]),
                ]
            )
    print_table(
        "Life changes as people talk (benchmarks/data/changes.json)",
        ["path", "split", "changes", "current first", "stale absent", "kept in history",
         "new value stored", "controls kept", "replay adds"],
        table,
    )  # fmt: skip
    print(f"run took {time.perf_counter() - started:.0f}s", file=sys.stderr)
    if args.json:
        write_json(args.json, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
