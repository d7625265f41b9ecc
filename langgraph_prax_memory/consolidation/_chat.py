"""Chat as people type it, put in the written form the rule-based extractor reads.

People type to an assistant in lower case, without apostrophes, with laughter and asides
("lol fair. honestly i need the laugh, i'm a receptionist at a vet surgery"; "im vegetarian
tbh"). Two closed classes of chat words are normalized before the rules read a turn:

* **the first-person pronoun** as typed: a lone ``i`` is ``I``, ``im`` and ``ive`` are
  ``I'm`` and ``I've``, ``id`` before a verb people say after "I'd" ("id rather") is
  ``I'd`` (``ill`` is left alone: "I'm ill");
* **time words as typed**: "rn" is "right now", "atm" "at the moment", "tmrw" / "tmr"
  "tomorrow", "2day" "today", "2nite" / "tonite" "tonight" (the rules read the here and now
  from these words);
* **discourse particles**: laughter ("lol", "haha", "lmao"), asides ("tbh", "ngl", "btw",
  "imo", "fwiw") and emoji carry no content of a fact, and they make a statement look like
  small talk to the class classifier ("I live in lisbon and the flat has no aircon lol"):
  they are taken out.

Nothing else is rewritten: no spelling is corrected, no word is guessed.
"""

from __future__ import annotations

import re

__all__ = ["normalize_chat"]

_PRONOUN = re.compile(r"(?<![\w'’])i(?=['’](?:m|ve|d|ll)\b|[^\w'’]|$)")
_CONTRACTED = re.compile(r"(?<![\w'’])(im|ive)(?![\w'’])", re.I)
_I_D = re.compile(
    r"(?<![\w'’])id(?=\s+(?:rather|like|love|prefer|been|never|say|go|need|want|better|have)\b)",
    re.I,
)
_TIME_WORDS = {
    "rn": "right now",
    "atm": "at the moment",
    "tmrw": "tomorrow",
    "tmr": "tomorrow",
    "tmw": "tomorrow",
    "2day": "today",
    "2nite": "tonight",
    "tonite": "tonight",
}
_TYPED_TIME = re.compile(r"(?<![\w'’-])(" + "|".join(_TIME_WORDS) + r")(?![\w'’-])", re.I)
_PARTICLES = re.compile(
    r"(?<![\w'’-])(?:lol+|lmf?ao+|rofl|(?:ha){2,}h?|(?:he){2,}|tbh|ngl|btw|imo|imho|fwiw|omg|"
    r"xd|smh|oh|ah|aw+|ugh|meh|welp)(?![\w'’-])",
    re.I,
)
# pictographs, dingbats and their joiners / variation selectors
_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\u200d\ufe0f]+")
_SPACES = re.compile(r"[ \t]{2,}")
_DANGLING = re.compile(r"\s+([,.;:!?])")
_REPEATED = re.compile(r"([,;:])(?:\s*[,;:])+")


def normalize_chat(text: str) -> str:
    """A chat turn with the typed pronoun and time words restored, discourse particles out.

    Example:
        >>> normalize_chat("lol fair. im vegetarian tbh, i live in lisbon haha")
        "fair. I'm vegetarian, I live in lisbon"
        >>> normalize_chat("my id card expired and i'm ill")
        "my id card expired and I'm ill"
    """
    out = _PRONOUN.sub("I", text)
    out = _CONTRACTED.sub(lambda m: "I'm" if m.group(1).lower() == "im" else "I've", out)
    out = _I_D.sub("I'd", out)
    out = _TYPED_TIME.sub(lambda m: _TIME_WORDS[m.group(1).lower()], out)
    out = _PARTICLES.sub("", out)
    out = _EMOJI.sub("", out)
    out = _REPEATED.sub(r"\1", out)
    out = _DANGLING.sub(r"\1", out)
    out = _SPACES.sub(" ", out)
    # a sentence or clause left opening with punctuation ("lol, ..." -> ", ...")
    out = re.sub(r"(^|[.!?]\s+)[,;:]\s*", r"\1", out.strip())
    return out.strip()
