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
not allowed"), a present modal of ability or obligation ("can only manage", "must avoid"),
a perfect that runs up to now ("hasn't smoked since 2015") — with the person as its subject
("User", a pronoun, a name, a bare note without a subject) or something the person has
("User's dog Mole", "The user's shop"). Not a present progressive
("is flying to Osaka"), a perfect of an event ("the cataracts have not changed": the
result of a check-up), an intention ("plans to"), a future or conditional modal, a subject
that is only a pronoun pointing elsewhere ("it", "that"), or a thing without an owner
("the repair quote is 3,400 dollars"). A present verb of saying or thinking with a clause
("User says the food was nice") is read through to the clause.

The parser is spaCy's small English pipeline (:mod:`._parser`); when it cannot load, every
statement reads as not holding now (the classifier alone decides) and a warning says so once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langgraph_prax_memory.facts._parser import GRAMMAR_MODEL, GRAMMAR_WEIGHTS, known_word
from langgraph_prax_memory.facts._parser import parsed as _parsed

__all__ = [
    "GRAMMAR_MODEL",
    "GRAMMAR_WEIGHTS",
    "holds_now",
    "passing_only",
    "StatementGrammar",
    "passing_impressions",
    "read_statements",
    "reported_views",
    "stands_alone",
]

_PRESENT_AUX = frozenset(
    ["is", "are", "am", "'s", "'re", "'m", "has", "have", "'ve", "does", "do", "can", "ca", "must"]
)
_PAST_AUX = frozenset(["was", "were", "had", "did"])
_MODAL = frozenset(["will", "'ll", "shall", "wo", "would", "'d", "could", "might", "should", "may"])
_BE = frozenset(["be", "is", "are", "am", "was", "were", "been", "being", "'s", "'re", "'m"])
_PERSONAL = frozenset(["i", "we", "he", "she", "they", "you", "user"])
_POINTING = frozenset(["it", "this", "that", "these", "those"])
#: A present verb of intention or need with an infinitive ("plans to", "wants to", "is going
#: to", "needs to find a sitter"): a goal, not a state; whether it is a lasting constraint
#: ("needs to avoid gluten") is the classifier's to say, from what the goal is.
_INTENDING = frozenset(
    ["plans", "plan", "intends", "hopes", "wants", "going", "hoping", "planning", "needs", "need"]
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
        if verb.lower_ in _INTENDING and any(c.dep_ == "xcomp" for c in verb.children):
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
        passing = any(_tense(v) == "present" and _passing_stage(v, told) for v in mains)
        out.append(passing and not _holds_now(doc, dated, ahead))
    return out


#: Dependents that make a clause of an "it" subject an extraposition or a time expression
#: ("It's been three years since ...", "It takes an hour to ..."): "it" points at nothing.
_CLAUSAL = frozenset(["advcl", "ccomp", "xcomp", "csubj", "relcl", "acl"])
_MODIFYING = frozenset(["advcl", "relcl", "acl"])
_ARGUMENTS = frozenset(["nsubj", "nsubjpass", "dobj", "pobj", "attr", "dative"])


def _clause_of(token: Any) -> Any:
    """The verb heading the clause ``token`` is an argument of."""
    head = token.head
    while head.head.i != head.i and (head.dep_ == "prep" or head.pos_ not in ("VERB", "AUX")):
        head = head.head
    return head


def _points_at_nothing(pronoun: Any) -> bool:
    """Whether a pointing pronoun has no antecedent earlier in its text.

    Its antecedent must be a noun that is not a co-argument of its own clause (a pronoun
    cannot take one: "Planning food for it"; "the Golf's gone, sold it" can), and not a
    person ("User always thought it was ..."); an "it" subject of a clause with a clausal
    dependent is extraposed, not pointing.
    """
    clause = _clause_of(pronoun)
    extraposed = pronoun.lower_ == "it" and pronoun.dep_ in ("nsubj", "nsubjpass", "expl")
    if extraposed and any(c.dep_ in _CLAUSAL for c in clause.children):
        return False
    for t in pronoun.doc[: pronoun.i]:
        if t.pos_ not in ("NOUN", "PROPN") or t.lower_ == "user":
            continue
        if not (t.dep_ in _ARGUMENTS and _clause_of(t).i == clause.i):  # not a co-argument
            return False
    return True


def _says_what_it_is_about(doc: Any) -> bool:
    """Whether one of the main clauses of ``doc`` has no argument pointing at nothing."""
    verbs = _main_verbs(doc) or [next(iter(doc.sents)).root]
    mains = {v.i for v in verbs}
    for verb in verbs:
        # the clause's own words: its subtree less the other main clauses coordinated in it
        # and the clauses that only modify its verb ("Finally done it, moved ..." is about
        # moving; a verbless "Planning food for it, quick thing" is about its clause)
        others = {
            t.i
            for v in verb.children
            if v.i in mains or (verb.pos_ in ("VERB", "AUX") and v.dep_ in _MODIFYING)
            for t in v.subtree
        }
        words = [t for t in verb.subtree if t.i not in others]
        if not any(
            t.lower_ in _POINTING and t.dep_ in _ARGUMENTS and _points_at_nothing(t) for t in words
        ):
            return True
    return False


def stands_alone(texts: Sequence[str]) -> list[bool]:
    """Whether each statement says what it is about, out of the conversation it came from.

    A memory is read later, alone: "User can paste it in slack", "User always messes it up",
    "It's on the tip of User's tongue" point at something only the conversation named. A
    statement does not stand alone when each of its main clauses has an argument that is a
    pointing pronoun ("it", "this", "that", "these", "those"; not "them", which a rewritten
    turn uses for the person) with no antecedent earlier in the text
    (:func:`_points_at_nothing`); "Finally done it, moved User's account to Starling" stands
    alone by its second clause. When the parser cannot load, every statement stands alone.

    Example:
        >>> stands_alone(["User can paste it in slack.",
        ...               "User bought a Fiat last year and it has been reliable.",
        ...               "It's been three years since User moved to Lisbon."])
        [False, True, True]
    """
    return [r.alone for r in read_statements(texts)]


#: Verbs of saying and thinking, as written: what follows them is someone's words or view.
_SAYING = frozenset(
    ["say", "says", "said", "reckon", "reckons", "reckoned", "think", "thinks", "thought",
     "believe", "believes", "believed", "claim", "claims", "claimed", "insist", "insists",
     "insisted", "swear", "swears", "swore", "tell", "tells", "told", "argue", "argues",
     "argued", "reckoning", "saying", "keeps", "mention", "mentions", "mentioned"]
)  # fmt: skip


def _reporter(verb: Any) -> Any:
    """The subject of a verb of saying when it is another person than the memory's own."""
    subject = _subject(verb)
    if subject is None or subject.lower_ in _PERSONAL or subject.lower_ in _POINTING:
        return None
    if any(c.dep_ == "poss" for c in subject.children) or subject.pos_ == "PROPN":
        return subject  # "User's friend", "User's husband Gary", "Sam"
    return None


#: Modal verbs of advice and speculation: a reported clause they govern ("they should try
#: audiobooks", "she might be pregnant") is what someone suggests or guesses, not a fact.
_ADVISING = frozenset(["should", "ought", "could", "might", "may"])


def _advice(clause: Any) -> bool:
    """Whether a reported clause is advice or a guess ("User's wife says they should ...")."""
    return any(c.dep_ == "aux" and c.lower_ in _ADVISING for c in clause.children)


def _of_the_world(clause: Any) -> bool:
    """Whether a reported clause is about something else than a person ("the coach").

    Its subject may be parsed as a clausal one ("ai will take all the jobs"). What another
    advises or guesses of anyone ("they should rent a bounce house") is theirs to say, not a
    fact of the person either.
    """
    if _advice(clause):
        return True
    subject = _subject(clause) or next((c for c in clause.children if c.dep_ == "csubj"), None)
    if subject is None or subject.lower_ in _PERSONAL or subject.pos_ == "PROPN":
        return False
    return not any(c.dep_ == "poss" for c in subject.children)  # "User's car" is theirs


def _relation_named(reporter: Any) -> str | None:
    """The reporter's relation and name as a fact ("User's husband is Gary."), or ``None``.

    The parser reads the name as the head ("gary", the relation a compound of it) or as an
    apposition of the relation ("brother", "Tomasz" in apposition).
    """
    owner = next((c for c in reporter.children if c.dep_ == "poss"), None)
    if owner is None:
        return None
    if reporter.pos_ == "PROPN":
        relation = next((c for c in reporter.children if c.dep_ == "compound"), None)
        name = reporter
    else:
        relation = reporter
        name = next((c for c in reporter.children if c.dep_ == "appos"), None)
    if relation is None or name is None or relation.pos_ != "NOUN" or not relation.is_lower:
        return None
    if name.pos_ != "PROPN":
        return None
    return f"{owner.text}'s {relation.lower_} is {name.text[:1].upper()}{name.text[1:]}."


def _asks(verb: Any) -> bool:
    """Whether a main clause is a question by its word order ("is that right")."""
    subject = _subject(verb)
    return verb.pos_ == "AUX" and subject is not None and subject.i > verb.i


def _report(doc: Any) -> str | None:
    verbs = [v for v in _main_verbs(doc) if not _asks(v)]  # "..., is that right"
    if not verbs:
        return None
    kept: list[str] = []
    for verb in verbs:
        said = [c for c in verb.children if c.dep_ == "ccomp" and c.i > verb.i]
        reporter = _reporter(verb)
        if verb.lower_ not in _SAYING or reporter is None or not said:
            return None  # a clause of the person's own
        if not all(_of_the_world(c) for c in said):
            return None  # what is said is of a person ("the doctor says I'm prediabetic")
        named = _relation_named(reporter)
        if named is not None:
            kept.append(named)
    return " ".join(dict.fromkeys(kept))


def reported_views(texts: Sequence[str]) -> list[str | None]:
    """Which statements only report another person's words or view of something else.

    "User's friend says dark mode saves battery", "User's colleague said the coach should
    resign": each main clause is a verb of saying or thinking whose subject is another person
    and what is said is about neither a person nor anything of theirs. Such a statement is
    not a fact of the person; what it does tell of their life is the reporter, when it is
    named through its relation ("User's husband gary reckons ..." tells "User's husband is
    Gary."). For each text: ``None`` when it is not such a report, else what it tells of the
    person's life (``""``: nothing). What is said of a person stays a fact ("User's doctor
    says they are prediabetic"), unless it is advice or a guess ("User's wife says they should
    try audiobooks": a modal of advice or speculation). Without the parser, nothing is a report.

    Example:
        >>> reported_views(["User's friend says dark mode saves battery.",
        ...                 "User's husband Gary reckons the manager should be sacked.",
        ...                 "User's doctor says they are prediabetic."])
        ['', "User's husband is Gary.", None]
    """
    return [r.view for r in read_statements(texts)]


def passing_impressions(texts: Sequence[str]) -> list[bool]:
    """Whether each statement only tells an impression of the moment, by a simile.

    "User's eyes feel like sandpaper", "User's laptop fan sounds like a jet engine": each main
    clause is a verb of perception or seeming with a "like" simile — how something strikes
    the person as they speak, not a fact of them to keep. A statement with another main
    clause ("..., they have had dry eye since the surgery") is not one. Without the parser,
    nothing is.

    Example:
        >>> passing_impressions(["User's eyes feel like sandpaper.",
        ...                      "User feels like a new person and sleeps well."])
        [True, False]
    """
    return [r.impression for r in read_statements(texts)]


def _impressed(doc: Any) -> bool:
    verbs = [v for v in _main_verbs(doc) if not _asks(v)]
    return bool(verbs) and all(_impression(v) for v in verbs)


@dataclass(frozen=True)
class StatementGrammar:
    """What the grammar reads of a statement kept from a conversation (one parse).

    ``alone``: :func:`stands_alone`; ``view``: :func:`reported_views`; ``impression``:
    :func:`passing_impressions`.
    """

    alone: bool = True
    view: str | None = None
    impression: bool = False


def read_statements(texts: Sequence[str]) -> list[StatementGrammar]:
    """:func:`stands_alone`, :func:`reported_views` and :func:`passing_impressions` at once.

    Each text is parsed once (consolidation asks all three of every fact it keeps). Without
    the parser, every statement stands alone, reports nothing and is no impression.

    Example:
        >>> [r.impression for r in read_statements(["User's eyes feel like sandpaper."])]
        [True]
    """
    docs = _parsed(texts)
    if docs is None:
        return [StatementGrammar()] * len(texts)
    return [
        StatementGrammar(_says_what_it_is_about(d), _report(d), _impressed(d))
        if len(d)
        else StatementGrammar()
        for d in docs
    ]
