"""The model cache: one folder per machine, and every pulled model checked before it is used.

Pulled models (``prax-memory models pull NAME``) live in ``MEMORY_MODELS_DIR``, by default
``<the user's cache folder>/langgraph-prax-memory/models`` (``~/.cache/...`` on Linux), shared
by every data folder; a model that a release before this one pulled into
``<MEMORY_DATA_DIR>/models`` is still found there. A pulled model is used only when its folder
is exactly what the pinned jar unpacks to: the manifest (``prax-model.json``, written last) is
there and names the model, and each file has the size and SHA-256 the catalog pins (the ONNX
weights and ``tokenizer.json``) or that this package writes (the two tokenizer configs). No
other file may be there (fastembed would read a ``config.json``). A file is hashed once per
process: later checks stat it and hash it again only when its inode, size, modification or
change time moved. Anything else is a :class:`ModelIntegrityError` naming the file and the
command that repairs it; a model that is not there at all is a :class:`ModelUnavailableError`
naming the command that fetches it. Nothing here downloads.

A pull swaps a new copy in with two renames (the old copy to ``.old-NAME-PID-…``, the new one
into place). What a killed pull leaves is recovered here, before any model is looked up: a
swapped-out copy whose process is gone is put back when no model took its place (removed when
one did), and a work folder (``.pull-NAME-PID-…``) whose process is gone is removed.

Models of fastembed's own list (a name outside the catalog) are fastembed's hub downloads, in
fastembed's layout in the same cache; they are looked up without network
(``local_files_only``) and verified by fastembed itself.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import stat
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import platformdirs

from langgraph_prax_memory.embeddings._catalog import LocalModelSpec, known_names
from langgraph_prax_memory.embeddings._offline import tokenizer_configs
from langgraph_prax_memory.errors import ConfigError, ModelIntegrityError, ModelUnavailableError

if TYPE_CHECKING:
    from langgraph_prax_memory.config import MemoryConfig

__all__ = [
    "MANIFEST",
    "default_models_dir",
    "expected_files",
    "file_sha256",
    "model_dirs",
    "pull_command",
    "pulled_dir",
    "recover",
    "require_hub_model",
    "require_pulled",
    "verify_pulled",
]

logger = logging.getLogger(__name__)

#: The file a complete pulled model folder holds (written last, provenance and checksums).
MANIFEST = "prax-model.json"
#: How long a lookup waits for a pull under way in another process to finish its swap.
_SWAP_WAIT = 2.0


def default_models_dir() -> Path:
    """The machine's model cache when ``MEMORY_MODELS_DIR`` is unset.

    Example:
        >>> default_models_dir().name
        'models'
    """
    return Path(platformdirs.user_cache_dir("langgraph-prax-memory")) / "models"


def model_dirs(config: MemoryConfig) -> list[Path]:
    """Where the configured memory looks for pulled models: the cache, then the legacy folder.

    ``<data_dir>/models`` is where releases before the shared cache pulled models to.
    """
    dirs = [config.models_dir, config.data_dir / "models"]
    return [d for i, d in enumerate(dirs) if d not in dirs[:i]]


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def expected_files(spec: LocalModelSpec) -> dict[str, tuple[int, str]]:
    """Each file of a pulled ``spec`` (path in its folder) with its size and SHA-256.

    Raises:
        ConfigError: ``spec`` is not a model that is pulled.
    """
    art = spec.maven
    if art is None:
        raise ConfigError(f"{spec.name} is packaged with the library: it is never pulled")
    files = {
        spec.hub_file: (art.onnx_size, art.onnx_sha256),
        "tokenizer.json": (art.tokenizer_size, art.tokenizer_sha256),
    }
    for name, content in tokenizer_configs(spec.max_tokens).items():
        files[name] = (len(content), hashlib.sha256(content).hexdigest())
    return files


def pull_command(spec: LocalModelSpec, models_dir: Path | None = None, *, force: bool) -> str:
    """The command that fetches ``spec`` into ``models_dir`` (again, with ``force``).

    ``--models-dir`` is named when ``models_dir`` is not the cache the command would use
    anyway (``MEMORY_MODELS_DIR``, else :func:`default_models_dir`).
    """
    command = f"prax-memory models pull {spec.name}" + (" --force" if force else "")
    configured = os.environ.get("MEMORY_MODELS_DIR", "").strip()
    usual = Path(configured) if configured else default_models_dir()
    if models_dir is not None and models_dir != usual:
        command += f" --models-dir {_quote(str(models_dir))}"
    return command


def _quote(value: str) -> str:
    import shlex

    return shlex.quote(value)


# ---------------------------------------------------------------- verification


_digests: dict[tuple[int, ...], str] = {}
_digests_lock = threading.Lock()


def _stat_key(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _digest(path: Path, st: os.stat_result) -> str:
    """``path``'s SHA-256, computed once per process while its stat stays the same."""
    key = _stat_key(st)
    with _digests_lock:
        known = _digests.get(key)
    if known is not None:
        return known
    digest = file_sha256(path)
    with contextlib.suppress(OSError):
        if _stat_key(path.stat()) == key:  # not changed while it was read
            with _digests_lock:
                _digests[key] = digest
    return digest


def verify_pulled(folder: Path, spec: LocalModelSpec) -> None:
    """Check that ``folder`` holds exactly the pulled model ``spec``; raise if it does not.

    Args:
        folder: The model's folder (``<cache>/<name>``).
        spec: The catalog entry it must match.

    Raises:
        ModelUnavailableError: ``folder`` has no manifest: not a (complete) pulled model.
        ModelIntegrityError: The manifest names another model, or a file is missing, has
            another size or SHA-256, or is not part of the model. The message names the file
            and the command that repairs it.
    """
    art = spec.maven
    expected = expected_files(spec)
    assert art is not None
    manifest_path = folder / MANIFEST
    if not manifest_path.is_file():
        raise ModelUnavailableError(
            f"embedding model {spec.name} is not pulled: {folder} has no {MANIFEST} (a copy "
            "that was not completed, or was altered), so it is not used. "
            f"`{pull_command(spec, folder.parent, force=False)}` fetches it again"
        )
    try:
        manifest: Any = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        _damaged(spec, folder, manifest_path, f"it cannot be read: {exc}")
    if (
        not isinstance(manifest, dict)
        or manifest.get("name") != spec.name
        or manifest.get("jar_sha256") != art.sha256
    ):
        _damaged(spec, folder, manifest_path, f"it is not the manifest of {art.coordinates}")
    for path in sorted(folder.rglob("*")):
        if path.is_dir() and not path.is_symlink():
            continue
        rel = path.relative_to(folder).as_posix()
        if rel != MANIFEST and rel not in expected:
            _damaged(spec, folder, path, "it is not part of the model, and fastembed may read it")
    for rel, (size, sha256) in expected.items():
        path = folder / rel
        try:
            st = path.stat()
        except OSError:
            _damaged(spec, folder, path, "it is missing")
        if not stat.S_ISREG(st.st_mode):
            _damaged(spec, folder, path, "it is not a file")
        if st.st_size != size:
            _damaged(spec, folder, path, f"it has {st.st_size} bytes, not the pinned {size}")
        digest = _digest(path, st)
        if digest != sha256:
            _damaged(
                spec, folder, path, f"its SHA-256 is {digest[:16]}…, not the pinned {sha256[:16]}…"
            )


def _damaged(spec: LocalModelSpec, folder: Path, path: Path, why: str) -> NoReturn:
    raise ModelIntegrityError(
        f"embedding model {spec.name} in {folder} does not match what was pulled: {path}: "
        f"{why}. The model is not used; `{pull_command(spec, folder.parent, force=True)}` "
        "fetches it again"
    )


# ---------------------------------------------------------------- what killed pulls left


def _pid_of(path: Path, prefix: str) -> int | None:
    pid = path.name[len(prefix) :].split("-", 1)[0]
    return int(pid) if pid.isdigit() else None


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists (on Windows, where signal 0 is not a probe: assumed)."""
    if pid == os.getpid():
        return True
    if os.name == "nt":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _leftovers(models_dir: Path, kind: str, name: str) -> Iterable[tuple[Path, bool]]:
    """``(path, its process still runs)`` of each ``.{kind}-{name}-PID…`` entry."""
    prefix = f".{kind}-{name}-"
    try:
        found = sorted(models_dir.glob(prefix + "*"), key=lambda p: p.name)
    except OSError:
        return []
    return [(p, (pid := _pid_of(p, prefix)) is None or _running(pid)) for p in found]


def recover(models_dir: Path, name: str) -> None:
    """Repair what pulls of ``name`` killed midway left in ``models_dir``.

    A swapped-out copy (``.old-NAME-PID-…``) whose process is gone is renamed back into place
    when no model took its place, and removed when one did; a work folder
    (``.pull-NAME-PID-…``) whose process is gone is removed. Entries of a process that still
    runs (a pull under way) are left alone; while such a pull is between its two renames,
    this waits (up to two seconds) for the new copy to land. Failures (a read-only cache) are
    logged, never raised.
    """
    target = models_dir / name
    deadline = time.monotonic() + _SWAP_WAIT
    while True:
        olds = list(_leftovers(models_dir, "old", name))
        swapping = [p for p, live in olds if live]
        if target.exists() or not swapping or time.monotonic() >= deadline:
            break
        time.sleep(0.05)
    for path, live in olds:
        if live:
            continue
        try:
            if not target.exists():
                path.rename(target)
                logger.warning(
                    "restored %s: a pull killed while it swapped the model had moved it to %s",
                    target,
                    path.name,
                )
            else:
                shutil.rmtree(path)
        except FileNotFoundError:  # another process recovered it first
            continue
        except OSError as exc:
            logger.warning("cannot recover %s: %s", path, exc)
    for path, live in _leftovers(models_dir, "pull", name):
        if not live:
            shutil.rmtree(path, ignore_errors=True)


# ---------------------------------------------------------------- lookup


def pulled_dir(models_dir: Path, spec: LocalModelSpec) -> Path | None:
    """The folder of ``spec`` pulled into ``models_dir``, if one with a manifest is there.

    What killed pulls left is recovered first (:func:`recover`); the files are not checked
    (:func:`verify_pulled` does that).
    """
    if models_dir.is_dir():
        recover(models_dir, spec.name)
    folder = models_dir / spec.name
    return folder if (folder / MANIFEST).is_file() else None


def require_pulled(spec: LocalModelSpec, models_dir: Path, legacy: Sequence[Path] = ()) -> Path:
    """The verified folder of the pulled model ``spec``: in ``models_dir``, else ``legacy``.

    Raises:
        ModelUnavailableError: It was never pulled (the message names the pull command).
        ModelIntegrityError: The copy found does not match its checksums.
    """
    dirs = [models_dir, *(d for d in legacy if d != models_dir)]
    found = [folder for d in dirs if (folder := pulled_dir(d, spec)) is not None]
    partial = [d / spec.name for d in dirs if (d / spec.name).is_dir()]
    candidates = found or partial
    if not candidates:
        where = " or ".join(str(d) for d in dirs)
        raise ModelUnavailableError(
            f"embedding model {spec.name} is not pulled (EMBEDDING_MODEL={spec.name}): it is "
            f"not in the model cache ({where}), and nothing is downloaded at run time. "
            f"`{pull_command(spec, models_dir, force=False)}` fetches it once (from Maven "
            "Central, or the repository in MEMORY_MODEL_REPOSITORY); then it loads offline"
        )
    verify_pulled(candidates[0], spec)
    return candidates[0]


def require_hub_model(name: str, dirs: Sequence[Path], width: int) -> Path:
    """The cache folder holding ``name``, a model of fastembed's own list, found offline.

    Args:
        name: A model name outside the catalog (``EMBEDDING_MODEL``).
        dirs: The caches to look in, in order.
        width: The vector width the collection holds.

    Raises:
        ModelUnavailableError: ``name`` is neither a catalog model nor one of fastembed's
            (the message lists both), or it is not downloaded into any of ``dirs``.
        ConfigError: The model's vectors have another width than the collection's.
    """
    from fastembed import TextEmbedding

    listed = {m["model"].lower(): m for m in TextEmbedding.list_supported_models()}
    found = listed.get(name.strip().lower())
    if found is None:
        same_width = sorted(m["model"] for m in listed.values() if m.get("dim") == width)
        raise ModelUnavailableError(
            f"unknown embedding model {name!r} (EMBEDDING_MODEL): no model was loaded in its "
            f"place. The local models are {', '.join(known_names())} (`prax-memory models "
            "list`; all but the packaged default are fetched once with `prax-memory models "
            f"pull NAME`), or a {width}-dimensional model of fastembed's list: "
            f"{', '.join(same_width)}"
        )
    if found.get("dim") != width:
        raise ConfigError(
            f"embedding model {name} produces {found.get('dim')}-dimensional vectors, but "
            f"EMBEDDING_PROVIDER=local collections hold {width}: choose a {width}-dimensional "
            "model (`prax-memory models list`)"
        )
    for folder in dirs:
        if _hub_model_in(found, folder):
            return folder
    raise ModelUnavailableError(
        f"embedding model {name} (EMBEDDING_MODEL, from fastembed's list) is not downloaded: "
        f"it is not in the model cache ({' or '.join(str(d) for d in dirs)}), and nothing is "
        f"downloaded at run time. `prax-memory models pull {name}` downloads it once from "
        "the Hugging Face hub (this needs network access)"
    )


def _hub_model_in(model: dict[str, Any], folder: Path) -> bool:
    """Whether fastembed finds ``model`` (one of its list) in ``folder`` without the network.

    fastembed is asked only when its folder for the model is there: asked about a model it
    does not have, it logs errors of its own.
    """
    hub = (model.get("sources") or {}).get("hf")
    places = [folder / f"fast-{str(model['model']).split('/')[-1]}"]
    if hub:
        places.append(folder / f"models--{str(hub).replace('/', '--')}")
    if not any(p.is_dir() for p in places):
        return False
    from fastembed import TextEmbedding

    try:
        TextEmbedding(
            str(model["model"]), cache_dir=str(folder), local_files_only=True, lazy_load=True
        )
    except Exception:  # fastembed says "not found" with ValueError, a corrupt cache otherwise
        return False
    return True
