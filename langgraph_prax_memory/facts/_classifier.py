"""What kind of statement a memory is: a standing fact, an episode, or small talk.

A memory is classified from its own text when it is written (docs/context.md, "Memory
classes"). The model is deliberately small and general:

* **What the statement is about** comes from the sentence embedding the memory is stored with
  anyway (the dense vector): a ridge classifier over it, trained on the statements in
  ``statements.txt`` (written for this project: preferences, identity, relationships, work,
  health and constraints, routines, possessions, dated events, one-off plans, small talk, in
  several voices).
* **How it is anchored in time** comes from a handful of linguistic cues that hold for any
  statement, not for any one sentence: a time anchor ("yesterday", "on Friday", "last
  month", a date) marks an episode; a habitual marker ("every", "usually") a routine; the
  past tense of a one-off action an event; a future marker ("will", "tomorrow", "next")
  a plan; a question, an interjection or a passing state ("right now", "today") small talk.
  These are closed classes of English words (weekdays, months, auxiliaries, frequency
  adverbs), listed once here, not phrases grown to fit a benchmark.

The classifier is trained per embedding model the first time it is needed (a few hundred
short texts, embedded once) and cached on disk under the machine's cache folder, keyed by the
model's fingerprint and the training data's hash; training is closed-form (ridge regression),
so the same model always gives the same classifier.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

import numpy as np

from langgraph_prax_memory._when import SITUATION_DAYS, dates_an_episode, spans_of
from langgraph_prax_memory.facts._cues import cue_features, cue_rows, states_a_goal
from langgraph_prax_memory.facts._dropped import restored_subjects
from langgraph_prax_memory.facts._grammar import _FELT, holds_now, passing_only
from langgraph_prax_memory.facts._notes import by_segment, by_sentence

__all__ = [
    "EPISODE",
    "KINDS",
    "SMALL_TALK",
    "STANDING",
    "STANDING_KINDS",
    "FactClass",
    "FactClassifier",
    "class_of_kind",
    "cue_features",
    "goal_statements",
    "training_statements",
]

logger = logging.getLogger(__name__)

STANDING: Final = "standing"
EPISODE: Final = "episode"
SMALL_TALK: Final = "small_talk"
CLASSES: Final = (STANDING, EPISODE, SMALL_TALK)

#: Kinds of standing facts (what a person keeps: they leave by supersession or by forget).
STANDING_KINDS: Final = (
    "preference",
    "identity",
    "relationship",
    "work",
    "health",
    "routine",
    "possession",
)
#: Kinds of episodes (a dated event, a one-off plan): they follow the seed's forgetting curve.
EPISODE_KINDS: Final = ("event", "plan")
KINDS: Final = (*STANDING_KINDS, *EPISODE_KINDS, SMALL_TALK)

_DATA = Path(__file__).with_name("statements.txt")
#: Statements of a goal (an obligation, a need of something done), one-off or lasting: the
#: second weight block, which reads every statement of a goal (:func:`goal_statements`).
_GOALS = Path(__file__).with_name("goals.txt")
#: Weights trained before release, one ``<digest>.npz`` per (model, statements, features).
SHIPPED_WEIGHTS = Path(__file__).with_name("weights")
_PROBE = "fact classifier fingerprint"
_CACHE_VERSION = "9"  # bump when the features or the weight blocks change
_RIDGE = 1.0  # L2 penalty of the ridge classifier (the embedding rows have unit length)
_CUE_WEIGHT = 1.0  # scale of the cue block beside the unit-length embedding


def class_of_kind(kind: str) -> str:
    """The class (standing, episode, small talk) of a kind.

    Example:
        >>> class_of_kind("routine"), class_of_kind("plan"), class_of_kind("small_talk")
        ('standing', 'episode', 'small_talk')
    """
    if kind in STANDING_KINDS:
        return STANDING
    if kind in EPISODE_KINDS:
        return EPISODE
    if kind == SMALL_TALK:
        return SMALL_TALK
    raise ValueError(f"unknown fact kind {kind!r}; expected one of {', '.join(KINDS)}")


@dataclass(frozen=True)
class FactClass:
    """The class of one memory and how it was reached.

    Attributes:
        fact_class: ``"standing"``, ``"episode"`` or ``"small_talk"``.
        kind: The finer kind (``"health"``, ``"event"``, ...).
        confidence: The classifier's margin turned into [0, 1] (1 for a caller's override).
        by: ``"text"`` (the classifier on the text and its vector), ``"cues"`` (the text's
            time cues alone: no vector of the model), ``"grammar"`` (a main clause that
            holds now: :mod:`._grammar`), ``"tags"`` or ``"importance"`` (the caller's),
            ``"date"`` (the days it names) or ``"summary"``.
    """

    fact_class: str
    kind: str
    confidence: float = 1.0
    by: str = "text"

    def payload(self) -> dict[str, object]:
        """The payload fields a stored memory carries."""
        return {
            "fact_class": self.fact_class,
            "fact_kind": self.kind,
            "fact_by": self.by,
            "fact_confidence": round(self.confidence, 3),
        }


def _read_statements(path: Path) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kind, _, text = line.partition("|")
        if kind not in KINDS:
            raise ValueError(f"{path.name}: unknown kind {kind!r}")
        out.append((kind, text.strip()))
    return out


def training_statements() -> list[tuple[str, str]]:
    """The training statements as ``(kind, text)`` pairs."""
    return _read_statements(_DATA)


def goal_statements() -> list[tuple[str, str]]:
    """The statements the goal block is trained on: the training statements and ``goals.txt``.

    ``goals.txt`` holds statements of a goal (undated to-dos beside lasting obligations). A
    statement of a goal (:func:`~._cues.states_a_goal`) is classified by this block: one-off
    or lasting by what is to be done ("needs to renew the insurance" is a plan, "needs to
    avoid gluten" a constraint), which the first block, whose plans are nearly all dated,
    could not tell; every other statement by the first block, unchanged by these.
    """
    return training_statements() + _read_statements(_GOALS)


def _features(
    vectors: np.ndarray, texts: Sequence[str], read: np.ndarray | None = None
) -> np.ndarray:
    """The classifier's inputs; ``read``: the texts' :func:`cue_rows` if already read."""
    cues = (cue_rows(texts) if read is None else read) * _CUE_WEIGHT
    if vectors.size == 0:
        return np.hstack([cues, np.ones((len(texts), 1))])
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.hstack([vectors / norms, cues, np.ones((len(texts), 1))])


def _ridge(x: np.ndarray, labels: Sequence[int], n_classes: int) -> np.ndarray:
    y = np.full((len(labels), n_classes), -1.0)
    y[np.arange(len(labels)), labels] = 1.0
    gram = x.T @ x + _RIDGE * np.eye(x.shape[1])
    return np.linalg.solve(gram, x.T @ y)


def _data_hash() -> str:
    return hashlib.sha256(_DATA.read_bytes() + _GOALS.read_bytes()).hexdigest()[:16]


def _cache_dir() -> Path:
    configured = os.environ.get("MEMORY_CLASSIFIER_CACHE_DIR", "").strip()
    if configured:
        return Path(configured)
    import platformdirs

    return Path(platformdirs.user_cache_dir("langgraph-prax-memory")) / "fact-classifier"


class FactClassifier:
    """Classifies memories from their text and their dense vector (thread-safe, lazy).

    Args:
        embed: Embeds documents with the model the memories are stored with (the
            classifier's weights are trained on that model's vectors, once, then cached).
        model_name: The model's name (part of the cache key, with a fingerprint vector).
        cache: Whether to read and write the on-disk cache.
        grammar: Whether a statement read as an episode is read again for a main clause that
            holds now (:mod:`._grammar`; ``MEMORY_CLASS_GRAMMAR``).

    Example:
        >>> from tests.fakes import HashEmbeddings  # doctest: +SKIP
        >>> emb = HashEmbeddings()  # doctest: +SKIP
        >>> clf = FactClassifier(emb.embed_documents, "hash-384")  # doctest: +SKIP
        >>> clf.classify(["User is allergic to cats."])[0].fact_class  # doctest: +SKIP
        'standing'
    """

    def __init__(
        self,
        embed: Callable[[list[str]], list[list[float]]],
        model_name: str,
        *,
        cache: bool = True,
        grammar: bool = True,
    ) -> None:
        self.grammar = grammar
        self._embed = embed
        self._model_name = model_name
        self._cache = cache
        self._lock = threading.Lock()
        self._weights: np.ndarray | None = None
        self._cue_weights: np.ndarray | None = None
        self._dim: int | None = None

    # -- training ---------------------------------------------------------------------
    def _digest(self, probe: Sequence[float] | None) -> str:
        fp = hashlib.sha256()
        fp.update(self._model_name.encode())
        if probe is not None:
            fp.update(np.asarray(probe, dtype=np.float32).round(4).tobytes())
        fp.update(_data_hash().encode())
        fp.update(_CACHE_VERSION.encode())
        return fp.hexdigest()[:24]

    def _cache_file(self, probe: Sequence[float]) -> Path:
        return _cache_dir() / f"{self._digest(probe)}.npz"

    def shipped_file(self) -> Path:
        """Where the package ships this model's trained weights (the packaged model's only).

        Named by the model's name, the statements and the features; the file also holds the
        model's vector of a probe text, and is used only where this model's probe matches it
        (a machine's float noise aside), so a model of the same name but other weights
        trains instead. Trained before release (``scripts/ship-fact-weights``;
        ``tests/unit/test_fact_bar.py`` re-trains and compares): a new machine's first write
        does not train.
        """
        return SHIPPED_WEIGHTS / f"{self._digest(None)}.npz"

    def _shipped(self, probe: Sequence[float]) -> np.ndarray | None:
        path = self.shipped_file()
        if not path.is_file():
            return None
        try:
            with np.load(path) as saved:
                same = np.allclose(saved["probe"], np.asarray(probe), atol=1e-3)
                return saved["w"] if same else None
        except (OSError, ValueError, KeyError) as exc:
            logger.warning("shipped fact classifier weights %s unreadable (%s)", path, exc)
            return None

    def _train(self) -> None:
        data = training_statements()
        texts = [t for _, t in data]
        labels = [KINDS.index(k) for k, _ in data]
        if self._cue_weights is None:
            self._cue_weights = _ridge(_features(np.empty((0, 0)), texts), labels, len(KINDS))
        probe = self._embed([_PROBE])[0]
        path = self._cache_file(probe) if self._cache else None
        if path is not None and path.is_file():
            try:
                with np.load(path) as saved:
                    self._weights = saved["w"]
                self._dim = len(probe)
                return
            except (OSError, ValueError, KeyError) as exc:
                logger.warning("fact classifier cache %s unreadable (%s): retraining", path, exc)
        shipped = self._shipped(probe)
        if shipped is not None:
            self._weights, self._dim = shipped, len(probe)
            return
        self._weights = self.trained_weights()
        self._dim = len(probe)
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
                np.savez(tmp, w=self._weights)
                os.replace(tmp, path)
            except OSError as exc:  # a read-only home: train again next process
                logger.info("fact classifier not cached (%s)", exc)

    def _ready(self) -> tuple[np.ndarray | None, np.ndarray, int | None]:
        """The trained weights; the embedding model being down leaves the cue model only."""
        with self._lock:
            if self._weights is None:
                try:
                    self._train()
                except Exception as exc:  # the model is down: cues now, the full model later
                    logger.warning("fact classifier uses cues only for now: %s", exc)
            assert self._cue_weights is not None
            return self._weights, self._cue_weights, self._dim

    def trained_weights(self) -> np.ndarray:
        """The weights trained afresh on the statements (what the shipped file must hold).

        Two blocks side by side: the first trained on ``statements.txt``, the second on
        :func:`goal_statements` (it reads statements of a goal).
        """
        blocks = []
        for data in (training_statements(), goal_statements()):
            texts = [t for _, t in data]
            vectors = np.asarray(self._embed(texts), dtype=np.float64)
            labels = [KINDS.index(k) for k, _ in data]
            blocks.append(_ridge(_features(vectors, texts), labels, len(KINDS)))
        return np.hstack(blocks)

    def warm(self) -> None:
        """Train (or load) the classifier now, not inside a later write."""
        self._ready()

    # -- classification ---------------------------------------------------------------
    def classify(
        self,
        texts: Sequence[str],
        vectors: Sequence[Sequence[float] | None] | None = None,
    ) -> list[FactClass]:
        """The class of each text; ``vectors`` are their dense vectors (embedded if ``None``).

        A text whose vector is missing or of another width (stored while the model was down,
        or by a fallback model) is classified from its cues alone, with lower confidence. A
        note that dropped its subject ("Works nights Mon-Thu") is read with it ("She works
        nights Mon-Thu", :func:`~._dropped.restored_subjects`), embedded as read.
        """
        if not texts:
            return []
        weights, cue_weights, dim = self._ready()
        restored = restored_subjects(texts) if self.grammar else [None] * len(texts)
        texts = [r or t for r, t in zip(restored, texts, strict=True)]
        if vectors is None and weights is not None:
            try:
                vectors = self._embed(list(texts))
            except Exception as exc:
                logger.warning("classifying %d memories from cues only: %s", len(texts), exc)
        elif vectors is not None and weights is not None and any(restored):
            vectors = self._embedded_as_read(texts, vectors, restored)
        rows: Sequence[Sequence[float] | None] = (
            vectors if vectors is not None else [None] * len(texts)
        )
        full = [
            i
            for i, vec in enumerate(rows)
            if weights is not None and vec is not None and len(vec) == dim
        ]
        out: list[FactClass | None] = [None] * len(texts)
        kinds: dict[int, str] = {}  # each text's likeliest standing kind
        cues = cue_rows(texts)  # read once: the features and the grammar's pre-check
        if full:  # one product for every text with its vector
            assert weights is not None
            x = _features(
                np.asarray([rows[i] for i in full], dtype=np.float64),
                [texts[i] for i in full],
                cues[full],
            )
            goal = [states_a_goal(texts[i]) for i in full]
            for i, both, of_goal in zip(full, x @ weights, goal, strict=True):
                scores = both[len(KINDS) :] if of_goal else both[: len(KINDS)]
                out[i], kinds[i] = _decide(scores), _standing_kind(scores)
        rest = [i for i in range(len(texts)) if out[i] is None]
        if rest:
            x = _features(np.empty((0, 0)), [texts[i] for i in rest], cues[rest])
            for i, scores in zip(rest, x @ cue_weights, strict=True):
                out[i], kinds[i] = _decide(scores, by="cues"), _standing_kind(scores)
        decided = [c for c in out if c is not None]
        read = _reread(texts, decided, kinds, cues) if self.grammar else decided
        # a note of several sentences called small talk: read sentence by sentence
        return by_sentence(texts, read, self.classify, small_talk=SMALL_TALK, wanted=CLASSES[:2])

    def _embedded_as_read(
        self,
        texts: Sequence[str],
        vectors: Sequence[Sequence[float] | None],
        restored: Sequence[str | None],
    ) -> list[Sequence[float] | None]:
        """``vectors``, with those of the notes read with their subject embedded as read."""
        out = list(vectors)
        again = [i for i, r in enumerate(restored) if r]
        try:
            for i, vec in zip(again, self._embed([texts[i] for i in again]), strict=True):
                out[i] = vec
        except Exception as exc:  # the model is down: the note's own vector
            logger.warning("classifying %d notes by their own vectors: %s", len(again), exc)
        return out


def _standing_kind(scores: np.ndarray) -> str:
    return STANDING_KINDS[max(range(len(STANDING_KINDS)), key=lambda j: float(scores[j]))]


_ANCHOR, _NOW_CUE, _FUTURE_CUE, _TALK_CUE = 0, 2, 3, 7  # positions in cue_features


def _may_hold_now(
    text: str, decided: FactClass, cues: Sequence[float] | None = None, now: datetime | None = None
) -> bool:
    """Whether the grammar may still find a standing fact the classifier did not call one.

    An episode, or small talk called only because standing fell below its bar; not a text
    that names the days around now ("this week") or dates an event of the past few weeks
    (what else it says is the event's aftermath: "had a stroke on Friday and is in ICU"),
    about the here and now, or a question or interjection. Any other time anchor or time to
    come ("gave up driving last year", "sits his exams next June", "flies out on the 20th")
    is weighed clause by clause
    (:func:`_dated_clause`): the clause it dates holds nothing now, another may. ``cues``:
    the text's :func:`cue_features` when the caller has read them; ``now``: the moment read.
    """
    if decided.fact_class == STANDING:
        return False
    if decided.fact_class == SMALL_TALK and decided.confidence > 0.5:
        return False  # the classifier's small talk: what it says, not how it is said
    if cues is None:
        cues = cue_features(text)
    if any(cues[i] for i in (_NOW_CUE, _TALK_CUE)):
        return False
    spans = spans_of(text, now or datetime.now(UTC))
    if any(s.here_and_now and (s.end - s.start).days <= 7 for s in spans):
        return False  # "this week", "this morning": what happened of late, told now
    if _THERE.search(text) and dates_an_episode(text, now or datetime.now(UTC), spans):
        return False  # "defends her thesis on 5 May and wants User there": the event's
    return not dates_an_episode(text, now or datetime.now(UTC), spans, ahead=SITUATION_DAYS)


#: A place that points back at an event a statement dates ("... on 5 May and wants User
#: there"): what is said of it is the event's, however far off (not "there is", "over there").
_THERE = re.compile(
    r"\b(?<!over )there\b(?!\s*(?:is|are|was|were|'s|'re|will|would|has|have|had|must|may|"
    r"might|should|could|can|isn't|aren't|wasn't|weren't)\b)",
    re.I,
)


#: A time that points back at another clause's ("before then", "by then"): dated by it.
_BACK_THEN = re.compile(r"\b(?:before|by|until|till|after|around)\s+then\b", re.I)


def _dated_clause(now: datetime) -> Callable[[str], bool]:
    """Whether a clause's own words date it (the predicate the grammar asks of a clause).

    A time anchor or a time to come (the classifier's cues), a day near ``now``, or a time
    that points back at another clause's ("before then"). Such a clause holds nothing now;
    the statement's other clauses may.
    """

    def dated(clause: str) -> bool:
        if _BACK_THEN.search(clause):
            return True  # "... on the 21st; User needs a present before then": that day's
        cues = cue_features(clause)
        return bool(cues[_ANCHOR] or cues[_FUTURE_CUE]) or dates_an_episode(clause, now)

    return dated


def _days_ahead(now: datetime) -> Callable[[str], bool]:
    """Whether a text names a day to come (from tomorrow on; not the start of a state)."""
    tomorrow = datetime(now.year, now.month, now.day, tzinfo=now.tzinfo or UTC) + timedelta(1)

    def later(text: str) -> bool:
        return any(
            s.start >= tomorrow for s in spans_of(text, now) if not (s.here_and_now or s.since)
        )

    return later


def _ahead(now: datetime) -> Callable[[str], bool]:
    """Whether a clause's own words date it to a time to come (a future cue, a later day)."""
    later = _days_ahead(now)

    def ahead(clause: str) -> bool:
        return bool(cue_features(clause)[_FUTURE_CUE]) or later(clause)

    return ahead


def _reread(
    texts: Sequence[str], decided: list[FactClass], kinds: dict[int, str], cues: Any = None
) -> list[FactClass]:
    """The classifier's decisions, read again for what holds now.

    The statements whose main clause holds now are standing; a standing reading of the text
    whose present clauses are only passing stages (:func:`~._grammar.passing_only`: "my
    iPad keeps asking me to update and I don't know if I should") is an episode.

    A statement the classifier read as an event because it also tells one ("had two thirds
    of his stomach removed after cancer five years ago and can only manage small portions")
    is a standing fact when a main clause asserts, in the present, something of the person
    or of theirs (:func:`~langgraph_prax_memory.facts._grammar.holds_now`): ``fact_by``
    ``"grammar"``, as sure as the standing bar.
    """
    rows = cue_rows(texts) if cues is None else cues  # as classify read them
    now = datetime.now(UTC)  # one moment for the batch
    maybe = [
        i
        for i, (t, c) in enumerate(zip(texts, decided, strict=True))
        if _may_hold_now(t, c, rows[i], now)
    ]
    # a standing reading whose words may tell a passing stage ("keeps asking", "is fine now")
    stage = [
        i
        for i, (t, c) in enumerate(zip(texts, decided, strict=True))
        if c.fact_class == STANDING and c.by == "text" and _MAY_BE_A_STAGE.search(t)
    ]
    if not maybe and not stage:
        return decided
    out = list(decided)
    dated, ahead = _dated_clause(now), _ahead(now)
    found = holds_now([texts[i] for i in maybe], dated=dated, ahead=ahead) if maybe else []
    found = by_segment([texts[i] for i in maybe], found, dated, ahead, _days_ahead(now))
    for i, yes in zip(maybe, found, strict=True):
        if yes:
            out[i] = FactClass(STANDING, kinds[i], STANDING_CONFIDENCE, "grammar")
    passing = passing_only([texts[i] for i in stage], dated=dated, ahead=ahead) if stage else []
    for i, yes in zip(stage, passing, strict=True):
        if yes:  # the moment, not the person: an episode, as sure as the standing was not
            out[i] = FactClass(EPISODE, "event", 1.0 - decided[i].confidence, "grammar")
    return out


#: The words a passing stage is told with (:func:`~._grammar.passing_only`): "keeps" with an
#: activity, or a stage marked as new; a text without them is not parsed for it.
_MAY_BE_A_STAGE = re.compile(
    rf"\b(?:keeps?|kept|now|again|{'|'.join(sorted(_FELT))})\b",  # and a feeling's progressive
    re.I,
)


#: The confidence a text needs to be called a standing fact. A standing fact shows on every
#: turn and never decays, so one taken wrongly costs more than one missed (a missed one is
#: still recalled when it is relevant): the bar is the lowest at which 10-fold
#: cross-validation on the training statements gives a standing precision of at least 0.98
#: (0.60 on the 745 statements: precision 0.984, recall 0.931; measured on the statements
#: alone, no benchmark; ``tests/unit/test_fact_bar.py`` re-measures it).
STANDING_CONFIDENCE = 0.6

#: How sure the classifier must be that a text is small talk before consolidation drops it (a
#: fact dropped is lost): chosen by the same rule as :data:`STANDING_CONFIDENCE`, for the
#: small-talk class (0.75: cross-validated precision 0.987, recall 0.738).
SMALL_TALK_CONFIDENCE = 0.75


#: The positions in :data:`KINDS` of each class's kinds, in order.
_KINDS_OF: Final = {c: [i for i, k in enumerate(KINDS) if class_of_kind(k) == c] for c in CLASSES}


def _decide(scores: np.ndarray, by: str = "text", bar: float | None = None) -> FactClass:
    best = {c: max(float(scores[i]) for i in _KINDS_OF[c]) for c in CLASSES}
    kind_of = {c: KINDS[max(_KINDS_OF[c], key=lambda i: scores[i])] for c in CLASSES}
    fact_class = max(CLASSES, key=lambda c: best[c])
    runner_up = max(v for c, v in best.items() if c != fact_class)
    confidence = float(1.0 / (1.0 + np.exp(-4.0 * (best[fact_class] - runner_up))))
    if fact_class == STANDING and confidence < (STANDING_CONFIDENCE if bar is None else bar):
        # not sure enough: the likelier of the other two, as sure as the standing was not
        fact_class = max((EPISODE, SMALL_TALK), key=lambda c: best[c])
        confidence = 1.0 - confidence
    return FactClass(fact_class=fact_class, kind=kind_of[fact_class], confidence=confidence, by=by)
