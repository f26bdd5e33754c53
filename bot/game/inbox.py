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

Replayed states are left out where the items come in (:class:`ReplayFilter`): the worker is never handed one,
and never sees one among the items still waiting.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from bot.wire.events import GameFull, GameState
from bot.wire.streams import StreamConnected

log = logging.getLogger("bot.game")

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


def is_replayed(known: Sequence[str], moves: Sequence[str]) -> bool:
    """A state's ``moves`` are a strict beginning of the moves we ``known``: after a reconnection, a replay."""
    return len(moves) < len(known) and list(moves) == list(known[:len(moves)])


class ReplayFilter:
    """pychess, after a reconnection: the new stream replays what it queued while we were away, from a
    ``gameFull`` as old as the server's restart onwards (seen on the real server: a "takeback" to ply 24 when
    the game, played on from the game page, was at ply 27). After a :class:`StreamConnected` (where the dialect
    replays: ``replays``), a state whose moves are a strict beginning of the moves we know (``known``: the
    position's server moves, None before it is set up) is such a replay, not a takeback, and is skipped; the
    first one that is not ends the replay. The one home of this rule: the :class:`Inbox` asks it of every item
    it hands out (:meth:`skips`) and of the items still waiting (:meth:`ahead`)."""

    def __init__(self, replays: Callable[[], bool], known: Callable[[], Sequence[str] | None], label: str) -> None:
        self.replays = replays
        self.known = known
        self.label = label
        self.replaying = False  # the stream reconnected and may be replaying the game from long ago

    def skips(self, item: object) -> bool:
        """The reader takes ``item``: True when it is a replayed state, to be left out."""
        self.replaying, skip = self._step(self.replaying, item)
        if skip:
            assert isinstance(item, (GameFull, GameState))
            state = item.state if isinstance(item, GameFull) else item
            log.debug("%s: skipped a replayed state (%d plies; we are at %d)", self.label, len(state.moves),
                      len(self.known() or ()))
        return skip

    def ahead(self, items: list[T]) -> list[T]:
        """The ``items`` that :meth:`skips` will let through when their turn comes (the replay as it stands)."""
        replaying, kept = self.replaying, []
        for item in items:
            replaying, skip = self._step(replaying, item)
            if not skip:
                kept.append(item)
        return kept

    def _step(self, replaying: bool, item: object) -> tuple[bool, bool]:
        """(replaying after ``item``, whether ``item`` is skipped)."""
        if isinstance(item, StreamConnected):
            return self.replays(), False
        if replaying and isinstance(item, (GameFull, GameState)):
            state = item.state if isinstance(item, GameFull) else item
            known = self.known()
            if known is not None and is_replayed(known, state.moves):
                return True, True
            return False, False
        return replaying, False


class Inbox(Generic[T]):
    """A thread-safe queue of ``T`` read by one thread, with a deadline for each read; ``replays``: the items
    it leaves out (a game's replayed states)."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic, wait: Waiter | None = None,
                 replays: ReplayFilter | None = None) -> None:
        self.monotonic = monotonic
        self._wait = wait or _wait
        self._replays = replays
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
                    item = self._items.popleft()[1]
                    if self._replays is not None and self._replays.skips(item):
                        continue
                    return item
                if deadline is not None and now >= deadline:
                    return None
                # a wait can end early (a notify, a spurious wake-up, rounding): look again
                self._wait(self._condition, None if deadline is None else deadline - now)

    def waiting(self) -> list[T]:
        """The items posted and not yet taken that :meth:`next` will hand out, oldest first (to look ahead
        without taking them)."""
        with self._condition:
            items = [item for _, item in self._items]
        return self._replays.ahead(items) if self._replays is not None else items


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
