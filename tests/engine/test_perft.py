"""Perft: legal move counts against the published numbers (S-chess numbers verified with Fairy-Stockfish).

Depths here finish in a few seconds; the deep ones (S-chess start perft(5) = 27,639,803) belong to the
benchmark: ``python -m engine perft 5``.
"""

from __future__ import annotations

import pytest

from engine import Board, perft, perft_divide
from engine.perft import perft_full

SCHESS = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 0 1", False, [28, 784, 24830, 782599]),
    ("reb1k2r/ppppqppp/2nb1n2/4p3/4P3/N1P2N2/PB1PQPPP/RE2KBHR[h] b KQkqc - 3 7", False, [35, 876, 30174]),
    ("qbbrnkrn/pppppppp/8/8/8/8/PPPPPPPP/QBBRNKRN[HEhe] w ABCDEFGHabcdefgh - 0 1", True, [26, 676, 21170]),
    ("rnbqk2r/pppppppp/8/8/8/5N2/PPPPPPBP/RNBQK2R[HEhe] w KQkqABCDFGabcdfgh - 0 1", False, [39, 1402, 50893]),
    ("r1bqkbn1/pppppp2/2n5/6p1/2B1P3/2P5/PP1P1PP1/RNBQK1Nr[EHeh] w cdfgBCDGQq - 1 6", False, [50, 1892, 81686]),
    ("4k3/8/8/8/8/8/8/4KB1r[HEhe] w F - 0 1", False, [4, 56, 1078, 16439]),
    ("r1bqkbn1/pppppp2/8/6p1/Q2nP3/PBP5/1P1P1PP1/RNB1K2r[EHeh] w cdfgBCQq - 1 10", False, [0]),
]

# The classic standard-chess suite (chessprogramming.org "Perft Results").
CHESS = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", [20, 400, 8902, 197281]),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", [48, 2039, 97862]),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", [14, 191, 2812, 43238]),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", [6, 264, 9467]),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", [44, 1486, 62379]),
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", [46, 2079, 89890]),
]

# Chess960 positions from the published Chess960 perft list (Shredder castling fields).
CHESS960 = [
    ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", [21, 528, 12189]),
    ("2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9", [21, 807, 18002]),
    ("b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9", [20, 479, 10471]),
    ("qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9", [22, 593, 13440]),
]


@pytest.mark.parametrize("fen,chess960,expected", SCHESS)
def test_schess_perft_matches_fairy_stockfish(fen: str, chess960: bool, expected: list[int]) -> None:
    board = Board(fen, chess960=chess960)
    assert [perft(board, depth) for depth in range(1, len(expected) + 1)] == expected
    assert board.fen() == Board(fen, chess960=chess960).fen(), "perft must leave the board as it found it"


@pytest.mark.parametrize("fen,expected", CHESS)
def test_standard_chess_perft_suite(fen: str, expected: list[int]) -> None:
    board = Board(fen, variant="chess")
    assert [perft(board, depth) for depth in range(1, len(expected) + 1)] == expected


@pytest.mark.parametrize("fen,expected", CHESS960)
def test_chess960_perft_suite(fen: str, expected: list[int]) -> None:
    board = Board(fen, variant="chess", chess960=True)
    assert [perft(board, depth) for depth in range(1, len(expected) + 1)] == expected


def test_start_position_divide_depth_3() -> None:
    expected = (
        "a2a3:756 a2a4:924 b1a3:728 b1a3e:588 b1a3h:588 b1c3:784 b1c3e:644 b1c3h:644 b2b3:924 b2b4:925 "
        "c2c3:924 c2c4:1009 d2d3:1425 d2d4:1510 e2e3:1677 e2e4:1678 f2f3:756 f2f4:841 g1f3:784 g1f3e:644 "
        "g1f3h:644 g1h3:728 g1h3e:588 g1h3h:588 g2g3:924 g2g4:925 h2h3:756 h2h4:924"
    )
    want = {item.split(":")[0]: int(item.split(":")[1]) for item in expected.split()}
    assert perft_divide(Board(), 3) == want
    assert sum(want.values()) == 24830


def test_full_make_unmake_perft_agrees_with_counting_perft() -> None:
    board = Board("reb1k2r/ppppqppp/2nb1n2/4p3/4P3/N1P2N2/PB1PQPPP/RE2KBHR[h] b KQkqc - 3 7")
    assert perft_full(board, 3) == 30174


def test_public_api_perft_with_push_and_pop() -> None:
    """The loop a user writes (list(legal_moves), push, pop) gives the same counts."""

    def count(board: Board, depth: int) -> int:
        if depth == 0:
            return 1
        total = 0
        for move in list(board.legal_moves):
            board.push(move)
            total += count(board, depth - 1)
            board.pop()
        return total

    board = Board()
    assert count(board, 3) == 24830
    assert board.fen() == Board().fen()
