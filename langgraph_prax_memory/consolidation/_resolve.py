"""Entity resolution and slot supersession of one batch's extraction, against the user's graph.

Runs between the confidence gate and the graph upsert, on what any extractor returned:

* **aliases** — partial names of one person merge into one entity: "Alice", "Alice Smith" and
  "Alice S." (a first name, the full name, the first name and an initial) become the entity
  that already exists in the user's graph, else the fullest form in the batch. A first name
  that fits two full names ("Alice Smith", "Alice Jones") is left alone. The mentions are kept
  as evidence: the canonical entity's ``aliases`` property lists every other form seen, and
  relations, facts, events and causal links are rewritten to the canonical name.
* **slot supersession** — a rule-based relation whose ``supersedes`` is
  :data:`~langgraph_prax_memory.consolidation._rules.SUPERSEDES_CURRENT` ("I now prefer light
  mode": the old value is not named) gets the concrete old target(s): the current targets of
  the same ``source -[type]->`` edge in the graph and earlier in the batch that fill the same
  *slot* as the new one (one current value for single-valued relations such as
  ``lives_in``; for the others, a value of the same category — two editors, two colour
  schemes, two drinks — or with the same head noun: "dark mode" / "light mode"). Nothing of
  the same slot: nothing is superseded.

Only the graph's public methods are used (``search_entities``, ``get_entity``,
``current_targets``), so it works on every backend.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping

from langgraph_prax_memory.consolidation._models import (
    ExtractedEntity,
    ExtractedRelation,
    Extraction,
)
from langgraph_prax_memory.consolidation._rule_patterns import DIETS
from langgraph_prax_memory.consolidation._rules import SINGLE_VALUED, SUPERSEDES_CURRENT
from langgraph_prax_memory.graph import GraphStore

__all__ = ["CATEGORIES", "resolve_extraction", "same_slot"]

logger = logging.getLogger(__name__)

#: Values that fill the same slot of a preference: a new one of a category replaces the old.
CATEGORIES: dict[str, frozenset[str]] = {
    name: frozenset(terms.split("|"))
    for name, terms in {
        "editor": "vim|neovim|emacs|vs code|vscode|visual studio code|helix|zed|sublime|"
        "sublime text|intellij|pycharm|nano|atom|cursor|webstorm|xcode",
        "colour scheme": "dark mode|light mode|dark theme|light theme|dark|light|"
        "high contrast|solarized|dracula|monokai",
        "drink": "coffee|tea|green tea|black tea|espresso|matcha|decaf|herbal tea|mate|"
        "hot chocolate|cold brew|water|juice|soda|beer|wine",
        "browser": "firefox|chrome|safari|brave|edge|arc|opera|vivaldi|chromium",
        "os": "linux|macos|windows|ubuntu|debian|fedora|arch|nixos|mac|freebsd",
        "shell": "bash|zsh|fish|powershell|nushell",
        "language": "python|rust|go|golang|javascript|typescript|java|kotlin|swift|c|c++|"
        "c#|ruby|php|elixir|haskell|scala|julia|clojure|zig|ocaml",
        "database": "postgres|postgresql|mysql|sqlite|mongodb|redis|mariadb|cassandra|"
        "dynamodb|neo4j|duckdb",
        "cloud": "aws|gcp|azure|digitalocean|hetzner|fly.io|vercel|netlify|heroku",
        "package manager": "pip|poetry|uv|conda|pipenv|npm|yarn|pnpm|bun",
        "indentation": "tabs|spaces|2 spaces|4 spaces|two spaces|four spaces",
        "tracker": "jira|linear|trello|asana|github issues|notion|clickup",
        "chat": "slack|discord|teams|microsoft teams|zulip|mattermost|email|phone|whatsapp|"
        "signal|telegram",
        "frontend": "react|vue|svelte|angular|solid|htmx",
        "diet": "meat|fish|" + DIETS.replace("-", " "),  # one list of diets (the extractor's)
        "transport": "bike|car|train|bus|subway|metro|scooter|walking|cycling|driving",
        "time of day": "mornings|evenings|nights|afternoons|morning|evening|night|afternoon",
        "music": "jazz|rock|pop|classical|hip hop|techno|metal|folk|blues|country|podcasts",
        "exercise": "running|swimming|cycling|yoga|climbing|lifting|pilates|boxing|tennis",
        "notes": "obsidian|notion|evernote|logseq|bear|apple notes|onenote|roam",
    }.items()
}
_STOP_HEAD = frozenset(
    {"the", "a", "an", "my", "of", "for", "in", "on", "with", "and", "or", "to", "all"}
    | {"some", "every", "tools", "tool", "stuff", "things"}
)
#: A trailing word that names the slot rather than the value ("the Dracula theme").
_GENERIC_TAIL = re.compile(
    r"\s+(?:theme|app|editor|browser|shell|language|database|db|os|tool|client|ide)$"
)
_INITIAL = re.compile(r"^[A-Z]\.?$")
_NAME_TOKEN = re.compile(r"^[A-Z][a-z'’-]+$")


def _norm(text: str) -> str:
    return " ".join(text.lower().replace("-", " ").split())


def _head(text: str) -> str | None:
    words = [w for w in _norm(text).split() if w not in _STOP_HEAD]
    return words[-1] if len(words) >= 2 else None


def same_slot(old: str, new: str) -> bool:
    """Whether ``new`` replaces ``old`` as the value of one preference.

    Same category of :data:`CATEGORIES`, or two multi-word values with the same head noun.

    Example:
        >>> same_slot("dark mode", "light mode"), same_slot("VS Code", "Neovim")
        (True, True)
        >>> same_slot("Python", "light mode")
        False
    """
    a, b = _norm(old), _norm(new)
    if a == b:
        return False
    bare_a, bare_b = _GENERIC_TAIL.sub("", a), _GENERIC_TAIL.sub("", b)
    for terms in CATEGORIES.values():
        if (a in terms or bare_a in terms) and (b in terms or bare_b in terms):
            return True
    head_a, head_b = _head(a), _head(b)
    return head_a is not None and head_a == head_b


# -- aliases ------------------------------------------------------------------------------
def _tokens(name: str) -> list[str] | None:
    """The tokens of a personal name ("Alice", "Alice Smith", "Alice S."), else None."""
    words = name.replace(".", ". ").split()
    words = [w.rstrip(".") + ("." if w.endswith(".") else "") for w in words]
    if not 1 <= len(words) <= 3:
        return None
    if not _NAME_TOKEN.match(words[0]):
        return None
    for w in words[1:]:
        if not (_NAME_TOKEN.match(w) or _INITIAL.match(w)):
            return None
    return [w.rstrip(".") for w in words]


def _compatible(a: list[str], b: list[str]) -> bool:
    if a[0].lower() != b[0].lower():
        return False
    for x, y in zip(a[1:], b[1:], strict=False):
        if len(x) == 1 or len(y) == 1:
            if x[0].lower() != y[0].lower():
                return False
        elif x.lower() != y.lower():
            return False
    return True


def _full(tokens: list[str]) -> bool:
    return len(tokens) >= 2 and all(len(t) > 1 for t in tokens)


class _Known:
    """A personal name known in the graph or in the batch."""

    __slots__ = ("aliases", "in_graph", "name", "person", "tokens")

    def __init__(
        self, name: str, tokens: list[str], *, person: bool, in_graph: bool, aliases: list[str]
    ) -> None:
        self.name = name
        self.tokens = tokens
        self.person = person
        self.in_graph = in_graph
        self.aliases = aliases


def _graph_names(graph: GraphStore, user_id: str, firsts: Iterable[str]) -> list[_Known]:
    out: list[_Known] = []
    seen: set[str] = set()
    for first in sorted(set(firsts)):
        for ent in graph.search_entities(user_id, first, limit=25):
            tokens = _tokens(ent.display_name)
            if tokens is None or tokens[0].lower() != first.lower() or ent.name in seen:
                continue
            if ent.type not in ("person", "concept"):
                continue
            seen.add(ent.name)
            raw = ent.properties.get("aliases") if ent.properties else None
            aliases = [str(a) for a in raw] if isinstance(raw, list) else []
            out.append(
                _Known(
                    ent.display_name,
                    tokens,
                    person=ent.type == "person",
                    in_graph=True,
                    aliases=aliases,
                )
            )
    return out


def _alias_map(
    graph: GraphStore | None, user_id: str, ext: Extraction
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """{mention (lower) → canonical name} and {canonical name → aliases to record}."""
    batch: list[_Known] = []
    for ent in ext.entities:
        name = (ent.display_name or ent.name).strip()
        tokens = _tokens(name)
        if tokens is None or ent.type not in ("person", "concept"):
            continue
        batch.append(_Known(name, tokens, person=ent.type == "person", in_graph=False, aliases=[]))
    if not batch:
        return {}, {}
    known: list[_Known] = []
    if graph is not None:
        known = _graph_names(graph, user_id, (k.tokens[0] for k in batch))
    in_graph = {k.name.lower() for k in known}
    known += [k for k in batch if k.name.lower() not in in_graph]
    mapping: dict[str, str] = {}
    aliases: dict[str, list[str]] = {}
    for mention in batch:
        group = [k for k in known if _compatible(mention.tokens, k.tokens)]
        fulls = {" ".join(t.lower() for t in k.tokens) for k in group if _full(k.tokens)}
        if len(fulls) > 1 and not _full(mention.tokens):
            continue  # "Alice" fits "Alice Smith" and "Alice Jones": ambiguous
        if len(fulls) > 1:
            group = [
                k for k in group if not _full(k.tokens) or k.name.lower() == mention.name.lower()
            ]
        if len(group) < 2:
            continue
        personal = any(k.person for k in group) or any(
            len(t) == 1 for k in group for t in k.tokens[1:]
        )
        if not personal:
            continue  # "Prax" and "Prax Memory" are not a person's names
        canonical = max(
            group, key=lambda k: (k.in_graph, _full(k.tokens), len(k.tokens), len(k.name))
        )
        if canonical.name.lower() == mention.name.lower():
            continue
        mapping[mention.name.lower()] = canonical.name
        recorded = aliases.setdefault(canonical.name, list(canonical.aliases))
        if mention.name not in recorded:
            recorded.append(mention.name)
    return mapping, aliases


def _rename(ext: Extraction, mapping: Mapping[str, str]) -> Extraction:
    def n(name: str) -> str:
        return mapping.get(name.strip().lower(), name)

    def ns(names: Iterable[str]) -> list[str]:
        return list(dict.fromkeys(n(x) for x in names))

    entities: dict[str, ExtractedEntity] = {}
    for ent in ext.entities:
        name = n(ent.display_name or ent.name)
        old = entities.get(name.lower())
        ent = ent.model_copy(update={"name": name, "display_name": None})
        if old is not None:
            person = "person" in (old.type, ent.type)
            ent = old.model_copy(
                update={
                    "type": "person" if person else old.type,
                    "importance": max(old.importance, ent.importance),
                    "confidence": max(old.confidence, ent.confidence),
                }
            )
        elif any(mapping.get(k) == name for k in mapping):
            ent = ent.model_copy(update={"type": "person"})
        entities[name.lower()] = ent
    relations = []
    for rel in ext.relations:
        src, dst = n(rel.source), n(rel.target)
        if src.lower() == dst.lower():
            continue  # "Alice S. mentioned_with Alice Smith": one person now
        sup = (
            n(rel.supersedes)
            if rel.supersedes and rel.supersedes != SUPERSEDES_CURRENT
            else (rel.supersedes)
        )
        relations.append(rel.model_copy(update={"source": src, "target": dst, "supersedes": sup}))
    return ext.model_copy(
        update={
            "entities": list(entities.values()),
            "relations": relations,
            "facts": [f.model_copy(update={"entities": ns(f.entities)}) for f in ext.facts],
            "temporal_events": [
                e.model_copy(update={"participants": ns(e.participants)})
                for e in ext.temporal_events
            ],
            "causal_links": [
                c.model_copy(
                    update={
                        "cause_entities": ns(c.cause_entities),
                        "effect_entities": ns(c.effect_entities),
                    }
                )
                for c in ext.causal_links
            ],
        }
    )


# -- slots ---------------------------------------------------------------------------------
def _resolve_slots(graph: GraphStore | None, user_id: str, ext: Extraction) -> Extraction:
    if not any(r.supersedes == SUPERSEDES_CURRENT for r in ext.relations):
        return ext
    vocab = graph.vocabulary.relation_types if graph is not None else frozenset()
    out: list[ExtractedRelation] = []
    cache: dict[tuple[str, str], list[str]] = {}
    for rel in ext.relations:
        if rel.supersedes != SUPERSEDES_CURRENT:
            out.append(rel)
            continue
        key = (rel.source.strip().lower(), rel.type)
        if key not in cache:
            current: list[str] = []
            if graph is not None and rel.type in vocab:
                current = [e.display_name for e in graph.current_targets(user_id, *key)]
            cache[key] = current
        olds = list(cache[key])
        for earlier in out:  # values stated earlier in the batch, not closed since
            if (earlier.source.strip().lower(), earlier.type) != key:
                continue
            if earlier.supersedes:
                olds = [o for o in olds if _norm(o) != _norm(earlier.supersedes)]
            if earlier.supersedes is None or _norm(earlier.supersedes) != _norm(earlier.target):
                olds.append(earlier.target)
        new = _norm(rel.target)
        olds = list(dict.fromkeys(o for o in olds if _norm(o) != new))
        if rel.type not in SINGLE_VALUED:
            olds = [o for o in olds if same_slot(o, rel.target)]
        for extra in olds[1:]:  # more than one old value: close the others
            out.append(rel.model_copy(update={"target": extra, "supersedes": extra}))
        out.append(rel.model_copy(update={"supersedes": olds[0] if olds else None}))
    return ext.model_copy(update={"relations": out})


def resolve_extraction(graph: GraphStore | None, user_id: str, ext: Extraction) -> Extraction:
    """Merge aliases into canonical entities and name what "now X" supersedes.

    Args:
        graph: The user's graph (``None``: resolve within the batch only).
        user_id: Whose graph.
        ext: One batch's extraction (after the gate).

    Returns:
        A new :class:`Extraction`; entities that absorbed an alias carry
        ``properties={"aliases": [...]}``.

    Example:
        >>> from langgraph_prax_memory.consolidation import RuleBasedExtractor
        >>> out = RuleBasedExtractor().extract(
        ...     ["user: My colleague Alice Smith called. Alice S. said Alice will come."])
        >>> sorted(e.name for e in resolve_extraction(None, "u1", out).entities)
        ['Alice Smith', 'User']
    """
    mapping, aliases = _alias_map(graph, user_id, ext)
    if mapping:
        ext = _rename(ext, mapping)
        entities = []
        for ent in ext.entities:
            names = aliases.get(ent.name)
            if names:
                props = {**ent.properties, "aliases": sorted(set(names))}
                ent = ent.model_copy(update={"properties": props})
            entities.append(ent)
        ext = ext.model_copy(update={"entities": entities})
        logger.debug("resolved aliases of %r: %s", user_id, mapping)
    return _resolve_slots(graph, user_id, ext)
