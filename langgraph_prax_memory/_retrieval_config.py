"""``RetrievalConfig``: how recall ranks and what the context block keeps.

Re-exported by ``langgraph_prax_memory.config``, where every setting lives.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from langgraph_prax_memory._routing import describe_errors
from langgraph_prax_memory.errors import ConfigError

__all__ = ["RetrievalConfig"]

#: The query intents and the retrieval arms that ``RetrievalConfig.weights`` may name (the
#: ``Intent`` and ``ARMS`` of ``retrieval._intent``, which imports this module; a test keeps
#: them equal).
_INTENTS: tuple[str, ...] = ("identifier", "entity", "semantic", "neutral")
_ARMS: tuple[str, ...] = ("dense", "sparse", "graph")


class RetrievalConfig(BaseModel):
    """How recall ranks: arm weights per query intent, RRF constant, candidate depth, passes.

    The weights are the seed's table; change them here, not in code. A key that is not a
    setting, an intent or an arm (a typo such as ``"rrf"`` or ``"semntic"``) is a
    :class:`ConfigError`, never silently ignored.

    Example:
        >>> cfg = RetrievalConfig()
        >>> cfg.weights["identifier"]
        {'dense': 0.8, 'sparse': 1.5, 'graph': 1.3}
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    weights: dict[str, dict[str, float]] = Field(
        default_factory=lambda: {
            "identifier": {"dense": 0.8, "sparse": 1.5, "graph": 1.3},
            "entity": {"dense": 1.0, "sparse": 1.2, "graph": 1.4},
            "semantic": {"dense": 1.4, "sparse": 0.9, "graph": 1.0},
            "neutral": {"dense": 1.0, "sparse": 1.0, "graph": 1.0},
        }
    )
    fusion: Literal["evidence", "rrf"] = "evidence"
    """How the arms are fused. ``"evidence"`` (default): score-aware, each arm's scores
    become evidence relative to its own typical score for the query, so a flat or noisy arm
    cannot outvote a confident one (docs/retrieval.md). ``"rrf"``: the seed's weighted
    Reciprocal Rank Fusion over ranks only."""
    evidence_spread: float = Field(default=0.5, gt=0.0, le=1.0)
    """Evidence fusion: score differences smaller than this share of an arm's top score are
    scaled down, so near-equal scores stay near-equal evidence."""
    unrelated_cosine: float = Field(default=0.0, ge=-1.0, lt=1.0)
    """The cosine the embedding model gives unrelated texts: the dense arm's evidence is
    measured from it. 0 suits all-MiniLM-L6-v2 (unrelated pairs average about 0.07); a model
    whose cosines all sit high needs its own (e5-small-v2: about 0.71), or the fusion reads
    its dense arm as flat and keyword matches overturn it. Measured per model by default
    (self-calibration: the median of unrelated pairs, docs/embeddings.md); a value set here
    overrides the measurement."""
    importance_weight: float | None = Field(default=None, ge=0.0, le=1.0)
    """How much importance moves the score. Evidence fusion adds ``w × (importance − 0.5)``
    to the relevance in [0, 1]; RRF multiplies by ``1 + w × (importance − 0.5)``. ``None``
    (default): 0.1 with evidence fusion (±0.05, a tie-breaker that cannot overturn a clear
    relevance gap), 1.0 with RRF (the seed's ``0.5 + importance``)."""
    relevance_floor: bool = True
    """Context injection (``build_memory_context``, the node, the hook) leaves out hits below
    the floor: nothing relevant, nothing injected. ``recall`` itself still returns its top k,
    each hit saying whether it passed (``MemoryHit.relevant``)."""
    min_cosine: float = Field(default=0.3, ge=-1.0, le=1.0)
    """The floor: a hit is relevant when its dense cosine reaches this, or when the keyword
    or graph arm points at it strongly (evidence ≥ 0.5) and its cosine reaches half of it.
    0.3 suits all-MiniLM-L6-v2 (unrelated sentences score about 0–0.2). Measured per model by
    default (the 1 % normal tail of unrelated pairs, corrected for hubness, docs/embeddings.md);
    a value set here overrides the measurement (and is held against the raw cosine)."""
    companion_cosine: float | None = Field(default=0.2, ge=-1.0, le=1.0)
    """The floor's second bar: once one returned hit is relevant, the others whose cosine
    reaches this are kept beside it (a paraphrase the model scores just under ``min_cosine``).
    Whether anything is injected is still decided by the first bar (``min_cosine``, or a strong
    keyword or graph match), so an off-topic question still injects nothing. 0.2 is where
    all-MiniLM-L6-v2's unrelated sentences end; measured per model by default (the 10 % normal
    tail of unrelated pairs); a value set here overrides it; ``None`` turns it off."""
    hubness_correction: bool = True
    """With a measured cosine scale, the floor and the companion bar read each memory's
    cosine less its *hubness* — how far its mean cosine to generic questions sits above the
    model's unrelated level — so a memory near every question ("The user's editor is
    Neovim") does not open the context for any off-topic request (docs/retrieval.md). It
    applies when ``min_cosine`` is measured; a hand-set floor is held against the raw
    cosine, as it always was, unless this is also set to ``True`` by hand (a floor tuned on
    the corrected cosine). Ranking is not affected."""
    profile_chars: int = Field(default=1200, ge=0, le=100_000)
    """The profile tier of the context block: up to this many characters of the user's
    standing facts (preferences, identity, constraints, relationships: memories tagged with
    one of ``profile_tags`` or stored with importance ≥ ``profile_min_importance``), ranked
    by relevance to the request and importance, given even when the request shares no words
    with them ("help me set up a new project" gets the user's language, editor and licence).
    Superseded facts are not standing facts. ``0`` turns the tier off (docs/context.md)."""
    profile_tags: tuple[str, ...] = (
        "preference",
        "profile",
        "identity",
        "constraint",
        "relationship",
    )
    """Tags that mark a memory as a standing fact of the user (the profile tier)."""
    profile_min_importance: float = Field(default=0.8, ge=0.0, le=1.0)
    """Memories at least this important are standing facts whatever their tags."""
    profile_importance_weight: float = Field(default=0.5, ge=0.0, le=2.0)
    """Profile tier order: calibrated relevance + this × (importance − 0.5)."""
    profile_candidates: int = Field(default=40, ge=1, le=1000)
    """How many standing facts the profile tier considers (the most relevant first)."""
    dated_limit: int = Field(default=4, ge=0, le=50)
    """The dated tier of the context block: when the request names a span of days ("next
    week", "on the 12th", "the first week of January", "yesterday"), up to this many of the
    user's episodes dated in that span (or, for a past span, recorded in it) join the block,
    whatever words they share with the request: a good assistant checks the diary before
    it blocks out a calendar. ``0`` turns the tier off (docs/context.md, "The dated tier")."""
    coming_days: int = Field(default=30, ge=0, le=366)
    """A request about the person's own life ("my", "our") that names no day is about their
    coming weeks: the user's episodes dated in the next ``coming_days`` days that reach the
    companion bar join the dated tier (at most ``coming_limit``). ``0`` turns it off
    (docs/context.md, "The dated tier")."""
    coming_limit: int = Field(default=2, ge=0, le=50)
    """At most this many episodes of the coming days join a request that names no day."""
    world_questions: bool = True
    """A request that asks about the world ("Who invented the bicycle?"), not the person's
    life, gets none of their episodes in the context block: no dated tier, and recalled
    episodes left out (docs/context.md, "A question of the world")."""
    llm_check: bool = False
    """Off by default: a hit whose score falls in ``llm_check_band`` is kept or dropped by
    one small batched call to the chat model the caller passes (``check_model=``); a failing
    or slow model leaves the floor's decision (docs/context.md)."""
    llm_check_band: tuple[float, float] = (0.3, 0.7)
    """Scores in ``[low, high)`` are uncertain: the model's check decides them."""
    llm_check_timeout: float = Field(default=4.0, gt=0.0, le=120.0)
    """Seconds the context waits for the check; then the floor decides."""
    rrf_k: int = Field(default=60, gt=0)
    decay_mode: Literal["score", "blend", "importance", "off"] = "blend"
    """How the forgetting curve enters the rank (see ``rank_candidates``). ``"score"`` is the
    seed's ``fused × decay × boost``; the default ``"blend"`` lets recency take at most
    ``recency_weight`` of the score (docs/retrieval.md explains why, with LoCoMo figures)."""
    recency_weight: float = Field(default=0.1, ge=0.0, le=1.0)
    """The most recency can take away: with evidence fusion ``recency_weight × (1 − decay)``
    is subtracted from the relevance in [0, 1] (any ``decay_mode`` but ``"off"``); with RRF
    and ``decay_mode="blend"``, the share of the score. Small
    by default: with ``rrf_k`` 60, rank 1 and rank 10 of one arm differ by 13% in fused score,
    so a larger share lets recency, not relevance, decide the order."""
    candidates_factor: int = Field(default=2, ge=1, le=50)
    """Each arm returns its top ``candidates_factor × k`` (the seed's 2k)."""
    min_candidates: int = Field(default=20, ge=1)
    """…but never fewer than this many, so small ``k`` still fuses enough evidence."""
    feedback_docs: int = Field(default=5, ge=0, le=50)
    """Pseudo-relevance feedback in the sparse arm: the terms of its first ``feedback_docs``
    hits join the query (Rocchio), so a question finds the turns that share vocabulary with
    its best matches. It runs only when the plain search has that many hits. ``0`` turns it
    off."""
    feedback_weight: float = Field(default=0.5, ge=0.0, le=5.0)
    """Weight of the feedback terms (spread over the feedback documents) against the
    query's own terms (weight 1)."""
    graph_hops: int = Field(default=2, ge=1, le=2)
    graph_seed_limit: int = Field(default=8, ge=1, le=50)
    graph_timeout: float = Field(default=5.0, gt=0.0, le=600.0)
    """Seconds recall waits for the graph arm; then it answers from the other arms and says so
    in ``RecallResult.errors["graph"]``. A graph server that stops answering on a connection
    it already holds is not bounded by the connect timeout; this bounds what recall pays for
    it, and no new graph lookup starts while the late one still runs."""
    query_expansion: bool = False
    """Off by default: paraphrase/HyDE variants from a cheap chat model, dense hits unioned."""
    expansion_variants: int = Field(default=3, ge=1, le=8)
    rerank: bool = False
    """Off by default: an LLM judge re-scores the top fused candidates."""
    rerank_top: int = Field(default=20, ge=2, le=100)

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as exc:
            known = type(self).model_fields
            raise ConfigError(f"invalid retrieval settings: {describe_errors(exc, known)}") from exc

    @field_validator("llm_check_band")
    @classmethod
    def _band(cls, value: tuple[float, float]) -> tuple[float, float]:
        low, high = value
        if not 0.0 <= low < high <= 1.0:
            raise ValueError("llm_check_band must be (low, high) with 0 ≤ low < high ≤ 1")
        return value

    @field_validator("weights")
    @classmethod
    def _known_weights(cls, value: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        """An intent or arm name that recall never looks up is a typo, not a setting."""
        for intent, table in value.items():
            if intent not in _INTENTS:
                raise ValueError(f"unknown intent {intent!r}; choose from {', '.join(_INTENTS)}")
            for arm in table:
                if arm not in _ARMS:
                    raise ValueError(
                        f"unknown arm {arm!r} in {intent!r}; choose from {', '.join(_ARMS)}"
                    )
        return value
