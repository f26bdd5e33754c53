"""One game in a thread of its own: stream it, rebuild the position, play our moves, end it properly.

The worker owns the loop and the game's life (set-up, states, phases, parking); the parts it delegates to:
:class:`~bot.game.moves.MoveMaker` (engine and our moves), :class:`~bot.game.ponder.Ponderer` (thinking on
the opponent's time), :class:`~bot.game.talk.Talk` (chat, draw and takeback answers),
:class:`~bot.game.watch.ServerWatch` (bounded waits and pychess's game page),
:class:`~bot.game.leaving.Leaving` (aborting, resigning, and a game our state file says is over) and
:class:`~bot.game.ending.Ending` (the result, the PGN and the record once the loop is over).

The worker is the only writer of the game's :class:`~bot.game.context.GameContext` (its phase, state,
position, outcome, scores, notes and clocks) and the only caller of one part on another's behalf: each part
holds the context to read, its own state, and no sibling; it takes values and returns verdicts
(:mod:`bot.game.verdicts`) that :meth:`GameWorker._act` carries out::

    game stream, lobby --> Inbox (replayed states left out) --> GameWorker --writes--> GameContext
                                                                 |      ^                   |
                                                          values |      | verdicts          | reads
                                                                 v      |                   v
                       ServerWatch  Leaving  MoveMaker  Ponderer  Talk  Ending  (no part holds another)

(verdicts: ``End``, ``ServerEnded``, ``KnownOutcome``, ``Resigned``, ``SentAgain``, ``Scored``, ``Moved``,
``PlayFromPage``, ``Remember``, ``Resign``, ``EngineLost``.)

So the worker asks the ``ServerWatch`` whether the server has already ended the game before ``Leaving`` may
abort or resign it, hands the ``MoveMaker`` the book's move or the ``Ponderer``'s hit and starts the ponder
search after our move, takes our unconfirmed move onto the board and has ``Talk`` say goodbye before
``Ending`` writes the record. A game ends (:class:`~bot.game.verdicts.End`) where its reason is known, and
only here does its phase change.

The worker's thread waits on one :class:`~bot.game.inbox.Inbox`: the game stream's reader thread puts its
lines there, the lobby its stop request and ``gameFinish``; the timed checks (abort an unstarted game, park,
stalls, the game page, a claim, a move to retry) run when the soonest of the parts' deadlines comes. The
inbox leaves out the states a reconnected stream replays (:class:`~bot.game.inbox.ReplayFilter`).

Correspondence (and unlimited) games are played in visits: the worker plays when it is our turn, waits
``correspondence.disconnect_after_s`` for a quick reply, then *parks* the game (closes the stream and the
engine) and reports ``GameRecord(parked=True)``; the lobby visits it again every
``correspondence.check_interval_s`` (and at once on ``gameStart``/``gameFinish``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Literal

from bot import metrics
from bot.config import PRODUCTION_TIMING, Settings, Timing
from bot.game.context import GameContext, Phase
from bot.game.ending import Ending
from bot.game.inbox import Deadlines, Inbox, ReplayFilter, ServerFinished, StopRequested, Waiter
from bot.game.leaving import Leaving
from bot.game.moves import MoveMaker
from bot.game.ponder import Ponderer
from bot.game.position import GameBoard, ServerMoveError
from bot.game.protocols import Engine, GameServer, GameStream
from bot.game.record import GameNote, GameRecord, describe_clock, reported_clock
from bot.game.talk import Talk
from bot.game.verdicts import (
    End,
    EngineLost,
    KnownOutcome,
    Moved,
    PlayFromPage,
    Remember,
    Resign,
    Resigned,
    Scored,
    SentAgain,
    ServerEnded,
    Verdict,
)
from bot.game.watch import ServerWatch, withheld_final_move
from bot.wire.errors import GamePageError
from bot.wire.events import (
    Account,
    ChatLine,
    GameEnd,
    GameEvent,
    GameFull,
    GameState,
    OpponentGone,
    Player,
    UnknownEvent,
    Variant,
)
from bot.wire.gamepage import GamePage
from bot.wire.streams import StreamConnected, StreamFailed, StreamLost, StreamNotice

log = logging.getLogger("bot.game")

Item = GameEvent | StreamNotice | StopRequested | ServerFinished


def announce_start(game: GameContext, full: GameFull, *, counted: bool) -> None:
    """The game's first line in the log, and (``counted``: a new game, not a revisit) its start in the metrics."""
    colour = "white" if game.we_are_white else "black"
    log.info("%s: playing %s as %s vs %s (%s)", game.label, full.variant.config_name, colour, game.opponent_name,
             describe_clock(full))
    if counted:
        metrics.GAMES_STARTED.labels(variant=full.variant.config_name).inc()


class GameWorker:
    """Plays one game to its end in a thread of its own."""

    def __init__(self, game_id: str, server: GameServer, settings: Settings, account: Account, engine: Engine,
                 *, on_done: Callable[[GameRecord], None] | None = None,
                 monotonic: Callable[[], float] = time.monotonic,
                 challenges_waiting: Callable[[], int] = lambda: 0, revisit: bool = False,
                 chess960: bool = False, remembered: GameNote | None = None,
                 on_note: Callable[[GameNote], None] | None = None,
                 on_engine_lost: Callable[[str], None] = lambda reason: None, wait: Waiter | None = None,
                 opponent: Player | None = None, timing: Timing = PRODUCTION_TIMING) -> None:
        self.game = GameContext(game_id, server, settings, account, monotonic, opponent_hint=opponent)
        self.game_id = game_id
        self.label = self.game.label
        self.engine = engine
        self.monotonic = monotonic
        self.timing = timing  # the game's bounded waits (bot.config.timing)
        self.on_engine_lost = on_engine_lost
        self.thread = threading.Thread(target=self.run, name=self.label, daemon=True)
        replays = ReplayFilter(lambda: self.game.dialect.replays_on_reconnect, self._known_moves, self.label)
        # ``wait``: how it sleeps (tests: a fake clock)
        self.inbox: Inbox[Item] = Inbox(monotonic, wait, replays)
        self.ponderer = Ponderer(self.game, engine)
        self.watch = ServerWatch(self.game, timing)
        self.leaving = Leaving(self.game, timing, remembered=remembered)
        self.mover = MoveMaker(self.game, engine)
        self.talk = Talk(self.game, lambda: engine.id_name, challenges_waiting)
        self.game.position_changed_at = monotonic()  # for aborting a game the opponent never starts
        self._stream: GameStream | None = None
        self._stop_posted: str | None = None  # the lobby's thread: the stop mode already posted
        self._stop_at: float | None = None  # when the stop request reached the worker
        self._finishing = False  # the bot stops with on_signal: finish: a game without news is not waited for
        self._moved_at = monotonic()  # our last move sent (or tried): progress of ours, as news is the server's
        self._finished_by_server_at: float | None = None
        self.deadlines = Deadlines()  # when the timed checks are due
        # correspondence: a revisit (the lobby's periodic check) parks at once when it is not our turn
        self.revisit = revisit
        self.park_at: float | None = None
        self.park_soon = False  # the bot is stopping: no waiting for a quick reply
        self.chess960_hint = chess960  # from gameStart: pychess's gameFull has no chess960 flag
        # a game an earlier run (or this one) resigned, aborted or saw end: play nothing, resign (abort) again
        self.remembered = remembered
        self.ending = Ending(self.game, engine, revisit=revisit, remembered=remembered, on_done=on_done,
                             on_note=on_note)

    @property
    def opponent_name(self) -> str:
        return self.game.opponent_name

    @property
    def record(self) -> GameRecord | None:
        """What the lobby was told when the worker was done (None before)."""
        return self.ending.record

    # ---- control from the lobby ----

    def start(self) -> None:
        self.thread.start()

    def request_stop(self, mode: str) -> None:
        """The lobby's thread, on every turn of its loop while it stops (posted once per mode): ``abort``:
        abort the game (or resign it), ``finish``: play on; a correspondence game is parked either way."""
        if self._stop_posted == "abort" or self._stop_posted == mode:
            return
        self._stop_posted = mode
        self.inbox.post(StopRequested(mode))

    def server_finished(self) -> None:
        """The lobby's thread: the event stream said gameFinish; end soon even if the game stream stays silent."""
        self.inbox.post(ServerFinished())

    # ---- the loop ----

    def run(self) -> None:
        game = self.game
        try:
            self._stream = game.server.open_game_stream(self.game_id, sink=self.inbox)
            while not game.over:
                item = self.inbox.next(self._next_check_at())
                if item is not None:
                    self._handle(item)
                    self.deadlines.news(self.monotonic())
                elif not game.over:
                    now = self.monotonic()
                    self.deadlines.ran(now)
                    self._on_due(now)
        except Exception:  # noqa: BLE001 - a bug in one game must not take the bot down
            log.exception("%s: unexpected error; leaving the game", self.label)
            game.end_reason = game.end_reason or "internal error"
        finally:
            if self._stream is not None:
                self._stream.close()
            self._finish_safely()

    def _known_moves(self) -> list[str] | None:
        """The server's moves on our board (None before the game is set up), for the inbox's replay rule."""
        return self.game.position.server_moves if self.game.position is not None else None

    def _next_check_at(self) -> float | None:
        """When the timed checks are next due (see :class:`~bot.game.inbox.Deadlines`)."""
        times = [*self.leaving.deadlines(), *self.watch.deadlines()]
        if self._finished_by_server_at is not None:
            times.append(self._finished_by_server_at + self.timing.finish_grace_s)
        if self.park_at is not None and self.game.correspondence:
            times.append(min(self.park_at, self._stop_at) if self._stop_at is not None else self.park_at)
        if self.mover.retry_at is not None:
            times.append(self.mover.retry_at)
        idle_at = self._finish_idle_at()
        if idle_at is not None:
            times.append(idle_at)
        return self.deadlines.next_at(times)

    def _finish_idle_at(self) -> float | None:
        """While the bot stops with ``finish``: when the game will have gone ``shutdown.finish_idle_s`` without
        news from the server (no move, no state), counted from the stop request (or our last move: a long search
        is no stall) at the earliest; then it is left as ``abort`` leaves it. None when the bot is not finishing
        games."""
        if not self._finishing or self._stop_at is None:
            return None
        last = max(self._stop_at, self.watch.last_news_at, self.game.position_changed_at, self._moved_at)
        return last + self.game.settings.shutdown.finish_idle_s

    # ---- the verdicts: the only writes to the game's context ----

    def _act(self, *verdicts: Verdict | None) -> None:
        """Carry out what a part decided, in order."""
        game = self.game
        for verdict in verdicts:
            if isinstance(verdict, End):
                self._end(verdict.reason, verdict.phase)
            elif isinstance(verdict, ServerEnded):
                self._take_record(verdict)
            elif isinstance(verdict, KnownOutcome):
                game.outcome = verdict.outcome
            elif isinstance(verdict, Resigned):
                game.we_resigned = True
            elif isinstance(verdict, SentAgain):
                game.we_resigned, game.ended_again = verdict.resigned, True
            elif isinstance(verdict, Scored):
                game.scores.append(verdict.score)
            elif isinstance(verdict, Moved):
                # our clock as the move leaves it: the echo's state replaces it with the server's figure; a
                # move whose echo never comes (played from the game page, in flight at a stop) keeps it
                game.clocks[verdict.ply] = verdict.clock_ms
                game.move_notes[verdict.ply] = verdict.note
                if verdict.note.result is not None:
                    game.last_result = verdict.note.result
            elif isinstance(verdict, Remember):
                self.ending.note(verdict.action, verdict.outcome)
            elif isinstance(verdict, PlayFromPage):
                self._play_from_page(verdict.page)
            elif isinstance(verdict, Resign):
                self._resign()
            elif isinstance(verdict, EngineLost):
                self._engine_lost(verdict.reason)

    def _end(self, reason: str, phase: Phase = Phase.ENDED) -> None:
        """Leave the loop: the game ended (or was parked, or given up) for ``reason`` ("": the reason given
        stands)."""
        self.game.phase = phase
        if reason:
            self.game.end_reason = reason

    def _take_record(self, record: ServerEnded) -> None:
        """The server's record has the game over: its plies the stream never brought, and its outcome."""
        game = self.game
        position = game.position
        if record.moves is not None and position is not None and tuple(position.server_moves) != record.moves:
            missing = len(record.moves) - position.ply
            try:
                position.update(record.moves)
            except ServerMoveError as error:
                log.warning("%s: the %s's moves do not replay (%s); keeping the stream's", self.label, record.source,
                            error)
            else:
                if missing > 0:
                    log.info("%s: the %s has %d more pl%s (last %s)", self.label, record.source, missing,
                             "y" if missing == 1 else "ies", record.last)
        game.outcome = record.outcome
        log.info("%s: the %s says %s (%s)", self.label, record.source, record.outcome.result, record.outcome.reason)

    def _record_from_server(self, *, page_only: bool = False) -> ServerEnded | Literal[False] | None:
        """The server's record of the game (``page_only``: the game page's, pychess), taken when it has the game
        over; False: the game runs there; None: it cannot be had."""
        record = self.watch.record_from_page() if page_only else self.watch.record_from_server()
        if record:
            self._take_record(record)
        return record

    def _over_on_server(self) -> bool:
        """Before a resignation or an abort: the watch says whether the server has the game over already (it is
        then ended here, and nothing is sent)."""
        verdicts = self.watch.already_over_on_server()
        self._act(*verdicts)
        return bool(verdicts)

    def _take_moves(self, moves: list[str] | None) -> bool:
        """Onto the board: moves the stream never brought (True when they were taken)."""
        position = self.game.position
        if moves is None or position is None:
            return False
        try:
            position.update(moves)
        except ServerMoveError:
            return False
        return True

    def _take_in_flight_move(self, why: str) -> bool:
        """Our last move, sent and answered 200 but not echoed yet, onto the board (the log says ``why``)."""
        moves = self.mover.in_flight_moves()
        if not self._take_moves(moves):
            return False
        assert moves is not None
        log.info("%s: our last move %s %s", self.label, moves[-1], why)
        return True

    # ---- leaving a game: abort, resign ----

    def _leave(self, reason: str, *, resign: bool = True) -> None:
        """Abort the game or (``resign``) resign it, unless the server has it over already."""
        if not self._over_on_server():
            self._act(*self.leaving.abort_or_resign(reason, resign=resign))

    def _resign(self) -> None:
        if not self.game.over and not self._over_on_server():
            self._act(*self.leaving.resign())

    def _engine_lost(self, reason: str) -> None:
        """The engine gave no move on two moves in a row: tell the lobby, and abort (while the game allows it)
        or resign the game rather than play it on stand-in moves."""
        self.on_engine_lost(reason)
        can_abort = self.leaving.engine_lost(reason)
        self.ponderer.stop()
        if can_abort:
            self._leave("the engine cannot play")
            return
        self._resign()
        if self.game.over:
            self._end("resigned: the engine cannot play")

    def _resend_if_due(self, now: float, *, stopping: bool = False) -> None:
        """A game over for us since an earlier run: resign (abort) it again, or look it up
        (:meth:`Leaving.resend_due <bot.game.leaving.Leaving.resend_due>`)."""
        due = self.leaving.resend_due(now, stopping=stopping)
        if due == "look up":
            if self._record_from_server():
                self._end("over on the server")
            return
        if due != "send" or self._over_on_server():
            return
        sent = self.leaving.resend(now)
        if not sent:
            return
        self._act(*sent)
        note = self.remembered
        assert note is not None
        if self._record_from_server() is None:
            log.info("%s: the server has no record of the end for us; keeping our result %s", self.label, note.result)
        self._end(f"over for us since an earlier run ({note.action})")

    def _on_stop(self, mode: str) -> None:
        """The lobby is stopping: a correspondence game is parked as soon as the opponent is to move; on
        ``abort`` a live game is aborted (or resigned) now, and the worker leaves it either way."""
        game = self.game
        self.park_soon, self._stop_at = True, self._stop_at or self.monotonic()
        if game.over:
            return
        if self.remembered is not None:  # over for us: nothing to finish; resign (abort) again if still due
            self._resend_if_due(self.monotonic(), stopping=True)
            if not game.over:
                self._end("left: the bot is stopping (over for us since an earlier run)")
            return
        if mode != "abort":
            self._finishing = not game.correspondence  # correspondence: parked as soon as it is their move
            return
        if game.correspondence:  # days per move: leave it for the next run, never resign it
            self._end("parked", Phase.PARKED)
            return
        # a move sent just before the stop counts (the game page read next corrects it if the game had ended)
        self._take_in_flight_move("was accepted and not yet echoed; it counts")
        self._leave("the bot is shutting down")
        if not game.over:
            self._end("")  # could not abort nor resign: leave it, the server's record says how it ends

    def _handle(self, item: Item) -> None:
        game = self.game
        if isinstance(item, StopRequested):
            self._on_stop(item.mode)
            return
        if isinstance(item, ServerFinished):
            self._finished_by_server_at = self._finished_by_server_at or self.monotonic()
            return
        if isinstance(item, StreamConnected):  # the inbox's replay filter has taken note
            return
        if isinstance(item, (GameFull, GameState)):
            self.watch.news()
        if isinstance(item, GameFull):
            self._on_game_full(item)
        elif isinstance(item, GameState):
            self._on_state(item)
        elif isinstance(item, GameEnd):
            game.end = item
            self._end(item.status or "")
            # pychess's bare gameEnd: the result (and maybe the last move) is only on the game page
            if not item.status and game.dialect.has_game_page and not self._record_from_server(page_only=True):
                moves = withheld_final_move(game, self.mover.sent)
                if self._take_moves(moves):
                    assert moves is not None
                    log.info("%s: the server ended the game without our last move %s; it ended the game",
                             self.label, moves[-1])
        elif isinstance(item, ChatLine):
            self.talk.on_chat(item)
        elif isinstance(item, OpponentGone):
            self.watch.opponent_gone(item.gone, item.claim_win_in_s)
        elif isinstance(item, StreamLost):
            # the stream's reader logs the outage once, as it happens, and again when the stream is back
            log.debug("%s: game stream lost (%s)", self.label, item.reason)
            self.watch.stream_lost(item.reason)
        elif isinstance(item, StreamFailed):
            log.warning("%s: game stream unavailable (%s); leaving the game", self.label, item.reason)
            self._record_from_server()
            self._end(f"stream unavailable ({item.reason})")
        elif isinstance(item, UnknownEvent):
            log.debug("%s: ignored a %r line", self.label, item.type)

    def _on_due(self, now: float) -> None:
        """The timed checks, when one of their deadlines has come."""
        if self.remembered is not None:
            self._resend_if_due(now)
            if self.game.over:
                return
        if self._finished_by_server_at is not None and now - self._finished_by_server_at >= self.timing.finish_grace_s:
            self._end("finished (event stream)")
            return
        idle_at = self._finish_idle_at()
        if idle_at is not None and now >= idle_at:
            log.info("%s: no news from the server for %.0f s while the bot stops; leaving the game as "
                     "on_signal: abort does", self.label, now - (idle_at - self.game.settings.shutdown.finish_idle_s))
            self._finishing = False
            self._on_stop("abort")
            if not self.game.over:
                self._end("left: no news while the bot stopped")
            return
        if self.leaving.abort_unstarted_due(now):
            self._leave("opponent never moved", resign=False)
        self._maybe_park(now)
        if not self.game.over:
            self._act(*self.watch.check(now, self.mover.answered))
        if not self.game.over:
            self.watch.claim_if_due(now)
        if not self.game.over and self.remembered is None and self.mover.retry_due(now):
            log.info("%s: our move could not be sent (%d tries); sending it again", self.label, self.mover.failed_sends)
            self._play()

    # ---- game setup and states ----

    def _on_game_full(self, full: GameFull) -> None:
        game = self.game
        if self.chess960_hint and full.variant.supported and not full.variant.chess960:
            full = replace(full, variant=Variant(full.variant.name, True))
        first = game.full is None
        game.we_are_white = our_side(full, game.account)
        game.full = full = with_opponent_known(full, game.we_are_white, game.opponent_hint)
        if game.we_are_white is None:
            log.error("%s: we (%s) are neither white (%s) nor black (%s); leaving the game", self.label,
                      game.account.username, full.white.name, full.black.name)
            self._end("not our game")
            return
        if first and game.correspondence:
            wait = 0.0 if self.revisit else game.settings.correspondence.disconnect_after_s
            self.park_at = self.monotonic() + wait
        if first or game.position is None:
            try:
                game.position = GameBoard(full.initial_fen, full.variant)
            except ValueError as error:
                log.error("%s: cannot set up the position (%s); aborting", self.label, error)
                self._leave(f"cannot set up the position: {error}")
                return
            if first and self.remembered is None:  # a game over for us is not played: no "playing" line
                announce_start(game, full, counted=not self.revisit)
            game.phase = Phase.PLAYING
        if not game.correspondence and self.remembered is None:  # correspondence: only when it must move
            self.mover.prepare_engine(broken=self.ponderer.engine_failed())
        self._on_state(full.state)
        opening = game.position is not None and game.position.ply < 2
        if opening and not self.revisit and not game.over and self.remembered is None:
            self.talk.greet_once()

    def _on_state(self, state: GameState) -> None:
        game = self.game
        if game.position is None or game.we_are_white is None:
            return
        previous = game.state
        game.state = state
        game.state_received_at = self.monotonic()
        try:
            before = game.position.ply
            game.position.update(state.moves)
        except ServerMoveError as error:
            log.error("%s: %s; aborting", self.label, error)
            self._leave(str(error))
            return
        clock = reported_clock(game, state)
        if clock is not None:
            game.clocks[clock[0]] = clock[1]
        if previous is None or previous.moves != state.moves:
            self.game.position_changed_at = self.monotonic()
            if self.mover.answered is not None and self.mover.answered != state.moves:
                self.mover.answered = None
            if previous is not None and len(state.moves) < before:
                log.info("%s: takeback, back to ply %d", self.label, len(state.moves))
            self.ponderer.check_prediction()
        if state.is_final:
            self.ponderer.stop()
            return  # the GameEnd that follows ends the loop
        if self.remembered is not None:
            return  # over for us: no move, no answer to offers
        self.talk.answer_draw_offer(state)
        if self.talk.answer_takeback_request(state, self.mover.answered):
            self.ponderer.stop()  # the position it assumed is gone
        if self.mover.due(state):
            self._play()

    def _play_from_page(self, page: GamePage) -> None:
        """The game stream is failing and the page shows the game running: take its position and clocks as
        the latest state (and its set-up, when the stream never brought a ``gameFull``), and move if it is our
        turn. The stream, once back, takes over again."""
        news = page_news(self.game, page)
        if isinstance(news, GameFull):
            self._on_game_full(news)
        elif news is not None:
            self._on_state(news)

    def _play(self) -> None:
        if self.game.our_clock_ran_out() and self._record_from_server(page_only=True):
            log.info("%s: our clock ran out and the game page has the game over; no move sent", self.label)
            self._end("over on the server (our clock ran out)")
            return
        ready = self.mover.book_move()
        if ready is not None:
            self.ponderer.stop()
        elif self.ponderer.running:
            ready = self.ponderer.hit()
        decision = self.mover.decide(ready, engine_broken=self.ponderer.engine_failed())
        if decision is None or isinstance(decision, EngineLost):
            self._act(decision)
            return
        if moved_on(self.inbox.waiting(), decision.state):
            log.info("%s: the position changed while thinking; not sending %s", self.label, decision.move.uci())
            return
        verdicts = self.mover.send(decision, ponder_note=self.ponderer.note)
        self._moved_at = self.monotonic()
        moved = any(isinstance(verdict, Moved) for verdict in verdicts)
        self._act(*verdicts)
        if moved:
            self.ponderer.our_move_sent(decision.move, decision.result)
            if self.game.correspondence:
                self.park_at = self.monotonic() + self.game.settings.correspondence.disconnect_after_s

    # ---- leaving a game: park, abort, resign ----

    def _maybe_park(self, now: float) -> None:
        """Correspondence: leave the game when the opponent is to move and the visit has lasted long enough."""
        game = self.game
        due = self.park_at is not None and (now >= self.park_at or self.park_soon)
        if not game.correspondence or not due or game.over or game.position is None or game.our_turn() \
                or self.inbox.waiting():  # lines still to read may be the opponent's reply
            return
        self.ponderer.stop()
        self._end("parked", Phase.PARKED)

    # ---- the end ----

    def _finish_safely(self) -> None:
        """:meth:`_finish`, and whatever goes wrong in it the lobby still gets a record
        (:meth:`Ending.report_failure`)."""
        try:
            self._finish()
        except Exception:  # noqa: BLE001 - a bug in one game's ending must not hold the bot's slot and stop
            log.exception("%s: unexpected error while ending the game; the game is left as it is", self.label)
            self.ending.report_failure()

    def _finish(self) -> None:
        """The loop is over: what the game's record still lacks is settled here (the server's record, our move
        in flight), the goodbye said, and :class:`~bot.game.ending.Ending` writes and reports the rest."""
        game = self.game
        if game.phase is Phase.PARKED:
            self.ending.parked(moved=self.mover.moved_this_visit)
            return
        if self.remembered is not None:
            self.ending.finish_remembered(self.remembered)
            return
        gave_up = game.phase is Phase.GAVE_UP
        if gave_up:
            self._take_in_flight_move("was accepted but never confirmed; it is in the PGN")
        else:
            if self.ending.wants_server_record():
                self._record_from_server()
            if self.ending.server_outcome() is None and not game.dialect.flags_silently:
                # the server's record could not be had, and this server's 200 to a move means it is in the game
                self._take_in_flight_move("was accepted but not echoed; it is in the PGN")
        outcome = self.ending.outcome()
        if self.ending.goodbye_due(outcome, gave_up=gave_up):
            self.talk.say(game.settings.greeting.goodbye)
        self.ending.finish(outcome, gave_up=gave_up, sent=self.mover.sent)


def with_opponent_known(full: GameFull, we_are_white: bool | None, known: Player | None) -> GameFull:
    """The ``gameFull`` with the opponent's rating and title filled in from ``known`` (the challenge) where the
    server left them out (pychess names the players only), for the status page and the PGN."""
    if we_are_white is None or known is None:
        return full
    opponent = full.black if we_are_white else full.white
    if known.name.lower() != opponent.name.lower():
        return full
    filled = replace(opponent, rating=opponent.rating if opponent.rating is not None else known.rating,
                     title=opponent.title or known.title)
    if filled == opponent:
        return full
    return replace(full, black=filled) if we_are_white else replace(full, white=filled)


def our_side(full: GameFull, account: Account) -> bool | None:
    """True when we are White, False when Black, None when the game is not ours."""
    if full.white.is_user(account.id, account.username):
        return True
    if full.black.is_user(account.id, account.username):
        return False
    return None


def moved_on(waiting: list[Item], state: GameState) -> bool:
    """Whether newer lines (a takeback, the game's end) arrived while the engine was thinking on ``state``:
    they wait in the inbox (``waiting``), and are handled after the search. A replayed old state is no such
    line: the inbox shows none (:class:`~bot.game.inbox.ReplayFilter`), so it never costs the search its move
    (seen on pychess: a finished search thrown away for the replayed states at 15 and 16 plies while the bot,
    playing from the game page, was at 17)."""
    for item in waiting:
        if isinstance(item, GameEnd):
            return True
        if isinstance(item, (GameFull, GameState)):
            news = item.state if isinstance(item, GameFull) else item
            if news.moves != state.moves:
                return True
    return False


def page_news(game: GameContext, page: GamePage) -> GameFull | GameState | None:
    """What a running game's page tells a worker whose stream is failing: the game's set-up (when the stream
    never brought a ``gameFull``), else its latest state, replayed on the board; None when it cannot be used."""
    try:
        if game.full is None:
            full = page.game_full()
            log.info("%s: no game stream; setting the game up from the game page", game.label)
            return full
        state = page.state(game.full.clock.increment_ms)
    except GamePageError as error:
        log.warning("%s: cannot play from the game page (%s)", game.label, error)
        return None
    if game.position is None or game.over:
        return None
    before = game.position.ply
    try:
        game.position.update(state.moves)
    except ServerMoveError as error:
        log.warning("%s: the game page's moves do not replay (%s); waiting for the stream", game.label, error)
        return None
    if game.position.ply != before or game.state is None or game.state.moves != state.moves:
        log.info("%s: the game stream is down; the game page is at ply %d%s", game.label, game.position.ply,
                 ", our move" if game.our_turn() else "")
    return state
