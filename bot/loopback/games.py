"""One game on the loopback server: the board as the referee sees it, clocks, offers, and the records."""

from __future__ import annotations

import time
from typing import Any, Callable, Optional

from bot.loopback.model import ChatRecord, Clock, LoopbackChallenge, MoveRecord, User, color_name
from bot.loopback.opponents import Opponent, OpponentView
from bot.loopback.streams import Stream
from bot.records.pgn import game_pgn, pgn_time_control
from bot.records.results import lichess_outcome
from engine.variants import START_FENS, pgn_needs_start_fen, pgn_variant_tag

BoardFactory = Callable[..., Any]

_TERMINATION_STATUS = {
    "CHECKMATE": "mate",
    "STALEMATE": "stalemate",
}


def default_board_factory() -> BoardFactory:
    """``engine.Board``, imported when the first game starts."""
    from engine import Board

    return Board


class Game:
    """A game between the bot and an opponent, judged with ``engine.Board``.

    ``moves`` is the current move list in canonical UCI (it shrinks on a takeback); ``move_log`` keeps every
    half-move ever played, including taken-back and illegal ones.
    """

    def __init__(
        self,
        challenge: LoopbackChallenge,
        bot: User,
        opponent_player: User,
        opponent: Opponent,
        board_factory: BoardFactory,
        clock_starts_at_ply: int = 2,
    ) -> None:
        self.id = challenge.id
        self.challenge = challenge
        self.variant = challenge.variant
        self.chess960 = challenge.chess960
        self.bot_color = challenge.bot_color
        self.bot_player = bot
        self.opponent_player = opponent_player
        self.white, self.black = (bot, opponent_player) if self.bot_color else (opponent_player, bot)
        self.initial_fen = challenge.initial_fen or START_FENS[self.variant]
        self.initial_fen_is_standard = challenge.initial_fen is None
        self.board = board_factory(self.initial_fen, variant=self.variant, chess960=self.chess960)
        self.first_to_move: bool = self.board.turn
        self.moves: list[str] = []
        self.wire_moves: list[str] = []
        self.sans: list[str] = []
        #: when each move of ``moves`` was played (time.monotonic)
        self.played_at: list[float] = []
        self.move_log: list[MoveRecord] = []
        self.chat: list[ChatRecord] = []
        self.rejected: list[tuple[str, str]] = []
        self.status = "started"
        self.winner: Optional[bool] = None
        self.termination = ""
        self.draw_offer = {True: False, False: False}
        self.takeback_offer = {True: False, False: False}
        self.bot_draw_offers = 0
        self.opponent = opponent
        tc = challenge.time_control
        self.clock: Optional[Clock] = None
        if tc.kind == "clock":
            self.clock = Clock((tc.limit_s or 0) * 1000, (tc.increment_s or 0) * 1000, clock_starts_at_ply)
        self.created_at = time.time()
        self.started_monotonic = time.monotonic()
        self.ended_at: Optional[float] = None
        self.version = 0
        self.streams: list[Stream] = []
        self.stream_connections = 0
        self.stream_refusals = 0
        self.backlog: list[str] = []
        self.opponent_gone = False
        self.claim_allowed_at = 0.0  # Lichess refuses a victory claim before claimWinInSeconds

    # --- views ---
    @property
    def over(self) -> bool:
        """True once the game has ended in any way."""
        return self.status != "started"

    def is_bot_turn(self) -> bool:
        """True when the side to move is the bot's."""
        return bool(self.board.turn == self.bot_color)

    def bot_moves(self) -> list[str]:
        """Every legal move the bot made, in order (taken-back ones included)."""
        return [r.uci for r in self.move_log if r.by == "bot" and r.legal]

    def result(self) -> str:
        """``1-0``, ``0-1``, ``1/2-1/2`` or ``*`` while the game runs."""
        if not self.over:
            return "*"
        if self.winner is None:
            return "1/2-1/2" if self.status != "aborted" else "*"
        return "1-0" if self.winner else "0-1"

    def position_for(self, color: bool) -> OpponentView:
        """A snapshot the opponent can think about without holding the server lock."""
        first = 0 if self.first_to_move == color else 1
        return OpponentView(
            game_id=self.id,
            variant=self.variant,
            chess960=self.chess960,
            initial_fen=self.initial_fen,
            moves=tuple(self.moves),
            color=color,
            board=self.board.copy(),
            own_moves=len(self.moves[first::2]),
            remaining_ms=self.clock.remaining_ms(color) if self.clock else None,
        )

    def pgn(self) -> str:
        """The game as PGN with S-chess SAN (``Nf3/H``), written by the bot's PGN writer; the server's own
        account of the ending goes into a final comment."""
        headers = {
            "Event": "Loopback game",
            "Site": self.id,
            "Date": time.strftime("%Y.%m.%d", time.gmtime(self.created_at)),
            "White": self.white.name,
            "Black": self.black.name,
        }
        tag = pgn_variant_tag(self.variant, self.chess960)
        if tag is not None:
            headers["Variant"] = tag
        headers["TimeControl"] = pgn_time_control(self.challenge.time_control)
        headers["Termination"] = lichess_outcome(self.status, color_name(self.winner) if self.winner is not None
                                                 else None).termination
        set_up = not self.initial_fen_is_standard or self.chess960 or pgn_needs_start_fen(self.variant)
        return game_pgn(headers, self.sans, self.result(), start_fen=self.initial_fen if set_up else None,
                        white_to_move_first=self.first_to_move, final_comment=self.termination or None)

    # --- rules ---
    def canonical_move(self, uci: str, lichess: bool) -> Optional[str]:
        """The legal move ``uci`` names, or ``None``; Lichess also takes king-takes-rook castling (e1h1)."""
        legal = {str(move) for move in self.board.legal_moves}
        if uci in legal:
            return uci
        if lichess and not self.chess960:
            # The other castling spelling, which engine.Board also reads.
            try:
                move = str(self.board.parse_uci(uci))
            except ValueError:
                return None
            return move if move[:4] != uci[:4] and move[4:] == uci[4:] else None
        return None

    def push(self, uci: str, by: str, now: float, king_takes_rook: bool = False) -> None:
        """Play a legal move (already checked) for the side to move and run the clock."""
        color = bool(self.board.turn)
        move = self.board.parse_uci(uci)
        san = self.board.san(move)
        self.board.push(move)
        self.moves.append(uci)
        self.sans.append(san)
        self.played_at.append(now)
        wire = uci
        if king_takes_rook and san.startswith("O-O") and self.variant == "chess" and not self.chess960:
            wire = {"g": uci[:2] + "h" + uci[3], "c": uci[:2] + "a" + uci[3]}[uci[2]] + uci[4:]
        self.wire_moves.append(wire)
        if self.clock is not None:
            self.clock.moved(color, len(self.moves), now)
        self.move_log.append(
            MoveRecord(
                ply=len(self.moves),
                uci=uci,
                san=san,
                by="bot" if by == "bot" else "opponent",
                at=time.time(),
                remaining_ms=self.clock.remaining_ms(color, now) if self.clock else None,
            )
        )
        self.draw_offer = {True: False, False: False}
        self.takeback_offer = {True: False, False: False}
        self.version += 1

    def take_back(self, plies: int, now: float) -> int:
        """Undo up to ``plies`` half-moves; returns how many were undone."""
        undone = 0
        while undone < plies and self.moves:
            self.board.pop()
            self.moves.pop()
            self.wire_moves.pop()
            self.sans.pop()
            self.played_at.pop()
            undone += 1
        if self.clock is not None and undone:
            self.clock.restart(bool(self.board.turn), len(self.moves), now)
        self.takeback_offer = {True: False, False: False}
        self.version += 1
        return undone

    def outcome_status(self) -> Optional[tuple[str, Optional[bool], str]]:
        """``(lichess status, winner, termination text)`` if the position ends the game, else ``None``."""
        outcome = self.board.outcome(claim_draw=True)
        if outcome is None:
            return None
        name = getattr(outcome.termination, "name", str(outcome.termination))
        status = _TERMINATION_STATUS.get(name, "draw")
        return status, outcome.winner, name.lower().replace("_", " ")

    def finish(self, status: str, winner: Optional[bool], termination: str) -> None:
        """Mark the game over and stop the clocks."""
        self.status = status
        self.winner = winner
        self.termination = termination
        self.ended_at = time.time()
        if self.clock is not None:
            self.clock.stop()
        self.draw_offer = {True: False, False: False}
        self.takeback_offer = {True: False, False: False}
        self.version += 1

    def describe(self) -> str:
        """One line for logs: ``abc12345: bot (white) vs Alice, 1-0 by mate``."""
        return (
            f"{self.id}: {self.bot_player.name} ({color_name(self.bot_color)}) "
            f"vs {self.opponent_player.name}, "
            f"{self.result()} by {self.termination or self.status}"
        )
