"""Evidence weighed by what it tells apart within one user's memories (pure functions).

Keyword coverage and graph matches lower the relevance bar a memory's cosine must reach. A
word that nearly every memory of the user holds (their name, "User", the family's surname)
says nothing about *which* memory answers, so it must lower no bar and lift no score:

* :func:`term_weights`: a question word held by more than half of the user's memories
  weighs less and less (``min(1, 2 (1 − df/N))²``): 0 in every memory, ¼ in three in four,
  full weight in at most half of them. With fewer than :data:`MIN_MEMORIES` memories there is
  nothing to tell apart yet and every word weighs 1 (the plain share, as before).
* :func:`weighted_coverage` / :func:`weighted_pair_coverage`: the share of the question's
  weight a memory holds (the plain share when every weight is 1).
* :func:`off_subject`: a memory whose subject is another named person than the one the
  question asks about is not a match for it ("Noah is allergic to pollen" for "What is Carol
  allergic to?"), however close its words and meaning are.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence

from langgraph_prax_memory.embeddings import partial_cosines
from langgraph_prax_memory.facts import query_names, question_names, subject_of
from langgraph_prax_memory.retrieval._persons import (
    Asked,
    Person,
    about_other_person,
    asked_people,
    named_readings,
    person_of,
    words_after,
)
from langgraph_prax_memory.vectors import StoredPoint

__all__ = [
    "MIN_MEMORIES",
    "SHARED",
    "QuestionTerms",
    "without_shared_names",
    "asked_names",
    "best_of",
    "people_of",
    "off_subject",
    "partial_cosines",
    "query_names",
    "subject_of",
    "term_weights",
    "weighted_coverage",
    "weighted_pair_coverage",
]

#: Below this many memories, document frequencies tell nothing apart: every word weighs 1.
MIN_MEMORIES = 5
#: A name held by at least this share of the user's memories is what they share, not what
#: tells them apart: the question's meaning is read without it (:func:`without_shared_names`).
SHARED = 0.75


def term_weights(frequencies: Mapping[str, int], total: int) -> dict[str, float]:
    """Each term's weight ``min(1, 2 (1 − df/N))²`` from its frequency among ``total`` memories.

    A word in at most half of the memories keeps its full weight (it tells apart at least
    as many memories as it joins: the two speakers of a conversation); above half it weighs
    less and less, quickly, down to 0 for a word in every memory (their person's name).

    Example:
        >>> w = term_weights({"alice": 40, "allerg": 1, "dog": 20, "tea": 30}, 40)
        >>> w["alice"], w["allerg"], w["dog"], w["tea"]
        (0.0, 1.0, 1.0, 0.25)
        >>> term_weights({"alice": 3}, 3)
        {'alice': 1.0}
    """
    if total < MIN_MEMORIES:
        return {t: 1.0 for t in frequencies}
    return {t: min(1.0, 2.0 * (1.0 - min(df, total) / total)) ** 2 for t, df in frequencies.items()}


def weighted_coverage(
    query_terms: Collection[str], doc_terms: Collection[str], weights: Mapping[str, float]
) -> float:
    """The share of the question's term weight that the memory holds, in [0, 1].

    A term without a weight weighs 1. When every term of the question weighs 0 (each is in
    every memory), no memory is told apart: 0.

    Example:
        >>> weighted_coverage({"alice", "allerg"}, {"alice", "dog"}, {"alice": 0.0})
        0.0
        >>> weighted_coverage({"alice", "allerg"}, {"alice", "allerg"}, {"alice": 0.0})
        1.0
        >>> weighted_coverage({"dark", "mode"}, {"dark"}, {})
        0.5
    """
    return QuestionTerms(query_terms, weights).coverage(doc_terms)


def weighted_pair_coverage(
    query_terms: Collection[str], doc_terms: Collection[str], weights: Mapping[str, float]
) -> float:
    """The share of the question's word pairs (each weighed by its two words) held together.

    With every weight 1 it is ``m (m − 1) / (n (n − 1))`` (see ``keyword_pair_coverage``).

    Example:
        >>> weighted_pair_coverage({"tom", "son", "old"}, {"tom", "son"}, {})
        0.3333333333333333
        >>> weighted_pair_coverage({"tom", "son", "old"}, {"tom", "son"}, {"tom": 0.0})
        0.0
    """
    return QuestionTerms(query_terms, weights).pairs(doc_terms)


class QuestionTerms:
    """A question's terms and their weights, summed once for all of its candidates.

    :meth:`coverage` is :func:`weighted_coverage` and :meth:`pairs`
    :func:`weighted_pair_coverage` for one memory's terms: the question's totals (its
    weight, the weight of its pairs) are the same for every candidate, so a recall sums them
    once rather than once per candidate. The sums run in the same order as ever, so every
    value is the same to the last bit.

    Example:
        >>> q = QuestionTerms({"tom", "son", "old"}, {"tom": 0.5})
        >>> q.coverage({"tom", "son"}), q.pairs({"tom", "son"})
        (0.6, 0.25)
    """

    def __init__(self, query_terms: Collection[str], weights: Mapping[str, float]) -> None:
        self.terms = set(query_terms)
        self.weights = weights
        self._sorted = sorted(self.terms)
        self._total = sum(weights.get(t, 1.0) for t in self.terms)
        pair_total = 0.0
        for i, a in enumerate(self._sorted):
            for b in self._sorted[i + 1 :]:
                pair_total += weights.get(a, 1.0) * weights.get(b, 1.0)
        self._pair_total = pair_total

    def coverage(self, doc_terms: Collection[str]) -> float:
        """The share of the question's term weight that a memory holds, in [0, 1]."""
        if not self.terms:
            return 1.0
        if self._total <= 0:
            return 0.0
        held = sum(self.weights.get(t, 1.0) for t in self.terms & set(doc_terms))
        return min(1.0, held / self._total)

    def pairs(self, doc_terms: Collection[str]) -> float:
        """The share of the question's pair weight that a memory holds together."""
        terms = self._sorted
        if not terms:
            return 1.0
        held = set(doc_terms)
        if len(terms) == 1:
            return 1.0 if terms[0] in held else 0.0
        # the pairs of held terms, in the order the pairs of all terms are summed in
        inside = [t for t in terms if t in held]
        got = 0.0
        for i, a in enumerate(inside):
            for b in inside[i + 1 :]:
                got += self.weights.get(a, 1.0) * self.weights.get(b, 1.0)
        return got / self._pair_total if self._pair_total > 0 else 0.0


def asked_names(text: str, subjects: Collection[str]) -> set[str]:
    """The people (subjects of the user's memories) a question asks about.

    The question's names that some memory is about; a question in the first person also
    asks about the user, who, in memories written in the third person, is the subject most
    of them share (the commonest subject, when it opens at least a third of ``subjects``).

    Example:
        >>> sorted(asked_names("What is Carol allergic to?", ["carol", "carol", "noah"]))
        ['carol']
        >>> sorted(asked_names("Plan a dinner; Daan and I cook.", ["priya", "priya", "daan"]))
        ['daan', 'priya']
        >>> asked_names("Plan a dinner for Saturday.", ["priya", "daan"])
        set()
    """
    names, first_person = question_names(text)
    known = set(subjects)
    asked = names & known
    if asked and first_person and subjects:
        top, count = Counter(subjects).most_common(1)[0]
        if count * 3 >= len(subjects):
            asked.add(top)
    return asked


def without_shared_names(
    text: str,
    tokens: Callable[[str], Sequence[str]],
    frequencies: Mapping[str, int],
    total: int,
) -> tuple[str, list[str]]:
    """The question without the names most of the user's memories hold, and those names.

    "What is Alice allergic to?" over memories that each name Alice asks, among *her*
    memories, "What is allergic to?": the name is what they all share, so the embedding of
    the question must not lend every one of them its similarity (the dense arm and the graph
    arm read the question without it; the keyword arm weighs it by
    :func:`term_weights`). ``tokens`` maps a word to its keyword terms; a name is dropped
    when each of its terms is in at least :data:`SHARED` of the ``total`` memories. Nothing
    is dropped below :data:`MIN_MEMORIES` memories, or when nothing but names would remain.

    Example:
        >>> without_shared_names("What is Alice allergic to?", lambda w: [w.casefold()],
        ...                      {"alice": 18, "allergic": 1}, 18)
        ('What is allergic to?', ['Alice'])
    """
    if total < MIN_MEMORIES:
        return text, []
    names, _ = question_names(text)
    if not names:
        return text, []
    dropped: list[str] = []
    kept: list[str] = []
    opening = True
    for piece in re.split(r"(\s+)", text):
        word = piece.strip(".,;:!?\"'“”()")
        bare = word.replace("\u2019", "'").removesuffix("'s").removesuffix("'").casefold()
        terms = list(tokens(word)) if word else []
        shared = (
            not opening
            and bare in names
            and bool(terms)
            and all(frequencies.get(t, 0) >= SHARED * total for t in terms)
        )
        if shared:
            dropped.append(word.replace("\u2019", "'").removesuffix("'s"))
            kept.append(piece[len(piece.rstrip(".,;:!?")) :] if piece[-1:] in ".,;:!?" else "")
        else:
            kept.append(piece)
        if piece.strip():
            opening = piece.rstrip()[-1:] in ".!?"
    if not dropped:
        return text, []
    reduced = re.sub(r"\s+", " ", "".join(kept)).strip()
    reduced = re.sub(r"\s+([.,;:!?])", r"\1", reduced)
    if not any(t for t in tokens(reduced) if t not in frequencies or frequencies[t] < total):
        return text, []
    return reduced, dropped


@functools.lru_cache(maxsize=8192)
def _person(content: str) -> tuple[Person | None, frozenset[str]]:
    """:func:`person_of` and the memory's other words, once per memory text."""
    person = person_of(content)
    return person, frozenset(words_after(content, person) if person is not None else ())


def _shown(content: str, person: Person) -> str:
    words = content.strip().split()[: max(1, person.end)]
    return " ".join(words).rstrip(".,;:!?").replace("\u2019", "'")


def off_subject(
    text: str, contents: Mapping[str, str], terms: Mapping[str, Collection[str]] | None = None
) -> dict[str, str]:
    """Memories about another person than the one(s) the question asks about.

    ``contents``: each candidate memory's text by id. A memory is about the person it opens
    with, or about the person of that one's life it names ("Ingrid's husband Per ...": Per,
    another person than Ingrid); see :mod:`._persons`. The question asks about the persons it
    names that some memory is about, or whom one names ("Ingrid's husband"); in the first
    person also about the user (:func:`asked_names`). A memory answers for none of them
    unless it mentions one. ``terms`` is not read (the words after who the memory is about
    are). Returns an explanation by id.

    Example:
        >>> off_subject("What is Carol allergic to?",
        ...             {"1": "Carol is allergic to nuts.", "2": "Noah is allergic to pollen."})
        {'2': 'about Noah, the question asks about carol'}
        >>> off_subject("What does Ingrid do?",
        ...             {"1": "Ingrid is a ferry engineer.", "2": "Ingrid's husband Per teaches."})
        {'2': "about Ingrid's husband Per, the question asks about ingrid"}
    """
    persons = {mid: _person(content) for mid, content in contents.items()}
    owners = [p.owner for p, _ in persons.values() if p is not None]
    named: dict[str, set[tuple[str, tuple[str, str | None]]]] = {}
    for p, _ in persons.values():
        if p is not None and p.relation is not None and p.name is not None:
            named.setdefault(p.name, set()).add((p.owner, p.relation))
    asked = asked_people(text, set(owners) | set(named))
    if not asked:
        return {}
    # a question in the first person also asks about the user (the commonest subject)
    if question_names(text)[1] and owners:
        top, count = Counter(owners).most_common(1)[0]
        if count * 3 >= len(owners):
            asked = Asked(asked.names | {top}, asked.relations, asked.people_words)
    out: dict[str, str] = {}
    for mid, (person, words) in persons.items():
        if person is None or not about_other_person(person, words, asked, named):
            continue
        wanted = sorted(asked.names) + sorted(f"{o}'s {r[1] or r[0]}" for o, r in asked.relations)
        out[mid] = (
            f"about {_shown(contents[mid], person)}, the question asks about {', '.join(wanted)}"
        )
    return out


def people_of(text: str, contents: Mapping[str, str]) -> list[tuple[str, str]]:
    """Other readings of a question for the dense arm, each with the name it puts in.

    The persons it names by a relation, called by the name the user's memories give them
    (:func:`._persons.named_readings`): the dense arm reads each one too, that name taken out
    of its meaning as a shared name is (:func:`partial_cosines`), and each memory keeps its
    best reading (:func:`best_of`).

    Example:
        >>> people_of("Where does Ingrid's son live?", {"1": "Ingrid's son Ola is four."})
        [('Where does Ola live?', 'Ola')]
    """
    if "'" not in text and "\u2019" not in text:  # no possessive: no relation named
        return []
    people = {mid: _person(content)[0] for mid, content in contents.items()}
    return named_readings(text, people, contents)


def best_of(*arms: Sequence[StoredPoint]) -> list[StoredPoint]:
    """One dense arm from several readings of a question: each memory's best score, best first.

    Example:
        >>> a, b = StoredPoint("1", {}, 0.2), StoredPoint("2", {}, 0.5)
        >>> [p.id for p in best_of([a, b], [StoredPoint("1", {}, 0.7)])]
        ['1', '2']
    """
    best: dict[str, StoredPoint] = {}
    for points in arms:
        for p in points:
            if p.id not in best or (p.score or 0.0) > (best[p.id].score or 0.0):
                best[p.id] = p
    return sorted(best.values(), key=lambda p: -(p.score or 0.0))
