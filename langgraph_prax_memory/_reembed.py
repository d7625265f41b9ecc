"""Dense vectors for memories stored without one, or by another model (``reembed``)."""

from __future__ import annotations

from typing import Any, Protocol

from langgraph_prax_memory._progress import ProgressCallback, notify
from langgraph_prax_memory._validation import check_user_id
from langgraph_prax_memory.errors import EmbeddingError
from langgraph_prax_memory.vectors import QdrantVectorStore

__all__ = ["reembed_user"]


class _LongTermMemory(Protocol):
    """What reembed reads of its long-term memory (no import cycle with ``ltm``)."""

    @property
    def dense(self) -> Any: ...

    @property
    def classes(self) -> Any: ...

    def store(self) -> QdrantVectorStore: ...


#: Memories embedded and written back per request.
_CHUNK = 256


def reembed_user(
    ltm: _LongTermMemory,
    user_id: str,
    *,
    force: bool = False,
    progress: ProgressCallback | None = None,
) -> int:
    """:meth:`LongTermMemory.reembed <langgraph_prax_memory.ltm.LongTermMemory.reembed>`."""
    check_user_id(user_id)
    store, model = ltm.store(), ltm.dense.model_name
    todo = [  # only the fields this needs (reading whole payloads costs more than that)
        (point_id, str(p.get("content", "")))
        for point_id, p in store.scan(user_id, ("content", "dense_pending", "embedding_model"))
        if force or p.get("dense_pending") or p.get("embedding_model") not in (None, model)
    ]
    done = 0
    notify(progress, 0, len(todo), "memories")
    for start in range(0, len(todo), _CHUNK):
        chunk = todo[start : start + _CHUNK]
        try:
            vectors = ltm.dense.embed_primary([text for _, text in chunk])
        except EmbeddingError as exc:
            raise EmbeddingError(
                f"reembed for {user_id!r} stopped after {done} of {len(todo)} memories: "
                f"{exc}. The others keep their sparse vectors and stay marked for reembed."
            ) from exc
        dense = {i: v for (i, _), v in zip(chunk, vectors, strict=True)}
        store.set_dense(user_id, dense, model)  # the hubness dots kept before are dropped
        ltm.classes.reclassify(user_id, dense)  # those classified from their cues alone
        done += len(chunk)
        notify(progress, done, len(todo), "memories")
    return done
