"""A circuit breaker per backend: after a failure, fail fast; after a cool-down, retry once.

A backend that accepts TCP connections and never answers costs every call its full timeout.
The breaker turns that into one timeout per outage: once a call fails because the backend is
unavailable, later calls raise :class:`~langgraph_prax_memory.errors.CircuitOpenError` at once
(naming the backend and when it is retried) until ``cooldown`` seconds have passed. Then it is
*half-open*: one retry decides. With a ``probe`` (a cheap health check) the retry runs in a
background thread and callers keep failing fast meanwhile, so no caller waits on a backend that
is still hung; without one, the next call is the trial and concurrent calls fail fast. Success
closes the breaker, a failure opens it for another cool-down.

Hand-written (about a hundred lines) because the maintained packages do not fit: ``pybreaker``
holds its lock for the whole protected call, so the concurrent recall arms would queue behind
each other (danielfm/pybreaker#3), and ``circuitbreaker`` keeps its state without a lock and lets
every call through once half-open (fabfuel/circuitbreaker#61). See docs/dependencies.md.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal

from langgraph_prax_memory.errors import CircuitOpenError

__all__ = ["CircuitBreaker", "State"]

logger = logging.getLogger(__name__)

State = Literal["closed", "open", "half-open"]


def describe(exc: BaseException) -> str:
    """``Type: message`` of an exception, one line, at most 300 characters."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= 300 else text[:297] + "..."


class CircuitBreaker:
    """Closed → open after ``failures`` consecutive failures → half-open after ``cooldown``.

    Only the exceptions ``is_failure`` accepts count (a timeout, a refused connection); any
    other outcome, an error included, means the backend answered and closes the breaker. The
    lock is held only to read and change the state, never during a call, so concurrent calls
    to a healthy backend run side by side.

    Args:
        backend: Name in errors and logs (``"Qdrant"``, ``"Neo4j graph"``).
        failures: Consecutive failures that open the breaker (``MEMORY_BREAKER_FAILURES``).
        cooldown: Seconds it stays open before a retry (``MEMORY_BREAKER_COOLDOWN``).
        is_failure: Whether an exception means "the backend is unavailable".
        probe: Health check run in a background thread when the cool-down ends; ``None``
            makes the first call after the cool-down the trial.
        warn: Log the opening of the breaker as a warning (else at info level, for backends
            that already log their outages).
        explain: The failure as text for errors and logs (default ``Type: message``).
        clock: Seconds from a monotonic clock (tests pass a fake).

    Example:
        >>> breaker = CircuitBreaker("demo", cooldown=60, is_failure=lambda e: True)
        >>> try:
        ...     with breaker.guard():
        ...         raise TimeoutError("no answer")
        ... except TimeoutError:
        ...     pass
        >>> breaker.state
        'open'
    """

    def __init__(
        self,
        backend: str,
        *,
        failures: int = 1,
        cooldown: float = 30.0,
        is_failure: Callable[[BaseException], bool],
        probe: Callable[[], object] | None = None,
        warn: bool = True,
        explain: Callable[[BaseException], str] = describe,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if failures < 1 or cooldown < 0:
            raise ValueError("failures must be >= 1 and cooldown >= 0")
        self.backend = backend
        self.failures = failures
        self.cooldown = float(cooldown)
        self.is_failure = is_failure
        self.probe = probe
        self._warn = warn
        self._explain = explain
        self._clock = clock
        self._lock = threading.Lock()
        self._state: State = "closed"
        self._count = 0
        self._opened_at = 0.0
        self._trying = False  # a trial call or a probe is under way
        self._last_error = ""
        #: How many times the breaker has opened (re-opening after a failed retry included).
        self.trips = 0

    # -- state ------------------------------------------------------------------------
    @property
    def state(self) -> State:
        """``closed`` (calls go through), ``open`` (they fail fast) or ``half-open``."""
        with self._lock:
            if self._state == "open" and self._remaining() <= 0:
                return "half-open"
            return self._state

    @property
    def last_error(self) -> str:
        """The failure that opened the breaker (empty while it never has)."""
        return self._last_error

    def _remaining(self) -> float:
        return max(0.0, self._opened_at + self.cooldown - self._clock())

    def reset(self) -> None:
        """Close the breaker (forget the failures)."""
        with self._lock:
            self._state, self._count, self._trying = "closed", 0, False

    # -- calls ------------------------------------------------------------------------
    @contextmanager
    def guard(self) -> Iterator[None]:
        """Run the ``with`` block through the breaker.

        Raises:
            CircuitOpenError: The breaker is open (or a retry is under way); the block did
                not run.
        """
        trial = self._admit()
        try:
            yield
        except Exception as exc:
            self._record(exc, trial=trial)
            raise
        except BaseException:  # cancelled or interrupted: it says nothing about the backend
            if trial:
                with self._lock:
                    self._trying = False
            raise
        self._record(None, trial=trial)

    def _admit(self) -> bool:
        """Let a call through (``True`` when it is the half-open trial) or raise."""
        start_probe = False
        with self._lock:
            if self._state == "closed":
                return False
            remaining = self._remaining()
            if remaining > 0:
                raise self._rejection(f"next try in {remaining:.1f} s", remaining)
            if self._trying:
                raise self._rejection("a retry is under way", 0.0)
            self._state, self._trying = "half-open", True
            if self.probe is not None:
                start_probe = True
        if not start_probe:
            return True
        threading.Thread(
            target=self._run_probe, name=f"prax-breaker-probe-{self.backend}", daemon=True
        ).start()
        raise self._rejection("checking now whether it answers again", 0.0)

    def _rejection(self, when: str, retry_in: float) -> CircuitOpenError:
        return CircuitOpenError(
            f"{self.backend} is unavailable ({self._last_error}); not tried: the circuit "
            f"breaker is open, {when}",
            backend=self.backend,
            retry_in=retry_in,
        )

    def _run_probe(self) -> None:
        probe = self.probe
        try:
            if probe is not None:
                probe()
        except Exception as exc:
            self._record(exc, trial=True)
        except BaseException:  # the probe was killed: it decided nothing, the next one may run
            with self._lock:
                self._trying = False
            raise
        else:
            self._record(None, trial=True)

    def _record(self, exc: BaseException | None, *, trial: bool) -> None:
        with self._lock:
            if trial:
                self._trying = False
            if exc is None or not self.is_failure(exc):
                if self._state != "closed":
                    logger.info("%s answers again: circuit breaker closed", self.backend)
                self._state, self._count = "closed", 0
                return
            self._last_error = self._explain(exc)
            if self._state == "closed":
                self._count += 1
                if self._count < self.failures:
                    return
                reopen = False
            elif trial:
                reopen = True
            else:
                return  # a call that started before the breaker opened: already counted
            self._state, self._opened_at = "open", self._clock()
            self.trips += 1
        level = logging.WARNING if self._warn and not reopen else logging.INFO
        logger.log(
            level,
            "%s is unavailable (%s): calls fail fast for %.0f s, then it is retried",
            self.backend,
            self._last_error,
            self.cooldown,
        )
