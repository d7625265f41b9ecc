"""What a statement asserts of now: the tense of its main clauses (a dependency parse).

The classifier (:mod:`._classifier`) reads what a statement is *about* from its embedding
and a few time cues; what it cannot read from a bag of words is *which* clause carries the
assertion. "User had two thirds of his stomach removed after cancer five years ago and can
only manage small portions" tells a past event and a present state; "User's dog Mole is a
black street dog the couple took in three years ago" is a present state with a past relative
clause; "Doesn't drink any more, doctor's orders" is a present habit with no subject. The
embedding leans towards the event; the grammar says what holds now.

A standing fact is a statement whose main assertion holds at the time of speaking, of the
person or of what is theirs. :func:`holds_now` says whether one of a statement's main
clauses (the root and the verbs coordinated or juxtaposed with it) is in the present — a
present simple ("leases", "doesn't drink"), a present copula or passive ("is limited", "is
not allowed"), a present modal of ability ("can only manage"),
a perfect that runs up to now ("hasn't smoked since 2015") — with the person as its subject
("User", a pronoun, a name, a bare note without a subject) or something the person has
("User's dog Mole", "The user's shop"). Not a present progressive
("is flying to Osaka"), a perfect of an event ("the cataracts have not changed": the
result of a check-up), an intention or an obligation ("plans to", "has to", "must"; the
classifier says whether the goal lasts), a future or conditional modal, a subject
that is only a pronoun pointing elsewhere ("it", "that"), or a thing without an owner
("the repair quote is 3,400 dollars"). A present verb of saying or thinking with a clause
("User says the food was nice") is read through to the clause.

The parser is spaCy's small English pipeline (:mod:`._parser`); when it cannot load, every
statement reads as not holding now (the classifier alone decides) and a warning says so once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langgraph_prax_memory.facts._parser import GRAMMAR_MODEL, GRAMMAR_WEIGHTS, known_word
from langgraph_prax_memory.facts._parser import parsed as _parsed

__all__ = [
    "GRAMMAR_MODEL",
    "GRAMMAR_WEIGHTS",
    "holds_now",
    "passing_only",
]

_PRESENT_AUX = frozenset(
    ["is", "are", "am", "'s", "'re", "'m", "has", "have", "'ve", "does", "do", "can", "ca", "must"]
)
_PAST_AUX = frozenset(["was", "were", "had", "did"])
_MODAL = frozenset(["will", "'ll", "shall", "wo", "would", "'d", "could", "might", "should", "may"])
_BE = frozenset(["be", "is", "are", "am", "was", "were", "been", "being", "'s", "'re", "'m"])
_PERSONAL = frozenset(["i", "we", "he", "she", "they", "you", "user"])
_POINTING = frozenset(["it", "this", "that", "these", "those"])
#: Dependents that make a clause of an "it" subject an extraposition or a time expression
#: ("It's been three years since ...", "It takes an hour to ..."): "it" points at nothing;
#: and the dependents that open a clause of their own.
_CLAUSAL = frozenset(["advcl", "ccomp", "xcomp", "csubj", "relcl", "acl"])
#: A present verb of intention, need or obligation with an infinitive ("plans to", "wants
#: to", "is going to", "needs to find a sitter", "has to return the books"): a goal, not a
#: state; whether it is a lasting constraint ("needs to avoid gluten", "has to take insulin
#: every morning") is the classifier's to say, from what the goal is.
_INTENDING = frozenset(
    ["plans", "plan", "intends", "hopes", "wants", "going", "hoping", "planning", "needs", "need",
     "has", "have"]
)  # fmt: skip


_SOMEONE = frozenset(["someone", "somebody", "anyone", "anybody"])


def _a_goal(verb: Any) -> bool:
    """Whether a clause states a goal or an obligation rather than a state.

    A verb of intention, need or obligation with an infinitive ("needs to", "has to"), the
    modal of obligation ("must pick up the dry cleaning"), or a need of someone to do
    something ("needs someone to water the plants"; not "needs a stick to walk", a thing
    for a purpose): what is to be done, one-off or lasting
    as the goal is (the classifier reads that from the words), not a state the grammar can
    vouch for.
    """
    if verb.lower_ in _INTENDING and any(c.dep_ == "xcomp" for c in verb.children):
        return True
    if any(c.dep_ == "aux" and c.lower_ == "must" for c in verb.children):
        return True
    return verb.lower_ in ("need", "needs") and any(
        c.dep_ == "dobj"
        and (c.lower_ in _SOMEONE or c.pos_ in ("PRON", "PROPN"))  # not "a stick to walk"
        and any(
            g.dep_ in ("relcl", "acl") and any(a.lower_ == "to" for a in g.children)
            for g in c.children
        )
        for c in verb.children
    )


def _tense(verb: Any) -> str | None:
    """``"present"``, ``"past"``, ``"modal"``, ``"progressive"``, ``"perfect"`` or ``None``."""
    aux = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    words = [a.lower_ for a in aux]
    if not words:
        return {"VBZ": "present", "VBP": "present", "VBD": "past"}.get(verb.tag_)
    first = words[0]
    if first in _MODAL:
        return "modal"
    if verb.tag_ == "VBG" and any(w in _BE for w in words):
        return "perfect" if "been" in words else "progressive"
    passive = any(a.dep_ == "auxpass" for a in aux)
    if (
        first in ("has", "have", "'ve")
        and verb.tag_ == "VBN"
        and verb.lower_ != "been"
        and not passive
    ):
        return "perfect"  # the result of an event ("have not changed")
    if first in _PRESENT_AUX or aux[0].tag_ in ("VBZ", "VBP"):
        return "present"
    if first in _PAST_AUX or aux[0].tag_ == "VBD":
        return "past"
    return None


def _subject(verb: Any) -> Any:
    for child in verb.children:
        if child.dep_ in ("nsubj", "nsubjpass", "expl"):
            return child
    if verb.dep_ == "conj":  # "... and can only manage": the first verb's subject
        return _subject(verb.head)
    return None


def _of_the_person(subject: Any) -> bool:
    if subject is None:
        return True  # a note without its subject: "Doesn't drink any more"
    if subject.lower_ in _POINTING:
        return False
    if subject.lower_ in _PERSONAL or _a_name(subject):
        return True
    return any(c.dep_ == "poss" for c in subject.children)  # "User's dog", "my mum"


def _a_name(token: Any) -> bool:
    """Whether ``token`` is a name: a proper noun with a capital ("honey" is not one).

    Or a capitalised noun opening its sentence that the parser never saw in training: the
    small pipeline tags an unknown word at the start of a sentence as a common noun
    ("Tomasz drives an articulated lorry"); a common noun there is one it knows ("Coffee").
    """
    if not token.text[:1].isupper():
        return False
    if token.pos_ == "PROPN":
        return True
    return token.pos_ == "NOUN" and token.is_sent_start and not known_word(token.text)


def _main_verbs(doc: Any) -> list[Any]:
    """The root, the verbs coordinated or juxtaposed with it, and a clause before it.

    A clause the parser hangs as the complement of a *later* root is said first and stands
    as a main clause: a comma splice ("User always edits in vim, so please give them vim
    keybindings") or a fronted report ("User is vegan, she says").
    """
    return [
        t
        for t in doc
        if t.pos_ in ("VERB", "AUX")
        and (
            t.dep_ == "ROOT"
            or (t.dep_ in ("conj", "parataxis") and t.head.dep_ == "ROOT")
            or (t.dep_ == "ccomp" and t.head.dep_ == "ROOT" and t.i < t.head.i)
        )
    ]


#: What a duration is measured in ("for the past four years", "for ages").
_DURATIONS = frozenset(
    ["years", "year", "months", "month", "weeks", "decades", "decade", "ages", "while", "life"]
)


def _up_to_now(verb: Any) -> bool:
    """Whether a perfect runs up to now: "since ...", "for years", "always", "never".

    The continuative perfect ("hasn't touched a cigarette since", "has lived with them since
    she broke her hip", "has been restoring a boat for four years", "has never flown") asserts
    a state that holds now; the perfect of a result ("the cataracts have not changed") does not.
    A "since" phrase the parser hangs on a noun of the clause ("has been going to Aldi for the
    big shop since Christmas") counts, one inside another clause ("has lost the ring she had
    since school") does not.
    """
    for child in verb.children:
        if child.lower_ in ("since", "always", "ever", "never"):
            return True
        marks = (g.lower_ for g in child.children if g.dep_ == "mark")
        if child.dep_ == "advcl" and "since" in marks:
            return True
        if (
            child.dep_ == "prep"
            and child.lower_ == "for"
            and any(g.lower_ in _DURATIONS for g in child.subtree)
        ):
            return True
    return any(
        t.lower_ == "since" and t.dep_ == "prep" and _in_clause(t, verb) for t in verb.subtree
    )


def _in_clause(token: Any, verb: Any) -> bool:
    """Whether ``token`` belongs to the clause of ``verb`` (no other clause in between)."""
    while token.i != verb.i:
        if token.dep_ in _CLAUSAL or token.dep_ in ("conj", "parataxis"):
            return False
        if token.head.i == token.i:
            return False
        token = token.head
    return True


#: Verbs of becoming, as past participles ("has gone vegan", "has become a vegetarian").
_BECOMING = frozenset(["become", "gone", "got", "gotten", "turned", "grown"])


def _result_holds(verb: Any) -> bool:
    """Whether a perfect of becoming names the state it left ("has gone fully plant-based").

    A change of state told in the perfect asserts its result now: "User has gone vegan" says
    that User is vegan. Only a verb of becoming with a predicative complement (an adjective
    or a noun: "has become a vegetarian", "hair has gone grey"); the perfect of any other
    event ("the cataracts have not changed") asserts no state.
    """
    return verb.lower_ in _BECOMING and any(
        c.dep_ in ("acomp", "attr", "oprd") for c in verb.children
    )


#: Verbs of perception and seeming, as written: with a "like" simile they give an impression.
_SEEMING = frozenset(
    ["feel", "feels", "felt", "sound", "sounds", "sounded", "look", "looks", "looked", "smell",
     "smells", "smelt", "smelled", "taste", "tastes", "tasted", "seem", "seems", "seemed"]
)  # fmt: skip


def _impression(verb: Any) -> bool:
    """Whether a clause gives an impression by a simile ("User's eyes feel like sandpaper")."""
    return verb.lower_ in _SEEMING and any(
        c.dep_ == "prep" and c.lower_ == "like" for c in verb.children
    )


def _clause_text(verb: Any) -> str:
    """The words of ``verb``'s own clause with its open complements, in order.

    An open complement ("needs *to buy a present before then*") shares the clause's
    subject and time; no other clause's words are taken.
    """
    own = [t for t in verb.subtree if _in_clause(t, verb)]
    for child in verb.children:
        if child.dep_ == "xcomp":
            own += [t for t in child.subtree if _in_clause(t, child)]
    return " ".join(t.text for t in sorted(own, key=lambda t: t.i))


#: Predicates of a passing stage, not of the person ("is fine now", "is home", "is back"):
#: the outcome of an episode, told in the present.
_STAGE = frozenset(
    ["fine", "ok", "okay", "alright", "better", "worse", "well", "home", "back", "away",
     "ill", "sick", "poorly", "tired", "exhausted", "busy", "stable", "recovering", "off",
     # a mood about what happens ("flies out on the 20th and is nervous about it")
     "nervous", "anxious", "worried", "excited", "scared", "terrified", "stressed", "upset",
     "gutted", "thrilled", "relieved"]
)  # fmt: skip
#: What makes a stage a habit ("is usually home by six", "is often ill"): it then holds.
_HABIT = frozenset(["usually", "always", "often", "never", "generally", "normally", "rarely"])


def _passing_stage(verb: Any, told: bool, coming: bool = False) -> bool:
    """Whether a present clause tells a passing stage, not a lasting property.

    "keeps" with an activity ("my iPad keeps asking me to update"), or a copula whose
    predicate is a stage as the outcome of an episode: marked as new ("now", "again") or
    told beside what happens (``told``: the statement has a main clause in the past or one
    its own words date: "Biscuit went off his food but is fine now", "had the operation and
    is home", "flies out on the 20th and is nervous about it"); or a need beside an episode
    to come (``coming``: "booked tickets to a fair in April and needs someone to look after
    the dog"; not beside a past one: "broke her hip last year and needs a stick"). A habit
    ("is usually home by six") holds, and so does a stage told alone ("her knees are fine
    on the bike").
    """
    if any(c.lower_ in _HABIT for c in verb.children):
        return False
    if coming and verb.lower_ in ("need", "needs"):
        return True  # what an episode to come needs ("... lands tomorrow and needs a cab")
    if verb.lower_ in ("keep", "keeps"):
        return any(c.dep_ == "xcomp" and c.tag_ == "VBG" for c in verb.children)
    if verb.lower_ not in _BE:
        return False
    stage = any(
        c.dep_ in ("acomp", "advmod", "attr", "prep") and c.lower_ in _STAGE for c in verb.children
    )
    return stage and (told or any(c.lower_ in ("now", "again") for c in verb.children))


def _holds_now(
    doc: Any,
    dated: Callable[[str], bool] | None = None,
    ahead: Callable[[str], bool] | None = None,
) -> bool:
    mains = _main_verbs(doc)
    told = any(  # an episode told beside it: a main clause in the past, or dated
        _tense(v) == "past" or (dated is not None and dated(_clause_text(v))) for v in mains
    )
    coming = ahead is not None and any(ahead(_clause_text(v)) for v in mains)
    for verb in _main_verbs(doc):
        said = [c for c in verb.children if c.dep_ == "ccomp" and c.i > verb.i]
        while _tense(verb) == "present" and said:  # "says (that) ...": what is said
            verb = said[0]
            said = [c for c in verb.children if c.dep_ == "ccomp" and c.i > verb.i]
        tense = _tense(verb)
        if tense != "present" and not (
            tense == "perfect" and (_up_to_now(verb) or _result_holds(verb))
        ):
            continue
        if _a_goal(verb):
            continue
        if _impression(verb):
            continue  # how something strikes the person now, not what it is
        if _passing_stage(verb, told, coming):
            continue  # "is fine now", "keeps asking me to update": for now
        if dated is not None and dated(_clause_text(verb)):
            continue  # its own clause dates it ("has a check-up on the 17th")
        if _of_the_person(_subject(verb)):
            return True
    return False


def holds_now(
    texts: Sequence[str],
    *,
    unparsed: bool = False,
    dated: Callable[[str], bool] | None = None,
    ahead: Callable[[str], bool] | None = None,
) -> list[bool]:
    """Whether each statement asserts, in a main clause, something that holds now of its person.

    ``unparsed``: the answer for every statement when the parser cannot load. ``dated``:
    whether a clause's own words date it (a day, a time to come): such a clause holds
    nothing now, though another clause of the statement may ("Her son is 17 and sits his
    exams next June": "is 17" holds now). A time belongs to its clause. ``ahead``: whether
    a clause's words date it to a time to come: a need told beside such a clause is that
    episode's ("flies out on the 20th and needs a lift to the airport"), not the person's.

    Example:
        >>> holds_now(["User had his stomach removed years ago and can only eat small meals.",
        ...            "User's mother slipped on ice and bruised her hip.",
        ...            "Doesn't drink any more, doctor's orders."])
        [True, False, True]
    """
    docs = _parsed(texts)
    return [unparsed] * len(texts) if docs is None else [_holds_now(d, dated, ahead) for d in docs]


#: Verbs of feeling and desire: in the progressive ("is loving the new flat", "craving
#: sushi lately") they tell how the person feels for now, not a lasting taste. Not
#: "missing": "is missing a front tooth" lacks one, for good.
_FELT = frozenset(
    ["loving", "liking", "hating", "craving", "fancying", "wanting", "adoring", "dreading",
     "enjoying"]
)  # fmt: skip
#: Words that make a feeling last ("has been wanting a dog for years", "since she was 6").
_LASTING = frozenset(["years", "year", "months", "decades", "ages", "since", "always", "forever"])


def _felt_now(doc: Any) -> bool:
    """Whether the statement tells a feeling of the moment by a progressive of feeling.

    A verb of feeling or desire in the progressive, its own auxiliary a form of *be* or left
    out with the subject ("craving mandazi lately", "halfway through the book, loving it"),
    and no span that makes the feeling last ("has been wanting a dog for years").
    """
    if any(t.lower_ in _LASTING for t in doc):
        return False
    if len(doc) > 1 and doc[0].lower_ in _FELT and doc[0].dep_ != "amod":
        return True  # a note that left out "I'm" (the small parser may read it as a name)
    return any(
        t.tag_ == "VBG"
        and t.lower_ in _FELT
        and all(c.lower_ in _BE for c in t.children if c.dep_ == "aux")
        and t.dep_ not in ("amod", "compound", "pobj", "dobj", "nsubj")
        for t in doc
    )


def passing_only(
    texts: Sequence[str],
    *,
    dated: Callable[[str], bool] | None = None,
    ahead: Callable[[str], bool] | None = None,
) -> list[bool]:
    """Whether each statement tells only a passing stage of now, nothing that holds.

    A main clause in the present is a passing stage (:func:`_passing_stage`: "my iPad keeps
    asking me to update", "the cat is fine now") and none holds now (:func:`holds_now`): what
    the text reading may have taken for a standing fact is the moment. ``False`` without the
    parser.

    Example:
        >>> passing_only(["My laptop keeps crashing and I don't know if I should reset it.",
        ...               "User keeps bees and sells the honey."])
        [True, False]
    """
    docs = _parsed(texts)
    if docs is None:
        return [False] * len(texts)
    out = []
    for doc in docs:
        mains = _main_verbs(doc)
        told = any(_tense(v) == "past" for v in mains)
        passing = _felt_now(doc) or any(
            _tense(v) == "present" and _passing_stage(v, told) for v in mains
        )
        out.append(passing and not _holds_now(doc, dated, ahead))
    return out
