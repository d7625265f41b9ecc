"""Issue 26 item 9: a put's TTL clock starts when the item is written, not before embedding.

The packaged embedding model embeds; the fault injected is latency only (a wrapper that
sleeps before each embedding call, as a model loading on first use does), so the item's
``expires_at`` is compared with the moment its embedding was done.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.embeddings import Embeddings

from langgraph_prax_memory import MemoryConfig, PraxMemoryStore
from langgraph_prax_memory.embeddings import PackagedMiniLMEmbeddings
from langgraph_prax_memory.vectors import EXPIRES_AT, point_id

NS = ("memories", "alice")
DELAY = 0.6  # seconds each embedding call waits before the model runs


class SlowEmbeddings(Embeddings):
    """The packaged model behind a delay; records when each embedding call finished."""

    def __init__(self, inner: Embeddings) -> None:
        self.inner = inner
        self.delay = 0.0
        self.done_at: list[float] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        time.sleep(self.delay)
        vectors = self.inner.embed_documents(texts)
        self.done_at.append(time.time())
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Embeddings:
    return PackagedMiniLMEmbeddings(tmp_path_factory.mktemp("models"))


@pytest.fixture
def slow(model: Embeddings) -> SlowEmbeddings:
    return SlowEmbeddings(model)


@pytest.fixture
def store(slow: SlowEmbeddings, tmp_path: Path) -> Iterator[PraxMemoryStore]:
    cfg = MemoryConfig(qdrant_url=":memory:", data_dir=tmp_path / "d")
    with PraxMemoryStore.from_config(cfg, index={"embed": slow, "dims": 384}) as s:
        slow.delay = DELAY  # the width probe at construction ran without the delay
        yield s


def _expires_at(store: PraxMemoryStore, key: str) -> float:
    [point] = store.memory.vectors.retrieve("alice", [point_id(NS, key)])
    return float(point.payload[EXPIRES_AT])


def test_the_ttl_runs_from_the_write_not_from_before_embedding(
    store: PraxMemoryStore, slow: SlowEmbeddings
) -> None:
    started = time.time()
    store.put(NS, "otp", {"content": "login code 481516"}, ttl=1)
    returned = time.time()
    assert slow.done_at, "the put embedded its text"
    embedded = slow.done_at[-1]
    assert embedded - started >= DELAY
    expires = _expires_at(store, "otp")
    # the full minute counts from the write: at least from the end of the embedding
    assert embedded + 60.0 <= expires <= returned + 60.0


def test_a_default_ttl_and_the_async_face_run_from_the_write_too(
    slow: SlowEmbeddings, tmp_path: Path
) -> None:
    cfg = MemoryConfig(qdrant_url=":memory:", data_dir=tmp_path / "d")
    with PraxMemoryStore.from_config(
        cfg, index={"embed": slow, "dims": 384}, ttl={"default_ttl": 2}
    ) as store:
        slow.delay = DELAY
        asyncio.run(store.aput(NS, "note", {"content": "the parcel arrives on Tuesday"}))
        embedded = slow.done_at[-1]
        assert embedded + 120.0 <= _expires_at(store, "note") <= time.time() + 120.0
