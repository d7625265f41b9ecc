"""The keyword arm's query terms, shared by the SQLite and Neo4j knowledge stores.

A query becomes a few terms, each a list of lower-case variants (any one matching counts);
the words dropped are the package's shared stop words (``_text.STOP_WORDS``, also used by the
sparse encoder) plus a few verbs of questions about documents (:data:`QUERY_STOP_WORDS`).
"""

from __future__ import annotations

import re

from langgraph_prax_memory._text import STOP_WORDS

_WORD = re.compile(r"[^\W_][\w.\-+#]*", re.UNICODE)
#: Words a knowledge query drops: the shared stop words and the verbs of a question about a
#: document ("what does the paper *say*", "*tell* me", "*show*", "do you *know*"). They stay
#: out of ``_text.STOP_WORDS`` because the sparse encoder indexes memories with that list.
QUERY_STOP_WORDS: frozenset[str] = STOP_WORDS | {"say", "says", "know", "tell", "show"}
MAX_SEARCH_TERMS = 8


def _singular(word: str) -> str | None:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return None


def search_terms(query: str) -> list[list[str]]:
    """The keyword arm's terms: each a list of lower-case variants (any one matching counts).

    The whole phrase (when it has several words) is one term, then each non-stop-word token
    with its singular form and its ``-``/``_``-to-space form; at most 8 terms.

    Example:
        >>> search_terms("How do attention heads work?")
        [['attention heads work'], ['attention'], ['heads', 'head'], ['work']]
    """
    text = query.lower().strip()
    words = [w.strip(".-") for w in _WORD.findall(text)]
    words = [w for w in words if w and (len(w) > 1 or w.isdigit()) and w not in QUERY_STOP_WORDS]
    terms: list[list[str]] = []
    if len(words) > 1:
        terms.append([" ".join(words)[:200]])
    seen: set[str] = set()
    for word in words:
        if word in seen:
            continue
        seen.add(word)
        variants = [word[:200]]
        single = _singular(word)
        if single:
            variants.append(single)
        if "-" in word or "_" in word:
            variants.append(re.sub(r"[-_]+", " ", word))
        terms.append(variants)
        if len(terms) >= MAX_SEARCH_TERMS:
            break
    if not terms and text:
        terms.append([text[:200]])
    return terms


def exact_key(query: str) -> str:
    """The query as a canonical concept name (for the exact-name tie-break)."""
    return " ".join(query.split()).lower()[:512]
