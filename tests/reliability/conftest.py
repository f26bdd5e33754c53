"""Fixtures for the fault-injection suite: the e2e harness (the real bot against the loopback server) with the
bot's waits shortened (:data:`SHORT_WAITS`: 429 pause, retry and reconnect back-off, start-up retry window), an
opponent that resigns after a few moves so games stay short, and a check that no game ever has two workers at
once."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pytest

from bot.config import Timing
from bot.loopback import RandomMoves
from bot.loopback.opponents import OpponentView
from tests.e2e import conftest as e2e
from tests.e2e.conftest import (  # noqa: F401 - fixtures re-exported for this folder
    ENGINE,
    KEEPALIVE_S,
    TOKEN,
    BotProcess,
    assert_clean_game,
    bot_config,
    bots,
    dialect,
    lichess_server,
    pychess_server,
    server,
)

__all__ = ["ENGINE", "KEEPALIVE_S", "TOKEN", "BotProcess", "BotThread", "assert_clean_game", "bot_config", "bots",
           "dialect", "lichess_server", "pychess_server", "server", "PAUSE_S", "SHORT_WAITS", "ResignAfter",
           "WorkerWatch", "faulty_engine", "PauseLog", "pauses"]

HERE = Path(__file__).resolve().parent
#: the 429 pause the bot uses in these tests (60 s in production; Retry-After still wins when longer)
PAUSE_S = 0.5
#: the bot's production waits (60 s pauses, 1 s back-off doubling, a 300 s start-up window) scaled down for an
#: in-process bot
SHORT_WAITS = Timing(rate_limit_pause_s=PAUSE_S, retry_base_s=0.1, reconnect_base_s=0.1, startup_retry_s=30.0,
                     startup_max_delay_s=0.5)


class BotThread(e2e.BotThread):
    """The e2e harness's in-process bot, with :data:`SHORT_WAITS` unless a test hands it other waits."""

    def __init__(self, config: dict[str, Any], max_games: Optional[int] = None,
                 timing: Timing = SHORT_WAITS) -> None:
        super().__init__(config, max_games, timing)



class ResignAfter(RandomMoves):
    """Random legal moves (seeded), then resigns at its ``moves``-th move: games end in seconds."""

    def __init__(self, moves: int, seed: int = 0) -> None:
        super().__init__(seed)
        self.moves = moves

    def choose(self, position: OpponentView) -> Optional[str]:
        if position.own_moves >= self.moves:
            return "resign"
        return super().choose(position)


class WorkerWatch:
    """Wraps ``bot.lobby.loop.GameWorker``: records every worker started and any overlap for one game id."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.duplicates: list[str] = []
        self.live: dict[str, list[Any]] = {}
        self.lock = threading.Lock()


@pytest.fixture
def workers(monkeypatch: pytest.MonkeyPatch) -> Iterator[WorkerWatch]:
    import bot.lobby.loop
    from bot.game import GameWorker

    watch = WorkerWatch()

    class WatchedWorker(GameWorker):
        def start(self) -> None:
            with watch.lock:
                alive = [w for w in watch.live.get(self.game_id, []) if w.thread.is_alive()]
                if alive:
                    watch.duplicates.append(self.game_id)
                watch.live[self.game_id] = [*alive, self]
                watch.started.append(self.game_id)
            super().start()

    monkeypatch.setattr(bot.lobby.loop, "GameWorker", WatchedWorker)
    yield watch
    assert not watch.duplicates, f"two game workers at once for {watch.duplicates}"


def faulty_engine(tmp_path: Path, **faults: Any) -> str:
    """The command line of ``faulty_uci.py`` with its faults (see that file) set through arguments."""
    args = " ".join(f"--{name.replace('_', '-')}={value}" for name, value in faults.items())
    return f"{sys.executable} {HERE / 'faulty_uci.py'} {args}".strip()


class PauseLog:
    """What the bot's :class:`bot.wire.ratelimit.EndpointLimits` did, on its own clock: each 429 pause it started
    (endpoint, when, how long) and each request it let through (endpoint, when). Judging "nothing was sent
    during a pause" by these, not by when the server saw a request, holds however busy the machine is: a
    request let through just before the pause began may reach the server long after it."""

    def __init__(self) -> None:
        self.pauses: list[tuple[str, float, float]] = []
        self.admitted: list[tuple[str, float]] = []
        self.lock = threading.Lock()

    def admitted_during_pauses(self, endpoint: str) -> list[float]:
        with self.lock:
            return [at for name, at in self.admitted if name == endpoint
                    for paused, started, seconds in self.pauses
                    if paused == endpoint and started < at < started + seconds]

    def admitted_after_pauses(self, endpoint: str) -> list[float]:
        with self.lock:
            ends = [started + seconds for paused, started, seconds in self.pauses if paused == endpoint]
            return [at for name, at in self.admitted if name == endpoint and ends and at >= max(ends)]


@pytest.fixture
def pauses(monkeypatch: pytest.MonkeyPatch) -> PauseLog:
    from bot.wire.ratelimit import EndpointLimits

    log = PauseLog()
    block, call = EndpointLimits.block, EndpointLimits.call

    def logged_block(self: EndpointLimits, endpoint: str, seconds: float) -> None:
        with log.lock:
            log.pauses.append((endpoint, self.monotonic(), seconds))
        block(self, endpoint, seconds)

    def logged_call(self: EndpointLimits, endpoint: str, function: Any, wait: Any = None, what: str = "") -> Any:
        def admitted() -> Any:
            with log.lock:
                log.admitted.append((endpoint, self.monotonic()))
            return function()

        return call(self, endpoint, admitted, wait, what)

    monkeypatch.setattr(EndpointLimits, "block", logged_block)
    monkeypatch.setattr(EndpointLimits, "call", logged_call)
    return log
