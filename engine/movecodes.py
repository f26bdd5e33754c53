"""The move word: a move as one int (cheap to create, compare and store in tables), and the names that build and
read it.

* bits 0-5: from square; for castling, the king's square; for a drop, the square dropped on
* bits 6-11: to square; for castling, the castling rook's square ("king takes rook", as in Chess960)
* bits 12-15: piece type of a promotion (flag PROMOTION), of the piece dropped (flag DROP), of the piece placed
  (flag PLACE) or of the piece gated in (any other flag); 0 = none
* bits 16-18: flag: NORMAL, DOUBLE_PUSH, EN_PASSANT, CASTLE (gate, if any, on the king's square),
  CASTLE_ROOK_GATE (gate on the rook's square), PROMOTION, DROP (S-House: a piece from the hand put on an
  empty square), PLACE (placement S-chess: a piece from hand put behind the back-rank piece on the from square,
  which is also the to square; see engine/entry_rules.py); a flag below PROMOTION is a move that may gate

Code outside this module builds a move with :func:`encode` and reads it with :func:`move_from`, :func:`move_to`,
:func:`move_piece` and :func:`move_kind` rather than with shifts. In the compiled build this module stays
Python, and ``movecodes.pxd`` holds the same functions as ``cpdef inline`` ones (the same bodies; a test
compares them), which the compiled modules cimport: there they are the C of the shifts written out. The pure
build pays a function call, so the few loops it runs over every move of a list (the pure move ordering, the
move generator's pin filter, the capture generator) keep the shifts, each field named in a comment.

Move lists of the search hold ordering words, ``key << MOVE_BITS | move`` (:mod:`engine.ordering`), and
:func:`keyed_move` takes the move back out of one.
"""

from __future__ import annotations

NORMAL, DOUBLE_PUSH, EN_PASSANT, CASTLE, CASTLE_ROOK_GATE, PROMOTION, DROP = 0, 1, 2, 3, 4, 5, 6
PLACE = 7

#: The bits of a move code: an ordering word keeps its key above them, the table its score.
MOVE_BITS = 20
MOVE_MASK = (1 << MOVE_BITS) - 1


def encode(frm: int, to: int, piece: int = 0, flag: int = NORMAL) -> int:
    """Pack a move into its int code."""
    return frm | to << 6 | piece << 12 | flag << 16


def move_from(m: int) -> int:
    """The square the move leaves (the king's square for castling, the square for a drop or placement)."""
    return m & 63


def move_to(m: int) -> int:
    """The square the move goes to (the castling rook's square for castling)."""
    return m >> 6 & 63


def move_piece(m: int) -> int:
    """The piece type a promotion makes, a drop or placement puts down or a gating brings in; 0 for none."""
    return m >> 12 & 15


def move_kind(m: int) -> int:
    """The flag: NORMAL, DOUBLE_PUSH, EN_PASSANT, CASTLE, CASTLE_ROOK_GATE, PROMOTION, DROP or PLACE."""
    return m >> 16


def from_to(m: int) -> int:
    """The from and to squares as one index, 0..4095 (the history table's)."""
    return m & 4095


def gated_piece(m: int) -> int:
    """The piece type the move brings in from the hand at a gate; 0 for none (a promotion, drop or placement
    brings nothing in through a gate)."""
    return move_piece(m) if move_kind(m) < PROMOTION else 0


def is_plain(m: int) -> bool:
    """A NORMAL move with nothing gated: no promotion, en passant, castling or double push."""
    return move_kind(m) == NORMAL and not move_piece(m)


def is_simple_move(m: int) -> bool:
    """A move of one piece and nothing else (NORMAL or DOUBLE_PUSH, nothing gated, captures included):
    :func:`engine.attacks.gives_check_quiet` can tell whether it checks without playing it."""
    return move_kind(m) <= DOUBLE_PUSH and not move_piece(m)


def keyed_move(word: int) -> int:
    """The move of an ordering word ``key << MOVE_BITS | move`` (engine.ordering)."""
    return word & MOVE_MASK
