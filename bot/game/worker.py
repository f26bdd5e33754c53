"""One game in a thread of its own: stream it, rebuild the position, play our moves, end it properly.

The worker owns the loop and the game's life (set-up, states, phases, parking); the parts it delegates to:
:class:`~bot.game.moves.MoveMaker` (engine and our moves), :class:`~bot.game.ponder.Ponderer` (thinking on
the opponent's time), :class:`~bot.game.talk.Talk` (chat, draw and takeback answers),
:class:`~bot.game.watch.ServerWatch` (bounded waits and pychess's game page),
:class:`~bot.game.leaving.Leaving` (aborting, resigning, and a game our state file says is over) and
:class:`~bot.game.ending.Ending` (the result, the PGN and the record once the loop is over).

The parts call one another where one needs another's service: ``Leaving`` asks the ``ServerWatch`` whether
the server has already ended the game and stops the ``Ponderer``; ``Ending`` asks the watch to settle the
result, takes the ``MoveMaker``'s unconfirmed move and has ``Talk`` say goodbye; the ``MoveMaker`` starts,
hits and stops the ``Ponderer``. What only the worker may carry out (write to the state file, resign, play
from the game page, give the game up for a lost engine) comes back to it as a verdict
(:mod:`bot.game.verdicts`). The game ends (``GameContext.end_game``) where the reason is known: in the worker
(the stream's end, a stop), ``Leaving`` (an abort or a resignation) and ``ServerWatch`` (the server ended
it, or the bot gives up waiting).

The worker's thread waits on one :class:`~bot.game.inbox.Inbox`: the game stream's reader thread puts its
lines there, the lobby its stop request and ``gameFinish``; the timed checks (abort an unstarted game, park,
stalls, the game page, a claim, a move to retry) run when the soonest of the parts' deadlines comes.

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

from bot import metrics
from bot.config import PRODUCTION_TIMING, Settings, Timing
from bot.game.context import GameContext, Phase
from bot.game.ending import Ending
from bot.game.inbox import Deadlines, Inbox, ServerFinished, StopRequested, Waiter
from bot.game.leaving import Leaving
from bot.game.moves import MoveMaker
from bot.game.ponder import Ponderer
from bot.game.position import GameBoard, ServerMoveError
from bot.game.protocols import Engine, GameServer, GameStream
from bot.game.record import GameNote, GameRecord, describe_clock, note_clock
from bot.game.talk import Talk
from bot.game.verdicts import EngineLost, PlayFromPage, Remember, Resign, Verdict
from bot.game.watch import ServerWatch, apply_withheld_final_move
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


def is_replayed(position: GameBoard, state: GameState) -> bool:
    """pychess, after a reconnection: the new stream replays what it queued while we were away, from a
    ``gameFull`` as old as the server's restart onwards (seen on the real server: a "takeback" to ply 24
    when the game, played on from the game page, was at ply 27). A state that is a strict beginning of the
    moves we know is such a replay, not a takeback; the first one that is not ends the replay."""
    return len(state.moves) < position.ply and list(state.moves) == position.server_moves[:len(state.moves)]


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
        self.inbox: Inbox[Item] = Inbox(monotonic, wait)  # ``wait``: how it sleeps (tests: a fake clock)
        self.ponderer = Ponderer(self.game, engine)
        self.watch = ServerWatch(self.game, timing)
        self.leaving = Leaving(self.game, self.watch, self.ponderer, remembered=remembered)
        self.mover = MoveMaker(self.game, engine, self.ponderer)
        self.talk = Talk(self.game, lambda: engine.id_name, challenges_waiting)
        self.game.position_changed_at = monotonic()  # for aborting a game the opponent never starts
        self._stream: GameStream | None = None
        self._stop_posted: str | None = None  # the lobby's thread: the stop mode already posted
        self._stop_at: float | None = None  # when the stop request reached the worker
        self._finishing = False  # the bot stops with on_signal: finish: a game without news is not waited for
        self._moved_at = monotonic()  # our last move sent (or tried): progress of ours, as news is the server's
        self._finished_by_server_at: float | None = None
        self._replaying = False  # pychess: the stream reconnected and may replay the game from long ago
        self.deadlines = Deadlines()  # when the timed checks are due
        # correspondence: a revisit (the lobby's periodic check) parks at once when it is not our turn
        self.revisit = revisit
        self.park_at: float | None = None
        self.park_soon = False  # the bot is stopping: no waiting for a quick reply
        self.chess960_hint = chess960  # from gameStart: pychess's gameFull has no chess960 flag
        # a game an earlier run (or this one) resigned, aborted or saw end: play nothing, resign (abort) again
        self.remembered = remembered
        self.ending = Ending(self.game, engine, self.mover, self.talk, self.watch, revisit=revisit,
                             remembered=remembered, on_done=on_done, on_note=on_note)

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
            self.ending.finish_safely()

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

    def _act(self, verdict: Verdict | None) -> None:
        """Carry out what a part decided."""
        if isinstance(verdict, Remember):
            self.ending.note(verdict.action, verdict.outcome)
        elif isinstance(verdict, PlayFromPage):
            self._play_from_page(verdict.page)
        elif isinstance(verdict, Resign):
            self._act(self.leaving.resign())
        elif isinstance(verdict, EngineLost):
            self.on_engine_lost(verdict.reason)
            self._act(self.leaving.engine_lost(verdict.reason))

    def _on_stop(self, mode: str) -> None:
        """The lobby is stopping: a correspondence game is parked as soon as the opponent is to move; on
        ``abort`` a live game is aborted (or resigned) now, and the worker leaves it either way."""
        game = self.game
        self.park_soon, self._stop_at = True, self._stop_at or self.monotonic()
        if game.over:
            return
        if self.remembered is not None:  # over for us: nothing to finish; resign (abort) again if still due
            self.leaving.resend_if_due(self.monotonic(), stopping=True)
            if not game.over:
                game.end_game("left: the bot is stopping (over for us since an earlier run)")
            return
        if mode != "abort":
            self._finishing = not game.correspondence  # correspondence: parked as soon as it is their move
            return
        if game.correspondence:  # days per move: leave it for the next run, never resign it
            game.end_game("parked", Phase.PARKED)
            return
        # a move sent just before the stop counts (the game page read next corrects it if the game had ended)
        self.mover.take_in_flight_move("was accepted and not yet echoed; it counts")
        self._act(self.leaving.abort_or_resign("the bot is shutting down"))
        if not game.over:
            game.end_game("")  # could not abort nor resign: leave it, the server's record says how it ends

    def _handle(self, item: Item) -> None:
        game = self.game
        if isinstance(item, StopRequested):
            self._on_stop(item.mode)
            return
        if isinstance(item, ServerFinished):
            self._finished_by_server_at = self._finished_by_server_at or self.monotonic()
            return
        if isinstance(item, StreamConnected):
            self._replaying = game.dialect.replays_on_reconnect
            return
        if self._replaying and isinstance(item, (GameFull, GameState)):
            state = item.state if isinstance(item, GameFull) else item
            if game.position is not None and is_replayed(game.position, state):
                log.debug("%s: skipped a replayed state (%d plies; we are at %d)", self.label, len(state.moves),
                          game.position.ply)
                return
            self._replaying = False
        if isinstance(item, (GameFull, GameState)):
            self.watch.news()
        if isinstance(item, GameFull):
            self._on_game_full(item)
        elif isinstance(item, GameState):
            self._on_state(item)
        elif isinstance(item, GameEnd):
            game.end = item
            game.end_game(item.status or "")
            # pychess's bare gameEnd: the result (and maybe the last move) is only on the game page
            if not item.status and game.dialect.has_game_page and not self.watch.settle_from_page():
                apply_withheld_final_move(game, self.mover.sent)
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
            self.watch.settle_from_server()
            game.end_game(f"stream unavailable ({item.reason})")
        elif isinstance(item, UnknownEvent):
            log.debug("%s: ignored a %r line", self.label, item.type)

    def _on_due(self, now: float) -> None:
        """The timed checks, when one of their deadlines has come."""
        if self.remembered is not None:
            self.leaving.resend_if_due(now)
            if self.game.over:
                return
        if self._finished_by_server_at is not None and now - self._finished_by_server_at >= self.timing.finish_grace_s:
            self.game.end_game("finished (event stream)")
            return
        idle_at = self._finish_idle_at()
        if idle_at is not None and now >= idle_at:
            log.info("%s: no news from the server for %.0f s while the bot stops; leaving the game as "
                     "on_signal: abort does", self.label, now - (idle_at - self.game.settings.shutdown.finish_idle_s))
            self._finishing = False
            self._on_stop("abort")
            if not self.game.over:
                self.game.end_game("left: no news while the bot stopped")
            return
        self._act(self.leaving.maybe_abort_unstarted(now))
        self._maybe_park(now)
        if not self.game.over:
            self._act(self.watch.check(now, self.mover.answered))
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
            game.end_game("not our game")
            return
        if first and game.correspondence:
            wait = 0.0 if self.revisit else game.settings.correspondence.disconnect_after_s
            self.park_at = self.monotonic() + wait
        if first or game.position is None:
            try:
                game.position = GameBoard(full.initial_fen, full.variant)
            except ValueError as error:
                log.error("%s: cannot set up the position (%s); aborting", self.label, error)
                self._act(self.leaving.abort_or_resign(f"cannot set up the position: {error}"))
                return
            if first and self.remembered is None:  # a game over for us is not played: no "playing" line
                announce_start(game, full, counted=not self.revisit)
            game.phase = Phase.PLAYING
        if not game.correspondence and self.remembered is None:  # correspondence: only when it must move
            self.mover.prepare_engine()
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
            self._act(self.leaving.abort_or_resign(str(error)))
            return
        note_clock(self.game, state)
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
        if self.game.our_clock_ran_out() and self.watch.settle_from_page():
            log.info("%s: our clock ran out and the game page has the game over; no move sent", self.label)
            self.game.end_game("over on the server (our clock ran out)")
            return
        decision = self.mover.decide()
        if decision is None or isinstance(decision, EngineLost):
            self._act(decision)
            return
        if moved_on(self.inbox.waiting(), decision.state, self.game.position, self._replaying,
                    self.game.dialect.replays_on_reconnect):
            log.info("%s: the position changed while thinking; not sending %s", self.label, decision.move.uci())
            return
        sent = self.mover.send(decision)
        self._moved_at = self.monotonic()
        if isinstance(sent, Resign):
            self._act(sent)
        elif sent and self.game.correspondence:
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
        game.end_game("parked", Phase.PARKED)



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


def moved_on(waiting: list[Item], state: GameState, position: GameBoard | None, replaying: bool,
             replays: bool) -> bool:
    """Whether newer lines (a takeback, the game's end) arrived while the engine was thinking on ``state``:
    they wait in the inbox (``waiting``), and are handled after the search. A replayed old state is no such
    line: after a reconnect (``replays``: the dialect replays; ``replaying``: the worker is in a replay) a
    state that is a strict beginning of the moves we know is skipped, as :meth:`GameWorker._handle` will skip
    it, and never costs the search its move (seen on pychess: a finished search thrown away for the replayed
    states at 15 and 16 plies while the bot, playing from the game page, was at 17)."""
    for item in waiting:
        if isinstance(item, StreamConnected):
            replaying = replays
        elif isinstance(item, GameEnd):
            return True
        elif isinstance(item, (GameFull, GameState)):
            news = item.state if isinstance(item, GameFull) else item
            if replaying and position is not None and is_replayed(position, news):
                continue
            replaying = False
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
