"""Changing the embedding model of a collection: re-embed every memory, record the new model.

A collection records the model its dense vectors came from; opening it with another model is a
:class:`~langgraph_prax_memory.errors.ConfigError` that names this (and
``prax-memory reembed --model-change``). Vectors of two models are never mixed.
"""

from __future__ import annotations

from typing import Protocol

from langgraph_prax_memory._progress import ProgressCallback, notify
from langgraph_prax_memory.ltm import LongTermMemory

__all__ = ["migrate_embeddings"]


class _WithLongTermMemory(Protocol):
    """A :class:`~langgraph_prax_memory.PraxMemory` (anything with its ``ltm``)."""

    @property
    def ltm(self) -> LongTermMemory: ...


def migrate_embeddings(
    memory: _WithLongTermMemory, *, progress: ProgressCallback | None = None
) -> int:
    """Move the whole collection (every user) to ``memory``'s configured embedding model.

    Re-embeds every memory of every user with the new model (of the collection's width),
    then records the model and measures its cosine scale again. Interrupted, the collection
    still records the old model, so a normal open keeps refusing and this is simply run
    again. ``progress(done, None, "memories")`` is told after each user.

    Returns:
        How many memories were re-embedded.

    Raises:
        EmbeddingError: The configured model failed part-way (run it again).

    Example:
        >>> from langgraph_prax_memory import MemoryConfig, PraxMemory
        >>> mem = PraxMemory(MemoryConfig(embedding_model="bge-small-en-v1.5"))  # doctest: +SKIP
        >>> migrate_embeddings(mem)  # doctest: +SKIP
        1042
    """
    ltm = memory.ltm
    store = ltm.store()
    store.allow_model_change = True
    try:
        done = 0
        for user in sorted(store.facet("user_id")):
            done += ltm.reembed(user, force=True)
            notify(progress, done, None, "memories")
    finally:
        store.allow_model_change = False
    store.record_model(ltm.model_stamp())
    ltm.reset_calibration()
    return done
