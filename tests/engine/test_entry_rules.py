"""The readings of the alternative S-chess rules chosen in docs/variants.md, one test per case, on the
positions given there (the random-game comparison with pyffish is tests/engine/test_entry_oracle.py)."""

from __future__ import annotations

import random

import pytest

from engine import HAWK, Board, IllegalMoveError
from engine.search import Searcher, SearchLimits

PLACEMENT = "seirawan-placement"
FORCED_ENTRY = "seirawan-forced-entry"


def ucis(board: Board) -> list[str]:
    return sorted(move.uci() for move in board.legal_moves)


def test_placement_alternates_one_piece_at_a_time_white_first() -> None:
    board = Board(variant=PLACEMENT)
    assert board.fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQkq - 0 1"
    assert len(board.legal_moves) == 16 and all("@" in m and m.endswith("1") for m in ucis(board))
    for uci in ("H@g1", "h@b8", "E@c1"):
        board.push_uci(uci)
    assert ucis(board) == ["E@a8", "E@c8", "E@d8", "E@e8", "E@f8", "E@g8", "E@h8"]
    board.push_san("E@g8")
    assert board.fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQCEGHkqbhge - 4 3"
    knight_moves = sorted(board.san(m) for m in board.legal_moves if m.from_square in (1, 6))
    assert knight_moves == ["Na3", "Nc3", "Nf3/H", "Nh3/H"]


def test_placement_allows_one_piece_per_file() -> None:
    board = Board(variant=PLACEMENT)
    board.push_uci("H@b1")
    board.push_uci("h@b8")
    assert ucis(board) == ["E@a1", "E@c1", "E@d1", "E@e1", "E@f1", "E@g1", "E@h1"]
    with pytest.raises(IllegalMoveError):
        board.push_uci("E@b1")
    with pytest.raises(ValueError, match="two pieces placed behind b1"):
        Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQBHBEkq - 4 3", variant=PLACEMENT)


def test_placement_never_puts_pieces_behind_king_and_castling_rook() -> None:
    board = Board(variant=PLACEMENT)
    board.push_uci("H@e1")
    board.push_uci("h@b8")
    assert ucis(board) == ["E@b1", "E@c1", "E@d1", "E@f1", "E@g1"]
    board = Board(variant=PLACEMENT)
    board.push_uci("H@h1")
    board.push_uci("h@e8")
    assert "E@e1" not in ucis(board) and "E@a1" in ucis(board)
    assert "e@a8" not in [m for m in ucis(Board(board.fen().replace(" w ", " b "), variant=PLACEMENT))]


def test_placement_entry_is_automatic_and_castling_brings_in_the_right_piece() -> None:
    rook_side = Board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R[E] w KQAEkq - 0 1", variant=PLACEMENT)
    assert [m for m in ucis(rook_side) if m.startswith(("a1", "e1"))] == [
        "a1b1e", "a1c1e", "a1d1e", "a1e1e", "e1d1", "e1f1", "e1g1"]
    assert rook_side.san(rook_side.parse_uci("e1c1")) == "O-O-O/Ea1"  # the Elephant behind a1 comes in
    assert rook_side.san(rook_side.parse_uci("e1g1")) == "O-O"
    assert rook_side.parse_uci("a1b1") == rook_side.parse_uci("a1b1e")  # the letter may be left out
    king_side = Board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R[H] w KQEHkq - 0 1", variant=PLACEMENT)
    assert king_side.san(king_side.parse_uci("e1g1")) == "O-O/He1"
    behind_rook = Board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R[H] w KQHHkq - 0 1", variant=PLACEMENT)
    castle = behind_rook.parse_uci("e1g1")  # the king's move, written without the rook-square gate
    assert castle.uci() == "h1e1h" and behind_rook.san(castle) == "O-O/Hh1"
    behind_rook.push(castle)
    assert behind_rook.fen().startswith("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RKH[] b kq ")


def test_placement_capture_on_the_square_forfeits_the_placed_piece() -> None:
    board = Board("rnb1kbnr/pppppppp/8/8/8/8/PqPPPPPP/RNBQKBNR[EHeh] b KQBHGEkqbhge - 0 5", variant=PLACEMENT)
    before = board.hash
    board.push_san("Qxb1")
    assert board.fen() == "rnb1kbnr/pppppppp/8/8/8/8/P1PPPPPP/RqBQKBNR[Eeh] w KQGEkqbhge - 0 6"
    assert board.pockets()[True] == {"H": 0, "E": 1}
    assert board.hash == board.compute_hash()
    board.pop()
    assert board.hash == before and board.pockets()[True] == {"H": 1, "E": 1}


def test_placement_fen_rejects_what_it_cannot_mean() -> None:
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    with pytest.raises(ValueError, match="placement field"):
        Board(f"{start}[EHeh] w KQBCDFGkqbcdfg - 0 1", variant=PLACEMENT)  # S-chess's gate letters
    with pytest.raises(ValueError, match="not in the hand"):
        Board(f"{start}[Eeh] w KQBHkq - 0 1", variant=PLACEMENT)
    with pytest.raises(ValueError, match="behind the king and behind a rook"):
        Board(f"{start}[EHeh] w KQEHAEkq - 0 1", variant=PLACEMENT)
    with pytest.raises(ValueError, match="Chess960"):
        Board(variant=PLACEMENT, chess960=True)


def test_placements_are_different_positions_for_the_hash() -> None:
    one, other = Board(variant=PLACEMENT), Board(variant=PLACEMENT)
    one.push_uci("H@b1")
    other.push_uci("H@g1")
    assert one.hash != other.hash


def test_forced_entry_start_allows_pawn_moves_and_knights_bringing_the_hawk() -> None:
    board = Board(variant=FORCED_ENTRY)
    pieces = [board.san(m) for m in board.legal_moves if m.from_square < 8]
    assert len(board.legal_moves) == 20 and sorted(pieces) == ["Na3/H", "Nc3/H", "Nf3/H", "Nh3/H"]
    board.push_san("Nf3/H")
    board.push_san("e5")
    # the Elephant next, by a bishop, knight or queen from its gate: Nf3 may not move, Ke1 and Rh1 neither
    pieces = sorted(board.san(m) for m in board.legal_moves if board.piece_at(m.from_square) not in ("P", None))
    assert pieces == ["Na3/E", "Nc3/E"]
    board.push_san("e3")
    board.push_san("d6")
    assert "Bb5/E+" in [board.san(m) for m in board.legal_moves]  # the bishop brings the Elephant in


def test_forced_entry_check_answered_only_by_the_king_allows_the_king_without_entry() -> None:
    fen = "4k3/pppppppp/8/8/8/5n2/PPPP3P/RN2K2R[EH] w KQB - 0 1"
    assert len(Board(fen).legal_moves) == 12
    board = Board(fen, variant=FORCED_ENTRY)
    assert ucis(board) == ["e1d1", "e1e2", "e1f1", "e1f2"]
    board.push_uci("e1e2")
    board.push_uci("f3g5")
    assert sorted(board.san(m) for m in board.legal_moves if m.from_square < 8) == ["Na3/H", "Nc3/H"]


def test_forced_entry_lapses_when_no_bishop_knight_or_queen_is_on_a_gate() -> None:
    board = Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R3K2R[EHeh] w KQkqbcdfg - 0 1", variant=FORCED_ENTRY)
    assert len(board.legal_moves) == 25
    assert not any(m.gate for m in board.legal_moves)
    assert {"e1g1", "e1c1", "a1d1", "h1f1"} <= set(ucis(board))


@pytest.mark.parametrize("variant", [PLACEMENT, FORCED_ENTRY])
def test_the_search_plays_legal_moves_from_random_positions(variant: str) -> None:
    rng = random.Random(5)
    searcher = Searcher()
    for _ in range(4):
        board = Board(variant=variant)
        for _ in range(rng.randrange(0, 30)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if board.is_game_over():
            continue
        result = searcher.search(board, SearchLimits(depth=3))
        assert board.move_of(result.best) in board.legal_moves


def test_the_search_places_the_hawk_or_elephant_first() -> None:
    board = Board(variant=PLACEMENT)
    result = Searcher().search(board, SearchLimits(depth=2))
    move = board.move_of(result.best)
    assert move.drop in (HAWK, 8) and move.from_square == move.to_square


def test_the_diagram_draws_a_placed_piece_behind_its_file() -> None:
    from engine import svg

    board = Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] b KQCEGHkqbh - 3 2", variant=PLACEMENT)
    text = svg.board(board)
    assert 'class="placed white elephant c1"' in text and 'class="placed white hawk g1"' in text
    assert 'class="placed black hawk b8"' in text
    assert svg.placed_pieces(board) == {2: "E", 6: "H", 57: "h"}
    assert 'class="gate c1"' in text  # the file it comes in by
    # the tray holds only Black's Elephant, still to be placed
    assert text.count('data-count="1"') == 1
