"""Fuzzing the rules' parsers with hypothesis: any input parses or raises the documented ValueError.

FEN text comes from the server (``initialFen``), UCI text from the server's move list and from engines, SAN
from users: none of them may crash the bot with anything but a ValueError, hang, or leave a board changed.
"""

from __future__ import annotations

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
    # A FEN that parses gives a usable board whose own FEN reads back the same.
    moves = list(board.legal_moves)
    assert Board(board.fen(), variant=variant, chess960=chess960).fen() == board.fen()
    for move in moves[:5]:
        board.push(move)
        board.pop()


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
