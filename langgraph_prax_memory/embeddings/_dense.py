"""Dense embedding providers behind LangChain's ``Embeddings`` interface.

Also the resilient wrapper the memory uses: content-hash cache, same-width fallback, width
checks.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
from langchain_core.embeddings import Embeddings
from pydantic import SecretStr

from langgraph_prax_memory.config import PROVIDER_DIMENSIONS, MemoryConfig
from langgraph_prax_memory.embeddings._cache import model_dirs, require_hub_model, require_pulled
from langgraph_prax_memory.embeddings._catalog import PACKAGED_MODEL, find_model
from langgraph_prax_memory.embeddings._local import LocalEmbeddings
from langgraph_prax_memory.errors import (
    ConfigError,
    EmbeddingError,
    ModelUnavailableError,
    PraxMemoryError,
)

__all__ = [
    "FastEmbedEmbeddings",
    "OllamaEmbeddings",
    "PackagedMiniLMEmbeddings",
    "ResilientEmbeddings",
    "create_dense_embeddings",
]

logger = logging.getLogger(__name__)


class PackagedMiniLMEmbeddings(LocalEmbeddings):
    """The offline packaged all-MiniLM-L6-v2 (384-d) as a LangChain ``Embeddings``.

    Run by fastembed from the files the PyPI packages installed; never downloads. The model is
    loaded on first use (about a second) and shared by every caller.

    Example:
        >>> emb = PackagedMiniLMEmbeddings("/tmp/prax-models")
        >>> len(emb.embed_query("dark mode"))
        384
    """

    def __init__(
        self, model_dir: str | Path, *, threads: int | None = None, query_threads: int | None = 1
    ) -> None:
        super().__init__(PACKAGED_MODEL, model_dir, threads=threads, query_threads=query_threads)


class FastEmbedEmbeddings(Embeddings):
    """Any model of fastembed's own list, from fastembed's cache.

    The catalog's models (MiniLM, bge-small-en-v1.5, e5-small-v2) run as
    :class:`LocalEmbeddings` instead, with their prefixes; this class serves the rest of
    fastembed's list as fastembed defines them.

    Args:
        model_name: A model of fastembed's list.
        cache_dir: fastembed's cache (the model cache, ``MEMORY_MODELS_DIR``).
        threads: ONNX Runtime threads.
        local_files_only: Never download: a model not in ``cache_dir`` fails to load (what
            the memory uses; ``prax-memory models pull NAME`` downloads it). ``False``:
            fastembed downloads it from the hub on first use.
    """

    def __init__(
        self,
        model_name: str,
        *,
        cache_dir: str | Path | None = None,
        threads: int | None = None,
        local_files_only: bool = False,
    ) -> None:
        self.model_name = model_name
        self._cache_dir = str(cache_dir) if cache_dir else None
        self._threads = threads
        self._local_files_only = local_files_only
        self._model: Any = None
        self._lock = threading.Lock()

    def _get(self) -> Any:
        with self._lock:
            if self._model is None:
                from fastembed import TextEmbedding

                try:
                    self._model = TextEmbedding(
                        self.model_name,
                        cache_dir=self._cache_dir,
                        threads=self._threads,
                        local_files_only=self._local_files_only,
                    )
                except Exception as exc:
                    if not self._local_files_only:
                        raise
                    # not in the cache (or damaged there): a set-up error, never a fallback
                    raise ModelUnavailableError(
                        f"embedding model {self.model_name} (from fastembed's list) cannot be "
                        f"loaded from the model cache {self._cache_dir} ({type(exc).__name__}: "
                        f"{exc}): `prax-memory models pull {self.model_name}` downloads it "
                        "(network access to the Hugging Face hub needed)"
                    ) from exc
            return self._model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents."""
        return [list(map(float, v)) for v in self._get().embed(texts)]

    def embed_query(self, text: str) -> list[float]:
        """Embed a query."""
        return [float(x) for x in next(iter(self._get().query_embed(text)))]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents off the event loop."""
        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        """Embed a query off the event loop."""
        return await asyncio.to_thread(self.embed_query, text)


class OllamaEmbeddings(Embeddings):
    """Ollama's ``/api/embed`` endpoint, with paired sync and async HTTP clients.

    Example:
        >>> emb = OllamaEmbeddings("nomic-embed-text", base_url="http://localhost:11434")
    """

    def __init__(self, model: str, *, base_url: str, timeout: float = 30.0) -> None:
        self.model_name = model
        self._url = base_url.rstrip("/") + "/api/embed"
        self._timeout = timeout

    def _parse(self, response: httpx.Response, expected: int) -> list[list[float]]:
        response.raise_for_status()
        data = response.json()
        vectors = data.get("embeddings")
        if not isinstance(vectors, list) or len(vectors) != expected:
            raise EmbeddingError(f"Ollama returned an unexpected body for {self.model_name}")
        return [[float(x) for x in v] for v in vectors]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents."""
        if not texts:
            return []
        with httpx.Client(timeout=self._timeout) as client:
            resp = client.post(self._url, json={"model": self.model_name, "input": texts})
        return self._parse(resp, len(texts))

    def embed_query(self, text: str) -> list[float]:
        """Embed a query."""
        return self.embed_documents([text])[0]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents."""
        if not texts:
            return []
        async with httpx.AsyncClient(timeout=self._timeout) as client:
            resp = await client.post(self._url, json={"model": self.model_name, "input": texts})
        return self._parse(resp, len(texts))

    async def aembed_query(self, text: str) -> list[float]:
        """Embed a query."""
        return (await self.aembed_documents([text]))[0]


def _model_name(emb: Embeddings) -> str:
    for attr in ("model_name", "model"):
        value = getattr(emb, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(emb).__name__


class ResilientEmbeddings(Embeddings):
    """A primary model with same-width fallbacks and a content-hash cache.

    Each text is looked up in an LRU cache keyed by ``sha256(model, text)`` first; misses are
    embedded by the primary and, if it fails, by the first fallback that works. Every vector's
    width is checked. When every model fails, :class:`EmbeddingError` is raised: callers store
    the memory with its sparse vector only and mark it for :meth:`PraxMemory.reembed`, never
    with a zero vector.

    Attributes:
        last_model: Name of the model that produced the last batch (for provenance).
        endpoint: Where the primary model is served (``"Ollama at http://…"``), named in
            error messages; ``None`` for an in-process model.
    """

    def __init__(
        self,
        primary: Embeddings,
        *,
        dimension: int,
        fallbacks: Sequence[Embeddings] = (),
        cache_size: int = 4096,
        endpoint: str | None = None,
    ) -> None:
        self.primary = primary
        self.fallbacks = list(fallbacks)
        self.dimension = dimension
        self.endpoint = endpoint
        self.model_name = _model_name(primary)
        self.last_model = self.model_name
        self._cache: OrderedDict[str, list[float]] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.model_name}\x00{text}".encode()).hexdigest()

    def _check(self, vectors: list[list[float]], n: int, name: str) -> list[list[float]]:
        if len(vectors) != n:
            raise EmbeddingError(f"{name} returned {len(vectors)} vectors for {n} texts")
        for v in vectors:
            if len(v) != self.dimension:
                raise ConfigError(
                    f"embedding model {name} produces {len(v)}-dimensional vectors but the "
                    f"collection holds {self.dimension}: set EMBEDDING_PROVIDER/EMBEDDING_MODEL "
                    "to a model of that width or use a new collection"
                )
        return vectors

    def _lookup(self, texts: list[str]) -> tuple[list[list[float] | None], list[int]]:
        found: list[list[float] | None] = []
        missing: list[int] = []
        with self._lock:
            for i, text in enumerate(texts):
                hit = self._cache.get(self._key(text))
                if hit is not None:
                    self._cache.move_to_end(self._key(text))
                else:
                    missing.append(i)
                found.append(hit)
        return found, missing

    def _store(self, texts: list[str], vectors: list[list[float]], model: str) -> None:
        if model != self.model_name or self._cache_size <= 0:
            return  # only the primary's vectors are cached: a fallback's are provisional
        with self._lock:
            for text, vec in zip(texts, vectors, strict=True):
                self._cache[self._key(text)] = vec
                self._cache.move_to_end(self._key(text))
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents, using the cache and the fallbacks."""
        found, missing = self._lookup(texts)
        todo = [texts[i] for i in missing]
        errors: list[str] = []
        for model in [self.primary, *self.fallbacks] if missing else []:
            try:
                vectors = model.embed_documents(todo)
            except ModelUnavailableError:
                raise  # a set-up error (pull the model), never a stand-in or a sparse write
            except Exception as exc:
                self._failed(model, exc, errors)
                continue
            return self._accept(model, found, missing, todo, vectors)
        return self._finish(found, missing, errors)

    def embed_query(self, text: str) -> list[float]:
        """Embed a query with each model's own ``embed_query`` (cached apart from documents).

        Models that embed questions differently from stored text (e5's ``query:`` prefix,
        nomic's task prefixes, instruction-tuned embedders) get the question as a question.
        """
        key = _QUERY + text
        found, missing = self._lookup([key])
        errors: list[str] = []
        for model in [self.primary, *self.fallbacks] if missing else []:
            try:
                vector = model.embed_query(text)
            except ModelUnavailableError:
                raise
            except Exception as exc:
                self._failed(model, exc, errors)
                continue
            return self._accept(model, found, missing, [key], [vector])[0]
        return self._finish(found, missing, errors)[0]

    def embed_primary(self, texts: list[str]) -> list[list[float]]:
        """Embed with the primary model only: no cache, no fallback (for re-embedding).

        Raises:
            EmbeddingError: The primary failed (unreachable, an HTTP error, a bad answer);
                the message names the model and where it is served.
            ConfigError: The primary produces vectors of another width than the collection.
        """
        if not texts:
            return []
        try:
            vectors = self.primary.embed_documents(texts)
        except PraxMemoryError:
            raise
        except Exception as exc:  # httpx / requests / openai errors: name the backend
            name = self._label(self.primary)
            raise EmbeddingError(
                f"embedding model {name} failed: {type(exc).__name__}: {exc}"
            ) from exc
        return self._check(vectors, len(texts), self.model_name)

    def _label(self, model: Embeddings) -> str:
        name = _model_name(model)
        return f"{name} ({self.endpoint})" if model is self.primary and self.endpoint else name

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents with the models' async faces."""
        found, missing = self._lookup(texts)
        todo = [texts[i] for i in missing]
        errors: list[str] = []
        for model in [self.primary, *self.fallbacks] if missing else []:
            try:
                vectors = await model.aembed_documents(todo)
            except ModelUnavailableError:
                raise
            except Exception as exc:
                self._failed(model, exc, errors)
                continue
            return self._accept(model, found, missing, todo, vectors)
        return self._finish(found, missing, errors)

    def _failed(self, model: Embeddings, exc: Exception, errors: list[str]) -> None:
        name = self._label(model)
        logger.warning("embedding with %s failed: %s", name, exc)
        errors.append(f"{name}: {exc}")

    def _accept(
        self,
        model: Embeddings,
        found: list[list[float] | None],
        missing: list[int],
        todo: list[str],
        vectors: list[list[float]],
    ) -> list[list[float]]:
        """Check a model's vectors (a wrong width is a ``ConfigError``), cache and place them."""
        name = _model_name(model)
        vectors = self._check(vectors, len(todo), name)
        self.last_model = name
        self._store(todo, vectors, name)
        for i, vec in zip(missing, vectors, strict=True):
            found[i] = vec
        return [v for v in found if v is not None]

    def _finish(
        self, found: list[list[float] | None], missing: list[int], errors: list[str]
    ) -> list[list[float]]:
        if missing:
            raise EmbeddingError("every embedding model failed: " + "; ".join(errors))
        self.last_model = self.model_name
        return [v for v in found if v is not None]

    async def aembed_query(self, text: str) -> list[float]:
        """Async :meth:`embed_query`."""
        key = _QUERY + text
        found, missing = self._lookup([key])
        errors: list[str] = []
        for model in [self.primary, *self.fallbacks] if missing else []:
            try:
                vector = await model.aembed_query(text)
            except ModelUnavailableError:
                raise
            except Exception as exc:
                self._failed(model, exc, errors)
                continue
            return self._accept(model, found, missing, [key], [vector])[0]
        return self._finish(found, missing, errors)[0]


#: Cache-key prefix of query vectors (a control character no stored text starts with).
_QUERY = "\x01query\x00"


def create_dense_embeddings(
    config: MemoryConfig, *, primary: Embeddings | None = None, dimension: int | None = None
) -> ResilientEmbeddings:
    """Build the dense embedder the configuration asks for, with its same-width fallbacks.

    A local model must be on disk: a pulled one is found in the model cache
    (``config.models_dir``, then the legacy ``<data_dir>/models``) and its files checked
    against their checksums here, so a missing, misspelled or damaged model is an error when
    the memory is built, never a download, a wait or a stand-in model (with long-term memory
    off, nothing is checked: the model is never used).

    Args:
        config: The memory configuration (``EMBEDDING_PROVIDER``, ``EMBEDDING_MODEL`` ...).
        primary: Use this LangChain ``Embeddings`` instead of the configured provider.
        dimension: Width of ``primary`` (required with ``primary``).

    Raises:
        ModelUnavailableError: The local model is not pulled (or downloaded, for one of
            fastembed's list), or ``EMBEDDING_MODEL`` names no model; the message says what
            is missing and the command that fetches it.
        ModelIntegrityError: A pulled model's file does not match its checksum (the message
            names the file and the command that repairs it).
        ConfigError: Another setting is wrong (a model of another width, no ``dimension``).

    Example:
        >>> emb = create_dense_embeddings(MemoryConfig(data_dir="/tmp/prax-doc"))
        >>> emb.dimension
        384
    """
    # the packaged model is linked from the installed PyPI files into the data folder
    packaged_dir = config.data_dir / "models"
    if primary is not None:
        if dimension is None:
            raise ConfigError("pass dimension= with a custom embeddings object")
        return ResilientEmbeddings(
            primary, dimension=dimension, cache_size=config.embedding_cache_size
        )
    provider = config.embedding_provider
    model = config.resolved_embedding_model
    width = PROVIDER_DIMENSIONS[provider]
    threads = config.embedding_threads
    # one question's run on one core by default (MEMORY_EMBEDDING_QUERY_THREADS)
    per_run = config.embedding_query_threads
    offline = PackagedMiniLMEmbeddings(packaged_dir, threads=threads, query_threads=per_run)
    chosen: Embeddings
    endpoint: str | None = None
    if provider == "openai":
        chosen = _openai_embeddings(config, model)
        base = config.openai_base_url
        endpoint = f"OpenAI-compatible endpoint {base}" if base else "OpenAI API"
    elif provider == "ollama":
        chosen = OllamaEmbeddings(model, base_url=config.ollama_base_url)
        endpoint = f"Ollama at {config.ollama_base_url}"
    elif (spec := find_model(model)) is not None:
        if spec.packaged:
            chosen = offline
        else:
            where = config.models_dir
            if config.enabled:
                where = require_pulled(spec, where, model_dirs(config)).parent
            chosen = LocalEmbeddings(spec, where, threads=threads, query_threads=per_run)
    else:
        where = config.models_dir
        if config.enabled:
            where = require_hub_model(model, model_dirs(config), width)
        chosen = FastEmbedEmbeddings(model, cache_dir=where, threads=threads, local_files_only=True)
    fallbacks: list[Embeddings] = []
    # a catalog model that cannot run is a set-up error (pull it): the packaged model standing
    # in would put its vectors beside the catalog model's in one collection, so none does;
    # the memory is stored sparse-only and reembed adds its dense vector later
    stands_in = not isinstance(chosen, LocalEmbeddings)
    if config.embedding_fallback and stands_in and offline.dimension == width:
        fallbacks.append(offline)
    return ResilientEmbeddings(
        chosen,
        dimension=width,
        fallbacks=fallbacks,
        cache_size=config.embedding_cache_size,
        endpoint=endpoint,
    )


#: The API key sent to an ``OPENAI_BASE_URL`` server when ``OPENAI_API_KEY`` is unset: local
#: servers ignore it, but the OpenAI client refuses to start without one.
_NO_KEY = "no-key-needed"


def _openai_embeddings(config: MemoryConfig, model: str) -> Embeddings:
    """LangChain's ``OpenAIEmbeddings`` for the OpenAI API or an OpenAI-compatible server.

    With ``OPENAI_BASE_URL`` the texts are sent as they are: LangChain's length check would
    first tokenize them with tiktoken, whose vocabulary file is downloaded on first use (so an
    offline machine fails before reaching the local server), and which other servers'
    models do not use anyway. Texts are therefore not split: memories of the default
    ``MEMORY_MAX_CONTENT_CHARS`` (20,000) fit the usual 8k-token context, and a text the
    server refuses is an :class:`EmbeddingError` (the memory is stored sparse-only). Vectors
    are asked for as JSON floats, which every compatible server speaks (the OpenAI client
    would otherwise ask for base64).
    """
    from langchain_openai import OpenAIEmbeddings

    kwargs: dict[str, Any] = {"model": model}
    if config.openai_api_key is not None:
        kwargs["api_key"] = config.openai_api_key
    if config.openai_base_url:
        kwargs["base_url"] = config.openai_base_url
        kwargs["check_embedding_ctx_length"] = False
        kwargs["model_kwargs"] = {"encoding_format": "float"}
        kwargs.setdefault("api_key", SecretStr(_NO_KEY))
    try:
        return OpenAIEmbeddings(**kwargs)
    except Exception as exc:  # missing key is reported by the client at construction
        raise ConfigError(f"OPENAI_API_KEY / OPENAI_BASE_URL / EMBEDDING_MODEL: {exc}") from exc
