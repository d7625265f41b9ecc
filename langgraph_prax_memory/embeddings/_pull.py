"""``prax-memory models pull NAME``: fetch a model's jar from a Maven repository, verify, unpack.

langchain4j publishes in-process embedding models on Maven Central, each jar carrying the ONNX
file and its ``tokenizer.json``. A pull fetches the pinned jar — with the Maven client (``mvn
dependency:get``, as ``scripts/neo4j-server`` fetches Neo4j, so Maven's settings and mirrors
apply) or over HTTP from a Maven repository URL (Maven Central, or the proxy a company runs),
never more bytes than the pinned jar has — checks its SHA-256 against the one pinned in the
catalog, and unpacks the two files into ``<models_dir>/<name>/`` with the tokenizer configs
fastembed reads and a manifest, then checks the unpacked folder as every load does
(:func:`~._cache.verify_pulled`). Everything is built in a work folder beside it and swapped
into place last with two renames (the earlier copy is moved aside, never deleted, until the
new one is in); what a pull killed midway leaves is recovered by the next pull or load
(:func:`~._cache.recover`). Pulling is a set-up step; recall and remember never download.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from langgraph_prax_memory._progress import ProgressCallback, notify
from langgraph_prax_memory.embeddings._cache import (
    MANIFEST,
    file_sha256,
    pulled_dir,
    verify_pulled,
)
from langgraph_prax_memory.embeddings._catalog import LocalModelSpec, MavenArtifact, find_model
from langgraph_prax_memory.embeddings._offline import write_tokenizer_configs
from langgraph_prax_memory.errors import ConfigError, ModelPullError, ModelUnavailableError

__all__ = ["MAVEN_CENTRAL", "HeldInterrupts", "hold_interrupts", "pull_model", "pullable"]

logger = logging.getLogger(__name__)

#: Maven Central's repository root.
MAVEN_CENTRAL = "https://repo1.maven.org/maven2"
_CHUNK = 1 << 16


def pullable(name: str | LocalModelSpec) -> LocalModelSpec | str:
    """What ``models pull NAME`` fetches: a catalog model, or a model of fastembed's list.

    Checked before anything is fetched or printed.

    Returns:
        The catalog entry, or the name of fastembed's model (downloaded from the hub).

    Raises:
        ConfigError: ``name`` is the packaged model, or neither a catalog model nor one of
            fastembed's (the message lists the catalog's).
    """
    if isinstance(name, LocalModelSpec):
        spec: LocalModelSpec | None = name
    else:
        spec = find_model(name)
        if spec is None:
            hub = _hub_name(name)
            if hub is not None:
                return hub
            find_model(name, required=True)  # raises, listing the known models
    assert spec is not None
    if spec.maven is None:
        raise ConfigError(f"{spec.name} is packaged with the library: there is nothing to pull")
    if not spec.name or spec.name != Path(spec.name).name or spec.name.startswith("."):
        raise ConfigError(f"{spec.name!r} is not a model name that can be a folder name")
    return spec


def _hub_name(name: str) -> str | None:
    """``name`` as fastembed's list spells it, when it is one of fastembed's models."""
    if "/" not in name:  # every model of fastembed's list is "organisation/name"
        return None
    from fastembed import TextEmbedding

    wanted = name.strip().lower()
    for model in TextEmbedding.list_supported_models():
        if str(model["model"]).lower() == wanted:
            return str(model["model"])
    return None


def pull_model(
    name: str | LocalModelSpec,
    models_dir: str | Path,
    *,
    repository: str | None = None,
    use_maven: bool | None = None,
    maven_repo_local: str | Path | None = None,
    force: bool = False,
    progress: ProgressCallback | None = None,
    timeout: float = 60.0,
    adopt_from: Sequence[str | Path] = (),
) -> Path:
    """Fetch, verify and unpack the model ``name`` into ``models_dir``; return its folder.

    A copy already there is checked (:func:`~._cache.verify_pulled`) and kept when it is
    intact; a damaged one is fetched again. A model of fastembed's own list is downloaded
    by fastembed from the Hugging Face hub into ``models_dir`` instead (network needed).

    Args:
        name: A catalog model (``bge-small-en-v1.5``, ``e5-small-v2``, ``all-MiniLM-L6-v2-q``),
            its catalog entry, or a model of fastembed's list.
        models_dir: The model cache (``MemoryConfig.models_dir``: ``MEMORY_MODELS_DIR``).
        repository: A Maven repository root URL to fetch from over HTTP (a company's proxy of
            Maven Central); ``None``: the Maven client when it is installed, else Maven
            Central over HTTP.
        use_maven: ``True``: always the Maven client; ``False``: always HTTP; ``None``: the
            Maven client when there is one and no ``repository`` was given.
        maven_repo_local: The Maven client's local repository (``-Dmaven.repo.local``).
        force: Fetch again even when an intact copy is there.
        progress: ``progress(done, total, "bytes")`` while downloading over HTTP.
        timeout: Seconds to wait for the repository (connect and each read).
        adopt_from: Other model folders (a data folder's ``models/``, where releases before
            the shared cache pulled to): an intact copy there is copied instead of fetched
            (not with ``force``).

    Returns:
        The model's folder (``<models_dir>/<name>``; for a model of fastembed's list, the
        cache it was downloaded into).

    Raises:
        ConfigError: ``name`` is not a model that can be pulled (the message lists them).
        ModelPullError: The repository was unreachable, refused, sent more than the pinned
            jar's size or another file; nothing was installed and an earlier copy of the
            model is untouched.

    Example:
        >>> pull_model("bge-small-en-v1.5", "/tmp/prax-models")  # doctest: +SKIP
        PosixPath('/tmp/prax-models/bge-small-en-v1.5')
    """
    spec = pullable(name)
    models = Path(models_dir)
    if isinstance(spec, str):
        return _pull_from_hub(spec, models)
    assert spec.maven is not None
    existing = pulled_dir(models, spec)  # recovers what a killed pull left, first
    if existing is not None and not force:
        try:
            verify_pulled(existing, spec)
            return existing
        except ModelUnavailableError as exc:
            logger.warning("%s: fetching it again", exc)
    models.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".pull-{spec.name}-{os.getpid()}-", dir=models))
    try:
        folder = work / "model"
        adopted = None if force else _adopt(spec, models, adopt_from, folder)
        if adopted is None:
            jar = work / "model.jar"
            maven = (
                use_maven if use_maven is not None else (repository is None and _mvn() is not None)
            )
            if maven:
                source = _fetch_with_maven(spec.maven, jar, maven_repo_local, timeout)
            else:
                source = _fetch_over_http(
                    spec.maven, repository or MAVEN_CENTRAL, jar, progress, timeout
                )
            _verify(spec.maven, jar, source)
            _unpack(spec, jar, folder, source)
        try:
            verify_pulled(folder, spec)  # what every load checks, before it is installed
        except ModelUnavailableError as exc:
            raise ModelPullError(f"the unpacked model does not check out: {exc}") from exc
        return _install(folder, models / spec.name)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _adopt(
    spec: LocalModelSpec, models: Path, dirs: Sequence[str | Path], folder: Path
) -> str | None:
    """Copy an intact copy of ``spec`` from one of ``dirs`` into ``folder``; its source."""
    for place in map(Path, dirs):
        if place.resolve() == models.resolve():
            continue
        found = pulled_dir(place, spec)
        if found is None:
            continue
        try:
            verify_pulled(found, spec)
        except ModelUnavailableError as exc:
            logger.warning("not copying %s: %s", found, exc)
            continue
        shutil.copytree(found, folder)
        manifest: dict[str, Any] = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        manifest["source"] = f"copied from {found}"
        manifest["copied_at"] = datetime.now(UTC).isoformat()
        _write_manifest(folder, manifest)
        logger.info("copied %s from %s: nothing downloaded", spec.name, found)
        return str(manifest["source"])
    return None


def _pull_from_hub(name: str, models: Path) -> Path:
    """Let fastembed download ``name`` (one of its models) from the hub into ``models``."""
    from fastembed import TextEmbedding

    models.mkdir(parents=True, exist_ok=True)
    try:
        TextEmbedding(name, cache_dir=str(models), lazy_load=True)
    except Exception as exc:
        raise ModelPullError(
            f"cannot download {name} from the Hugging Face hub into {models} "
            f"({type(exc).__name__}: {exc}): this needs network access to huggingface.co"
        ) from exc
    return models


def _mvn() -> str | None:
    return shutil.which("mvn")


def _fetch_with_maven(
    art: MavenArtifact, jar: Path, repo_local: str | Path | None, timeout: float
) -> str:
    mvn = _mvn()
    if mvn is None:
        raise ModelPullError("the Maven client ('mvn') is not installed: pull over HTTP instead")
    local = Path(repo_local) if repo_local else Path.home() / ".m2" / "repository"
    cmd = [mvn, "-B", "-q", "dependency:get", "-Dtransitive=false", f"-Dartifact={art.coordinates}"]
    cmd.append(f"-Dmaven.repo.local={local}")
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=max(timeout, 600.0), check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise ModelPullError(f"mvn dependency:get {art.coordinates} timed out") from exc
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip()[-1500:]
        raise ModelPullError(f"mvn dependency:get {art.coordinates} failed: {tail}")
    fetched = local / art.path()
    if not fetched.is_file():
        raise ModelPullError(f"mvn reported success but {fetched} is not there")
    if fetched.stat().st_size != art.size:
        raise ModelPullError(
            f"{fetched} has {fetched.stat().st_size} bytes, not the {art.size} of the pinned "
            f"{art.coordinates}: refusing it (delete it from Maven's local repository)"
        )
    shutil.copyfile(fetched, jar)
    return f"maven:{art.coordinates}"


def _fetch_over_http(
    art: MavenArtifact,
    repository: str,
    jar: Path,
    progress: ProgressCallback | None,
    timeout: float,
) -> str:
    url = repository.rstrip("/") + "/" + art.path()
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"the model repository must be an http(s) URL, got {repository!r}")
    try:
        with (
            httpx.Client(timeout=timeout, follow_redirects=True) as client,
            client.stream("GET", url) as resp,
        ):
            if resp.status_code != 200:
                raise ModelPullError(
                    f"{url} answered HTTP {resp.status_code}: is {repository} a Maven "
                    f"repository that holds {art.coordinates}?"
                )
            declared = resp.headers.get("content-length", "").strip()
            if declared.isdigit() and int(declared) > art.size:
                raise ModelPullError(
                    f"{url} announces {declared} bytes, more than the {art.size} bytes of "
                    f"{art.coordinates}: refusing it unread (not the pinned jar); nothing "
                    "was installed"
                )
            total = art.size
            done = 0
            notify(progress, 0, total, "bytes")
            with jar.open("wb") as fh:
                for chunk in resp.iter_bytes(_CHUNK):
                    done += len(chunk)
                    if done > art.size:  # a source streaming on: stop at the pinned size
                        raise ModelPullError(
                            f"{url} sent more than the {art.size} bytes of {art.coordinates}: "
                            "refusing it (not the pinned jar); nothing was installed"
                        )
                    fh.write(chunk)
                    notify(progress, done, total, "bytes")
    except httpx.HTTPError as exc:
        raise ModelPullError(
            f"cannot fetch {art.coordinates} from {repository}: {type(exc).__name__}: {exc}"
        ) from exc
    return url


def _verify(art: MavenArtifact, jar: Path, source: str) -> None:
    digest = file_sha256(jar)
    if digest != art.sha256:
        raise ModelPullError(
            f"{art.coordinates} from {source} has SHA-256 {digest}, not the pinned "
            f"{art.sha256}: refusing it (a corrupt download, or a repository serving another "
            "file under this name); nothing was installed"
        )


def _unpack(spec: LocalModelSpec, jar: Path, folder: Path, source: str) -> None:
    art = spec.maven
    assert art is not None
    folder.mkdir()
    try:
        with zipfile.ZipFile(jar) as zf:
            # the ONNX file goes where the hub repository keeps it (fastembed reads the model
            # file's path from the model's description)
            for entry, target, size in (
                (art.onnx_entry, spec.hub_file, art.onnx_size),
                (art.tokenizer_entry, "tokenizer.json", art.tokenizer_size),
            ):
                if zf.getinfo(entry).file_size != size:
                    raise ModelPullError(
                        f"{art.coordinates}: {entry} has {zf.getinfo(entry).file_size} bytes, "
                        f"not the pinned {size}"
                    )
                (folder / target).parent.mkdir(parents=True, exist_ok=True)
                with zf.open(entry) as src, (folder / target).open("wb") as dst:
                    shutil.copyfileobj(src, dst, _CHUNK)
    except (KeyError, zipfile.BadZipFile) as exc:
        raise ModelPullError(f"{art.coordinates} does not hold the model's files: {exc}") from exc
    write_tokenizer_configs(folder, spec.max_tokens)
    manifest = {
        "name": spec.name,
        "artifact": art.coordinates,
        "jar_sha256": art.sha256,
        "onnx_sha256": art.onnx_sha256,
        "tokenizer_sha256": art.tokenizer_sha256,
        "source": source,
        "license": spec.license,
        "provenance": spec.provenance,
        "pulled_at": datetime.now(UTC).isoformat(),
    }
    _write_manifest(folder, manifest)


def _write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")


class HeldInterrupts:
    """Ctrl-C (``SIGINT``) recorded instead of raised while held: see :func:`hold_interrupts`.

    Attributes:
        interrupted: Whether an interrupt arrived while held.
    """

    def __init__(self) -> None:
        self.interrupted = False

    def _record(self, signum: int, frame: object) -> None:
        self.interrupted = True


@contextmanager
def hold_interrupts() -> Iterator[HeldInterrupts]:
    """Hold Ctrl-C over a step that must not stop halfway (a swap of two folders).

    In the main thread, ``SIGINT`` is recorded for the duration and the previous handler put
    back after; elsewhere (signals reach only the main thread) this does nothing. The caller
    decides what a held interrupt means once the step is done.
    """
    held = HeldInterrupts()
    previous: Any = None
    if threading.current_thread() is threading.main_thread():
        current = signal.getsignal(signal.SIGINT)
        if current is not None:  # a handler Python knows, so it can be put back
            previous = signal.signal(signal.SIGINT, held._record)
    try:
        yield held
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _install(folder: Path, target: Path) -> Path:
    """Swap the finished folder into place; the older copy is moved aside until it is in.

    Ctrl-C is held over the two renames, and raised once the new copy is in place. A kill
    between them leaves the older copy as ``.old-NAME-PID-…``, which the next pull or load
    puts back (:func:`~._cache.recover`).

    Raises:
        ModelPullError: The rename failed; the older copy is back in place.
    """
    with hold_interrupts() as held:
        old = None
        if target.exists():
            old = target.with_name(f".old-{target.name}-{os.getpid()}-{secrets.token_hex(4)}")
            target.rename(old)
        try:
            folder.rename(target)
        except OSError as exc:
            if old is not None:
                try:
                    old.rename(target)
                except OSError:  # another pull put its copy in meanwhile: that one stays
                    shutil.rmtree(old, ignore_errors=True)
            raise ModelPullError(f"cannot install the model in {target}: {exc}") from exc
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    logger.info("model installed in %s", target)
    if held.interrupted:
        raise KeyboardInterrupt
    return target
