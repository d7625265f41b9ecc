"""HTML renderers shared by the inspector's pages and the notebook views.

One Jinja2 environment (autoescaping on: every stored string is data, never markup) renders
the fragments (``_hits.html``, ``_memories.html``, ``_graph.html``, ``_context.html``) that
the pages include and the notebook views return from ``_repr_html_``. The graph picture is an
inline SVG laid out by networkx's spring layout (seeded: the same graph draws the same way),
capped at :data:`GRAPH_NODE_CAP` entities, with the cap shown.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from importlib import resources
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup

from langgraph_prax_memory._untrusted import safe_for_terminal
from langgraph_prax_memory.graph import CausalLink, Entity, Relation, TemporalEvent
from langgraph_prax_memory.models import Memory, MemoryHit
from langgraph_prax_memory.vectors import VECTOR_PRUNE_THRESHOLD, decay_factor

if TYPE_CHECKING:
    from langgraph_prax_memory.context import ContextLine, MemoryContext

#: At most this many entities are drawn (the most important); the page says how many exist.
GRAPH_NODE_CAP = 80
#: At most this many relations are listed beside the picture.
GRAPH_RELATION_CAP = 400
#: At most this many events / causal links are listed.
TIMELINE_CAP = 200
#: Rows per page of the memories table.
PAGE_SIZE = 50
#: Stored text longer than this shows its start, and the whole behind "show all".
CLIP_CHARS = 400

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
        finalize=visible,
    )
    env.filters["when"] = _when
    env.filters["num"] = _num
    env.globals["CLIP_CHARS"] = CLIP_CHARS
    return env


def visible(value: Any) -> Any:
    r"""Stored text with invisible and direction-changing characters shown as escapes.

    Every ``{{ ... }}`` of the templates goes through this (Jinja2's ``finalize``) before it
    is HTML-escaped: a right-to-left override (U+202E), a zero-width space or joiner, a
    control character is written ``\u202e``, ``\u200b``, ``\x1b``, as the command line
    shows them, so a memory cannot reorder or hide what the page shows. Our own fragments
    (``Markup``) are left alone: the text inside them went through here already.

    Example:
        >>> visible("abc\u202edcba")
        'abc\\u202edcba'
    """
    if isinstance(value, str) and not isinstance(value, Markup) and not value.isprintable():
        return safe_for_terminal(value)
    return value


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
    """``value`` with ``digits`` decimals; a value that rounds to zero is never ``-0.000``."""
    if value is None:
        return "—"
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text


# -- memories ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MemoryRow:
    """One memory with what decay makes of it at ``now``.

    Attributes:
        memory: The stored memory.
        effective: Stored importance × the decay factor since the last recall.
        prune_at: When the forgetting pass will prune it (effective importance below
            :data:`~langgraph_prax_memory.vectors.VECTOR_PRUNE_THRESHOLD`), if not recalled
            again; ``None`` when it is already due, or never (a standing fact).
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
    """Decay arithmetic of the forgetting pass for one memory (nothing is written).

    A standing fact is never pruned (docs/context.md, "Memory classes"): no date, never due.
    """
    last = memory.last_accessed
    days = (now - last).total_seconds() / 86400.0
    effective = memory.importance * decay_factor(days, halflife_days)
    if memory.fact_class == "standing":
        return MemoryRow(memory, effective, None, False)
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


def _roles(context: MemoryContext | None) -> dict[str, ContextLine]:
    """Each recalled memory's part in the block: its line (and rule), or why it is left out."""
    if context is None:
        return {}
    roles: dict[str, ContextLine] = {}
    for line in (*context.lines, *context.omitted):
        if line.hit is not None:
            roles.setdefault(line.hit.memory.id, line)
    return roles


def hits_fragment(
    hits: Sequence[MemoryHit],
    *,
    query: str = "",
    floor: bool = True,
    context: MemoryContext | None = None,
) -> str:
    """The ranked hits, best first, each with its signals drawn and ``explain()``.

    With ``context`` (the block built from these hits) each hit says whether it is in the
    block and by which rule (relevant, companion, standing fact...) or why it is left out;
    without it, a hit below the floor is only marked so.
    """
    roles = _roles(context)
    return render(
        "_hits.html",
        hits=[(hit, hit_bars(hit), roles.get(hit.memory.id)) for hit in hits],
        query=query,
        floor=floor,
        with_context=context is not None,
    )


def context_fragment(block: str, *, query: str = "", context: MemoryContext | None = None) -> str:
    """The exact context block an agent's system prompt would receive.

    With ``context`` (:func:`~langgraph_prax_memory.context.assemble_context`'s result for
    ``block``), each line is listed with the rule that put it there, then each recalled hit
    left out with why not.
    """
    return render(
        "_context.html",
        block=block,
        query=query,
        lines=context.lines if context is not None else (),
        omitted=context.omitted if context is not None else (),
    )


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
    lx: float = 0.0
    ly: float = 0.0
    anchor: str = "middle"


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


#: Font sizes (px) of the picture's node and edge labels (the stylesheet's).
_NODE_FONT = 11.0
_EDGE_FONT = 10.0
_NODE_LABEL_CHARS = 28
_EDGE_LABEL_CHARS = 24
Box = tuple[float, float, float, float]


def _text_width(text: str, size: float) -> float:
    """A generous estimate of ``text``'s drawn width at ``size`` px (no font is measured).

    Per character class, at the widest of the sans-serif fonts a browser picks here
    (DejaVu Sans): wide capitals, other capitals and digits, narrow letters, the rest; a
    character of a wide script (CJK) a full em.
    """
    em = 0.0
    for ch in text:
        if ch in "MWmw@%":
            em += 0.95
        elif ch.isupper() or ch.isdigit():
            em += 0.74
        elif ch in "iljtf.,:;'|!() ":
            em += 0.4
        elif ord(ch) >= 0x1100:
            em += 1.05
        else:
            em += 0.64
    return em * size + 2.0


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _inside(box: Box, width: float, height: float) -> bool:
    return box[0] >= 1 and box[1] >= 1 and box[2] <= width - 1 and box[3] <= height - 1


def _label_box(x: float, y: float, w: float, size: float, anchor: str) -> Box:
    """The box of a text drawn at ``(x, y)`` (its baseline) with ``anchor``."""
    left = {"start": x, "middle": x - w / 2, "end": x - w}[anchor]
    return (left, y - size, left + w, y + 0.3 * size)


class _Labels:
    """Labels placed one by one where they overlap no placed label and no node, in the picture.

    A label that fits nowhere is shortened, then left out (its node or edge keeps its
    hover title with the full text): a label is never drawn over another or cut by the edge.
    """

    def __init__(self, width: float, height: float, circles: Sequence[Box]) -> None:
        self.width, self.height = width, height
        self.placed: list[Box] = []
        self.circles = list(circles)

    def _free(self, box: Box, own: Box | None) -> bool:
        return (
            _inside(box, self.width, self.height)
            and not any(_overlaps(box, b) for b in self.placed)
            and not any(_overlaps(box, c) for c in self.circles if c != own)
        )

    def place(
        self,
        text: str,
        size: float,
        spots: Sequence[tuple[float, float, str]],
        own: Box | None = None,
    ) -> tuple[str, float, float, str] | None:
        """The first free spot for ``text`` (then its shorter forms): text, x, y, anchor."""
        tries = [text]
        if len(text) > 12:
            tries.append(text[:11] + "…")
        for shown in tries:
            w = _text_width(shown, size)
            for x, y, anchor in spots:
                box = _label_box(x, y, w, size, anchor)
                if self._free(box, own):
                    self.placed.append(box)
                    return shown, x, y, anchor
        return None


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

    raw_nodes = []
    for ent in chosen:
        x, y = place(ent.name)
        raw_nodes.append(
            _Node(
                name=ent.name,
                label=ent.display_name[:_NODE_LABEL_CHARS],
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
    circle = {n.name: (n.x - n.r, n.y - n.r, n.x + n.r, n.y + n.r) for n in raw_nodes}
    labels = _Labels(_SVG_WIDTH, _SVG_HEIGHT, list(circle.values()))
    nodes = []
    for n in raw_nodes:  # the most important first: they get the best spots
        gap, f = n.r + 4, _NODE_FONT
        spots = [
            (n.x, n.y - gap, "middle"),
            (n.x, n.y + gap + f, "middle"),
            (n.x + gap, n.y + f / 3, "start"),
            (n.x - gap, n.y + f / 3, "end"),
            (n.x, n.y - gap - f - 2, "middle"),
            (n.x, n.y + gap + 2 * f + 2, "middle"),
            (n.x + gap, n.y - gap, "start"),
            (n.x - gap, n.y - gap, "end"),
            (n.x + gap, n.y + gap + f, "start"),
            (n.x - gap, n.y + gap + f, "end"),
        ]
        at = labels.place(n.label, f, spots, own=circle[n.name])
        if at is None:
            nodes.append(dataclasses.replace(n, label=""))
        else:
            shown, lx, ly, anchor = at
            nodes.append(
                dataclasses.replace(n, label=shown, lx=round(lx, 1), ly=round(ly, 1), anchor=anchor)
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
                label=rel.type[:_EDGE_LABEL_CHARS],
                title=(
                    f"{rel.source} —{rel.type}→ {rel.target} ({state}; valid "
                    f"{_interval(rel)}; weight {rel.weight:.2f})"
                ),
                lx=0.0,
                ly=0.0,
            )
        )
    placed_edges = []
    for e in sorted(edges, key=lambda e: not e.current):  # current labels placed first
        mx, my = (e.x1 + e.x2) / 2, (e.y1 + e.y2) / 2
        f = _EDGE_FONT
        spots = [
            (mx, my - 4, "middle"),
            (mx, my + f + 2, "middle"),
            (mx, my - f - 6, "middle"),
            (mx, my + 2 * f + 4, "middle"),
        ]
        at = labels.place(e.label, f, spots) if e.label else None
        if at is None:
            placed_edges.append(dataclasses.replace(e, label=""))
        else:
            shown, lx, ly, _ = at
            placed_edges.append(
                dataclasses.replace(e, label=shown, lx=round(lx, 1), ly=round(ly, 1))
            )
    edges = sorted(placed_edges, key=lambda e: e.current)  # current ones drawn on top
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
