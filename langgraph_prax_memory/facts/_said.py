"""What a statement kept from a conversation says: of whom, about what, by whose words.

Consolidation keeps a fact from a conversation only when it can be read later without its
conversation (:func:`stands_alone`: "User can paste it in slack" points at what only the
conversation named), tells something of the person rather than another's view of the world
(:func:`reported_views`: "User's friend says dark mode saves battery") and is not an
impression of the moment told by a simile (:func:`passing_impressions`). One parse answers
all three (:func:`read_statements`). Over the same parser and clause reading as
:mod:`._grammar` (what holds now).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langgraph_prax_memory.facts._attributes import _OTHER_PEOPLE
from langgraph_prax_memory.facts._grammar import (
    _CLAUSAL,
    _PERSONAL,
    _POINTING,
    _impression,
    _main_verbs,
    _subject,
)
from langgraph_prax_memory.facts._parser import parsed as _parsed

__all__ = [
    "StatementGrammar",
    "passing_impressions",
    "read_statements",
    "reported_views",
    "stands_alone",
]


_MODIFYING = frozenset(["advcl", "relcl", "acl"])
_ARGUMENTS = frozenset(["nsubj", "nsubjpass", "dobj", "pobj", "attr", "dative"])


def _clause_of(token: Any) -> Any:
    """The verb heading the clause ``token`` is an argument of.

    A verb that completes another ("is going to *kill*", "wants to *sell*", an ``xcomp``)
    shares its governor's clause: its subject is the governor's.
    """
    head = token.head
    while head.head.i != head.i and (head.dep_ == "prep" or head.pos_ not in ("VERB", "AUX")):
        head = head.head
    while head.dep_ == "xcomp" and head.head.i != head.i:
        head = head.head
    return head


#: Nouns that name a person — the people of a person's life (:mod:`._attributes`) and
#: partners, the people of work and home: a pointing pronoun never refers back to one
#: ("User's boss is going to kill them when he sees this").
_PEOPLE = _OTHER_PEOPLE | frozenset(
    ["baby", "wife", "husband", "partner", "girlfriend", "boyfriend", "fiance", "fiancé",
     "fiancée", "mate", "mates", "boss", "manager", "coworker", "team", "nan", "gran",
     "teacher", "doctor", "landlord", "family", "everyone", "everybody", "people", "guy",
     "girl", "man", "woman", "lad", "lads", "bloke"]
)  # fmt: skip
#: The demonstratives: "it" points, but picks nothing out of a list.
_DEMONSTRATIVES = _POINTING - {"it"}

_NO_ANTECEDENT = _PEOPLE | {"user"}
#: Verbs of feeling whose "it" object can stand for a clause after it ("hates it when ...").
_FEELING = frozenset(
    ["love", "loves", "loved", "hate", "hates", "hated", "like", "likes", "liked", "mind",
     "minds", "prefer", "prefers", "adore", "adores", "enjoy", "enjoys", "stand"]
)  # fmt: skip


def _anticipates(pronoun: Any) -> bool:
    """Whether an "it" object of a verb of feeling stands for the "when"/"if" clause after it.

    "User hates it when people are late", "the dog loves it when it snows": what "it" is,
    is said next. Not "User messes it up when they are tired" (no verb of feeling).
    """
    head = pronoun.head
    if pronoun.lower_ != "it" or pronoun.dep_ != "dobj" or head.lower_ not in _FEELING:
        return False
    return any(
        c.dep_ == "advcl"
        and c.i > pronoun.i
        and any(m.lower_ in ("when", "whenever", "if") for m in c.children)
        for c in head.children
    )


#: Verbs of learning or being told something: what a clause of theirs takes in is news.
_LEARNING = frozenset(
    ["see", "sees", "saw", "seen", "hear", "hears", "heard", "find", "finds", "found", "learn",
     "learns", "learned", "learnt", "read", "reads", "notice", "notices", "noticed", "realise",
     "realises", "realised", "realize", "realizes", "realized", "discover", "discovers",
     "discovered", "tell", "tells", "told", "show", "shows", "showed", "shown", "know",
     "knows", "spot", "spots", "spotted"]
)  # fmt: skip
#: The future of a prediction: "will", "'ll", "is going to", "gonna".
_FUTURE_AUX = frozenset(["will", "'ll", "wo", "shall"])
_GOING = frozenset(["going", "gon"])

#: Verbs of mind that take what is minded as their object ("forgets the bins", "knows
#: Spanish"): without one, it is what the conversation said ("I always forget").
_MINDING = frozenset(
    ["forget", "forgets", "forgot", "forgotten", "remember", "remembers", "remembered",
     "know", "knows", "knew", "mention", "mentions", "mentioned", "understand",
     "understands", "understood", "realise", "realised", "realize", "realized"]
)  # fmt: skip
_MINDED = frozenset(["dobj", "ccomp", "xcomp", "prep", "attr", "dative", "pcomp", "oprd", "advcl"])

#: The nouns of a choice among options shown ("the second option", "that one", "the first
#: version"), and the words that pick one of them.
_CHOICES = frozenset(
    ["one", "ones", "option", "options", "version", "versions", "suggestion", "suggestions",
     "draft", "choice", "pick"]
)  # fmt: skip
_ORDINALS = frozenset(
    ["first", "second", "third", "fourth", "fifth", "last", "other", "latter", "former",
     "next", "previous", "top", "bottom", "middle"]
)  # fmt: skip
#: Verbs of liking or choosing: a quoted object of theirs is the conversation's own words.
_CHOOSING = frozenset(
    ["like", "likes", "love", "loves", "prefer", "prefers", "adore", "adores", "fancy",
     "pick", "picks", "choose", "chooses", "chose"]
)  # fmt: skip
_QUOTES = frozenset(["'", '"', "\u2018", "\u201c", "``", "`"])


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
    if _anticipates(pronoun):
        return False  # "loves it when it snows": "it" anticipates its clause
    for t in pronoun.doc[: pronoun.i]:
        if t.pos_ not in ("NOUN", "PROPN") or t.lower_ in _NO_ANTECEDENT:
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
        if _predicts_news(verb) or _quoted_choice(verb) or _minds_nothing(verb):
            continue
        if not any(
            (t.lower_ in _POINTING and t.dep_ in _ARGUMENTS and _points_at_nothing(t))
            or _shown_subject(t)
            or _shown_choice(t)
            for t in words
        ):
            return True
    return False


def _minds_nothing(verb: Any) -> bool:
    """Whether a verb of mind has lost what it minds ("User always forgets").

    "Forget", "remember", "know", "mention" take what is minded as their object; said with
    none ("Thank you, I always forget"), the object is what the conversation just said.
    """
    return verb.lower_ in _MINDING and not any(c.dep_ in _MINDED for c in verb.children)


def _future(verb: Any) -> bool:
    """Whether a clause tells what will be: "will freak out", "is going to kill", "gonna"."""
    if any(c.dep_ == "aux" and c.lower_ in _FUTURE_AUX for c in verb.children):
        return True
    return verb.lower_ in _GOING and any(c.dep_ == "xcomp" for c in verb.children)


def _predicts_news(verb: Any) -> bool:
    """Whether a clause predicts how someone will take news the conversation holds.

    A future clause ("User's sister will freak out", "Eli is going to lose his mind") whose
    time is a clause of learning or being told ("when she hears", "when User tells him
    that", "once he sees this") with nothing told but a pointing pronoun or a person: the
    news is what the conversation said, so read later the prediction is about nothing. "Mum
    will be thrilled when User tells her they got the job" names its news: not this.
    """
    if not _future(verb):
        return False
    chain = [verb, *(c for c in verb.children if c.dep_ == "xcomp")]
    for clause in (c for v in chain for c in v.children if c.dep_ == "advcl"):
        if clause.lower_ not in _LEARNING:
            continue
        told = [
            c
            for c in clause.children
            if c.dep_ in ("dobj", "ccomp", "xcomp", "attr", "pobj", "prep")
            and not (c.lower_ in _POINTING or c.lower_ in _PERSONAL or c.tag_ == "PRP")
        ]
        if not told:
            return True
    return False


def _shown_choice(token: Any) -> bool:
    """Whether ``token`` names a choice among options shown ("the second option").

    "The first one", "that option", "the other version": one of a list only the conversation
    holds. Unless the same noun came before it ("User has two bikes; the first one ...").
    """
    if token.lower_ not in _CHOICES or token.i == 0:
        return False
    doc = token.doc
    if any(c.dep_ in ("poss", "prep") for c in token.children):
        return False  # "User's first choice", "the first one in their family"
    if token.i + 1 < len(doc) and doc[token.i + 1].lower_ in ("in", "of", "to", "for"):
        return False
    before = doc[max(0, token.i - 2) : token.i]
    words = [t.lower_ for t in before]
    if any(w in ("my", "your", "his", "her", "their", "our", "its", "'s") for w in words):
        return False  # "my first choice is Edinburgh": theirs, not one shown
    picked = bool(words) and (words[-1] in _ORDINALS or words[-1] in _DEMONSTRATIVES)
    if not picked:
        return False
    return not any(t.lower_ == token.lower_ for t in doc[: before.start])


def _quoted_choice(verb: Any) -> bool:
    """Whether a verb of liking or choosing takes a quoted object ("User likes 'Squeeze'").

    Quotes in a chat turn repeat words already in the conversation, most often a name the
    assistant proposed: "ooh i like 'Harbour Lights', that one's perfect" answers a
    suggestion; it is no taste of the person's to keep. Only when the turn also points back
    at it as one of several ("that one", "go with that"): "I love 'Dune'" is a taste.
    """
    if verb.lower_ not in _CHOOSING:
        return False
    doc = verb.doc
    after = [t for t in doc[verb.i + 1 : verb.i + 3] if t.lower_ != "the"]
    if not (after and after[0].text in _QUOTES):
        return False
    # and the turn points back at it as one of several ("that one's perfect", "go with that")
    words = [t.lower_ for t in doc]
    return any(
        (a in ("that", "this") and b in ("one", "name", "title")) or (a, b) == ("go", "with")
        for a, b in itertools.pairwise(words)
    )


def _shown_subject(det: Any) -> bool:
    """Whether ``det`` makes its clause's subject a thing shown, not named ("This traffic").

    A demonstrative determiner of a subject points at what the speaker has before them, as a
    pointing pronoun does: read later, "This traffic will finish User" is about nothing.
    Unless the same noun came before it ("User bought a bike; this bike is ...").
    """
    head = det.head
    if det.dep_ != "det" or det.lower_ not in _DEMONSTRATIVES:
        return False
    if head.dep_ not in ("nsubj", "nsubjpass") or head.pos_ != "NOUN":
        return False
    return not any(t.lower_ == head.lower_ for t in det.doc[: det.i])


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
