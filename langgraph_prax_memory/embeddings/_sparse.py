"""The sparse term encoder: augmented, log-scaled TF over hashed tokens (the seed's scheme).

Qdrant stores these vectors with its IDF modifier, so a stored vector scores as TF-IDF without
the encoder ever having to know the collection's document frequencies.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter

from langchain_qdrant import SparseEmbeddings, SparseVector

__all__ = ["STOP_WORDS", "SparseTFEncoder", "token_index", "tokenize"]

#: English stop words dropped before hashing (articles, pronouns, auxiliaries, prepositions).
STOP_WORDS: frozenset[str] = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "d",
        "ll",
        "m",
        "o",
        "re",
        "ve",
        "y",
        "don",
        "isn",
        "aren",
        "wasn",
        "weren",
        "hasn",
        "haven",
        "hadn",
        "doesn",
        "didn",
        "won",
        "wouldn",
        "shan",
        "shouldn",
        "couldn",
        "mustn",
        "let",
        "us",
        "also",
        "get",
        "got",
    ]
)

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
    """Hashed-token sparse vectors with augmented, log-scaled term frequency.

    ``weight = 0.5 + 0.5 · (1 + ln tf) / (1 + ln max_tf)`` for each token, so repeated words
    count with diminishing returns and long texts are not favoured. Queries use the same
    encoding; the collection's IDF modifier supplies the IDF factor.

    Example:
        >>> enc = SparseTFEncoder()
        >>> vec = enc.embed_query("dark mode")
        >>> len(vec.indices)
        2
    """

    def encode(self, text: str) -> SparseVector:
        """Encode one text."""
        counts = Counter(tokenize(text))
        if not counts:
            return SparseVector(indices=[], values=[])
        max_tf = max(counts.values())
        denom = 1.0 + math.log(max_tf)
        merged: dict[int, float] = {}
        for token, tf in counts.items():
            weight = 0.5 + 0.5 * (1.0 + math.log(tf)) / denom
            idx = token_index(token)
            merged[idx] = max(merged.get(idx, 0.0), weight)
        indices = sorted(merged)
        return SparseVector(indices=indices, values=[merged[i] for i in indices])

    def embed_documents(self, texts: list[str]) -> list[SparseVector]:
        """Encode documents."""
        return [self.encode(t) for t in texts]

    def embed_query(self, text: str) -> SparseVector:
        """Encode a query."""
        return self.encode(text)

    async def aembed_documents(self, texts: list[str]) -> list[SparseVector]:
        """Encode documents (pure computation, so no thread hop)."""
        return self.embed_documents(texts)

    async def aembed_query(self, text: str) -> SparseVector:
        """Encode a query (pure computation, so no thread hop)."""
        return self.encode(text)
