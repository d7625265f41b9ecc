"""The scale of partial cosines: a name both texts hold, its direction taken out.

Recall reads a question that names the person most of a user's memories name by *partial*
cosines (:func:`partial_cosines`, here so that recall and its calibration compute them
alike). Those sit on
another scale than raw cosines: two texts sharing a name still share the frame a name
brings once its direction is out. It is measured like the raw scale
(:mod:`._calibration`), on the same background pairs with a name put in both texts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from langgraph_prax_memory.embeddings._background import BACKGROUND_PAIRS

__all__ = ["measured_texts", "named", "partial_cosines", "partial_tails"]

#: Names put into the background pairs to measure partial cosines: varied in origin and
#: in how the model's tokenizer splits them.
_NAMES = ("Alex", "Priya", "Tomasz", "Nomvula")
_PRONOUN = re.compile(r"\b(?:she|he|they)\b", re.I)
_POSSESSIVE = re.compile(r"\b(?:her|his|their)\b", re.I)


def named(text: str, name: str) -> str:
    """``text`` with its first subject pronoun (else possessive) made ``name``.

    Example:
        >>> named("Is she allergic to anything?", "Alex")
        'Is Alex allergic to anything?'
        >>> named("How old is their daughter?", "Alex")
        "How old is Alex's daughter?"
    """
    out = _PRONOUN.sub(name, text, count=1)
    return out if out != text else _POSSESSIVE.sub(f"{name}'s", text, count=1)


def partial_cosines(
    query: Sequence[float],
    memories: Sequence[Sequence[float]],
    names: Sequence[Sequence[float]],
) -> list[float]:
    """Cosines of ``query`` to each memory with the names' directions taken out of both.

    The partial correlation of question and memory given the names: what they have in
    common beyond what each shares with the names ("What is Alice allergic to?" and "Alice
    has a dog" share Alice, not the question). The name vectors are made orthonormal first;
    a vector left with (almost) nothing but the names scores 0.

    Example:
        >>> q, m, n = [0.8, 0.6, 0.0], [0.8, 0.0, 0.6], [1.0, 0.0, 0.0]
        >>> [round(c, 2) for c in partial_cosines(q, [m], [n])]
        [0.0]
        >>> [round(c, 2) for c in partial_cosines([0.6, 0.8, 0.0], [[0.6, 0.8, 0.0]], [n])]
        [1.0]
    """
    if not memories:
        return []
    basis, _ = np.linalg.qr(np.asarray(names, dtype=np.float64).T)
    q = np.asarray(query, dtype=np.float64)
    m = np.asarray(memories, dtype=np.float64)
    q = q - basis @ (basis.T @ q)
    m = m - (m @ basis) @ basis.T
    qn = float(np.linalg.norm(q))
    mn = np.linalg.norm(m, axis=1)
    if qn < 1e-9:
        return [0.0] * len(memories)
    mn[mn < 1e-9] = np.inf
    return [float(x) for x in (m @ q) / (mn * qn)]


def measured_texts() -> int:
    """How many texts :func:`measure_scale` embeds (the background set, then with names)."""
    named_texts = 0
    for name in _NAMES:
        pairs = [(named(q, name), named(s, name)) for q, s in BACKGROUND_PAIRS]
        named_texts += 2 * sum(1 for q, s in pairs if name in q and name in s) + 1
    return 2 * len(BACKGROUND_PAIRS) + named_texts


def partial_tails(
    embed_queries: Callable[[list[str]], list[list[float]]],
    embed_documents: Callable[[list[str]], list[list[float]]],
    z: float,
    companion_z: float,
) -> tuple[float, float, float]:
    """Median and two tails (floor, companion) of unrelated partial cosines, given a name.

    Each name is put into the pairs whose question and statement both take it, the two are
    embedded as recall embeds them, and the name's own direction is taken out of both (as
    recall does for a name most of a user's memories hold). The names' unrelated pairs are
    pooled; the related median bounds the floor as for raw cosines. ``z`` / ``companion_z``:
    the floor's and the companion bar's one-sided normal tails.
    """
    unrelated: list[np.ndarray] = []
    related: list[np.ndarray] = []
    for name in _NAMES:
        pairs = [(named(q, name), named(s, name)) for q, s in BACKGROUND_PAIRS]
        pairs = [(q, s) for q, s in pairs if name in q and name in s]
        queries = embed_queries([a for a, _ in pairs])
        docs = embed_documents([b for _, b in pairs] + [name])
        sims = np.asarray([partial_cosines(q, docs[:-1], docs[-1:]) for q in queries])
        related.append(np.diag(sims))
        unrelated.append(sims[~np.eye(len(sims), dtype=bool)])
    pooled = np.concatenate(unrelated)
    floor = min(float(pooled.mean() + z * pooled.std()), float(np.median(np.concatenate(related))))
    companion = min(float(pooled.mean() + companion_z * pooled.std()), floor)
    return float(np.median(pooled)), floor, companion
