"""Pure pieces of the match runner: adjudication, UCI command lines and parsing, names, PGN text."""

from __future__ import annotations

import datetime
import enum
from dataclasses import dataclass
from typing import Optional

from bot.engines import EngineReply, Score, parse_info, parse_option
from engine.variants import START_FENS
from tools.match.game import (
    MatchRecord,
    PlayedMove,
    adjudicate_by_scores,
    game_position_command,
    go_command,
    outcome_reason,
)
from tools.match.openings import GameJob, Opening
from tools.match.pgn import game_to_pgn
from tools.match.runner import display_names
from tools.match.settings import Adjudication, EngineSpec, SearchBudget

RESIGN = Adjudication(resign_score=500, resign_moves=2)
DRAW = Adjudication(draw_score=10, draw_moves=2, draw_after_move=30)


def test_resign_needs_both_engines_to_agree_for_enough_moves() -> None:
    # white (True) thinks it is lost, black agrees: black wins
    agreed = [(True, -600), (False, 700), (True, -800), (False, 900)]
    assert adjudicate_by_scores(agreed, 20, RESIGN) == ("0-1", "Black wins by adjudication")
    assert adjudicate_by_scores(agreed[1:], 20, RESIGN) is None  # not enough moves yet
    disputed = [(True, -600), (False, 300), (True, -800), (False, 900)]
    assert adjudicate_by_scores(disputed, 20, RESIGN) is None
    missing = [(True, -600), (False, None), (True, -800), (False, 900)]
    assert adjudicate_by_scores(missing, 20, RESIGN) is None
    black_lost = [(False, -600), (True, 700), (False, -800), (True, 900)]
    assert adjudicate_by_scores(black_lost, 20, RESIGN) == ("1-0", "White wins by adjudication")


def test_draw_adjudication_waits_for_the_move_number() -> None:
    quiet = [(True, 5), (False, -3), (True, 0), (False, 10)]
    assert adjudicate_by_scores(quiet, 30, DRAW) is None
    assert adjudicate_by_scores(quiet, 31, DRAW) == ("1/2-1/2", "Draw by adjudication")
    assert adjudicate_by_scores([(True, 5), (False, -11), (True, 0), (False, 1)], 31, DRAW) is None


def test_score_adjudication_is_off_by_default() -> None:
    hopeless = [(True, -100000 + 1), (False, 99999)] * 20
    assert adjudicate_by_scores(hopeless, 90, Adjudication()) is None


def test_go_command_for_each_time_control() -> None:
    assert go_command(SearchBudget(30000, 300), 29512.7, 30000) == "go wtime 29512 btime 30000 winc 300 binc 300"
    assert go_command(SearchBudget(1000), -5, 10) == "go wtime 0 btime 10 winc 0 binc 0"
    assert go_command(SearchBudget(movetime_ms=250), 0, 0) == "go movetime 250"
    assert go_command(SearchBudget(depth=3, nodes=5000), 0, 0) == "go depth 3 nodes 5000"


def test_position_command_uses_startpos_only_for_the_start_position() -> None:
    start = START_FENS["seirawan"].replace("[EHeh]", "[HEhe]")
    assert game_position_command(start, "seirawan", False, []) == "position startpos"
    assert game_position_command(start, "seirawan", False, ["g1f3h", "g8f6"]) == (
        "position startpos moves g1f3h g8f6"
    )
    assert game_position_command(start, "seirawan", True, []) == f"position fen {start}"
    other = "r1bqkbnr/pppppppp/2n5/1B6/4P3/8/PPPP1PPP/RNBQK1NR[HEhe] b KQBCDGkqcdfg - 0 1"
    assert game_position_command(other, "seirawan", False, ["a7a6"]) == f"position fen {other} moves a7a6"


def test_option_names_with_spaces_reach_the_engine_client() -> None:
    # --engine1-option "Skill Level=3" must match Fairy-Stockfish's advertised "Skill Level"
    option = parse_option("option name Skill Level type spin default 20 min -20 max 20")
    assert option is not None and (option.name, option.type) == ("Skill Level", "spin")


def _scored(line: str) -> EngineReply:
    result = EngineReply(bestmove=None)
    parse_info(line, result)
    return result


def test_scores_print_as_pawns_and_mates_and_order_for_adjudication() -> None:
    assert _scored("info depth 7 score cp 35").describe_score() == "+0.35"
    assert _scored("info depth 7 score cp -120").describe_score() == "-1.20"
    assert _scored("info depth 7 score mate 3").describe_score() == "#3"
    assert _scored("info depth 7 score mate -2").describe_score() == "#-2"
    mated_in_2, down_a_lot, mate_in_1 = (
        _scored(f"info depth 3 score {score}").centipawns() for score in ("mate -2", "cp -5000", "mate 1")
    )
    assert mated_in_2 is not None and down_a_lot is not None and mate_in_1 is not None
    assert mated_in_2 < down_a_lot < mate_in_1
    assert _scored("info string hello depth 3 score cp 5").centipawns() is None


class _Termination(enum.Enum):
    CHECKMATE = 1
    THREEFOLD_REPETITION = 2
    VARIANT_END = 3


@dataclass
class _Outcome:
    termination: _Termination
    winner: Optional[bool]

    def result(self) -> str:
        return "*"


def test_outcome_reasons_read_like_cutechess() -> None:
    assert outcome_reason(_Outcome(_Termination.CHECKMATE, False)) == "Black mates"
    assert outcome_reason(_Outcome(_Termination.THREEFOLD_REPETITION, None)) == "Draw by threefold repetition"
    assert outcome_reason(_Outcome(_Termination.VARIANT_END, True)) == "White wins by variant end"


def test_engines_with_the_same_name_are_told_apart() -> None:
    first = EngineSpec(("fsf",), (("Skill Level", "0"),))
    second = EngineSpec(("fsf",), (("Skill Level", "3"),))
    assert display_names(first, "FSF", second, "FSF") == ("FSF (Skill Level=0)", "FSF (Skill Level=3)")
    assert display_names(EngineSpec(("a",)), "X", EngineSpec(("b",)), "X") == ("X #1", "X #2")
    assert display_names(EngineSpec(("a",), name="Mine"), "X", EngineSpec(("/usr/bin/b",)), "") == (
        "Mine",
        "b",
    )


def _record(start_fen: str, sans: list, result: str) -> MatchRecord:
    record = MatchRecord(
        GameJob(3, Opening(start_fen, "book.epd:12"), 11, False),
        "A",
        "B",
        start_fen,
        "seirawan",
        False,
        result=result,
        termination="normal",
        reason="White mates",
    )
    record.moves = [
        PlayedMove("", san, EngineReply(bestmove="", score=Score(cp=35), depth=5, elapsed_s=0.12)) for san in sans
    ]
    return record


def test_pgn_of_a_game_from_the_start_position_has_no_fen_tag() -> None:
    record = _record(START_FENS["seirawan"], ["e4", "d5", "exd5", "Qxd5/E", "Nc3"], "1-0")
    text = game_to_pgn(record, date=datetime.date(2025, 1, 2), time_control="30+0.3", comments=False)
    assert '[Variant "Seirawan"]' in text and '[Date "2025.01.02"]' in text and '[Round "3"]' in text
    assert "[FEN " not in text and "[SetUp " not in text
    assert '[TimeControl "30+0.3"]' in text and '[PlyCount "5"]' in text and '[Termination "normal"]' in text
    assert text.endswith("1. e4 d5 2. exd5 Qxd5/E 3. Nc3 {White mates} 1-0\n\n")


def test_pgn_of_an_opening_with_black_to_move_numbers_from_the_fen() -> None:
    fen = "r1bqkbnr/pppppppp/2n5/1B6/4P3/8/PPPP1PPP/RNBQK1NR[HEhe] b KQBCDGkqcdfg - 0 7"
    text = game_to_pgn(_record(fen, ["a6", "Bxc6/H"], "*"))
    assert f'[FEN "{fen}"]' in text and '[SetUp "1"]' in text
    assert "7... a6 {+0.35/5 0.120s} 8. Bxc6/H {+0.35/5 0.120s} {White mates} *" in text.replace("\n", " ")


def test_match_result_counts_points_faults_and_moves_per_engine() -> None:
    from tools.match.runner import MatchResult, format_table

    result = MatchResult(("A", "B"))
    black_first = "r1bqkbnr/pppppppp/2n5/1B6/4P3/8/PPPP1PPP/RNBQK1NR[HEhe] b KQBCDGkqcdfg - 0 1"
    won_as_white = _record(START_FENS["seirawan"], ["e4", "d5", "exd5"], "1-0")  # engine 1 (A) is black here
    won_as_white.job = GameJob(1, Opening(START_FENS["seirawan"], "start"), 0, True)  # now A is white
    lost_on_time = _record(black_first, ["a6", "Ba4", "b5"], "1-0")  # A is black, moves a6 and b5
    lost_on_time.fault, lost_on_time.faulty_engine = "time forfeit", 1
    result.add(won_as_white)
    result.add(lost_on_time)
    first, second = result.tallies
    assert (first.wins, first.draws, first.losses) == (1, 0, 1)
    assert (second.wins, second.losses) == (1, 1)
    assert first.faults["time forfeit"] == 1 and second.faults["time forfeit"] == 0
    assert (first.moves, second.moves) == (2 + 2, 1 + 1)
    assert (result.white_wins, result.black_wins, result.draws) == (2, 0, 0)
    table = format_table(result)
    assert "Elo difference (A - B): +0.0 +/- " in table
    assert "A: 4 moves, 0.120 s/move, depth mean 5.0, median 5" in table


def test_depths_leave_out_moves_with_a_mate_score_and_give_the_median() -> None:
    from tools.match.runner import MatchResult, format_table

    result = MatchResult(("A", "B"))
    record = _record(START_FENS["seirawan"], ["e4", "d5", "exd5", "Qxd5/E", "Nc3"], "1-0")
    record.job = GameJob(1, Opening(START_FENS["seirawan"], "start"), 0, True)  # A is white: moves 1, 3, 5
    for move, depth in zip(record.moves, [10, 7, 12, 9, 245], strict=True):
        move.search = EngineReply(bestmove="", score=Score(cp=20), depth=depth, elapsed_s=0.1)
    record.moves[4].search = EngineReply(bestmove="", score=Score(mate=3), depth=245, elapsed_s=0.1)
    result.add(record)
    first = result.tallies[0]
    assert first.depths == [10, 12] and first.mate_moves == 1
    assert "A: 3 moves, 0.100 s/move, depth mean 11.0, median 11 (1 move with a mate score left out)" in format_table(
        result
    )
