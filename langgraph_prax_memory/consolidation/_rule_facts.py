"""What the rule-based extractor stores of a sentence, and the changes of state it reads.

``sentence_facts``: the facts of one sentence as normalized third-person statements (a state
relation's canonical sentence, the sentence itself when it says more); ``life_change``: a new
job, a job left, a partner, a break-up, a diet, a renamed project.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from langgraph_prax_memory._when import names_a_day
from langgraph_prax_memory.consolidation._clauses import statement_clauses
from langgraph_prax_memory.consolidation._models import (
    ExtractedEntity,
    ExtractedFact,
    ExtractedRelation,
)
from langgraph_prax_memory.consolidation._normalize import state_statement, third_person
from langgraph_prax_memory.consolidation._rule_patterns import (
    _BREAK_UP,
    _CONTEXT,
    _CRITICAL,
    _DIET,
    _FIRST_PERSON,
    _HEDGE,
    _LEFT_JOB,
    _NEW_JOB,
    _PARTNER,
    _PREFERENCE,
    _RENAMED,
    _WORD,
    SUPERSEDES_CURRENT,
    _clean_object,
    _terms,
)
from langgraph_prax_memory.consolidation._smalltalk import (
    _GENERIC,
    OPENS_WITH_CONDITION,
    asks,
    junk_reason,
    without_response,
)

#: The standing-fact tag (the context's profile tier, docs/context.md) of each state relation.
STATE_TAGS = {
    "lives_in": "profile",
    "works_at": "profile",
    "partner_of": "relationship",
    "prefers": "preference",
}
_ALLERGY = re.compile(r"\b(?:allergic|allergy|intoleran\w*|can't eat|cannot eat)\b", re.I)

__all__ = ["life_change", "named_in_passing", "sentence_facts", "with_antecedent"]

#: Words of a state statement's sentence that its canonical form already says ("I moved to
#: Berlin and work at Acme Corp now" is "User lives in Berlin." and "User works at Acme Corp.").
_STATE_WORDS = frozenset(
    _terms(
        "live lives living lived moved move moving relocated relocating based settled work "
        "works working job new got started start joined landed took position role current "
        "currently recently finally city town partner girlfriend boyfriend wife husband "
        "dating seeing"
    )
)


def life_change(
    sentence: str,
    obj: Callable[..., str | None],
    rel: Callable[..., None],
    *,
    change: bool,
) -> bool | None:
    """A renamed project, a break-up, a job left or started, a partner, a diet.

    Adds the relation through ``rel`` and returns True; None when nothing matched.
    """
    hit = _RENAMED.search(sentence)
    if hit is not None:
        old = _clean_object(hit.group("old") or hit.group("old2") or "")
        new_raw = _clean_object(hit.group("new") or hit.group("new2") or "")
        new = obj(new_raw, "project") if new_raw else None
        if old and new:
            obj(old, "project")
            rel("works_on", new, old)
            return True
    hit = _BREAK_UP.search(sentence)
    if hit is not None:
        old = obj(_clean_object(hit.group("old") or hit.group("old2") or ""), "person")
        if old:
            rel("partner_of", old, old)
            return True
    hit = _LEFT_JOB.search(sentence)
    if hit is not None:
        old = obj(_clean_object(hit.group("old")), "organization")
        if old:
            rel("works_at", old, old)
            return True
    hit = _NEW_JOB.search(sentence)
    if hit is not None:
        new = obj(_clean_object(hit.group("obj")), "organization")
        if new:
            rel("works_at", new, SUPERSEDES_CURRENT)
            return True
    hit = _PARTNER.search(sentence)
    if hit is not None:
        new = obj(_clean_object(hit.group("obj")), "person")
        if new:
            moved_on = change or hit.group("new_word") is not None or bool(hit.group("verb"))
            rel("partner_of", new, SUPERSEDES_CURRENT if moved_on else None)
            return True
    hit = _DIET.search(sentence)
    if hit is not None:
        new = obj(hit.group("new").lower(), "topic")
        if new:
            rel("prefers", new, SUPERSEDES_CURRENT)
            return True
    return None


def sentence_facts(
    who: str,
    sentence: str,
    named: Sequence[ExtractedEntity],
    index: int,
    *,
    stated: Sequence[ExtractedRelation],
    whole: bool,
) -> list[ExtractedFact]:
    """The facts of one sentence, as normalized third-person statements.

    A state relation ("I moved to Berlin", "I work at Acme Corp now") gives its canonical
    sentence ("User lives in Berlin.", "User works at Acme Corp."); the sentence itself is
    kept (in the third person) when ``whole``: some clause of it states more than that.
    """
    changed = any(r.supersedes for r in stated)
    subject = who[:1].upper() + who[1:]
    out: list[ExtractedFact] = []
    for r in stated:
        if r.supersedes is not None and r.supersedes.strip().lower() == r.target.lower():
            continue  # a closing states no new value
        text = state_statement(r.type, subject, r.target)
        if text is None or r.confidence < 0.6:
            continue
        out.append(
            ExtractedFact(
                content=text,
                importance=0.9 if changed else 0.7,
                confidence=r.confidence,
                entities=[who, r.target],
                tags=[STATE_TAGS.get(r.type, "profile")],
                source_index=index,
            )
        )
    if out and not whole:  # the statements say it all unless the sentence says more
        said = {w.lower().strip("'’.-") for f in out for w in _WORD.findall(f.content)}
        rest = [
            w
            for w in (t.lower().strip("'’.-") for t in _WORD.findall(sentence))
            if w and w not in said and w not in _GENERIC and w not in _STATE_WORDS
        ]
        whole = bool(rest)
    if whole or not out:
        fact = _fact(subject, sentence, named, index, changed=changed)
        if fact is not None and fact.content not in {f.content for f in out}:
            out.append(fact)
    return out


_CLAUSE_BREAK = re.compile(r"\s*(?:[,;:]|\s[-–—])\s+")


#: A statement that opens with a verb in the past tense has dropped its subject, as people do
#: in chat ("cancelled my gym membership yesterday", "got fibre installed on Tuesday"): the
#: speaker's. Adjectives in -ed ("tired", "married") are no such verb.
_DROPPED_SUBJECT = re.compile(
    r"^(?!(?:tired|bored|excited|married|scared|worried|interested|stressed|confused|"
    r"annoyed|relieved|exhausted|obsessed|surprised|amazed|pleased|shocked|gutted|based|"
    r"located|called|named|used|supposed|involved|related|engaged|retired|qualified)\b)"
    r"(?:(?:just|finally|only|also|actually|literally|totally|already|accidentally)\s+)?"
    r"(?:[a-z][a-z-]{2,}(?<!e)ed|got|gave|bought|sold|took|went|made|found|left|quit|met|began|"
    r"brought|came|caught|drove|had|ran|saw|spent|told|thought|won|wrote|paid|put|kept|forgot|"
    r"lost|broke|ate|drank|slept|woke|fell|felt|heard|knew|sent|sat|stood|wore|tore|swam)\b"
    # a word the sentence goes on to say something of is its subject ("Solarized is ...")
    r"(?!\s+(?:is|are|was|were|has|have|had|will|would|can|could|does|did|isn't|wasn't)\b)"
    r"(?!['’]s\b)",
    re.I,
)


#: A perfect with its subject and auxiliary dropped ("been a nurse for 11 years", "been
#: running the same loop every sunday"), and an intention with them dropped ("gonna grab
#: lunch", "about to head out"): the speaker's.
_DROPPED_PERFECT = re.compile(r"^(?:(?:just|also|only|literally|basically)\s+)?been\b", re.I)
_DROPPED_INTENT = re.compile(
    r"^(?:(?:just|also|prob|probably)\s+)?(?:gonna|going to|about to|off to)\b", re.I
)


#: "got" with its subject dropped, before what is had ("got type 2 diabetes", "got two
#: kids"): the speaker's "I've got", a state now; not before a particle, a participle or an
#: adjective of becoming ("got back", "got engaged", "got fibre installed" keeps its past),
#: nor in a statement that names a day ("got a new bike on Saturday": an event).
_DROPPED_HAVE_GOT = re.compile(
    r"^(?:(?:also|still|only|already)\s+)?got\s+"
    r"(?!(?:back|up|off|home|in|out|there|here|to|into|over|away|lost|stuck|sick|ill|caught|"
    r"told|rid|used|ready|dressed|bored|tired|better|worse|lucky|it|that|this)\b)"
    r"(?!\w+ed\b|(?:taken|broken|given|stolen|beaten|bitten|forgotten|chosen|written|eaten|"
    r"driven|hidden|woken|spoken|frozen|shaken|sworn|torn|worn)\b)(?=\w)",
    re.I,
)


def with_subject(statement: str) -> str:
    """A first-person statement with its dropped subject put back ("I" before the verb).

    Example:
        >>> with_subject("cancelled my PureGym membership yesterday")
        'I cancelled my PureGym membership yesterday'
        >>> with_subject("tired of this weather")
        'tired of this weather'
        >>> with_subject("Red wine gives me a headache")
        'Red wine gives me a headache'
        >>> with_subject("Solarized is my new favourite")
        'Solarized is my new favourite'
        >>> with_subject("been vegetarian since college")
        "I've been vegetarian since college"
        >>> with_subject("got type 2 diabetes"), with_subject("got back from Spain")
        ("I've got type 2 diabetes", 'I got back from Spain')
    """
    text = statement.lstrip()
    if _DROPPED_HAVE_GOT.match(text) and not names_a_day(text):  # "I've got diabetes"
        return f"I've {text[:1].lower()}{text[1:]}"
    if _DROPPED_SUBJECT.match(text):
        return f"I {text[:1].lower()}{text[1:]}"
    if _DROPPED_PERFECT.match(text):  # "been vegetarian since college": "I've been ..."
        return f"I've {text[:1].lower()}{text[1:]}"
    if _DROPPED_INTENT.match(text):  # "gonna grab a cuppa": "I'm gonna ..."
        return f"I'm {text[:1].lower()}{text[1:]}"
    return statement


#: The subject and auxiliary of an intention or obligation opening a statement ("I'm gonna",
#: "I'll", "we have to", "I'm going to" before a verb): a verb coordinated with it shares them.
_INTENT_HEAD = re.compile(
    r"^(?:I|we)(?:(?:['’]m| am|['’]re| are)\s+(?:gonna|about to|going to(?!\s+(?:the|a|an|my|"
    r"our|his|her|their|see|be)\b))"
    r"|(?:['’]ll| will| have to| need to| got to| gotta| wanna| want to| should| must))(?=\s)",
    re.I,
)
#: A clause opening with a word that cannot be a verb sharing the subject of the one before:
#: a pronoun, a determiner, a name (a capital), a participle or gerund.
_NOT_A_BARE_VERB = re.compile(
    r"^(?:I\b|I['’]|we\b|you\b|he\b|she\b|they\b|it\b|my\b|our\b|the\b|a\b|an\b|"
    r"this\b|that\b|there\b|his\b|her\b|their\b|[A-Z]|\w+(?:ing|ed)\b)"
)


#: A clause whose first word or two are its subject, before a finite verb ("dinner is at
#: six", "the kids are asleep"): not a verb sharing the subject of the clause before.
_OWN_VERB = re.compile(
    r"^[\w'’-]+(?:\s+[\w'’-]+)?\s+(?:is|are|was|were|has|have|had|does|do|did|will|can|"
    r"won't|can't|isn't|aren't|wasn't)\b",
    re.I,
)


def with_subjects(clauses: Sequence[str]) -> list[str]:
    """Each statement with its dropped subject put back, a coordinated verb with its head's.

    A verb coordinated with an intention or an obligation shares its subject and auxiliary
    ("gonna have a cuppa and put the telly on": "I'm gonna put the telly on", not "I put
    the telly on"); any other clause is read by :func:`with_subject`.

    Example:
        >>> with_subjects(["gonna have a cuppa", "put the telly on"])
        ["I'm gonna have a cuppa", "I'm gonna put the telly on"]
        >>> with_subjects(["I'll grab milk", "my sister lives in York"])
        ["I'll grab milk", 'my sister lives in York']
        >>> with_subjects(["I'll pick up the kids", "dinner is at six"])
        ["I'll pick up the kids", 'dinner is at six']
    """
    out: list[str] = []
    for clause in clauses:
        head = _INTENT_HEAD.match(out[-1]) if out else None
        bare = clause.lstrip()
        if (
            head is not None
            and bare
            and not _NOT_A_BARE_VERB.match(bare)
            and not _OWN_VERB.match(bare)  # "dinner is at six": a subject of its own
        ):
            out.append(f"{head.group(0)} {bare}")
        else:
            out.append(with_subject(clause))
    return out


#: A clause that makes a statement of its own: the speaker is its subject ("I ...", "we're
#: ...", "my knees are ..."). Anything else ("closer to my mum", "same kind of nursing")
#: elaborates the clause before it.
_OWN_SUBJECT = re.compile(
    r"\b(?:I|we)(?:'m|'ve|'d|'ll|'re|’m|’ve|’d|’ll|’re)?\b"
    r"|^(?:my|our)\s+(?:[\w'’]+\s+){0,2}?(?:is|are|was|were|has|have|had|does|do|did|\w+s)\b",
    re.I,
)


def own_statements(clauses: Sequence[str]) -> list[str]:
    """Clauses joined so that each after the first states something of the speaker's own.

    A later clause without the speaker as its subject stays with the clause before it, as
    written; the first stands as it is (an aside to the listener, "ok don't laugh", is judged
    on its own).

    Example:
        >>> own_statements(["we're in Sheffield now", "closer to my mum", "I love it"])
        ["we're in Sheffield now, closer to my mum", 'I love it']
    """
    out: list[str] = []
    for clause in clauses:
        if out and not _OWN_SUBJECT.search(clause):
            out[-1] = f"{out[-1]}, {clause}"
        else:
            out.append(clause)
    return out


#: A main clause in the conditional mood ("I would buy", "we'd move", "id hire").
_CONDITIONAL_MOOD = re.compile(
    r"^\W*(?:I|we|User|you|they|he|she|it)(?:\s+(?:would|could|might|wouldn't|couldn't)\b"
    r"|['’]d\b)|^\W*id\s",
    re.I,
)


def with_their_condition(clauses: Sequence[str]) -> list[str]:
    """A condition stays with a main clause in the conditional mood after it.

    "if money was no object, I would buy a castle": beside its condition the main clause
    tells what would be (small talk, :func:`~._smalltalk.junk_reason`); alone it reads as
    a plan. A main clause of another mood is judged on its own, as before ("if it's sunny,
    I cycle to work" keeps the cycling, whatever is said of the weather).

    Example:
        >>> with_their_condition(["if money was no object", "I would buy a castle", "I'm a vet"])
        ['if money was no object, I would buy a castle', "I'm a vet"]
        >>> with_their_condition(["if it's sunny", "I cycle to work"])
        ["if it's sunny", 'I cycle to work']
    """
    out: list[str] = []
    for clause in clauses:
        if out and OPENS_WITH_CONDITION.match(out[-1]) and _CONDITIONAL_MOOD.match(clause):
            out[-1] = f"{out[-1]}, {clause}"
        else:
            out.append(clause)
    return out


def _without_trailing_question(sentence: str) -> str:
    """A statement with a question tacked on loses only the question.

    "we moved to Leith, any tips?": the clauses before the last break are kept when they
    hold at least three words.

    Example:
        >>> _without_trailing_question("I moved to Leith last month, any tips for the bus?")
        'I moved to Leith last month.'
        >>> _without_trailing_question("Do you know a good dentist?")
        'Do you know a good dentist?'
    """
    if not sentence.rstrip().endswith("?"):
        return sentence
    parts = _CLAUSE_BREAK.split(sentence.rstrip())
    if len(parts) < 2:
        return sentence
    head = ", ".join(p.strip() for p in parts[:-1] if p.strip()).rstrip(" ,;:")
    if len(re.findall(r"\w+", head)) < 3 or head.endswith("?"):
        return sentence
    return head + "."


#: A clause that opens with its own subject, the speaker's ("I ...", "we're ...", "my ...").
_OPENS_WITH_SPEAKER = re.compile(
    r"^(?:(?:\w+ly|just|also|still|now|then)\s+)?(?:I\b|I['’]|we\b|we['’]|my\b|our\b)", re.I
)


def with_their_request(clauses: Sequence[str]) -> list[str]:
    """Clauses that go on a request without a subject of their own stay with the request.

    What follows a request until the speaker speaks of themselves is part of what is asked
    ("can you explain the difference between mitosis", "meiosis like I'm 5": one request);
    a clause opening with the speaker is a statement of its own ("can you suggest a dish",
    "I'm vegetarian").

    Example:
        >>> with_their_request(["can you explain mitosis", "meiosis like I'm 5", "I'm a nurse"])
        ["can you explain mitosis, meiosis like I'm 5", "I'm a nurse"]
    """
    out: list[str] = []
    for clause in clauses:
        if out and asks(out[-1]) and not _OPENS_WITH_SPEAKER.match(clause.lstrip()):
            out[-1] = f"{out[-1]}, {clause}"
        else:
            out.append(clause)
    return out


#: A request to keep something in memory: what follows it is a fact to keep.
_TO_REMEMBER = re.compile(
    r"\b(?:remember|note|save|store|keep in mind|don'?t forget|for future reference|fyi)\b",
    re.I,
)


def _without_material(sentence: str) -> str | None:
    """A request with a colon: what follows it is the material asked about, not a statement.

    "can you summarise this for my update: fixed the login bug, reviewed 3 PRs" asks for a
    summary of the material; the speaker says nothing of themselves. None when the sentence
    is such a request; not a request to remember ("can you remember this: my wife's
    birthday is 3 March"), whose material is the fact.
    """
    head, colon, _ = sentence.partition(":")
    if _TO_REMEMBER.search(head):
        return sentence  # "can you remember this: ...": the material is the fact
    return None if colon and asks(head) else sentence


#: A sentence whose subject is a thing of the speaker's ("my iphone died in the cold"): what
#: a pronoun of the next sentence refers to.
_POSSESSED_SUBJECT = re.compile(
    r"^(?:(?:so|and|but|well|honestly)\s+)?((?:my|our)\s+(?:[\w'’-]+\s+){0,2}?[\w'’-]+)\s+"
    r"(?:is|was|has|had|keeps|kept|died|broke|froze|fell|went|got|blew|tore|wore|shrank|"
    r"stuck|sank|burst|split|bent|won't|doesn't|didn't|isn't|wasn't|[a-z]+ed)\b",
    re.I,
)
#: "it" as the object of having or getting, opening a sentence ("had it like 2 years",
#: "I bought it in 2019", "got it for my birthday").
_HAD_IT = re.compile(
    r"^((?:I\s+|I['’]ve\s+)?(?:(?:just|only|also|still|already)\s+)?"
    r"(?:had|have|got|bought|owned|own|inherited)\s+)it\b",
    re.I,
)


def with_antecedent(sentence: str, previous: str | None) -> str:
    """A sentence whose "it" is what the sentence before was about, that thing named.

    The pronoun of a sentence refers to the subject of the one before (the preferred
    antecedent of a pronoun): "my iphone died in the cold", "had it like 2 years" is "had
    my iphone like 2 years" — said of a thing the speaker has, as the object of having or
    getting it. Anything else is left as said.

    Example:
        >>> with_antecedent("had it like 2 years", "my iphone died in the cold")
        'had my iphone like 2 years'
        >>> with_antecedent("had it like 2 years", "the bus was late")
        'had it like 2 years'
    """
    if previous is None:
        return sentence
    thing = _POSSESSED_SUBJECT.match(previous.strip())
    had = _HAD_IT.match(sentence.strip())
    if thing is None or had is None:
        return sentence
    return f"{had.group(1)}{thing.group(1)}{sentence.strip()[had.end() :]}"


#: A name with its relation to the speaker beside it, as an apposition ("a walk with
#: Biscuit, my spaniel, ..."): who or what the name is, said in passing.
_NAME_THEN_ROLE = re.compile(
    r"(?<![\w'’])(?P<name>[A-Z][a-z][\w'’-]*),\s+(?:my|our)\s+"
    r"(?P<role>(?:(?:old|new|little|big|younger|older|best|eldest|youngest)\s+)?[a-z][\w-]*"
    r"(?:\s+[a-z][\w-]*)?)(?=\s*(?:[,.;!?]|$))"
)


_DAYS_AND_MONTHS = frozenset(
    ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
     "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december", "christmas", "easter", "today", "tomorrow", "tonight"]
)  # fmt: skip


def named_in_passing(who: str, sentence: str, index: int) -> list[ExtractedFact]:
    """Who a name is, said as an apposition inside another statement.

    "I've just come in from a walk with Biscuit, my spaniel, and he rolled in something"
    tells an episode of the moment and, in passing, who Biscuit is: "User's spaniel is
    called Biscuit.", a standing fact of its own (the episode is judged apart).

    Example:
        >>> [f.content for f in named_in_passing("User", "out with Biscuit, my spaniel, again", 0)]
        ["User's spaniel is called Biscuit."]
    """
    out = []
    for m in _NAME_THEN_ROLE.finditer(sentence):
        role, name = m.group("role"), m.group("name")
        if role.split()[-1].lower() in _GENERIC or name.lower() in _DAYS_AND_MONTHS:
            continue  # "Tuesday, my day off", "March, my busiest month"
        out.append(
            ExtractedFact(
                content=f"{who}'s {role} is called {name}.",
                importance=0.7,
                confidence=0.8,
                entities=[who, name],
                tags=["relationship"],
                source_index=index,
            )
        )
    return out


def _fact(
    subject: str,
    sentence: str,
    named: Sequence[ExtractedEntity],
    index: int,
    *,
    changed: bool = False,
) -> ExtractedFact | None:
    sentence = without_response(_without_trailing_question(sentence))
    if sentence.endswith("?") or len(re.findall(r"\w+", sentence)) < 3:
        return None  # "I'm diabetic." is three words
    if _without_material(sentence) is None:
        return None  # "summarise this: ...": the material of a request
    # the speaker's statements, their dropped subjects put back ("exported everything into
    # Bitwarden and deleted the old account" is the speaker's)
    # ("ok so im a nurse": what follows a response particle is what is said)
    clauses = [without_response(c) for c in statement_clauses(sentence)]
    said = with_their_request(with_subjects(clauses))
    if not changed and not any(_FIRST_PERSON.search(c) for c in said):
        return None
    things = [e.name for e in named if e.type != "person"]
    clauses = with_their_condition(own_statements(said))
    # a sentence is judged clause by clause: "been on my feet all day, I'm a receptionist
    # at a vet surgery" keeps the receptionist and loses the day
    why = [
        junk_reason(c, entities=[t for t in things if t.lower() in c.lower()], change=changed)
        for c in clauses
    ]  # a clause junk by its verb's aspect alone is kept for the model to judge
    read = list(zip(clauses, why, strict=True))
    kept = [c for c, w in read if w != "junk"]
    tentative = [third_person(subject, c) for c, w in read if w == "aspect"]
    if not kept:
        return None
    if len(kept) < len(clauses):
        sentence = _sentence_of(kept)
        clauses = kept
    tags: list[str] = []
    if changed or _CRITICAL.search(sentence):
        importance = 0.9
        if _ALLERGY.search(sentence):
            tags = ["constraint"]
    elif _PREFERENCE.search(sentence):
        importance = 0.8
        tags = ["preference"]
    elif _CONTEXT.search(sentence):
        importance = 0.55
    elif any(_FIRST_PERSON.search(c) for c in clauses):
        importance = 0.45  # something about the speaker that is not small talk
    else:
        return None
    confidence = 0.45 if _HEDGE.search(sentence) else 0.8
    return ExtractedFact(
        content=third_person(subject, with_subject(sentence)),
        statements=[third_person(subject, c) for c in clauses] if len(clauses) > 1 else [],
        tentative=tentative,
        importance=importance,
        tags=tags,
        confidence=confidence,
        entities=[e.name for e in named],
        source_index=index,
    )


def _sentence_of(clauses: Sequence[str]) -> str:
    """Clauses put back together as one sentence (the first one's capital, one full stop)."""
    text = ", ".join(c.strip().rstrip(" ,;:.") for c in clauses)
    return text[:1].upper() + text[1:] + "."
