"""How a graph backend reports that its database cannot be reached: once, then quietly."""

from __future__ import annotations

import logging

__all__ = ["OutageLog"]


class OutageLog:
    """Logs a backend outage once (a warning), then quietly until the backend answers again."""

    def __init__(self, logger: logging.Logger, backend: str) -> None:
        self._logger = logger
        self._backend = backend
        self._down = False

    @property
    def down(self) -> bool:
        """Whether the last call failed because the backend was unavailable."""
        return self._down

    def failed(self, exc: BaseException) -> None:
        """Record a failed call: a warning the first time, debug afterwards."""
        if self._down:
            self._logger.debug("%s still unavailable: %s", self._backend, exc)
        else:
            self._down = True
            self._logger.warning(
                "%s is unavailable (%s: %s); graph calls raise BackendUnavailable until it "
                "answers again",
                self._backend,
                type(exc).__name__,
                exc,
            )

    def ok(self) -> None:
        """Record a successful call (the next outage is logged again)."""
        if self._down:
            self._down = False
            self._logger.info("%s is reachable again", self._backend)
