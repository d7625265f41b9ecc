"""The catalog's local models as ``--embeddings`` factories for the quality benchmarks.

``--embeddings benchmarks._models:bge_small`` (or ``e5_small``, ``minilm``) measures that model
with nothing hand-set: the product calibrates its cosine settings itself. The pulled models
are read from ``PRAX_BENCH_MODELS_DIR`` (default: the test session's cache,
``.prax-models/models``); pull them first with
``prax-memory models pull bge-small-en-v1.5 --models-dir .prax-models/models``.
"""

from __future__ import annotations

import os
from pathlib import Path

from langchain_core.embeddings import Embeddings

from langgraph_prax_memory.embeddings import LocalEmbeddings, find_model, pulled_dir

__all__ = ["bge_small", "e5_small", "minilm"]

_ROOT = Path(__file__).resolve().parents[1]


def _models_dir() -> Path:
    return Path(os.environ.get("PRAX_BENCH_MODELS_DIR") or _ROOT / ".prax-models" / "models")


def _local(name: str) -> Embeddings:
    spec = find_model(name, required=True)
    assert spec is not None
    models = _models_dir()
    if not spec.packaged and pulled_dir(models, spec) is None:
        raise ValueError(
            f"{name} is not pulled into {models}: "
            f"prax-memory models pull {name} --models-dir {models}"
        )
    return LocalEmbeddings(spec, models)


def minilm() -> Embeddings:
    """The packaged all-MiniLM-L6-v2 (int8), the default model."""
    return _local("all-MiniLM-L6-v2-int8")


def bge_small() -> Embeddings:
    """bge-small-en-v1.5 (int8), pulled from Maven."""
    return _local("bge-small-en-v1.5")


def e5_small() -> Embeddings:
    """e5-small-v2 (int8), pulled from Maven."""
    return _local("e5-small-v2")
