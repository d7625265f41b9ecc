"""The undo of an import that failed half-way: the user is left as before the import.

An import (:mod:`langgraph_prax_memory._portable_import`) writes four stores one after the
other: the graph (one transaction), the memories (in chunks), the scratchpad and the notes.
Before each one is written, :class:`ImportUndo` notes what the import is about to change
there: the memories it will write as they are (payload and vectors), the whole scratchpad,
the notes. When a write fails, :meth:`ImportUndo.guard` puts everything back: the records
the graph created are deleted by id, the memories written are deleted or restored as they
were, the scratchpad and the notes are written back. Then it raises the library's error
saying what failed and that nothing changed (or, if the undo failed too, what may be left).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from langgraph_prax_memory._parts import MemoryParts
from langgraph_prax_memory.errors import MemoryWriteError, PraxMemoryError
from langgraph_prax_memory.graph import GraphLoad
from langgraph_prax_memory.stm import StmEntry
from langgraph_prax_memory.vectors import VectorRecord

__all__ = ["ImportUndo"]

logger = logging.getLogger(__name__)


def _same_kind(exc: BaseException, message: str) -> PraxMemoryError:
    """An error of ``exc``'s class saying ``message`` (a ``MemoryWriteError`` for others).

    A full disk stays a ``DiskFullError``, a server down a ``BackendUnavailable``: what the
    caller does about the failure does not change because an import was undone.
    """
    if isinstance(exc, PraxMemoryError):
        try:
            return type(exc)(message)
        except TypeError:  # an error class that needs more than a message
            pass
    return MemoryWriteError(message)


def _point(record: Any) -> VectorRecord:
    """The :class:`VectorRecord` that writes a point back as it was read (both vectors)."""
    vectors = record.vector if isinstance(record.vector, dict) else {}
    dense = next((v for v in vectors.values() if isinstance(v, list)), None)
    sparse = next((v for v in vectors.values() if hasattr(v, "indices")), None)
    return VectorRecord(str(record.id), dict(record.payload or {}), dense, sparse)


class ImportUndo:
    """What an import is about to change in one user, and how to put it back.

    Args:
        parts: The memory's parts (the stores written).
        user_id: The user the import writes into.
    """

    def __init__(self, parts: MemoryParts, user_id: str) -> None:
        self.parts = parts
        self.user_id = user_id
        #: What is being written now (named in the error).
        self.step = "nothing"
        self._begun: set[str] = set()
        #: The records the graph created (``None``: the graph was not written).
        self.graph: GraphLoad | None = None
        self._memory_ids: list[str] = []
        self._points: list[VectorRecord] | None = None
        self._stm: list[StmEntry] | None = None
        self._notes: str | None = None

    # -- before the writes -------------------------------------------------------------
    def begin(self, store: str, step: str) -> None:
        """Say that ``store`` (graph, memories, scratchpad, notes) is written now: ``step``."""
        self._begun.add(store)
        self.step = step

    def before_memories(self, ids: Sequence[str]) -> None:
        """Note the points ``ids`` (those the import writes) as they are: payload, vectors."""
        store = self.parts.ltm.store()
        wanted = list(dict.fromkeys(ids))
        found = store.call(
            "retrieve",
            lambda: store.client.retrieve(
                store.collection, ids=wanted, with_payload=True, with_vectors=True
            ),
        )
        self._memory_ids = wanted
        self._points = [
            _point(r) for r in found if (r.payload or {}).get("user_id") == self.user_id
        ]

    def before_scratchpad(self) -> None:
        """Note the user's whole scratchpad."""
        self._stm = self.parts.stm.all(self.user_id)

    def before_notes(self) -> None:
        """Note the user's notes."""
        self._notes = self.parts.notes.read(self.user_id)

    # -- after a failure ---------------------------------------------------------------
    def undo(self) -> list[str]:
        """Put back what the import changed; what could not be put back (empty: all was)."""
        problems: list[str] = []
        for what, step in (
            ("notes", self._undo_notes),
            ("scratchpad", self._undo_scratchpad),
            ("memories", self._undo_memories),
            ("graph", self._undo_graph),
        ):
            if what not in self._begun:
                continue
            try:
                step()
            except Exception as exc:
                logger.exception("undoing the import's %s for %r failed", what, self.user_id)
                problems.append(f"{what}: {exc}")
        return problems

    def _undo_notes(self) -> None:
        if self._notes is not None and self.parts.notes.read(self.user_id) != self._notes:
            self.parts.notes.update(self.user_id, self._notes)

    def _undo_scratchpad(self) -> None:
        if self._stm is not None and self.parts.stm.all(self.user_id) != self._stm:
            self.parts.stm.replace_all(self.user_id, self._stm)

    def _undo_memories(self) -> None:
        if self._points is None:
            return
        there = {p.id for p in self._points}
        added = [i for i in self._memory_ids if i not in there]
        self.parts.ltm.store().delete(self.user_id, added)
        if self._points:
            self.parts.ltm.write(self.user_id, self._points)

    def _undo_graph(self) -> None:
        made = self.graph
        if made is not None and made.total:
            self.parts.graph.delete_records(
                self.user_id,
                entity_ids=made.entities,
                relation_ids=made.relations,
                event_ids=made.temporal_events,
                link_ids=made.causal_links,
            )

    @contextmanager
    def guard(self) -> Iterator[None]:
        """Run the writes: on any error, undo them, then raise the library's error.

        Raises:
            PraxMemoryError: The error's own class when it is one of the library's (a
                ``DiskFullError`` stays one), else ``MemoryWriteError``, saying what failed
                and that nothing of the file was kept, or, when the undo failed too, what
                may be left. ``KeyboardInterrupt`` and the like are undone and re-raised.
        """
        try:
            yield
        except BaseException as exc:
            problems = self.undo()
            if not isinstance(exc, Exception):
                raise
            failed = f"importing into {self.user_id!r} failed while writing {self.step}: {exc}"
            if problems:
                message = (
                    f"{failed}. Undoing the import failed too ({'; '.join(problems)}), so "
                    f"{self.user_id!r} may hold part of the file: fix the cause and import "
                    "the same file again (an import skips what is already there, so it "
                    "completes this one)"
                )
            else:
                message = (
                    f"{failed}. Nothing of the file was kept: the memories, graph, scratchpad "
                    f"and notes of {self.user_id!r} are as they were before the import"
                )
            raise _same_kind(exc, message) from exc
