"""The long-term memory store of a LangGraph server: ``langgraph.json`` → ``store.path``.

``langgraph dev`` / ``langgraph up`` (langgraph-api) import ``./store.py:generate_store`` once,
enter it as an async context manager and use the yielded store for every ``client.store``
call, for Studio's memory browser and for every graph run (``runtime.store``). It is exited
when the server stops, which closes the memory and releases the embedded Qdrant folder.

The configuration is read from the environment when the server starts (``MEMORY_DATA_DIR``,
``QDRANT_URL``, ``NEO4J_URI``, ... see docs/configuration.md).

``allow_cross_tenant_listing=True`` lets ``client.store.list_namespaces()`` list every user's
namespaces, which Studio's memory browser needs; every content read (``get``, ``search``)
stays pinned to the one user its namespace names. Set ``PRAX_STORE_LISTING=0`` to refuse
listings without a user prefix, and see docs/deployment.md for pinning each caller to their
own namespaces with the server's ``@auth.on.store``.

``PRAX_INSPECTOR_PORT`` (a port on 127.0.0.1; ``0``: a free one) serves the inspector's pages
(docs/inspector.md) from the server's own process, over this very memory, for as long as the
server runs: the URL with its token is printed on the server's log (stderr). The embedded
store is held by one process at a time, so this is how to look at the memory of a running
server: a second process (``prax-memory inspect``) could not open it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph_prax_memory import PraxMemoryStore


@asynccontextmanager
async def generate_store() -> AsyncIterator[PraxMemoryStore]:
    """Open the memory for the server's lifetime and yield its LangGraph store."""
    listing = os.environ.get("PRAX_STORE_LISTING", "1").strip().lower() not in {"0", "false"}
    async with PraxMemoryStore.from_config(allow_cross_tenant_listing=listing) as store:
        await store.asetup()
        port = os.environ.get("PRAX_INSPECTOR_PORT", "").strip()
        if not port:
            yield store
            return
        from langgraph_prax_memory.inspector import serve

        if not port.isdigit() or int(port) > 65535:
            raise ValueError(f"PRAX_INSPECTOR_PORT must be a port number (0: any), got {port!r}")
        inspector = serve(store.memory, port=int(port))
        print(f"prax-memory inspector: {inspector.url}", file=sys.stderr, flush=True)
        try:
            yield store
        finally:
            inspector.close()
