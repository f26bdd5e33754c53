"""One game worker's inbox: the single queue its thread waits on.

Two kinds of sender post to it: the game stream's reader thread (the stream's lines and notices: the inbox
is the stream's sink) and the lobby (:class:`StopRequested`, :class:`ServerFinished`). The worker's own timed
checks are not posted but waited for: the worker asks :meth:`Inbox.next` for the next item *or* its next
deadline (:class:`Deadlines`), whichever comes first, so it sleeps exactly until something can change (no fixed
polling tick).

Items and deadlines are taken in time order: an item posted before a deadline is handled before the deadline's
checks (a final state, the game's end, read while the engine was thinking, is never preceded by a stall
check), and a deadline passes before items posted after it (a stream flooding keep-alives cannot starve the
checks). The clock and the wait are injectable, so the order is tested without sleeping.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class StopRequested:
    """The lobby is stopping: ``abort`` (abort or resign the game) or ``finish`` (play it out)."""

    mode: str


@dataclass(frozen=True)
class ServerFinished:
    """The lobby's event stream said ``gameFinish`` for this game."""


class Waiter(Protocol):
    """How the inbox sleeps: wait on ``condition`` (held) for up to ``timeout`` seconds (None: no limit)."""

    def __call__(self, condition: threading.Condition, timeout: float | None) -> None: ...


def _wait(condition: threading.Condition, timeout: float | None) -> None:
    condition.wait(timeout)


class Inbox(Generic[T]):
    """A thread-safe queue of ``T`` read by one thread, with a deadline for each read."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic, wait: Waiter | None = None) -> None:
        self.monotonic = monotonic
        self._wait = wait or _wait
        self._items: deque[tuple[float, T]] = deque()  # (posted at, item), oldest first
        self._condition = threading.Condition()

    def post(self, item: T) -> None:
        """Any thread: add ``item`` (stamped with the time it arrived) and wake the reader."""
        with self._condition:
            self._items.append((self.monotonic(), item))
            self._condition.notify()

    #: the name a stream's reader puts its items with (:class:`bot.wire.streams.Sink`)
    put = post

    def next(self, deadline: float | None) -> T | None:
        """The reader: the oldest item posted before ``deadline``; None once ``deadline`` has passed with none
        (the timed checks are due). ``deadline`` None: wait for an item however long it takes."""
        with self._condition:
            while True:
                now = self.monotonic()
                if self._items and (deadline is None or self._items[0][0] <= deadline):
                    return self._items.popleft()[1]
                if deadline is not None and now >= deadline:
                    return None
                # a wait can end early (a notify, a spurious wake-up, rounding): look again
                self._wait(self._condition, None if deadline is None else deadline - now)

    def waiting(self) -> list[T]:
        """The items posted and not yet taken, oldest first (to look ahead without taking them)."""
        with self._condition:
            return [item for _, item in self._items]


class Deadlines:
    """When a reader's timed checks are next due, given the deadlines its parts report (:meth:`next_at`).

    A deadline that had already passed when the checks last ran (they found nothing to do, or did it) is not
    waited for again, or the reader would spin; but news may change what it means (a state arrived, so a
    move to retry is now due), so after news the checks run once more, right after the items that were waiting
    when the first news was handled."""

    def __init__(self) -> None:
        self.checked_at = float("-inf")
        self.news_at: float | None = None

    def news(self, now: float) -> None:
        """An item was handled at ``now``."""
        if self.news_at is None:
            self.news_at = now

    def ran(self, now: float) -> None:
        """The checks ran at ``now``."""
        self.checked_at, self.news_at = now, None

    def next_at(self, times: list[float]) -> float | None:
        """The deadline to wait for (None: none; wait for an item)."""
        fresh = [at for at in times if at > self.checked_at]
        if self.news_at is not None and len(fresh) < len(times):
            fresh.append(self.news_at)
        return min(fresh, default=None)
