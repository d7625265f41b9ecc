"""Query intent → arm weights: a cheap heuristic, no LLM call (the seed's Step 1)."""

from __future__ import annotations

import re
from typing import Literal

from langgraph_prax_memory._text import STOP_WORDS
from langgraph_prax_memory.config import RetrievalConfig

__all__ = ["ARMS", "Intent", "RetrievalConfig", "arm_weights", "classify_intent", "query_phrases"]

Intent = Literal["identifier", "entity", "semantic", "neutral"]
ARMS = ("dense", "sparse", "graph")

_QUOTED = re.compile(r"\"([^\"]{1,200})\"|“([^”]{1,200})”|'([^']{2,200})'")
# E-4012, v1.2.3, snake_case, camelCase, ABC123, path/like, #123
_IDENTIFIER = re.compile(
    r"\b(?:[A-Za-z]+[-_][A-Za-z0-9_-]*\d[A-Za-z0-9_-]*|[A-Z]{2,}\d+|[a-z]+[A-Z]\w*|\w+_\w+|"
    r"v?\d+\.\d+(?:\.\d+)*)\b|#\d+"
)
_CAPITALISED = re.compile(r"\b[A-Z][a-zA-Z]+(?:\s+[A-Z][a-zA-Z]+)*")
_OPEN_ENDED = re.compile(
    r"^\s*(how|why|what do you think|what do i think|tell me about|describe|explain|"
    r"what (?:is|are) (?:my|the) (?:feelings?|thoughts?|opinions?|views?)|"
    r"how do (?:you|i) feel|what kind of|in what way)\b",
    re.I,
)
_QUESTION_WORDS = frozenset(
    [
        "what",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "which",
        "did",
        "does",
        "do",
        "is",
        "are",
        "was",
        "were",
        "can",
        "could",
        "would",
        "should",
        "will",
        "tell",
        "describe",
        "explain",
        "i",
        "my",
        "me",
        "you",
        "your",
    ]
)


def query_phrases(query: str, *, limit: int = 8) -> list[str]:
    """Key phrases of a query: quoted strings, capitalised names, then content words.

    Example:
        >>> query_phrases('How are Alice and Bob related to "Project X"?')
        ['Project X', 'Alice', 'Bob', 'related']
    """
    out: list[str] = []

    def add(p: str) -> None:
        p = p.strip(" \t\n.,;:!?\"'“”")
        low = f" {p.lower()} "
        if p and not any(low in f" {o.lower()} " for o in out):
            out.append(p)

    for m in _QUOTED.finditer(query):
        add(next(g for g in m.groups() if g))
    for m in _CAPITALISED.finditer(query):
        words = [w for w in m.group(0).split() if w.lower() not in _QUESTION_WORDS]
        if words:
            add(" ".join(words))
    for word in re.findall(r"[A-Za-z0-9][\w-]*", query):
        low = word.lower()
        content = low not in STOP_WORDS and low not in _QUESTION_WORDS and len(low) > 2
        if content and not any(low in o.lower().split() for o in out):
            add(word)
    return out[:limit]


def classify_intent(query: str) -> Intent:
    """The query's intent: ``identifier``, ``entity``, ``semantic`` or ``neutral``.

    Example:
        >>> classify_intent('error "E-4012"'), classify_intent("How are Alice and Bob related?")
        ('identifier', 'entity')
        >>> classify_intent("How do you feel about the approach?"), classify_intent("memory test")
        ('semantic', 'neutral')
    """
    if _QUOTED.search(query) or _IDENTIFIER.search(query):
        return "identifier"
    names = [
        w
        for m in _CAPITALISED.finditer(query)
        for w in m.group(0).split()
        if w.lower() not in _QUESTION_WORDS and w.lower() not in STOP_WORDS
    ]
    # a capitalised first word is only a name if it is not a question word
    if names:
        return "entity"
    if _OPEN_ENDED.search(query):
        return "semantic"
    return "neutral"


def arm_weights(query: str, config: RetrievalConfig) -> tuple[Intent, dict[str, float]]:
    """The intent of ``query`` and the arm weights configured for it."""
    intent = classify_intent(query)
    table = config.weights.get(intent) or config.weights.get("neutral") or {}
    return intent, {arm: float(table.get(arm, 1.0)) for arm in ARMS}
