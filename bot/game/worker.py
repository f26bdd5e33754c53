"""One game in a thread of its own: stream it, rebuild the position, play our moves, end it properly.

The worker owns the loop and the game's life (set-up, phases, aborting, resigning, parking, the end); the
parts it delegates to: :class:`~bot.game.moves.MoveMaker` (engine and our moves),
:class:`~bot.game.ponder.Ponderer` (thinking on the opponent's time), :class:`~bot.game.talk.Talk` (chat,
draw and takeback answers), :class:`~bot.game.watch.ServerWatch` (bounded waits and pychess's game page).

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
from pathlib import Path

from bot.config import Settings
from bot.events import Account, ChatLine, GameEnd, GameEvent, GameFull, GameState, OpponentGone, UnknownEvent, Variant
from bot.game import watch
from bot.game.context import GameContext, Phase
from bot.game.moves import MoveMaker
from bot.game.ponder import Ponderer
from bot.game.protocols import Engine, GameServer, GameStream
from bot.game.record import GameNote, GameRecord, describe_clock, final_outcome, write_game_pgn
from bot.game.talk import Talk
from bot.game.watch import ServerWatch
from bot.gamepage import GamePage, GamePageError
from bot.pgn import safe_file_id
from bot.position import GameBoard, ServerMoveError
from bot.results import ABANDONED, GameOutcome, lichess_outcome, resignation
from bot.server import ServerError, StreamConnected, StreamFailed, StreamLost, StreamNotice

log = logging.getLogger("bot.game")

#: After the lobby hears gameFinish, how long to wait for the game stream's own end signal.
FINISH_GRACE_S = 10.0
#: How often the timed checks run (parking, aborting an unstarted game, stalls, a move to retry).
IDLE_TICK_S = 0.5
#: A game our record says is over: how often a resignation (or abort) that the server refused is sent again.
RESEND_RETRY_S = 5.0

Item = GameEvent | StreamNotice


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
        self.on_done = on_done
        self.monotonic = monotonic
        self.thread = threading.Thread(target=self.run, name=self.label, daemon=True)
        self.ponderer = Ponderer(self.game, engine)
        self.watch = ServerWatch(self.game)
        self.watch.play_from = self._play_from_page
        self.watch.answered = lambda: self.mover.answered
        self.on_engine_lost = on_engine_lost
        self.mover = MoveMaker(self.game, engine, self.ponderer, self._moved_on, self._resign, self._engine_lost)
        self.talk = Talk(self.game, lambda: engine.id_name, challenges_waiting, self.ponderer.stop)
        self.pending: deque[Item] = deque()
        self.position_changed_at = monotonic()
        self.record: GameRecord | None = None
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
        self.on_note = on_note
        self.action = remembered.action if remembered is not None else "ended"  # what we did to the game
        self._resend_from = monotonic() if remembered is not None else None

    @property
    def opponent_name(self) -> str:
        return self.game.opponent_name

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
                        self._abort_or_resign("the bot is shutting down")
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
            self._finish()

    def _handle(self, item: Item) -> None:
        game = self.game
        if isinstance(item, StreamConnected):
            self._replaying = game.server.dialect == "pychess"
            return
        if self._replaying and isinstance(item, (GameFull, GameState)):
            if self._is_replayed(item.state if isinstance(item, GameFull) else item):
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
            if not item.status and game.server.dialect == "pychess" and not self.watch.settle_from_page():
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

    def _is_replayed(self, state: GameState) -> bool:
        """pychess, after a reconnection: the new stream replays what it queued while we were away, from a
        ``gameFull`` as old as the server's restart onwards (seen on the real server: a "takeback" to ply 24
        when the game, played on from the game page, was at ply 27). A state that is a strict beginning of the
        moves we know is such a replay, not a takeback; the first one that is not ends the replay."""
        position = self.game.position
        if position is None or len(state.moves) >= position.ply:
            return False
        if list(state.moves) != position.server_moves[:len(state.moves)]:
            return False
        log.debug("%s: skipped a replayed state (%d plies; we are at %d)", self.label, len(state.moves),
                  position.ply)
        return True

    def _on_idle(self) -> None:
        now = self.monotonic()
        if self.remembered is not None:
            self._resend_if_due(now)
            if self.game.over:
                return
        if self._finished_by_server_at is not None and now - self._finished_by_server_at > FINISH_GRACE_S:
            self.game.end_game("finished (event stream)")
            return
        self._maybe_abort_unstarted(now)
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
                self._abort_or_resign(f"cannot set up the position: {error}")
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
            self._abort_or_resign(str(error))
            return
        self._note_clock(state)
        if previous is None or previous.moves != state.moves:
            self.position_changed_at = self.monotonic()
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

    def _note_clock(self, state: GameState) -> None:
        """The clock of the side that made the last move, as this state reports it (for the PGN)."""
        game = self.game
        if not state.moves or game.position is None:
            return
        ply = len(state.moves) - 1
        white_moved = (ply % 2 == 0) == bool(game.position.start.turn)
        game.clocks[ply] = int(state.wtime_ms if white_moved else state.btime_ms)

    def _play(self) -> None:
        if self._our_clock_ran_out() and self.watch.settle_from_page():
            log.info("%s: our clock ran out and the game page has the game over; no move sent", self.label)
            self.game.end_game("over on the server (our clock ran out)")
            return
        if self.mover.play() and self.game.correspondence:
            self.park_at = self.monotonic() + self.game.settings.correspondence.disconnect_after_s

    def _our_clock_ran_out(self) -> bool:
        """pychess: our clock, counted down since the latest state, is empty (the bot was frozen or cut off):
        the server may have flagged us, and it answers a move into a finished game with 200 and ignores it."""
        game = self.game
        if game.server.dialect != "pychess" or game.state is None or game.full is None \
                or game.full.clock.kind != "clock" or game.position is None or game.position.ply < 2:
            return False
        ours_ms = game.state.wtime_ms if game.we_are_white else game.state.btime_ms
        return (self.monotonic() - game.state_received_at) * 1000 >= ours_ms

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

    def _maybe_abort_unstarted(self, now: float) -> None:
        """Abort when the opponent has not made their first move in time."""
        game = self.game
        if game.position is None or game.over or game.we_are_white is None or self.remembered is not None:
            return
        opponent_moved = game.position.ply >= (1 if game.we_are_white is False else 2)
        if opponent_moved or game.our_turn() or game.correspondence:
            return  # Lichess aborts unstarted correspondence games itself, days later
        if now - self.position_changed_at > game.settings.time.abort_unstarted_after_s:
            log.info("%s: the opponent never moved; aborting", self.label)
            self._abort_or_resign("opponent never moved", resign=False)

    def _abort_or_resign(self, reason: str, *, resign: bool = True) -> None:
        """Abort a game that can still be aborted (before both sides have moved), else resign it (when
        ``resign``). pychess answers an abort of a game with moves with 200 and plays on, so it is never sent."""
        game = self.game
        if self.watch.already_over_on_server():
            return
        if game.position is not None and game.position.ply >= 2:
            if not resign:
                return
            log.info("%s: too late to abort (%d plies on the board); resigning (%s)", self.label, game.position.ply,
                     reason)
            self._resign(check_server=False)
            game.end_game(f"resigned: {reason}")
            return
        try:
            game.server.abort_game(self.game_id)
            log.info("%s: aborted (%s)", self.label, reason)
            game.outcome = GameOutcome("*", ABANDONED, "aborted")
            self._note("aborted", game.outcome)
            game.end_game(f"aborted: {reason}")
        except ServerError as error:
            if not resign:
                log.warning("%s: could not abort (%s)", self.label, error)
                self.position_changed_at = self.monotonic()  # try again later
                return
            log.info("%s: cannot abort (%s); resigning", self.label, error)
            self._resign(check_server=False)
            if game.we_resigned:  # else the game goes on (or already ended: its final state says how)
                game.end_game(f"resigned: {reason}")

    def _engine_lost(self, reason: str) -> None:
        """The engine failed on two moves in a row: end the game (abort while the game allows it, else
        resign) rather than play it on stand-in moves, and tell the lobby (no new challenges, health check
        fails)."""
        game = self.game
        can_abort = game.position is not None and game.position.ply < 2
        log.error("%s: the engine gave no move on two moves in a row (%s); %s the game", self.label, reason,
                  "aborting" if can_abort else "resigning")
        self.on_engine_lost(reason)
        self.ponderer.stop()
        if can_abort:
            self._abort_or_resign("the engine cannot play")
        else:
            self._resign()
            if game.over:
                game.end_game("resigned: the engine cannot play")

    def _resign(self, *, check_server: bool = True) -> None:
        game = self.game
        if game.over or (check_server and self.watch.already_over_on_server()):
            return
        try:
            game.server.resign_game(self.game_id)
            game.we_resigned = True
        except ServerError as error:
            log.error("%s: could not resign (%s)", self.label, error)
            return
        if game.we_are_white is not None:
            self._note("resigned", resignation(game.we_are_white))
        game.end_game(game.end_reason or "resigned")  # pychess sends no end event after a resignation

    # ---- a game our record says is over ----

    def _resend_if_due(self, now: float) -> None:
        """Resign (or abort) again a game we resigned (aborted) before, once its ``gameFull`` is here (to have
        the moves for the PGN) or the stream has not brought it for ``stream_timeout_s``. Nothing is sent when
        the server already has the game over (game page or export). A game that simply ended is only looked
        up (every ``QUIET_PAGE_CHECK_S``): over on the server too, the worker is done; until then it watches,
        playing nothing."""
        game, note = self.game, self.remembered
        if note is None or self._resend_from is None or now < self._resend_from:
            return
        waited = now - self._resend_from
        if game.full is None and waited < game.settings.server.stream_timeout_s:
            return
        if note.action == "ended":  # nothing to send: is the game over on the server too? (ask every minute:
            # a BOT's resignation never reaches us, and we do not move)
            self._resend_from = now + watch.QUIET_PAGE_CHECK_S
            if self.watch.settle_from_server():
                game.end_game("over on the server")
            return
        if self.watch.already_over_on_server():
            return
        abort = note.action == "aborted" and (game.position is None or game.position.ply < 2)
        try:
            if abort:
                game.server.abort_game(self.game_id)
            else:
                game.server.resign_game(self.game_id)
        except ServerError as error:
            log.warning("%s: could not %s again (%s); trying again in %.0f s", self.label,
                        "abort" if abort else "resign", error, RESEND_RETRY_S)
            self._resend_from = now + RESEND_RETRY_S
            return
        self._resend_from = None
        game.we_resigned = not abort
        log.info("%s: our record says we %s this game; %s again and played nothing", self.label, note.action,
                 "aborted it" if abort else "resigned")
        if self.watch.settle_from_server() is None:
            log.info("%s: the server has no record of the end for us; keeping our result %s", self.label, note.result)
        game.end_game(f"over for us since an earlier run ({note.action})")

    def _note(self, action: str, outcome: GameOutcome) -> None:
        """Tell the lobby (the state file) what we did to the game and the result we write."""
        if action != "ended":
            self.action = action
        if self.on_note is not None:
            try:
                self.on_note(GameNote(self.game_id, self.action, outcome.result, outcome.termination,
                                      self.monotonic()))
            except Exception:  # noqa: BLE001 - a state-file problem must not cost the game its end
                log.exception("%s: could not remember the game", self.label)

    # ---- the end ----

    def _finish(self) -> None:
        game = self.game
        if game.phase is Phase.PARKED:
            self._close_engine()
            # a check that found nothing to do is not worth an INFO line (there is one per game and interval)
            level = logging.INFO if self.mover.moved_this_visit or not self.revisit else logging.DEBUG
            log.log(level, "%s: %s to move; parked until the next check (correspondence)", self.label,
                    game.opponent_name)
            self._report(GameRecord(self.game_id, "*", "parked", game.opponent_name, parked=True))
            return
        if self.remembered is not None:
            self._finish_remembered(self.remembered)
            return
        gave_up = game.phase is Phase.GAVE_UP
        if gave_up:
            self._add_our_unconfirmed_move()
        board = game.position.board if game.position is not None else None
        outcome = final_outcome(game.outcome, game.end, board, game.we_are_white, game.we_resigned)
        if not gave_up and game.position is not None and game.we_are_white is not None \
                and self._server_outcome() is None \
                and (outcome.result == "*" or game.we_resigned):
            # the stream ended without saying how (or we stopped reading it after our resignation): the
            # server's own record (game page, game export) decides, and has any plies we missed
            if self.watch.settle_from_server():
                board = game.position.board if game.position is not None else None
                outcome = final_outcome(game.outcome, game.end, board, game.we_are_white, game.we_resigned)
        plies = game.position.ply if game.position is not None else 0
        sent = self.mover.sent
        if not gave_up and sent is not None and game.position is not None and self._server_outcome() is not None \
                and tuple(game.position.server_moves) == sent[0]:
            log.info("%s: our move %s did not count: the game had ended on the server before it arrived",
                     self.label, sent[1])
        pgn_path = None
        # a game that ended before its first move (a resignation, a flag) is still a game with a result
        if game.full is not None and game.position is not None and (plies > 0 or outcome.result != "*"):
            if outcome.termination != ABANDONED and not gave_up:
                self.talk.say(game.settings.greeting.goodbye)
            pgn_path = write_game_pgn(game, outcome)
        if not gave_up and (self.action != "ended" or outcome.result != "*"):
            self._note("ended", outcome)
        self._close_engine()
        log.info("%s: finished %s (%s; %s, %d pl%s) vs %s%s", self.label, outcome.result, outcome.reason,
                 outcome.termination, plies, "y" if plies == 1 else "ies", game.opponent_name,
                 f", PGN {pgn_path}" if pgn_path else "")
        self._report(GameRecord(self.game_id, outcome.result, game.end_reason or outcome.reason, game.opponent_name,
                                pgn_path, termination=outcome.termination, gave_up=gave_up))

    def _add_our_unconfirmed_move(self) -> None:
        """A given-up game's PGN has every ply we know of: our last move, which the server accepted but the
        stream never echoed, included."""
        game, sent = self.game, self.mover.sent
        if game.position is None or sent is None or tuple(game.position.server_moves) != sent[0]:
            return
        try:
            game.position.update([*sent[0], sent[1]])
        except ServerMoveError:
            return
        log.info("%s: our last move %s was accepted but never confirmed; it is in the PGN", self.label, sent[1])

    def _server_outcome(self) -> GameOutcome | None:
        """How the server says the game ended (its game page or export, or Lichess's final status), if it said."""
        game = self.game
        if game.outcome is not None:
            return game.outcome
        if game.end is not None and game.end.status:
            return lichess_outcome(game.end.status, game.end.winner)
        return None

    def _finish_remembered(self, note: GameNote) -> None:
        """The end of a game that was already over for us: keep the PGN we wrote, unless the server's result
        differs (then the PGN says the server's, and the log says why), or there is none yet."""
        game = self.game
        self._close_engine()
        server = self._server_outcome()
        directory = game.settings.pgn_directory
        pgn_file = Path(directory) / f"{safe_file_id(self.game_id)}.pgn" if directory else None
        can_write = game.full is not None and game.position is not None
        outcome = GameOutcome(note.result, note.termination, f"we {note.action}" if note.action != "ended" else "ended")
        pgn_path = pgn_file if pgn_file is not None and pgn_file.exists() else None
        if server is not None and server.result != "*" and server.result != note.result and can_write:
            log.warning("%s: the server's result %s (%s, %s) differs from the %s we wrote earlier (we %s); the PGN "
                        "now says the server's", self.label, server.result, server.reason, server.termination,
                        note.result, note.action)
            outcome = server
            pgn_path = write_game_pgn(game, outcome)
            self._note(note.action, outcome)
        elif pgn_path is None and can_write:
            if server is None:
                board = game.position.board if game.position is not None else None
                server = final_outcome(None, game.end, board, game.we_are_white, game.we_resigned)
            outcome = server if server.result != "*" or note.result == "*" else outcome
            pgn_path = write_game_pgn(game, outcome)
            self._note(note.action, outcome)
        else:
            log.info("%s: over for us since an earlier run (we %s, %s); the PGN stays", self.label, note.action,
                     note.result)
        self._report(GameRecord(self.game_id, outcome.result, game.end_reason or outcome.reason, game.opponent_name,
                                pgn_path, termination=outcome.termination, remembered=True))

    def _report(self, record: GameRecord) -> None:
        self.record = record
        if self.on_done is not None:
            self.on_done(record)

    def _close_engine(self) -> None:
        try:
            self.engine.close()
        except Exception:  # noqa: BLE001 - closing a broken engine must not hide the result
            log.debug("%s: engine close failed", self.label, exc_info=True)
