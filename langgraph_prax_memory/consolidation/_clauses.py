"""The statements of one sentence: where a clause of its own begins (the rule path).

People chain statements in one chat turn ("I'm a nurse at St Thomas' and we were two staff
down again"): each clause is judged and stored as a statement of its own
(:mod:`._rule_facts`).
"""

from __future__ import annotations

import re

__all__ = ["statement_clauses"]

#: Where one statement of a sentence ends and the next begins: a comma, a semicolon or a
#: dash, or a coordinating conjunction ("..., and", "but", "so"). A subordinate clause
#: ("since I was nine", "because ...") modifies its clause: it is not cut off.
_STATEMENT_BREAK = re.compile(
    r"\s*(?:[,;:]|\s[-–—])\s+|\s+(?=(?:and|but|so)\s)",
    re.I,
)
_STATEMENT_SPLIT = re.compile(f"({_STATEMENT_BREAK.pattern})", re.I)
#: A verb after which "so" is a degree ("I'm so full", "it was so good", "I feel so
#: rested"): no clause of its own follows.
_BEFORE_A_DEGREE = re.compile(
    r"(?:\b(?:am|is|are|was|were|be|been|being|im|feel|feels|felt|look|looks|looked|seem|"
    r"seems|seemed|get|gets|got|getting)|['’](?:m|s|re))$",
    re.I,
)
_DEGREE = re.compile(r"^so\s", re.I)
#: The words that join a clause to the one before it (not part of its statement).
_JOINER = re.compile(r"^(?:(?:and|but|so|then|also)\b[\s,]*)+", re.I)


def statement_clauses(sentence: str) -> list[str]:
    """The statements of one sentence, one per clause (a single clause: ``[sentence]``).

    A clause of fewer than three words is no statement of its own ("fish yes", "since
    uni"): it stays with the clause before it, as written. The joining word of a clause
    that stands alone is dropped.

    Example:
        >>> statement_clauses(
        ...     "I'm a nurse at St Thomas' and we were two staff down on the ward again"
        ... )
        ["I'm a nurse at St Thomas'", 'we were two staff down on the ward again']
        >>> statement_clauses("I'm pescatarian, been that way since uni, so fish yes")
        ["I'm pescatarian", 'been that way since uni, so fish yes']
        >>> statement_clauses("im so full from lunch and i need a nap")
        ['im so full from lunch', 'i need a nap']
    """
    text = sentence.strip().rstrip(" ,;:.!")
    pieces = _STATEMENT_SPLIT.split(text)  # part, separator, part, separator, ... part
    out: list[str] = []
    for i in range(0, len(pieces), 2):
        sep = pieces[i - 1] if i else ""
        part = (pieces[i] or "").strip(" ,;:")
        if out and not sep.strip() and _DEGREE.match(part) and _BEFORE_A_DEGREE.search(out[-1]):
            out[-1] = f"{out[-1]} {part}"  # "I'm so full ...": a degree, not a new clause
            continue
        alone = _JOINER.sub("", part).strip()
        if not alone:
            continue
        if out and len(re.findall(r"\w+", alone)) < 3:
            out[-1] = f"{out[-1]}{sep.rstrip() if sep.strip() else ''} {part}"
        else:
            out.append(alone)
    if len(out) > 1 and len(re.findall(r"\w+", out[0])) < 3:
        out[1] = f"{out[0]}, {out[1]}"
        out.pop(0)
    return out or [sentence]
