"""The event loop: one event stream; challenges -> accept/decline; one game worker per started game;
matchmaking when idle; periodic visits to parked correspondence games."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from bot.challenges import (
    DAY_S,
    Accept,
    AcceptedBotChallenge,
    Decision,
    Decline,
    LobbyState,
    decide_challenge,
    decline_message,
    describe_time_control,
    our_rating,
)
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
from bot.matchmaking import Matchmaker
from bot.server import Server, ServerError, StreamConnected, StreamFailed, StreamLost, TokenRejected
from bot.state import BotMemory, StateFile, state_path

log = logging.getLogger(__name__)

#: An accepted challenge holds a concurrency slot until its gameStart arrives, or this many seconds.
ACCEPTED_SLOT_S = 30.0
#: After a game lost its engine for good, how often the lobby tries to start an engine again.
ENGINE_PROBE_S = 30.0


@dataclass(frozen=True)
class KnownOpponent:
    """Who a game is against: name in lower case; ``is_bot`` None until the server has told us."""

    name: str
    is_bot: bool | None = None


class Lobby:
    """Runs until stopped (signal, ``--games N``) or the server refuses us for good."""

    def __init__(self, server: Server, settings: Settings, account: Account,
                 engine_factory: Callable[[str], Engine], *, max_games: int | None = None,
                 monotonic: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], float] = time.time) -> None:
        self.server = server
        self.settings = settings
        self.account = account
        self.engine_factory = engine_factory
        self.max_games = max_games
        self.monotonic = monotonic
        self.workers: dict[str, GameWorker] = {}
        self.ended: set[str] = set()  # games that ended (or were given up) in this run: never restarted
        self.accepted: dict[str, float] = {}
        #: challenges waiting for a free slot (``challenge.queue_size``), oldest first: id -> (challenge, when)
        self.queued: dict[str, tuple[Challenge, float]] = {}
        #: ids of accepted challenges and running games known to have days per move
        self.correspondence_ids: set[str] = set()
        #: correspondence games waiting for the opponent: game id -> when to look again (monotonic)
        self.parked: dict[str, float] = {}
        #: games whose gameStart said chess960 (pychess's gameFull does not say it)
        self.chess960_games: set[str] = set()
        self.matchmaker = Matchmaker(server, settings, account, monotonic=monotonic)
        self.finished: list[GameRecord] = []
        self._done: queue.Queue[GameRecord] = queue.Queue()
        self._stop_mode: str | None = None
        self._stop_requests = 0
        self._stopping = False
        self._lock = threading.Lock()
        self.heartbeat_path = Path(settings.heartbeat_file) if settings.heartbeat_file else None
        #: the opponent of each game running, parked or about to start (by game / challenge id)
        self.opponents: dict[str, KnownOpponent] = {}
        #: challenges from bots accepted in the last 24 hours (max_challenges_per_bot_per_hour / _per_day)
        self.accepted_from_bots: list[AcceptedBotChallenge] = []
        self._rating_diff_note_logged = False
        #: why no engine works (a game's engine failed for good), until a probe starts one again
        self.engine_problem: str | None = None
        self._next_probe_at = 0.0
        self._probe: threading.Thread | None = None
        self._health_written: str | None = None
        self.state_file = StateFile(state_path(settings.pgn_directory), monotonic, wall_clock)
        memory = self.state_file.load(settings.matchmaking.decline_cooldown_s)
        self.accepted_from_bots = list(memory.accepted_from_bots)
        self.matchmaker.restore(memory.matchmaking_sent, memory.matchmaking_declines)

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

    def challenges_waiting(self) -> int:
        """Queued challenges, accepted ones whose game has not started, and our own challenge in flight
        (``!queue``)."""
        return len(self.queued) + len(self.accepted) + self.matchmaker.waiting

    def _is_correspondence(self, game_id: str, worker: GameWorker) -> bool:
        return game_id in self.correspondence_ids or worker.game.correspondence

    def _realtime_workers(self) -> int:
        return sum(1 for game_id, worker in list(self.workers.items())
                   if not self._is_correspondence(game_id, worker))

    def _correspondence_games(self) -> int:
        visiting = {game_id for game_id, worker in list(self.workers.items())
                    if self._is_correspondence(game_id, worker)}
        return len(visiting | set(self.parked) | self.correspondence_ids)

    def health_text(self) -> str:
        """What the heartbeat file says: ``ok``, or ``unhealthy: ...`` while no engine works."""
        problem = self.engine_problem
        if problem is None:
            return "ok"
        return f"unhealthy: the engine failed for good ({problem}); no challenges are accepted"

    def heartbeat(self) -> None:
        """Touch the heartbeat file (every event-stream line); its text is :meth:`health_text`, read by
        ``python -m bot.health``. Called from the stream's reader thread too."""
        if self.heartbeat_path is None:
            return
        text = self.health_text()
        try:
            if text != self._health_written:
                self.heartbeat_path.write_text(text + "\n", encoding="utf-8")
                self._health_written = text
            else:
                self.heartbeat_path.touch()
        except OSError as error:
            log.debug("heartbeat %s: %s", self.heartbeat_path, error)

    # ---- the engine's health ----

    def engine_lost(self, game_id: str, reason: str) -> None:
        """A game's engine failed for good (called from its worker thread): decline challenges and fail the
        health check until an engine starts again (:meth:`_probe_engine`)."""
        with self._lock:
            first = self.engine_problem is None
            self.engine_problem = f"game {game_id}: {reason}"
            self._next_probe_at = self.monotonic() + ENGINE_PROBE_S
        if first:
            log.error("the engine failed for good (game %s: %s); declining challenges until an engine starts "
                      "again (tried every %g s)", game_id, reason, ENGINE_PROBE_S)
        self.heartbeat()

    def _probe_engine(self) -> None:
        """While no engine works, try to start one every ENGINE_PROBE_S, in a thread of its own."""
        with self._lock:
            due = (self.engine_problem is not None and self.monotonic() >= self._next_probe_at
                   and (self._probe is None or not self._probe.is_alive()))
            if not due:
                return
            self._probe = threading.Thread(target=self._try_engine, name="engine-probe", daemon=True)
        self._probe.start()

    def _try_engine(self) -> None:
        engine: Engine | None = None
        try:
            engine = self.engine_factory("engine probe")
            engine.new_game()
            problem = None
        except Exception as error:  # noqa: BLE001 - whatever the engine does, the lobby goes on
            problem = str(error) or type(error).__name__
        finally:
            if engine is not None:
                try:
                    engine.close()
                except Exception:  # noqa: BLE001
                    log.debug("engine probe: close failed", exc_info=True)
        with self._lock:
            if problem is None:
                self.engine_problem = None
            else:
                self._next_probe_at = self.monotonic() + ENGINE_PROBE_S
        if problem is None:
            log.info("the engine starts again; accepting challenges")
        else:
            log.warning("the engine still does not start (%s); trying again in %g s", problem, ENGINE_PROBE_S)
        self.heartbeat()

    def save_memory_if_changed(self) -> None:
        """Write the state file when what the limits remember has changed (see :mod:`bot.state`)."""
        self.state_file.save_if_changed(BotMemory(tuple(self.accepted_from_bots), tuple(self.matchmaker.sent_at),
                                                  tuple(self.matchmaker.notes)))

    # ---- who we play ----

    def _opponent(self, game_id: str) -> KnownOpponent | None:
        """The opponent of a game: from its challenge or gameStart, else from its worker's gameFull."""
        known = self.opponents.get(game_id)
        if known is not None and known.is_bot is not None:
            return known
        worker = self.workers.get(game_id)
        full = worker.game.full if worker is not None else None
        if worker is not None and full is not None and worker.game.we_are_white is not None:
            player = full.black if worker.game.we_are_white else full.white
            # pychess's gameFull has names only: no title does not prove a human
            is_bot = True if player.is_bot else (None if self.server.dialect == "pychess" else False)
            known = KnownOpponent(player.name.lower(), is_bot)
            self.opponents[game_id] = known
        return known

    def _game_ids(self) -> set[str]:
        return set(self.workers) | set(self.parked) | set(self.accepted)

    def _forget_game(self, game_id: str) -> None:
        if game_id not in self._game_ids():
            self.opponents.pop(game_id, None)

    def _bot_slots(self) -> int:
        return self.settings.challenge.concurrency - self.settings.challenge.reserve_for_humans

    def _lobby_state(self) -> LobbyState:
        realtime_accepted = set(self.accepted) - self.correspondence_ids
        realtime_ids = realtime_accepted | {game_id for game_id, worker in list(self.workers.items())
                                            if not self._is_correspondence(game_id, worker)}
        opponents = {game_id: self._opponent(game_id) for game_id in self._game_ids()}
        bot_games = sum(1 for game_id in realtime_ids
                        if (opponent := opponents.get(game_id)) is not None and opponent.is_bot)
        names = [opponent.name for opponent in opponents.values() if opponent is not None]
        pending = self.matchmaker.pending
        if pending is not None:
            names.append(pending.offer.opponent.lower())
        now = self.monotonic()
        self.accepted_from_bots = [item for item in self.accepted_from_bots if now - item.at < DAY_S]
        return LobbyState(active_games=self._realtime_workers() + len(realtime_accepted) + self.matchmaker.waiting,
                          shutting_down=self._stop_mode is not None,
                          correspondence_games=self._correspondence_games(),
                          bot_games=bot_games + self.matchmaker.waiting, opponents=tuple(names),
                          accepted_from_bots=tuple(self.accepted_from_bots), now=now)

    # ---- the loop ----

    def run(self) -> int:
        """Play until told to stop. Returns the process exit code."""
        self.heartbeat()
        stream = self.server.open_event_stream(on_line=self.heartbeat)
        exit_code = 0
        try:
            while True:
                self._reap()
                self._serve_queue()  # a slot may have come free, or the bot is stopping
                if self._handle_stop(stream):
                    break
                self._visit_parked()
                self._probe_engine()
                self.matchmaker.tick(busy=bool(self._realtime_workers() or self.accepted)
                                     or self._bot_slots() <= 0  # every slot is reserved for humans
                                     or self.engine_problem is not None,
                                     stopping=self._stop_mode is not None)
                self.save_memory_if_changed()
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
            for challenge, _queued_at in list(self.queued.values()):
                self._answer(challenge, Decline("later", "the bot is stopping"))
            self.queued.clear()
            self.matchmaker.cancel_pending()
            self.save_memory_if_changed()
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
        for worker in self.workers.values():
            worker.request_stop(mode)
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
            elif self.parked.pop(item.game_id, None) is not None:
                self._start_worker(item.game_id, revisit=True)  # to read the result and write the PGN
        elif isinstance(item, ChallengeGone):
            if self.queued.pop(item.challenge_id, None) is not None:
                log.info("challenge %s: withdrawn while queued", item.challenge_id)
            self.accepted.pop(item.challenge_id, None)
            self.correspondence_ids.discard(item.challenge_id)
            self._forget_game(item.challenge_id)
            self.matchmaker.on_challenge_gone(item)
        elif isinstance(item, ServerTerminated):
            log.warning("the server announced a shutdown; will reconnect")
        elif isinstance(item, StreamLost):
            log.info("event stream lost (%s); reconnecting", item.reason)
        elif isinstance(item, StreamConnected):
            log.debug("event stream connected")
        elif isinstance(item, UnknownEvent):
            log.debug("ignored an event of type %r", item.type)

    def _on_challenge(self, challenge: Challenge) -> None:
        if challenge.challenger.is_user(self.account.id, self.account.username):
            log.debug("challenge %s: our own challenge", challenge.id)  # Lichess echoes outgoing ones
            return
        self._expire_accepted()
        decision = self._decide(challenge)
        queue_size = self.settings.challenge.queue_size
        if isinstance(decision, Decline) and decision.busy and len(self.queued) < queue_size:
            self.queued[challenge.id] = (challenge, self.monotonic())
            log.info("challenge %s: queued %s (%s; %d waiting)", challenge.id, self._summary(challenge),
                     decision.detail, len(self.queued))
            return
        self._answer(challenge, decision)

    def _decide(self, challenge: Challenge) -> Decision:
        if self.engine_problem is not None:
            return Decline("later", f"no engine works: {self.engine_problem}")
        rating = our_rating(challenge, self.account.ratings)
        if rating is None and self.settings.challenge.max_rating_diff is not None \
                and not self._rating_diff_note_logged:
            log.info("challenge.max_rating_diff is not applied: the server does not tell our rating")
            self._rating_diff_note_logged = True
        state = replace(self._lobby_state(), our_rating=rating)
        return decide_challenge(challenge, self.settings.challenge, state,
                                max_correspondence_games=self.settings.correspondence.max_games)

    @staticmethod
    def _summary(challenge: Challenge) -> str:
        who = challenge.challenger.name + (f" ({challenge.challenger.rating})" if challenge.challenger.rating
                                           else "")
        return (f"{describe_time_control(challenge)} {challenge.variant.config_name} "
                f"{'rated' if challenge.rated else 'casual'} from {who}")

    def _answer(self, challenge: Challenge, decision: Decision) -> None:
        """Accept or decline (pychess.org: the reason as free text from ``challenge.decline_message``)."""
        summary = self._summary(challenge)
        try:
            if isinstance(decision, Accept):
                self.accepted[challenge.id] = self.monotonic()
                if challenge.time_control.kind != "clock":
                    self.correspondence_ids.add(challenge.id)
                self.opponents[challenge.id] = KnownOpponent(challenge.challenger.name.lower(),
                                                             challenge.challenger.is_bot)
                self.server.accept_challenge(challenge.id)
                if challenge.challenger.is_bot:
                    self.accepted_from_bots.append(AcceptedBotChallenge(self.monotonic(),
                                                                        challenge.challenger.name.lower()))
                log.info("challenge %s: accepted %s", challenge.id, summary)
            else:
                reason = (decline_message(decision, self.settings.challenge) if self.server.dialect == "pychess"
                          else decision.reason)
                self.server.decline_challenge(challenge.id, reason)
                log.info("challenge %s: declined %s (%s: %s)", challenge.id, summary, decision.reason,
                         decision.detail)
        except TokenRejected:
            raise
        except ServerError as error:
            self.accepted.pop(challenge.id, None)
            self.correspondence_ids.discard(challenge.id)
            self._forget_game(challenge.id)
            log.warning("challenge %s: could not answer (%s)", challenge.id, error)

    def _serve_queue(self) -> None:
        """Queued challenges: declined (later) after ``challenge.queue_timeout_s`` or when the bot stops; the
        oldest one is answered as soon as it is no longer only a matter of a busy slot."""
        if not self.queued:
            return
        now = self.monotonic()
        for challenge_id, (challenge, queued_at) in list(self.queued.items()):
            if self._stop_mode is not None or now - queued_at > self.settings.challenge.queue_timeout_s:
                del self.queued[challenge_id]
                why = "the bot is stopping" if self._stop_mode is not None else (
                    f"queued for more than {self.settings.challenge.queue_timeout_s:g} s")
                self._answer(challenge, Decline("later", why))
        if not self.queued:
            return
        challenge_id, (challenge, _queued_at) = next(iter(self.queued.items()))
        decision = self._decide(challenge)
        if isinstance(decision, Decline) and decision.busy:
            return
        del self.queued[challenge_id]
        self._answer(challenge, decision)

    def _on_game_start(self, start: GameStart) -> None:
        self.accepted.pop(start.game_id, None)
        pending = self.matchmaker.pending
        if pending is not None and self.matchmaker.owns(start.game_id):
            self.opponents[start.game_id] = KnownOpponent(pending.offer.opponent.lower(), True)  # we challenged a bot
        elif start.opponent and start.game_id not in self.opponents:
            self.opponents[start.game_id] = KnownOpponent(start.opponent.lower())
        self.matchmaker.on_game_start(start.game_id)
        if start.game_id in self.workers:
            return  # a reconnect re-sends gameStart for running games
        if start.game_id in self.ended:
            # pychess re-sends gameStart for games it still stores as running (a BOT's resignation that
            # never reached the store, a game we gave up on after a restart): they are over for us
            log.debug("game %s: gameStart for a game that already ended here; ignored", start.game_id)
            return
        # a restart or reconnect re-sends gameStart for unfinished games: parked ones get a visit now
        revisit = self.parked.pop(start.game_id, None) is not None
        if start.chess960:
            self.chess960_games.add(start.game_id)
        self._start_worker(start.game_id, revisit=revisit)

    def _start_worker(self, game_id: str, *, revisit: bool) -> None:
        label = f"game {game_id}"
        worker = GameWorker(game_id, self.server, self.settings, self.account, self.engine_factory(label),
                            on_done=self._done.put, monotonic=self.monotonic,
                            challenges_waiting=self.challenges_waiting, revisit=revisit,
                            chess960=game_id in self.chess960_games,
                            on_engine_lost=lambda reason: self.engine_lost(game_id, reason))
        self.workers[game_id] = worker
        if self._stop_mode == "abort":
            worker.request_stop("abort")
        worker.start()

    def _visit_parked(self) -> None:
        """Open parked correspondence games whose check is due (never while stopping)."""
        if self._stop_mode is not None or not self.parked:
            return
        now = self.monotonic()
        for game_id, due in list(self.parked.items()):
            if now >= due and game_id not in self.workers:
                del self.parked[game_id]
                log.debug("game %s: correspondence check", game_id)
                self._start_worker(game_id, revisit=True)

    def _reap(self) -> None:
        while True:
            try:
                record = self._done.get_nowait()
            except queue.Empty:
                return
            if record.parked and self._opponent(record.game_id) is None and record.opponent != "?":
                self.opponents[record.game_id] = KnownOpponent(record.opponent.lower())
            worker = self.workers.pop(record.game_id, None)
            if worker is not None:
                worker.thread.join(timeout=5)
            if record.parked:
                self.parked[record.game_id] = self.monotonic() + self.settings.correspondence.check_interval_s
            else:
                self.correspondence_ids.discard(record.game_id)
                self.chess960_games.discard(record.game_id)
                self._forget_game(record.game_id)
                self.finished.append(record)
                if record.gave_up or record.result != "*" or record.termination not in ("", "Unknown"):
                    self.ended.add(record.game_id)

    def _expire_accepted(self) -> None:
        now = self.monotonic()
        for challenge_id, accepted_at in list(self.accepted.items()):
            if now - accepted_at > ACCEPTED_SLOT_S:
                del self.accepted[challenge_id]
                self.correspondence_ids.discard(challenge_id)
                self._forget_game(challenge_id)
