"""Thinking on the opponent's time: after our move the engine searches the reply it expects (``go ponder``);
if the opponent plays it, ``ponderhit`` turns that search into our next move, otherwise it is stopped."""

from __future__ import annotations

import logging

from bot.engines import EngineError, EngineReply
from bot.engines.notation import parse_move
from bot.game.context import GameContext
from bot.game.protocols import Engine, PonderingEngine
from engine import Move

log = logging.getLogger("bot.game")


class Ponderer:
    """The ponder search of one game. ``line``: the engine moves the running ponder search assumed (ours,
    then the predicted reply); ``note``: what to say in the next move's log line (a miss); ``engine_broken``: a
    ponder call failed (the worker has the engine prepared again: :meth:`engine_failed`)."""

    def __init__(self, game: GameContext, engine: Engine) -> None:
        self.game = game
        self.engine = engine
        self.line: list[str] | None = None
        self.note = ""
        self.engine_broken = False  # set when a ponder call failed: the engine is prepared again

    @property
    def running(self) -> bool:
        return self.line is not None

    def start(self, move: Move, result: EngineReply | None) -> None:
        """After our ``move``: ponder on the reply the engine expects, if pondering is on and it can."""
        game, engine = self.game, self.engine
        if (not game.settings.engine.ponder or not isinstance(engine, PonderingEngine) or result is None
                or result.ponder is None or game.position is None or game.full is None):
            return
        board = game.position.board.copy()
        board.push(move)
        predicted = parse_move(board, result.ponder)
        if predicted is None or board.is_game_over(claim_draw=True):
            return
        line = game.position.engine_moves() + [move.uci(), predicted.uci()]
        limits = game.limits_now(after_our_move=True)
        try:
            engine.ponder(game.position.start_fen, line, limits)
        except EngineError as error:
            log.warning("%s: could not start pondering (%s)", game.label, error)
            self.engine_broken = True
            return
        self.line = line
        log.debug("%s: pondering on %s", game.label, predicted.uci())

    def engine_failed(self) -> bool:
        """Whether a ponder call failed since the last time this was asked."""
        broken, self.engine_broken = self.engine_broken, False
        return broken

    def our_move_sent(self, move: Move, result: EngineReply | None) -> None:
        """Our ``move`` went out: the note is said, and the ponder search starts (never in correspondence)."""
        self.note = ""
        if not self.game.correspondence:
            self.start(move, result)

    def check_prediction(self) -> None:
        """The position changed: keep the ponder search only if it is the position it assumed."""
        if self.line is None or self.game.position is None:
            return
        current, line = self.game.position.engine_moves(), self.line
        # on track: our own move came back (one short of the line) or the predicted reply was played
        if len(current) >= len(line) - 1 and line[:len(current)] == current:
            return
        self.stop()
        self.note = f"ponder miss: expected {line[-1]}"

    def stop(self) -> None:
        if self.line is None:
            return
        self.line = None
        if isinstance(self.engine, PonderingEngine):
            try:
                self.engine.stop_ponder()
            except EngineError as error:
                log.warning("%s: stopping the ponder search failed (%s)", self.game.label, error)
                self.engine_broken = True

    def hit(self) -> tuple[Move, EngineReply, str] | None:
        """The opponent played the predicted move: finish the ponder search. None when it cannot be used."""
        game = self.game
        assert game.position is not None
        line, self.line = self.line, None
        engine = self.engine
        if line != game.position.engine_moves() or not isinstance(engine, PonderingEngine) or not engine.pondering:
            return None  # the next search stops the stale ponder search itself
        try:
            result = engine.ponderhit(game.limits_now())
        except EngineError as error:
            log.warning("%s: ponderhit failed (%s); searching again", game.label, error)
            self.engine_broken = True
            return None
        move = parse_move(game.position.board, result.bestmove) if result.bestmove else None
        if move is None:
            log.warning("%s: the ponder search gave %r; searching again", game.label, result.bestmove)
            return None
        return move, result, ""
