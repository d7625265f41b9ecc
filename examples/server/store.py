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
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph_prax_memory import PraxMemoryStore


@asynccontextmanager
async def generate_store() -> AsyncIterator[PraxMemoryStore]:
    """Open the memory for the server's lifetime and yield its LangGraph store."""
    listing = os.environ.get("PRAX_STORE_LISTING", "1").strip().lower() not in {"0", "false"}
    async with PraxMemoryStore.from_config(allow_cross_tenant_listing=listing) as store:
        await store.asetup()
        yield store
