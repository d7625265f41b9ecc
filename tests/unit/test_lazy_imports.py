"""``import langgraph_prax_memory; PraxMemory()`` loads only what the embedded path uses (issue 27).

Each check runs in a fresh interpreter and looks at ``sys.modules`` (the CPU figures are in
``benchmarks/startup.py``): the embedded engine needs qdrant-client's data models, not its
clients (nor gRPC, httpx's API client, fastembed's image side or huggingface_hub), and no
LangChain chat-model or tracing code (langsmith) or Neo4j driver unless asked for. The
packages deferred this way still work in full for whoever uses them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _fresh(code: str, tmp_path: Path) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env["MEMORY_DATA_DIR"] = str(tmp_path / "data")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


_OPEN = """
import json, sys
import langgraph_prax_memory
from langgraph_prax_memory import PraxMemory
memory = PraxMemory()
memory.stm.write("alice", "goal", "ship it")
memory.close()
from langgraph_prax_memory._lazy_packages import is_deferred
loaded = {m for m, mod in list(sys.modules.items()) if not is_deferred(mod)}
print(json.dumps({
    "loaded": sorted(m for m in loaded if m.split(".")[0] in (
        "fastembed", "huggingface_hub", "langsmith", "neo4j", "grpc", "onnxruntime",
        "langgraph", "langchain", "httpx")),
    "clients": sorted(m for m in loaded if m in (
        "qdrant_client.qdrant_client", "qdrant_client.async_qdrant_client",
        "qdrant_client.http.api_client", "langchain_qdrant.qdrant",
        "langchain_core.language_models.base", "langchain_core.tracers")),
    "client_class_built": "QdrantClient" in vars(sys.modules["qdrant_client"]),
}))
"""


def test_the_embedded_memory_loads_only_what_it_uses(tmp_path: Path) -> None:
    report = _fresh(_OPEN, tmp_path)
    assert report == {"loaded": [], "clients": [], "client_class_built": False}, report


_FULL = """
import json
import langgraph_prax_memory  # defers qdrant-client and langchain-qdrant
from qdrant_client.http import models as light
import qdrant_client
from qdrant_client import QdrantClient, models
from qdrant_client.http import models as http_models
from langchain_qdrant import QdrantVectorStore, SparseEmbeddings
from langchain_qdrant.sparse_embeddings import SparseEmbeddings as Defined
import httpx
timeout = httpx.Timeout(1.0)
client = QdrantClient(":memory:")
client.create_collection("c", vectors_config=models.VectorParams(size=2, distance="Cosine"))
client.upsert("c", [models.PointStruct(id=1, vector=[0.1, 0.2], payload={"a": 1})])
print(json.dumps({
    "same_filter": light.Filter is models.Filter is http_models.Filter,
    "count": client.count("c").count,
    "store": QdrantVectorStore.__name__,
    "sparse_same": SparseEmbeddings is Defined,
    "async": hasattr(qdrant_client, "AsyncQdrantClient"),
    "httpx": timeout.connect,
}))
"""


def test_the_deferred_packages_still_work_in_full(tmp_path: Path) -> None:
    report = _fresh(_FULL, tmp_path)
    assert report == {
        "same_filter": True,
        "count": 1,
        "store": "QdrantVectorStore",
        "sparse_same": True,
        "async": True,
        "httpx": 1.0,
    }


def test_a_missing_attribute_is_still_an_attribute_error(tmp_path: Path) -> None:
    code = """
import json
import langgraph_prax_memory, qdrant_client
try:
    qdrant_client.NoSuchThing
except AttributeError as exc:
    print(json.dumps({"error": str(exc), "real": hasattr(qdrant_client, "QdrantClient")}))
"""
    report = _fresh(code, tmp_path)
    assert "NoSuchThing" in report["error"] and report["real"] is True
