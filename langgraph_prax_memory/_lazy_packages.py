"""Import a package's light submodules without running its heavy ``__init__``.

qdrant-client's ``__init__`` imports both of its clients (the async one with gRPC, the HTTP
API with httpx, fastembed with its image models and huggingface_hub: ~0.8 s of CPU), and
``qdrant_client/http/__init__`` imports the HTTP API client. The embedded engine (qdrant-edge)
needs none of that: only the data models of ``qdrant_client.http.models``, which cost a
tenth of it. :func:`defer_package` puts a placeholder module for such a package in
``sys.modules``: its submodules import as usual (the placeholder has the package's
``__path__``), and the first access to any other attribute (``qdrant_client.QdrantClient``,
``from qdrant_client import QdrantClient``) runs the real ``__init__`` in that same module
object, so everything qdrant-client offers still works, for this package and for any other
code in the process; only its price is paid when it is used.

Example:
    >>> from langgraph_prax_memory._lazy_packages import defer_package
    >>> defer_package("qdrant_client")  # a no-op when it is already imported
    >>> from qdrant_client.http import models  # the data models only
    >>> models.Filter(must=[]).must
    []
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from collections.abc import Mapping
from typing import Any

__all__ = ["defer_package", "is_deferred"]

_LOCK = threading.RLock()


def defer_package(name: str, light: Mapping[str, str] | None = None) -> None:
    """Put a placeholder for package ``name`` in ``sys.modules`` until it is really used.

    Nothing happens when the package is already imported, is not installed, or is not a
    package. Accessing an attribute of the placeholder that is one of its submodules imports
    that submodule only, and so does one that ``light`` maps to the submodule defining it
    (``{"SparseEmbeddings": "langchain_qdrant.sparse_embeddings"}``); any other attribute runs
    the package's ``__init__`` first.
    """
    shortcuts = dict(light or {})
    with _LOCK:
        if name in sys.modules:
            return
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or spec.submodule_search_locations is None:
            return
        module = importlib.util.module_from_spec(spec)
        loader = spec.loader
        state = {"done": False, "running": False}

        def finish(attr: str) -> Any:
            if attr in shortcuts and module.__dict__.get("__getattr__") is finish:
                return getattr(importlib.import_module(shortcuts[attr]), attr)
            if not attr.startswith("__"):
                try:
                    sub = importlib.util.find_spec(f"{name}.{attr}")
                except (ImportError, ValueError):
                    sub = None
                if sub is not None:
                    return importlib.import_module(f"{name}.{attr}")
            # every thread takes the lock before looking: a second thread waits for the
            # first one's __init__ to finish instead of seeing a half-built module
            with _LOCK:
                if not state["done"]:
                    if state["running"]:  # the __init__ itself asking for a name it lacks
                        raise AttributeError(f"module {name!r} has no attribute {attr!r}")
                    state["running"] = True
                    try:
                        loader.exec_module(module)
                        state["done"] = True
                        if module.__dict__.get("__getattr__") is finish:
                            del module.__dict__["__getattr__"]
                    finally:
                        state["running"] = False
            try:
                return module.__dict__[attr]
            except KeyError:
                raise AttributeError(f"module {name!r} has no attribute {attr!r}") from None

        finish.deferred_package = name  # type: ignore[attr-defined]
        module.__dict__["__getattr__"] = finish
        sys.modules[name] = module


def is_deferred(module: object) -> bool:
    """Whether ``module`` is a placeholder of :func:`defer_package` whose code has not run.

    Example:
        >>> import sys
        >>> is_deferred(sys)
        False
    """
    hook = getattr(module, "__dict__", {}).get("__getattr__")
    return getattr(hook, "deferred_package", None) is not None
