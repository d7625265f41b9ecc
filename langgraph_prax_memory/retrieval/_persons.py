"""Which person of the user's life a memory or a question is about (pure functions).

Memories written in the third person name their person ("Ingrid is allergic to latex") and
the people of her life, often through her ("Ingrid's husband Per teaches woodwork"). Those
are *other persons*: a memory about Ingrid's husband says nothing about what Ingrid does, and
one about Ingrid herself answers nothing about her husband. This module reads who a memory is
about (:func:`person_of`) and who a question asks about (:func:`asked_people`), and tells
whether a memory can answer the question (:func:`about_other_person`):

* a memory that opens with a name is about that person (a title before it, "Professor
  Naidoo", is not the name); one that opens "X's R", R a word for a person of X's life
  (a relation: husband, daughter, friend, boss ...), is about X's R, and the name that
  follows ("Ingrid's husband Per", "Nomvula's supervisor is Professor Naidoo") is that
  person's own name, which the user's other memories may use alone ("Per has diabetes");
* "Ingrid's dog Bamse", "Nomvula's car" stay about Ingrid and Nomvula: a pet or a thing is
  hers, not another person;
* a question asks about the persons it names, and about "X's R" where it says so;
* a memory answers for an asked person when it is about that person (by name, by the
  relation, or by the relation's known name); a memory about X answers a question about X's
  R only when it mentions R (or R's name: "Tomasz and Agnieszka have a son, Staś" for
  "How old is Tomasz's son?"); a memory about X's R answers a question about X only when the
  question asks *who*, or names a relation ("Who brought Nomvula up?", "Does Ingrid have
  children?"): then the people of her life are what it asks for;
* a memory about someone else that only *mentions* the asked person ("Nomvula shares a flat
  with her friend Ayesha" for "Where does Ayesha work?") is not about her either, unless the
  question asks about people in the same way (who, a relation word): "Who does Ayesha
  live with?".

Relation words are a closed class of English (kinship and social roles), listed here; a
generic word ("partner", "child", "parents") matches each specific one of its kind.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from langgraph_prax_memory.facts import question_names, subject_of

__all__ = [
    "Asked",
    "Person",
    "about_other_person",
    "asked_people",
    "named_readings",
    "person_of",
    "relation_words",
    "words_after",
]

# word -> (kind, specific person or None for the generic word of the kind)
_KINDS: dict[str, tuple[str, ...]] = {
    "spouse": ("husband", "wife", "partner*", "spouse*", "boyfriend", "girlfriend", "fiancé",
               "fiancée", "fiance", "fiancee"),
    "child": ("son", "daughter", "child*", "children*", "kid*", "kids*", "baby*", "stepson",
              "stepdaughter"),
    "parent": ("mother", "mum", "mom", "mam", "father", "dad", "parent*", "parents*",
               "stepmother", "stepfather"),
    "sibling": ("brother", "sister", "sibling*", "siblings*", "twin*"),
    "grandparent": ("grandmother", "grandma", "granny", "nan", "grandfather", "grandpa",
                    "grandparent*", "grandparents*"),
    "grandchild": ("grandson", "granddaughter", "grandchild*", "grandchildren*"),
    "aunt": ("aunt",), "uncle": ("uncle",), "cousin": ("cousin",),
    "niece": ("niece",), "nephew": ("nephew",),
    "in-law": ("mother-in-law", "father-in-law", "brother-in-law", "sister-in-law",
               "in-laws*"),
    "friend": ("friend", "friends*", "bestie"),
    "housemate": ("flatmate", "roommate", "housemate", "flatmates*", "roommates*"),
    "neighbour": ("neighbour", "neighbor", "neighbours*", "neighbors*"),
    "boss": ("boss", "manager"),
    "colleague": ("colleague", "coworker", "co-worker", "colleagues*", "coworkers*"),
    "supervisor": ("supervisor", "advisor", "adviser", "mentor"),
    "carer": ("doctor", "gp", "dentist", "therapist", "physio", "nurse", "carer"),
    "ex": ("ex",),
}  # fmt: skip
# the same person however it is spelled
_SAME = {"mum": "mother", "mom": "mother", "mam": "mother", "dad": "father",
         "grandma": "grandmother", "granny": "grandmother", "nan": "grandmother",
         "grandpa": "grandfather", "neighbor": "neighbour", "coworker": "colleague",
         "co-worker": "colleague", "manager": "boss", "adviser": "advisor",
         "fiance": "fiancé", "fiancee": "fiancée", "roommate": "flatmate",
         "housemate": "flatmate", "bestie": "friend"}  # fmt: skip
RELATIONS: dict[str, tuple[str, str | None]] = {
    word.rstrip("*"): (kind, None if word.endswith("*") else _SAME.get(word, word))
    for kind, words in _KINDS.items()
    for word in words
}
# words between a possessive and its relation ("Priya's best friend Helen")
_MODIFIERS = frozenset(
    {"best", "older", "younger", "elder", "eldest", "youngest", "oldest", "middle", "little",
     "big", "baby", "twin", "late", "new", "former", "old", "childhood", "closest", "dear",
     "step"}
)  # fmt: skip
# words before a name that are not the name ("Professor Naidoo", "Dr Okafor")
_TITLES = frozenset(
    {"professor", "prof", "dr", "doctor", "mr", "mrs", "ms", "miss", "mx", "sir", "dame", "rev",
     "reverend", "captain", "coach"}
)  # fmt: skip
# the verbs that tell a relation of a kind without its word ("Johan is seeing someone, Pia")
_BONDS: dict[str, set[str]] = {
    "spouse": {"dating", "seeing", "married", "marrying", "engaged", "wed", "divorced"},
}
# a question word or a word that asks for the people of a person's life
_ASKS_PEOPLE = frozenset({"who", "whom", "whose", "family", "relatives", "related", "married"})
_WORD = re.compile(r"[^\W\d_][\w'\u2019-]*", re.UNICODE)


def _bare(word: str) -> str:
    return word.replace("\u2019", "'").removesuffix("'s").removesuffix("'").casefold()


def _possessive(word: str) -> bool:
    w = word.replace("\u2019", "'")
    return w.endswith("'s") or (w.endswith("s'") and len(w) > 2)


def _name_at(words: list[str], i: int) -> tuple[str | None, int]:
    """The name at ``words[i]`` (a title before it skipped), and the index of its word."""
    if i < len(words) and _bare(words[i]).rstrip(".") in _TITLES and i + 1 < len(words):
        name = subject_of(words[i + 1])
        if name is not None:
            return name, i + 1
    if i < len(words):
        return subject_of(words[i]), i
    return None, i


@dataclass(frozen=True)
class Person:
    """Who a memory is about: ``owner`` itself, or the person ``relation`` of ``owner``.

    ``relation`` is ``(kind, specific)`` (:data:`RELATIONS`); ``name`` that person's own name
    when the memory gives it; ``end`` the number of words the memory spends on saying who.
    """

    owner: str
    relation: tuple[str, str | None] | None = None
    name: str | None = None
    end: int = 1
    also: frozenset[str] = frozenset()
    """Other names the memory opens with ("Tomasz and Agnieszka have a son")."""


def _relation_after(words: list[str], i: int) -> tuple[tuple[str, str | None] | None, int]:
    """The relation a possessive at ``words[i - 1]`` names, and the index after it."""
    j = i
    while j < len(words) and j < i + 3 and _bare(words[j]) in _MODIFIERS:
        j += 1
    if j < len(words):
        word = words[j].casefold().replace("\u2019", "'").removesuffix("'s")
        if word in RELATIONS:
            return RELATIONS[word], j + 1
    return None, i


def person_of(content: str) -> Person | None:
    """Who a memory is about, when it opens with a name (``None``: the user, or no name).

    Example:
        >>> p = person_of("Ingrid's husband Per teaches woodwork.")
        >>> p.owner, p.relation, p.name
        ('ingrid', ('spouse', 'husband'), 'per')
        >>> person_of("Nomvula's supervisor is Professor Naidoo, who wants a chapter.").name
        'naidoo'
        >>> person_of("Professor Naidoo is on sabbatical.").owner
        'naidoo'
        >>> person_of("Ingrid's dog Bamse is nine.").relation is None  # a pet is hers
        True
        >>> sorted(person_of("Tomasz and Agnieszka have a son.").also)
        ['agnieszka']
        >>> person_of("User's wife Anna is a nurse.") is None
        True
    """
    opening = _bare(content.split(" ", 1)[0]).rstrip(".")
    if subject_of(content) is None and opening not in _TITLES:
        return None
    words = _WORD.findall(content)
    owner, at = _name_at(words, 0)
    if owner is None:
        return None
    if not _possessive(words[at]):
        also: set[str] = set()
        while at + 2 < len(words) and words[at + 1] == "and":
            other, k = _name_at(words, at + 2)
            if other is None or not words[k][:1].isupper() or _possessive(words[k]):
                break
            also.add(other)
            at = k
        return Person(owner, end=at + 1, also=frozenset(also))
    relation, after = _relation_after(words, at + 1)
    if relation is None:
        return Person(owner, end=at + 1)
    end = after
    if after < len(words) and _bare(words[after]) in ("is", "was") and after + 1 < len(words):
        after += 1  # "Nomvula's supervisor is Professor Naidoo"
    name, k = _name_at(words, after)
    if name is not None and words[k][:1].isupper():
        return Person(owner, relation, name, k + 1)
    return Person(owner, relation, None, end)


def _asked_relation(words: list[str], i: int) -> tuple[str, tuple[str, str | None], int] | None:
    name = subject_of(words[i])
    if name is None or not _possessive(words[i]):
        return None
    relation, after = _relation_after(words, i + 1)
    if relation is None:
        return None
    if _possessive(words[after - 1]) and _relation_after(words, after)[0] is not None:
        return None  # "Ingrid's husband's brother": a chain this reading does not follow
    return name, relation, after


@dataclass(frozen=True)
class Asked:
    """The persons a question asks about: names, and relations of a name (owner, relation)."""

    names: frozenset[str]
    relations: frozenset[tuple[str, tuple[str, str | None]]]
    people_words: bool

    def __bool__(self) -> bool:
        return bool(self.names or self.relations)


def asked_people(text: str, known: Collection[str]) -> Asked:
    """The persons ``text`` asks about among ``known`` names (owners and names of memories).

    Example:
        >>> a = asked_people("Where does Ingrid's husband work?", {"ingrid", "per"})
        >>> sorted(a.names), sorted(a.relations)
        ([], [('ingrid', ('spouse', 'husband'))])
        >>> sorted(asked_people("What is Carol allergic to?", {"carol"}).names)
        ['carol']
    """
    words = _WORD.findall(text)
    relations = set()
    spent: set[int] = set()  # the words of "Ingrid's husband"
    for i in range(1, len(words)):  # a question's first word is no name
        got = _asked_relation(words, i)
        if got is not None and got[0] in known:
            relations.add(got[:2])
            spent.update(range(i, got[2]))
    names, _ = question_names(text)
    plain = {_bare(w) for i, w in enumerate(words) if i and i not in spent} & names
    people_words = any(
        _bare(w) in _ASKS_PEOPLE or _bare(w) in RELATIONS
        for i, w in enumerate(words)
        if i not in spent
    )
    return Asked(frozenset(plain & set(known)), frozenset(relations), people_words)


def words_after(content: str, person: Person) -> set[str]:
    """The memory's words after those saying who it is about, case-folded and bare.

    A generic relation word in the possessive names a kind of thing, not a person of her
    life ("a children's ward"), and is left out.

    Example:
        >>> sorted(words_after("Ingrid's husband Per teaches woodwork.",
        ...                    person_of("Ingrid's husband Per teaches woodwork.")))
        ['teaches', 'woodwork']
        >>> sorted(words_after("Maria works on a children's ward.", Person("maria")))
        ['a', 'on', 'ward', 'works']
    """
    return {
        _bare(w)
        for w in _WORD.findall(content)[person.end :]
        if not (_possessive(w) and RELATIONS.get(_bare(w), ("", ""))[1] is None)
    }


def _same_relation(a: tuple[str, str | None], b: tuple[str, str | None]) -> bool:
    return a[0] == b[0] and (a[1] is None or b[1] is None or a[1] == b[1])


def about_other_person(
    person: Person,
    words: Collection[str],
    asked: Asked,
    named: Mapping[str, set[tuple[str, tuple[str, str | None]]]],
) -> bool:
    """Whether a memory about ``person`` answers for none of the persons ``asked`` about.

    ``words``: the memory's other words, case-folded (after :attr:`Person.end`); ``named``:
    each name the user's memories give a relation of someone (``"per"`` → Ingrid's husband).

    Example:
        >>> asked = asked_people("Where does Ingrid's husband work?", {"ingrid", "per"})
        >>> named = {"per": {("ingrid", ("spouse", "husband"))}}
        >>> about_other_person(Person("ingrid"), {"works", "on", "a", "ferry"}, asked, named)
        True
        >>> about_other_person(Person("per"), {"has", "diabetes"}, asked, named)
        False
    """
    relations_of = set(named.get(person.owner, ()))  # "Per" is Ingrid's husband
    if person.relation is not None:
        relations_of.add((person.owner, person.relation))
    names_of = {person.name} - {None} if person.relation is not None else {person.owner}
    names_of |= person.also
    for owner, relation in asked.relations:
        if any(o == owner and _same_relation(r, relation) for o, r in relations_of):
            return False
        known = {n for n, rs in named.items() if any(
            o == owner and _same_relation(r, relation) for o, r in rs)}  # fmt: skip
        if known & names_of or (known & set(words) and asked.people_words):
            return False  # the relation by its name, or a question about people mentioning it
        if (
            person.relation is None
            and person.owner == owner
            and any(w in RELATIONS and _same_relation(RELATIONS[w], relation) for w in words)
        ):
            return False  # "Tomasz and Agnieszka have a son" for Tomasz's son
        if (
            person.relation is None
            and person.owner == owner
            and _BONDS.get(relation[0], set()) & set(words)
        ):
            return False  # "Johan is seeing someone, Pia" for Johan's girlfriend
    for name in asked.names:
        if name in names_of or (name in words and asked.people_words):
            return False  # about them; or mentions them, and the question asks about people
        if person.relation is not None and person.owner == name and asked.people_words:
            return False  # "Who brought Nomvula up?": the people of her life
    return True


def named_readings(
    text: str, people: Mapping[str, Person | None], contents: Mapping[str, str]
) -> list[tuple[str, str]]:
    """The question read with a person it names by a relation called by that person's name.

    "What diet does Ingrid's daughter follow?" over memories saying "Ingrid's daughter Sigrid
    ..." also asks "What diet does Sigrid follow?": a memory about Sigrid that never says
    whose daughter she is ("Sigrid is vegan") answers it. ``people``: who each memory of
    ``contents`` is about (:func:`person_of`). A relation the memories give no name, or
    more than one, gives no reading. Each reading comes with the name it put in.

    Example:
        >>> contents = {"1": "Ingrid's daughter Sigrid studies medicine.", "2": "Sigrid is vegan."}
        >>> people = {k: person_of(v) for k, v in contents.items()}
        >>> named_readings("What diet does Ingrid's daughter follow?", people, contents)
        [('What diet does Sigrid follow?', 'Sigrid')]
    """
    names: dict[tuple[str, tuple[str, str | None]], set[str]] = {}
    surface: dict[str, str] = {}
    for mid, p in people.items():
        if p is not None and p.relation is not None and p.name is not None:
            names.setdefault((p.owner, p.relation), set()).add(p.name)
            for w in _WORD.findall(contents[mid]):
                if _bare(w) == p.name:
                    surface.setdefault(p.name, w.replace("\u2019", "'").removesuffix("'s"))
    if not names:
        return []
    spans = list(_WORD.finditer(text))
    words = [m.group(0) for m in spans]
    out = []
    for i in range(1, len(words)):
        got = _asked_relation(words, i)
        if got is None:
            continue
        owner, relation, after = got
        known = {n for (o, r), ns in names.items() if o == owner and _same_relation(r, relation)
                 for n in ns}  # fmt: skip
        if len(known) != 1:
            continue
        name = surface.get(next(iter(known)), next(iter(known)).capitalize())
        last = words[after - 1]
        said = name
        if _possessive(last):  # "Tomasz's father's job" -> "Zbigniew's job"
            said += last[len(last.replace("\u2019", "'").removesuffix("'s")) :]
        out.append((text[: spans[i].start()] + said + text[spans[after - 1].end() :], name))
    return out


#: Words that make a relation word the user's own ("my wife", "User's wife", "Her son Cian"
#: opening a note about the user); a bare relation word opening a note ("Daughter Aoife, 12").
_USERS = frozenset({"my", "our", "user's", "users'"})


def _own_relation(words: list[str], i: int, owner: str | None) -> bool:
    """Whether the relation word ``words[i]`` (modifiers before it skipped) is the user's."""
    j = i - 1
    while j >= 0 and _bare(words[j]) in _MODIFIERS:
        j -= 1
    if j < 0:
        return True  # opening the note: "Daughter Aoife", "Dad is Kofi"
    before = words[j].casefold().replace("\u2019", "'")
    if before in _USERS:
        return True  # "my wife", "User's wife", "the user's wife"
    if before in ("her", "his", "their"):  # "Her son Cian ...", "Ruth is a widow; her husband"
        return j == 0 or _bare(words[0]) in {"user", "she", "he", "they", owner}
    return owner is not None and _possessive(words[j]) and _bare(words[j]) == owner


def user_kin(contents: Collection[str], owner: str | None = None) -> dict[str, set[str]]:
    """The names of the people of the user's life, by relation, as the user's memories give them.

    A relation word of the user's ("My wife Kasia", "User's mum Verónica", "Daughter Aoife,
    12", "Her son Cian" opening a note, "Tomasz's wife" when ``owner`` is the user's own
    name), followed by a name ("My partner is Callum", "Mum, Funmilayo, ..."). Keyed by the
    specific relation ("wife", "mother"): a generic word of its kind ("partner") names no one
    in particular. A relation of someone else ("Emma lives with her husband Josh") is not
    the user's.

    Example:
        >>> kin = user_kin(["My wife Kasia is a pharmacist.", "Dad is Kofi; mum Akosua sells yams.",
        ...                 "My daughter Emma lives in Perth with her husband Josh."])
        >>> {r: sorted(n) for r, n in sorted(kin.items())}
        {'daughter': ['emma'], 'father': ['kofi'], 'mother': ['akosua'], 'wife': ['kasia']}
    """
    out: dict[str, set[str]] = {}
    for content in contents:
        for sentence in re.split(r"(?<=[.;!?])\s+", content):
            words = _WORD.findall(sentence)
            for i, word in enumerate(words):
                relation = RELATIONS.get(word.casefold().replace("\u2019", "'"))
                if relation is None or relation[1] is None or not _own_relation(words, i, owner):
                    continue
                k = i + 1
                if k < len(words) and _bare(words[k]) == "is":
                    k += 1  # "My partner is Callum" (not "My mother was Finnish")
                name, at = _name_at(words, k)
                if name is not None and words[at][:1].isupper():
                    out.setdefault(relation[1], set()).add(name)
    return out


def relation_words(message: str) -> set[str]:
    """The words of the relations ``message`` calls people by ("my mother"), every spelling.

    The relation's own word and those for the same person ("mother", "mum", "mom", "mam");
    a generic word ("my kids") gives every word of its kind. What the user's memories may
    call that person by.

    Example:
        >>> sorted(relation_words("Write something to my mother."))
        ['mam', 'mom', 'mother', 'mum']
        >>> relation_words("What is the capital of Peru?")
        set()
    """
    out: set[str] = set()
    for kind, specific in _called(message):
        out |= {
            w
            for w, (k, s) in RELATIONS.items()
            if k == kind and (specific is None or s == specific)
        }
    return out


def _called(message: str) -> list[tuple[str, str | None]]:
    """The relations ``message`` calls people by: "my" or "our", modifiers, a relation word."""
    words = _WORD.findall(message)
    out: list[tuple[str, str | None]] = []
    for i, word in enumerate(words):
        if word.casefold() not in ("my", "our"):
            continue
        j = i + 1
        while j < len(words) and _bare(words[j]) in _MODIFIERS:
            j += 1
        relation = RELATIONS.get(_bare(words[j])) if j < len(words) else None
        if relation is not None:
            out.append(relation)
    return out


def kin_named(message: str, kin: Mapping[str, set[str]]) -> set[str]:
    """The names of the people ``message`` calls by their relation to the user ("my wife").

    A relation the user's memories give exactly one name (:func:`user_kin`); a generic word
    ("my partner", "my kids") names each person of its kind that has one name.

    Example:
        >>> kin_named("Help me choose a present for my wife.", {"wife": {"kasia"}})
        {'kasia'}
        >>> kin_named("What should I cook for my late husband's birthday?", {"husband": {"lars"}})
        {'lars'}
        >>> kin_named("Plan a dinner for my sister.", {"wife": {"kasia"}})
        set()
    """
    out: set[str] = set()
    for kind, specific in _called(message):
        for rel, names in kin.items():
            if len(names) == 1 and (
                rel == specific or (specific is None and RELATIONS[rel][0] == kind)
            ):
                out |= names
    return out
