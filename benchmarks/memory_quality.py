"""Memory quality: does consolidation keep what a good assistant would keep? (issues 15, 26)

Scripted multi-session conversations of our own (no third-party data), run through the real
pipeline (``Consolidator`` on a fresh ``PraxMemory``: SQLite graph, Qdrant's embedded engine,
the packaged embedding model unless ``--embeddings hash``), on two paths:

* **rules** — the offline ``RuleBasedExtractor`` reads the raw turns;
* **llm** — a scripted chat model answers each batch with the extraction a good model would
  give (JSON text, the path of a model without tool calling); in session 2 it reads the
  current memories listed in its prompt and names in the fact's ``replaces`` those stating
  the old value (issue 38).

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
4. **junk** — 200 turns of small talk with real facts, on the development set and on a
   held-out set (see docs/consolidation.md for how held out it still is): stored memories,
   the junk fraction, facts kept (as normalized statements), junk rated ≥ 0.8.
5. **malformed answers** — a corpus of malformed model answers (``MALFORMED``, re-asked with
   the same shape, and ``MALFORMED_REASK``, whose re-ask differs: the truncated-then-empty
   case), each carrying one fact: the fact must end in memory, in pending review, or stay in
   the backlog (the batch not consumed); anything else is lost.
6. **raw turns** — rule-path memories that are a raw turn or still in the first person.
7. **untimed paraphrase** — after the state file is lost, an untimed trace restates a
   superseded value in other words: current again in the graph? in the context?

Run: .venv/bin/python -m benchmarks.memory_quality [--quick] [--embeddings model|hash]
     [--json PATH|-]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, BaseMessage

from benchmarks._common import print_table
from langgraph_prax_memory import MemoryConfig, PraxMemory
from langgraph_prax_memory.consolidation import Consolidator, LLMExtractor, TraceLogSource
from langgraph_prax_memory.consolidation._normalize import third_person
from langgraph_prax_memory.consolidation._supersession import mentions
from langgraph_prax_memory.context import build_memory_context
from tests.scripted import ScriptedChatModel

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


#: The change patterns, each scripted at least once (27 patterns, 33 drifts).
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
    # issue 26: ordinary life changes (each question a paraphrase, not the statement's words)
    Drift("moved + new job", "I live in Lisbon and work at a bakery.",
          "I moved to Berlin and work at Acme Corp now.", "Which company employs me these days?",
          "bakery", "acme corp", "works_at"),
    Drift("moved + new job", "I live in Lisbon and work at a bakery.",
          "I moved to Berlin and work at Acme Corp now.", "Which city is my home?",
          "lisbon", "berlin", "lives_in"),
    Drift("new job", "I work at Initech.", "I got a new job at Globex.",
          "Who is my employer?", "initech", "globex", "works_at"),
    Drift("quit job", "I work at Initech as an analyst.", "I quit my job at Initech.",
          "Where am I employed?", "initech", None, "works_at"),
    Drift("new partner", "My girlfriend Ana loves hiking.", "I'm dating Marta now.",
          "Who am I in a relationship with?", "ana", "marta", "partner_of"),
    Drift("break-up", "My boyfriend Leo is a chef.", "I broke up with Leo.",
          "Am I seeing anyone?", "leo", None, "partner_of"),
    Drift("new diet", "I eat meat most days.", "I'm vegan now.",
          "What kind of food do I eat?", "meat", "vegan"),
    Drift("renamed project", "I work on Phoenix every day.", "We renamed Phoenix to Firebird.",
          "What is the project I work on called?", "phoenix", "firebird", "works_on"),
    Drift("based in", "I live in Porto.", "I'm based in Madrid now.",
          "Which city am I in?", "porto", "madrid", "lives_in"),
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

#: Held-out sets: written after the filter's principles, never used to tune them (the first
#: measurement of each is in docs/consolidation.md, with what was changed after it).
HELD_OUT_TALK = [
    "I'm sipping a latte as we speak.", "I've got five minutes before my call.",
    "I'd better get going.", "I'm drying off after a shower.", "I haven't had breakfast yet.",
    "I was only joking.", "I've been staring at this screen too long.",
    "I almost spilled my drink.", "I'll let you know how it goes.", "I had a long day.",
    "I'm putting the kettle on.", "I'm back from the kitchen.", "I just sent the email.",
    "I'm off to the shops.", "I'm going to bed soon.", "I was wondering about that.",
    "I'm grabbing a snack, one sec.", "I totally forgot to reply earlier.",
    "I'm heading to the gym after this.", "I'm walking the dog at the moment.",
    "I just spilled coffee on my shirt.", "I'm so full after dinner.",
    "I'll ask you again tomorrow.", "I'm on my lunch break.", "I was out all afternoon.",
    "I hope you're doing well.", "I've been super busy this week.", "I'm just killing time.",
    "I didn't sleep much last night.", "I'm getting ready for work.",
]  # fmt: skip
HELD_OUT_FACTS = [
    "I'm a software engineer.", "My wife Priya teaches biology.", "I can't eat gluten.",
    "I play the cello in a community orchestra.", "I speak Portuguese and Spanish.",
    "I run 5k every Sunday morning.", "I'm saving up for a house.",
    "I take blood pressure medication.", "I'm diabetic.", "I mostly cook Indian food at home.",
    "I'm afraid of flying.", "I have a peanut allergy.",
]  # fmt: skip

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
    "repeated keys": '{"facts": [' + _FACT_ONLY + '], "facts": []}',
    "items keyed by id": '{"facts": {"f1": ' + _FACT_ONLY + "}}",
    "list nested twice": '{"facts": [[' + _FACT_ONLY + "]]}",
    "partial item (no content)": '{"facts": [{"importance": 0.7, "note": "' + _FACT + '"}]}',
    "content a number": '{"facts": [{"content": 7, "note": "' + _FACT + '"}]}',
    "confidence a list": '{"facts": [{"content": "' + _FACT + '", "confidence": [0.9]}]}',
    "null": "null",
    "a bare number": "42",
    "facts a number": '{"facts": 42, "note": "' + _FACT + '"}',
    "duplicate items": '{"facts": [' + _FACT_ONLY + ", " + _FACT_ONLY + "]}",
}
#: Answers whose re-ask gets a different answer: (first answer, re-ask answer).
MALFORMED_REASK: dict[str, tuple[str, str]] = {
    "truncated item, then an empty re-ask": (
        '{"facts": [' + _FACT_ONLY + ', {"content": "The user',
        "{}",
    ),
    "truncated item, then an empty list": ('{"facts": [' + _FACT_ONLY + ', {"cont', "[]"),
    "truncated item, then prose": (
        '{"facts": [' + _FACT_ONLY + ', {"cont',
        "Sorry, that is all I have.",
    ),
    "truncated item, then the fix without the first item": (
        '{"facts": [' + _FACT_ONLY + ', {"cont',
        '{"facts": [{"content": "The user waters them daily.", "confidence": 0.9}]}',
    ),
}


@dataclass
class Figures:
    """What one run measured (see the module docstring)."""

    drifts: dict[str, dict[str, Any]] = field(default_factory=dict)
    replay: dict[str, dict[str, int]] = field(default_factory=dict)
    aliases: dict[str, Any] = field(default_factory=dict)
    junk: dict[str, Any] = field(default_factory=dict)
    malformed: dict[str, Any] = field(default_factory=dict)
    raw_turns: dict[str, Any] = field(default_factory=dict)
    paraphrase: dict[str, dict[str, int]] = field(default_factory=dict)
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


#: How the prompt lists the user's current memories the batch may change (issue 38).
_CANDIDATE = re.compile(r"^(m\d+): (.*?)(?: \(\d{4}-\d\d-\d\d\))?$", re.M)


def _ideal_model(drift: Drift, *sessions: int) -> ScriptedChatModel:
    """A scripted good model answering ``sessions`` of ``drift`` in turn, reading its prompt.

    Session 2 says in the fact's ``replaces`` which of the listed current memories it makes
    untrue: those naming the old value and not the new one (a good model's judgement), as
    the extraction prompt asks (issue 38).
    """

    def answer(session: int) -> Any:
        def step(messages: list[BaseMessage]) -> AIMessage:
            body = json.loads(_llm_answer(drift, session))
            if session == 2:
                human = next((str(m.content) for m in messages if m.type == "human"), "")
                body["facts"][0]["replaces"] = [
                    sid
                    for sid, text in _CANDIDATE.findall(human)
                    if mentions(text, drift.old)
                    and not (drift.new is not None and mentions(text, drift.new))
                ]
            return AIMessage(content=json.dumps(body))

        return step

    return ScriptedChatModel(script=[answer(s) for s in sessions])


def _llm_answer(drift: Drift, session: int) -> str:
    """What a good model answers for one session of a drift (without ``replaces``)."""
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
            "facts": [
                {"content": third_person("User", fact), "importance": 0.8, "confidence": 0.9}
            ],  # a good model states facts, not turns
        }
    )


def _names(value: str, names: Sequence[str]) -> bool:
    """``value`` is one of ``names`` or its first words ("dracula" of "dracula theme")."""
    return any(n == value or n.startswith(value + " ") for n in names)


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
            extractor = LLMExtractor(_ideal_model(drift, 1, 2), structured=False)
        t1, t2 = root / f"{user}-1.log", root / f"{user}-2.log"
        _run(memory, user, t1, [drift.before], 0, extractor)
        was = [e.name for e in memory.graph.current_targets(user, "User", drift.relation)]
        old_facts = [m.content for m in memory.list_memories(user, limit=100)]
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
        # the top hit states the new value; for a bare closing ("I no longer like jazz") the
        # old fact must not come first
        if drift.new is not None:
            ranked_first = mentions(top, drift.new) and top not in old_facts
        else:
            ranked_first = top not in old_facts
        context = build_memory_context(memory, user, drift.question)
        stale = any(f in context for f in old_facts)  # what session 1 stored
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


#: How an old value is said again, untimed, by relation (rule path) — a paraphrase of the
#: superseded fact, not a statement of change.
_PARAPHRASE = {
    "prefers": "I really like {old} in general.",
    "lives_in": "I live in {Old}.",
    "works_at": "I work at {Old}.",
    "partner_of": "My partner {Old} is great.",
    "works_on": "I work on {Old}.",
}


def measure_paraphrase(
    memory: PraxMemory,
    root: Path,
    path: str,
    traces: Sequence[tuple[str, list[Path], Drift]],
    figures: Figures,
) -> None:
    """After the state file is lost, an untimed trace paraphrases the superseded fact.

    Counted: the paraphrase (or the old value) made current again in the graph, and the
    paraphrase in the context built for the drift's question.
    """
    flips = leaks = n = 0
    which: list[str] = []
    for user, _, drift in traces:
        if drift.new is None:
            continue  # a closing: "I really like jazz" again is a plain re-statement
        n += 1
        old_name = drift.old.title() if drift.relation != "prefers" else drift.old
        line = _PARAPHRASE[drift.relation].format(old=drift.old, Old=old_name)
        extractor = None
        if path == "llm":
            answer = {
                "relations": [{"source": "User", "type": drift.relation, "target": drift.old,
                               "confidence": 0.9}],
                "facts": [{"content": third_person("User", line), "importance": 0.8,
                           "confidence": 0.9}],
            }  # fmt: skip
            extractor = LLMExtractor(FakeListChatModel(responses=[json.dumps(answer)]))
        consolidator = Consolidator(memory, extractor=extractor)
        consolidator.state_path(user).unlink(missing_ok=True)
        trace = root / f"{user}-paraphrase.log"
        trace.write_text(f"user: {line}\n", encoding="utf-8")  # no time on the line
        consolidator.run(user, TraceLogSource(trace), now=NOW + timedelta(days=9))
        current = [e.name for e in memory.graph.current_targets(user, "User", drift.relation)]
        flipped = _names(drift.old, current)
        context = build_memory_context(memory, user, drift.question)
        leaked = third_person("User", line) in context
        flips, leaks = flips + flipped, leaks + leaked
        if flipped or leaked:
            which.append(f"{drift.pattern}: {line}")
    figures.paraphrase[path] = {
        "cases": n,
        "made_current": flips,
        "in_context": leaks,
        "which": which,  # type: ignore[dict-item]
    }


def _replay_extractor(path: str, drift: Drift) -> Callable[..., Any]:
    def make(session: int | None = None) -> Any:
        if path != "llm":
            return None
        sessions = (session,) if session else (1, 2)
        return LLMExtractor(_ideal_model(drift, *sessions), structured=False)

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


def _junk_run(
    memory: PraxMemory, root: Path, user: str, talk: Sequence[str], facts: Sequence[str]
) -> dict[str, Any]:
    lines: list[str] = []
    every = 200 // len(facts)
    for i in range(200):
        if i % every == every // 2 and i // every < len(facts):
            lines.append(facts[i // every])
        else:
            lines.append(talk[i % len(talk)])
    _run(memory, user, root / f"{user}.log", lines, 0)
    stored = [m for m in memory.list_memories(user, limit=1000) if m.summary_level == "raw"]
    real = [third_person("User", f) for f in facts]  # how the rule path states them

    said = [set(re.findall(r"\w+", r.lower())) for r in real]
    frame = {"user", "s", "partner", "is", "lives", "in", "works", "at"}

    def is_real(content: str) -> bool:  # the fact, or the canonical statement of one
        words = set(re.findall(r"\w+", content.lower())) - frame
        return content in real or any(words <= w for w in said)

    junk = [m for m in stored if not is_real(m.content)]
    return {
        "turns": 200,
        "stored": len(stored),
        "junk": len(junk),
        "junk_fraction": round(len(junk) / len(stored), 3) if stored else 0.0,
        "facts_kept": sum(any(m.content == r for m in stored) for r in real),
        "facts": len(facts),
        "junk_rated_high": sum(m.importance >= 0.8 for m in junk),
        "junk_texts": [m.content for m in junk],
        "missed": [f for f, r in zip(facts, real, strict=True) if r not in
                   {m.content for m in stored}],
    }  # fmt: skip


def measure_junk(memory: PraxMemory, root: Path, figures: Figures) -> None:
    figures.junk = {
        "development": _junk_run(memory, root, "junk", SMALL_TALK, REAL_FACTS),
        "held-out": _junk_run(memory, root, "junk-held", HELD_OUT_TALK, HELD_OUT_FACTS),
    }


def measure_raw_turns(memory: PraxMemory, users: Sequence[str], figures: Figures) -> None:
    """Rule-path memories that are a raw turn ("user: I …") or still in the first person."""
    raw: list[str] = []
    total = 0
    for user in users:
        for m in memory.list_memories(user, limit=1000):
            total += m.summary_level == "raw"
            if m.summary_level != "raw":
                continue
            if re.match(r"\s*[\w .'-]{1,40}:\s", m.content) or re.search(
                r"\b(?:I|I'm|I've|my|me)\b", m.content
            ):
                raw.append(m.content)
    figures.raw_turns = {"memories": total, "raw_turns": len(raw), "examples": raw[:5]}


def measure_malformed(memory: PraxMemory, root: Path, figures: Figures) -> None:
    lost: list[str] = []
    outcomes: dict[str, str] = {}
    pairs = {k: (v, v) for k, v in MALFORMED.items()} | MALFORMED_REASK
    for i, (shape, (answer, reask)) in enumerate(pairs.items()):
        user = f"malformed-{i}"
        model = FakeListChatModel(responses=[answer, reask])
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
    figures.malformed = {"shapes": len(pairs), "lost": lost, "outcomes": outcomes}


def run(*, quick: bool, embeddings: str) -> Figures:
    figures = Figures()
    start = time.perf_counter()
    drifts = DRIFTS[:12] if quick else DRIFTS
    with tempfile.TemporaryDirectory(prefix="prax-mq-") as tmp:
        root = Path(tmp)
        memory = _memory(root / "data", embeddings)
        try:
            rule_users: list[str] = ["junk", "junk-held"]
            for path in ("rules", "llm"):
                traces = measure_drifts(memory, root, path, drifts, figures)
                measure_replay(memory, path, traces, figures)
                measure_paraphrase(memory, root, path, traces, figures)
                if path == "rules":
                    rule_users += [user for user, _, _ in traces]
            measure_aliases(memory, root, figures)
            measure_junk(memory, root, figures)
            measure_raw_turns(memory, rule_users, figures)
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
    m = figures.malformed
    rows = [
        ["alias groups resolved", f"{a['resolved']}/{a['groups']}"],
        ["shared first names kept apart", f"{a['controls_kept_apart']}/{a['controls']}"],
    ]
    for name, j in figures.junk.items():
        rows += [
            [f"small talk ({name}): memories stored", f"{j['stored']} of {j['turns']} turns"],
            [f"junk fraction ({name})", f"{100 * j['junk_fraction']:.0f} % ({j['junk']})"],
            [f"real facts kept ({name})", f"{j['facts_kept']}/{j['facts']}"],
            [f"junk rated ≥ 0.8 ({name})", str(j["junk_rated_high"])],
        ]
    r = figures.raw_turns
    rows.append(["rule path: raw turns stored as facts",
                 f"{r['raw_turns']} of {r['memories']} memories"])  # fmt: skip
    for path, p in figures.paraphrase.items():
        rows.append([f"untimed paraphrase after state loss ({path}): current again / in context",
                     f"{p['made_current']} / {p['in_context']} of {p['cases']}"])  # fmt: skip
    rows.append(["malformed answers: facts lost", f"{len(m['lost'])} of {m['shapes']} shapes"
                 + (f" ({', '.join(m['lost'])})" if m["lost"] else "")])  # fmt: skip
    print_table(
        "Aliases, junk, raw turns, paraphrases, malformed answers", ["measure", "value"], rows
    )
    print(f"total {figures.seconds} s")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="12 drifts instead of all 33")
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
