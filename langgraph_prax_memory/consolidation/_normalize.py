"""Normalized statements: what the rule-based extractor stores instead of the raw turn.

A first-person sentence of a speaker becomes a third-person statement about them ("I moved to
Berlin and work at Acme Corp now." → "User moved to Berlin and works at Acme Corp now."), and
a relation that states a durable state becomes its canonical sentence ("User lives in Berlin.",
"User works at Acme Corp."). The rules are grammatical (pronouns, contractions, the verb
after the subject), not a list of sentences.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["STATE_STATEMENTS", "state_statement", "third_person"]


def _words(text: str) -> list[str]:
    return text.split()


#: The canonical sentence of a relation that states the subject's current state.
STATE_STATEMENTS: dict[str, str] = {
    "lives_in": "{who} lives in {target}.",
    "works_at": "{who} works at {target}.",
    "partner_of": "{who}'s partner is {target}.",
}

#: Words between the subject and its verb that do not change the verb's form.
_ADVERBS = frozenset(
    _words(
        "really also still just now actually mostly usually always never often recently "
        "finally definitely only even sometimes generally currently already rarely seldom "
        "mainly totally absolutely basically kind sort pretty typically normally no longer"
    )
)
_MODALS = frozenset(
    _words("can could will would shall should must might may did was were had used need ought")
)
#: Irregular present forms of the third person.
_THIRD = {
    "am": "is",
    "are": "is",
    "have": "has",
    "do": "does",
    "go": "goes",
    "don't": "doesn't",
    "haven't": "hasn't",
    "aren't": "isn't",
}
_S = "PRAXSUBJECT"
_CONTRACTIONS = (
    (re.compile(r"\b(?:I|we)['’]m\b", re.I), _S + " is"),
    (re.compile(r"\bwe['’]re\b", re.I), _S + " is"),
    (re.compile(r"\b(?:I|we)['’]ve\b", re.I), _S + " has"),
    (re.compile(r"\b(?:I|we)['’]d\b", re.I), _S + " would"),
    (re.compile(r"\b(?:I|we)['’]ll\b", re.I), _S + " will"),
)
#: The past of "be" after "we", said of the one person the memory is of.
_WE_PAST = {"were": "was", "weren't": "wasn't"}
#: First-person verb forms after "they" (a second "I" of the sentence).
_PLURAL = {"am": "are", "is": "are", "has": "have", "was": "were"}
#: Common verbs that share the subject after "and" / "but" ("moved to Berlin and work at …").
_SHARED_VERBS = frozenset(
    _words(
        "work live use prefer like love enjoy drink eat go take play want need have do make "
        "run read watch write study teach own drive ride cook speak visit commute code build "
        "keep train practise practice swim walk cycle bike listen stay rent"
    )
)
_TOKEN = re.compile(r"https?://[^\s)]+|[A-Za-z0-9][\w'’+#-]*(?:[.:/@][\w+#-]+)*|\S")
_PAST_IRREGULAR = frozenset(
    _words(
        "went got took made gave bought came left won lost began wrote read found told spent "
        "met had was were did ran saw sold kept became thought brought felt built quit broke "
        "chose drove ate drank flew grew knew rode sang sat slept spoke stood taught wore "
        "paid put set let cut hit hurt split said heard understood forgot meant sent lent "
        "held led shot struck threw woke swore tore fought dealt"
    )
)


#: An adverb by its form ("literally", "honestly", "genuinely"): never a verb to conjugate.
_MANNER = re.compile(r"[a-z]{2,}ly")
#: The verbs that end like one ("I rely on", "I apply for").
_VERBS_IN_LY = frozenset(
    _words("rely apply reply supply imply comply multiply ally bully rally tally sully")
)


def _adverb_by_form(word: str) -> bool:
    low = word.lower()
    return _MANNER.fullmatch(low) is not None and low not in _VERBS_IN_LY


def _conjugate(verb: str) -> str:
    """The third-person singular present of a base verb ("work" → "works")."""
    low = verb.lower()
    if _adverb_by_form(low):
        return verb
    if low in _THIRD:
        out = _THIRD[low]
    elif low in _MODALS or low in _PAST_IRREGULAR or low.endswith("ed") or low.endswith("n't"):
        return verb
    elif low.endswith(("s", "sh", "ch", "x", "z", "o")):
        out = low + "es"
    elif low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        out = low[:-1] + "ies"
    else:
        out = low + "s"
    return out if verb.islower() else out.capitalize()


def _opens_a_quote(tokens: Sequence[str], k: int) -> bool:
    """Whether the single quote at ``k`` opens a quotation: a word follows, one closes it later.

    Not the apostrophe of a plural possessive ("the kids' room"): that one follows a word
    and no quote closes after it.
    """
    after = tokens[k + 1] if k + 1 < len(tokens) else ""
    # the closing quote is a token of its own or the end of a word ("Squeeze'")
    return bool(re.match(r"\w", after)) and any(t.endswith(("'", "’")) for t in tokens[k + 1 :])


def third_person(subject: str, sentence: str) -> str:
    """``sentence`` said by ``subject`` in the first person, as a statement about them.

    Args:
        subject: Who said it ("User", "Carol").
        sentence: One first-person sentence.

    Returns:
        The sentence in the third person, capitalised, ending in a full stop (or the
        sentence's own final punctuation).

    Example:
        >>> third_person("User", "I moved to Berlin and work at Acme Corp now.")
        'User moved to Berlin and works at Acme Corp now.'
        >>> third_person("User", "I'm allergic to shellfish")
        'User is allergic to shellfish.'
        >>> third_person("Carol", "My daughter Mia starts school in September.")
        "Carol's daughter Mia starts school in September."
        >>> third_person("User", "I'm reading 'Dune' again")
        "User is reading 'Dune' again."
        >>> third_person("User", "we were living in Paris when the kids were born")
        'User was living in Paris when the kids were born.'
    """
    text = " ".join(sentence.strip().split())
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    tokens = _TOKEN.findall(text)
    out: list[str] = []
    named = False  # the subject named once: later "my" is "their"
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        low = tok.lower()
        if tok == _S:
            if named and i + 1 < len(tokens) and tokens[i + 1] in _PLURAL:
                out.append("they")  # "I think I'm right" → "User thinks they are right"
                out.append(_PLURAL[tokens[i + 1]])
                i += 2
                continue
            out.append(subject)
            named = True
        elif (
            named
            and low in _SHARED_VERBS
            and out
            and out[-1].lower() in {"and", "but", "or", "now"}
        ):
            out.append(_conjugate(tok))
        elif tok in {"I", "i"} or low == "we":
            again = named  # named before in the sentence: "they", the verb as it is
            out.append("they" if again else subject)
            named = True
            j = i + 1
            while j < len(tokens) and (tokens[j].lower() in _ADVERBS or _adverb_by_form(tokens[j])):
                out.append(tokens[j])
                j += 1
            if j < len(tokens) and re.match(r"[A-Za-z]", tokens[j]):
                verb = tokens[j]
                if not again and low == "we":  # "we were broke" → "User was broke"
                    verb = _WE_PAST.get(verb.lower(), verb)
                out.append(_PLURAL.get(verb, verb) if again else _conjugate(verb))
                j += 1
            i = j
            continue
        elif low in {"my", "our"}:
            out.append("their" if named else f"{subject}'s")
            named = True
        elif low in {"mine", "ours"}:
            out.append("theirs")
        elif low in {"me", "us"}:
            out.append(subject if not named else "them")
        elif low in {"myself", "ourselves"}:
            out.append("themselves")
        else:
            out.append(tok)
        i += 1
    body = ""
    quotes = 0
    single = False  # inside single quotes ("likes 'Squeeze'"), not a plural possessive
    for k, tok in enumerate(out):
        if tok in {'"', "“", "”"}:
            quotes += 1
            opening = quotes % 2 == 1
            body += (" " if body and opening else "") + tok
            continue
        if tok in {"'", "‘"} and not single and _opens_a_quote(out, k):
            single = True
            body += (" " if body else "") + tok
            continue
        if single and tok.endswith(("'", "’")):
            single = False
            opened = body.endswith(("'", "‘"))  # a one-word quotation: "'Squeeze'"
            body += tok if tok in {"'", "’"} or opened else " " + tok
            continue
        glued = re.match(r"[^\w'’(\[]", tok) is not None or tok in {"'", "’"}
        opened = single and body[-1:] in ("'", "‘")  # the first word of a quotation
        if body and (glued or opened or body[-1] in "([" or (quotes % 2 == 1 and body[-1] == '"')):
            body += tok
        else:
            body += (" " if body else "") + tok
    if body and body[0].islower():
        body = body[0].upper() + body[1:]
    if body and body[-1] not in ".!":
        body = body.rstrip("?,;:") + "."
    return body


def state_statement(kind: str, who: str, target: str) -> str | None:
    """The canonical sentence of a state relation (None for other relation types).

    Example:
        >>> state_statement("works_at", "User", "Acme Corp")
        'User works at Acme Corp.'
    """
    template = STATE_STATEMENTS.get(kind)
    return template.format(who=who, target=target) if template else None
