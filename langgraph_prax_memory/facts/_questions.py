"""Whether a request asks about the world or about the person's own life.

"Who invented the bicycle?" shares a word with "User restored a 1970s racing bike and sold
it", and "When did the Shinkansen first open?" lands near "User booked an onsen trip for
their anniversary": the recall finds them, and the block gave them to a question no memory
of the person answers. A good assistant answers a question of the world from what it knows
and leaves the person's diary closed; it answers "When is the dentist?" or "Did the parcel
come?" from the diary, though neither says "I" or "my".

:class:`QuestionReader` tells the two apart with a ridge classifier on the question's own
embedding (the one recall already computed: the embedder caches it), trained on
``questions.txt`` — requests written for this project by hand, of the world (facts of
nature, history, language, arithmetic, how things work, a general how-to) and of a life (the
person's plans, people, things, work, health, and tasks shaped by them). A request that
speaks in the first person ("I", "my", "we", "our"), asks about "the user" or someone called
"he" or "she" (as an agent's memory tool asks), or calls someone by a name the user's
memories hold is the person's whatever the classifier says (:func:`speaks_of_self`); the
context block decides what follows (``context.assemble_context``: a question of the world
gets no episode of the person's).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from langgraph_prax_memory.facts._classifier import _cache_dir

__all__ = ["QuestionReader", "question_examples", "speaks_of_self"]

logger = logging.getLogger(__name__)

_DATA = Path(__file__).with_name("questions.txt")
#: Weights trained before release, ``questions-<digest>.npz`` (the packaged model's).
_SHIPPED = Path(__file__).with_name("weights") / "questions"
_VERSION = "2"  # bump when the features or the weights' layout change
_RIDGE = 1.0
#: How sure the reader must be that a question is the world's: twice as likely as not.
_SURE = 2 / 3
_PROBE = "question reader fingerprint"

#: The first person: a request that says "I" or "my" is about the person's own life.
_SELF = re.compile(
    r"\b(?:i|me|my|mine|myself|we|us|our|ours|ourselves)\b|\bi['\u2019](?:m|ve|d|ll)\b", re.I
)


#: A person the memory knows, called as an agent's tool asks ("Does the user like spicy
#: food?", "Which editor does she use?"): a question of the world rarely points at someone
#: it has not named.
_SOMEONE = re.compile(
    r"\b(?:the\s+user|user['\u2019]s|he|she|him|her|his|hers|himself|herself)\b", re.I
)


def speaks_of_self(text: str) -> bool:
    """Whether ``text`` speaks in the first person ("I", "me", "my", "we", "our").

    Example:
        >>> speaks_of_self("How do I get red wine out of cotton?")
        True
        >>> speaks_of_self("Why is the sky blue?")
        False
    """
    return _SELF.search(text) is not None


def question_examples() -> list[tuple[bool, str]]:
    """The training requests as ``(of_the_world, text)`` pairs."""
    out: list[tuple[bool, str]] = []
    for line in _DATA.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kind, _, text = line.partition("|")
        if kind not in ("world", "life"):
            raise ValueError(f"{_DATA.name}: unknown kind {kind!r}")
        out.append((kind == "world", text.strip()))
    return out


class QuestionReader:
    """Tells a question of the world from one of the person's life (thread-safe, lazy).

    Args:
        embed_query: Embeds one question as recall does (the embedder's cache makes the
            question recall just embedded free).
        model_name: The model's name (the weights are trained on that model's vectors).
        cache: Whether to read and write the trained weights on disk.

    Example:
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory  # doctest: +SKIP
        >>> mem = PraxMemory(MemoryConfig(data_dir="/tmp/prax-q"))  # doctest: +SKIP
        >>> reader = mem.ltm.classes.questions()  # doctest: +SKIP
        >>> reader.of_the_world("Who painted The Night Watch?")  # doctest: +SKIP
        True
    """

    def __init__(
        self, embed_query: Callable[[str], list[float]], model_name: str, *, cache: bool = True
    ) -> None:
        self._embed = embed_query
        self._model_name = model_name
        self._cache = cache
        self._lock = threading.Lock()
        self._weights: np.ndarray | None = None

    def _digest(self) -> str:
        fp = hashlib.sha256()
        fp.update(self._model_name.encode())
        fp.update(_DATA.read_bytes())
        fp.update(_VERSION.encode())
        return fp.hexdigest()[:24]

    def probe(self) -> list[float]:
        """The model's vector of the probe text the weights are saved with."""
        return self._embed(_PROBE)

    def shipped_file(self) -> Path:
        """Where the package ships this model's weights (``scripts/ship-fact-weights``).

        Used only where the model's vector of a probe text matches the one saved with them,
        so a model of the same name but other weights trains instead.
        """
        return _SHIPPED / f"questions-{self._digest()}.npz"

    def trained_weights(self) -> np.ndarray:
        """The weights trained afresh on ``questions.txt`` (what the shipped file must hold).

        A ridge classifier on the normalised embedding, then its bar (the last element): the
        score at which a question is twice as likely the world's as the person's
        (:data:`_SURE`), by Platt scaling of the leave-one-out scores of the training
        requests. Twice, not even odds: a memory the person needed and did not get costs
        more than a line they did not need.
        """
        data = question_examples()
        x = _features(np.asarray([self._embed(t) for _, t in data], dtype=np.float64))
        y = np.asarray([1.0 if world else -1.0 for world, _ in data])
        w = _ridge(x, y)
        held_out = np.empty(len(y))
        for i in range(len(y)):
            keep = np.arange(len(y)) != i
            held_out[i] = x[i] @ _ridge(x[keep], y[keep])
        a, b = _platt(held_out, y > 0)
        bar = (np.log(_SURE / (1 - _SURE)) - b) / a
        return np.append(w, bar)

    def _load(self, path: Path, probe: Sequence[float] | None) -> np.ndarray | None:
        try:
            with np.load(path) as saved:
                if probe is not None and not np.allclose(saved["probe"], probe, atol=1e-3):
                    return None
                return np.asarray(saved["w"])
        except (OSError, ValueError, KeyError) as exc:
            logger.warning("question reader weights %s unreadable (%s)", path, exc)
            return None

    def _ready(self) -> np.ndarray:
        with self._lock:
            if self._weights is None:
                probe = self.probe()
                shipped = self.shipped_file()
                cached = _cache_dir() / f"questions-{self._digest()}.npz"
                weights = self._load(shipped, probe) if shipped.is_file() else None
                if weights is None and self._cache and cached.is_file():
                    weights = self._load(cached, probe)
                if weights is None:
                    weights = self.trained_weights()
                    if self._cache:
                        save(cached, weights, probe)
                self._weights = weights
            return self._weights

    def warm(self) -> None:
        """Load (or train) the weights now, not inside a later request."""
        self._ready()

    def score(self, text: str) -> float:
        """The classifier's score: above :meth:`bar`, a question of the world."""
        weights = self._ready()
        return float(_features(np.asarray([self._embed(text)], dtype=np.float64))[0] @ weights[:-1])

    def bar(self) -> float:
        """The score above which a question is the world's (see :meth:`trained_weights`)."""
        return float(self._ready()[-1])

    def of_the_world(self, text: str, names: Sequence[str] = ()) -> bool:
        """Whether ``text`` asks about the world rather than the person's life.

        Never for a request in the first person (:func:`speaks_of_self`), one about "the
        user" or someone called "he" or "she", or one that names any of ``names`` (the people
        and things the user's memories call by name).
        """
        if speaks_of_self(text) or _SOMEONE.search(text) or any(_names(text, n) for n in names):
            return False
        return self.score(text) > self.bar()


def _names(text: str, name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\b", text) is not None


def _ridge(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.linalg.solve(x.T @ x + _RIDGE * np.eye(x.shape[1]), x.T @ y)


def _platt(scores: np.ndarray, positive: np.ndarray) -> tuple[float, float]:
    """``(a, b)`` of ``P(positive) = 1 / (1 + exp(-(a * score + b)))`` (Newton's method)."""
    a, b = 1.0, 0.0
    t = positive.astype(np.float64)
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(a * scores + b)))
        r = p * (1 - p) + 1e-9
        grad = np.array([np.sum((p - t) * scores), np.sum(p - t)])
        hess = np.array(
            [[np.sum(r * scores * scores), np.sum(r * scores)], [np.sum(r * scores), np.sum(r)]]
        )
        step = np.linalg.solve(hess + 1e-9 * np.eye(2), grad)
        a, b = a - step[0], b - step[1]
        if np.abs(step).max() < 1e-10:
            break
    return float(a), float(b)


def _features(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.hstack([vectors / norms, np.ones((len(vectors), 1))])


def save(path: Path, weights: np.ndarray, probe: Sequence[float]) -> None:
    """Write ``weights`` with the model's ``probe`` vector, atomically.

    A read-only home is logged and left: the next process trains again.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
        np.savez(tmp, w=weights, probe=np.asarray(probe))
        os.replace(tmp, path)
    except OSError as exc:
        logger.info("question reader weights not cached (%s)", exc)
