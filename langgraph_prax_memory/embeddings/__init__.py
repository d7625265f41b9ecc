"""Embeddings: dense providers and the sparse term encoder.

Dense: OpenAI, Ollama, and every local model run by fastembed (the packaged MiniLM, models
pulled from Maven with :func:`pull_model` into the machine's model cache, fastembed's hub
models). Every name is imported on first use (PEP 562), so the light parts (the catalog, the
model cache's checks) can be used without LangChain or fastembed: ``prax-memory doctor
--quick`` checks a pulled model's files that way.
"""

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from langgraph_prax_memory.embeddings._cache import (
        default_models_dir,
        model_dirs,
        require_pulled,
        verify_pulled,
    )
    from langgraph_prax_memory.embeddings._calibration import (
        CosineCalibration,
        Hubness,
        ScaleKeeper,
        apply_scale,
        collection_scale,
        hubness_of,
        measure_model_scale,
        model_stamp,
    )
    from langgraph_prax_memory.embeddings._catalog import LocalModelSpec, catalog, find_model
    from langgraph_prax_memory.embeddings._dense import (
        FastEmbedEmbeddings,
        OllamaEmbeddings,
        PackagedMiniLMEmbeddings,
        ResilientEmbeddings,
        create_dense_embeddings,
    )
    from langgraph_prax_memory.embeddings._local import LocalEmbeddings, pulled_dir
    from langgraph_prax_memory.embeddings._partial import partial_cosines
    from langgraph_prax_memory.embeddings._pull import hold_interrupts, pull_model, pullable
    from langgraph_prax_memory.embeddings._sparse import SparseTFEncoder, tokenize

#: Where each public name lives (imported on first access).
_LAZY: dict[str, str] = {
    "CosineCalibration": "_calibration",
    "Hubness": "_calibration",
    "ScaleKeeper": "_calibration",
    "apply_scale": "_calibration",
    "collection_scale": "_calibration",
    "hubness_of": "_calibration",
    "measure_model_scale": "_calibration",
    "model_stamp": "_calibration",
    "LocalModelSpec": "_catalog",
    "catalog": "_catalog",
    "find_model": "_catalog",
    "default_models_dir": "_cache",
    "model_dirs": "_cache",
    "pulled_dir": "_cache",
    "require_pulled": "_cache",
    "verify_pulled": "_cache",
    "FastEmbedEmbeddings": "_dense",
    "OllamaEmbeddings": "_dense",
    "PackagedMiniLMEmbeddings": "_dense",
    "ResilientEmbeddings": "_dense",
    "create_dense_embeddings": "_dense",
    "LocalEmbeddings": "_local",
    "partial_cosines": "_partial",
    "hold_interrupts": "_pull",
    "pull_model": "_pull",
    "pullable": "_pull",
    "SparseTFEncoder": "_sparse",
    "tokenize": "_sparse",
}

__all__ = [
    "CosineCalibration",
    "Hubness",
    "LocalModelSpec",
    "ScaleKeeper",
    "apply_scale",
    "catalog",
    "collection_scale",
    "default_models_dir",
    "find_model",
    "hold_interrupts",
    "hubness_of",
    "measure_model_scale",
    "model_dirs",
    "model_stamp",
    "partial_cosines",
    "pullable",
    "pulled_dir",
    "require_pulled",
    "verify_pulled",
    "FastEmbedEmbeddings",
    "LocalEmbeddings",
    "OllamaEmbeddings",
    "PackagedMiniLMEmbeddings",
    "ResilientEmbeddings",
    "SparseTFEncoder",
    "create_dense_embeddings",
    "pull_model",
    "tokenize",
]


def __getattr__(name: str) -> _typing.Any:
    """Import a public name on first use and keep it (``AttributeError`` for others)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
