"""TTL: expiry checks, the sweep of expired items, read refreshes and the sweeper thread."""

from __future__ import annotations

import concurrent.futures
import functools
import logging
import math
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from qdrant_client.http import models

from langgraph_prax_memory.errors import (
    MemoryValidationError,
)
from langgraph_prax_memory.memory import PraxMemory
from langgraph_prax_memory.vectors import (
    EXPIRES_AT,
    QdrantVectorStore,
    StoredPoint,
    ids_condition,
    unexpired,
    user_filter,
)

logger = logging.getLogger("langgraph_prax_memory.store")

#: Payload fields of TTL: the expiry (epoch seconds) and the TTL it was computed from (minutes).
TTL_MINUTES = "ttl_minutes"


_SCAN_PAGE = 256


def _expired(payload: Mapping[str, Any], now: float) -> bool:
    expires = payload.get(EXPIRES_AT)
    return isinstance(expires, int | float) and expires <= now


def _check_ttl(ttl: object) -> float | None:
    if ttl is None:
        return None
    if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not math.isfinite(ttl):
        raise MemoryValidationError(f"ttl must be a number of minutes, got {ttl!r}")
    if ttl <= 0:
        raise MemoryValidationError(f"ttl must be positive (minutes), got {ttl!r}")
    return float(ttl)


def _facet(vs: QdrantVectorStore, key: str, flt: models.Filter | None) -> list[str]:
    """Distinct values of ``key`` among the points ``flt`` selects (guarded engine call)."""

    def run() -> list[str]:
        res = vs.client.facet(vs.collection, key=key, facet_filter=flt, limit=1_000_000)
        return [str(h.value) for h in res.hits]

    return vs.call("facet", run)


def sweep_expired(vs: QdrantVectorStore) -> int:
    """Delete every expired item now (all users); returns how many were deleted.

    It finds expired points across tenants, then deletes them with one user-pinned delete
    per user.
    """
    now = time.time()
    expired = models.FieldCondition(key=EXPIRES_AT, range=models.Range(lte=now))
    scan = models.Filter(must=[expired])
    by_user: dict[str, list[str]] = defaultdict(list)
    offset: Any = None

    def scan_page(start: Any) -> tuple[list[models.Record], Any]:
        return vs.client.scroll(
            vs.collection,
            scroll_filter=scan,
            limit=_SCAN_PAGE,
            offset=start,
            with_payload=["user_id"],
            with_vectors=False,
        )

    while True:
        page, offset = vs.call("ttl sweep", functools.partial(scan_page, offset))
        for point in page:
            by_user[str((point.payload or {}).get("user_id"))].append(str(point.id))
        if offset is None or not page:
            break

    def delete(selector: models.FilterSelector) -> None:
        vs.client.delete(vs.collection, points_selector=selector, wait=True)

    deleted = 0
    for user, ids in by_user.items():
        selector = models.FilterSelector(filter=user_filter(user, ids_condition(ids), expired))
        vs.run_write("ttl sweep delete", functools.partial(delete, selector))
        deleted += len(ids)
    return deleted


def refresh(memory: PraxMemory, touched: Sequence[tuple[str, StoredPoint]]) -> None:
    """Extend the expiry of items read with ``refresh_ttl`` (those that have a TTL)."""
    groups: dict[tuple[str, float], list[str]] = defaultdict(list)
    for user, point in touched:
        minutes = point.payload.get(TTL_MINUTES)
        if isinstance(minutes, int | float) and minutes > 0:
            groups[(user, float(minutes))].append(point.id)
    if not groups:
        return
    vs = memory.vectors
    now = time.time()

    def extend(flt: models.Filter, minutes: float) -> None:
        payload = {EXPIRES_AT: now + minutes * 60.0}
        vs.client.set_payload(vs.collection, payload=payload, points=flt, wait=True)

    for (user, minutes), ids in groups.items():
        flt = user_filter(user, ids_condition(sorted(set(ids))), unexpired(now))
        vs.run_write("ttl refresh", functools.partial(extend, flt, minutes))


class Sweeper:
    """The background thread that runs a sweep every interval (one at a time per store)."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def start(self, sweep: Callable[[], int], interval: float) -> concurrent.futures.Future[None]:
        """Run ``sweep`` every ``interval`` seconds; a running sweeper is kept.

        Returns a future that completes when the sweeper stops (cancel it to stop).
        """
        future: concurrent.futures.Future[None] = concurrent.futures.Future()
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                future.add_done_callback(lambda f: self._stop.set() if f.cancelled() else None)
                return future
            if not math.isfinite(interval) or interval <= 0:
                raise MemoryValidationError("sweep_interval_minutes must be positive")
            self._stop.clear()
            stop = self._stop

            def loop() -> None:
                try:
                    while not stop.wait(interval):
                        try:
                            n = sweep()
                            if n:
                                logger.info("TTL sweep deleted %d expired item(s)", n)
                        except Exception as exc:  # retried at the next interval
                            logger.warning("TTL sweep failed: %s", exc)
                    future.set_result(None)
                except BaseException as exc:  # pragma: no cover - interpreter shutdown
                    future.set_exception(exc)

            thread = threading.Thread(target=loop, name="prax-ttl-sweeper", daemon=True)
            self._thread = thread
            thread.start()
        future.add_done_callback(lambda f: stop.set() if f.cancelled() else None)
        return future

    def stop(self, timeout: float | None = None) -> bool:
        """Stop the thread; ``True`` once it has stopped (or was not running)."""
        with self._lock:
            thread = self._thread
            if thread is None:
                return True
            self._stop.set()
        thread.join(timeout)
        if thread.is_alive():
            return False
        with self._lock:
            if self._thread is thread:
                self._thread = None
        return True
