"""A small model to pull for real: its jar in a Maven layout served over HTTP on 127.0.0.1.

The pull code runs unchanged (download, checksum, unpack, manifest, install); only the model is
small: a jar whose pins are measured here, so a test pulls it in milliseconds with no network.
Its ``model.onnx`` is not a real ONNX graph: tests that need inference use the packaged model
or, in the integration suite, the real bge-small-en-v1.5 jar.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import http.server
import io
import socket
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

from langgraph_prax_memory.embeddings._catalog import LocalModelSpec, MavenArtifact, find_model

#: The test model's weights and tokenizer (the jar's two entries).
ONNX = b"not really onnx, but pinned like one. " * 64
TOKENIZER = b'{"version": "1.0", "model": {"type": "WordPiece"}}'
NAME = "test-model-q"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fake_jar() -> bytes:
    """The test model's jar, byte for byte the same in every process (fixed entry times)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for entry, data in (("test-q.onnx", ONNX), ("test-q-tokenizer.json", TOKENIZER)):
            zf.writestr(zipfile.ZipInfo(entry, date_time=(2020, 1, 1, 0, 0, 0)), data)
    return buf.getvalue()


def model_spec() -> LocalModelSpec:
    """A catalog entry for the test model, pinned to :func:`fake_jar` and its two files."""
    bge = find_model("bge-small-en-v1.5")
    assert bge is not None
    jar = fake_jar()
    return dataclasses.replace(
        bge,
        name=NAME,
        aliases=(),
        maven=MavenArtifact(
            group="org.example.prax",
            artifact="test-embeddings-q",
            version="1.0",
            sha256=_sha(jar),
            size=len(jar),
            onnx_entry="test-q.onnx",
            tokenizer_entry="test-q-tokenizer.json",
            onnx_sha256=_sha(ONNX),
            onnx_size=len(ONNX),
            tokenizer_sha256=_sha(TOKENIZER),
            tokenizer_size=len(TOKENIZER),
        ),
    )


def publish(root: Path, spec: LocalModelSpec, jar: bytes | None = None) -> None:
    """Put ``spec``'s jar (the test jar unless given) into the Maven layout under ``root``."""
    assert spec.maven is not None
    path = root / spec.maven.path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(fake_jar() if jar is None else jar)


@contextlib.contextmanager
def serve(root: Path) -> Iterator[str]:
    """Serve ``root`` over HTTP on 127.0.0.1; yield its URL."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(root), **kwargs)  # type: ignore[arg-type]

        def log_message(self, *args: object) -> None:
            pass

    with _running(Handler) as url:
        yield url


@contextlib.contextmanager
def serve_zeros(total: int, *, declare: int | None = None) -> Iterator[str]:
    """A repository whose every file is ``total`` zero bytes (``Content-Length: declare``)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            if declare is not None:
                self.send_header("Content-Length", str(declare))
            self.end_headers()
            block = b"\0" * 65536
            sent = 0
            with contextlib.suppress(OSError):  # the client hung up: what the cap is for
                while sent < total:
                    self.wfile.write(block[: total - sent])
                    sent += min(len(block), total - sent)

        def log_message(self, *args: object) -> None:
            pass

    with _running(Handler) as url:
        yield url


@contextlib.contextmanager
def _running(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    """A port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def leftovers(folder: Path) -> list[str]:
    """The names in ``folder`` (empty when it does not exist)."""
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []
