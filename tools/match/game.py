"""One game between two UCI engines, refereed by a Board: clocks, illegal moves, crashes, adjudication."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Optional, Protocol, Sequence, Tuple

from bot.engines import EngineCrashed, EngineError, EngineReply, EngineTimeout, UciEngine
from bot.engines import position_command as fen_position_command
from bot.engines.limits import GoLimits
from engine import Board
from tools.match.openings import GameJob
from tools.match.settings import Adjudication, MatchSettings, SearchBudget, is_start_position


class ArbiterOutcome(Protocol):
    """The part of ``engine.Outcome`` the runner reads."""

    termination: Any
    winner: Optional[bool]

    def result(self) -> str:
        """``1-0``, ``0-1`` or ``1/2-1/2``."""


class ArbiterBoard(Protocol):
    """The part of ``engine.Board`` the runner uses to referee a game (python-chess names)."""

    @property
    def turn(self) -> bool:
        """True when white is to move."""

    @property
    def legal_moves(self) -> Iterable[Any]:
        """The legal moves; supports ``in``."""

    def parse_uci(self, uci: str) -> Any:
        """The move for a UCI string; raises ValueError when it is malformed or illegal."""

    def san(self, move: Any) -> str:
        """Standard algebraic notation of a legal move (``Nf3/H``)."""

    def push(self, move: Any) -> None:
        """Play a move."""

    def fen(self) -> str:
        """The current position."""

    def outcome(self, *, claim_draw: bool = False) -> Optional[ArbiterOutcome]:
        """How the game ended, or None while it goes on."""


BoardFactory = Callable[[str, str, bool], ArbiterBoard]
"""Builds the arbiter board from (fen, variant, chess960)."""


def engine_board(fen: str, variant: str, chess960: bool) -> ArbiterBoard:
    """The default arbiter: ``engine.Board``."""
    board: ArbiterBoard = Board(fen, variant=variant, chess960=chess960)
    return board


class GameAborted(Exception):
    """The match is being stopped (Ctrl-C); the game does not count."""


# Why an engine lost a game by its own fault; the keys of the per-engine fault counters.
ILLEGAL_MOVE = "illegal move"
TIME_FORFEIT = "time forfeit"
CRASH = "crash"
HANG = "hang"
FAULTS = (ILLEGAL_MOVE, TIME_FORFEIT, CRASH, HANG)


@dataclass
class PlayedMove:
    """One move of the game as the arbiter recorded it, with the engine's answer (score, depth, time)."""

    uci: str
    san: str
    search: EngineReply

    @property
    def elapsed_ms(self) -> float:
        """The time the mover used, as the runner measured it (``go`` written to ``bestmove`` read)."""
        return self.search.elapsed_s * 1000

    @property
    def depth(self) -> Optional[int]:
        """The last depth the engine reported, if any."""
        return self.search.depth


@dataclass
class MatchRecord:
    """Everything about a finished game that the table and the PGN need.

    ``result`` is ``1-0``/``0-1``/``1/2-1/2``; ``termination`` is the PGN Termination value (``normal``,
    ``adjudication``, ``time forfeit``, ``rules infraction``, ``abandoned``); ``reason`` says it in words
    (``White mates``, ``Black makes an illegal move: e2e5``). ``fault`` and ``faulty_engine`` (1 or 2) name
    an engine's own failure that lost the game.
    """

    job: GameJob
    white: str
    black: str
    start_fen: str
    variant: str
    chess960: bool
    moves: List[PlayedMove] = field(default_factory=list)
    result: str = "*"
    termination: str = "unterminated"
    reason: str = ""
    fault: Optional[str] = None
    faulty_engine: Optional[int] = None
    final_fen: str = ""

    def engine1_points(self) -> float:
        """Engine 1's score in this game: 1, 0.5 or 0."""
        if self.result == "1/2-1/2":
            return 0.5
        white_won = self.result == "1-0"
        return 1.0 if white_won == self.job.engine1_is_white else 0.0


_OUTCOME_REASONS = {
    "STALEMATE": "Draw by stalemate",
    "INSUFFICIENT_MATERIAL": "Draw by insufficient mating material",
    "FIFTY_MOVES": "Draw by the fifty-move rule",
    "SEVENTYFIVE_MOVES": "Draw by the seventy-five-move rule",
    "THREEFOLD_REPETITION": "Draw by threefold repetition",
    "FIVEFOLD_REPETITION": "Draw by fivefold repetition",
}


def outcome_reason(outcome: ArbiterOutcome) -> str:
    """Words for a game ended by the rules: ``White mates``, ``Draw by threefold repetition``."""
    name = getattr(outcome.termination, "name", str(outcome.termination))
    if name == "CHECKMATE":
        return f"{_colour(bool(outcome.winner))} mates"
    if name in _OUTCOME_REASONS:
        return _OUTCOME_REASONS[name]
    words = name.lower().replace("_", " ")
    if outcome.winner is None:
        return f"Draw by {words}"
    return f"{_colour(outcome.winner)} wins by {words}"


def _colour(white: bool) -> str:
    return "White" if white else "Black"


def _loss(white_to_move: bool) -> str:
    """The result when the side to move loses."""
    return "0-1" if white_to_move else "1-0"


def adjudicate_by_scores(
    scores: Sequence[Tuple[bool, Optional[int]]], fullmove_number: int, rules: Adjudication
) -> Optional[Tuple[str, str]]:
    """Score adjudication: ``(result, reason)`` or None.

    ``scores`` holds, for every ply played so far, the mover (True = white) and its score in centipawns from
    its own side (None when it reported none). See :class:`Adjudication` for the rules; both engines must
    agree over their last ``*_moves`` moves each.
    """
    if rules.resign_score is not None and rules.resign_moves > 0:
        window = _complete_window(scores, rules.resign_moves)
        for loser in (True, False):
            losing = all(score <= -rules.resign_score for side, score in window if side == loser)
            winning = all(score >= rules.resign_score for side, score in window if side != loser)
            if window and losing and winning:
                return _loss(loser), f"{_colour(not loser)} wins by adjudication"
    if rules.draw_score is not None and rules.draw_moves > 0 and fullmove_number > rules.draw_after_move:
        window = _complete_window(scores, rules.draw_moves)
        if window and all(abs(score) <= rules.draw_score for _, score in window):
            return "1/2-1/2", "Draw by adjudication"
    return None


def _complete_window(scores: Sequence[Tuple[bool, Optional[int]]], moves: int) -> List[Tuple[bool, int]]:
    """The last ``moves`` moves of each side when every one of them carries a score; else empty."""
    window = scores[-2 * moves :]
    complete = [(side, score) for side, score in window if score is not None]
    return complete if len(complete) == 2 * moves else []


def go_command(time_control: SearchBudget, white_ms: float, black_ms: float) -> str:
    """The ``go`` line for the time control and the current clocks (written by the bot's ``GoLimits``)."""
    clock = time_control.has_clock
    return GoLimits(
        wtime_ms=max(0, int(white_ms)) if clock else None,
        btime_ms=max(0, int(black_ms)) if clock else None,
        winc_ms=time_control.increment_ms if clock else None,
        binc_ms=time_control.increment_ms if clock else None,
        movetime_ms=time_control.movetime_ms,
        depth=time_control.depth,
        nodes=time_control.nodes,
    ).go_command()


def game_position_command(start_fen: str, variant: str, chess960: bool, moves: Sequence[str]) -> str:
    """``position startpos moves ...`` from the variant's start position, else ``position fen ... moves ...``."""
    if is_start_position(start_fen, variant) and not chess960:
        return "position startpos" + (" moves " + " ".join(moves) if moves else "")
    return fen_position_command(start_fen, moves)


class _Forfeit(Exception):
    """Internal: the engine to move lost by its own fault."""

    def __init__(self, fault: str, reason: str):
        super().__init__(reason)
        self.fault = fault
        self.reason = reason


def play_game(
    job: GameJob,
    engine1: UciEngine,
    engine2: UciEngine,
    names: Tuple[str, str],
    settings: MatchSettings,
    board_factory: BoardFactory = engine_board,
    stop: Optional[threading.Event] = None,
) -> MatchRecord:
    """Play one game and return its record. An engine that crashed or hung is killed; the caller restarts it.

    Raises GameAborted when ``stop`` is set before a move or while an engine fails (the match is being
    interrupted), and EngineStartError when an engine that had to be restarted cannot start.
    """
    white, black = (engine1, engine2) if job.engine1_is_white else (engine2, engine1)
    white_name, black_name = names if job.engine1_is_white else (names[1], names[0])
    board = board_factory(job.opening.fen, settings.variant, settings.chess960)
    start_fen = board.fen()
    record = MatchRecord(job, white_name, black_name, start_fen, settings.variant, settings.chess960)
    time_control = settings.time_control
    clocks = {True: float(time_control.base_ms or 0), False: float(time_control.base_ms or 0)}
    scores: List[Tuple[bool, Optional[int]]] = []
    uci_moves: List[str] = []

    def fail(engine: UciEngine, white_to_move: bool, fault: str, reason: str) -> MatchRecord:
        """Score the game as lost by the side to move, through its engine's own fault."""
        if stop is not None and stop.is_set():
            raise GameAborted(reason)
        record.result = _loss(white_to_move)
        record.termination = {ILLEGAL_MOVE: "rules infraction", TIME_FORFEIT: "time forfeit"}.get(fault, "abandoned")
        record.reason = reason
        record.fault = fault
        record.faulty_engine = 1 if engine is engine1 else 2
        record.final_fen = board.fen()
        return record

    def check_stop() -> None:
        """A match being stopped plays no further move and (re)starts no engine: Ctrl-C kills the engines
        from another thread, and a restart after that kill would leave a process running."""
        if stop is not None and stop.is_set():
            raise GameAborted("the match is being stopped")

    for engine, is_white in ((white, True), (black, False)):
        check_stop()
        if not engine.alive:
            engine.restart()
        try:
            if (engine.variant, engine.chess960) != (settings.variant, settings.chess960):
                engine.set_variant(settings.variant, settings.chess960)
            engine.new_game()
        except EngineError as error:
            fault = HANG if isinstance(error, EngineTimeout) else CRASH
            engine.kill()
            return fail(engine, is_white, fault, f"{_colour(is_white)} fails to start the game ({error})")

    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            record.result = outcome.result()
            record.termination = "normal"
            record.reason = outcome_reason(outcome)
            break
        if settings.adjudication.max_plies and len(record.moves) >= settings.adjudication.max_plies:
            record.result, record.termination = "1/2-1/2", "adjudication"
            record.reason = f"Draw by adjudication: {settings.adjudication.max_plies} plies"
            break
        verdict = adjudicate_by_scores(scores, getattr(board, "fullmove_number", 0), settings.adjudication)
        if verdict is not None:
            record.result, record.reason = verdict
            record.termination = "adjudication"
            break

        side = bool(board.turn)
        engine = white if side else black
        check_stop()
        try:
            searched = _search(engine, side, start_fen, uci_moves, clocks, settings)
            move = _legal_move(board, searched.bestmove, side)
        except _Forfeit as forfeit:
            return fail(engine, side, forfeit.fault, forfeit.reason)
        record.moves.append(PlayedMove(str(move), board.san(move), searched))
        board.push(move)
        uci_moves.append(str(move))
        scores.append((side, searched.centipawns()))
        if time_control.has_clock:
            clocks[side] = max(0.0, clocks[side] - searched.elapsed_s * 1000) + time_control.increment_ms
    record.final_fen = board.fen()
    return record


def _search(
    engine: UciEngine,
    side: bool,
    start_fen: str,
    uci_moves: Sequence[str],
    clocks: Dict[bool, float],
    settings: MatchSettings,
) -> EngineReply:
    """Ask the engine to move and check its time; raises _Forfeit on a crash, a hang or a time loss."""
    time_control = settings.time_control
    margin_ms = settings.time_margin_ms
    if time_control.has_clock:
        allowed_ms: Optional[float] = clocks[side]
    elif time_control.movetime_ms is not None:
        allowed_ms = float(time_control.movetime_ms)
    else:
        allowed_ms = None
    deadline_s = (allowed_ms + margin_ms) / 1000 if allowed_ms is not None else settings.hang_timeout_s
    position = game_position_command(start_fen, settings.variant, settings.chess960, uci_moves)
    go = go_command(time_control, clocks[True], clocks[False])
    colour = _colour(side)
    try:
        # a bestmove that comes only after ``stop`` (``late``) keeps the engine in sync; it is judged by the
        # time it took like any other, below
        searched = engine.go(position, go, deadline_s, settings.stop_grace_s)
    except EngineCrashed as error:
        engine.kill()
        raise _Forfeit(CRASH, f"{colour} disconnects ({error})") from None
    except EngineTimeout:  # not even after ``stop``: the engine hangs (the client has killed it)
        engine.kill()
        raise _Forfeit(HANG, f"{colour}'s connection stalls: no bestmove within {deadline_s:.3f} s") from None
    elapsed_ms = searched.elapsed_s * 1000
    if allowed_ms is not None and elapsed_ms > allowed_ms + margin_ms:
        raise _Forfeit(
            TIME_FORFEIT,
            f"{colour} loses on time ({elapsed_ms:.0f} ms used, {allowed_ms:.0f} ms allowed)",
        )
    return searched


def _legal_move(board: ArbiterBoard, text: Optional[str], side: bool) -> Any:
    """The board's move for the engine's text; raises _Forfeit when it is not a legal move.

    ``text`` is None when the engine answered ``bestmove (none)``, ``bestmove 0000`` or a bare ``bestmove``:
    no move, while the arbiter knows there are legal ones.
    """
    move = None
    if text is not None:
        try:
            move = board.parse_uci(text)
        except ValueError:
            move = None
    if move is None or move not in board.legal_moves:
        raise _Forfeit(ILLEGAL_MOVE, f"{_colour(side)} makes an illegal move: {text or '(none)'}")
    return move
