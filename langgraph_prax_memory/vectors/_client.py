"""Opening a Qdrant client: a server, qdrant-edge (the embedded default) or the local mode.

What kind of client it is (``is_local_client``, ``is_remote_client``) and whether an error
means the server is unavailable live here too.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langgraph_prax_memory._breaker import describe
from langgraph_prax_memory.config import (
    MemoryConfig,
)
from langgraph_prax_memory.errors import (
    StoreLockedError,
)
from langgraph_prax_memory.vectors._edge import EdgeClient, open_shared_edge

if TYPE_CHECKING:
    from qdrant_client import QdrantClient
    from qdrant_client.http import models

__all__ = [
    "VectorClient",
    "is_edge_client",
    "is_local_client",
    "is_remote_client",
    "open_qdrant_client",
    "qdrant_unavailable",
    "scroll_payloads",
]

logger = logging.getLogger("langgraph_prax_memory.vectors._store")


if TYPE_CHECKING:
    #: What the vector store talks to: qdrant-client (server or local mode) or the embedded
    #: engine.
    VectorClient = QdrantClient | EdgeClient


def __getattr__(name: str) -> Any:
    # qdrant-client's clients are imported only when a server or its local mode is used
    # (or when this alias is asked for)
    if name == "VectorClient":
        from qdrant_client import QdrantClient

        alias = QdrantClient | EdgeClient
        globals()["VectorClient"] = alias
        return alias
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: HTTP statuses of a server (or its proxy) that is not serving: they count for the breaker.
_UNAVAILABLE_STATUS = frozenset({502, 503, 504})


def qdrant_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` means the Qdrant server did not answer (timeout, refused, 502-504).

    What the circuit breaker counts. An error the server answered with (a bad request, a
    missing collection, a 500) does not: the server is up.
    """
    import httpx
    from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

    if isinstance(exc, ResponseHandlingException):
        exc = exc.source
    if isinstance(exc, UnexpectedResponse):
        return exc.status_code in _UNAVAILABLE_STATUS
    return isinstance(exc, httpx.TransportError | OSError)


def _why(exc: BaseException) -> str:
    """An exception as ``Type: message`` (qdrant-client's wrapper unwrapped)."""
    from qdrant_client.http.exceptions import ResponseHandlingException

    if isinstance(exc, ResponseHandlingException):
        return describe(exc.source)
    return describe(exc)


def _set_http_timeouts(client: QdrantClient, config: MemoryConfig) -> None:
    """Give a server client separate connect and read timeouts.

    qdrant-client takes one timeout in whole seconds (it rounds 0.5 up to 1) for every phase;
    its REST client is an httpx client, whose timeout is set here to ``QDRANT_CONNECT_TIMEOUT``
    for connecting and ``QDRANT_READ_TIMEOUT`` for the rest. Should a qdrant-client release
    keep its httpx client elsewhere, the single rounded timeout still applies.
    """
    import httpx

    timeout = httpx.Timeout(config.qdrant_read_timeout, connect=config.qdrant_connect_timeout)
    api = getattr(client.http, "client", None)
    inner = getattr(api, "_client", None)
    if isinstance(inner, httpx.Client):
        inner.timeout = timeout


def _server_client(config: MemoryConfig) -> QdrantClient:
    from qdrant_client import QdrantClient

    key = config.qdrant_api_key.get_secret_value() if config.qdrant_api_key else None
    client = QdrantClient(
        url=config.qdrant_url, api_key=key, timeout=math.ceil(config.qdrant_read_timeout)
    )
    _set_http_timeouts(client, config)
    return client


def open_qdrant_client(config: MemoryConfig) -> VectorClient:
    """Open the client the configuration asks for.

    ``QDRANT_URL`` set → a server; ``:memory:`` → an in-process store; unset → the embedded
    store under ``data_dir``. The embedded engine is ``MEMORY_VECTOR_ENGINE``: qdrant-edge
    (``data_dir/qdrant-edge``, the default) or qdrant-client's local mode (``data_dir/qdrant``).
    Both allow one client per folder: a second process gets :class:`StoreLockedError` with
    what to do, never a hang.
    """
    url = config.qdrant_url
    if url and url != ":memory:":
        return _server_client(config)
    engine = config.vector_engine
    if engine == "edge" and url != ":memory:" and _keep_local_data(config):
        engine = "local"
    if engine == "edge":
        headroom = config.disk_headroom_mb * 1024 * 1024
        if url == ":memory:":
            return EdgeClient(
                ":memory:", min_free_bytes=headroom, search_threads=config.engine_search_threads
            )
        # one client per folder and process, shared by every PraxMemory on it;
        # StoreLockedError (naming the holder's pid) when another process holds it
        client = open_shared_edge(
            config.qdrant_edge_path,
            min_free_bytes=headroom,
            search_threads=config.engine_search_threads,
        )
        _warn_if_local_data_left(config, client)
        return client
    from qdrant_client import QdrantClient

    if url == ":memory:":
        return QdrantClient(location=":memory:")
    path = config.qdrant_path
    path.mkdir(parents=True, exist_ok=True)
    try:
        return QdrantClient(path=str(path))
    except RuntimeError as exc:
        if "already accessed" in str(exc):
            raise StoreLockedError(
                f"the embedded Qdrant store at {path} is open in another process (Qdrant's "
                "local mode allows one client per folder). Close the other process, give this "
                "one its own MEMORY_DATA_DIR, or run a Qdrant server and set QDRANT_URL so "
                "several processes can share it."
            ) from exc
        raise


def _keep_local_data(config: MemoryConfig) -> bool:
    """Stay on local mode for a data folder that holds only local-mode memories.

    Only when ``MEMORY_VECTOR_ENGINE`` was not chosen explicitly: a folder written before
    qdrant-edge became the default keeps its memories instead of opening an empty store.
    """
    if "vector_engine" in config.model_fields_set:
        return False
    old = config.qdrant_path / "collection" / config.collection_name
    new = config.qdrant_edge_path / config.collection_name / "collection.json"
    if old.is_dir() and not new.is_file():
        logger.warning(
            "%s holds memories of qdrant-client's local mode and no qdrant-edge store: using "
            "local mode for it. To move to qdrant-edge (the default, much faster): "
            "`prax-memory export` now, then `prax-memory import` with "
            "MEMORY_VECTOR_ENGINE=edge. Set MEMORY_VECTOR_ENGINE to silence this.",
            config.data_dir,
        )
        return True
    return False


def _warn_if_local_data_left(config: MemoryConfig, client: EdgeClient) -> None:
    """Say so when memories sit in a local-mode folder the edge engine does not read."""
    old = config.qdrant_path / "collection" / config.collection_name
    if old.is_dir() and not client.collection_exists(config.collection_name):
        logger.warning(
            "memories of qdrant-client's local mode exist at %s but the embedded engine is now "
            "qdrant-edge (%s), which starts empty. Set MEMORY_VECTOR_ENGINE=local to keep using "
            "them, or move them: `prax-memory export` with MEMORY_VECTOR_ENGINE=local, then "
            "`prax-memory import` with the default engine.",
            config.qdrant_path,
            config.qdrant_edge_path,
        )


def is_remote_client(client: VectorClient) -> bool:
    """A Qdrant server (HTTP): the only kind of vector client that can hang."""
    return type(getattr(client, "_client", None)).__name__ == "QdrantRemote"


def is_edge_client(client: VectorClient) -> bool:
    """The in-process qdrant-edge engine (the embedded default)."""
    return isinstance(client, EdgeClient)


def is_local_client(client: VectorClient) -> bool:
    """qdrant-client's local mode: pure Python, no payload indexes, not thread-safe.

    The edge engine is not "local" in this sense: it keeps payload indexes and its shards are
    thread-safe, so it is treated like a server.
    """
    return type(getattr(client, "_client", None)).__name__ == "QdrantLocal"


def scroll_payloads(
    client: VectorClient,
    collection: str,
    flt: models.Filter,
    fields: Sequence[str],
    limit: int,
    offset: models.ExtendedPointId | None,
) -> tuple[list[tuple[models.ExtendedPointId, dict[str, Any]]], models.ExtendedPointId | None]:
    """One scroll page in id order as ``(id, payload)`` pairs holding only ``fields``.

    The embedded engine builds no qdrant-client model per point
    (:meth:`EdgeClient.scroll_payloads`); other clients scroll as usual.
    """
    if isinstance(client, EdgeClient):
        return client.scroll_payloads(collection, flt, fields, limit, offset)
    records, after = client.scroll(
        collection,
        scroll_filter=flt,
        limit=limit,
        offset=offset,
        with_payload=list(fields),
        with_vectors=False,
    )
    return [(r.id, dict(r.payload or {})) for r in records], after
