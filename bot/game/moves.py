"""Our moves: the engine is asked (or a ponder search finished), its move checked with the board before it is
sent (pychess makes an illegal move a lost game), with one retry and then a legal fallback; draw offers and
resignation are decided from the scores."""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.engines import EngineCrashed, EngineError, EngineReply, EngineTimeout
from bot.engines.notation import parse_move
from bot.game.books import book_move
from bot.game.context import GameContext, MoveNote
from bot.game.decisions import should_offer_draw, should_resign
from bot.game.ponder import Ponderer
from bot.game.position import fallback_move
from bot.game.protocols import Engine
from bot.game.record import describe_search
from bot.wire.errors import ServerError
from bot.wire.events import GameState
from engine import Move

log = logging.getLogger("bot.game")

#: Stand-in moves in a row a game may get: the next failure of the engine ends the game (abort or resign).
MAX_STAND_IN_MOVES = 1
#: An engine that only ran out of a deadline shorter than this is in time trouble, not broken: its stand-in
#: move saves the clock and does not count towards MAX_STAND_IN_MOVES.
TIME_TROUBLE_DEADLINE_MS = 2000


class MoveMaker:
    """Plays our side of one game. ``answered``: the move list our last move answered; ``sent``: (the moves
    before it, our move) of the last move sent; ``moved_this_visit``: a correspondence visit made a move.

    The failure policy: when the engine gives no usable move (it failed twice, restart included), a legal
    stand-in move saves the clock, once; if it fails again on the next move, or on a move at which the game can
    still be aborted (the first two plies), ``engine_lost(reason)`` is called instead (the worker aborts or
    resigns the game): no game is played on stand-in moves. An engine that only missed a deadline shorter
    than TIME_TROUBLE_DEADLINE_MS (time trouble, not a broken engine) gets its stand-in without counting."""

    def __init__(self, game: GameContext, engine: Engine, ponderer: Ponderer,
                 moved_on: Callable[[GameState], bool], resign: Callable[[], None],
                 engine_lost: Callable[[str], None] = lambda reason: None) -> None:
        self.game = game
        self.engine = engine
        self.ponderer = ponderer
        self.moved_on = moved_on
        self.resign = resign
        self.engine_lost = engine_lost
        self.stand_ins_in_a_row = 0
        self.time_trouble = False  # the last stand-in was only a short deadline running out
        self.engine_ready = False
        self.answered: tuple[str, ...] | None = None
        self.sent: tuple[tuple[str, ...], str] | None = None
        self.retry_at: float | None = None
        self.moved_this_visit = False

    def prepare_engine(self) -> None:
        """Tell the engine the variant and a new game (again after a failure)."""
        game = self.game
        if self.ponderer.engine_broken:
            self.ponderer.engine_broken, self.engine_ready = False, False
        if self.engine_ready or game.full is None:
            return
        try:
            self.engine.set_variant(game.full.variant.name, game.full.variant.chess960)
            self.engine.new_game()
            self.engine_ready = True
        except EngineError as error:
            log.error("%s: engine failed to start (%s); will retry on our move", game.label, error)

    def due(self, state: GameState) -> bool:
        """Our move in this state has not been sent yet."""
        return self.game.our_turn() and self.answered != state.moves

    def play(self) -> bool:
        """Choose, check and send our move in the current state; True when a move was sent."""
        game = self.game
        assert game.position is not None and game.state is not None and game.full is not None
        state = game.state
        board = game.position.board
        move, result, note = self.choose()
        if move is None:
            log.error("%s: no legal move to play", game.label)
            return False
        if result is None and not self.time_trouble and (self.stand_ins_in_a_row >= MAX_STAND_IN_MOVES
                                                         or game.position.ply < 2):
            self.engine_lost(note)  # and while the game can still be aborted, no stand-in at all
            return False
        if self.moved_on(state):
            log.info("%s: the position changed while thinking; not sending %s", game.label, move.uci())
            return False
        game.scores.append(result.centipawns() if result is not None else None)
        if should_resign(game.scores, game.settings.resign):
            log.info("%s: resigning (eval %s for %d moves)", game.label,
                     result.describe_score() if result else "?", game.settings.resign.moves)
            self.resign()
            return False
        offer = game.dialect.draw_offers and should_offer_draw(
            game.scores, board.fullmove_number, game.settings.draw)
        san = board.san(move)
        try:
            game.server.make_move(game.game_id, move.uci(), offer_draw=offer)
        except ServerError as error:
            log.error("%s: could not send %s (%s)", game.label, san, error)
            if error.status is None or error.status >= 429:  # worth another try; a 4xx waits for news
                self.retry_at = game.monotonic() + 1.0
            return False
        self.retry_at = None
        self.answered = state.moves
        self.sent = (state.moves, move.uci())
        if result is None:
            self.stand_ins_in_a_row += 0 if self.time_trouble else 1
            game.move_notes[len(state.moves)] = MoveNote("stand-in", reason=note)
        else:
            self.stand_ins_in_a_row = 0
            game.move_notes[len(state.moves)] = MoveNote("book" if result.book else "engine", result)
        if result is not None:
            game.last_result = result
        ponder_note, self.ponderer.note = self.ponderer.note, ""
        note = "; ".join(part for part in (ponder_note, note) if part)
        log.info("%s: played %s (%s)%s%s", game.label, san, describe_search(result),
                 " offering a draw" if offer else "", f" [{note}]" if note else "")
        self.moved_this_visit = True
        if not game.correspondence:
            self.ponderer.start(move, result)
        return True

    def retry_due(self, now: float) -> bool:
        """A move that could not be sent is due for another try."""
        state = self.game.state
        return (self.retry_at is not None and now >= self.retry_at and state is not None
                and not state.is_final and self.answered != state.moves and self.game.our_turn())

    def choose(self) -> tuple[Move | None, EngineReply | None, str]:
        """The engine's move, checked with the board; one retry, then a legal fallback."""
        game = self.game
        assert game.position is not None and game.state is not None and game.full is not None
        board = game.position.board
        problems: list[str] = []
        self.time_trouble = False
        book = book_move(game.settings.engine.polyglot, game.full.variant.config_name, board)
        if book is not None:
            move = parse_move(board, book)
            if move is not None:
                self.ponderer.stop()
                return move, EngineReply(bestmove=book, book=True), ""
        if self.ponderer.running:
            hit = self.ponderer.hit()
            if hit is not None:
                return hit
        for _attempt in range(2):
            limits = game.limits_now()
            try:
                self.prepare_engine()
                result = self.engine.search(game.position.start_fen, game.position.engine_moves(), limits)
            except EngineTimeout as error:
                problems.append(f"engine timed out: {error}")
                self.time_trouble = not problems[:-1] and limits.deadline_ms < TIME_TROUBLE_DEADLINE_MS
                break  # no time left for a second attempt
            except EngineCrashed as error:
                problems.append(f"engine crashed: {error}")
                self.engine_ready = False
                continue
            except EngineError as error:
                problems.append(f"engine error: {error}")
                self.engine_ready = False
                continue
            if result.bestmove is None:
                problems.append("engine gave no move")
                continue
            move = parse_move(board, result.bestmove)
            if move is not None:
                return move, result, "; ".join(problems)
            problems.append(f"engine move {result.bestmove!r} is illegal")
        move = fallback_move(board)
        note = "; ".join(problems)
        if move is not None:
            log.warning("%s: %s; stand-in move (fallback %s)", game.label, note, move.uci())
        return move, None, note
