"""One game in a thread of its own: stream it, rebuild the position, play our moves, end it properly.

The worker owns the loop and the game's life (set-up, states, phases, parking); the parts it delegates to:
:class:`~bot.game.moves.MoveMaker` (engine and our moves), :class:`~bot.game.ponder.Ponderer` (thinking on
the opponent's time), :class:`~bot.game.talk.Talk` (chat, draw and takeback answers),
:class:`~bot.game.watch.ServerWatch` (bounded waits and pychess's game page),
:class:`~bot.game.leaving.Leaving` (aborting, resigning, and a game our state file says is over) and
:class:`~bot.game.ending.Ending` (the result, the PGN and the record once the loop is over).

Correspondence (and unlimited) games are played in visits: the worker plays when it is our turn, waits
``correspondence.disconnect_after_s`` for a quick reply, then *parks* the game (closes the stream and the
engine) and reports ``GameRecord(parked=True)``; the lobby visits it again every
``correspondence.check_interval_s`` (and at once on ``gameStart``/``gameFinish``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace

from bot.config import Settings
from bot.game.context import GameContext, Phase
from bot.game.ending import Ending
from bot.game.leaving import Leaving
from bot.game.moves import MoveMaker
from bot.game.ponder import Ponderer
from bot.game.position import GameBoard, ServerMoveError
from bot.game.protocols import Engine, GameServer, GameStream
from bot.game.record import GameNote, GameRecord, describe_clock, note_clock
from bot.game.talk import Talk
from bot.game.watch import ServerWatch
from bot.wire.errors import GamePageError
from bot.wire.events import (
    Account,
    ChatLine,
    GameEnd,
    GameEvent,
    GameFull,
    GameState,
    OpponentGone,
    UnknownEvent,
    Variant,
)
from bot.wire.gamepage import GamePage
from bot.wire.streams import StreamConnected, StreamFailed, StreamLost, StreamNotice

log = logging.getLogger("bot.game")

#: After the lobby hears gameFinish, how long to wait for the game stream's own end signal.
FINISH_GRACE_S = 10.0
#: How often the timed checks run (parking, aborting an unstarted game, stalls, a move to retry).
IDLE_TICK_S = 0.5

Item = GameEvent | StreamNotice


def is_replayed(position: GameBoard, state: GameState) -> bool:
    """pychess, after a reconnection: the new stream replays what it queued while we were away, from a
    ``gameFull`` as old as the server's restart onwards (seen on the real server: a "takeback" to ply 24
    when the game, played on from the game page, was at ply 27). A state that is a strict beginning of the
    moves we know is such a replay, not a takeback; the first one that is not ends the replay."""
    return len(state.moves) < position.ply and list(state.moves) == position.server_moves[:len(state.moves)]


class GameWorker:
    """Plays one game to its end in a thread of its own."""

    def __init__(self, game_id: str, server: GameServer, settings: Settings, account: Account, engine: Engine,
                 *, on_done: Callable[[GameRecord], None] | None = None,
                 monotonic: Callable[[], float] = time.monotonic,
                 challenges_waiting: Callable[[], int] = lambda: 0, revisit: bool = False,
                 chess960: bool = False, remembered: GameNote | None = None,
                 on_note: Callable[[GameNote], None] | None = None,
                 on_engine_lost: Callable[[str], None] = lambda reason: None) -> None:
        self.game = GameContext(game_id, server, settings, account, monotonic)
        self.game_id = game_id
        self.label = self.game.label
        self.engine = engine
        self.monotonic = monotonic
        self.thread = threading.Thread(target=self.run, name=self.label, daemon=True)
        self.ponderer = Ponderer(self.game, engine)
        self.watch = ServerWatch(self.game)
        self.watch.play_from = self._play_from_page
        self.watch.answered = lambda: self.mover.answered
        # aborting and resigning (the move maker calls them); their notes go through the ending, made below
        self.leaving = Leaving(self.game, self.watch, self.ponderer, on_engine_lost=on_engine_lost,
                               note=lambda action, outcome: self.ending.note(action, outcome), remembered=remembered)
        self.mover = MoveMaker(self.game, engine, self.ponderer, self._moved_on, self.leaving.resign,
                               self.leaving.engine_lost)
        self.talk = Talk(self.game, lambda: engine.id_name, challenges_waiting, self.ponderer.stop)
        self.pending: deque[Item] = deque()
        self.game.position_changed_at = monotonic()  # for aborting a game the opponent never starts
        self._stream: GameStream | None = None
        self._abort_requested = False
        self._finished_by_server_at: float | None = None
        self._replaying = False  # pychess: the stream reconnected and may replay the game from long ago
        self._last_tick = monotonic()
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
        """``abort``: abort the game (resign when it can no longer be aborted). ``finish``: play on.
        Either way a correspondence game is parked as soon as the opponent is to move."""
        if mode == "abort":
            self._abort_requested = True
        self.park_soon = True

    def server_finished(self) -> None:
        """The event stream said gameFinish; end soon even if the game stream stays silent."""
        if self._finished_by_server_at is None:
            self._finished_by_server_at = self.monotonic()

    # ---- the loop ----

    def run(self) -> None:
        game = self.game
        try:
            self._stream = game.server.open_game_stream(self.game_id)
            while not game.over:
                if self._abort_requested:
                    if game.correspondence:  # days per move: leave it for the next run, never resign it
                        game.end_game("parked", Phase.PARKED)
                    else:
                        self.leaving.abort_or_resign("the bot is shutting down")
                    break
                item = self.pending.popleft() if self.pending else self._stream.get(timeout=IDLE_TICK_S)
                if item is not None:
                    self._handle(item)
                # the timed checks run at least every tick, even while lines keep coming (keep-alives), but
                # never before the lines already read (a final state, the game's end) have been handled
                now = self.monotonic()
                if not game.over and not self.pending and (item is None or now - self._last_tick >= IDLE_TICK_S):
                    self._last_tick = now
                    self._on_idle()
        except Exception:  # noqa: BLE001 - a bug in one game must not take the bot down
            log.exception("%s: unexpected error; leaving the game", self.label)
            game.end_reason = game.end_reason or "internal error"
        finally:
            if self._stream is not None:
                self._stream.close()
            self.ending.finish()

    def _handle(self, item: Item) -> None:
        game = self.game
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
                self.watch.apply_withheld_final_move(self.mover.sent)
        elif isinstance(item, ChatLine):
            self.talk.on_chat(item)
        elif isinstance(item, OpponentGone):
            self.watch.opponent_gone(item.gone, item.claim_win_in_s)
        elif isinstance(item, StreamLost):
            log.info("%s: game stream lost (%s); resuming", self.label, item.reason)
            self.watch.stream_lost(item.reason)
        elif isinstance(item, StreamFailed):
            log.warning("%s: game stream unavailable (%s); leaving the game", self.label, item.reason)
            self.watch.settle_from_server()
            game.end_game(f"stream unavailable ({item.reason})")
        elif isinstance(item, UnknownEvent):
            log.debug("%s: ignored a %r line", self.label, item.type)

    def _on_idle(self) -> None:
        now = self.monotonic()
        if self.remembered is not None:
            self.leaving.resend_if_due(now)
            if self.game.over:
                return
        if self._finished_by_server_at is not None and now - self._finished_by_server_at > FINISH_GRACE_S:
            self.game.end_game("finished (event stream)")
            return
        self.leaving.maybe_abort_unstarted(now)
        self._maybe_park(now)
        if not self.game.over:
            self.watch.check(now)
            self.watch.claim_if_due(now)
        if not self.game.over and self.remembered is None and self.mover.retry_due(now):
            log.info("%s: retrying our move", self.label)
            self._play()

    # ---- game setup and states ----

    def _on_game_full(self, full: GameFull) -> None:
        game = self.game
        if self.chess960_hint and full.variant.supported and not full.variant.chess960:
            full = replace(full, variant=Variant(full.variant.name, True))
        first = game.full is None
        game.full = full
        if full.white.is_user(game.account.id, game.account.username):
            game.we_are_white = True
        elif full.black.is_user(game.account.id, game.account.username):
            game.we_are_white = False
        else:
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
                self.leaving.abort_or_resign(f"cannot set up the position: {error}")
                return
            if first:
                colour = "white" if game.we_are_white else "black"
                log.info("%s: playing %s as %s vs %s (%s)", self.label, full.variant.config_name, colour,
                         game.opponent_name, describe_clock(full))
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
            self.leaving.abort_or_resign(str(error))
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
        self.talk.answer_takeback_request(state, self.mover.answered)
        if self.mover.due(state):
            self._play()

    def _play_from_page(self, page: GamePage) -> None:
        """The game stream is failing and the page shows the game running: take its position and clocks as
        the latest state (and its set-up, when the stream never brought a ``gameFull``), and move if it is our
        turn. The stream, once back, takes over again."""
        game = self.game
        try:
            if game.full is None:
                full = page.game_full()
                log.info("%s: no game stream; setting the game up from the game page", self.label)
                self._on_game_full(full)
                return
            state = page.state(game.full.clock.increment_ms)
        except GamePageError as error:
            log.warning("%s: cannot play from the game page (%s)", self.label, error)
            return
        if game.position is None or game.over:
            return
        before = game.position.ply
        try:
            game.position.update(state.moves)
        except ServerMoveError as error:
            log.warning("%s: the game page's moves do not replay (%s); waiting for the stream", self.label, error)
            return
        if game.position.ply != before or game.state is None or game.state.moves != state.moves:
            log.info("%s: the game stream is down; the game page is at ply %d%s", self.label, game.position.ply,
                     ", our move" if game.our_turn() else "")
        self._on_state(state)

    def _play(self) -> None:
        if self.game.our_clock_ran_out() and self.watch.settle_from_page():
            log.info("%s: our clock ran out and the game page has the game over; no move sent", self.label)
            self.game.end_game("over on the server (our clock ran out)")
            return
        if self.mover.play() and self.game.correspondence:
            self.park_at = self.monotonic() + self.game.settings.correspondence.disconnect_after_s

    def _moved_on(self, state: GameState) -> bool:
        """Whether newer lines (a takeback, the game's end) arrived while the engine was thinking."""
        assert self._stream is not None
        while (item := self._stream.get(timeout=0)) is not None:
            self.pending.append(item)
        return any(isinstance(item, GameEnd) or (isinstance(item, GameState) and item.moves != state.moves)
                   for item in self.pending)

    # ---- leaving a game: park, abort, resign ----

    def _maybe_park(self, now: float) -> None:
        """Correspondence: leave the game when the opponent is to move and the visit has lasted long enough."""
        game = self.game
        due = self.park_at is not None and (now >= self.park_at or self.park_soon)
        if not game.correspondence or not due or game.over or game.position is None or self.pending \
                or game.our_turn():
            return
        self.ponderer.stop()
        game.end_game("parked", Phase.PARKED)

