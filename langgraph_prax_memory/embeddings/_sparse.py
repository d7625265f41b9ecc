"""The sparse term encoder: augmented, log-scaled TF over hashed tokens (the seed's scheme).

Qdrant stores these vectors with its IDF modifier, so a stored vector scores as TF-IDF without
the encoder ever having to know the collection's document frequencies.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections import Counter
from typing import Any

from langchain_qdrant import SparseEmbeddings, SparseVector

from langgraph_prax_memory._text import STOP_WORDS

__all__ = ["STOP_WORDS", "SparseTFEncoder", "token_index", "tokenize"]


#: Scripts written without spaces between words (Han, Hiragana, Katakana) and Hangul: their
#: runs are indexed as overlapping character bigrams (a lone character as itself).
_CJK = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3040-\u30ff\u3130-\u318f\u31a0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f"
)
#: Combining marks that belong inside a word (``\w`` does not match them): Latin diacritics
#: left after normalisation, Cyrillic, Hebrew, Arabic, the Indic and Thai vowel signs.
_MARKS = (
    "\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670"
    "\u06d6-\u06ed\u0900-\u0dff\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u1ab0-\u1aff"
    "\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
)
_W = f"(?:(?![{_CJK}])[^\\W_]|[{_MARKS}])"
# Words of any alphabet, numbers and identifiers such as E-4012, v1.2 or snake_case (kept
# whole, parts added); or a run of CJK characters.
_TOKEN = re.compile(f"(?P<cjk>[{_CJK}]+)|(?P<word>{_W}+(?:[-_.']{_W}+)*)")
_LATIN_MARKS = re.compile("(?<=[a-z])[\u0300-\u036f]+")
_POSSESSIVE = re.compile(r"'s$")
_PARTS = re.compile(r"[-_.]")


def _fold(word: str) -> str:
    """``word`` without Latin diacritics (``málaga`` → ``malaga``, ``zoë`` → ``zoe``)."""
    if word.isascii():
        return word
    return unicodedata.normalize("NFC", _LATIN_MARKS.sub("", unicodedata.normalize("NFD", word)))


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def tokenize(text: str) -> list[str]:
    """Case-folded tokens of ``text`` without stop words; identifiers also yield their parts.

    Words of any alphabet are kept whole (Latin diacritics folded, so ``Málaga`` matches
    ``Malaga``); text in scripts without spaces (Chinese, Japanese) and Korean gives
    overlapping character bigrams.

    Example:
        >>> tokenize("Error E-4012 in the build")
        ['error', 'e-4012', 'e', '4012', 'build']
        >>> tokenize("Zoë Müller flew to Málaga")
        ['zoe', 'muller', 'flew', 'malaga']
        >>> tokenize("Это русский, 这是中文")
        ['это', 'русский', '这是', '是中', '中文']
    """
    out: list[str] = []
    folded = unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'")
    for match in _TOKEN.finditer(folded):
        cjk = match.group("cjk")
        if cjk:
            out.extend(_bigrams(cjk))
            continue
        word = match.group("word")
        token = _fold(_POSSESSIVE.sub("", word).replace("'", "") if "'" in word else word)
        if token in STOP_WORDS:
            continue
        out.append(token)
        if "-" in token or "_" in token or "." in token:
            out.extend(p for p in _PARTS.split(token) if p and p not in STOP_WORDS)
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
        return [self._stemmer.stem_word(t) if t.isascii() and t.isalpha() else t for t in toks]

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
