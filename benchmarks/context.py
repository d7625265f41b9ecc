"""The context block: does it hold what a good assistant would use, and nothing else? (issue 25)

Our own benchmark (``benchmarks/data/context_personas.json``, written for this project, no
third-party data): personas with *durable* memories (standing facts — preferences, identity,
constraints, relationships, work, home — tagged ``preference``/``profile``/``identity``/
``constraint``/``relationship`` or stored with importance ≥ 0.8) and *episodic* ones (things that
happened, importance 0.3-0.6, dated over the past weeks), and three kinds of requests:

- ``task``: requests that share few or no words with the facts a good assistant would use
  ("Plan a dinner menu for Saturday." → the allergy, the diet, who is coming), with their gold;
- ``direct``: questions about the user ("Where does my sister live?"), with their gold;
- ``off_topic``: general questions that need nothing about the user (no gold).

Each persona is stored, the way an agent stores what it learns, through
``memory.remember(user, content, importance=..., tags=[...], created_at=now - days_ago)`` in a
fresh ``PraxMemory`` (embedded defaults, its own temporary data dir) per configuration; then
every request goes through the door users see, ``build_memory_context(memory, user, request)``
(with ``now=`` when it takes one, and every ``*_chars`` budget it takes passed explicitly at its
default). A memory is *injected* when its content, rendered by ``quote_for_prompt``, is in a
line of the block. Configurations, all in the same run:

- ``product``: the default ``MemoryConfig``;
- ``floor off (top-k)``: ``RetrievalConfig(relevance_floor=False)`` (and ``profile_chars=0``
  where the config has that knob): the top k recalled memories, whatever they are;
- ``today's floor``: ``RetrievalConfig()`` (with ``profile_chars=0`` where that knob exists):
  the relevance floor alone, without a profile tier. Without the knob it is the product.

Figures per configuration: gold kept per kind (gold memories injected / gold memories), unrelated
episodic memories per on-topic request (episodic memories injected that are not gold), share of
off-topic requests that inject an episodic memory, unrelated durable memories per request
(informational: a standing fact beside a request costs little), characters injected, and whether
every block stayed within the sum of its budgets. The targets of issue 25's "Done means" are
printed beside each figure.

Run: .venv/bin/python -m benchmarks.context [--quick] [--json [PATH|-]] [--check]
[--embeddings MODULE:CALLABLE]
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from benchmarks._common import load_embeddings
from benchmarks.personal_memory import shared_words

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

    from langgraph_prax_memory import PraxMemory
    from langgraph_prax_memory.config import RetrievalConfig

DEFAULT_DATA = Path(__file__).resolve().parent / "data" / "context_personas.json"
KINDS = ("task", "direct", "off_topic")
ON_TOPIC = ("task", "direct")
DURABLE_TAGS = frozenset({"preference", "profile", "identity", "constraint", "relationship"})
MIN_PERSONAS = 3
MIN_REQUESTS_PER_KIND = 30
MAX_CONTENT_CHARS = 200
# characters the prompt quoting escapes: a memory must not hold them, so the rendered line is
# the stored text and "injected" is an exact test
_MARKUP = set("\\`#[]<>|\n\r")

#: The figures issue 25 asks for ("Done means"), as (key, comparison, bound, label).
TARGETS: tuple[tuple[str, str, float, str], ...] = (
    ("gold_kept_task", ">=", 0.85, "≥ 0.85"),
    ("gold_kept_direct", ">=", 0.95, "≥ 0.95"),
    ("off_topic_episodic_share", "<=", 0.05, "≤ 0.05"),
    ("unrelated_episodic_per_on_topic", "<=", 1.0, "≤ 1"),
    ("within_budget", ">=", 1.0, "all"),
)

# -- data ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Memory:
    id: str
    kind: str  # "durable" | "episodic"
    content: str
    importance: float
    tags: tuple[str, ...]
    days_ago: float


@dataclass(frozen=True)
class Request:
    id: str
    kind: str  # one of KINDS
    text: str
    gold: tuple[str, ...]


@dataclass(frozen=True)
class Persona:
    id: str
    name: str
    memories: tuple[Memory, ...]
    requests: tuple[Request, ...]

    @property
    def user(self) -> str:
        return f"ctx-{self.id}"

    def memory(self, memory_id: str) -> Memory:
        return next(m for m in self.memories if m.id == memory_id)


@dataclass(frozen=True)
class Data:
    now: datetime
    personas: tuple[Persona, ...]

    def requests(self, kind: str) -> list[Request]:
        return [r for p in self.personas for r in p.requests if r.kind == kind]


def load(path: Path) -> Data:
    """The benchmark data at ``path`` (validate it with :func:`check_data` first)."""
    raw = json.loads(path.read_text())
    personas = tuple(
        Persona(
            p["id"],
            p["name"],
            tuple(
                Memory(
                    m["id"],
                    m["kind"],
                    m["content"],
                    float(m["importance"]),
                    tuple(m["tags"]),
                    float(m["days_ago"]),
                )
                for m in p["memories"]
            ),
            tuple(Request(r["id"], r["kind"], r["text"], tuple(r["gold"])) for r in p["requests"]),
        )
        for p in raw["personas"]
    )
    return Data(datetime.fromisoformat(raw["now"]), personas)


def check_data(raw: dict[str, Any]) -> list[str]:
    """Every rule the data must keep; returns the violations (empty when the data is sound).

    Ids are unique; every gold id names a memory of the same persona; task and direct
    requests have 1-4 gold memories, off-topic ones none; durable memories carry a durable tag
    or importance ≥ 0.8 (importance 0.7-0.95), episodic ones no durable tag and importance
    0.3-0.6; no memory's text is inside another's of the same persona (so "injected" is
    unambiguous) or holds a character the prompt quoting escapes; at most half of the task
    requests' gold memories share a content word with their request; at least 3 personas and
    30 requests of each kind.
    """
    errors: list[str] = []
    try:
        datetime.fromisoformat(raw["now"])
    except (KeyError, TypeError, ValueError):
        errors.append("'now' is missing or not an ISO date")
    personas = raw.get("personas") or []
    if len(personas) < MIN_PERSONAS:
        errors.append(f"too few personas: {len(personas)} < {MIN_PERSONAS}")
    seen: set[str] = set()
    counts = dict.fromkeys(KINDS, 0)
    task_pairs = literal_pairs = 0

    def unique(ident: str) -> None:
        if ident in seen:
            errors.append(f"duplicate id {ident!r}")
        seen.add(ident)

    for p in personas:
        unique(p["id"])
        mems = {m["id"]: m for m in p["memories"]}
        for m in p["memories"]:
            unique(m["id"])
            where, imp, tags = m["id"], m["importance"], set(m["tags"])
            text = m["content"]
            if not text.strip() or len(text) > MAX_CONTENT_CHARS:
                errors.append(f"{where}: content empty or longer than {MAX_CONTENT_CHARS}")
            if _MARKUP & set(text):
                errors.append(f"{where}: content holds a character the prompt quoting escapes")
            if not isinstance(m["days_ago"], int | float) or m["days_ago"] < 0:
                errors.append(f"{where}: days_ago must be a number >= 0")
            if m["kind"] == "durable":
                if not 0.7 <= imp <= 0.95:
                    errors.append(f"{where}: durable importance {imp} outside 0.7-0.95")
                if not (tags & DURABLE_TAGS or imp >= 0.8):
                    errors.append(f"{where}: durable without a durable tag or importance >= 0.8")
            elif m["kind"] == "episodic":
                if not 0.3 <= imp <= 0.6:
                    errors.append(f"{where}: episodic importance {imp} outside 0.3-0.6")
                if tags & DURABLE_TAGS:
                    errors.append(f"{where}: episodic with durable tags {sorted(tags)}")
            else:
                errors.append(f"{where}: unknown kind {m['kind']!r}")
        for a in p["memories"]:
            for b in p["memories"]:
                if a is not b and a["content"] in b["content"]:
                    errors.append(f"{a['id']}'s content is inside {b['id']}'s")
        for r in p["requests"]:
            unique(r["id"])
            kind, gold = r["kind"], r["gold"]
            if kind not in counts:
                errors.append(f"{r['id']}: unknown kind {kind!r}")
                continue
            counts[kind] += 1
            if kind == "off_topic" and gold:
                errors.append(f"{r['id']}: an off-topic request has gold {gold}")
            if kind != "off_topic" and not 1 <= len(gold) <= 4:
                errors.append(f"{r['id']}: {len(gold)} gold memories, not 1-4")
            if len(set(gold)) != len(gold):
                errors.append(f"{r['id']}: repeated gold ids")
            for g in gold:
                if g not in mems:
                    errors.append(f"{r['id']}: gold {g!r} is not a memory of {p['id']}")
                elif kind == "task":
                    task_pairs += 1
                    literal_pairs += bool(lexical_overlap(r["text"], mems[g]["content"]))
    if 2 * literal_pairs > task_pairs:
        errors.append(
            f"{literal_pairs} of {task_pairs} task gold memories share a content word with "
            "their request: task requests should mostly share none"
        )
    for kind, n in counts.items():
        if n < MIN_REQUESTS_PER_KIND:
            errors.append(f"too few {kind} requests: {n} < {MIN_REQUESTS_PER_KIND}")
    return errors


# -- configurations ------------------------------------------------------------------------


def configurations() -> dict[str, RetrievalConfig | None]:
    """The three configurations of a run, by name (``None``: the default ``MemoryConfig``).

    The baselines switch the profile tier off (``profile_chars=0``) where ``RetrievalConfig``
    has that knob, so they measure the relevance floor alone (or no floor at all).
    """
    from langgraph_prax_memory.config import RetrievalConfig

    no_profile: dict[str, Any] = (
        {"profile_chars": 0} if "profile_chars" in RetrievalConfig.model_fields else {}
    )
    return {
        "product": None,
        "floor off (top-k)": RetrievalConfig(relevance_floor=False, **no_profile),
        "today's floor": RetrievalConfig(**no_profile),
    }


def context_kwargs(
    memory: PraxMemory, now: datetime, fn: Callable[..., str] | None = None
) -> tuple[dict[str, Any], int]:
    """The keyword arguments ``build_memory_context`` (or ``fn``) is called with, and its budget.

    Every ``*_chars`` budget the function takes is passed explicitly: the memory's
    ``config.retrieval`` setting of that name when there is one (so a baseline's
    ``profile_chars=0`` holds even if the function also takes ``profile_chars``), else the
    function's default; a budget with neither (default ``None``) is left to the function.
    ``now`` is passed where the function takes it. The budget is the sum of the budgets passed,
    plus ``config.retrieval.profile_chars`` when the config has that knob and the function
    takes no budget of that name.
    """
    if fn is None:
        from langgraph_prax_memory.context import build_memory_context

        fn = build_memory_context
    params = inspect.signature(fn).parameters
    retrieval = memory.config.retrieval
    kwargs: dict[str, Any] = {}
    for name, param in params.items():
        if not name.endswith("_chars"):
            continue
        configured = getattr(retrieval, name, None)
        if isinstance(configured, int):
            kwargs[name] = configured
        elif isinstance(param.default, int):
            kwargs[name] = param.default
    budget = sum(kwargs.values())
    profile = getattr(retrieval, "profile_chars", None)
    if isinstance(profile, int) and "profile_chars" not in params:
        budget += profile
    if "now" in params:
        kwargs["now"] = now
    return kwargs, budget


# -- one run -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What one block held for one request."""

    persona: str
    request: Request
    injected: tuple[str, ...]  # memory ids, in block order
    kinds: dict[str, str]  # memory id -> "durable" | "episodic", for the injected ones
    chars: int
    budget: int
    #: per gold id: does the request share a content word with it (``shared_words``)?
    literal: dict[str, bool] = field(default_factory=dict)

    @property
    def gold_kept(self) -> int:
        return sum(g in self.injected for g in self.request.gold)

    def unrelated(self, kind: str) -> int:
        return sum(1 for i in self.injected if i not in self.request.gold and self.kinds[i] == kind)


def lexical_overlap(request: str, content: str) -> set[str]:
    """Content words (light stems) a request shares with a memory, ``user`` aside.

    The same test as the personal-memory benchmark's paraphrase check: a task request's gold
    that shares none can only be found by meaning or by a profile, never by keywords.
    """
    return shared_words(request, content) - {"user"}


def injected_ids(block: str, persona: Persona) -> list[str]:
    """The persona's memories whose rendered content is in a line of ``block``, in order.

    A line holding two memories' texts, one inside the other, counts the longer one (the data
    check rules that case out; this keeps the test exact if a renderer changes).
    """
    from langgraph_prax_memory._untrusted import quote_for_prompt

    rendered = [(m.id, quote_for_prompt(m.content)) for m in persona.memories]
    out: list[str] = []
    for line in block.splitlines():
        found = [(i, text) for i, text in rendered if text in line]
        for i, text in found:
            inside_other = any(text != other and text in other for _, other in found)
            if not inside_other and i not in out:
                out.append(i)
    return out


#: How memories are written (``--writes``): as a tagging agent does, or untagged.
WRITES = ("tagged", "remember", "store")

#: The seed's sample (spec "Sample Output: With vs Without Memory"), verbatim.
SEED_FACTS = (
    "User prefers Rust for systems projects and Python for scripts.",
    "User uses NixOS with flake-based project templates.",
    "User insists on MIT license for all personal projects.",
    "User's preferred editor is Helix with catppuccin theme.",
)
SEED_REQUEST = "Can you help me set up a new project?"


def write_memory(memory: PraxMemory, user: str, m: Memory, now: datetime, writes: str) -> None:
    """Store one memory the way ``writes`` says.

    * ``tagged``: ``remember(content, importance=..., tags=[...])``, as an agent that tags;
    * ``remember``: ``remember(content)``: no tags, the default importance;
    * ``store``: ``PraxMemoryStore.put(("memories", user), key, {"content": content})``, as
      LangMem's tools and most LangGraph agents write.
    """
    created = now - timedelta(days=m.days_ago)
    if writes == "tagged":
        memory.remember(
            user, m.content, importance=m.importance, tags=list(m.tags), created_at=created
        )
    elif writes == "remember":
        memory.remember(user, m.content, created_at=created)
    elif writes == "store":
        from langgraph_prax_memory import PraxMemoryStore

        PraxMemoryStore(memory).put(
            ("memories", user), m.id, {"content": m.content, "created_at": created.isoformat()}
        )
    else:
        raise ValueError(f"writes must be one of {WRITES}")


def seed_sample(data_dir: Path, now: datetime, writes: str) -> int:
    """How many of the seed's four facts the seed's request gets, written ``writes``."""
    from langgraph_prax_memory import MemoryConfig, PraxMemory
    from langgraph_prax_memory.context import build_memory_context

    memory = PraxMemory(MemoryConfig(data_dir=data_dir))
    try:
        for i, fact in enumerate(SEED_FACTS):
            item = Memory(f"seed-{i}", "durable", fact, 0.5, (), 30)
            write_memory(memory, "seed-user", item, now, writes)
        kwargs, _ = context_kwargs(memory, now)
        block = build_memory_context(memory, "seed-user", SEED_REQUEST, **kwargs)
        return sum(fact in block for fact in SEED_FACTS)
    finally:
        memory.close()


def run_persona(
    persona: Persona,
    requests: Sequence[Request],
    retrieval: RetrievalConfig | None,
    data_dir: Path,
    now: datetime,
    embeddings: tuple[Embeddings, int] | None = None,
    writes: str = "tagged",
) -> list[Outcome]:
    """Store ``persona`` in a fresh memory with ``retrieval`` and build a block per request.

    ``embeddings`` (a model and its width) replaces the packaged MiniLM; ``writes`` is how
    the memories are written (:func:`write_memory`).
    """
    from langgraph_prax_memory import MemoryConfig, PraxMemory
    from langgraph_prax_memory.context import build_memory_context

    config = (
        MemoryConfig(data_dir=data_dir)
        if retrieval is None
        else MemoryConfig(data_dir=data_dir, retrieval=retrieval)
    )
    model, width = embeddings if embeddings is not None else (None, None)
    memory = PraxMemory(config, embeddings=model, embedding_dimension=width)
    try:
        for m in persona.memories:
            write_memory(memory, persona.user, m, now, writes)
        kwargs, budget = context_kwargs(memory, now)
        kinds = {m.id: m.kind for m in persona.memories}
        out = []
        for r in requests:
            block = build_memory_context(memory, persona.user, r.text, **kwargs)
            ids = tuple(injected_ids(block, persona))
            literal = {g: bool(lexical_overlap(r.text, persona.memory(g).content)) for g in r.gold}
            out.append(
                Outcome(persona.id, r, ids, {i: kinds[i] for i in ids}, len(block), budget, literal)
            )
        return out
    finally:
        memory.close()


def run(
    data: Data,
    tmp: Path,
    *,
    quick: bool,
    log: Callable[[str], None],
    embeddings: tuple[Embeddings, int] | None = None,
    writes: str = "tagged",
) -> dict[str, list[Outcome]]:
    """Every configuration over every persona: the outcomes, by configuration name."""
    results: dict[str, list[Outcome]] = {}
    for name, retrieval in configurations().items():
        started = time.perf_counter()
        outcomes: list[Outcome] = []
        for n, persona in enumerate(data.personas):
            requests = [r for i, r in enumerate(persona.requests) if not quick or i % 2 == 0]
            outcomes += run_persona(
                persona,
                requests,
                retrieval,
                tmp / f"{len(results)}-{n}",
                data.now,
                embeddings,
                writes,
            )
        results[name] = outcomes
        log(
            f"  {name}: {len(data.personas)} personas, {len(outcomes)} requests in "
            f"{time.perf_counter() - started:.1f}s"
        )
    return results


# -- figures -------------------------------------------------------------------------------


def _ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


def summarise(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """The figures of one configuration (see the module docstring)."""
    by_kind = {k: [o for o in outcomes if o.request.kind == k] for k in KINDS}
    on_topic = by_kind["task"] + by_kind["direct"]
    off = by_kind["off_topic"]
    chars = [o.chars for o in outcomes]
    out: dict[str, Any] = {"requests": {k: len(v) for k, v in by_kind.items()}}
    for kind in ON_TOPIC:
        rows = by_kind[kind]
        gold = sum(len(o.request.gold) for o in rows)
        out[f"gold_kept_{kind}"] = _ratio(sum(o.gold_kept for o in rows), gold)
        out[f"all_gold_kept_{kind}"] = _ratio(
            sum(o.gold_kept == len(o.request.gold) for o in rows), len(rows)
        )
        out[f"gold_{kind}"] = gold
        for label, want in (("literal", True), ("paraphrased", False)):
            pairs = [(o, g) for o in rows for g in o.request.gold if o.literal.get(g) is want]
            out[f"gold_kept_{kind}_{label}"] = _ratio(
                sum(g in o.injected for o, g in pairs), len(pairs)
            )
            out[f"gold_{kind}_{label}"] = len(pairs)
    out["unrelated_episodic_per_on_topic"] = (
        statistics.fmean(o.unrelated("episodic") for o in on_topic) if on_topic else math.nan
    )
    out["unrelated_episodic_max"] = max((o.unrelated("episodic") for o in on_topic), default=0)
    out["off_topic_episodic_share"] = _ratio(
        sum(o.unrelated("episodic") > 0 for o in off), len(off)
    )
    out["off_topic_any_share"] = _ratio(sum(bool(o.injected) for o in off), len(off))
    out["unrelated_durable_per_on_topic"] = (
        statistics.fmean(o.unrelated("durable") for o in on_topic) if on_topic else math.nan
    )
    out["durable_per_off_topic"] = (
        statistics.fmean(o.unrelated("durable") for o in off) if off else math.nan
    )
    out["chars_mean"] = statistics.fmean(chars) if chars else math.nan
    out["chars_max"] = max(chars, default=0)
    out["budget"] = max((o.budget for o in outcomes), default=0)
    over = [o.chars - o.budget for o in outcomes if o.chars > o.budget]
    out["over_budget"] = len(over)
    out["over_budget_max_chars"] = max(over, default=0)
    out["within_budget"] = 1.0 if not over else 0.0
    return out


def meets(figures: dict[str, Any], key: str, op: str, bound: float) -> bool:
    value = figures[key]
    if isinstance(value, float) and math.isnan(value):
        return False
    return bool(value >= bound if op == ">=" else value <= bound)


def _f(x: Any, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.{digits}f}" if isinstance(x, float) else str(x)


def report(data: Data, results: dict[str, list[Outcome]], console: Console) -> dict[str, Any]:
    """Print the tables; return the figures for ``--json``."""
    figures = {name: summarise(outcomes) for name, outcomes in results.items()}
    names = list(results)
    product, baselines = names[0], names[1:]

    table = Table(title="Context block: build_memory_context(memory, user, request), same run")
    table.add_column("figure")
    table.add_column("target", justify="right")
    for name in names:
        table.add_column(name, justify="right")
    rows: list[tuple[str, str, str, int]] = [
        ("gold kept, task requests", "gold_kept_task", "≥ 0.85", 3),
        ("gold kept, direct questions", "gold_kept_direct", "≥ 0.95", 3),
        ("  gold sharing no word with the request", "gold_kept_task_paraphrased", "", 3),
        ("  gold sharing a word with the request", "gold_kept_task_literal", "", 3),
        ("requests with all gold kept, task", "all_gold_kept_task", "", 3),
        ("requests with all gold kept, direct", "all_gold_kept_direct", "", 3),
        ("unrelated episodic / on-topic request", "unrelated_episodic_per_on_topic", "≤ 1", 2),
        ("unrelated episodic, most in one block", "unrelated_episodic_max", "", 0),
        ("off-topic requests injecting an episodic", "off_topic_episodic_share", "≤ 0.05", 3),
        ("off-topic requests injecting anything", "off_topic_any_share", "(info)", 3),
        ("unrelated durable / on-topic request", "unrelated_durable_per_on_topic", "(info)", 2),
        ("durable / off-topic request", "durable_per_off_topic", "(info)", 2),
        ("characters injected, mean", "chars_mean", "", 0),
        ("characters injected, max", "chars_max", "", 0),
        ("budget (sum of the budgets passed)", "budget", "", 0),
        ("blocks over budget (most chars over)", "over_budget", "none", 0),
    ]
    targets = {key: (op, bound) for key, op, bound, _ in TARGETS}
    for label, key, target, digits in rows:
        cells = []
        for name in names:
            value = figures[name][key]
            text = _f(float(value), digits) if digits else str(round(value))
            if key == "over_budget":
                text = f"{value} ({figures[name]['over_budget_max_chars']})"
            if key in targets or key == "over_budget":
                op, bound = targets.get(key, ("<=", 0.0))
                text += " ✓" if meets(figures[name], key, op, bound) else " ✗"
            cells.append(text)
        table.add_row(label, target, *cells)
    console.print(table)

    table = Table(title=f"Ratios: {product} / baseline (same run)")
    table.add_column("figure")
    for name in baselines:
        table.add_column(f"/ {name}", justify="right")
    ratios: dict[str, dict[str, float]] = {}
    for label, key in (
        ("gold kept, task", "gold_kept_task"),
        ("gold kept, task, sharing no word", "gold_kept_task_paraphrased"),
        ("gold kept, direct", "gold_kept_direct"),
        ("unrelated episodic / on-topic request", "unrelated_episodic_per_on_topic"),
        ("off-topic requests injecting an episodic", "off_topic_episodic_share"),
        ("characters injected, mean", "chars_mean"),
    ):
        cells = []
        for name in baselines:
            r = _ratio(figures[product][key], figures[name][key])
            ratios.setdefault(name, {})[key] = r
            cells.append(f"{_f(r, 2)}x")
        table.add_row(label, *cells)
    console.print(table)

    table = Table(title=f"{product}, per persona: gold kept task / direct, unrelated episodic")
    for col in ("persona", "task", "direct", "unrel. episodic / on-topic", "off-topic w/ episodic"):
        table.add_column(col, justify="left" if col == "persona" else "right")
    per_persona: dict[str, Any] = {}
    for p in data.personas:
        f = summarise([o for o in results[product] if o.persona == p.id])
        per_persona[p.id] = f
        table.add_row(
            p.name,
            _f(f["gold_kept_task"]),
            _f(f["gold_kept_direct"]),
            _f(f["unrelated_episodic_per_on_topic"], 2),
            _f(f["off_topic_episodic_share"]),
        )
    console.print(table)

    misses = [o for o in results[product] if o.gold_kept < len(o.request.gold)]
    if misses:
        table = Table(title=f"{product}: requests missing gold ({len(misses)})")
        for col in ("request", "kind", "text", "gold missing", "injected"):
            table.add_column(col, overflow="fold")
        for o in misses:
            table.add_row(
                o.request.id,
                o.request.kind,
                o.request.text,
                ", ".join(g for g in o.request.gold if g not in o.injected),
                ", ".join(o.injected) or "-",
            )
        console.print(table)
    not_met = [
        label for key, op, bound, label in TARGETS if not meets(figures[product], key, op, bound)
    ]
    console.print(
        "gold kept = gold memories injected / gold memories of that kind; on-topic = task + "
        "direct; 'unrelated' = injected and not gold; task gold sharing no content word with its "
        f"request: {figures[product]['gold_task_paraphrased']}, sharing one: "
        f"{figures[product]['gold_task_literal']}. "
        + (
            f"{product}: {len(TARGETS) - len(not_met)} of {len(TARGETS)} targets met."
            if not_met
            else f"{product}: every target met."
        )
    )
    return {
        "configurations": figures,
        "ratios": ratios,
        "per_persona": per_persona,
        "targets": {key: f"{op} {bound}" for key, op, bound, _ in TARGETS},
        "per_request": {
            name: {
                o.request.id: {"gold": list(o.request.gold), "injected": list(o.injected)}
                for o in outcomes
            }
            for name, outcomes in results.items()
        },
    }


def _json_safe(obj: Any) -> Any:
    if isinstance(obj, float) and math.isnan(obj):
        return None
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_json_safe(v) for v in obj]
    return obj


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--quick", action="store_true", help="half of each persona's requests")
    parser.add_argument(
        "--json",
        metavar="PATH",
        nargs="?",
        const="-",
        help="also write the figures as JSON (no PATH or '-': stdout, tables to stderr)",
    )
    parser.add_argument("--check", action="store_true", help="only validate the data")
    parser.add_argument(
        "--embeddings",
        metavar="MODULE:CALLABLE",
        help="measure this model instead of the packaged MiniLM (benchmarks._models:e5_small)",
    )
    parser.add_argument(
        "--writes",
        choices=WRITES,
        default="tagged",
        help="how memories are written: tagged remember() (default), untagged remember(text), "
        "or store.put(('memories', user), key, {'content': text})",
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
    n_mem = sum(len(p.memories) for p in data.personas)
    n_dur = sum(m.kind == "durable" for p in data.personas for m in p.memories)
    summary = (
        f"{args.data.name}: {len(data.personas)} personas, {n_mem} memories ({n_dur} durable, "
        f"{n_mem - n_dur} episodic), "
        + ", ".join(f"{len(data.requests(k))} {k}" for k in KINDS)
        + " requests"
    )
    print(f"data OK: {summary}", file=sys.stderr)
    if args.check:
        return 0
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="prax-context-") as tmp:
        results = run(
            data,
            Path(tmp),
            quick=args.quick,
            log=lambda m: print(m, file=sys.stderr),
            embeddings=load_embeddings(args.embeddings) if args.embeddings else None,
            writes=args.writes,
        )
        seed = seed_sample(Path(tmp) / "seed", data.now, args.writes)
    out = report(data, results, console)
    out["writes"] = args.writes
    out["seed_sample"] = seed
    console.print(
        f"writes: {args.writes}; the seed's sample ({SEED_REQUEST!r}): {seed} of "
        f"{len(SEED_FACTS)} facts in the context (target: {len(SEED_FACTS)})"
    )
    elapsed = time.perf_counter() - started
    console.print(f"{summary}{' (--quick)' if args.quick else ''}; run took {elapsed:.0f}s")
    if args.json:
        doc = json.dumps(
            _json_safe({"data": summary, "quick": args.quick, "seconds": elapsed, **out}),
            indent=1,
            ensure_ascii=False,
        )
        if args.json == "-":
            print(doc)
        else:
            Path(args.json).write_text(doc + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
