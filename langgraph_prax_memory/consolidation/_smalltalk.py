"""The small-talk filter of the rule-based extractor: what is not a durable fact.

Filler (nothing but generic words), the conversation itself, and the here and now (time
deixis, intents for the next minutes, the aspect of the speaker's verb), each overridden by
anything lasting in the sentence. Principles, not a list of sentences; measured on held-out
sets in ``benchmarks/memory_quality.py`` (see docs/consolidation.md for how held out).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langgraph_prax_memory._when import names_a_day
from langgraph_prax_memory.errors import EmbeddingError
from langgraph_prax_memory.facts import (
    SMALL_TALK,
    SMALL_TALK_CONFIDENCE,
    FactClass,
    holds_now,
    read_statements,
    resolve_class,
)

if TYPE_CHECKING:
    from langgraph_prax_memory._parts import MemoryParts
    from langgraph_prax_memory.consolidation._models import ConsolidationResult

__all__ = [
    "OPENS_WITH_CONDITION",
    "asks",
    "is_junk",
    "is_transient",
    "junk_reason",
    "names_in",
    "small_talk_to_drop",
    "without_response",
    "without_small_talk",
]

logger = logging.getLogger(__name__)

#: How sure the classifier must be that a fact is small talk before consolidation drops it:
#: a fact dropped is lost, small talk kept only costs a line, so the bar is the lowest at
#: which small talk is called with a cross-validated precision of 0.98 (SMALL_TALK_CONFIDENCE).
DROP_CONFIDENCE = SMALL_TALK_CONFIDENCE


def names_in(content: str, names: Sequence[str]) -> list[str]:
    """The ``names`` whose every word ``content`` holds (a memory links only what it names).

    Example:
        >>> names_in("User's husband is Gary.", ["Gary", "the manager"])
        ['Gary']
    """
    words = set(re.findall(r"\w+", content.lower()))
    return [n for n in names if set(re.findall(r"\w+", str(n).lower())) <= words]


def small_talk_to_drop(
    texts: Sequence[str], classes: Sequence[FactClass | None], *, grammar: bool
) -> list[bool]:
    """Which statements consolidation leaves out as small talk.

    Small talk as sure as :data:`DROP_CONFIDENCE`; with the grammar (``grammar``), also any
    statement the classifier calls small talk less surely, unless one of its main clauses
    asserts something that holds now of the person (:func:`~langgraph_prax_memory.facts.
    holds_now`: "im vegetarian" said among chatter). The rule that chose the bar chooses
    this one: under 10-fold cross-validation on the training statements, small talk so
    decided is small talk with a precision of 0.989 (recall 0.835, against 0.987 / 0.738 at
    the bar alone; docs/consolidation.md). A statement that names a day is never dropped (a
    dated plan or event); one the parser cannot read is dropped only at the bar.
    """
    out = [
        c is not None and c.fact_class == SMALL_TALK and not names_a_day(t)
        for t, c in zip(texts, classes, strict=True)
    ]
    unsure = [
        i
        for i, c in enumerate(classes)
        if out[i] and c is not None and c.confidence < DROP_CONFIDENCE
    ]
    if not grammar:
        for i in unsure:
            out[i] = False
        return out
    for i, now in zip(unsure, holds_now([texts[i] for i in unsure], unparsed=True), strict=True):
        out[i] = not now
    return out


_WORD = re.compile(r"[A-Za-z0-9][\w'’.+#-]*")


def _terms(text: str) -> list[str]:
    return text.split()


#: Words that carry no durable content on their own (pronouns, auxiliaries, generic verbs,
#: small-talk nouns and moods). A first-person sentence made only of these is filler.
_GENERIC = frozenset(
    _terms(
        "i me my mine myself we us our you your yours it its this that these those there here "
        "so very really just too also now today tonight again then well oh wow yes no ok okay "
        "thanks thank please lol haha hmm a an the and or but of to in on at for with about "
        "from by as is am are was were be been being do does did doing have has had having "
        "can could would should will shall may might must not don't can't won't i'm i've "
        "i'll i'd it's that's what's im ive dont cant love like want need think know see feel "
        "felt get got go going gonna wanna gotta make let say said tell told ask asked hope "
        "guess mean sure fine good great nice cool awesome amazing perfect lovely wonderful "
        "tired sleepy hungry thirsty bored happy sad busy ready back home sleep nap rest eat "
        "distracted exhausted stressed freezing cold warm hot sick stuck late early mood "
        "upset annoyed relieved nervous worried calm okay "
        "question questions idea ideas thing things stuff something anything everything "
        "nothing bit lot lots little much more most time day days moment minute second way "
        "point sense true right wrong help problem bad alright glad sorry excited interesting "
        "fun funny agree disagree understand confused lost curious wondering wonder doing "
        "done same too all some any what which who how why when where if because than "
        "actually basically literally totally absolutely kinda sorta super pretty quite "
        "work out talk chat later soon tomorrow yesterday morning evening night week weekend "
        "one two thing's keep try trying trying out check checking look looking "
        "cheers bye goodbye hello hi hey welcome congrats yeah yep nope maybe probably "
        "answer reply explanation suggestion conversation everyone everybody anyone someone "
        "something's here's there's heard hear listen said saying start started wait "
        "again already still ever even only else enough leave leaving break stay staying "
        "going coming come came"
    )
)
_DEICTIC_OBJECT = re.compile(
    r"\b(?:love|like|enjoy|hate|prefer|agree with|appreciate|get|see|understand)\s+"
    r"(?:it|this|that|these|those|your|what you|how you|them)\b",
    re.I,
)
#: A request to the assistant ("tell me a joke", "can you rephrase this", "please give me
#: vim keybindings"): what the speaker asks for, not what they are.
_REQUEST = re.compile(
    r"^(?:(?:so|ok|okay|also|and|but|now|please|pls|plz)[,\s]+)*"
    r"(?:(?:can|could|would|will)\s+(?:you|u)\b"
    r"|(?:tell|give|show|help|remind|teach|send|find|get|write|make|explain|recommend|suggest)"
    r"\s+(?:me|us|User)\b)",
    re.I,
)
#: A time of day or of the week that makes a wish a standing one ("I'd rather be home by
#: 9 on weeknights").
_BY_A_TIME = re.compile(r"\b(?:by\s+\d|weeknights?|weekdays?|mornings|evenings|nights)\b", re.I)
#: Help asked for as a need, with the task at hand: "this"/"that"/"it", or a piece of
#: work an assistant is asked to help with ("i need help with my cover letter", "I could use
#: a hand with this spreadsheet"). Not help with a part of life ("I need help with my
#: insulin injections", "with the stairs"), nor one told with why ("because I'm
#: dyslexic"): a need that lasts.
_HELP_WITH_A_TASK = re.compile(
    r"^(?:(?:so|ok|okay|also|and|but|now|please|pls|plz|hey|hi)[,\s]+)*"
    r"(?:I|we|User)\s+(?:need|needs|want|wants|could\s+use|would\s+like)\s+"
    r"(?:some\s+|a\s+bit\s+of\s+|a\s+little\s+)?(?:help|a\s+hand)\s+(?:with|on)\s+"
    r"(?:this|that|it|these|something"
    r"|(?:my|our|their|the|a|an)\s+(?:\w+\s+)?(?:essay|essays|cv|resume|résumé|cover\s+letter|"
    r"letter|email|e-mail|speech|presentation|slides|report|homework|assignment|code|script|"
    r"spreadsheet|formula|budget|application|message|post|bio|intro|introduction|draft|"
    r"wording|toast|eulogy|proposal|pitch|puzzle|crossword|maths|math|question)s?)\b"
    r"(?![^.!?]*\b(?:since|ever|always|every|anymore|because|as|due\s+to)\b)",
    re.I,
)
_SPEAKER_PREFIX = re.compile(r"^\s*[A-Za-z][\w .'@-]{0,40}?\s*:\s+")
#: Response particles and interjections opening a statement ("hmm ok I'll export it as pdf
#: then", "ooh, I like that"): they answer the turn before; the statement is read after them.
#: Set off by a comma or before the speaker ("well known" and "right hand" are content).
_RESPONSE = (
    r"(?:ok|okay|kk?|right|righto|yeah|yep|yup|well|so|anyway|alright|hm+|o+h+|ah+|mm+|wow|"
    r"yay|yikes|whoa|ugh|aw+)"
)
_OPENING = re.compile(
    rf"^(?:{_RESPONSE}(?:[,.!]+\s*|\s+(?={_RESPONSE}\b|I\b|we\b|my\b|our\b)))+(?=\S)",
    re.I,
)
#: A question by its word order, whatever its punctuation ("where do I even get poppy
#: seeds", "should I be worried"): a wh-word not followed by a subject, or an auxiliary
#: before its subject. A wh-word followed by its subject opens a clause of a statement
#: ("when I was a kid I lived in Lagos", "what I love is ...").
_INTERROGATIVE = re.compile(
    r"^(?:(?:so|ok|okay|also|and|but|hmm|right|anyway|wait|then|now)[,.\s]+)*"
    r"(?:(?:what|where|when|why|how|which|who|whose)\b"
    r"(?!\s+(?:I|we|my|our|you|he|she|they|it|User)\b)"
    r"|(?:should|shall|can|could|would|will|do|does|did|is|are|am|was|were|have|has|may|"
    r"might|must)\s+(?:I|we|you|u|it|they|he|she|User|there)\b)",
    re.I,
)


#: A hypothetical: a condition, and a main clause in the conditional mood ("if I won the
#: lottery I'd hire a cleaner", "if money was no object I would buy a castle"): what would
#: be, not what is. A condition with a main clause in the present is kept ("if I eat
#: peanuts my throat swells up": what happens to the person, every time).
#: A clause that opens with a condition ("if money was no object", "even if it rains").
_IF = r"^(?:(?:and|but|so|honestly|tbh|like)[,\s]+)*(?:if|even\s+if|imagine\s+if|if\s+only)"
OPENS_WITH_CONDITION = re.compile(_IF + r"\b", re.I)
_HYPOTHETICAL = re.compile(
    _IF + r"\s+"
    # the condition in the past or the subjunctive: what is not so ("if I won", "if money
    # was no object", "if I had a boat"); not "if I had to pick" (a choice, told), not "if
    # I eat peanuts I could die" (a condition of now: what happens every time)
    r"(?!(?:I|we)\s+had\s+to\b)(?:\S+\s+){1,4}?"
    r"(?:was|were|had|won|did|could|got|went|knew|lived|owned|lost|quit|left|found|moved|"
    r"wasn't|weren't|hadn't|didn't|couldn't)\b"
    # then the conditional mood ("I'd", "we would"; chat's "id" for "I'd", not "my id")
    r"[^.!?]*?\b(?:would|could|might|wouldn't|couldn't|I['’]d|we['’]d|id(?!\s+(?:card|number|badge|cards)))\b"
    r"(?![^.!?]*\b(?:usually|normally|always|often|generally|tend)\b)",
    re.I,
)

#: A wish about now: "I'd rather be asleep", "wish I was on a beach". Not a preference
#: weighed against another ("would rather take the train than fly").
_WISH_NOW = re.compile(
    r"(?:(?:\bwould|['’]d|\bid)\s+rather\s+be\s+"
    # somewhere or in a state of the moment, not done to ("rather be called Sam", "rather
    # be contacted by email": how the person wants to be treated, for good)
    r"(?:at|in|on|out|back|asleep|anywhere|somewhere|elsewhere|outside|home|doing|sleeping|"
    r"lying|sitting|watching|playing|reading)\b"
    r"|^(?:I\s+|User\s+)?wish(?:es)?\s+(?:I|we|User|they)\s+(?:was|were)\b)",
    re.I,
)


#: What makes a statement durable: a habit or a frequency, a span of time, a decision or a
#: plan, a lasting condition, family and home, work and study, a calendar anchor.
_DURABLE = re.compile(
    r"\b(?:always|usually|often|never|every|each|regularly|typically|normally|generally|"
    r"whenever|since|years?|months?|decades?|decided|decision|plan|plans|planning|goal|dream|"
    r"allergic|allergy|intolerant|favou?rite|prefer\w*|name|named|called|born|birthday|"
    r"anniversary|married|engaged|divorced|pregnant|kids?|children|son|daughter|wife|husband|"
    r"partner|girlfriend|boyfriend|mom|dad|mother|father|sister|brother|family|pets?|dog|cat|"
    r"job|career|profession|employer|colleague|boss|live[sd]?|living|moved?|moving|home town|"
    r"diet|vegan|vegetarian|learn\w*|study\w*|studies|degree|course|training for|project|"
    r"deadline|remember|weekends?|used to|grew up|raised|graduated|house|apartment|flat|car|"
    r"saving|training|building|renovating|raising|expecting|(?:mon|tues|wednes|thurs|fri|satur|sun)days|"
    r"next (?:week|month|year)|this (?:year|month)|(?:by|on|every) (?:mon|tues|wednes|thurs|"
    r"fri|satur|sun)day|january|february|march|april|may|june|july|august|september|october|"
    r"november|december|\d{4})\b",
    re.I,
)
#: The moment itself, named: it makes a sentence transient unless something lasts in it.
_NOW = re.compile(
    r"\b(?:right now|at the moment|atm|as we speak|brb|one sec|currently busy|just now)\b", re.I
)
#: What lasts beyond the moment: a habit or frequency, a span of time, a plan, a condition.
_LASTING = re.compile(
    r"\b(?:always|usually|often|never|every|regularly|typically|since|years?|months?|decided|"
    r"plan|plans|planning|allergic|allergy|intolerant|used to)\b",
    re.I,
)
#: What makes a statement about the here and now: time deixis, an intent for the next minutes
#: ("going to", "about to", "have to run"), "just" + a past action, a momentary activity.
_TRANSIENT = re.compile(
    r"\b(?:right now|at the moment|atm|for now|for a (?:bit|sec|second|minute|moment|while)|"
    r"in a (?:bit|sec|second|minute|moment)|today|tonight|this (?:morning|afternoon|evening)|"
    r"later|soon|already|yet|brb|real quick|quick|as we speak|minutes?|hours?|yesterday|"
    r"last night|this week|one sec)\b"
    r"|\b(?:I|we)(?:'m| am|'re| are|'ll| will|'ve| have)?\s+(?:just|gonna|going to|about to|"
    r"off to|heading|have to|got to|gotta|need to|need a|be right|was just)\b"
    # the perfect of hot news, whoever did it ("my neighbour has just started mowing"), and
    # a dropped "I'm" before "just back" / "just home"
    r"|\b(?:has|have|'s|'ve)\s+just\s+\w+(?:ed|en|t|ne|un|ung)\b"
    r"|^just\s+(?:back|home|in|up|out|off)\b"
    r"|^(?:I|we)(?:'m| am|'re| are)\s+(?:\w+ly\s+|so\s+|just\s+)?(?:eating|drinking|having|"
    r"grabbing|making|cooking|watching|waiting|sitting|standing|walking|heading|leaving|going|"
    r"coming|logging|checking|reading|sleeping|napping|resting|chilling|relaxing|cleaning|"
    r"showering|getting|taking|typing|looking|stuck|at|in|on|out|off|back|almost|about)\b",
    re.I,
)


#: A statement about the conversation itself: what was said, asked or meant, or a reaction
#: whose object is a pronoun pointing back at it ("I laughed so hard at that.").
_ABOUT_THE_TALK = re.compile(
    r"\bwhat (?:I|you|we)(?:'m| am| are| was| were)?\s*(?:was\s+|were\s+)?(?:say|saying|said|"
    r"ask|asking|asked|mean|meant|wrote|writing|talking about|thinking)\b"
    r"|\b(?:our|this|the) (?:chat|conversation|discussion|talk)\b"
    r"|\b(?:hope|wish|bet|guess|know|think|see|hear)\s+(?:that\s+)?you(?:'re|'ve|'d|'ll)?\b"
    r"|^(?:I|we)(?:'m| am| feel| felt| was)\s+(?:so|super|very|a bit|kinda|kind of|totally|"
    r"pretty|a little)\s+\w+\b"
    r"|\byour (?:message|answer|reply|question|point|idea|suggestion|explanation|joke|help)\b"
    r"|\b(?:at|about|with|of|for|on|to|by)\s+(?:that|this|it|them|those|these)\s*[.!?]*$"
    r"|^(?:I|we)(?:'m| am|'ve| have)?\s+(?:\w+\s+)?(?:it|that|this|them)\s*[.!?]*$",
    re.I,
)


#: The aspect of the speaker's verb that tells an event from a state: progressive ("I'm
#: sipping"), perfect progressive ("I've been staring"), simple past ("I had a long day"),
#: future intent ("I'll let you know", "I'd better go"); the subject may be a thing of the
#: speaker's ("my coffee went cold", "my train was late"). A present simple or a copula ("I
#: play the cello", "I'm a nurse", "I can't eat gluten") is a state.
_EVENT_ASPECT = re.compile(
    r"^(?:\w+,?\s+)?(?:I|we|my\s+\w+)(?:"
    r"(?:'m| am|'re| are| was| were)\s+(?:\w+ly\s+|just\s+|so\s+|still\s+|now\s+)?\w+ing\b"
    r"|(?:'ve| have)\s+been\s+(?:\w+ly\s+|just\s+)?\w+ing\b"
    r"|\s+just\s+(?:\w+ed|was|were|had|went|got|did|made|took|saw|came|left|ate|drank|"
    r"forgot|sent|told|said|spent|lost|found|met|ran|bought|broke|fell|slept|woke|heard|felt)\b"
    r"|(?:'ll| will|'d| would| had better| shall|'m going to| am going to|'m gonna| am gonna|"
    r"'m about to| am about to)\b(?!\s+(?:rather|prefer|sooner)\b))",  # "I'd rather": a taste
    re.I,
)


#: An event told in the simple past ("I had a long day", "my train was late", "I lost the
#: bet"): a moment that has passed, or a change whose result lasts, which the words alone
#: do not tell (:func:`junk_reason`; a verb of changing to something is read by _CHANGED).
_PAST = re.compile(
    r"^(?:\w+,?\s+)?(?:I|we|my\s+\w+)\s+"
    r"(?:\w+ly\s+|almost\s+|only\s+|really\s+|also\s+|finally\s+)?"
    r"(?:\w+ed|was|were|had|went|got|did|made|took|saw|came|left|ate|drank|forgot|sent|told|"
    r"said|spent|lost|found|met|ran|bought|broke|fell|slept|woke|heard|felt|thought|knew|"
    r"didn't|did not|couldn't|could not|wasn't|weren't)\b",
    re.I,
)


#: The speaker's past of a verb of changing what they use or belong to, as the main verb,
#: from one thing to another ("I switched onto the day rota", "we swapped the landline for a
#: mobile plan", "I ported my number to giffgaff"): its result lasts. Not another subject's
#: ("my train was cancelled"), nor a change with nothing it changed to ("I changed my shirt").
_CHANGED = re.compile(
    r"^(?:\w+,?\s+)?(?:I|we)\s+(?:\w+ly\s+|finally\s+|also\s+|just\s+)?"
    r"(?:switched|swapped|changed|moved|transferred|ported|migrated|converted|upgraded|"
    r"downgraded)\b[^.,;!?]*?\b(?:to|onto|into|over|for)\b",
    re.I,
)


#: The first person's contractions as chat types them, without the apostrophe ("im so
#: full", "ive been", "i cant"): only those no other word is spelt as ("ill", "id", "wont"
#: and "were" are words of their own; "Ive" and "IM" are a name and a shout).
_BARE_CONTRACTIONS = re.compile(
    r"\b(?:(?P<i>i(?=m|ve)|I(?=m))(?P<im>m|ve)|(?P<neg>(?i:do|does|did|ca|is|was|are|could|would|should|"
    r"have|has))n(?P<t>t)|(?P<wh>(?i:what|where|how|who|that))(?P<s>(?i:s)))\b"
)


def _with_apostrophes(text: str) -> str:
    """Chat's bare contractions spelt out: "im so full" → "I'm so full".

    Example:
        >>> _with_apostrophes("im so full i cant move, ive eaten too much")
        "I'm so full i can't move, I've eaten too much"
    """

    def spelt(m: re.Match[str]) -> str:
        if m.group("i"):
            return f"I'{m.group('im')}"
        if m.group("wh"):
            return f"{m.group('wh')}'s"  # "whats a good game" → "what's a good game"
        return f"{m.group('neg')}n't"

    return _BARE_CONTRACTIONS.sub(spelt, text)


#: A clause whose predicate is left out, its auxiliary last ("every time I don't", "I
#: can't", "we did"): what it says is in the conversation, not in the clause.
_ELLIPSIS = re.compile(
    r"^(?:(?:and|but|so|yes|no|well|ok|okay|then|every\s+time|each\s+time)\s+)*"
    r"(?:I|we|you|he|she|they|it|User)(?:\s+|['’](?=m\b))(?:do|does|did|can|could|will|would|"
    r"should|have|has|had|am|m|was|were|must|might)(?:n['’]t|\s+not)?"
    r"(?:\s+(?:either|neither|too))?\s*[.!]*$",
    re.I,
)


def _said(text: str) -> str:
    """A statement without its speaker's label and the response particles opening it."""
    body = _SPEAKER_PREFIX.sub("", text, count=1).strip()
    return _OPENING.sub("", _with_apostrophes(body))


def without_response(text: str) -> str:
    """A statement without the response particles opening it ("ok so I moved" → "I moved").

    Example:
        >>> without_response("ok so I've moved to Leith"), without_response("well known")
        ("I've moved to Leith", 'well known')
    """
    return _OPENING.sub("", text.strip())


def asks(text: str) -> bool:
    """Whether a statement asks something of the assistant: a request or a question.

    A question by its mark or its word order ("can you summarise this", "tell me a joke",
    "where do I start").

    Example:
        >>> asks("can you explain the difference"), asks("I can explain it")
        (True, False)
    """
    body = _said(text)
    return (
        body.endswith("?")
        or _INTERROGATIVE.match(body) is not None
        or _REQUEST.match(body) is not None
    )


def is_transient(body: str) -> bool:
    """Whether a first-person sentence speaks of the here and now, not of a lasting fact.

    The here and now: time deixis ("right now", "today"), an intent for the next minutes
    ("going to", "about to", "have to run"), "just" with a past action, a momentary activity
    ("I'm eating …"), or the conversation itself ("what I was saying", "at that"). Anything
    durable in the sentence (:data:`_DURABLE`: a habit, a span of time, a plan, family, work,
    a date) makes it a fact after all.

    Example:
        >>> is_transient("I'm going to grab lunch."), is_transient("I'm lactose intolerant.")
        (True, False)
        >>> is_transient("I'm planning to move to Canada next year.")
        False
    """
    return _transient(body) is not None


def _transient(body: str) -> str | None:
    """Why a sentence speaks of the here and now: ``"moment"``, ``"aspect"`` or None.

    ``"aspect"``: only by its verb's aspect, the simple past ("I had a long meeting", "I
    moved the car"), which tells a passing moment from a lasting change no better than the
    words around it do; the speaker's past of a verb of changing ("I switched onto the day
    rota") is no moment at all.
    """
    if _NOW.search(body) is not None and _LASTING.search(body) is None:
        return "moment"  # "walking the dog at the moment": the moment wins over the dog
    if _DURABLE.search(body) is not None:
        return None
    if any(p.search(body) is not None for p in (_TRANSIENT, _ABOUT_THE_TALK, _EVENT_ASPECT)):
        return "moment"
    if _CHANGED.search(body) is not None:
        return None  # a change, told as what happened: "I switched onto the day rota"
    if _PAST.search(body) is not None:
        return "aspect"
    return None


def is_junk(text: str, *, entities: Sequence[str] = (), change: bool = False) -> bool:
    """Whether a first-person sentence is small talk rather than a durable fact.

    Filler ("I love it!", "I have a question.", "I want to sleep.") has no content word
    outside :data:`_GENERIC` and names no entity, or points at the conversation itself ("I
    like your idea"), or speaks of the here and now without anything durable in it
    (:func:`is_transient`: "I'm going to grab lunch.", "I just woke up."). A sentence naming
    a non-person entity (a tool, a place, a project) is never junk unless it asks something
    or supposes what is not so ("if money was no object I'd buy a castle in Scotland").
    Used by the rule-based extractor at write time and by the hygiene report.

    Args:
        text: One sentence, optionally ``"<speaker>: "``-prefixed.
        entities: Entity names found in it (any one of them makes it content).
        change: The sentence states a change of a relation ("I switched to Neovim."): an
            event in form, a fact in content.

    Example:
        >>> is_junk("user: I love it!"), is_junk("I have a question."), is_junk("I want to sleep.")
        (True, True, True)
        >>> is_junk("I prefer dark mode in all my tools."), is_junk("I'm allergic to peanuts.")
        (False, False)
        >>> is_junk("hmm ok I'll export it as pdf then"), is_junk("ok so I'm a nurse")
        (True, False)
    """
    return junk_reason(text, entities=entities, change=change) is not None


def junk_reason(text: str, *, entities: Sequence[str] = (), change: bool = False) -> str | None:
    """Why :func:`is_junk` calls a sentence small talk (None: it does not).

    ``"aspect"`` when nothing but its verb's aspect does (the simple past:
    :func:`_transient`): the rule-based extractor keeps such a statement *tentatively*, for
    the memory's classifier to judge (consolidation keeps it when it reads a sure standing
    fact: ``_statements.tentative_to_drop``). ``"junk"`` for every other reason.

    Example:
        >>> junk_reason("I had a long meeting"), junk_reason("I love it!")
        ('aspect', 'junk')
        >>> junk_reason("I switched onto the day rota at work") is None
        True
        >>> junk_reason("I'm going to grab lunch."), junk_reason("I'm a nurse.") is None
        ('junk', True)
        >>> junk_reason("and every time I don't"), junk_reason("I can't eat gluten") is None
        ('junk', True)
    """
    body = _said(text)  # "hmm ok I'll export it then": what follows the particle is said
    if not body or asks(body):
        return "junk"  # a question or a request: asked of the assistant, not of the speaker
    if body[:1] in "'\"‘“":
        return "junk"  # about quoted words ("'can't be bothered' is perfect"), not the speaker
    if _ELLIPSIS.search(body) is not None:
        return "junk"  # "every time I don't": the predicate is the conversation's
    if _HYPOTHETICAL.search(body) is not None:
        # "if I won the lottery I'd ...": what would be, not what is; like a question, it
        # asserts nothing of what it names ("... buy a castle in Scotland")
        return "junk"
    if entities:
        return None
    if (
        (_WISH_NOW.search(body) is not None or _HELP_WITH_A_TASK.search(body) is not None)
        and " than " not in f" {body} "
        and _DURABLE.search(body) is None
        and _BY_A_TIME.search(body) is None
    ):
        return "junk"  # "I'd rather be asleep", "I need help with my cover letter"
    why = None if change else _transient(body)
    if why == "moment":
        return "junk"
    words = [w.lower().strip("'’.-") for w in _WORD.findall(body)]
    content = [w for w in words if w and w not in _GENERIC and not w.isdigit()]
    if not content:
        return "junk"
    if _DEICTIC_OBJECT.search(body) is not None and len(content) <= 2:
        return "junk"
    return why


def without_small_talk(
    parts: MemoryParts, items: list[dict[str, Any]], result: ConsolidationResult
) -> list[dict[str, Any]]:
    """The facts to store: those that are not small talk by their class (both paths).

    The class of each extracted fact (docs/context.md, "Memory classes"): its tags and
    importance first, then its text by the memory-class classifier, the same judgement as
    every other door. Small talk is counted in ``small_talk_dropped`` and logged, not
    stored. A classifier that cannot run (the model down) keeps every fact.
    """
    texts = [str(i.get("content", "")) for i in items]
    if not texts:
        return items
    cfg = parts.ltm.config.retrieval
    try:
        found = parts.ltm.classes.classifier().classify(texts)
    except EmbeddingError as exc:
        logger.debug("small-talk filter skipped: %s", exc)
        return items
    grammar = parts.ltm.config.class_grammar
    decided = [
        resolve_class(
            text_class,
            item,
            profile_tags=cfg.profile_tags,
            min_importance=cfg.profile_min_importance,
        )
        for item, text_class in zip(items, found, strict=True)
    ]
    drops = small_talk_to_drop(texts, decided, grammar=grammar)
    keep: list[dict[str, Any]] = []
    for item, drop in zip(items, drops, strict=True):
        if drop:
            result.small_talk_dropped += 1
            logger.info("not stored (small talk): %r", str(item.get("content", ""))[:80])
            continue
        keep.append(item)
    return _standing_alone(keep, result) if grammar else keep


def _standing_alone(
    items: list[dict[str, Any]], result: ConsolidationResult
) -> list[dict[str, Any]]:
    """The facts that say what they are about, and are of the person.

    :func:`~langgraph_prax_memory.facts.stands_alone`; and a report of another person's words
    or view of something else (:func:`~langgraph_prax_memory.facts.reported_views`: "User's
    friend says dark mode saves battery") is not stored, or only what it tells of the
    person's life ("User's husband gary reckons ..." → "User's husband is Gary."); nor is
    an impression of the moment told by a simile
    (:func:`~langgraph_prax_memory.facts.passing_impressions`: "User's eyes feel like
    sandpaper").

    A memory is read later, without its conversation: "User can paste it in slack" or "It's
    on the tip of User's tongue" point at what only the conversation named, so they are not
    stored (counted with ``small_talk_dropped``). A statement that names a day is kept.
    """
    texts = [str(i.get("content", "")) for i in items]
    keep = []
    for item, text, read in zip(items, texts, read_statements(texts), strict=True):
        ok, view = read.alone, read.view
        if read.impression:  # "User's eyes feel like sandpaper": the moment, by a simile
            result.small_talk_dropped += 1
            logger.info("not stored (an impression of the moment): %r", text[:80])
            continue
        if view is not None:  # another's words about something else: not of the person
            if view:  # what the report tells of the person's life: who said it
                names = names_in(view, item.get("_names", []))
                keep.append({**item, "content": view, "_names": names})
                logger.info("stored %r of a report (%r)", view, text[:80])
                continue
            result.small_talk_dropped += 1
            logger.info("not stored (another's view of something else): %r", text[:80])
            continue
        if ok or names_a_day(text):
            keep.append(item)
            continue
        result.small_talk_dropped += 1
        logger.info("not stored (points at what it does not say): %r", text[:80])
    return keep
