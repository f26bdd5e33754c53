"""The two alternative S-chess rules of M. Winther's program, placement and forced entry: what they change.

Both are S-chess underneath (``docs/variants.md`` states the rules and the readings chosen where the author's
words leave a case open): the same board, hand, gates, make/unmake and legality, a move that brings a piece in
being legal exactly when the same move without it is. The move generator makes S-chess's moves and hands them
to :func:`entry_moves`, which keeps the ones the variant allows:

* **Placement** (``Position.entry_rule == PLACEMENT``). While the side to move has a piece in hand that is not
  placed yet, its only moves are placements (flag ``PLACE``: ``H@b1`` puts the Hawk behind the piece on b1).
  Afterwards the gates are exactly the squares with a placed piece behind them, ``Position.placed[sq]`` says
  which piece, and entry is automatic: a move from such a square always brings that piece in (only the gated
  twin of the move is kept), no other move brings one in. A capture on such a square forfeits the piece
  (``Position`` takes it out of the hand). Placed pieces have Zobrist keys of their own (:data:`PLACED_KEYS`):
  two placements of the same pieces are different positions.
* **Forced entry** (``FORCED_ENTRY``). While the side to move has a piece in hand and a bishop, knight or queen
  still on its gate, each of its piece moves (not pawn moves) must bring in the Hawk (then the Elephant) with a
  move of a bishop, knight or queen; when no legal move does and no pawn can move, any legal move without entry
  may be played. Once no bishop, knight or queen is left on a gate, nothing can enter any more.
"""

from __future__ import annotations

import random
from typing import Any, Callable

from .movecodes import (
    CASTLE,
    CASTLE_ROOK_GATE,
    PLACE,
    encode,
    gated_piece,
    keyed_move,
    move_from,
    move_kind,
    move_piece,
    move_to,
)
from .state import PositionState
from .tables import (
    BACK_RANK_MASK,
    BISHOP,
    ELEPHANT,
    FILE_NAMES,
    HAWK,
    KNIGHT,
    PAWN,
    PIECE_SYMBOLS,
    QUEEN,
    SQUARE_NAMES,
    squares_of,
)
from .variants import FORCED_ENTRY, PLACEMENT

__all__ = ["FORCED_ENTRY", "PLACEMENT", "entry_moves", "placement_hash", "placement_field", "parse_placement_field"]

FenError = Callable[[str, str], ValueError]  # engine.fen.fen_error: (fen, reason) -> the error to raise

# The pieces that may bring a piece in under forced entry, as piece types.
_ENTERING_PIECES = (KNIGHT, BISHOP, QUEEN)

# Zobrist keys of placed pieces, at (signed piece code + 8) * 64 + gate square; their own generator, so that
# the keys of engine.tables (which opening books are fingerprinted with) stay as they are.
_rng = random.Random(0x91ACED)
PLACED_KEYS = [_rng.getrandbits(63) for _ in range(17 * 64)]


def placement_code(square: int, piece_type: int) -> int:
    """The move code of placing ``piece_type`` behind the piece on ``square``."""
    return encode(square, square, piece_type, PLACE)


def _own_gates(pos: PositionState, side: int) -> int:
    return pos.gates & BACK_RANK_MASK[0 if side == 1 else 1]


def unplaced(pos: PositionState, side: int) -> list[int]:
    """The piece types ``side`` still has to place (placement S-chess), Hawk first; empty once it is done."""
    hand = pos.hand
    placed = pos.placed
    left = {HAWK: hand[HAWK * side], ELEPHANT: hand[ELEPHANT * side]}
    for sq in squares_of(_own_gates(pos, side)):
        left[placed[sq]] -= 1
    return [piece_type for piece_type in (HAWK, ELEPHANT) if left[piece_type] > 0]


def placement_targets(pos: PositionState, side: int) -> list[int]:
    """The squares ``side`` may place a piece behind: its pieces (not pawns) on its back rank, one placed piece
    per file, and never one behind the king and another behind a rook it may castle with (the author's rule:
    castling brings in at most one piece)."""
    squares = list(pos.squares)
    us = 0 if side == 1 else 1
    rank = BACK_RANK_MASK[us]
    taken = pos.gates & rank
    king = pos.king_sq[us]
    rooks = pos.castling & rank
    out = []
    for sq in squares_of(rank):
        piece = squares[sq] * side
        if piece <= PAWN or taken >> sq & 1:
            continue
        if sq == king and taken & rooks:
            continue
        if rooks >> sq & 1 and taken >> king & 1:
            continue
        out.append(sq)
    return out


def entry_moves(pos: PositionState, moves: list[int]) -> list[int]:
    """The moves of ``moves`` (S-chess's legal moves in ``pos``) that the variant's entry rule allows, in
    their order; for the placement phase, the placements instead."""
    if pos.entry_rule == PLACEMENT:
        return _placement_moves(pos, moves)
    if pos.entry_rule == FORCED_ENTRY:
        return _forced_entry_moves(pos, moves, True)
    return moves


def entry_legal(pos: PositionState) -> list[int]:
    """The legal moves of ``pos`` (placement or forced entry): the placements while the side to move has any to
    make, else S-chess's legal moves that the entry rule allows."""
    rule = pos.entry_rule
    if rule == PLACEMENT and placing_now(pos):
        return placements(pos)
    pos.entry_rule = 0  # S-chess's moves (engine.movegen), then the filter
    try:
        moves: list[int] = pos.generate_legal()  # type: ignore[attr-defined]
    finally:
        pos.entry_rule = rule
    return entry_moves(pos, moves)


def placing_now(pos: PositionState) -> bool:
    """Placement S-chess: whether the side to move still has a piece to place (its moves are placements)."""
    side = pos.side
    return pos.hand[HAWK * side] + pos.hand[ELEPHANT * side] > len(squares_of(_own_gates(pos, side)))


def placements(pos: PositionState) -> list[int]:
    """The placement moves of the side to move: each piece type it has left to place behind each target."""
    side = pos.side
    targets = placement_targets(pos, side)
    return [placement_code(sq, piece_type) for piece_type in unplaced(pos, side) for sq in targets]


def _placement_moves(pos: PositionState, moves: list[int]) -> list[int]:
    """Automatic entry: from a square with a placed piece behind it only the move that brings that piece in
    (castling: in from the king's square, else the rook's, if either has one), elsewhere only plain moves (the
    move generator makes gated twins on gate squares only, and the gates are the placed pieces' squares)."""
    gates = _own_gates(pos, pos.side)
    if not gates:
        return moves
    placed = pos.placed
    out = []
    for m in moves:
        flag = move_kind(m)
        frm = move_from(m)
        if flag == CASTLE or flag == CASTLE_ROOK_GATE:
            rook = move_to(m)
            if gates >> frm & 1:
                wanted = encode(frm, rook, placed[frm], CASTLE)
            elif gates >> rook & 1:
                wanted = encode(frm, rook, placed[rook], CASTLE_ROOK_GATE)
            else:
                wanted = encode(frm, rook, 0, CASTLE)
            if m == wanted:
                out.append(m)
        elif gates >> frm & 1:
            if move_piece(m) == placed[frm]:
                out.append(m)
        else:
            out.append(m)
    return out


def _forced_entry_moves(pos: PositionState, moves: list[int], fallback: bool) -> list[int]:
    """Forced entry's filter (see the module's docstring); ``fallback``: when nothing is allowed, every move
    without entry (False for a list of captures alone, which cannot tell)."""
    side = pos.side
    hand = pos.hand
    if not hand[HAWK * side] + hand[ELEPHANT * side]:
        return moves
    required = HAWK if hand[HAWK * side] else ELEPHANT
    squares = list(pos.squares)
    if not any(squares[sq] * side in _ENTERING_PIECES for sq in squares_of(_own_gates(pos, side))):
        return [m for m in moves if not gated_piece(m)]  # nothing can enter any more
    kept = [m for m in moves
            if squares[move_from(m)] * side == PAWN
            or (gated_piece(m) == required and squares[move_from(m)] * side in _ENTERING_PIECES)]
    if kept or not fallback:
        return kept
    return [m for m in moves if not gated_piece(m)]


def entry_captures(pos: PositionState, out: Any, start: int, count: int) -> int:
    """The keyed captures ``out[start:start + count]`` (``key << 20 | move``, engine.attacks.captures_into)
    reduced in place to those the entry rule allows; returns how many are left. Under forced entry a
    position where only the fallback allows moves (no allowed move at all) keeps none: the quiescence search
    then stands pat, it never plays a move the rules forbid."""
    moves = [keyed_move(out[i]) for i in range(start, start + count)]
    if pos.entry_rule == PLACEMENT:
        allowed = set() if placing_now(pos) else set(_placement_moves(pos, moves))
    else:
        allowed = set(_forced_entry_moves(pos, moves, False))
    n = start
    for i in range(start, start + count):
        if keyed_move(out[i]) in allowed:
            out[n] = out[i]
            n += 1
    return n - start


def placement_hash(pos: PositionState) -> int:
    """The Zobrist keys of the placed pieces of ``pos`` (0 outside placement S-chess)."""
    h = 0
    if pos.entry_rule != PLACEMENT:
        return h
    for sq in squares_of(pos.gates):
        code = pos.placed[sq] if sq < 8 else -pos.placed[sq]
        h ^= PLACED_KEYS[(code + 8) * 64 + sq]
    return h


def placement_field(pos: PositionState) -> str:
    """The FEN castling field of placement S-chess: each side's castling rights (``K``, ``Q``), then each
    placed piece as its file letter and its piece letter (``BH``: a Hawk behind b1), white in upper case
    first (``KQBHGEkqbhge``), ``-`` for none."""
    out = ""
    for color, side in ((0, 1), (1, -1)):
        rank = BACK_RANK_MASK[color]
        king = pos.king_sq[color]
        rights = pos.castling & rank
        text = ""
        if rights >> king:
            text += "K"
        if rights & ((1 << king) - 1):
            text += "Q"
        for sq in squares_of(pos.gates & rank):
            text += FILE_NAMES[sq & 7] + PIECE_SYMBOLS[pos.placed[sq]]
        out += text.upper() if side == 1 else text.lower()
    return out or "-"


def parse_placement_field(pos: PositionState, fen_error: FenError, fen: str,
                          text: str) -> tuple[str, list[tuple[int, int]]]:
    """Split a placement castling field into the castling rights (``KQkq`` letters) and the placed pieces as
    (square, signed piece code); ``fen_error(fen, reason)`` makes the error for a malformed field. Any other
    variant's field is all castling rights and gates."""
    rights = ""
    placed: list[tuple[int, int]] = []
    i = 0
    if text == "-" or pos.entry_rule != PLACEMENT:
        return text, placed
    while i < len(text):
        ch = text[i]
        if ch in "KQkq":
            rights += ch
            i += 1
            continue
        piece = text[i + 1] if i + 1 < len(text) else ""
        if ch.lower() not in FILE_NAMES or piece.lower() not in ("h", "e") or ch.isupper() != piece.isupper():
            raise fen_error(fen, f"invalid placement field {text!r}: expected K, Q and file-piece pairs such "
                                 "as BH (a Hawk behind b1)")
        file = FILE_NAMES.index(ch.lower())
        piece_type = HAWK if piece.lower() == "h" else ELEPHANT
        placed.append((file, piece_type) if ch.isupper() else (56 + file, -piece_type))
        i += 2
    return rights or "-", placed


def check_placed(pos: PositionState, fen_error: FenError, fen: str, placed: list[tuple[int, int]]) -> None:
    """Put the placed pieces of a FEN on ``pos`` (gates and ``placed``), or raise naming what is wrong (nothing
    to do outside placement S-chess)."""
    if pos.entry_rule != PLACEMENT:
        return
    squares = list(pos.squares)
    count = [0] * 17
    gates = 0
    for sq, code in placed:
        side = 1 if code > 0 else -1
        if squares[sq] * side <= PAWN:
            raise fen_error(fen, f"a piece placed behind {SQUARE_NAMES[sq]}, which holds no piece of "
                                 "its side")
        if gates >> sq & 1:
            raise fen_error(fen, f"two pieces placed behind {SQUARE_NAMES[sq]}")
        count[code] += 1
        if count[code] > pos.hand[code]:
            raise fen_error(fen, "a placed piece that is not in the hand")
        gates |= 1 << sq
        pos.placed[sq] = abs(code)
    for color in (0, 1):
        rank = BACK_RANK_MASK[color]
        king = pos.king_sq[color]
        if gates >> king & 1 and gates & pos.castling & rank:
            raise fen_error(fen, "pieces placed behind the king and behind a rook it may castle with")
    pos.gates = gates
