"""What attribute of a person a statement sets, and whether the attribute holds one value.

One place knows what an attribute is (issue 38): each attribute is a few statement templates
("User lives in {X}."), filled with a couple of values and embedded with the memory's own
model. A statement's attribute is its nearest template sentence, when that is at least as near as
the model's relevance floor. One reading alone is weak evidence (small talk about coffee
lands near "usual drink"), so a replacement asks for more (see
:meth:`~langgraph_prax_memory._classes.MemoryClasses.replace_by_attribute`): the new statement
a standing fact, the old one a standing fact read as the same attribute, the two near each
other, and their values apart. Nothing here is a
phrase list per change: "we finally moved into the new place in Leith" finds *home* by
meaning, "I'm at Globex now" finds *employer*.

A **single-valued** attribute (home, employer, partner, diet, editor, phone...) holds one
value at a time: a newer statement of another value replaces the older ones. A
**many-valued** one (hobbies, languages, pets, allergies, friends) only grows. An attribute's
*ending* templates ("User broke up with {X}.", "User quit the job at {X}.") record a change
that ends the value they name (or every value, when they name none); the statement stays
current itself (it is an event).

The *value* of a statement is what remains of its keyword terms once the attribute's own
template words are taken out ("User lives in Glasgow" → ``{"glasgow"}``): two statements of
one attribute state the same value when their values share a term.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from langgraph_prax_memory.facts._attribute_catalogue import ATTRIBUTES, ENDS, STATES, Attribute
from langgraph_prax_memory.facts._names import subject_of

__all__ = ["ATTRIBUTES", "Attribute", "AttributeModel", "Reading", "Statement"]

#: The words a statement about the person opens with (the memory's own subject).
_PERSON_WORDS = frozenset(["user", "i", "i'm", "i've", "my", "we", "our", "the user"])
#: The people of a person's life: "User's sister moved" is the sister's home, not the user's.
_OTHER_PEOPLE = frozenset(
    [
        "sister",
        "brother",
        "mother",
        "mum",
        "mom",
        "father",
        "dad",
        "parents",
        "parent",
        "son",
        "daughter",
        "kid",
        "kids",
        "child",
        "children",
        "friend",
        "friends",
        "colleague",
        "colleagues",
        "neighbour",
        "neighbor",
        "cousin",
        "aunt",
        "uncle",
        "grandmother",
        "grandma",
        "grandfather",
        "grandpa",
        "nephew",
        "niece",
        "flatmate",
        "roommate",
        "housemate",
        "sisters",
        "brothers",
        "sons",
        "daughters",
        "cousins",
    ]
)


#: A possessive of the other person: what a statement with it ends is theirs ("Tom quit his
#: job", "Ana broke up with her boyfriend"), not their relation to the person.
_THEIR_OWN = re.compile(r"\b(?:his|her)\b", re.I)


#: Where a statement's first clause ends.
_CLAUSE_END = re.compile(r"\s*[,;:]\s*|\s+(?:and|but|so|because)\s+", re.I)


def _names(text: str) -> frozenset[str]:
    """The names a statement mentions: capitalised words past its first ("User" aside).

    Example:
        >>> sorted(_names("So the Golf's gone and User is going car-free."))
        ['golf']
    """
    words = re.findall(r"[A-Za-z][\w'’-]*", text)
    out = set()
    for w in words[1:]:
        base = re.sub(r"['’]s$", "", w)
        if base[:1].isupper() and base not in ("User", "I"):
            out.add(base.casefold())
    return frozenset(out)


#: Events that change what a person has, uses or goes to (any attribute), and events that
#: leave it as it was: an event retires a fact by nearness alone only when it reads as one of
#: the first (:meth:`AttributeModel.changes`).
CHANGE_EVENTS: Final = (
    "User switched to a different provider.",
    "User moved everything over to the new one.",
    "User got a new one and gave the old one away.",
    "User has been going somewhere else instead since January.",
    "User replaced the old one last week.",
    "User signed up with another company.",
    "User finally found a new one they like better.",
    "User cancelled it and started somewhere else.",
)
STILL_EVENTS: Final = (
    "User had a job interview yesterday.",
    "User went to a concert last night.",
    "User visited friends at the weekend.",
    "User had a long meeting at the office.",
    "User cooked dinner for the family.",
    "User bought a birthday present for a friend.",
    "User had a great time at the gym today.",
    "User's order arrived this morning.",
)


@dataclass(frozen=True)
class Reading:
    """A statement's attribute, as the model read it."""

    attribute: str
    single: bool
    polarity: str  # "states" | "ends"
    similarity: float


@dataclass(frozen=True)
class Statement:
    """A stored statement as :meth:`AttributeModel.replaces` weighs it."""

    text: str
    reading: Reading | None
    fact_class: str | None
    kind: str | None
    terms: frozenset[str]
    #: Whether the statement reads as a change of what the person has (:meth:`changes`).
    change: bool = False
    #: Whether its subject is another person whose own clause reads as an end and a change
    #: ("Graham's moved out and ...": :meth:`AttributeModel.their_clause`).
    their_end: bool = False


def _sentences() -> list[tuple[str, str, str]]:
    """(attribute, polarity, sentence): the templates, each filled with one value."""
    out: list[tuple[str, str, str]] = []
    for attr in ATTRIBUTES:
        for polarity, templates in ((STATES, attr.states), (ENDS, attr.ends)):
            for i, template in enumerate(templates):
                if "{X}" not in template:
                    out.append((attr.name, polarity, template))
                    continue
                # each template with one value, turn by turn (the values vary, not the frame)
                value = attr.values[i % len(attr.values)]
                out.append((attr.name, polarity, template.replace("{X}", value)))
    return out


def template_words(tokens: Callable[[str], Sequence[str]]) -> dict[str, frozenset[str]]:
    """Each attribute's frame words (its templates' terms without the values')."""
    out: dict[str, frozenset[str]] = {}
    for attr in ATTRIBUTES:
        words: set[str] = set()
        for template in (*attr.states, *attr.ends):
            words.update(tokens(template.replace("{X}", " ")))
        out[attr.name] = frozenset(words)
    return out


class AttributeModel:
    """Reads the attribute a statement sets, by its nearest template (thread-safe, lazy).

    Args:
        embed: Embeds documents with the memory's model.
        floor: The least cosine to the nearest template for a statement to have an
            attribute (the model's relevance floor, ``min_cosine``).
        tokens: The keyword tokenizer (the sparse encoder's), for values.
        unrelated: The cosine the model gives unrelated texts (``unrelated_cosine``).

    Example:
        >>> model = AttributeModel(embed, 0.3, tokens)  # doctest: +SKIP
        >>> model.read(["User moved to Leith last month."])[0].attribute  # doctest: +SKIP
        'home'
    """

    def __init__(
        self,
        embed: Callable[[list[str]], list[list[float]]],
        floor: float,
        tokens: Callable[[str], Sequence[str]],
        unrelated: float = 0.0,
    ) -> None:
        self._embed = embed
        self.floor = floor
        #: How much nearer than any other of the person's facts an old fact must be for a
        #: statement to replace it by nearness alone: half the span from the model's
        #: unrelated level to its relevance floor (0.15 for all-MiniLM-L6-v2's 0 and 0.3).
        self.margin = max(0.0, (floor - unrelated) / 2.0)
        self._tokens = tokens
        self._lock = threading.Lock()
        self._matrix: np.ndarray | None = None
        self._labels: list[tuple[str, str]] = []
        self._single = {a.name: a.single for a in ATTRIBUTES}
        #: The median cosine of a template to its nearest sibling (set when first read).
        self.sibling = 1.0
        #: The cosine above which two statements are about the same thing (set when first
        #: read): the 95th percentile of templates of two different attributes.
        self.same_thing = 1.0
        self._frames = template_words(tokens)
        self._events: np.ndarray | None = None

    def _ready(self) -> np.ndarray:
        with self._lock:
            if self._matrix is None:
                rows = _sentences()
                m = np.asarray(self._embed([text for _, _, text in rows]), dtype=np.float64)
                m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
                self._labels = [(a, p) for a, p, _ in rows]
                self._matrix = m
                events = np.asarray(self._embed([*CHANGE_EVENTS, *STILL_EVENTS]), dtype=np.float64)
                events /= np.maximum(np.linalg.norm(events, axis=1, keepdims=True), 1e-12)
                self._events = events
                # how near a template is to its nearest sibling (same attribute), typically:
                # the bar for a reading from an event (a change said as something that happened)
                sims = m @ m.T
                np.fill_diagonal(sims, -1.0)
                nearest = [
                    max(sims[i, j] for j, (b, _) in enumerate(self._labels) if b == a and j != i)
                    for i, (a, _) in enumerate(self._labels)
                ]
                self.sibling = float(np.median(nearest))
                # how near two statements of *different* attributes come: the 95th
                # percentile over every pair of templates of two attributes. Statements at
                # least that near are about the same thing (issue 38: attributes no
                # template names, "my weekly shop at Tesco" / "going to Aldi for the shop")
                other = np.asarray(
                    [
                        sims[i, j]
                        for i, (a, _) in enumerate(self._labels)
                        for j, (b, _) in enumerate(self._labels)
                        if j > i and a != b
                    ]
                )
                self.same_thing = float(np.percentile(other, 95)) if other.size else 1.0
            return self._matrix

    def changes(self, vectors: Sequence[Sequence[float]]) -> list[bool]:
        """Whether each statement reads as a change of what the person has, uses or goes to.

        Its nearest among :data:`CHANGE_EVENTS` and :data:`STILL_EVENTS` is a change ("moved
        everything over to Proton Mail", "found someone who gets curly hair") rather than
        something that happened and changed nothing ("had a job interview at Google").
        """
        if not vectors:
            return []
        self._ready()
        events = self._events
        v = np.asarray(vectors, dtype=np.float64)
        if events is None or v.ndim != 2 or v.shape[1] != events.shape[1]:
            return [False] * len(vectors)
        v /= np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
        nearest = np.argmax(v @ events.T, axis=1)
        return [bool(i < len(CHANGE_EVENTS)) for i in nearest]

    def read(
        self, texts: Sequence[str], vectors: Sequence[Sequence[float]] | None = None
    ) -> list[Reading | None]:
        """The attribute each statement sets (``None``: nearer no template than the floor)."""
        if not texts:
            return []
        m = self._ready()
        v = np.asarray(
            vectors if vectors is not None else self._embed(list(texts)), dtype=np.float64
        )
        if v.ndim != 2 or v.shape[1] != m.shape[1]:
            return [None] * len(texts)
        v /= np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
        sims = v @ m.T
        out: list[Reading | None] = []
        for row in sims:
            best = int(np.argmax(row))
            attribute, polarity = self._labels[best]
            if row[best] < self.floor:
                out.append(None)
                continue
            out.append(Reading(attribute, self._single[attribute], polarity, float(row[best])))
        return out

    @staticmethod
    def about_the_person(text: str) -> bool:
        """Whether a statement may be about the person the memory is of.

        Not when its subject is someone else: a name ("Sam cooked dinner"), or one of the
        people of a person's life ("User's sister moved ...", "My friend got a job ...").
        Everything else may be ("User ...", "I ...", "My phone ..."). A note that opens with
        a capitalised verb ("Caved and bought ...") reads like a name: not the person's (the
        cautious side: a memory is retired only on clear evidence).

        Example:
            >>> AttributeModel.about_the_person("User's sister moved to Leeds.")
            False
            >>> AttributeModel.about_the_person("Sam cooked dinner last night.")
            False
            >>> AttributeModel.about_the_person("I bought an iPhone 15.")
            True
        """
        words = re.findall(r"[\w']+", text.replace("\u2019", "'"))
        if not words:
            return False
        first = words[0].removesuffix("'s")
        low = first.casefold()
        if low not in _PERSON_WORDS and first[:1].isupper() and subject_of(text) is not None:
            return False  # a name opens it: someone else's statement
        if words[0].casefold().endswith("'s") or low in ("my", "our"):
            return len(words) < 2 or words[1].casefold() not in _OTHER_PEOPLE
        return True

    def replaces(
        self, new: Statement, old: Statement, cosine: float, runner_up: float | None = None
    ) -> bool:
        """Whether the newer statement ``new`` retires the older standing fact ``old``.

        Pure (the readings are the statements' own; ``cosine`` is theirs; ``runner_up`` is
        the cosine of ``new`` to the nearest *other* current standing fact of the person,
        ``None`` when there is none). Two ways, both only between statements about the
        person, never from a plan or small talk, never within a many-valued attribute
        (hobbies, languages, pets, allergies, friends):

        * **by attribute** — both read as one single-valued attribute, with values apart (or
          ``new`` *ends* the value ``old`` states, or every value when it names none), and
          the reading is sure: each reads its attribute as surely as the attribute's
          templates read as their siblings (:attr:`sibling`); or ``new`` does (it is the
          one that says a value changed) and ``old`` is the person's fact nearest to it; or
          ``old`` stands out (below);
        * **by nearness** — an attribute no template names ("my weekly shop is at Tesco" /
          "been going to Aldi for the big shop"): ``new`` is a standing fact or an event
          that reads as a change (:meth:`changes`), the two are at least as near as
          :attr:`same_thing`, ``old`` stands out, and they name no name in common (the same
          name again with more detail, "my husband Graham cooks", is no change), unless
          ``new`` ends it.

        An end may be told of the other person of a relation ``old`` names ("Tom moved out"
        of "User's husband Tom cooks", "Priya retired" of "User's manager Priya"): the
        person's relation ends, though the statement's subject is the other one; not when
        the end is of something of theirs ("Tom quit his job", "Ana broke up with her
        boyfriend").

        ``old`` *stands out* when it is nearer to ``new`` than any other fact of the person
        by :attr:`margin`: a new value replaces *one* value, so the statement it replaces is
        the one it is about, not one of many it resembles ("User is a Labour voter" is about
        as near "User is left-handed" as "User is an only child": it replaces neither).
        """
        if new.fact_class == "small_talk" or new.kind == "plan" or old.fact_class != "standing":
            return False
        nr, orr = new.reading, old.reading
        # the other person of a relation the old fact names, as the subject of its end
        # ("Graham's moved out" of "User's husband Graham cooks", "Priya retired" of "User's
        # manager Priya"): the person's relation ends, told of the other one
        subject = subject_of(new.text)
        ends_theirs = (
            new.their_end
            and subject is not None
            and subject in _names(old.text)
            and _THEIR_OWN.search(new.text) is None  # "Ana broke up with her boyfriend"
        )
        if not (
            (ends_theirs or self.about_the_person(new.text)) and self.about_the_person(old.text)
        ):
            return False
        if nr is not None and not nr.single and nr.polarity == STATES:
            return False  # an addition to a many-valued attribute: it only grows
        if orr is not None and orr.polarity != STATES:
            return False  # the old one records an end itself: nothing left to retire
        stands_out = runner_up is None or cosine - runner_up >= self.margin
        if nr is not None and orr is not None and nr.attribute == orr.attribute:
            sure = [r.similarity >= self.sibling for r in (nr, orr)]
            nearest = runner_up is None or cosine > runner_up
            if all(sure) or (cosine >= self.floor and (stands_out or (sure[0] and nearest))):
                # a value is what the statement names ("Globex", "Leith"), else its terms
                # without the attribute's own words ("vegan")
                new_value = _names(new.text) or self.value_terms(nr.attribute, new.terms)
                old_value = _names(old.text) or self.value_terms(orr.attribute, old.terms)
                if nr.polarity == ENDS:
                    return not new_value or bool(new_value & old_value)
                if new_value and old_value:
                    return not new_value & old_value  # another value, or the same again
        if orr is not None and not orr.single:
            return False  # a value of a many-valued attribute leaves only when it is ended
        if cosine < self.same_thing or not stands_out:
            return False  # not near enough, or near it as near others: not about it
        if not (new.fact_class == "standing" or new.change or ends_theirs):
            return False  # an event that changed nothing ("had an interview at Google")
        shared = _names(new.text) & _names(old.text)
        return not shared or (nr is not None and nr.polarity == ENDS)

    def their_ends(self, texts: Sequence[str]) -> list[bool]:
        """For each statement, whether another person's own clause in it ends a relation.

        Its subject a name, and that name's clause (:meth:`their_clause`: "Graham's moved
        out") read as an end and as a change on its own. One batch embedding, of the
        statements that open with a name only.
        """
        clauses = [self.their_clause(t) for t in texts]
        todo = [c for c in clauses if c]
        if not todo:
            return [False] * len(texts)
        vectors = self._embed(todo)
        ends = iter(
            r is not None and r.polarity == ENDS and change
            for r, change in zip(self.read(todo, vectors), self.changes(vectors), strict=True)
        )
        return [next(ends) if c else False for c in clauses]

    @staticmethod
    def their_clause(text: str) -> str | None:
        """The clause of a statement whose subject is another person: what they did.

        ``None`` when the statement is about the person (or opens with no name). The clause
        runs to the first break (a comma, a semicolon, "and", "but"): "Graham's moved out
        and User has the house" is "Graham's moved out". Its reading decides
        :attr:`Statement.their_end` (an end that is a change: "moved out", "left", "died";
        not "cooked dinner", "praised the report").

        Example:
            >>> AttributeModel.their_clause("Graham's moved out and User has the house.")
            "Graham's moved out"
            >>> AttributeModel.their_clause("User moved to Leeds.") is None
            True
        """
        if subject_of(text) is None:
            return None
        return _CLAUSE_END.split(text.strip(), maxsplit=1)[0].rstrip(" .!")

    @staticmethod
    def runner_ups(texts: Sequence[str], cosines: Sequence[float]) -> list[float | None]:
        """For each candidate, the cosine of the nearest *other* one that names no name of it.

        The person's current standing facts near a new statement (``texts``, their cosines
        to it): what each must stand out from in :meth:`replaces`. Two facts that name the
        same name ("User's partner is Graham", "User's husband Graham cooks") state the same
        value: neither hides the other.

        Example:
            >>> AttributeModel.runner_ups(
            ...     ["User's partner is Graham.", "Graham cooks for User.", "User is tall."],
            ...     [0.6, 0.5, 0.3])
            [0.3, 0.3, 0.6]
        """
        names = [_names(t) | {n for n in (subject_of(t),) if n} for t in texts]
        return [
            max(
                (c for j, c in enumerate(cosines) if j != i and not names[i] & names[j]),
                default=None,
            )
            for i in range(len(texts))
        ]

    def value_terms(self, attribute: str, terms: Collection[str]) -> frozenset[str]:
        """A statement's value: its terms without the attribute's frame words (and "user")."""
        frame = self._frames.get(attribute, frozenset())
        return frozenset(t for t in terms if t not in frame and t != "user")
