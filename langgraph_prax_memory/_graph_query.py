"""Answer a natural-language question from a user's entity graph, without generated Cypher.

The path is fixed and inspectable: noun phrases of the question → entities of the graph
(exact canonical names first, then substring search) → their current relations and 1–2 hop
neighbourhood → a short, readable list of relations. No language model is involved, so the
answer can only ever contain what the graph holds for that user.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from langgraph_prax_memory._text import STOP_WORDS
from langgraph_prax_memory.graph import Entity, GraphStore, Relation

__all__ = ["GraphAnswer", "answer_graph_question", "describe_relation", "noun_phrases"]

_TOKEN = re.compile(r"[\w][\w\-.+#']*", re.UNICODE)
#: Words of a question about the graph that name no entity, beyond the shared stop words:
#: asking ("find", "show", "tell"), relating ("connected", "linked", "involving") and
#: quantifying ("many", "every"). Kept apart: in ``STOP_WORDS`` they would change the sparse
#: encoder and the intent weights too.
_QUESTION_WORDS = frozenset(
    [
        "among",
        "anything",
        "connect",
        "connected",
        "connection",
        "connections",
        "done",
        "else",
        "ever",
        "every",
        "everything",
        "find",
        "give",
        "involve",
        "involved",
        "involving",
        "know",
        "known",
        "knows",
        "link",
        "linked",
        "links",
        "many",
        "may",
        "might",
        "mine",
        "much",
        "must",
        "nothing",
        "onto",
        "others",
        "please",
        "really",
        "relate",
        "related",
        "relation",
        "relations",
        "relationship",
        "relationships",
        "shall",
        "show",
        "something",
        "still",
        "tell",
        "via",
        "whose",
    ]
)
#: What never starts or ends a candidate phrase. Besides the question words it holds every
#: shared stop word, so "after", "before", "now", "only" or "up" split phrases here too.
_STOPWORDS = STOP_WORDS | _QUESTION_WORDS
_MAX_PHRASE_WORDS = 4
_SEARCH_MIN_CHARS = 3


def noun_phrases(question: str) -> list[str]:
    """Candidate entity names in ``question``: runs of content words and their n-grams.

    Longest candidates come first so that "research project" is tried before "project".

    Example:
        >>> noun_phrases("How are quantum computing and my research project connected?")[:3]
        ['quantum computing', 'research project', 'quantum']
    """
    runs: list[list[str]] = []
    current: list[str] = []
    for raw in _TOKEN.findall(question):
        token = raw.strip(".'").lower()
        if not token or token in _STOPWORDS:
            if current:
                runs.append(current)
                current = []
            continue
        current.append(token)
    if current:
        runs.append(current)
    seen: set[str] = set()
    out: list[tuple[int, int, str]] = []
    for order, run in enumerate(runs):
        for size in range(min(len(run), _MAX_PHRASE_WORDS), 0, -1):
            for start in range(len(run) - size + 1):
                phrase = " ".join(run[start : start + size])
                if phrase not in seen:
                    seen.add(phrase)
                    out.append((-size, order * 100 + start, phrase))
    out.sort()
    return [phrase for _, _, phrase in out]


def describe_relation(rel: Relation) -> str:
    """One line for a relation: ``source —type→ target`` plus weight and validity.

    Example:
        >>> from datetime import UTC, datetime
        >>> now = datetime(2026, 4, 2, tzinfo=UTC)
        >>> rel = Relation(id="r", user_id="u", source="alice", target="prax",
        ...     source_id="a", target_id="p", type="works_on", weight=2.0, evidence="",
        ...     first_seen=now, last_seen=now, valid_from=now)
        >>> describe_relation(rel)
        'alice —works_on→ prax (weight 2, since 2026-04-02)'
    """
    line = (
        f"{rel.source} —{rel.type}→ {rel.target} "
        f"(weight {rel.weight:g}, since {rel.valid_from.date().isoformat()}"
    )
    if rel.valid_until is not None:
        line += f", until {rel.valid_until.date().isoformat()}"
    return line + ")"


@dataclass
class GraphAnswer:
    """What :func:`answer_graph_question` found.

    Attributes:
        question: The question as asked.
        phrases: Candidate phrases extracted from it.
        entities: Entities the question was matched to (in question order).
        connections: Relations that directly link two matched entities.
        bridges: ``(a, via, b)`` canonical names: two matched entities sharing a neighbour.
        relations: The current relations around the matched entities (deduplicated).
    """

    question: str
    phrases: list[str]
    entities: list[Entity] = field(default_factory=list)
    connections: list[Relation] = field(default_factory=list)
    bridges: list[tuple[str, str, str]] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)

    def to_text(self, *, max_relations: int = 15) -> str:
        """A readable answer for a model or a person."""
        if not self.entities:
            return (
                "No matching entities in the memory graph for this question "
                f"(looked for: {', '.join(self.phrases[:8]) or 'nothing usable'})."
            )
        lines = ["Entities: " + ", ".join(f"{e.display_name} ({e.type})" for e in self.entities)]
        if self.connections:
            lines.append("Direct connections:")
            lines.extend(f"- {describe_relation(r)}" for r in self.connections)
        if self.bridges:
            lines.append("Connected through a shared neighbour:")
            lines.extend(f"- {a} ↔ {via} ↔ {b}" for a, via, b in self.bridges)
        others = [r for r in self.relations if r not in self.connections]
        if others:
            lines.append("Relations:")
            lines.extend(f"- {describe_relation(r)}" for r in others[:max_relations])
            if len(others) > max_relations:
                lines.append(f"- … and {len(others) - max_relations} more")
        if len(lines) == 1:
            lines.append("No current relations are recorded for these entities.")
        return "\n".join(lines)


def _match_entities(graph: GraphStore, user_id: str, phrases: Sequence[str]) -> list[Entity]:
    exact = graph.entity_ids_for(user_id, phrases) if phrases else {}
    chosen: list[str] = []
    for phrase in phrases:
        if phrase in exact and not any(phrase in c.split() or phrase in c for c in chosen):
            chosen.append(phrase)
    entities: dict[str, Entity] = {}
    for name in chosen:
        found = graph.get_entity(user_id, name)
        if found is not None:
            entities.setdefault(found.entity.id, found.entity)
    if not entities:
        covered = " ".join(chosen)
        for phrase in phrases:
            if " " in phrase or len(phrase) < _SEARCH_MIN_CHARS or phrase in covered:
                continue
            for ent in graph.search_entities(user_id, phrase, limit=2):
                entities.setdefault(ent.id, ent)
    return list(entities.values())


def _unique(relations: Iterable[Relation]) -> list[Relation]:
    seen: set[str] = set()
    out: list[Relation] = []
    for rel in relations:
        if rel.id not in seen:
            seen.add(rel.id)
            out.append(rel)
    return out


def answer_graph_question(graph: GraphStore, user_id: str, question: str) -> GraphAnswer:
    """Answer ``question`` from ``user_id``'s graph: phrases → entities → neighbourhood.

    Example:
        >>> from langgraph_prax_memory.graph import SQLiteGraphStore
        >>> g = SQLiteGraphStore(":memory:")
        >>> _ = g.add_relation("u", "research project", "quantum computing", "related_to")
        >>> ans = answer_graph_question(g, "u", "How are quantum computing and my research "
        ...                             "project connected?")
        >>> [e.name for e in ans.entities], len(ans.connections)
        (['quantum computing', 'research project'], 1)
    """
    phrases = noun_phrases(question)
    answer = GraphAnswer(question=question, phrases=phrases)
    answer.entities = _match_entities(graph, user_id, phrases)
    names = {e.name for e in answer.entities}
    relations: list[Relation] = []
    for ent in answer.entities:
        found = graph.get_entity(user_id, ent.name)
        if found is not None:
            relations.extend(found.relations)
    answer.relations = _unique(relations)
    answer.connections = [r for r in answer.relations if r.source in names and r.target in names]
    if len(answer.entities) >= 2:
        around = {
            e.name: {n.entity.name for n in graph.get_neighbours(user_id, e.name, hops=1)}
            for e in answer.entities
        }
        ordered = [e.name for e in answer.entities]
        for i, a in enumerate(ordered):
            for b in ordered[i + 1 :]:
                for via in sorted((around[a] & around[b]) - names):
                    answer.bridges.append((a, via, b))
    return answer
