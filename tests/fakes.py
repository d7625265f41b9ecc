"""Test doubles allowed by the project rules: deterministic embeddings for unit tests (the real
offline model runs in integration tests) and fault injection helpers."""

from __future__ import annotations

import hashlib
import math
import re

from langchain_core.embeddings import Embeddings

_WORD = re.compile(r"[a-z0-9]+")


class HashEmbeddings(Embeddings):
    """Bag-of-words hashed into ``dim`` buckets, L2-normalised: shared words → similar vectors."""

    def __init__(self, dim: int = 384) -> None:
        self.dim = dim
        self.model_name = f"hash-{dim}"
        self.calls = 0

    def _one(self, text: str) -> list[float]:
        vec = [0.0] * self.dim
        for word in _WORD.findall(text.lower()):
            h = int.from_bytes(hashlib.md5(word.encode()).digest()[:4], "big")
            vec[h % self.dim] += 1.0 if (h >> 31) & 1 else -1.0
            vec[(h >> 8) % self.dim] += 0.5
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)


class FailingEmbeddings(Embeddings):
    """An embedding provider that is down."""

    def __init__(self, name: str = "down-provider") -> None:
        self.model_name = name

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise ConnectionError("provider unreachable")

    def embed_query(self, text: str) -> list[float]:
        raise ConnectionError("provider unreachable")


class SwitchableEmbeddings(HashEmbeddings):
    """Fault injection: a provider that is down until ``down`` is set to False."""

    def __init__(self, dim: int = 384) -> None:
        super().__init__(dim)
        self.down = True

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if self.down:
            raise ConnectionError("provider unreachable")
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        if self.down:
            raise ConnectionError("provider unreachable")
        return super().embed_query(text)
