"""Fuzzing the rules' parsers with hypothesis: any input parses or raises the documented ValueError.

FEN text comes from the server (``initialFen``), UCI text from the server's move list and from engines, SAN
from users: none of them may crash the bot with anything but a ValueError, hang, or leave a board changed.
"""

from __future__ import annotations

import pyffish
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Board, IllegalMoveError

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 0 1"
FEN_ALPHABET = "rnbqkpheRNBQKPHE12345678/[]- wbKQkqABCDEFGHabcdefgh0123456789~"

fen_like = st.one_of(
    st.text(alphabet=FEN_ALPHABET, max_size=90),
    st.text(max_size=60),
    # Mutations of a valid FEN: a character replaced, dropped or added.
    st.tuples(
        st.integers(0, len(START) - 1), st.sampled_from(FEN_ALPHABET), st.sampled_from(["replace", "drop", "add"])
    ).map(lambda t: START[: t[0]] + ("" if t[2] == "drop" else t[1]) + START[t[0] + (0 if t[2] == "add" else 1):]),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fen=fen_like, variant=st.sampled_from(["seirawan", "chess"]), chess960=st.booleans())
def test_any_fen_parses_or_raises_value_error(fen: str, variant: str, chess960: bool) -> None:
    try:
        board = Board(fen, variant=variant, chess960=chess960)
    except ValueError as error:
        assert "invalid FEN" in str(error)
        return
    # A FEN that parses gives a usable board whose own FEN reads back the same, except where Fairy-Stockfish's
    # text itself does not: a non-960 "K" or "Q" right held by an inner rook (king off the e-file, two rooks on a
    # wing) is written as "K" and read back as the outer rook's right. There our reading must be Fairy-Stockfish's.
    moves = list(board.legal_moves)
    reread = Board(board.fen(), variant=variant, chess960=chess960).fen()
    if reread != board.fen():
        assert reread == pyffish.get_fen(variant, board.fen(), [], chess960), (fen, board.fen(), reread)
    before = (board.fen(), sorted(move.uci() for move in moves))
    for move in moves[:5]:
        board.push(move)
        assert board.pop() == move
        assert (board.fen(), sorted(move.uci() for move in board.legal_moves)) == before, move.uci()


SQUARES = [f + r for f in "abcdefgh" for r in "12345678"]
uci_like = st.one_of(
    st.text(alphabet="abcdefgh12345678qrbnkhepQRBNKHEP0- ", max_size=7),
    st.text(max_size=8),
    st.builds(lambda a, b, c: a + b + c, st.sampled_from(SQUARES), st.sampled_from(SQUARES),
              st.sampled_from(["", "h", "e", "q", "H", "x"])),
)


@settings(max_examples=400, deadline=None)
@given(text=uci_like)
def test_any_uci_text_is_a_legal_move_or_an_illegal_move_error(text: str) -> None:
    board = Board("r3k2r/pppq1ppp/2n1bn2/3pp3/3PP3/2N1BN2/PPPQ1PPP/R3K2R[HEhe] w KQkqABCDFGHabcdfgh - 0 1")
    before = board.fen()
    try:
        move = board.push_uci(text)
    except IllegalMoveError as error:
        assert isinstance(error, ValueError) and before in str(error)
        assert board.fen() == before
        return
    assert board.peek() == move
    board.pop()
    assert board.fen() == before


san_like = st.one_of(
    st.text(alphabet="NBRQKHEabcdefgh12345678x=+#O-0/", max_size=9),
    st.text(max_size=8),
)


@settings(max_examples=400, deadline=None)
@given(text=san_like)
def test_any_san_text_is_a_legal_move_or_an_illegal_move_error(text: str) -> None:
    board = Board("r3k2r/pppq1ppp/2n1bn2/3pp3/3PP3/2N1BN2/PPPQ1PPP/R3K2R[HEhe] w KQkqABCDFGHabcdfgh - 0 1")
    before = board.fen()
    try:
        move = board.parse_san(text)
    except IllegalMoveError:
        assert board.fen() == before
        return
    assert move in board.legal_moves
    assert board.fen() == before


def test_an_inner_rook_castling_right_reads_back_as_fairy_stockfish_reads_it() -> None:
    """Found by the fuzz test above: 'Q' with the king on f1 and rooks on g1 and h1 gives the g1 rook the right
    (Fairy-Stockfish's reading), written 'K', which both programs read back as the h1 rook's right."""
    fen = "11111111/11111k11/8/8/8/8/11111111/11111KRR[H] w HQ"
    board = Board(fen, variant="seirawan")
    given = "8/5k2/8/8/8/8/8/5KRR[H] w HQ - 0 1"
    assert board.fen() == pyffish.get_fen("seirawan", given, []) == "8/5k2/8/8/8/8/8/5KRR[H] w KH - 0 1"
    assert sorted(m.uci() for m in board.legal_moves) == sorted(pyffish.legal_moves("seirawan", given, []))
    reread = Board(board.fen(), variant="seirawan").fen()
    assert reread == pyffish.get_fen("seirawan", board.fen(), []) == "8/5k2/8/8/8/8/8/5KRR[H] w K - 0 1"
