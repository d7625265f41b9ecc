"""Personal memories: does recall put the right fact about a person first? (issue 14)

Development benchmark of our own (``benchmarks/data/personal_memory.json``, hand-written, no
third-party data): facts a personal assistant keeps about two personas (preferences, family,
work, habits, health, places, plans, past events, with importance values), questions with
exactly one gold fact each (half of them paraphrased: no content word shared with the gold
fact, which :func:`check_data` verifies), and off-topic questions with no gold.

Each space (3 same-topic facts, 10 shuffled facts, or all 40+ facts of a persona) is stored
for its own user id, and every question is asked in a space of each size that holds its gold.
Methods, all in the same run, each with its own ``PraxMemory`` per space size (its own
embedding cache, so every query is embedded once per method):

- ``store door``: ``PraxMemoryStore(memory)``: ``put`` (one ``batch`` of ``PutOp`` per space),
  then ``.search(("memories", user), query=q, limit=k)``;
- ``recall door``: ``memory.remember_many`` (``content``, ``importance``, ``key=fact_id``), then
  ``memory.recall(user, q, k=k, reinforce=False)``;
- ``dense``: plain cosine over the same packaged embedding model (``memory.embeddings``);
- ``BM25``: Okapi BM25 (k1=1.2, b=0.75) over lower-cased, stop-word-filtered, lightly
  stemmed words (ties broken at random, seeded per question).

Relevance floor: ``build_memory_context(..., profile_chars=0)`` (the floor alone: the
profile tier of standing facts, given whatever the question, is measured by
``benchmarks/context.py``) for every off-topic question in every space (it
should inject no ``## Relevant Memories``) and for every on-topic question (its gold fact
should be in the block). It runs after the ranking measurements (it reinforces what it
recalls, as in production).

Run: .venv/bin/python -m benchmarks.personal_memory [--quick] [--json PATH|-] [--check]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings
from rich.console import Console
from rich.table import Table

from benchmarks._common import BM25, load_embeddings

DEFAULT_DATA = Path(__file__).resolve().parent / "data" / "personal_memory.json"
SIZES = ("3", "10", "40+")
METHODS = ("store door", "recall door", "dense", "BM25")
DOORS = ("store door", "recall door")
BASELINES = ("dense", "BM25")
MAX_K = 10
CONTEXT_HEADER = "## Relevant Memories"
# characters the prompt quoting escapes: a fact must not hold them, so "gold in block" is exact
_MARKUP = set("\\`#[]<>|\n\r")

# -- words ---------------------------------------------------------------------------------

_STOP_TEXT = """
a an the this that these those there here it its itself i me my mine myself we us our
ours you your yours he him his himself she her hers herself they them their theirs
themselves one ones what which who whom whose when where why how is am are was were be
been being do does did doing done have has had having can could would should will shall
must might and or but nor if then than so as not no yes of in on at to for with from by
about into onto over under off out up down upon before after during while since until
again also too very just only even any some all each every both either neither such much
many more most less s t d ll m re ve
"""
#: Function words dropped before comparing a question with a fact (and by the BM25 baseline).
#: Deliberately short: names, "user" and everyday verbs ("like", "get") count as content.
STOP_WORDS: frozenset[str] = frozenset(_STOP_TEXT.split())
_WORD = re.compile(r"[a-z0-9]+")
_SUFFIXES = ("ing", "ed", "er", "ly")


def stem(word: str) -> str:
    """A light plural/suffix strip: ``libraries`` → ``library``, ``planned`` → ``plan``."""
    w = word
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 4 and w.endswith(("ches", "shes", "sses", "xes", "zes")):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
                w = w[:-1]  # runn → run, plann → plan
            break
    if len(w) >= 4 and w.endswith("e"):
        w = w[:-1]
    return w


def words(text: str) -> list[str]:
    """Content words of ``text``: lower-cased, stop words dropped, lightly stemmed."""
    return [stem(w) for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]


def shared_words(a: str, b: str) -> set[str]:
    """Content words ``a`` and ``b`` share: equal stems, one stem (4+ letters) a prefix of
    the other (``data`` / ``dataframe``, ``plan`` / ``planning``) or one (5+ letters) inside
    the other (``sight`` / ``eyesight``)."""
    wa, wb = set(words(a)), set(words(b))
    out = wa & wb
    for x in wa:
        for y in wb:
            short, long_ = (x, y) if len(x) <= len(y) else (y, x)
            if (len(short) >= 4 and long_.startswith(short)) or (
                len(short) >= 5 and short in long_
            ):
                out.add(short)
    return out


# -- data ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fact:
    id: str
    persona: str
    topic: str
    importance: float
    text: str


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    gold: str
    paraphrased: bool


@dataclass(frozen=True)
class Space:
    id: str
    size: str
    facts: tuple[Fact, ...]

    @property
    def user(self) -> str:
        return f"pm-{self.id}"

    @property
    def ids(self) -> list[str]:
        return [f.id for f in self.facts]


@dataclass
class Data:
    raw: dict[str, Any]
    facts: dict[str, Fact]
    questions: list[Question]
    off_topic: list[str]
    spaces: dict[str, list[Space]]

    def space_of(self, size: str, fact_id: str) -> Space:
        """The first space of ``size`` that holds ``fact_id``."""
        return next(s for s in self.spaces[size] if fact_id in s.ids)


def load(path: Path) -> Data:
    raw = json.loads(path.read_text())
    facts = {f["id"]: Fact(**f) for f in raw["facts"]}
    questions = [Question(**q) for q in raw["questions"]]
    spaces = {
        size: [Space(s["id"], size, tuple(facts[i] for i in s["facts"])) for s in spaces]
        for size, spaces in raw["spaces"].items()
    }
    return Data(raw, facts, questions, [o["text"] for o in raw["off_topic"]], spaces)


def check_data(raw: dict[str, Any]) -> list[str]:
    """Every rule the data must keep; returns the violations (empty when the data is sound).

    Paraphrased questions share no content word with their gold fact; literal ones share one
    besides the persona's name and "user"; off-topic questions share none with any fact.
    """
    errors: list[str] = []
    facts = {f["id"]: f for f in raw["facts"]}
    if len(facts) != len(raw["facts"]):
        errors.append("duplicate fact ids")
    names = {p: set(words(info["name"])) | {"user"} for p, info in raw["personas"].items()}
    for f in raw["facts"]:
        if f["persona"] not in names:
            errors.append(f"{f['id']}: unknown persona {f['persona']!r}")
        if not 0.0 <= f["importance"] <= 1.0:
            errors.append(f"{f['id']}: importance {f['importance']} outside 0-1")
        if _MARKUP & set(f["text"]):
            errors.append(f"{f['id']}: text holds a character the prompt quoting escapes")
    qids = [q["id"] for q in raw["questions"]]
    if len(set(qids)) != len(qids):
        errors.append("duplicate question ids")
    for q in raw["questions"]:
        gold = facts.get(q["gold"])
        if gold is None:
            errors.append(f"{q['id']}: gold {q['gold']!r} is not a fact")
            continue
        common = shared_words(q["text"], gold["text"])
        if q["paraphrased"] and common:
            errors.append(f"{q['id']} (paraphrased) shares {sorted(common)} with {gold['id']}")
        if not q["paraphrased"] and not common - names.get(gold["persona"], set()):
            errors.append(f"{q['id']} (literal) shares no topical word with {gold['id']}")
    for o in raw["off_topic"]:
        for f in raw["facts"]:
            common = shared_words(o["text"], f["text"])
            if common:
                errors.append(f"{o['id']} (off-topic) shares {sorted(common)} with {f['id']}")
    for size in SIZES:
        spaces = raw["spaces"].get(size) or []
        if not spaces:
            errors.append(f"no {size}-fact spaces")
        for s in spaces:
            n = len(s["facts"])
            if (size == "40+" and n < 40) or (size != "40+" and n != int(size)):
                errors.append(f"space {s['id']} has {n} facts, not {size}")
            if len(set(s["facts"])) != n or any(i not in facts for i in s["facts"]):
                errors.append(f"space {s['id']} repeats or names unknown facts")
            elif len({facts[i]["persona"] for i in s["facts"]}) != 1:
                errors.append(f"space {s['id']} mixes personas")
        held = {i for s in spaces for i in s["facts"]}
        missing = sorted({q["gold"] for q in raw["questions"]} - held)
        if missing:
            errors.append(f"golds in no {size}-fact space: {missing}")
    space_ids = [s["id"] for size in raw["spaces"].values() for s in size]
    if len(set(space_ids)) != len(space_ids):
        errors.append("duplicate space ids")
    n_para = sum(bool(q["paraphrased"]) for q in raw["questions"])
    for what, have, need in (
        ("facts", len(facts), 60),
        ("questions", len(qids), 100),
        ("paraphrased questions", 2 * n_para, len(qids)),
        ("off-topic questions", len(raw["off_topic"]), 40),
    ):
        if have < need:
            errors.append(f"too few {what}: {have} < {need}")
    return errors


# -- baselines -----------------------------------------------------------------------------


def tie_broken(scores: Sequence[float], ids: Sequence[str], seed: str) -> list[str]:
    """``ids`` by descending score, equal scores in a random order seeded by ``seed``."""
    rng = random.Random(seed)
    keys = [rng.random() for _ in ids]
    order = sorted(range(len(ids)), key=lambda i: (-scores[i], keys[i]))
    return [ids[i] for i in order]


# -- scoring -------------------------------------------------------------------------------


@dataclass
class Row:
    question: Question
    topic: str
    rank: int | None  # 1-based rank of the gold fact in the returned list, None if absent
    top: str | None
    seconds: float


@dataclass
class Scores:
    rows: list[Row] = field(default_factory=list)

    def add(self, q: Question, topic: str, ranked: Sequence[str], seconds: float) -> None:
        rank = ranked.index(q.gold) + 1 if q.gold in ranked else None
        self.rows.append(Row(q, topic, rank, ranked[0] if ranked else None, seconds))

    def summary(self, keep: Callable[[Row], bool] = lambda r: True) -> dict[str, float]:
        rows = [r for r in self.rows if keep(r)]
        if not rows:
            return {"n": 0, "P@1": math.nan, "R@3": math.nan, "MRR": math.nan}
        return {
            "n": len(rows),
            "P@1": sum(r.rank == 1 for r in rows) / len(rows),
            "R@3": sum(r.rank is not None and r.rank <= 3 for r in rows) / len(rows),
            "MRR": sum(1 / r.rank for r in rows if r.rank) / len(rows),
        }

    def p50_ms(self) -> float:
        return statistics.median(r.seconds for r in self.rows) * 1000 if self.rows else math.nan


@dataclass
class Floor:
    """What ``build_memory_context`` injects for one space size."""

    off_asked: int = 0
    off_empty: int = 0
    off_injected: list[int] = field(default_factory=list)
    on_asked: int = 0
    on_gold: int = 0
    on_gold_paraphrased: int = 0
    on_asked_paraphrased: int = 0
    on_injected: list[int] = field(default_factory=list)
    bm25_off_empty: int = 0
    bm25_on_gold: int = 0
    prod_on_gold: int = 0  # the product's block (profile tier on): gold in block
    prod_off_no_episode: int = 0  # ... off-topic asks injecting no episode (non-standing fact)
    prod_injected: list[int] = field(default_factory=list)
    off_max_cos: list[float] = field(default_factory=list)  # best dense cosine in the space
    on_gold_cos: list[float] = field(default_factory=list)  # dense cosine of the gold fact

    def best_threshold(self) -> tuple[float, float, float]:
        """The cosine floor that best separates off-topic from on-topic asks (dense only).

        Returns ``(threshold, off-topic share below it, on-topic share at or above it)``,
        maximising the mean of the two shares.
        """
        best = (math.nan, 0.0, 0.0)
        for t in sorted(set(self.off_max_cos) | set(self.on_gold_cos)):
            off = sum(c < t for c in self.off_max_cos) / max(1, len(self.off_max_cos))
            on = sum(c >= t for c in self.on_gold_cos) / max(1, len(self.on_gold_cos))
            if off + on > best[1] + best[2]:
                best = (t, off, on)
        return best


#: A memory written before classes existed is a standing fact at this importance
#: (``profile_min_importance``); every other is one when the product classified it so.
STANDING_IMPORTANCE = 0.8


def injected(block: str) -> list[str]:
    """The memory lines of the ``## Relevant Memories`` section of a context block."""
    if CONTEXT_HEADER not in block:
        return []
    section = block.split(CONTEXT_HEADER, 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("- ")]


# -- the run -------------------------------------------------------------------------------


def _cosine_matrix(vectors: Iterable[Sequence[float]]) -> np.ndarray:
    m = np.asarray(list(vectors), dtype=np.float64)
    out: np.ndarray = m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
    return out


def run(
    data: Data,
    tmp: Path,
    *,
    quick: bool,
    log: Callable[[str], None],
    embeddings: Embeddings | None = None,
    dimension: int | None = None,
) -> dict[str, Any]:
    """Store every space per method and score each method's ranking and context block.

    ``embeddings`` (of width ``dimension``) replaces the packaged MiniLM for the product and
    for the dense baseline alike; ``None`` measures the default model.
    """
    # imported here so that --check works without loading the product
    from langgraph.store.base import PutOp

    from langgraph_prax_memory import MemoryConfig, PraxMemory, PraxMemoryStore
    from langgraph_prax_memory.context import build_memory_context

    questions = [q for i, q in enumerate(data.questions) if not quick or i % 3 == 0]
    off_topic = data.off_topic[:16] if quick else data.off_topic
    scores = {size: {m: Scores() for m in METHODS} for size in SIZES}
    floors = {size: Floor() for size in SIZES}
    space_sizes: dict[str, list[int]] = {}

    def memory(name: str) -> PraxMemory:
        return PraxMemory(
            MemoryConfig(data_dir=tmp / name, qdrant_url=":memory:"),
            embeddings=embeddings,
            embedding_dimension=dimension,
        )

    for size in SIZES:
        spaces = data.spaces[size]
        space_sizes[size] = [len(s.facts) for s in spaces]
        started = time.perf_counter()
        store_mem, recall_mem, dense_mem = (
            memory(f"store-{size}"),
            memory(f"recall-{size}"),
            memory(f"dense-{size}"),
        )
        store = PraxMemoryStore(store_mem)
        dense_docs: dict[str, np.ndarray] = {}
        bm25: dict[str, BM25] = {}
        for s in spaces:
            # one batch per space: what store.put and memory.remember do, one embedding call
            store.batch(
                [
                    PutOp(
                        ("memories", s.user), f.id, {"content": f.text, "importance": f.importance}
                    )
                    for f in s.facts
                ]
            )
            recall_mem.remember_many(
                s.user,
                [{"content": f.text, "importance": f.importance, "key": f.id} for f in s.facts],
            )
            dense_docs[s.id] = _cosine_matrix(
                dense_mem.embeddings.embed_documents([f.text for f in s.facts])
            )
            bm25[s.id] = BM25([f.text for f in s.facts], words, k1=1.2)
        log(
            f"  {size}-fact spaces: stored {sum(space_sizes[size])} facts in {len(spaces)} spaces "
            f"per method in {time.perf_counter() - started:.1f}s"
        )
        # one untimed query per method, so the first timed one pays no warm-up
        warm = spaces[0]
        store.search(("memories", warm.user), query="warm-up", limit=1)
        recall_mem.recall(warm.user, "warm-up", k=1, reinforce=False)
        dense_mem.embeddings.embed_query("warm-up")
        started = time.perf_counter()
        sc = scores[size]
        for q in questions:
            s = data.space_of(size, q.gold)
            topic = data.facts[q.gold].topic
            k = min(MAX_K, len(s.facts))

            t0 = time.perf_counter()
            items = store.search(("memories", s.user), query=q.text, limit=k)
            t1 = time.perf_counter()
            sc["store door"].add(q, topic, [it.key for it in items], t1 - t0)

            t0 = time.perf_counter()
            hits = recall_mem.recall(s.user, q.text, k=k, reinforce=False)
            t1 = time.perf_counter()
            sc["recall door"].add(q, topic, [h.memory.key for h in hits], t1 - t0)

            t0 = time.perf_counter()
            qv = _cosine_matrix([dense_mem.embeddings.embed_query(q.text)])[0]
            ranked = tie_broken(list(dense_docs[s.id] @ qv), s.ids, q.id)[:k]
            t1 = time.perf_counter()
            sc["dense"].add(q, topic, ranked, t1 - t0)

            t0 = time.perf_counter()
            ranked = tie_broken(bm25[s.id].scores(q.text), s.ids, q.id)[:k]
            t1 = time.perf_counter()
            sc["BM25"].add(q, topic, ranked, t1 - t0)
        log(
            f"  {size}-fact spaces: {len(questions)} questions x 4 methods in "
            f"{time.perf_counter() - started:.1f}s"
        )

        started = time.perf_counter()
        fl = floors[size]
        for q in questions:
            s = data.space_of(size, q.gold)
            lines = injected(build_memory_context(recall_mem, s.user, q.text, profile_chars=0))
            product = injected(build_memory_context(recall_mem, s.user, q.text))
            fl.prod_on_gold += any(data.facts[q.gold].text in line for line in product)
            fl.prod_injected.append(len(product))
            fl.on_asked += 1
            found = any(data.facts[q.gold].text in line for line in lines)
            fl.on_gold += found
            fl.on_asked_paraphrased += q.paraphrased
            fl.on_gold_paraphrased += found and q.paraphrased
            fl.on_injected.append(len(lines))
            b = bm25[s.id].scores(q.text)
            top5 = tie_broken(b, s.ids, q.id)[:5]
            fl.bm25_on_gold += q.gold in top5 and b[s.ids.index(q.gold)] > 0
            qv = _cosine_matrix([dense_mem.embeddings.embed_query(q.text)])[0]
            fl.on_gold_cos.append(float(dense_docs[s.id][s.ids.index(q.gold)] @ qv))
        for s in spaces:
            # the product's own standing facts: classified when written (docs/context.md,
            # "Memory classes"); a memory without a class counts by importance
            standing = {
                m.content
                for m in recall_mem.list_memories(s.user, limit=10_000)
                if m.fact_class == "standing"
                or (m.fact_class is None and m.importance >= STANDING_IMPORTANCE)
            }
            episodes = [f for f in s.facts if f.text not in standing]
            for text in off_topic:
                lines = injected(build_memory_context(recall_mem, s.user, text, profile_chars=0))
                product = injected(build_memory_context(recall_mem, s.user, text))
                fl.prod_off_no_episode += not any(
                    f.text in line for line in product for f in episodes
                )
                fl.off_asked += 1
                fl.off_empty += not lines
                fl.off_injected.append(len(lines))
                fl.bm25_off_empty += max(bm25[s.id].scores(text)) <= 0
                qv = _cosine_matrix([dense_mem.embeddings.embed_query(text)])[0]
                fl.off_max_cos.append(float(np.max(dense_docs[s.id] @ qv)))
        log(
            f"  {size}-fact spaces: context blocks for {fl.on_asked} on-topic and {fl.off_asked} "
            f"off-topic asks in {time.perf_counter() - started:.1f}s"
        )
        for m in (store_mem, recall_mem, dense_mem):
            m.close()
    return {"scores": scores, "floors": floors, "space_sizes": space_sizes, "questions": questions}


# -- reporting -----------------------------------------------------------------------------


def _f(x: float, digits: int = 3) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


def _size_label(size: str, sizes: list[int]) -> str:
    lo, hi = min(sizes), max(sizes)
    facts = f"{lo}" if lo == hi else f"{lo}-{hi}"
    return f"{size} ({len(sizes)} x {facts})"


def failure_reasons(data: Data, row: Row, dense: Scores) -> list[tuple[str, str]]:
    """Why a door ranked ``row.top`` above the gold fact: ``(kind, detail)`` pairs.

    Kinds: ``dense had it`` (the plain dense baseline ranked the gold first: the product's
    fusion lost it) or ``dense wrong too`` (the embedding itself prefers another fact);
    ``importance`` (the fact ranked first has a higher importance than the gold);
    ``keyword trap`` (it shares a word stem with the question, the gold shares none: the
    product's keyword arm stems too, so ``taking`` finds ``takes``);
    ``same topic``; ``nothing returned``.
    """
    q, gold = row.question, data.facts[row.question.gold]
    if row.top is None:
        return [("nothing returned", "")]
    top = data.facts[row.top]
    dense_row = next(r for r in dense.rows if r.question.id == q.id)
    reasons = [("dense had it", "") if dense_row.rank == 1 else ("dense wrong too", "")]
    if top.importance > gold.importance:
        reasons.append(("importance", f"{top.importance:g} > {gold.importance:g}"))
    qw = set(words(q.text))
    on_top, on_gold = qw & set(words(top.text)), qw & set(words(gold.text))
    if on_top and not on_gold:
        reasons.append(("keyword trap", ",".join(sorted(on_top))))
    if top.topic == gold.topic:
        reasons.append(("same topic", top.topic))
    return reasons


def report(data: Data, result: dict[str, Any], console: Console, failures: int) -> dict[str, Any]:
    scores: dict[str, dict[str, Scores]] = result["scores"]
    floors: dict[str, Floor] = result["floors"]
    out: dict[str, Any] = {"sizes": {}, "floor": {}, "by_topic": {}, "failures": []}

    table = Table(title="Personal memory: gold fact ranking per space size (same run)")
    for col in (
        "space size (spaces x facts)",
        "method",
        "P@1",
        "P@1 literal",
        "P@1 paraphr.",
        "R@3",
        "MRR",
        "ms p50",
        "P@1 / best base",
        "MRR / best base",
    ):
        table.add_column(
            col, justify="left" if col in ("method",) or col.startswith("space") else "right"
        )
    for size in SIZES:
        sums = {m: scores[size][m].summary() for m in METHODS}
        best_p1 = max(sums[b]["P@1"] for b in BASELINES)
        best_mrr = max(sums[b]["MRR"] for b in BASELINES)
        out["sizes"][size] = {"facts_per_space": result["space_sizes"][size], "methods": {}}
        for i, m in enumerate(METHODS):
            s = sums[m]
            lit = scores[size][m].summary(lambda r: not r.question.paraphrased)
            par = scores[size][m].summary(lambda r: r.question.paraphrased)
            p50 = scores[size][m].p50_ms()
            ratio_p1 = _ratio(s["P@1"], best_p1) if m in DOORS else math.nan
            ratio_mrr = _ratio(s["MRR"], best_mrr) if m in DOORS else math.nan
            table.add_row(
                _size_label(size, result["space_sizes"][size]) if i == 0 else "",
                m,
                _f(s["P@1"]),
                _f(lit["P@1"]),
                _f(par["P@1"]),
                _f(s["R@3"]),
                _f(s["MRR"]),
                _f(p50, 1),
                f"{_f(ratio_p1, 2)}x" if m in DOORS else "",
                f"{_f(ratio_mrr, 2)}x" if m in DOORS else "",
                end_section=i == len(METHODS) - 1,
            )
            out["sizes"][size]["methods"][m] = {
                **s,
                "P@1_literal": lit["P@1"],
                "P@1_paraphrased": par["P@1"],
                "n_literal": lit["n"],
                "n_paraphrased": par["n"],
                "ms_p50": p50,
                **(
                    {"P@1_vs_best_baseline": ratio_p1, "MRR_vs_best_baseline": ratio_mrr}
                    if m in DOORS
                    else {}
                ),
            }
    console.print(table)
    n_q = len(result["questions"])
    n_p = sum(q.paraphrased for q in result["questions"])
    console.print(
        f"{n_q} questions per size ({n_p} paraphrased, {n_q - n_p} literal); k = min(10, space "
        "size); 'best base' = the better of dense and BM25 on that figure at that size; "
        "ms p50 includes embedding the query (each method has its own cache)."
    )

    table = Table(
        title="Relevance floor: build_memory_context(memory, user, q) (recall door data, k=5)"
    )
    for col in (
        "space size",
        "off-topic asks",
        "off-topic: nothing injected",
        "off-topic: memories injected (mean)",
        "on-topic: gold in block (literal / paraphr.)",
        "on-topic: memories injected (mean)",
        "BM25 ref: off-topic all-zero",
        "BM25 ref: gold in top-5 with score > 0",
    ):
        table.add_column(col, justify="right")
    for size in SIZES:
        fl = floors[size]
        row = {
            "off_topic_asks": fl.off_asked,
            "off_topic_nothing_injected": _ratio(fl.off_empty, fl.off_asked),
            "off_topic_injected_mean": statistics.fmean(fl.off_injected)
            if fl.off_injected
            else math.nan,
            "on_topic_asks": fl.on_asked,
            "on_topic_gold_in_block": _ratio(fl.on_gold, fl.on_asked),
            "on_topic_gold_in_block_literal": _ratio(
                fl.on_gold - fl.on_gold_paraphrased, fl.on_asked - fl.on_asked_paraphrased
            ),
            "on_topic_gold_in_block_paraphrased": _ratio(
                fl.on_gold_paraphrased, fl.on_asked_paraphrased
            ),
            "on_topic_injected_mean": statistics.fmean(fl.on_injected)
            if fl.on_injected
            else math.nan,
            "product_on_topic_gold_in_block": _ratio(fl.prod_on_gold, fl.on_asked),
            "product_off_topic_no_episode": _ratio(fl.prod_off_no_episode, fl.off_asked),
            "product_injected_mean": statistics.fmean(fl.prod_injected)
            if fl.prod_injected
            else math.nan,
            "bm25_off_topic_all_zero": _ratio(fl.bm25_off_empty, fl.off_asked),
            "bm25_on_topic_gold_top5_positive": _ratio(fl.bm25_on_gold, fl.on_asked),
        }
        out["floor"][size] = row
        table.add_row(
            size,
            str(fl.off_asked),
            _f(row["off_topic_nothing_injected"]),
            _f(row["off_topic_injected_mean"], 2),
            f"{_f(row['on_topic_gold_in_block'])} ({_f(row['on_topic_gold_in_block_literal'])}"
            f" / {_f(row['on_topic_gold_in_block_paraphrased'])})",
            _f(row["on_topic_injected_mean"], 2),
            _f(row["bm25_off_topic_all_zero"]),
            _f(row["bm25_on_topic_gold_top5_positive"]),
        )
    console.print(table)
    product = Table(
        title="The product's block (profile tier on): standing facts (the product's classes) "
        "are given whatever is asked; episodes must pass the floor"
    )
    for col in (
        "space size",
        "on-topic: gold in block",
        "off-topic: no episode injected",
        "memories injected per on-topic ask (mean)",
    ):
        product.add_column(col, justify="right")
    for size in SIZES:
        row = out["floor"][size]
        product.add_row(
            size,
            _f(row["product_on_topic_gold_in_block"]),
            _f(row["product_off_topic_no_episode"]),
            _f(row["product_injected_mean"], 2),
        )
    console.print(product)
    console.print(
        "BM25 ref: the off-topic questions share no content word with any fact (check_data), "
        "so BM25's abstention is 1.0 by construction; the dense table below is the real test."
    )

    table = Table(title="Reference for a dense floor: cosine of the same model (no product code)")
    for col in (
        "space size",
        "off-topic best cos p50 / p95 / max",
        "on-topic gold cos p5 / p50",
        "best threshold (tuned here)",
        "off-topic empty at it",
        "on-topic gold kept at it",
    ):
        table.add_column(col, justify="right")
    for size in SIZES:
        fl = floors[size]
        off, on = np.asarray(fl.off_max_cos), np.asarray(fl.on_gold_cos)
        t, off_share, on_share = fl.best_threshold()
        q = {
            "off_topic_best_cos_p50": float(np.percentile(off, 50)),
            "off_topic_best_cos_p95": float(np.percentile(off, 95)),
            "off_topic_best_cos_max": float(off.max()),
            "on_topic_gold_cos_p5": float(np.percentile(on, 5)),
            "on_topic_gold_cos_p50": float(np.percentile(on, 50)),
            "best_threshold": t,
            "off_topic_empty_at_threshold": off_share,
            "on_topic_gold_kept_at_threshold": on_share,
        }
        out["floor"][size]["dense_reference"] = q
        table.add_row(
            size,
            f"{q['off_topic_best_cos_p50']:.3f} / {q['off_topic_best_cos_p95']:.3f} / "
            f"{q['off_topic_best_cos_max']:.3f}",
            f"{q['on_topic_gold_cos_p5']:.3f} / {q['on_topic_gold_cos_p50']:.3f}",
            _f(t),
            _f(off_share),
            _f(on_share),
        )
    console.print(table)

    big = SIZES[-1]
    topics = sorted({r.topic for r in scores[big]["dense"].rows})
    table = Table(title=f"P@1 by topic of the gold fact, {big}-fact spaces (literal / paraphrased)")
    table.add_column("topic")
    table.add_column("n (lit/par)", justify="right")
    for m in METHODS:
        table.add_column(m, justify="right")
    for topic in topics:
        cells: list[str] = []
        entry: dict[str, dict[str, float]] = {}

        def lit_of(r: Row, topic: str = topic) -> bool:
            return r.topic == topic and not r.question.paraphrased

        def par_of(r: Row, topic: str = topic) -> bool:
            return r.topic == topic and r.question.paraphrased

        for m in METHODS:
            lit = scores[big][m].summary(lit_of)
            par = scores[big][m].summary(par_of)
            cells.append(f"{_f(lit['P@1'], 2)} / {_f(par['P@1'], 2)}")
            entry[m] = {
                "literal": lit["P@1"],
                "paraphrased": par["P@1"],
                "n_literal": lit["n"],
                "n_paraphrased": par["n"],
            }
        n_lit = scores[big]["dense"].summary(lit_of)["n"]
        n_par = scores[big]["dense"].summary(par_of)["n"]
        table.add_row(topic, f"{n_lit}/{n_par}", *cells)
        out["by_topic"][topic] = entry
    console.print(table)

    misses = [r for r in scores[big]["recall door"].rows if r.rank != 1]
    reasons_count: Counter[str] = Counter()
    rows = []
    for r in misses:
        pairs = failure_reasons(data, r, scores[big]["dense"])
        reasons_count.update(kind for kind, _ in pairs)
        reasons = [f"{kind}: {detail}" if detail else kind for kind, detail in pairs]
        dense_rank = next(
            d.rank for d in scores[big]["dense"].rows if d.question.id == r.question.id
        )
        top = data.facts[r.top] if r.top else None
        out["failures"].append(
            {
                "question": r.question.id,
                "text": r.question.text,
                "paraphrased": r.question.paraphrased,
                "gold": r.question.gold,
                "gold_rank": r.rank,
                "dense_gold_rank": dense_rank,
                "top": r.top,
                "reasons": reasons,
            }
        )
        rows.append(
            [
                r.question.id,
                "P" if r.question.paraphrased else "L",
                r.question.text,
                f"{r.question.gold} ({data.facts[r.question.gold].importance:g})",
                f"{top.id} ({top.importance:g}): {top.text}" if top else "-",
                str(r.rank or "-"),
                str(dense_rank or "-"),
                "; ".join(reasons),
            ]
        )
    table = Table(
        title=f"Recall door misses at P@1, {big}-fact spaces ({len(misses)} of "
        f"{len(scores[big]['recall door'].rows)}; first {min(failures, len(rows))} shown)"
    )
    for col in (
        "q",
        "L/P",
        "question",
        "gold (imp.)",
        "ranked first (imp.)",
        "gold rank",
        "dense gold rank",
        "why",
    ):
        table.add_column(col, overflow="fold")
    for line in rows[:failures]:
        table.add_row(*line)
    console.print(table)
    console.print(
        f"recall door misses at {big} facts, by reason (a miss can have several): "
        + ", ".join(f"{k} {v}" for k, v in reasons_count.most_common())
    )
    store_misses = {r.question.id for r in scores[big]["store door"].rows if r.rank != 1}
    recall_misses = {r.question.id for r in misses}
    console.print(
        f"store door misses at {big} facts: {len(store_misses)} "
        f"({len(store_misses & recall_misses)} shared with the recall door)"
    )
    out["failure_reasons"] = dict(reasons_count)
    overall = {
        m: statistics.median(r.seconds for size in SIZES for r in scores[size][m].rows) * 1000
        for m in METHODS
    }
    out["ms_p50_all_sizes"] = overall
    console.print(
        "query latency p50 over all sizes (ms): "
        + ", ".join(f"{m} {v:.1f}" for m, v in overall.items())
    )
    out["per_question"] = {
        size: {
            q.id: {
                m: next(r.rank for r in scores[size][m].rows if r.question is q) for m in METHODS
            }
            for q in result["questions"]
        }
        for size in SIZES
    }
    return out


def _json_safe(obj: Any) -> Any:
    if isinstance(obj, float) and math.isnan(obj):
        return None
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_json_safe(v) for v in obj]
    return obj


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--quick", action="store_true", help="a third of the questions, 16 off-topic"
    )
    parser.add_argument(
        "--json", metavar="PATH", help="also write the figures as JSON ('-': stdout)"
    )
    parser.add_argument("--check", action="store_true", help="only validate the data")
    parser.add_argument(
        "--failures", type=int, default=40, help="misses listed at the largest size"
    )
    parser.add_argument(
        "--embeddings",
        metavar="MODULE:CALLABLE",
        help="measure this model instead of the packaged MiniLM (a callable returning a "
        "LangChain Embeddings; its floor settings come from MEMORY_RETRIEVAL)",
    )
    args = parser.parse_args(argv)
    console = Console(stderr=args.json == "-", width=200 if not sys.stdout.isatty() else None)
    raw = json.loads(args.data.read_text())
    errors = check_data(raw)
    if errors:
        for e in errors:
            print(f"data error: {e}", file=sys.stderr)
        return 1
    data = load(args.data)
    n_par = sum(q.paraphrased for q in data.questions)
    summary = (
        f"{args.data.name}: {len(data.facts)} facts of {len(raw['personas'])} personas, "
        f"{len(data.questions)} questions ({n_par} paraphrased), {len(data.off_topic)} off-topic; "
        + ", ".join(f"{len(v)} spaces of {k}" for k, v in data.spaces.items())
    )
    print(f"data OK: {summary}", file=sys.stderr)
    if args.check:
        return 0
    model: Embeddings | None = None
    dimension: int | None = None
    if args.embeddings:
        try:
            model, dimension = load_embeddings(args.embeddings)
        except ValueError as exc:
            parser.error(str(exc))
        summary += f"; embeddings {args.embeddings} ({dimension} wide)"
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="prax-personal-") as tmp:
        result = run(
            data,
            Path(tmp),
            quick=args.quick,
            log=lambda m: print(m, file=sys.stderr),
            embeddings=model,
            dimension=dimension,
        )
    out = report(data, result, console, args.failures)
    elapsed = time.perf_counter() - started
    console.print(f"{summary}{' (--quick)' if args.quick else ''}; run took {elapsed:.0f}s")
    if args.json:
        doc = json.dumps(
            _json_safe({"data": summary, "quick": args.quick, "seconds": elapsed, **out}), indent=1
        )
        if args.json == "-":
            print(doc)
        else:
            Path(args.json).write_text(doc + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
