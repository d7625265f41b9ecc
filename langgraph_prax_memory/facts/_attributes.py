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

STATES: Final = "states"
ENDS: Final = "ends"


@dataclass(frozen=True)
class Attribute:
    """An attribute of a person: its name, whether it holds one value, its templates."""

    name: str
    single: bool
    states: tuple[str, ...]
    values: tuple[str, ...]
    ends: tuple[str, ...] = ()


#: The attributes the memory knows. Templates are written in the voices memories come in.
ATTRIBUTES: Final[tuple[Attribute, ...]] = (
    Attribute(
        "home",
        True,
        (
            "User lives in {X}.",
            "I live in {X}.",
            "User's home is in {X}.",
            "User moved to {X}.",
            "User is based in {X} now.",
            "We just moved into a new flat in {X}.",
        ),
        ("Glasgow", "Osaka", "the suburbs of Lyon"),
    ),
    Attribute(
        "employer",
        True,
        (
            "User works at {X}.",
            "I work for {X}.",
            "User's employer is {X}.",
            "User started a new job at {X}.",
            "User joined {X} last month.",
        ),
        ("Siemens", "a small bakery", "the city council"),
        (
            "User quit the job at {X}.",
            "User left {X}.",
            "User was laid off from {X}.",
            "I handed in my notice at {X}.",
        ),
    ),
    Attribute(
        "partner",
        True,
        (
            "User's partner is {X}.",
            "User is dating {X}.",
            "My girlfriend is {X}.",
            "User is married to {X}.",
            "User's boyfriend {X} moved in with them.",
        ),
        ("Sam", "Priya", "Jonas"),
        (
            "User broke up with {X}.",
            "User and {X} split up.",
            "User is divorced from {X}.",
            "I'm single again since {X} and I separated.",
        ),
    ),
    Attribute(
        "diet",
        True,
        (
            "User is {X}.",
            "I eat a {X} diet.",
            "User has gone {X}.",
            "User follows a {X} diet now.",
        ),
        ("vegetarian", "vegan", "pescatarian", "keto"),
        ("User eats meat again.", "I gave up being {X}."),
    ),
    Attribute(
        "editor",
        True,
        ("User's code editor is {X}.", "I write code in {X}.", "User switched to {X} for coding."),
        ("VS Code", "Vim", "Emacs"),
    ),
    Attribute(
        "operating_system",
        True,
        ("User's laptop runs {X}.", "I use {X} as my operating system.", "User moved to {X}."),
        ("Linux", "macOS", "Windows 11"),
    ),
    Attribute(
        "phone",
        True,
        ("User's phone is a {X}.", "I have an {X}.", "User got a new {X} phone."),
        ("iPhone 15", "Pixel 8", "Samsung Galaxy"),
    ),
    Attribute(
        "manager",
        True,
        ("User's manager is {X}.", "User reports to {X}.", "My boss is {X}."),
        ("Deepa", "Mark Olsen"),
    ),
    Attribute(
        "timezone",
        True,
        ("User is in the {X} time zone.", "User's timezone is {X}."),
        ("Central European", "Pacific"),
    ),
    Attribute(
        "usual_drink",
        True,
        (
            "User drinks {X} every morning.",
            "User's usual drink is {X}.",
            "I always order {X}.",
        ),
        ("black coffee", "green tea", "an oat flat white"),
        ("User stopped drinking {X}.", "I quit {X}."),
    ),
    Attribute(
        "commute",
        True,
        ("User commutes by {X}.", "User gets to work by {X}.", "I take the {X} to the office."),
        ("bike", "train", "car"),
    ),
    Attribute(
        "car",
        True,
        ("User drives a {X}.", "User's car is a {X}.", "I bought a {X}."),
        ("Toyota Corolla", "Tesla Model 3"),
        ("User sold the {X}.",),
    ),
    Attribute(
        "gym",
        True,
        ("User trains at {X}.", "User's gym is {X}.", "I have a membership at {X}."),
        ("PureGym", "the YMCA"),
        ("User cancelled the {X} membership.",),
    ),
    Attribute(
        "bank",
        True,
        ("User banks with {X}.", "User's bank is {X}.", "I moved my account to {X}."),
        ("Monzo", "HSBC"),
    ),
    Attribute(
        "doctor",
        True,
        ("User's GP is Dr {X}.", "User's doctor is {X}.", "I see Dr {X} at the practice."),
        ("Patel", "Okafor"),
    ),
    Attribute(
        "child_school",
        True,
        ("User's son goes to {X}.", "User's daughter attends {X}.", "The kids are at {X}."),
        ("St Mary's primary", "Hillside Academy"),
    ),
    # many-valued: a new value adds, nothing is replaced
    Attribute(
        "hobby",
        False,
        ("User enjoys {X}.", "User took up {X}.", "I've got into {X} lately."),
        ("pottery", "bouldering", "birdwatching"),
    ),
    Attribute(
        "language",
        False,
        ("User speaks {X}.", "User is learning {X}.", "I'm taking {X} classes."),
        ("Spanish", "Japanese"),
    ),
    Attribute(
        "pet",
        False,
        ("User has a dog called {X}.", "User adopted a cat named {X}.", "Our new puppy is {X}."),
        ("Biscuit", "Miso"),
        ("User's dog {X} died.", "Our cat {X} passed away."),
    ),
    Attribute(
        "allergy",
        False,
        ("User is allergic to {X}.", "I can't eat {X}.", "User has a {X} allergy."),
        ("peanuts", "penicillin", "shellfish"),
    ),
    Attribute(  # a tool per project, per task: many at once
        "tool",
        False,
        (
            "User decided to use {X} for the new project.",
            "User is using {X} for a side project.",
            "I picked {X} for the data pipeline.",
        ),
        ("Rust", "Postgres", "Terraform"),
    ),
    Attribute(
        "taste",
        False,
        ("User's favourite {X} is blue.", "User likes {X} a lot.", "I'm really into {X}."),
        ("colour", "jazz", "spicy food"),
    ),
    Attribute(
        "friend",
        False,
        ("User's friend {X} is a nurse.", "I met a new friend, {X}.", "{X} is User's best friend."),
        ("Omar", "Lena"),
    ),
)


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
    ) -> None:
        self._embed = embed
        self.floor = floor
        self._tokens = tokens
        self._lock = threading.Lock()
        self._matrix: np.ndarray | None = None
        self._labels: list[tuple[str, str]] = []
        self._single = {a.name: a.single for a in ATTRIBUTES}
        #: The median cosine of a template to its nearest sibling (set when first read).
        self.sibling = 1.0
        #: The cosine above which two statements are about the same thing (set when first
        #: read): the 99th percentile of templates of two different attributes.
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
                # how near two statements of *different* attributes come: the 99th
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

    def replaces(self, new: Statement, old: Statement, cosine: float) -> bool:
        """Whether the newer statement ``new`` retires the older standing fact ``old``.

        Pure (the readings are the statements' own; ``cosine`` is theirs). Two ways, both
        only between statements about the person, never from a plan or small talk, never
        within a many-valued attribute (hobbies, languages, pets, allergies, friends):

        * **by attribute** — both read as one single-valued attribute (``new`` firmly when
          it is an event) and are about the same thing (near each other, or one reads its
          attribute as surely as templates read as their siblings), with values apart; or
          ``new`` *ends* the value ``old`` states (or every value, when it names none);
        * **by nearness** — an attribute no template names ("my weekly shop is at Tesco" /
          "been going to Aldi for the big shop"): ``new`` is a standing fact or an event
          that reads as a change (:meth:`changes`), the two are
          at least as near as :attr:`same_thing` (nearer than 95 % of template pairs of two
          different attributes), and they name no name in common (the same name again
          with more detail, "my husband Graham cooks", is no change), unless ``new`` ends
          it.
        """
        if new.fact_class == "small_talk" or new.kind == "plan" or old.fact_class != "standing":
            return False
        nr, orr = new.reading, old.reading
        if not (self.about_the_person(new.text) and self.about_the_person(old.text)):
            return False
        if nr is not None and not nr.single and nr.polarity == STATES:
            return False  # an addition to a many-valued attribute: it only grows
        if orr is not None and orr.polarity != STATES:
            return False  # the old one records an end itself: nothing left to retire
        firm = nr is not None and (new.fact_class == "standing" or nr.similarity >= self.sibling)
        # about the same thing: near each other, or one reads its attribute as surely as the
        # attribute's templates read as each other
        same = cosine >= self.floor or any(
            r is not None and r.similarity >= self.sibling for r in (nr, orr)
        )
        if firm and same and nr is not None and orr is not None and nr.attribute == orr.attribute:
            new_value = self.value_terms(nr.attribute, new.terms)
            old_value = self.value_terms(orr.attribute, old.terms)
            if nr.polarity == ENDS:
                return not new_value or bool(new_value & old_value)
            if new_value and old_value:
                return not new_value & old_value  # another value, or the same one again
        if orr is not None and not orr.single:
            return False  # a value of a many-valued attribute leaves only when it is ended
        if cosine < self.same_thing or not (new.fact_class == "standing" or new.change):
            return False  # an event that changed nothing ("had an interview at Google")
        shared = _names(new.text) & _names(old.text)
        return not shared or (nr is not None and nr.polarity == ENDS)

    def value_terms(self, attribute: str, terms: Collection[str]) -> frozenset[str]:
        """A statement's value: its terms without the attribute's frame words (and "user")."""
        frame = self._frames.get(attribute, frozenset())
        return frozenset(t for t in terms if t not in frame and t != "user")
