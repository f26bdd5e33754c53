"""The event loop: one event stream; challenges -> accept/decline; one game worker per started game;
matchmaking when idle; periodic visits to parked correspondence games."""

from __future__ import annotations

import logging
import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

from bot.config import PRODUCTION_TIMING, Settings, Timing
from bot.game import Engine, GameNote, GameRecord, GameWorker
from bot.game.leaving import stop_plan
from bot.lobby.answering import ChallengeAnswerer
from bot.lobby.challenges import (
    LobbyState,
)
from bot.lobby.enginehealth import EngineHealth
from bot.lobby.matchmaking import Matchmaker
from bot.lobby.reconcile import Reconciler, RestartNotice, unconfirmed_note
from bot.lobby.roster import KnownOpponent, Roster
from bot.lobby.state import BotMemory, StateFile, state_path
from bot.lobby.tournaments import Tournaments, slots_kept
from bot.wire.events import (
    Account,
    ChallengeEvent,
    ChallengeGone,
    GameFinish,
    GameStart,
    ServerTerminated,
    UnknownEvent,
)
from bot.wire.server import Server
from bot.wire.streams import StreamConnected, StreamFailed, StreamLost

log = logging.getLogger(__name__)


class HeartbeatFile:
    """``--heartbeat-file``: touched on every event-stream line, its text ``ok`` or ``unhealthy: ...`` (read by
    ``python -m bot.health``); rewritten only when the text changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._written: str | None = None

    def beat(self, text: str) -> None:
        try:
            if text != self._written:
                self.path.write_text(text + "\n", encoding="utf-8")
                self._written = text
            else:
                self.path.touch()
        except OSError as error:
            log.debug("heartbeat %s: %s", self.path, error)


class Lobby:
    """Runs until stopped (signal, ``--games N``) or the server refuses us for good. ``timing``: the waits of
    the engine probe, the reconciler and the game workers (:class:`~bot.config.Timing`)."""

    def __init__(self, server: Server, settings: Settings, account: Account,
                 engine_factory: Callable[[str], Engine], *, max_games: int | None = None,
                 monotonic: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], float] = time.time, timing: Timing = PRODUCTION_TIMING) -> None:
        self.server = server
        self.settings = settings
        self.timing = timing
        self.account = account
        self.engine_factory = engine_factory
        self.max_games = max_games
        self.monotonic = monotonic
        self.games = Roster(settings, monotonic)
        self.workers = self.games.workers
        #: games that ended (or were given up) in this run: id -> when (monotonic); never restarted, unless
        #: accepted again after that (a server restarted with the same ids)
        self.ended: dict[str, float] = {}
        #: this run's name in the state file's game notes (which run accepted and played which game)
        self.run_id = secrets.token_hex(4)
        self.played_here: set[str] = set()  # games this run started playing (not ones over before)
        self.matchmaker = Matchmaker(server, settings, account, monotonic=monotonic)
        self.finished: list[GameRecord] = []
        self._done: queue.Queue[GameRecord] = queue.Queue()
        self._stop_mode: str | None = None
        self._stop_requests = 0
        self._stopping: str | None = None  # the stop mode the shutdown line was written for
        self._lock = threading.Lock()
        self.heartbeat_file = HeartbeatFile(Path(settings.heartbeat_file)) if settings.heartbeat_file else None
        #: the event stream, for the status page: connected or not, since when (wall clock), the last line
        #: (monotonic) and why it was lost
        self.connected = False
        self.connection_changed_at = wall_clock()
        self.last_line_at: float | None = None
        self.connection_note = "not connected yet"
        self.wall_clock = wall_clock
        self.engine_health = EngineHealth(engine_factory, on_change=self.heartbeat, monotonic=monotonic,
                                          probe_s=timing.engine_probe_s)
        self.answers = ChallengeAnswerer(server, settings, account, self.games, self.engine_health,
                                         lobby_state=self._lobby_state, stopping=lambda: self._stop_mode is not None,
                                         monotonic=monotonic)
        self.state_file = StateFile(state_path(settings.pgn_directory), monotonic, wall_clock)
        memory = self.state_file.load(settings.matchmaking.decline_cooldown_s)
        self.games.accepted_from_bots = list(memory.accepted_from_bots)
        #: what we did to each game (resigned, aborted, the result we wrote): written by the game workers
        self.game_notes: dict[str, GameNote] = {note.game_id: note for note in memory.games}
        self._memory_lock = threading.Lock()
        self.matchmaker.restore(memory.matchmaking_sent, memory.matchmaking_declines)
        #: the games we ended lately, looked up on the server at start-up and after its restarts (issue 26)
        # busy: a worker has the game, or we have just accepted a game under its id (its old note is dropped
        # at the gameStart): the reconciler must not resign that new game for the old one
        self.reconciler = Reconciler(server, settings, notes=self._game_notes,
                                     busy=lambda game_id: game_id in self.workers or game_id in self.games.accepted,
                                     remember=self.remember_game, monotonic=monotonic,
                                     ended_again=partial(count_resent, self.finished), timing=timing)
        self.restart_notice = RestartNotice()
        self.tournaments = Tournaments(server, settings.tournaments, monotonic=monotonic)

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
        # a 429 pause or a back-off on accept, decline or the event stream must not hold the stop up
        self.server.stop_waiting()

    @property
    def games_finished(self) -> int:
        return len(self.finished)

    def challenges_waiting(self) -> int:
        """Queued challenges, accepted ones whose game has not started, and our own challenge in flight
        (``!queue``)."""
        return len(self.answers.queued) + len(self.games.accepted) + self.matchmaker.waiting

    def heartbeat(self) -> None:
        """Every event-stream line (and a change of the engine's health): the heartbeat file, whose text is
        ``ok`` or ``unhealthy: ...`` while no engine works. Called from the stream's reader thread too."""
        self.last_line_at = self.monotonic()
        if self.heartbeat_file is not None:
            self.heartbeat_file.beat(self.engine_health.health_text())

    def save_memory_if_changed(self) -> None:
        """Write the state file when what the bot remembers has changed (see :mod:`bot.lobby.state`)."""
        with self._memory_lock:
            self.state_file.save_if_changed(BotMemory(tuple(self.games.accepted_from_bots),
                                                      tuple(self.matchmaker.sent_at), tuple(self.matchmaker.notes),
                                                      tuple(self.game_notes.values())))

    def remember_game(self, note: GameNote) -> None:
        """A game worker resigned, aborted or ended its game: on disk at once (the bot may be killed next).
        The note names the run that played the game: this one, or the earlier one whose note it updates."""
        with self._memory_lock:
            if not note.run:
                earlier = self.game_notes.get(note.game_id)
                played_by = self.run_id if note.game_id in self.played_here else (earlier.run if earlier else "")
                note = replace(note, run=played_by)
            self.game_notes[note.game_id] = note
        self.save_memory_if_changed()

    def _forget_older_game(self, game_id: str, accepted_at: float) -> None:
        """We accepted a game under ``game_id`` at ``accepted_at``: what the state file (or this run) noted about
        a game under that id before then is about another game (a server restarted with the same ids); it
        must not silence this one. Dropped, with one line."""
        with self._memory_lock:
            note = self.game_notes.get(game_id)
            stale = note if note is not None and note.at <= accepted_at else None
            if stale is not None:
                del self.game_notes[game_id]
        ended_at = self.ended.get(game_id)
        if ended_at is not None and ended_at <= accepted_at:
            del self.ended[game_id]
        if stale is None:
            return
        when = "this run" if stale.run == self.run_id else "an earlier run"
        log.info("game %s: a new game under an id %s played (we %s, %s); the old note is dropped and this game "
                 "is played", game_id, when, stale.action, stale.result)
        self.save_memory_if_changed()

    def _game_notes(self) -> list[GameNote]:
        with self._memory_lock:
            return list(self.game_notes.values())

    def _lobby_state(self) -> LobbyState:
        state = self.games.state(self.matchmaker, stopping=self._stop_mode is not None,
                                 pychess=self.players_by_name)
        pairings = sum(1 for game_id in self.tournaments.games if game_id in self.workers)
        return replace(state, tournament_slots=slots_kept(self.tournaments.running(), pairings))

    @property
    def players_by_name(self) -> bool:
        """The server names players by name only (pychess): opponents are matched by name."""
        return self.server.dialect is not None and self.server.dialect.players_by_name

    # ---- the loop ----

    def run(self) -> int:
        """Play until told to stop. Returns the process exit code."""
        self.heartbeat()
        stream = self.server.open_event_stream(on_line=self.heartbeat)
        exit_code = 0
        self.reconciler.schedule_all("start-up")
        self.reconciler.start()
        try:
            while True:
                self._reap()
                self.answers.serve_queue()  # a slot may have come free, or the bot is stopping
                if self._handle_stop(stream):
                    break
                self._visit_parked()
                self.engine_health.probe_if_due()
                self.matchmaker.tick(busy=self._matchmaking_busy(), stopping=self._stop_mode is not None)
                self.tournaments.tick(stopping=self._stop_mode is not None)
                self.save_memory_if_changed()
                item = stream.get(timeout=0.25) if not stream.closed else None
                if item is None:
                    self.games.expire_accepted()
                    if stream.closed and not self.workers and self._stop_mode is None:
                        break
                    continue
                if isinstance(item, StreamFailed):
                    log.error("event stream refused: %s", item.reason)
                    self._connection(False, item.reason)
                    exit_code = 2 if self.server.refuses_token(item.status) else 1
                    self.request_stop("finish")
                    continue
                self._handle(item)
        finally:
            self.tournaments.withdraw_all()
            self.reconciler.stop()
            self.answers.decline_queued()
            self.matchmaker.cancel_pending()
            self.save_memory_if_changed()
            stream.close()
            for worker in list(self.workers.values()):
                worker.thread.join(timeout=5)
            self._reap()
            self.save_memory_if_changed()
        log.info("stopped after %d finished game%s", self.games_finished,
                 "" if self.games_finished == 1 else "s")
        return exit_code

    def _matchmaking_busy(self) -> bool:
        """Whether matchmaking must wait: no engine works, every slot is reserved for humans, or a game runs
        (with ``matchmaking.allow_during_games``: only when no slot is free for a game against a bot)."""
        if self.games.bot_slots() <= 0 or self.engine_health.problem is not None:
            return True
        if not self.settings.matchmaking.allow_during_games:
            return bool(self.games.realtime_workers() or self.games.accepted or self.tournaments.running())
        state = self._lobby_state()
        return (state.active_games + state.tournament_slots >= self.settings.challenge.concurrency
                or state.bot_games >= self.games.bot_slots())

    def _handle_stop(self, stream: object) -> bool:
        """Apply a stop request / the game limit. Returns True when the loop should end."""
        if self.max_games is not None and self.games_finished >= self.max_games and self._stop_mode is None:
            log.info("played %d game%s as asked; stopping", self.games_finished,
                     "" if self.games_finished == 1 else "s")
            self.request_stop("finish")
        mode = self._stop_mode
        if mode is None:
            return False
        if self._stopping != mode:  # the first request, and a second one that turns finish into abort
            self._stopping = mode
            log.info("stopping: no new challenges; %s", stop_plans(mode, list(self.workers.items())))
            self.tournaments.withdraw_all()  # no new pairings either
        for worker in self.workers.values():
            worker.request_stop(mode)
        return not self.workers

    def _handle(self, item: object) -> None:
        if isinstance(item, ChallengeEvent):
            self.answers.on_challenge(item.challenge)
        elif isinstance(item, GameStart):
            self._on_game_start(item)
        elif isinstance(item, GameFinish):
            worker = self.workers.get(item.game_id)
            if worker is not None:
                worker.server_finished()
            elif self.games.parked.pop(item.game_id, None) is not None:
                self._start_worker(item.game_id, revisit=True)  # to read the result and write the PGN
        elif isinstance(item, ChallengeGone):
            self.answers.withdrawn(item.challenge_id)
            self.games.drop_challenge(item.challenge_id)
            self.matchmaker.on_challenge_gone(item)
        elif isinstance(item, ServerTerminated):
            log.warning("the server announced a shutdown; will reconnect")
            self.restart_notice.terminated()
        elif isinstance(item, StreamLost):
            log.debug("event stream lost (%s)", item.reason)  # the stream's reader logs the outage
            self._connection(False, item.reason)
            self.restart_notice.lost()
        elif isinstance(item, StreamConnected):
            log.debug("event stream connected")
            self._connection(True, "")
            if self.restart_notice.connected():
                # pychess may have restored games we resigned as live, and not tell us (Black against a BOT)
                self.reconciler.schedule_all("the server is back")
        elif isinstance(item, UnknownEvent):
            log.debug("ignored an event of type %r", item.type)

    def _connection(self, connected: bool, note: str) -> None:
        if connected != self.connected:
            self.connected, self.connection_changed_at = connected, self.wall_clock()
        self.connection_note = note

    def _on_game_start(self, start: GameStart) -> None:
        games = self.games
        self.tournaments.on_game_start(start.game_id, start.tournament_id)
        games.accepted.pop(start.game_id, None)
        pending = self.matchmaker.pending
        if pending is not None and self.matchmaker.owns(start.game_id):
            games.opponents[start.game_id] = KnownOpponent(pending.offer.opponent.lower(), True)  # we challenged a bot
        elif start.opponent and start.game_id not in games.opponents:
            games.opponents[start.game_id] = KnownOpponent(start.opponent.lower())
        if pending is not None and self.matchmaker.owns(start.game_id):
            games.accepted_at.setdefault(start.game_id, self.monotonic())  # our own challenge, accepted
        self.matchmaker.on_game_start(start.game_id)
        if start.game_id in self.workers:
            return  # a reconnect re-sends gameStart for running games
        accepted_at = games.accepted_at.get(start.game_id)
        if accepted_at is not None:
            self._forget_older_game(start.game_id, accepted_at)
        note = self.game_notes.get(start.game_id)
        if note is not None:
            # pychess restores a game whose BOT resignation it did not store as live, and offers it again:
            # over for us; a worker that plays nothing resigns (aborts) again and keeps our PGN
            log.info("game %s: gameStart for a game our record says is over (we %s, %s); resigning or aborting "
                     "again if the server still has it running, playing nothing", start.game_id, note.action,
                     note.result)
            if start.chess960:
                games.chess960_games.add(start.game_id)
            self._start_worker(start.game_id, revisit=False, remembered=note)
            return
        if start.game_id in self.ended:
            # pychess re-sends gameStart for games it still stores as running (a BOT's resignation that
            # never reached the store, a game we gave up on after a restart): they are over for us
            log.debug("game %s: gameStart for a game that already ended here; ignored", start.game_id)
            return
        # a restart or reconnect re-sends gameStart for unfinished games: parked ones get a visit now
        revisit = games.parked.pop(start.game_id, None) is not None
        if start.chess960:
            games.chess960_games.add(start.game_id)
        self._start_worker(start.game_id, revisit=revisit)

    def _start_worker(self, game_id: str, *, revisit: bool, remembered: GameNote | None = None) -> None:
        label = f"game {game_id}"
        if remembered is None:
            self.played_here.add(game_id)
        worker = GameWorker(game_id, self.server, self.settings, self.account, self.engine_factory(label),
                            on_done=self._done.put, monotonic=self.monotonic,
                            challenges_waiting=self.challenges_waiting, revisit=revisit,
                            chess960=game_id in self.games.chess960_games, remembered=remembered,
                            opponent=known.player if (known := self.games.opponents.get(game_id)) else None,
                            on_note=self.remember_game,
                            on_engine_lost=lambda reason: self.engine_health.lost(game_id, reason),
                            timing=self.timing)
        self.workers[game_id] = worker
        if self._stop_mode == "abort":
            worker.request_stop("abort")
        worker.start()

    def _visit_parked(self) -> None:
        """Open parked correspondence games whose check is due (never while stopping)."""
        parked = self.games.parked
        if self._stop_mode is not None or not parked:
            return
        now = self.monotonic()
        for game_id, due in list(parked.items()):
            if now >= due and game_id not in self.workers:
                del parked[game_id]
                log.debug("game %s: correspondence check", game_id)
                self._start_worker(game_id, revisit=True)

    def _reap(self) -> None:
        while True:
            try:
                record = self._done.get_nowait()
            except queue.Empty:
                return
            games = self.games
            if record.parked and games.opponent(record.game_id, pychess=self.players_by_name) is None \
                    and record.opponent != "?":
                games.opponents[record.game_id] = KnownOpponent(record.opponent.lower())
            worker = self.workers.pop(record.game_id, None)
            if worker is not None:
                worker.thread.join(timeout=5)
            if record.parked:
                games.parked[record.game_id] = self.monotonic() + self.settings.correspondence.check_interval_s
            else:
                games.correspondence_ids.discard(record.game_id)
                games.chess960_games.discard(record.game_id)
                games.forget(record.game_id)
                if record.remembered:  # over before: counted only if our resignation (abort) sent again ended it
                    count_ended_again(self.finished, record)
                    continue
                self.finished.append(record)
                unconfirmed = unconfirmed_note(record, self.game_notes.get(record.game_id), self.monotonic())
                if unconfirmed is not None:  # our PGN says "*": the server's record is read when it has one
                    self.remember_game(unconfirmed)
                    self.reconciler.watch(record.game_id, self.timing.live_recheck_s)
                if record.gave_up or record.result != "*" or record.termination not in ("", "Unknown"):
                    self.ended[record.game_id] = self.monotonic()
                # its notes are written (they name this run); a later gameStart is one of this game again
                games.accepted_at.pop(record.game_id, None)
                self.played_here.discard(record.game_id)


def stop_plans(mode: str, workers: list[tuple[str, GameWorker]]) -> str:
    """The shutdown line's account of each running game: finished, aborted, or resigned because it is too late
    to abort (read from the lobby's thread: a ply may still come before a worker acts, and it logs what it
    does)."""
    if not workers:
        return "no running game"
    plans = []
    for game_id, worker in workers:
        game = worker.game
        plans.append(f"game {game_id} " + stop_plan(mode, ply=game.position.ply if game.position is not None else 0,
                                                    correspondence=game.correspondence,
                                                    over_for_us=worker.remembered is not None))
    return f"{len(workers)} running game{'' if len(workers) == 1 else 's'}: {', '.join(plans)}"


def count_resent(finished: list[GameRecord], note: GameNote) -> None:
    """The reconciler's resignation (abort) sent again, without a worker, ended the game of ``note``."""
    count_ended_again(finished, GameRecord(note.game_id, note.result, f"{note.action} again",
                                           termination=note.termination, remembered=True, ended_again=True))


def count_ended_again(finished: list[GameRecord], record: GameRecord) -> None:
    """A game over for us since an earlier run that our resignation (abort) sent again ended now is a game
    finished in this run: counted once, however often the server brought it back. Called from the lobby's
    thread and the reconciler's (which never resigns a game a worker has), so one game never comes twice at
    once; ``list.append`` is atomic."""
    if record.ended_again and all(done.game_id != record.game_id for done in finished):
        finished.append(record)
