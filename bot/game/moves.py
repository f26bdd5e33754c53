"""Our moves: the engine is asked (or a ponder search finished), its move checked with the board before it is
sent (pychess makes an illegal move a lost game), with one retry and then a legal fallback; draw offers and
resignation are decided from the scores."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot import metrics
from bot.engines import EngineCrashed, EngineError, EngineReply, EngineTimeout
from bot.engines.notation import parse_move
from bot.game.books import book_move
from bot.game.context import GameContext, MoveNote
from bot.game.decisions import should_offer_draw, should_resign
from bot.game.position import fallback_move
from bot.game.protocols import Engine
from bot.game.record import describe_search
from bot.game.timecontrol import unsure_move_wait_ms
from bot.game.verdicts import EngineLost, Moved, Resign, Scored, Verdicts
from bot.wire.errors import ServerError
from bot.wire.events import GameState
from engine import Move

log = logging.getLogger("bot.game")

#: Stand-in moves in a row a game may get: the next failure of the engine ends the game (abort or resign).
MAX_STAND_IN_MOVES = 1
#: An engine that only ran out of a deadline shorter than this is in time trouble, not broken: its stand-in
#: move saves the clock and does not count towards MAX_STAND_IN_MOVES.
TIME_TROUBLE_DEADLINE_MS = 2000


@dataclass(frozen=True)
class InDoubt:
    """Our move in the position after ``moves`` failed, perhaps after it landed: the failed call ended at
    ``since``, and the move is not sent again blind before ``send_by`` (both monotonic)."""

    moves: tuple[str, ...]
    since: float
    send_by: float


@dataclass(frozen=True)
class Choice:
    """Our move for ``state``, checked with the board: the engine's ``result`` (None for a stand-in move) and
    what went wrong on the way (``note``)."""

    state: GameState
    move: Move
    result: EngineReply | None
    note: str


class MoveMaker:
    """Plays our side of one game. ``answered``: the move list our last move answered; ``sent``: (the moves
    before it, our move) of the last move sent; ``moved_this_visit``: a correspondence visit made a move;
    ``retry_at``: when a move that could not be sent (``failed_sends`` times) is tried again; ``in_doubt``:
    that move may have landed all the same (the server checks before it sends it again). What the game's
    record gains (the score, the move's note and clock) comes back as verdicts for the worker to write.

    The failure policy: when the engine gives no usable move (it failed twice, restart included), a legal
    stand-in move saves the clock, once; if it fails again on the next move, or on a move at which the game can
    still be aborted (the first two plies), :meth:`decide` returns :class:`EngineLost` instead (the worker
    aborts or resigns the game): no game is played on stand-in moves. An engine that only missed a deadline shorter
    than TIME_TROUBLE_DEADLINE_MS (time trouble, not a broken engine) gets its stand-in without counting."""

    def __init__(self, game: GameContext, engine: Engine) -> None:
        self.game = game
        self.engine = engine
        self.stand_ins_in_a_row = 0
        self.time_trouble = False  # the last stand-in was only a short deadline running out
        self.engine_ready = False
        self.answered: tuple[str, ...] | None = None
        self.sent: tuple[tuple[str, ...], str] | None = None
        self.retry_at: float | None = None
        self.failed_sends = 0  # our move in this position could not be sent this many times (each of several tries)
        self.in_doubt: InDoubt | None = None
        self.moved_this_visit = False

    def prepare_engine(self, *, broken: bool = False) -> None:
        """Tell the engine the variant and a new game (again after a failure; ``broken``: a ponder call failed)."""
        game = self.game
        if broken:
            self.engine_ready = False
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

    def decide(self, ready: tuple[Move, EngineReply, str] | None, *, engine_broken: bool) -> Choice | EngineLost | None:
        """Choose and check our move in the current state (None: there is no legal move). ``ready``: a move that
        needs no search (the book's, or a ponder hit's); ``engine_broken``: a ponder call failed."""
        game = self.game
        assert game.position is not None and game.state is not None and game.full is not None
        state = game.state
        if engine_broken:
            self.engine_ready = False
        move, result, note = self.choose(ready)
        if move is None:
            log.error("%s: no legal move to play", game.label)
            return None
        if result is None and not self.time_trouble and (self.stand_ins_in_a_row >= MAX_STAND_IN_MOVES
                                                         or game.position.ply < 2):
            return EngineLost(note)  # and while the game can still be aborted, no stand-in at all
        return Choice(state, move, result, note)

    def send(self, choice: Choice, *, ponder_note: str = "") -> Verdicts:
        """Send the move chosen (unless the scores say resign): its score, and :class:`Moved` when it went out
        (``ponder_note``: the ponder search's word for the log line)."""
        game = self.game
        assert game.position is not None
        state, move, result, note = choice.state, choice.move, choice.result, choice.note
        board = game.position.board
        scored = Scored(result.centipawns() if result is not None else None)
        scores = [*game.scores, scored.score]
        if should_resign(scores, game.settings.resign):
            log.info("%s: resigning (eval %s for us, at or below the threshold for %d moves)", game.label,
                     result.describe_score() if result else "?", game.settings.resign.moves)
            return scored, Resign()
        offer = game.dialect.draw_offers and should_offer_draw(scores, board.fullmove_number, game.settings.draw)
        san = board.san(move)
        doubt = self.in_doubt if self.in_doubt is not None and self.in_doubt.moves == state.moves else None
        send_by = doubt.send_by if doubt is not None else game.monotonic() + unsure_move_wait_ms(
            game.our_clock_ms(), game.settings.time.move_overhead_ms) / 1000
        try:
            # plies: a move never goes out twice into a new position (once an attempt may have landed, the
            # game stream or the server's record is asked first); unsure_since: the last call failed, perhaps
            # after its move landed; send_by: where a move sent twice can lose, when waiting for news ends
            game.server.make_move(game.game_id, move.uci(), offer_draw=offer, san=san, plies=len(state.moves),
                                  unsure_since=doubt.since if doubt is not None else None, send_by=send_by)
        except ServerError as error:
            self.failed_sends += 1
            self.in_doubt = InDoubt(state.moves, game.monotonic(), send_by)
            if error.status is None or error.status >= 429:  # worth another try; a 4xx waits for news
                self.retry_at = game.monotonic() + 1.0
                # a server restart does this to every move in flight: not an error while the move is tried again
                log.warning("%s: could not send %s (%s); trying it again in 1 s", game.label, san, error)
            else:
                log.error("%s: could not send %s (%s)", game.label, san, error)
            return (scored,)
        self.retry_at = None
        self.failed_sends = 0
        self.in_doubt = None
        self.answered = state.moves
        self.sent = (state.moves, move.uci())
        # our clock as the move leaves it, for the PGN: the echo's state replaces it with the server's
        # figure; a move whose echo never comes (played from the game page, in flight at a stop) keeps it
        clock_ms = game.our_clock_after_move_ms()
        if result is None:
            self.stand_ins_in_a_row += 0 if self.time_trouble else 1
            move_note = MoveNote("stand-in", reason=note)
        else:
            self.stand_ins_in_a_row = 0
            move_note = MoveNote("book" if result.book else "engine", result)
        count_move(game, move_note)
        note = "; ".join(part for part in (ponder_note, note) if part)
        log.info("%s: played %s (%s)%s%s", game.label, san, describe_search(result),
                 " offering a draw" if offer else "", f" [{note}]" if note else "")
        self.moved_this_visit = True
        return scored, Moved(len(state.moves), move_note, clock_ms)

    def in_flight_moves(self) -> list[str] | None:
        """The moves with our last move, sent and answered 200 but not echoed yet (None: there is no such
        move): the game is being left in the same instant (a stop, a given-up game, the stream's end), and the
        move is one of its plies all the same, in the ply count we log and in the PGN."""
        game, sent = self.game, self.sent
        if game.position is None or sent is None or tuple(game.position.server_moves) != sent[0]:
            return None
        return [*sent[0], sent[1]]

    def retry_due(self, now: float) -> bool:
        """A move that could not be sent is due for another try."""
        state = self.game.state
        return (self.retry_at is not None and now >= self.retry_at and state is not None
                and not state.is_final and self.answered != state.moves and self.game.our_turn())

    def book_move(self) -> tuple[Move, EngineReply, str] | None:
        """The opening book's move in this position, checked with the board (None: the book has none)."""
        game = self.game
        assert game.position is not None and game.full is not None
        board = game.position.board
        book = book_move(game.settings.engine.polyglot, game.full.variant.config_name, board)
        move = parse_move(board, book) if book is not None else None
        if book is None or move is None:
            return None
        return move, EngineReply(bestmove=book, book=True), ""

    def choose(self, ready: tuple[Move, EngineReply, str] | None = None) -> tuple[Move | None, EngineReply | None, str]:
        """``ready`` (a book move or a ponder hit), else the engine's move, checked with the board; one retry,
        then a legal fallback."""
        game = self.game
        assert game.position is not None and game.state is not None and game.full is not None
        board = game.position.board
        problems: list[str] = []
        self.time_trouble = False
        if ready is not None:
            return ready
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


def count_move(game: GameContext, note: MoveNote) -> None:
    """The metrics of a move sent: its kind, and the latency (from the state that gave us the turn to now,
    minus the engine's own thinking: the bot's overhead and the server's answer to the move)."""
    metrics.MOVES_PLAYED.labels(kind=note.kind).inc()
    if note.kind == "stand-in":
        metrics.STAND_IN_MOVES.inc()
    thinking = note.result.elapsed_s if note.result is not None and not note.result.book else 0.0
    if note.result is not None and note.result.pondered_s is not None:
        thinking = 0.0  # a ponder hit: the move was ready when the state came
    metrics.MOVE_LATENCY.observe(max(0.0, game.monotonic() - game.state_received_at - thinking))
