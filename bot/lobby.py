"""The event loop: one event stream; challenges -> accept/decline; one game worker per started game."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path

from bot.challenges import Accept, LobbyState, decide_challenge, describe_time_control
from bot.config import Settings
from bot.events import (
    Account,
    Challenge,
    ChallengeEvent,
    ChallengeGone,
    GameFinish,
    GameStart,
    ServerTerminated,
    UnknownEvent,
)
from bot.game import Engine, GameRecord, GameWorker
from bot.server import Server, ServerError, StreamConnected, StreamFailed, StreamLost, TokenRejected

log = logging.getLogger(__name__)

#: An accepted challenge holds a concurrency slot until its gameStart arrives, or this many seconds.
ACCEPTED_SLOT_S = 30.0


class Lobby:
    """Runs until stopped (signal, ``--games N``) or the server refuses us for good."""

    def __init__(self, server: Server, settings: Settings, account: Account,
                 engine_factory: Callable[[str], Engine], *, max_games: int | None = None,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.server = server
        self.settings = settings
        self.account = account
        self.engine_factory = engine_factory
        self.max_games = max_games
        self.monotonic = monotonic
        self.workers: dict[str, GameWorker] = {}
        self.accepted: dict[str, float] = {}
        self.finished: list[GameRecord] = []
        self._done: queue.Queue[GameRecord] = queue.Queue()
        self._stop_mode: str | None = None
        self._stop_requests = 0
        self._stopping = False
        self._lock = threading.Lock()
        self.heartbeat_path = Path(settings.heartbeat_file) if settings.heartbeat_file else None

    # ---- control ----

    def request_stop(self, mode: str | None = None) -> None:
        """Stop accepting challenges; ``finish`` running games or ``abort`` them (default: the config's).
        A second request always aborts. Safe to call from a signal handler."""
        with self._lock:
            self._stop_requests += 1
            wanted = mode or self.settings.shutdown.on_signal
            if self._stop_requests > 1:
                wanted = "abort"
            self._stop_mode = wanted

    @property
    def games_finished(self) -> int:
        return len(self.finished)

    def heartbeat(self) -> None:
        if self.heartbeat_path is None:
            return
        try:
            self.heartbeat_path.touch()
        except OSError as error:
            log.debug("heartbeat %s: %s", self.heartbeat_path, error)

    # ---- the loop ----

    def run(self) -> int:
        """Play until told to stop. Returns the process exit code."""
        self.heartbeat()
        stream = self.server.open_event_stream(on_line=self.heartbeat)
        exit_code = 0
        try:
            while True:
                self._reap()
                if self._handle_stop(stream):
                    break
                item = stream.get(timeout=0.25) if not stream.closed else None
                if item is None:
                    self._expire_accepted()
                    if stream.closed and not self.workers and self._stop_mode is None:
                        break
                    continue
                if isinstance(item, StreamFailed):
                    log.error("event stream refused: %s", item.reason)
                    exit_code = 2 if item.status == 401 else 1
                    self.request_stop("finish")
                    continue
                self._handle(item)
        finally:
            stream.close()
            for worker in list(self.workers.values()):
                worker.thread.join(timeout=5)
            self._reap()
        log.info("stopped after %d finished game%s", self.games_finished,
                 "" if self.games_finished == 1 else "s")
        return exit_code

    def _handle_stop(self, stream: object) -> bool:
        """Apply a stop request / the game limit. Returns True when the loop should end."""
        if self.max_games is not None and self.games_finished >= self.max_games and self._stop_mode is None:
            log.info("played %d game%s as asked; stopping", self.games_finished,
                     "" if self.games_finished == 1 else "s")
            self.request_stop("finish")
        mode = self._stop_mode
        if mode is None:
            return False
        if not self._stopping:
            self._stopping = True
            log.info("stopping: no new challenges; %s %d running game%s", "finishing" if mode == "finish"
                     else "aborting", len(self.workers), "" if len(self.workers) == 1 else "s")
        if mode == "abort":
            for worker in self.workers.values():
                worker.request_stop("abort")
        return not self.workers

    def _handle(self, item: object) -> None:
        if isinstance(item, ChallengeEvent):
            self._on_challenge(item.challenge)
        elif isinstance(item, GameStart):
            self._on_game_start(item)
        elif isinstance(item, GameFinish):
            worker = self.workers.get(item.game_id)
            if worker is not None:
                worker.server_finished()
        elif isinstance(item, ChallengeGone):
            self.accepted.pop(item.challenge_id, None)
        elif isinstance(item, ServerTerminated):
            log.warning("the server announced a shutdown; will reconnect")
        elif isinstance(item, StreamLost):
            log.info("event stream lost (%s); reconnecting", item.reason)
        elif isinstance(item, StreamConnected):
            log.debug("event stream connected")
        elif isinstance(item, UnknownEvent):
            log.debug("ignored an event of type %r", item.type)

    def _on_challenge(self, challenge: Challenge) -> None:
        self._expire_accepted()
        state = LobbyState(active_games=len(self.workers) + len(self.accepted),
                           shutting_down=self._stop_mode is not None)
        decision = decide_challenge(challenge, self.settings.challenge, state)
        who = challenge.challenger.name + (f" ({challenge.challenger.rating})" if challenge.challenger.rating
                                           else "")
        summary = (f"{describe_time_control(challenge)} {challenge.variant.config_name} "
                   f"{'rated' if challenge.rated else 'casual'} from {who}")
        try:
            if isinstance(decision, Accept):
                self.accepted[challenge.id] = self.monotonic()
                self.server.accept_challenge(challenge.id)
                log.info("challenge %s: accepted %s", challenge.id, summary)
            else:
                self.server.decline_challenge(challenge.id, decision.reason)
                log.info("challenge %s: declined %s (%s: %s)", challenge.id, summary, decision.reason,
                         decision.detail)
        except TokenRejected:
            raise
        except ServerError as error:
            self.accepted.pop(challenge.id, None)
            log.warning("challenge %s: could not answer (%s)", challenge.id, error)

    def _on_game_start(self, start: GameStart) -> None:
        self.accepted.pop(start.game_id, None)
        if start.game_id in self.workers:
            return  # a reconnect re-sends gameStart for running games
        label = f"game {start.game_id}"
        worker = GameWorker(start.game_id, self.server, self.settings, self.account,
                            self.engine_factory(label), on_done=self._done.put, monotonic=self.monotonic)
        self.workers[start.game_id] = worker
        if self._stop_mode == "abort":
            worker.request_stop("abort")
        worker.start()

    def _reap(self) -> None:
        while True:
            try:
                record = self._done.get_nowait()
            except queue.Empty:
                return
            worker = self.workers.pop(record.game_id, None)
            if worker is not None:
                worker.thread.join(timeout=5)
            self.finished.append(record)

    def _expire_accepted(self) -> None:
        now = self.monotonic()
        for challenge_id, accepted_at in list(self.accepted.items()):
            if now - accepted_at > ACCEPTED_SLOT_S:
                del self.accepted[challenge_id]
