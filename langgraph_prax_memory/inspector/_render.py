"""HTML renderers shared by the inspector's pages and the notebook views.

One Jinja2 environment (autoescaping on: every stored string is data, never markup) renders
the fragments (``_hits.html``, ``_memories.html``, ``_graph.html``, ``_context.html``) that
the pages include and the notebook views return from ``_repr_html_``. The graph picture is an
inline SVG laid out by networkx's spring layout (seeded: the same graph draws the same way),
capped at :data:`GRAPH_NODE_CAP` entities, with the cap shown.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from importlib import resources
from typing import Any

import jinja2

from langgraph_prax_memory.graph import CausalLink, Entity, Relation, TemporalEvent
from langgraph_prax_memory.models import Memory, MemoryHit
from langgraph_prax_memory.vectors import VECTOR_PRUNE_THRESHOLD, decay_factor

#: At most this many entities are drawn (the most important); the page says how many exist.
GRAPH_NODE_CAP = 80
#: At most this many relations are listed beside the picture.
GRAPH_RELATION_CAP = 400
#: At most this many events / causal links are listed.
TIMELINE_CAP = 200
#: Rows per page of the memories table.
PAGE_SIZE = 50

_SVG_WIDTH = 900
_SVG_HEIGHT = 560
_MARGIN = 60


@functools.cache
def environment() -> jinja2.Environment:
    """The Jinja2 environment over the packaged templates (autoescaped)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("langgraph_prax_memory.inspector", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["when"] = _when
    env.filters["num"] = _num
    return env


@functools.cache
def stylesheet() -> str:
    """The inspector's CSS (served as a static file; inlined in notebook views)."""
    return (
        resources.files("langgraph_prax_memory.inspector")
        .joinpath("static/inspector.css")
        .read_text(encoding="utf-8")
    )


def render(template: str, **context: Any) -> str:
    """Render one packaged template with ``context``."""
    return environment().get_template(template).render(**context)


def notebook_html(fragment: str) -> str:
    """A fragment wrapped for a notebook: the stylesheet inlined, scoped by ``.prax``."""
    return f'<div class="prax"><style>{stylesheet()}</style>{fragment}</div>'


def _when(value: datetime | None) -> str:
    if value is None:
        return "—"
    return value.strftime("%Y-%m-%d %H:%M")


def _num(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "—"
    return f"{value:.{digits}f}"


# -- memories ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MemoryRow:
    """One memory with what decay makes of it at ``now``.

    Attributes:
        memory: The stored memory.
        effective: Stored importance × the decay factor since the last recall.
        prune_at: When the forgetting pass will prune it (effective importance below
            :data:`~langgraph_prax_memory.vectors.VECTOR_PRUNE_THRESHOLD`), if not recalled
            again; ``None`` when it is already due.
        due: It would be pruned by a pass run now.
    """

    memory: Memory
    effective: float
    prune_at: datetime | None
    due: bool

    @property
    def state(self) -> str:
        """``current`` or ``superseded`` (by what)."""
        m = self.memory
        if m.valid_until is None:
            return "current"
        return "superseded" + (f" by {m.superseded_by}" if m.superseded_by else "")


def memory_row(memory: Memory, now: datetime, halflife_days: float) -> MemoryRow:
    """Decay arithmetic of the forgetting pass for one memory (nothing is written)."""
    last = memory.last_accessed
    days = (now - last).total_seconds() / 86400.0
    effective = memory.importance * decay_factor(days, halflife_days)
    threshold = VECTOR_PRUNE_THRESHOLD
    if memory.importance < threshold:
        return MemoryRow(memory, effective, None, True)
    # importance · 2^(−d/h) = threshold  ⇔  d = h · log2(importance / threshold)
    life = halflife_days * math.log2(memory.importance / threshold)
    prune_at = last + timedelta(days=life)
    return MemoryRow(memory, effective, prune_at, effective < threshold)


def memories_fragment(
    rows: Sequence[MemoryRow],
    *,
    total: int | None = None,
    caption: str = "",
) -> str:
    """The memories table (content, source, tags, importance, decay, recall, supersession)."""
    return render(
        "_memories.html",
        rows=rows,
        total=len(rows) if total is None else total,
        caption=caption,
    )


# -- recall -----------------------------------------------------------------------------

_SIGNALS = ("relevance", "importance", "recency")


@dataclass(frozen=True)
class Bar:
    """One drawn signal: its label, value and bar width (0–100, of the SVG's width)."""

    label: str
    value: float
    width: float
    kind: str


def _bar(label: str, value: float, scale: float, kind: str) -> Bar:
    width = 0.0 if scale <= 0 else max(0.0, min(100.0, 100.0 * abs(value) / scale))
    return Bar(label, value, round(width, 1), kind)


def hit_bars(hit: MemoryHit) -> list[Bar]:
    """The signals of one hit as bars: each arm's evidence (or RRF share), then the terms."""
    bars: list[Bar] = []
    for arm, rank in hit.ranks.items():
        if arm in hit.evidence:
            bars.append(_bar(f"{arm} #{rank} evidence", hit.evidence[arm], 1.0, "arm"))
        else:
            share = hit.weights.get(arm, 1.0) / (60 + rank)
            bars.append(_bar(f"{arm} #{rank} rrf", share, 1.0 / 61, "arm"))
    if hit.fusion == "evidence":
        bars.append(_bar("relevance", hit.fused, 1.0, "sum"))
        bars.append(_bar("importance", hit.boost, 0.5, "plus" if hit.boost >= 0 else "minus"))
        bars.append(_bar("recency", -hit.recency, 0.5, "minus"))
    else:
        bars.append(_bar("fused", hit.fused, max(hit.fused, 1e-9), "sum"))
        bars.append(_bar("decay ×", hit.decay, 1.0, "plus"))
        bars.append(_bar("boost ×", hit.boost, 2.0, "plus"))
    return bars


def hits_fragment(hits: Sequence[MemoryHit], *, query: str = "", floor: bool = True) -> str:
    """The ranked hits, best first, each with its signals drawn and ``explain()``."""
    return render(
        "_hits.html",
        hits=[(hit, hit_bars(hit)) for hit in hits],
        query=query,
        floor=floor,
    )


def context_fragment(block: str, *, query: str = "") -> str:
    """The exact context block an agent's system prompt would receive."""
    return render("_context.html", block=block, query=query)


# -- graph ------------------------------------------------------------------------------


@dataclass
class GraphData:
    """What the graph page and :class:`~langgraph_prax_memory.inspector.GraphView` draw.

    Attributes:
        entities: The entities read (the inspector reads the most important ones only).
        relations: Relations among or touching them, current and superseded.
        events: Temporal events (the inspector reads the most recent ones).
        links: Causal links, newest first (the inspector reads the newest ones).
        counted: ``graph.stats`` counts: the totals shown beside each cap (without them,
            the lengths of the lists above).
    """

    entities: list[Entity] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    events: list[TemporalEvent] = field(default_factory=list)
    links: list[CausalLink] = field(default_factory=list)
    counted: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class _Node:
    name: str
    label: str
    x: float
    y: float
    r: float
    title: str


@dataclass(frozen=True)
class _Edge:
    x1: float
    y1: float
    x2: float
    y2: float
    current: bool
    label: str
    title: str
    lx: float
    ly: float


def _interval(rel: Relation) -> str:
    until = _when(rel.valid_until) if rel.valid_until else "now"
    return f"{_when(rel.valid_from)} → {until}"


def layout(data: GraphData, *, cap: int = GRAPH_NODE_CAP) -> tuple[list[_Node], list[_Edge]]:
    """Positions of the ``cap`` most important entities and the edges among them (SVG units)."""
    import networkx as nx

    chosen = sorted(data.entities, key=lambda e: (-e.importance, -e.mention_count, e.name))[:cap]
    names = {e.name for e in chosen}
    g = nx.Graph()
    g.add_nodes_from(sorted(names))
    drawn = [r for r in data.relations if r.source in names and r.target in names]
    for rel in drawn:
        if rel.source != rel.target:
            g.add_edge(rel.source, rel.target)
    if not chosen:
        return [], []
    if len(chosen) == 1:
        pos = {chosen[0].name: (0.0, 0.0)}
    else:
        k = 1.6 / math.sqrt(len(chosen))
        raw = nx.spring_layout(g, seed=7, k=k, iterations=80)
        pos = {str(n): (float(p[0]), float(p[1])) for n, p in raw.items()}
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    span_x = (max(xs) - min(xs)) or 1.0
    span_y = (max(ys) - min(ys)) or 1.0

    def place(name: str) -> tuple[float, float]:
        x, y = pos[name]
        px = _MARGIN + (x - min(xs)) / span_x * (_SVG_WIDTH - 2 * _MARGIN)
        py = _MARGIN + (y - min(ys)) / span_y * (_SVG_HEIGHT - 2 * _MARGIN)
        if len(pos) == 1:
            px, py = _SVG_WIDTH / 2, _SVG_HEIGHT / 2
        return round(px, 1), round(py, 1)

    nodes = []
    for ent in chosen:
        x, y = place(ent.name)
        nodes.append(
            _Node(
                name=ent.name,
                label=ent.display_name[:28],
                x=x,
                y=y,
                r=round(6 + 10 * max(0.0, min(1.0, ent.importance)), 1),
                title=(
                    f"{ent.display_name} ({ent.type}) importance {ent.importance:.2f}, "
                    f"{ent.mention_count} mentions, seen {_when(ent.first_seen)} → "
                    f"{_when(ent.last_seen)}"
                ),
            )
        )
    radius = {n.name: n.r for n in nodes}
    edges = []
    for rel in sorted(drawn, key=lambda r: r.is_current):  # current ones drawn on top
        x1, y1 = place(rel.source)
        x2, y2 = place(rel.target)
        length = math.hypot(x2 - x1, y2 - y1)
        if length > radius[rel.target] + 2:  # end the arrow at the target's rim
            cut = (radius[rel.target] + 2) / length
            x2, y2 = round(x2 - (x2 - x1) * cut, 1), round(y2 - (y2 - y1) * cut, 1)
        state = "current" if rel.is_current else "superseded"
        edges.append(
            _Edge(
                x1=x1,
                y1=y1,
                x2=x2,
                y2=y2,
                current=rel.is_current,
                label=rel.type,
                title=(
                    f"{rel.source} —{rel.type}→ {rel.target} ({state}; valid "
                    f"{_interval(rel)}; weight {rel.weight:.2f})"
                ),
                lx=round((x1 + x2) / 2, 1),
                ly=round((y1 + y2) / 2 - 4, 1),
            )
        )
    return nodes, edges


def graph_fragment(data: GraphData, *, cap: int = GRAPH_NODE_CAP) -> str:
    """The graph picture (inline SVG), its relations with validity, events and causal links.

    Each list is capped (the most important entities, the current and heaviest relations, the
    most recent events and causal links) and says how many exist: ``data.counted`` when
    given (what ``graph.stats`` counts), else the length of the list.
    """
    nodes, edges = layout(data, cap=cap)
    counted = dict(data.counted)

    def total(key: str, listed: int) -> int:
        return max(counted.get(key, listed), listed)

    relations = sorted(
        data.relations, key=lambda r: (not r.is_current, -r.weight, r.source, r.type, r.target)
    )[:GRAPH_RELATION_CAP]
    events = sorted(data.events, key=lambda e: e.occurred_at)[-TIMELINE_CAP:]
    links = data.links[:TIMELINE_CAP]
    return render(
        "_graph.html",
        nodes=nodes,
        edges=edges,
        width=_SVG_WIDTH,
        height=_SVG_HEIGHT,
        entities=total("entities", len(data.entities)),
        cap=cap,
        relations=[(r, _interval(r)) for r in relations],
        relation_total=total("relations", len(data.relations)),
        relation_cap=GRAPH_RELATION_CAP,
        events=events,
        event_total=total("temporal_events", len(data.events)),
        links=links,
        link_total=total("causal_links", len(data.links)),
        timeline_cap=TIMELINE_CAP,
        counted=counted,
    )
