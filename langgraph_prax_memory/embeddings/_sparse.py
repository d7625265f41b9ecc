"""The sparse term encoder: augmented, log-scaled TF over hashed tokens (the seed's scheme).

Qdrant stores these vectors with its IDF modifier, so a stored vector scores as TF-IDF without
the encoder ever having to know the collection's document frequencies.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from typing import Any

from langchain_qdrant import SparseEmbeddings, SparseVector

from langgraph_prax_memory._text import STOP_WORDS

__all__ = ["STOP_WORDS", "SparseTFEncoder", "token_index", "tokenize"]


# Words, numbers and identifiers such as E-4012, v1.2 or snake_case (kept whole, parts added).
_TOKEN = re.compile(r"[0-9a-z]+(?:[-_.'][0-9a-z]+)*")


def tokenize(text: str) -> list[str]:
    """Lower-case tokens of ``text`` without stop words; identifiers also yield their parts.

    Example:
        >>> tokenize("Error E-4012 in the build")
        ['error', 'e-4012', 'e', '4012', 'build']
    """
    out: list[str] = []
    for match in _TOKEN.finditer(text.lower()):
        token = re.sub(r"'s$", "", match.group(0)).replace("'", "")
        if token in STOP_WORDS:
            continue
        out.append(token)
        if any(sep in token for sep in "-_."):
            out.extend(p for p in re.split(r"[-_.]", token) if p and p not in STOP_WORDS)
    return out


def token_index(token: str) -> int:
    """A stable 31-bit index for a token (independent of the process' hash seed)."""
    digest = hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") & 0x7FFFFFFF


class SparseTFEncoder(SparseEmbeddings):
    """Hashed-token sparse vectors; Qdrant's IDF modifier supplies the IDF factor.

    Two term-weighting schemes:

    - ``"augmented_tf"`` (the seed's): ``0.5 + 0.5 · (1 + ln tf) / (1 + ln max_tf)`` for
      documents and queries alike, so repeated words count with diminishing returns.
    - ``"bm25"``: documents get BM25's saturated, length-normalised term frequency
      ``tf·(k1 + 1) / (tf + k1·(1 − b + b·len/avg_len))`` with a fixed ``avg_len``, queries a
      weight of 1 per distinct term, so that Qdrant's ``Σ idf · q · d`` *is* Okapi BM25.

    ``stem=True`` adds Snowball stemming (English) to both sides.

    Example:
        >>> enc = SparseTFEncoder()
        >>> vec = enc.embed_query("dark mode")
        >>> len(vec.indices)
        2
    """

    def __init__(
        self,
        scheme: str = "augmented_tf",
        *,
        stem: bool = False,
        k1: float = 1.2,
        b: float = 0.75,
        avg_len: float = 16.0,
    ) -> None:
        if scheme not in ("augmented_tf", "bm25"):
            raise ValueError(f"unknown sparse scheme {scheme!r}: use 'augmented_tf' or 'bm25'")
        self.scheme = scheme
        self.k1, self.b, self.avg_len = k1, b, avg_len
        self._stemmer: Any = None
        if stem:
            import py_rust_stemmers

            self._stemmer = py_rust_stemmers.SnowballStemmer("english")

    def tokens(self, text: str) -> list[str]:
        """The tokens this encoder hashes (stemmed when configured)."""
        toks = tokenize(text)
        if self._stemmer is None:
            return toks
        return [self._stemmer.stem_word(t) if t.isalpha() else t for t in toks]

    def _vector(self, weights: dict[str, float]) -> SparseVector:
        merged: dict[int, float] = {}
        for token, w in weights.items():
            idx = token_index(token)
            merged[idx] = max(merged.get(idx, 0.0), w)
        indices = sorted(merged)
        return SparseVector(indices=indices, values=[merged[i] for i in indices])

    def encode(self, text: str, *, query: bool = False) -> SparseVector:
        """Encode one text (``query=True`` for the query side of ``bm25``)."""
        toks = self.tokens(text)
        counts = Counter(toks)
        if not counts:
            return SparseVector(indices=[], values=[])
        if self.scheme == "bm25":
            if query:
                return self._vector({t: 1.0 for t in counts})
            norm = self.k1 * (1 - self.b + self.b * len(toks) / self.avg_len)
            return self._vector({t: tf * (self.k1 + 1) / (tf + norm) for t, tf in counts.items()})
        max_tf = max(counts.values())
        denom = 1.0 + math.log(max_tf)
        return self._vector(
            {t: 0.5 + 0.5 * (1.0 + math.log(tf)) / denom for t, tf in counts.items()}
        )

    def embed_documents(self, texts: list[str]) -> list[SparseVector]:
        """Encode documents."""
        return [self.encode(t) for t in texts]

    def embed_query(self, text: str) -> SparseVector:
        """Encode a query."""
        return self.encode(text, query=True)

    async def aembed_documents(self, texts: list[str]) -> list[SparseVector]:
        """Encode documents (pure computation, so no thread hop)."""
        return self.embed_documents(texts)

    async def aembed_query(self, text: str) -> SparseVector:
        """Encode a query (pure computation, so no thread hop)."""
        return self.embed_query(text)
