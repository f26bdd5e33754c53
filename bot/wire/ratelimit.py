"""Retry back-off and HTTP 429 pauses, shared by requests (:mod:`bot.wire.server`) and streams
(:mod:`bot.wire.streams`).

HTTP 429 blocks that endpoint for 60 s (``Timing.rate_limit_pause_s``; or ``Retry-After`` if longer); while it
is blocked, at most one request to it is in flight (the first one after the pause is a probe; the others queue
behind it).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TypeVar

import requests

from bot import metrics
from bot.config import PRODUCTION_TIMING
from bot.wire.errors import ServerStopped

log = logging.getLogger(__name__)

MAX_BACKOFF_S = 60.0

T = TypeVar("T")


def retry_after_s(response: requests.Response | None, pause_s: float = PRODUCTION_TIMING.rate_limit_pause_s) -> float:
    """How long a 429 asks us to wait: ``pause_s`` (60 s), or ``Retry-After`` seconds when that is longer."""
    if response is None:
        return pause_s
    try:
        asked = float(response.headers.get("Retry-After", "0"))
    except ValueError:
        asked = 0.0
    return max(pause_s, asked)


def backoff_s(attempt: int, base: float = 1.0, cap: float = MAX_BACKOFF_S) -> float:
    """1, 2, 4, ... seconds, capped."""
    return float(min(cap, base * (2 ** max(0, attempt))))


def short_body(response: requests.Response | None) -> str:
    """The first 200 characters of an error answer, on one line (for messages)."""
    if response is None:
        return ""
    try:
        return " ".join(response.text.split())[:200]
    except Exception:  # noqa: BLE001 - a body we cannot read is just not shown
        return ""


class EndpointLimits:
    """Per-endpoint 429 pauses: the one rate-limit path of every request and stream. ``pause_s``: how long a 429
    without a longer ``Retry-After`` pauses its endpoint."""

    def __init__(self, monotonic: Callable[[], float], wait: Callable[[float], bool],
                 pause_s: float = PRODUCTION_TIMING.rate_limit_pause_s) -> None:
        self.monotonic = monotonic
        self.wait = wait
        self.pause_s = pause_s
        self._blocked_until: dict[str, float] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def block(self, endpoint: str, seconds: float) -> None:
        with self._guard:
            until = self.monotonic() + seconds
            self._blocked_until[endpoint] = max(until, self._blocked_until.get(endpoint, 0.0))

    def rate_limited(self, endpoint: str, response: requests.Response | None, what: str = "") -> float:
        """An HTTP 429 arrived for ``endpoint`` (on the call the log names ``what``, e.g. a game's move): log
        it, pause the endpoint, return the pause in seconds."""
        pause = retry_after_s(response, self.pause_s)
        metrics.HTTP_429.labels(endpoint=endpoint).inc()
        if what and what != endpoint:
            log.warning("%s: HTTP 429, pausing the %s endpoint for %.0f s", what, endpoint, pause)
        else:
            log.warning("%s: HTTP 429, pausing this endpoint for %.0f s", endpoint, pause)
        self.block(endpoint, pause)
        return pause

    def remaining_s(self, endpoint: str) -> float:
        with self._guard:
            return max(0.0, self._blocked_until.get(endpoint, 0.0) - self.monotonic())

    def lock(self, endpoint: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(endpoint, threading.Lock())

    def call(self, endpoint: str, function: Callable[[], T], wait: Callable[[float], bool] | None = None,
             what: str = "") -> T:
        """Run ``function``; while the endpoint is paused, wait (``wait``, else the one given at creation;
        True from it stops the wait: :class:`ServerStopped`), and let only one caller through at a time.
        ``what``: the call as the log names it (a game's move), the endpoint by default."""
        if self.remaining_s(endpoint) <= 0:
            return function()
        wait = wait or self.wait
        with self.lock(endpoint):
            while (remaining := self.remaining_s(endpoint)) > 0:
                if what and what != endpoint:
                    log.info("%s: the %s endpoint is rate limited; waiting %.0f s", what, endpoint, remaining)
                else:
                    log.info("%s is rate limited; waiting %.0f s", endpoint, remaining)
                if wait(remaining):
                    raise ServerStopped(f"{endpoint}: stopped while rate limited")
            return function()
