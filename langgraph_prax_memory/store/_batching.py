"""``abatch``'s coalescing: the per-loop queue, its worker, and runs of queued batches."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langgraph.store.base import GetOp, ListNamespacesOp, Op, PutOp, Result, SearchOp


def _kind(ops: Sequence[Op]) -> str | None:
    """``"read"`` / ``"write"`` for a batch of reads only / puts only (else ``None``)."""
    if ops and all(isinstance(op, PutOp) for op in ops):
        return "write"
    if ops and all(isinstance(op, GetOp | SearchOp | ListNamespacesOp) for op in ops):
        return "read"
    return None


@dataclass
class _Queue:
    """``abatch`` calls of one event loop waiting for the worker thread (coalesced)."""

    pending: list[tuple[list[Op], asyncio.Future[list[Result]]]] = field(default_factory=list)
    task: asyncio.Task[None] | None = None


def _worker_done(queue: _Queue, task: asyncio.Task[None]) -> None:
    """Fail the calls a worker leaves behind if it was cancelled before it started.

    A worker that ran cleans up itself (its ``finally`` clears ``queue.task``); one cancelled
    before its first step never ran that code, and without this its callers would wait
    forever and every later call on the loop would queue behind a dead task.
    """
    if queue.task is not task:  # it ran, or a later call already started a new worker
        return
    queue.task = None
    pending, queue.pending = queue.pending, []
    for _, fut in pending:
        if not fut.done():
            fut.cancel()


async def drain(queue: _Queue, run: Callable[[Sequence[list[Op]]], list[tuple[bool, Any]]]) -> None:
    """The worker of one event loop: hand the queued calls to ``run`` in a thread, in turns."""
    taken: list[tuple[list[Op], asyncio.Future[list[Result]]]] = []
    try:
        while queue.pending:
            taken, queue.pending = [t for t in queue.pending if not t[1].done()], []
            if not taken:
                continue
            outcomes = await asyncio.to_thread(run, [ops for ops, _ in taken])
            for (_, fut), (ok, value) in zip(taken, outcomes, strict=True):
                if fut.done():
                    continue
                if ok:
                    fut.set_result(value)
                else:
                    fut.set_exception(value)
            taken = []
    except BaseException as exc:  # cancelled (loop shutting down): fail what is waiting
        for _, fut in [*taken, *queue.pending]:
            if fut.done():
                continue
            if isinstance(exc, Exception):
                fut.set_exception(exc)
            else:
                fut.cancel()
        queue.pending = []
        raise
    finally:
        queue.task = None


def run_batches(
    batch: Callable[[list[Op]], list[Result]], batches: Sequence[list[Op]]
) -> list[tuple[bool, Any]]:
    """Run queued batches in order with ``batch``, each with its own result or error.

    Consecutive batches that only read, or only write, run as one combined batch (the
    same outcome as one after another: reads change nothing, and later writes win), so
    their gets, embeddings and upserts share engine calls. If a combined run fails, its
    batches are run again one by one (writes are idempotent), so each gets its own error.
    """
    out: list[tuple[bool, Any]] = []
    i = 0
    while i < len(batches):
        kind = _kind(batches[i])
        j = i + 1
        if kind is not None:
            while j < len(batches) and _kind(batches[j]) == kind:
                j += 1
        run = batches[i:j]
        if len(run) > 1:
            try:
                results = batch([op for ops in run for op in ops])
            except Exception:
                out.extend(_run_each(batch, run))
            else:
                start = 0
                for ops in run:
                    out.append((True, results[start : start + len(ops)]))
                    start += len(ops)
        else:
            out.extend(_run_each(batch, run))
        i = j
    return out


def _run_each(
    batch: Callable[[list[Op]], list[Result]], batches: Sequence[list[Op]]
) -> list[tuple[bool, Any]]:
    out: list[tuple[bool, Any]] = []
    for ops in batches:
        try:
            out.append((True, batch(ops)))
        except Exception as exc:
            out.append((False, exc))
    return out
