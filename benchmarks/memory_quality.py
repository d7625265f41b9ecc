"""Memory quality: does consolidation keep what a good assistant would keep? (issue 15)

Scripted multi-session conversations of our own (no third-party data), run through the real
pipeline (``Consolidator`` on a fresh ``PraxMemory``: SQLite graph, Qdrant's embedded engine,
the packaged embedding model unless ``--embeddings hash``), on two paths:

* **rules** — the offline ``RuleBasedExtractor`` reads the raw turns;
* **llm** — a scripted chat model answers each batch with the extraction a good model would
  give (JSON text, the path of a model without tool calling).

Measured, per path where it applies:

1. **drift** — session 1 states a preference (or a home, a habit), session 2 changes it with
   one of the change patterns below (``PATTERNS``). *Current ranked first*: the top hit of
   ``recall(<question about that slot>)`` is the session-2 statement, and the graph's current
   target is the new value (the old one superseded). *Stale in context*: the session-1
   statement appears in ``build_memory_context`` for the same question.
2. **replay** — every trace consolidated again: with the state file (a no-op by the pointer)
   and after deleting ``consolidation_state.json`` (the content must be recognised): new
   memories, entities, edges, changed weights / mention counts; and the old session replayed
   alone must not make its superseded value current again.
3. **aliases** — a person mentioned as "my colleague Dana Whitfield", "Dana W." and "Dana" in
   three sessions: one person entity (the groups), plus controls where two people share a first
   name and must stay apart.
4. **junk** — 200 turns of small talk with 5 real facts: stored memories, the junk fraction,
   facts kept, junk rated ≥ 0.8.
5. **malformed answers** — a corpus of malformed model answers (``MALFORMED``), each carrying
   one fact: the fact must end in memory, in pending review, or stay in the backlog (the batch
   not consumed); anything else is lost.

Run: .venv/bin/python -m benchmarks.memory_quality [--quick] [--embeddings model|hash]
     [--json PATH|-]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from benchmarks._common import print_table
from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.consolidation import Consolidator, LLMExtractor, TraceLogSource
from langgraph_prax_memory.context import build_memory_context

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Drift:
    """One scripted drift: ``before`` in session 1, ``after`` in session 2."""

    pattern: str
    before: str
    after: str
    question: str
    old: str
    new: str | None  # None: the old value is only closed ("I no longer like jazz")
    relation: str = "prefers"


#: The change patterns, each scripted at least once (16 patterns, 24 drifts).
DRIFTS: list[Drift] = [
    Drift("now prefer", "I prefer dark mode in all my tools.", "I now prefer light mode.",
          "Which colour theme do I like for my editor?", "dark mode", "light mode"),
    Drift("now prefer", "I like Python for quick scripts.", "I now prefer Go for scripts.",
          "Which language do I use for scripts?", "python", "go"),
    Drift("switched to", "I use VS Code for all my coding.", "I switched to Neovim last month.",
          "Which code editor do I use?", "vs code", "neovim"),
    Drift("switched from … to", "I use Chrome as my browser.",
          "I switched from Chrome to Firefox.", "Which web browser do I use?",
          "chrome", "firefox"),
    Drift("no longer", "I like jazz a lot.", "I no longer like jazz.",
          "What music do I like?", "jazz", None),
    Drift("moved to", "I live in Berlin.", "I moved to Lisbon in May.",
          "Where do I live?", "berlin", "lisbon", "lives_in"),
    Drift("moved from … to", "I live in Toronto.", "We moved from Toronto to Vancouver.",
          "Which city do I live in?", "toronto", "vancouver", "lives_in"),
    Drift("not anymore", "I drink coffee every morning.", "Coffee? Not anymore.",
          "What do I drink in the morning?", "coffee", None),
    Drift("instead of", "I use Slack for team chat.", "I use Discord instead of Slack now.",
          "Which chat app does my team use?", "slack", "discord"),
    Drift("changed my mind", "I prefer spaces for indentation.",
          "I changed my mind. I prefer tabs.", "Tabs or spaces for indentation?",
          "spaces", "tabs"),
    Drift("these days", "I drink black tea.", "These days I drink green tea.",
          "Which tea do I drink?", "black tea", "green tea"),
    Drift("stopped using", "I use Jira to track my work.", "I stopped using Jira.",
          "Which issue tracker do I use?", "jira", None),
    Drift("stopped … and switched", "I use Evernote for notes.",
          "I stopped using Evernote and switched to Obsidian.",
          "Which notes app do I use?", "evernote", "obsidian"),
    Drift("gave up", "I eat meat most days.", "I gave up meat.",
          "Do I eat meat?", "meat", None),
    Drift("gave up …, X these days", "I drink coffee at work.",
          "I gave up coffee, tea these days.", "What do I drink at work?", "coffee", "tea"),
    Drift("from now on", "I use pip for Python packages.", "From now on I use uv.",
          "Which Python package manager do I use?", "pip", "uv"),
    Drift("replaced X with Y", "I use Trello for my projects.",
          "I replaced Trello with Linear.", "Which project tracker do I use?",
          "trello", "linear"),
    Drift("used to", "I love running in the park.", "I used to love running.",
          "Which sport do I enjoy?", "running", None),
    Drift("now prefer", "I prefer mornings for deep work.", "I now prefer evenings.",
          "When do I do deep work?", "mornings", "evenings"),
    Drift("switched to", "I use Windows on my laptop.", "I switched to Linux.",
          "Which operating system is on my laptop?", "windows", "linux"),
    Drift("nowadays", "I use zsh as my shell.", "Nowadays I use fish.",
          "Which shell do I use?", "zsh", "fish"),
    Drift("new favourite", "I like the Dracula theme.", "Solarized is my new favourite.",
          "Which theme do I like?", "dracula", "solarized"),
    Drift("replaced X with Y", "I use MySQL for my side project.",
          "I replaced MySQL with Postgres.", "Which database do I use?", "mysql", "postgres"),
    Drift("instead of", "I go to work by car.", "I take the train instead of the car now.",
          "How do I get to work?", "car", "train"),
]  # fmt: skip

PEOPLE = [
    ("colleague", "Dana", "Whitfield"), ("manager", "Tom", "Becker"),
    ("sister", "Sarah", "Lund"), ("friend", "Omar", "Haddad"),
    ("mentor", "Grace", "Okafor"), ("neighbour", "Pavel", "Novak"),
    ("dentist", "Irene", "Castillo"), ("coach", "Marcus", "Reid"),
    ("cousin", "Lena", "Vogel"), ("teammate", "Kenji", "Mori"),
]  # fmt: skip

SMALL_TALK = [
    "I love it!", "I have a question.", "I want to sleep.", "Haha, I like that one.",
    "I'm so tired today.", "I guess so.", "I think you are right.", "I'm bored.",
    "I want to know more about that.", "I really appreciate it!", "I'm not sure about this.",
    "I have to leave soon.", "I feel great today!", "I'm back again.", "I see, thanks.",
    "I like your answer.", "I'm happy to hear that.", "I totally agree.", "I need a break.",
    "I love this chat!", "I want to try that later.", "I'm good, how are you?",
    "I have no idea what to say.", "I'm just curious.", "I am glad you asked.",
]  # fmt: skip
REAL_FACTS = [
    "I'm allergic to shellfish.",
    "My daughter Mia starts school in September.",
    "I work at Northwind as a product designer.",
    "I prefer window seats on long flights.",
    "I decided to run a half marathon in October.",
]

_FACT = "The user keeps a garden of tomatoes on the balcony."
_GOOD = {
    "entities": [{"name": "User", "type": "person", "confidence": 0.9}],
    "relations": [],
    "facts": [{"content": _FACT, "importance": 0.7, "confidence": 0.9}],
}
_GOOD_JSON = json.dumps(_GOOD)
_FACT_ONLY = json.dumps({"content": _FACT, "importance": 0.7, "confidence": 0.9})
#: Malformed answers collected from local models and from the shapes users report; each one
#: carries the fact ``_FACT``.
MALFORMED: dict[str, str] = {
    "top-level list": f"[{_GOOD_JSON}]",
    "list of facts": f"[{_FACT_ONLY}]",
    "result wrapper": json.dumps({"result": _GOOD}),
    "data wrapper": json.dumps({"data": _GOOD}),
    "extraction wrapper": json.dumps({"extraction": _GOOD}),
    "code fence": f"```json\n{_GOOD_JSON}\n```",
    "prose around": f"Sure! Here is the extraction:\n{_GOOD_JSON}\nLet me know if you need more.",
    "trailing commas": _GOOD_JSON.replace("}]", "},]").replace(
        '"relations": []', '"relations": [],'
    ),
    "single quotes": _GOOD_JSON.replace('"', "'"),
    "unquoted keys": '{facts: [{content: "' + _FACT + '", importance: 0.7, confidence: 0.9}]}',
    "python literals": "{'facts': [{'content': '" + _FACT + "', 'importance': 0.7, "
    "'confidence': 0.9, 'tags': None, 'hedged': False}]}",
    "truncated tail": _GOOD_JSON[:-3],
    "comments": '{"facts": [ // the facts\n' + _FACT_ONLY + "]}",
    "key_facts alias": json.dumps({"key_facts": [{"content": _FACT, "confidence": 0.9}]}),
    "bare string facts": json.dumps({"facts": [_FACT]}),
    "confidence low": json.dumps({"facts": [{"content": _FACT, "confidence": "low"}]}),
    "confidence missing": json.dumps({"facts": [{"content": _FACT}]}),
    "confidence as string": json.dumps({"facts": [{"content": _FACT, "confidence": "0.9"}]}),
    "importance high": json.dumps(
        {"facts": [{"content": _FACT, "importance": "high", "confidence": 0.9}]}
    ),
    "1-10 scale": json.dumps({"facts": [{"content": _FACT, "importance": 7, "confidence": 9}]}),
    "xml tags": f"<json>{_GOOD_JSON}</json>",
    "json in a string": json.dumps(_GOOD_JSON),
    "unparseable prose": "I am sorry, I cannot produce JSON for this conversation.",
    "empty answer": "",
}


@dataclass
class Figures:
    """What one run measured (see the module docstring)."""

    drifts: dict[str, dict[str, Any]] = field(default_factory=dict)
    replay: dict[str, dict[str, int]] = field(default_factory=dict)
    aliases: dict[str, Any] = field(default_factory=dict)
    junk: dict[str, Any] = field(default_factory=dict)
    malformed: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


def _memory(root: Path, embeddings: str) -> PraxMemory:
    config = MemoryConfig(data_dir=root)
    if embeddings == "hash":
        from tests.fakes import HashEmbeddings  # the test suite's hashed bag of words

        floor = config.retrieval.model_copy(update={"relevance_floor": False})
        config = config.model_copy(update={"retrieval": floor})
        return PraxMemory(config, embeddings=HashEmbeddings(), embedding_dimension=384)
    return PraxMemory(config)


def _run(
    memory: PraxMemory,
    user: str,
    trace: Path,
    lines: Sequence[str],
    day: int,
    extractor: Any = None,
) -> Any:
    trace.write_text("".join(f"user: {line}\n" for line in lines), encoding="utf-8")
    consolidator = Consolidator(memory, extractor=extractor)
    return consolidator.run(user, TraceLogSource(trace), now=NOW + timedelta(days=day))


def _llm_answer(drift: Drift, session: int) -> str:
    """What a good model answers for one session of a drift."""
    rtype = drift.relation
    if session == 1:
        rels = [{"source": "User", "type": rtype, "target": drift.old, "confidence": 0.9}]
        fact = drift.before
    elif drift.new is None:
        rels = [{"source": "User", "type": rtype, "target": drift.old,
                 "supersedes": drift.old, "confidence": 0.9}]  # fmt: skip
        fact = drift.after
    else:
        rels = [{"source": "User", "type": rtype, "target": drift.new,
                 "supersedes": drift.old, "confidence": 0.9}]  # fmt: skip
        fact = drift.after
    return json.dumps(
        {
            "entities": [{"name": "User", "type": "person", "confidence": 0.9}],
            "relations": rels,
            "facts": [{"content": f"user: {fact}", "importance": 0.8, "confidence": 0.9}],
        }
    )


def _names(value: str, names: Sequence[str]) -> bool:
    """``value`` is one of ``names`` or its first words ("dracula" of "dracula theme")."""
    return any(n == value or n.startswith(value + " ") for n in names)


def _last_sentence(text: str) -> str:
    parts = [p for p in text.replace("?", "?|").replace(". ", ".|").split("|") if p.strip()]
    return parts[-1].strip() if parts else text


def _raw_memories(memory: PraxMemory, user: str) -> int:
    """Memories of the trace (summaries, which a new day adds, are not duplicates)."""
    return sum(m.summary_level == "raw" for m in memory.list_memories(user, limit=10_000))


def _graph_snapshot(memory: PraxMemory, user: str) -> dict[str, Any]:
    stats = memory.graph.stats(user)
    me = memory.graph.get_entity(user, "User", include_superseded=True)
    rels = me.relations if me is not None else []
    return {
        "memories": _raw_memories(memory, user),
        "entities": stats.entities,
        "edges": stats.relations,
        "weights": round(sum(r.weight for r in rels), 6),
        "mentions": me.entity.mention_count if me is not None else 0,
        "current": sorted(
            (r.type, r.target) for r in rels if r.valid_until is None and r.source == "user"
        ),
    }


def measure_drifts(
    memory: PraxMemory, root: Path, path: str, drifts: Sequence[Drift], figures: Figures
) -> list[tuple[str, list[Path], Drift]]:
    rows: list[dict[str, Any]] = []
    traces: list[tuple[str, list[Path], Drift]] = []
    for i, drift in enumerate(drifts):
        user = f"{path}-drift-{i}"
        extractor = None
        if path == "llm":
            model = FakeListChatModel(responses=[_llm_answer(drift, 1), _llm_answer(drift, 2)])
            extractor = LLMExtractor(model)
        t1, t2 = root / f"{user}-1.log", root / f"{user}-2.log"
        _run(memory, user, t1, [drift.before], 0, extractor)
        was = [e.name for e in memory.graph.current_targets(user, "User", drift.relation)]
        _run(memory, user, t2, [drift.after], 1, extractor)
        traces.append((user, [t1, t2], drift))
        current = [e.name for e in memory.graph.current_targets(user, "User", drift.relation)]
        graph_ok = (
            _names(drift.old, was)  # session 1 made the old value current
            and not _names(drift.old, current)
            and (drift.new is None or _names(drift.new, current))
        )
        hits = memory.recall(user, drift.question, k=3, reinforce=False)
        top = hits[0].memory.content if hits else ""
        statement = _last_sentence(drift.after)
        stated = any(statement in m.content for m in memory.list_memories(user, limit=100))
        # the change statement is the top hit; a bare closing ("Coffee? Not anymore.") may
        # store no statement of its own: then at least the old one must not come first
        ranked_first = statement in top if stated else drift.before not in top
        context = build_memory_context(memory, user, drift.question)
        stale = drift.before in context
        rows.append(
            {"pattern": drift.pattern, "graph": graph_ok, "first": ranked_first, "stale": stale,
             "top": top[:80]}
        )  # fmt: skip
    n = len(rows)
    figures.drifts[path] = {
        "drifts": n,
        "patterns": len({r["pattern"] for r in rows}),
        "graph_current": sum(r["graph"] for r in rows),
        "ranked_first": sum(r["first"] for r in rows),
        "stale_in_context": sum(r["stale"] for r in rows),
        "missed": [r["pattern"] for r in rows if not (r["graph"] and r["first"])],
        "stale_patterns": [r["pattern"] for r in rows if r["stale"]],
        "tops": {r["pattern"]: r["top"] for r in rows if not r["first"]},
    }
    return traces


def measure_replay(
    memory: PraxMemory,
    path: str,
    traces: Sequence[tuple[str, list[Path], Drift]],
    figures: Figures,
) -> None:
    totals = {"memories": 0, "entities": 0, "edges": 0, "weights": 0, "mentions": 0, "flips": 0}
    with_state = dict(totals)
    for user, files, drift in traces:
        extractor_for = _replay_extractor(path, drift)
        before = _graph_snapshot(memory, user)
        for day, trace in enumerate(files):  # 1. the state file is there
            Consolidator(memory, extractor=extractor_for()).run(
                user, TraceLogSource(trace), now=NOW + timedelta(days=2 + day)
            )
        after = _graph_snapshot(memory, user)
        _add_delta(with_state, before, after)
        state = Consolidator(memory).state_path(user)
        state.unlink(missing_ok=True)  # 2. the state file is lost
        Consolidator(memory, extractor=extractor_for(session=1)).run(
            user, TraceLogSource(files[0]), now=NOW + timedelta(days=4)
        )  # the OLD session alone first
        flipped = _graph_snapshot(memory, user)["current"] != after["current"]
        state.unlink(missing_ok=True)
        for day, trace in enumerate(files):
            Consolidator(memory, extractor=extractor_for(session=day + 1)).run(
                user, TraceLogSource(trace), now=NOW + timedelta(days=5 + day)
            )
        final = _graph_snapshot(memory, user)
        _add_delta(totals, after, final)
        totals["flips"] += int(flipped)
    figures.replay[path] = {
        **{f"{k} (state file)": v for k, v in with_state.items() if k != "flips"},
        **{f"{k} (no state file)": v for k, v in totals.items()},
    }


def _replay_extractor(path: str, drift: Drift) -> Callable[..., Any]:
    def make(session: int | None = None) -> Any:
        if path != "llm":
            return None
        answers = (
            [_llm_answer(drift, session)]
            if session
            else [_llm_answer(drift, 1), _llm_answer(drift, 2)]
        )
        return LLMExtractor(FakeListChatModel(responses=answers))

    return make


def _add_delta(acc: dict[str, int], before: dict[str, Any], after: dict[str, Any]) -> None:
    for key in ("memories", "entities", "edges", "mentions"):
        acc[key] += after[key] - before[key]
    acc["weights"] += int(after["weights"] != before["weights"])


def measure_aliases(memory: PraxMemory, root: Path, figures: Figures) -> None:
    resolved = 0
    for i, (role, first, last) in enumerate(PEOPLE):
        user = f"alias-{i}"
        sessions = [
            [f"I had lunch with my {role} {first} {last}."],
            [f"{first} {last[0]}. sent me the slides about the Q3 plan."],
            [f"I told {first} about the new office."],
        ]
        for day, lines in enumerate(sessions):
            _run(memory, user, root / f"{user}-{day}.log", lines, day)
        found = [e for e in memory.graph.search_entities(user, first.lower(), limit=10)]
        if len(found) == 1 and found[0].type == "person":
            resolved += 1
    controls_ok = 0
    controls = [("Alex", "Moreno", "Alex", "Chen"), ("Maria", "Silva", "Maria", "Keller")]
    for i, (f1, l1, f2, l2) in enumerate(controls):
        user = f"alias-control-{i}"
        _run(memory, user, root / f"{user}.log",
             [f"I met my colleague {f1} {l1} and my friend {f2} {l2}."], 0)  # fmt: skip
        _run(memory, user, root / f"{user}-2.log", [f"I called {f1} yesterday."], 1)
        names = {e.display_name for e in memory.graph.search_entities(user, f1.lower())}
        controls_ok += int({f"{f1} {l1}", f"{f2} {l2}"} <= names)
    figures.aliases = {
        "groups": len(PEOPLE),
        "resolved": resolved,
        "controls": len(controls),
        "controls_kept_apart": controls_ok,
    }


def measure_junk(memory: PraxMemory, root: Path, figures: Figures) -> None:
    user = "junk"
    lines: list[str] = []
    for i in range(200):
        if i % 40 == 13:
            lines.append(REAL_FACTS[i // 40])
        else:
            lines.append(SMALL_TALK[i % len(SMALL_TALK)])
    _run(memory, user, root / "junk.log", lines, 0)
    stored = [m for m in memory.list_memories(user, limit=1000) if m.summary_level == "raw"]
    texts = [m.content.removeprefix("user: ") for m in stored]
    junk = [m for m, t in zip(stored, texts, strict=True) if t not in REAL_FACTS]
    figures.junk = {
        "turns": 200,
        "stored": len(stored),
        "junk": len(junk),
        "junk_fraction": round(len(junk) / len(stored), 3) if stored else 0.0,
        "facts_kept": sum(f in texts for f in REAL_FACTS),
        "facts": len(REAL_FACTS),
        "junk_rated_high": sum(m.importance >= 0.8 for m in junk),
    }


def measure_malformed(memory: PraxMemory, root: Path, figures: Figures) -> None:
    lost: list[str] = []
    outcomes: dict[str, str] = {}
    for i, (shape, answer) in enumerate(MALFORMED.items()):
        user = f"malformed-{i}"
        model = FakeListChatModel(responses=[answer, answer])  # the re-ask gets the same shape
        result = _run(memory, user, root / f"{user}.log",
                      ["I keep a garden of tomatoes on the balcony."], 0,
                      LLMExtractor(model))  # fmt: skip
        stored = any("tomatoes" in m.content for m in memory.list_memories(user, limit=50))
        review = any("tomatoes" in e.content for e in memory.stm.all(user))
        backlog = result.pending_lines > 0 or bool(getattr(result, "failures", []))
        outcome = "memory" if stored else "review" if review else "backlog" if backlog else "LOST"
        outcomes[shape] = outcome
        if outcome == "LOST":
            lost.append(shape)
    figures.malformed = {"shapes": len(MALFORMED), "lost": lost, "outcomes": outcomes}


def run(*, quick: bool, embeddings: str) -> Figures:
    figures = Figures()
    start = time.perf_counter()
    drifts = DRIFTS[:12] if quick else DRIFTS
    with tempfile.TemporaryDirectory(prefix="prax-mq-") as tmp:
        root = Path(tmp)
        memory = _memory(root / "data", embeddings)
        try:
            for path in ("rules", "llm"):
                traces = measure_drifts(memory, root, path, drifts, figures)
                measure_replay(memory, path, traces, figures)
            measure_aliases(memory, root, figures)
            measure_junk(memory, root, figures)
            measure_malformed(memory, root, figures)
        finally:
            memory.close()
    figures.seconds = round(time.perf_counter() - start, 1)
    return figures


def report(figures: Figures) -> None:
    rows = []
    for path, d in figures.drifts.items():
        n = d["drifts"]
        rows.append([
            path, f"{n} ({d['patterns']} patterns)",
            f"{d['ranked_first']}/{n} ({100 * d['ranked_first'] / n:.0f} %)",
            f"{d['graph_current']}/{n}", str(d["stale_in_context"]),
            ", ".join(sorted(set(d["missed"]))) or "-",
        ])  # fmt: skip
    print_table(
        "Preference drift",
        ["path", "drifts", "current ranked first", "graph current", "stale in context", "missed"],
        rows,
    )
    paths = list(figures.replay)
    measures = ["memories", "entities", "edges", "weights", "mentions"]
    rows = [
        [m, *(str(figures.replay[p].get(f"{m} ({s})", "-")) for p in paths
              for s in ("state file", "no state file"))]
        for m in measures
    ]  # fmt: skip
    rows.append(["old session makes its value current again", *(
        x for p in paths for x in ("-", str(figures.replay[p]["flips (no state file)"]))
    )])  # fmt: skip
    print_table(
        "Replaying every trace (changes; weights/mentions: traces/units changed)",
        ["", *(f"{p}, {s}" for p in paths for s in ("state file", "no state file"))],
        rows,
    )
    a = figures.aliases
    j = figures.junk
    m = figures.malformed
    print_table(
        "Aliases, junk, malformed answers",
        ["measure", "value"],
        [
            ["alias groups resolved", f"{a['resolved']}/{a['groups']}"],
            ["shared first names kept apart", f"{a['controls_kept_apart']}/{a['controls']}"],
            ["small talk: memories stored", f"{j['stored']} of {j['turns']} turns"],
            ["junk fraction", f"{100 * j['junk_fraction']:.0f} % ({j['junk']})"],
            ["real facts kept", f"{j['facts_kept']}/{j['facts']}"],
            ["junk rated ≥ 0.8", str(j["junk_rated_high"])],
            ["malformed answers: facts lost", f"{len(m['lost'])} of {m['shapes']} shapes"
             + (f" ({', '.join(m['lost'])})" if m["lost"] else "")],
        ],
    )  # fmt: skip
    print(f"total {figures.seconds} s")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="12 drifts instead of 24")
    parser.add_argument("--embeddings", choices=["model", "hash"], default="model")
    parser.add_argument("--json", help="also write the figures as JSON (PATH or -)")
    args = parser.parse_args(argv)
    figures = run(quick=args.quick, embeddings=args.embeddings)
    report(figures)
    if args.json:
        data = json.dumps(figures.__dict__, indent=2, default=str)
        if args.json == "-":
            print(data)
        else:
            Path(args.json).write_text(data + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
