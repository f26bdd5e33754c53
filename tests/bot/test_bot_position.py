"""Rebuilding positions from server move lists (growing, shrinking, odd castling) and PGN read back."""

from __future__ import annotations

import json

import pytest

import engine
from bot.engines.notation import parse_move
from bot.game import final_outcome
from bot.game.position import GameBoard, ServerMoveError, fallback_move
from bot.records.pgn import game_pgn, movetext, safe_file_id, standard_headers, write_pgn
from bot.wire.events import GameEnd, Variant
from tests.bot.conftest import recorded

SEIRAWAN = Variant("seirawan")
# A real pychess.org S-chess game (shared/docs/schess-rules.md), ending in Qxd8/E#.
MATE_GAME = "e2e4 d7d5 e4d5 d8d5e b1c3 d5f5 d2d4 g8f6 g1f3 b8c6 d4d5 f6e4 d5c6 e4c5 d1d8e".split()
MATE_FEN = "r1bQkb1r/ppp1pppp/2P5/2n2q2/8/2N2N2/PPP2PPP/R1BEKB1R[Hh] b KQCFkqcf - 0 8"


def test_growing_move_list_is_applied_incrementally_and_reaches_the_final_fen():
    position = GameBoard(None, SEIRAWAN)
    for ply in range(1, len(MATE_GAME) + 1):
        position.update(MATE_GAME[:ply])
    assert position.board.fen() == MATE_FEN
    assert position.rebuilds == 0
    assert position.board.is_checkmate()


def test_shrinking_move_list_after_a_takeback_rebuilds_the_position():
    position = GameBoard(None, SEIRAWAN)
    position.update(MATE_GAME[:6])
    position.update(MATE_GAME[:4])
    assert position.rebuilds == 1 and position.ply == 4
    reference = GameBoard(None, SEIRAWAN)
    reference.update(MATE_GAME[:4])
    assert position.board.fen() == reference.board.fen()


def test_changed_history_of_equal_length_rebuilds_too():
    position = GameBoard(None, SEIRAWAN)
    position.update(["e2e4", "e7e5"])
    position.update(["d2d4", "d7d5"])
    assert position.rebuilds == 1 and position.engine_moves() == ["d2d4", "d7d5"]


def test_an_illegal_server_move_is_rejected_and_the_board_kept():
    position = GameBoard(None, SEIRAWAN)
    position.update(["e2e4"])
    before = position.board.fen()
    with pytest.raises(ServerMoveError, match="e2e5"):
        position.update(["e2e4", "e2e5"])
    assert position.board.fen() == before and position.server_moves == ["e2e4"]


def test_the_recorded_pychess_game_rebuilds_from_its_full_move_list():
    final = [json.loads(line) for line in recorded("GAME:RpxjQkJ5", "gameState")][-1]
    position = GameBoard(None, SEIRAWAN)
    position.update(final["moves"].split())
    assert position.ply == 147 and position.board.turn == engine.BLACK


def test_lichess_king_takes_rook_castling_is_accepted_in_standard_chess():
    position = GameBoard(None, Variant("chess"))
    moves = "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1h1".split()
    position.update(moves)
    assert position.engine_moves()[-1] == "e1g1"
    assert position.board.fen().startswith("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1")


def test_parse_move_rejects_illegal_and_garbage():
    board = engine.Board()
    assert parse_move(board, "g1f3h") is not None
    assert parse_move(board, "e2e5") is None
    assert parse_move(board, "zz") is None


def test_parse_move_reads_both_castling_spellings():
    board = engine.Board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1", variant="chess")
    assert parse_move(board, "e1h1") == parse_move(board, "e1g1") == board.parse_uci("e1g1")
    assert parse_move(board, "e1a1") == board.parse_uci("e1c1")


def test_fallback_is_a_legal_move():
    board = engine.Board()
    move = fallback_move(board)
    assert move is not None and move in board.legal_moves


def test_chess960_without_a_fen_is_refused_cleanly():
    with pytest.raises(ValueError, match="without an initial FEN"):
        GameBoard(None, Variant("seirawan", True))


def test_unsupported_variant_is_refused_cleanly():
    with pytest.raises(ValueError, match="unsupported"):
        GameBoard(None, Variant("crazyhouse"))


def test_pgn_uses_gating_san_and_reads_back_with_board(tmp_path):
    position = GameBoard(None, SEIRAWAN)
    position.update(MATE_GAME)
    sans = position.san_moves()
    assert sans[3] == "Qxd5/E" and sans[-1] == "Qxd8/E#"
    outcome = final_outcome(None, None, position.board, True, False)
    result = outcome.result
    assert (result, outcome.termination, outcome.reason) == ("1-0", "Normal", "mate")
    from bot.wire.events import TimeControl

    headers = standard_headers(event="Casual seirawan game", site="https://www.pychess.org/abc",
                               white="SeirawanBot", black="Alice", variant=SEIRAWAN,
                               clock=TimeControl("clock", 300_000, 3_000), started_at=0)
    text = game_pgn(headers, sans, result)
    path = write_pgn(tmp_path / "games", "abc/../x", text)
    assert path == tmp_path / "games" / "abc_x.pgn"
    saved = path.read_text()
    assert '[Variant "Seirawan"]' in saved and '[Result "1-0"]' in saved and '[TimeControl "300+3"]' in saved
    assert saved.rstrip().endswith("Qxd8/E# 1-0")
    replay = engine.Board()
    movetext_part = saved.split("\n\n", 1)[1]
    for token in movetext_part.split():
        if token.endswith(".") or token == "1-0":
            continue
        replay.push_san(token)
    assert replay.fen() == MATE_FEN


def test_movetext_starting_with_black_uses_ellipsis():
    assert movetext(["e5", "Nf3"], "*", white_to_move_first=False, first_move_number=3) == "3... e5 4. Nf3 *"


def test_file_ids_are_sanitised():
    assert safe_file_id("../../etc/passwd") == "etc_passwd"
    assert safe_file_id("RpxjQkJ5") == "RpxjQkJ5"
    assert safe_file_id("///") == "game"


@pytest.mark.parametrize(("end", "resigned", "expected"), [
    (GameEnd("mate", "black"), False, ("0-1", "Normal")),
    (GameEnd("draw", None), False, ("1/2-1/2", "Normal")),
    (GameEnd("outoftime", "white"), False, ("1-0", "Time forfeit")),
    (GameEnd("insufficientMaterialClaim", None), False, ("1/2-1/2", "Normal")),
    (GameEnd("aborted", None), False, ("*", "Abandoned")),
    (GameEnd(None, None), True, ("0-1", "Normal")),
    (GameEnd(None, None), False, ("*", "Unknown")),
])
def test_final_outcome_from_server_word_and_resignation(end, resigned, expected):
    outcome = final_outcome(None, end, engine.Board(), True, resigned)
    assert (outcome.result, outcome.termination) == expected


def test_s_house_positions_are_rebuilt_from_move_lists_with_drops():
    # FENs from pyffish (Fairy-Stockfish, pychess.org's judge) for the same moves.
    moves = "e2e4 b8c6 f1b5 a7a6 b5c6 d7c6 N@e5 c6c5 e5f7".split()
    position = GameBoard(None, Variant("shouse"))
    for ply in range(1, len(moves) + 1):
        position.update(moves[:ply])
    assert position.board.fen() == "r1bqkbnr/1pp1pNpp/p7/2p5/4P3/8/PPPP1PPP/RNBQK1NR[EHPehb] b KQBCDGkqcdfg - 0 5"
    assert position.rebuilds == 0
    position.update(moves[:6])  # a takeback: rebuilt from the start
    assert position.rebuilds == 1
    assert position.board.fen() == "r1bqkbnr/1pp1pppp/p1p5/8/4P3/8/PPPP1PPP/RNBQK1NR[EHNehb] w KQBCDGkqcdfg - 0 4"
    assert position.engine_moves()[-1] == "d7c6"
