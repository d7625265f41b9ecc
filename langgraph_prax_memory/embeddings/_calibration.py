"""Self-calibration: each embedding model's own cosine scale, measured on a background set.

Models put unrelated texts at very different cosines: all-MiniLM-L6-v2 around 0.07,
bge-small-en-v1.5 around 0.36, e5-small-v2 around 0.71. The three cosine settings of recall
(``RetrievalConfig.unrelated_cosine``, ``min_cosine``, ``companion_cosine``) are therefore
measured for the model instead of set by hand: the model embeds the project's background set
(:mod:`._background`: 60 everyday questions, each with the statement that answers it), and
the settings are read off the distribution of its *unrelated* pairs (a question against the
statements of the other 59 topics), taken as a normal distribution of mean ``m`` and standard
deviation ``s``:

- ``unrelated_cosine`` — the median unrelated cosine: where "nothing in common" sits;
- ``min_cosine`` — ``m + 2.326·s``, the one-sided 1 % tail: a hit must stand out from the
  unrelated pairs as 1 in 100 of them would, to open the context on its own (lower tails
  were measured and not adopted: docs/retrieval.md, "The floor's tail");
- ``companion_cosine`` — ``m + 1.282·s``, the 10 % tail: beside a relevant hit, another is
  kept when it stands out as 1 in 10 unrelated pairs would.

**Hubness.** Some statements sit close to *every* question ("The user's editor is Neovim
with the gruvbox dark theme." to e5-small-v2, "prefers polars over pandas" to bge-small):
their unrelated cosines are shifted up as a whole, and they are what an off-topic question
finds. The scale therefore keeps the background questions' centroid (the mean of their unit
vectors): a memory's mean cosine to the background questions is its dot product with it,
and the floor compares ``cosine − (that mean − m)`` — the cosine above what this memory gets
from any question — instead of the raw cosine. ``s`` is measured on the same corrected
background pairs (each statement's cosines less its own mean over the other questions), so
the tails are those of the corrected score. Ranking is not changed: only the floor and the
companion bar read the corrected cosine (:class:`Hubness`).

The tails are read from the mean and spread rather than the empirical percentiles because
the background pairs share a genre (everyday personal facts) and are closer than what an
off-topic question meets; the spread carries over between models where the raw percentiles
do not (measured: docs/retrieval.md). For all-MiniLM-L6-v2 this gives 0.07 / 0.32 / 0.21
against the hand-set 0.0 / 0.3 / 0.2. The related pairs are measured too (their median is
reported, and ``min_cosine`` is held below it so a model whose scales overlap cannot floor
out half of what is on topic).

Values set explicitly in ``RetrievalConfig`` (its ``model_fields_set``: keyword arguments or
``MEMORY_RETRIEVAL``) override the calibration (:func:`apply_scale`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from langgraph_prax_memory.config import RetrievalConfig
from langgraph_prax_memory.embeddings._background import BACKGROUND_PAIRS
from langgraph_prax_memory.embeddings._dense import ResilientEmbeddings
from langgraph_prax_memory.embeddings._local import LocalEmbeddings
from langgraph_prax_memory.embeddings._partial import partial_tails
from langgraph_prax_memory.errors import ConfigError, EmbeddingError, PraxMemoryError

__all__ = [
    "Hubness",
    "SCALE_FIELDS",
    "SCALE_KEY",
    "SCALE_RETRY_SECONDS",
    "CosineCalibration",
    "ScaleKeeper",
    "apply_scale",
    "cached_scale",
    "collection_scale",
    "hubness_of",
    "measure_model_scale",
    "measure_scale",
    "model_key",
    "model_stamp",
    "scale_digest",
    "shipped_scale",
]

logger = logging.getLogger(__name__)

#: The version of the background set and the derivation; a stored scale of another version is
#: measured again.
SCALE_VERSION = 3
#: Metadata key of the cosine scale stored with a collection, one per version: libraries of
#: two versions sharing a server collection each keep their own.
SCALE_KEY = f"prax_cosine_scale.v{SCALE_VERSION}"
#: Where releases before the versioned key stored the scale: a scale of the current version
#: found there is adopted (copied to :data:`SCALE_KEY`); the entry itself is left as it is.
_LEGACY_KEY = "prax_cosine_scale"
#: The ``RetrievalConfig`` fields a scale sets.
SCALE_FIELDS = ("unrelated_cosine", "min_cosine", "companion_cosine")
#: One-sided normal tails: 1 % for the floor, 10 % for companions.
_MIN_Z = 2.326
_COMPANION_Z = 1.282


@dataclass(frozen=True, eq=False)
class Hubness:
    """How much each memory's cosine is lifted by its closeness to every question.

    ``offsets`` of unit vectors: their dot product with ``centroid`` (their mean cosine to
    the background questions) less ``level`` (what a memory of no hubness gets). The floor
    subtracts the offset from a memory's cosine; a memory near every question must reach a
    higher raw cosine to be called relevant, one far from them all a lower one.

    Example:
        >>> hub = Hubness(np.array([0.0, 0.4], dtype=np.float32), 0.1)
        >>> [round(x, 2) for x in hub.offsets([[0.0, 1.0], [1.0, 0.0]])]
        [0.3, -0.1]
    """

    centroid: np.ndarray
    level: float

    def offsets(self, vectors: Sequence[Sequence[float]]) -> list[float]:
        """Each vector's offset (vectors are unit length, as the collection keeps them)."""
        return self.offsets_of(self.dots(vectors))

    def dots(self, vectors: Sequence[Sequence[float]]) -> list[float]:
        """Each vector's dot product with the centroid, made unit length first.

        What a memory keeps from when it was written (its offset is the dot less ``level``):
        recall then reads no vectors to correct the floor (issue 41).
        """
        if not len(vectors):
            return []
        m = _unit(np.asarray(vectors, dtype=np.float32))
        return [float(x) for x in m @ self.centroid]

    def offsets_of(self, dots: Sequence[float]) -> list[float]:
        """The offsets of vectors whose :meth:`dots` these are (the same float32 arithmetic)."""
        return [float(x) for x in np.asarray(dots, dtype=np.float32) - self.level]

    @functools.cached_property
    def key(self) -> str:
        """Names the centroid: a dot product kept under another key is another centroid's."""
        return hashlib.blake2b(
            np.ascontiguousarray(self.centroid).tobytes(), digest_size=8
        ).hexdigest()


@dataclass(frozen=True)
class CosineCalibration:
    """A model's cosine scale and the three recall settings derived from it.

    Attributes:
        model: The model it was measured on.
        unrelated_cosine: Median cosine of unrelated question/statement pairs.
        min_cosine: The unrelated pairs' 1 % normal tail (the relevance floor).
        companion_cosine: Their 10 % normal tail (the floor's second bar).
        related_median: Median cosine of the related pairs (a question and its answer).
        unrelated_pairs: How many unrelated pairs were measured.
        related_pairs: How many related pairs were measured.
        version: :data:`SCALE_VERSION` of the background set and derivation.
        centroid: The mean of the background questions' unit vectors (empty: no hubness
            correction); a memory's mean cosine to them is its dot product with it.
        centroid_level: The mean unrelated cosine, what a memory of no hubness gets from
            the centroid.
        raw_min_cosine: The 1 % tail of the uncorrected pairs: the floor when the hubness
            correction is off (``None``: as ``min_cosine``).
        raw_companion_cosine: Their 10 % tail (the companion bar without the correction).

    Example:
        >>> scale = CosineCalibration("m", 0.07, 0.28, 0.23, 0.62, 3540, 60)
        >>> scale.describe().split(";")[0]
        'm: unrelated pairs at 0.07, floor 0.28 (1 % tail), companions 0.23 (10 % tail)'
    """

    model: str
    unrelated_cosine: float
    min_cosine: float
    companion_cosine: float
    related_median: float
    unrelated_pairs: int
    related_pairs: int
    version: int = SCALE_VERSION
    centroid: tuple[float, ...] = ()
    centroid_level: float = 0.0
    raw_min_cosine: float | None = None
    raw_companion_cosine: float | None = None
    #: The scale of *partial* cosines (a shared name's direction out, :mod:`._partial`):
    #: median, 1 % and 10 % tails of the unrelated background pairs with a name in both
    #: (``None``: not measured by an earlier release; recall reads them on the raw scale).
    partial_unrelated_cosine: float | None = None
    partial_min_cosine: float | None = None
    partial_companion_cosine: float | None = None

    def partial_scale(self) -> tuple[float, float, float] | None:
        """``(unrelated, floor, companion)`` of partial cosines (``None``: not measured)."""
        u, f = self.partial_unrelated_cosine, self.partial_min_cosine
        c = self.partial_companion_cosine
        return None if u is None or f is None or c is None else (u, f, c)

    def hubness(self) -> Hubness | None:
        """The hubness correction of the floor (``None``: the scale has no centroid)."""
        if not self.centroid:
            return None
        return Hubness(np.asarray(self.centroid, dtype=np.float32), self.centroid_level)

    def settings(self, corrected: bool = True) -> dict[str, float]:
        """The three ``RetrievalConfig`` values.

        ``corrected=False``: the floor's tails read from the uncorrected pairs, for recall
        without the hubness correction.
        """
        out = {name: float(getattr(self, name)) for name in SCALE_FIELDS}
        if not corrected and self.raw_min_cosine is not None:
            out["min_cosine"] = float(self.raw_min_cosine)
        if not corrected and self.raw_companion_cosine is not None:
            out["companion_cosine"] = float(self.raw_companion_cosine)
        return out

    def describe(self) -> str:
        """One line for ``hit.explain()`` and the logs."""
        return (
            f"{self.model}: unrelated pairs at {self.unrelated_cosine:.2f}, floor "
            f"{self.min_cosine:.2f} (1 % tail), companions {self.companion_cosine:.2f} (10 % "
            f"tail); related pairs at {self.related_median:.2f}"
            + ("; question centroid kept for the hubness correction" if self.centroid else "")
        )

    def to_json(self) -> dict[str, Any]:
        """A JSON-able mapping (stored in the collection's metadata)."""
        data = asdict(self)
        data["centroid"] = list(self.centroid)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> CosineCalibration | None:
        """The scale stored in ``data``; ``None`` when absent, malformed or of another version."""
        if not isinstance(data, Mapping) or data.get("version") != SCALE_VERSION:
            return None
        try:
            fields = {k: data[k] for k in cls.__dataclass_fields__ if k not in _OPTIONAL}
            fields.update({k: data[k] for k in _OPTIONAL if data.get(k) is not None})
            fields["centroid"] = tuple(float(x) for x in fields["centroid"])
            return cls(**fields)
        except (KeyError, TypeError, ValueError):
            return None


#: Fields a scale file may lack (measured by later releases than the file's).
_OPTIONAL = ("partial_unrelated_cosine", "partial_min_cosine", "partial_companion_cosine")


def measure_scale(
    model: str,
    embed_queries: Callable[[list[str]], list[list[float]]],
    embed_documents: Callable[[list[str]], list[list[float]]],
) -> CosineCalibration:
    """Measure ``model``'s cosine scale on the background set (120 texts; 4 × ~70 with a name).

    Questions go through ``embed_queries`` and statements through ``embed_documents``, as in
    recall (models with query prefixes are measured as they are used).

    Raises:
        Whatever the embedding functions raise (an unreachable provider: ``EmbeddingError``).
    """
    questions = [q for q, _ in BACKGROUND_PAIRS]
    statements = [s for _, s in BACKGROUND_PAIRS]
    q = _unit(np.asarray(embed_queries(questions), dtype=np.float64))
    d = _unit(np.asarray(embed_documents(statements), dtype=np.float64))
    sims = q @ d.T
    related = np.diag(sims)
    others = ~np.eye(len(sims), dtype=bool)
    unrelated = sims[others]
    related_median = float(np.median(related))
    mean = float(unrelated.mean())
    # hubness: each statement's unrelated cosines less their own mean (its pull on every
    # question); the tails are read from what is left
    own = np.array([sims[others[:, j], j].mean() for j in range(len(statements))])
    spread = float((sims - own[None, :] + mean)[others].std())
    floor = min(mean + _MIN_Z * spread, related_median)
    companion = min(mean + _COMPANION_Z * spread, floor)
    raw_spread = float(unrelated.std())  # the tails without the correction
    raw_floor = min(mean + _MIN_Z * raw_spread, related_median)
    raw_companion = min(mean + _COMPANION_Z * raw_spread, raw_floor)
    partial_unrelated, partial_floor, partial_companion = partial_tails(
        embed_queries, embed_documents, _MIN_Z, _COMPANION_Z
    )
    return CosineCalibration(
        model=model,
        unrelated_cosine=round(float(np.median(unrelated)), 4),
        min_cosine=round(floor, 4),
        companion_cosine=round(companion, 4),
        related_median=round(related_median, 4),
        unrelated_pairs=int(unrelated.size),
        related_pairs=int(related.size),
        centroid=tuple(round(float(x), 6) for x in q.mean(axis=0)),
        centroid_level=round(mean, 4),
        raw_min_cosine=round(raw_floor, 4),
        raw_companion_cosine=round(raw_companion, 4),
        partial_unrelated_cosine=round(partial_unrelated, 4),
        partial_min_cosine=round(partial_floor, 4),
        partial_companion_cosine=round(partial_companion, 4),
    )


def _unit(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return np.asarray(m / np.where(norms == 0, 1.0, norms))


def apply_scale(config: RetrievalConfig, scale: CosineCalibration | None) -> RetrievalConfig:
    """``config`` with the scale's three settings, except those the user set explicitly.

    A field is the user's when it is in ``config.model_fields_set`` (given as a keyword or in
    ``MEMORY_RETRIEVAL``); the others take the calibrated value: the tails of the
    hubness-corrected pairs when recall applies the correction (:func:`hubness_of`), of the
    raw pairs when it does not. A measured companion bar is never above a hand-set floor.
    ``scale=None`` returns ``config`` unchanged (its defaults are all-MiniLM-L6-v2's hand-set
    values).

    Example:
        >>> scale = CosineCalibration("e5", 0.71, 0.76, 0.75, 0.82, 3540, 60)
        >>> apply_scale(RetrievalConfig(min_cosine=0.8), scale).min_cosine
        0.8
        >>> apply_scale(RetrievalConfig(min_cosine=0.8), scale).unrelated_cosine
        0.71
    """
    if scale is None:
        return config
    mine = config.model_fields_set
    corrected = hubness_of(config, scale) is not None
    update = {k: v for k, v in scale.settings(corrected).items() if k not in mine}
    if "companion_cosine" in update and "min_cosine" in mine:
        update["companion_cosine"] = min(update["companion_cosine"], config.min_cosine)
    if not update:
        return config
    # validated like user input (a scale outside the fields' bounds is a ConfigError)
    return RetrievalConfig(**{**config.model_dump(exclude_unset=True), **update})


def hubness_of(config: RetrievalConfig, scale: CosineCalibration | None) -> Hubness | None:
    """The hubness correction recall applies with ``config`` and ``scale`` (``None``: none).

    It belongs to the measured floor: with ``min_cosine`` set by hand the floor reads raw
    cosines, unless ``hubness_correction=True`` is set by hand too (a floor tuned on the
    corrected cosine); ``hubness_correction=False`` or no measured scale: raw cosines.

    Example:
        >>> scale = CosineCalibration("m", 0.07, 0.3, 0.2, 0.6, 3540, 60, centroid=(0.1, 0.2))
        >>> hubness_of(RetrievalConfig(), scale) is not None
        True
        >>> hubness_of(RetrievalConfig(min_cosine=0.3), scale) is None
        True
        >>> tuned = RetrievalConfig(min_cosine=0.3, hubness_correction=True)
        >>> hubness_of(tuned, scale) is not None
        True
    """
    if scale is None or not config.hubness_correction:
        return None
    hand_set = config.model_fields_set
    if "min_cosine" in hand_set and "hubness_correction" not in hand_set:
        return None
    return scale.hubness()


_memo: dict[str, CosineCalibration] = {}
_memo_lock = threading.Lock()


#: Scales measured before release, one ``<sha>.json`` per model key (the packaged model's):
#: a new data folder's first search answers at its usual speed (issue 41).
SHIPPED_SCALES = Path(__file__).resolve().parent / "scales"


def scale_digest(key: str) -> str:
    """The file name stem of a model key's scale (``name|dimension|fingerprint``)."""
    return hashlib.sha256(key.encode()).hexdigest()[:24]


def shipped_scale(key: str) -> CosineCalibration | None:
    """The scale shipped with the package for ``key`` (``None``: not shipped, or stale).

    A shipped file names its key; a file of another key or an older version of the
    measurement is not used (the model is measured instead).
    """
    path = SHIPPED_SCALES / f"{scale_digest(key)}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    return CosineCalibration.from_json(data)


def model_key(dense: ResilientEmbeddings) -> str:
    """The key a model's scale is kept under: ``name|dimension|fingerprint``."""
    stamp = model_stamp(dense)
    return f"{stamp['name']}|{stamp['dimension']}|{stamp['fingerprint']}"


def cached_scale(
    key: str,
    cache_dir: Path | None,
    measure: Callable[[], CosineCalibration],
) -> CosineCalibration:
    """The scale for ``key`` (model name + fingerprint), measured once and cached.

    Shipped with the package for the packaged model (:data:`SHIPPED_SCALES`); cached in
    this process and, with ``cache_dir``, in ``cache_dir/<sha>.json`` — so an OpenAI or
    Ollama model is measured on first use and never again for the same model.
    """
    digest = scale_digest(key)
    path = cache_dir / f"{digest}.json" if cache_dir is not None else None
    scale = known_scale(key, cache_dir)
    if scale is None:
        scale = measure()
        logger.info("calibrated %s", scale.describe())
        with _memo_lock:
            _memo[digest] = scale
    # kept on disk unless shipped, also when this process knew it already (a model measured
    # by one memory, then pulled into another cache: ``models pull`` must leave its file)
    if path is not None and not path.is_file() and shipped_scale(key) is None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps({**scale.to_json(), "key": key}), encoding="utf-8")
            tmp.replace(path)
        except OSError as exc:  # a read-only cache only costs a measurement next time
            logger.warning("could not cache the cosine scale in %s: %s", path, exc)
    return scale


def known_scale(key: str, cache_dir: Path | None) -> CosineCalibration | None:
    """The scale for ``key`` when it is known without measuring: shipped or cached."""
    digest = scale_digest(key)
    with _memo_lock:
        if digest in _memo:
            return _memo[digest]
    path = cache_dir / f"{digest}.json" if cache_dir is not None else None
    scale = shipped_scale(key)
    if scale is None and path is not None and path.is_file():
        try:
            scale = CosineCalibration.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            scale = None
    if scale is not None:
        with _memo_lock:
            _memo[digest] = scale
    return scale


def model_stamp(dense: ResilientEmbeddings) -> dict[str, Any]:
    """What a collection records of its model: ``name``, ``dimension``, ``fingerprint``.

    The fingerprint identifies the weights where they are known (a local model's ONNX file);
    for a served model (OpenAI, Ollama, a custom ``Embeddings``) it is the client's class.
    """
    primary = dense.primary
    fingerprint = getattr(primary, "fingerprint", None)
    if callable(fingerprint):
        fp = str(fingerprint())
    else:
        fp = f"{type(primary).__module__}.{type(primary).__qualname__}"
    return {"name": dense.model_name, "dimension": dense.dimension, "fingerprint": fp}


def measure_model_scale(dense: ResilientEmbeddings, cache_dir: Path | None) -> CosineCalibration:
    """The cosine scale of ``dense``'s primary model, measured once per model and cached.

    Only the primary model is measured (never a fallback). ``cache_dir`` keeps the result per
    model name and fingerprint, so a served model (OpenAI, Ollama) is asked once.

    Raises:
        EmbeddingError: The model could not be reached or failed.
    """
    stamp = model_stamp(dense)
    key = model_key(dense)
    primary = dense.primary

    def queries(texts: list[str]) -> list[list[float]]:
        if isinstance(primary, LocalEmbeddings):  # one batch, with the model's query prefix
            return primary.embed_queries(texts)
        return [primary.embed_query(t) for t in texts]

    def measure() -> CosineCalibration:
        try:
            return measure_scale(str(stamp["name"]), queries, dense.embed_primary)
        except PraxMemoryError:
            raise
        except Exception as exc:  # a provider's own error: name the model
            raise EmbeddingError(
                f"measuring the cosine scale of {stamp['name']} failed: {type(exc).__name__}: {exc}"
            ) from exc

    return cached_scale(key, cache_dir, measure)


def collection_scale(
    read: Callable[[], Mapping[str, Any]],
    write: Callable[[Mapping[str, Any]], object],
    dense: ResilientEmbeddings,
    cache_dir: Path | None,
) -> CosineCalibration | None:
    """The scale stored with a collection, or measured now and stored; ``None`` if it cannot be.

    ``read`` / ``write`` give and merge the collection's metadata. A stored scale of another
    model or version is measured again; a scale of this version that an earlier release
    stored under the unversioned key is adopted when no versioned entry exists yet. A model
    that cannot be reached is logged and measured at the next call; meanwhile the configured
    settings apply.
    """
    metadata = read()
    stored = CosineCalibration.from_json(metadata.get(SCALE_KEY))
    if stored is not None and stored.model == dense.model_name:
        return stored
    # only before any versioned entry: a collection moved to another model and back must
    # not pick up the plain key's old measurement
    legacy = CosineCalibration.from_json(metadata.get(_LEGACY_KEY))
    unversioned = metadata.get(SCALE_KEY) is None
    if unversioned and legacy is not None and legacy.model == dense.model_name:
        write({SCALE_KEY: legacy.to_json()})  # the previous release's measurement, adopted
        return legacy
    try:
        scale = measure_model_scale(dense, cache_dir)
    except (EmbeddingError, ConfigError) as exc:
        logger.warning(
            "could not measure the cosine scale of %s (%s): recall uses the configured "
            "cosine settings until it can",
            dense.model_name,
            exc,
        )
        return None
    write({SCALE_KEY: scale.to_json()})
    return scale


#: Seconds before :meth:`ScaleKeeper.due` allows measuring again after the model was down: the
#: first wait, doubled after each failure up to the second (each attempt costs one timeout).
SCALE_RETRY_SECONDS = (30.0, 900.0)


class ScaleKeeper:
    """A collection's cosine scale: read or measured once, tried again while the model is down.

    :meth:`get` reads the scale stored with the collection or measures it (and stores it);
    when the model cannot be reached it returns ``None`` and :meth:`due` says when a hot
    path (recall) may try again: after ``SCALE_RETRY_SECONDS[0]``, doubled after each
    failure up to ``SCALE_RETRY_SECONDS[1]``, so an outage costs one timeout per wait, not
    one per recall. Not thread-safe: its owner holds a lock around it.

    Example:
        >>> from langgraph_prax_memory.config import MemoryConfig
        >>> from langgraph_prax_memory.embeddings import create_dense_embeddings
        >>> metadata: dict[str, Any] = {}  # what the collection keeps
        >>> dense = create_dense_embeddings(MemoryConfig())  # the packaged MiniLM
        >>> keeper = ScaleKeeper(lambda: metadata, metadata.update, dense, None)
        >>> keeper.get() is not None and SCALE_KEY in metadata and not keeper.due()
        True
    """

    def __init__(
        self,
        read: Callable[[], Mapping[str, Any]],
        write: Callable[[Mapping[str, Any]], object],
        dense: ResilientEmbeddings,
        cache_dir: Path | None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._read, self._write, self._dense, self._cache_dir = read, write, dense, cache_dir
        self._clock = clock
        self.scale: CosineCalibration | None = None
        self._retry_at = 0.0
        self._wait = SCALE_RETRY_SECONDS[0]

    def get(self) -> CosineCalibration | None:
        """The scale, measured now if it is not known yet (``None``: the model is down)."""
        if self.scale is None:
            self.scale = collection_scale(self._read, self._write, self._dense, self._cache_dir)
            if self.scale is None:
                self._retry_at = self._clock() + self._wait
                self._wait = min(2 * self._wait, SCALE_RETRY_SECONDS[1])
            else:
                self._wait = SCALE_RETRY_SECONDS[0]
        return self.scale

    def known(self) -> CosineCalibration | None:
        """The scale if it is known without measuring the model (for writes; never measures).

        The one :meth:`get` gave, else the one stored with the collection for this model,
        else the one shipped with the package or cached on this machine.
        """
        if self.scale is not None:
            return self.scale
        stored = CosineCalibration.from_json(self._read().get(SCALE_KEY))
        if stored is not None and stored.model == self._dense.model_name:
            return stored
        return known_scale(model_key(self._dense), self._cache_dir)

    def due(self) -> bool:
        """Whether the scale is unknown and the back-off since the last failure has passed."""
        return self.scale is None and self._clock() >= self._retry_at
