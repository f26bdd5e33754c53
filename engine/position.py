"""The S-chess position: state and make/unmake on plain ints; FEN in :mod:`engine.fen`, move generation in
:mod:`engine.movegen`, move codes in :mod:`engine.movecodes`.

This is the hot core shared by the search and the public :class:`engine.board.Board`. Moves here are ints;
``Board`` wraps them into :class:`engine.board.Move` objects at the API edge.

Board: 64 signed piece codes (white > 0, black < 0, see :mod:`engine.tables`): a list in the pure build, a C
``int[64]`` in the compiled one (``state.pxd``), as are the two king squares. Compiled code reads and writes
them as C values; Python code outside the compiled modules that reads ``pos.squares`` gets a copy as a list, so
it must not change the board through it (nothing outside this package's compiled modules does).

Legality follows Fairy-Stockfish: a gating move is legal exactly when the same move without the gated piece is
legal (the gated piece can neither block a check nor shield the king).
"""

from __future__ import annotations

from .entry_rules import PLACED_KEYS
from .fen import fen_error, read_fen, write_fen, zobrist_hash
from .movecodes import (
    CASTLE_ROOK_GATE,
    DOUBLE_PUSH,
    DROP,
    EN_PASSANT,
    PLACE,
    PROMOTION,
    encode,
    gated_piece,
    move_from,
    move_kind,
    move_piece,
    move_to,
)
from .movegen import MoveGenerator
from .state import UNDO_MASKS, UNDO_WORDS, mask_hash
from .tables import (
    BACK_RANK_MASK,
    ELEPHANT,
    GATE_TYPES,
    HAND_SLOTS,
    HAWK,
    KING,
    RANK_1_MASK,
    RANK_8_MASK,
    ZOBRIST_CASTLING,
    ZOBRIST_EP,
    ZOBRIST_PIECE,
    ZOBRIST_POCKET,
    ZOBRIST_SIDE,
)
from .variants import PLACEMENT, START_FENS, VARIANTS, entry_rule

# The Zobrist keys of pieces and pieces in hand as flat lists: (piece code + 8) * 64 + square and
# (piece code + 8) * HAND_SLOTS + count (C arrays in the compiled build, position.pxd, which a negative index
# would leave).
_ZOBRIST_AT = [ZOBRIST_PIECE[_q][_sq] for _q in range(-8, 9) for _sq in range(64)]
_ZOBRIST_HAND_AT = [ZOBRIST_POCKET[_q][_n] for _q in range(-8, 9) for _n in range(HAND_SLOTS)]
assert HAND_SLOTS == 64  # position.pxd sizes _ZOBRIST_HAND_AT for it
_ZOBRIST_EP = ZOBRIST_EP
_ZOBRIST_PLACED_AT = PLACED_KEYS  # placement S-chess: the keys of placed pieces, laid out as _ZOBRIST_AT
_PLACEMENT = PLACEMENT
# Square masks as C unsigned ints in the compiled build (position.pxd): 1 << sq of a C int would overflow.
_ONE = 1
_RANK_1 = RANK_1_MASK
_RANK_8 = RANK_8_MASK

# The move-code flags (CASTLE, PROMOTION, ...) are C constants of this module in the compiled build
# (position.pxd), not importable from it: take them from engine.movecodes.
__all__ = [
    "BACK_RANK_MASK", "GATE_TYPES", "MoveObserver", "Position", "RANK_1_MASK", "RANK_8_MASK", "START_FENS",
    "VARIANTS", "encode", "fen_error",
]


class MoveObserver:
    """Follows the moves made on a position: ``push(pos)`` after each ``make``, ``pop()`` after each
    ``unmake`` (null moves are not reported). The learned evaluation's accumulator (:mod:`engine.nnue`) is one;
    the rules know nothing more of it."""

    def push(self, pos: Position) -> None:
        pass

    def pop(self) -> None:
        pass


class Position(MoveGenerator):
    """Position state with make/unmake and legal move generation on int move codes.

    Attributes meant for readers (the search and Board): ``squares`` (64 signed codes), ``side`` (1 white,
    -1 black), ``king_sq`` ([white, black]), ``castling`` (bitmask of rook squares with a castling right),
    ``gates`` (bitmask of squares whose original piece has not moved yet, both colours, only while that
    side has pieces in hand), ``ep`` (en passant target square or -1), ``hand`` (17-slot list indexed by
    signed piece code), ``halfmove``, ``hash`` (Zobrist key of everything except gates), ``accumulator`` (a
    :class:`MoveObserver` told of every make and unmake, the learned evaluation's while a search uses it;
    else None).
    """

    accumulator: MoveObserver | None

    def __init__(self, fen: str | None = None, variant: str = "seirawan", chess960: bool = False) -> None:
        self.entry_rule = entry_rule(variant, chess960)  # ValueError for an unknown variant
        self.variant = variant
        self.chess960 = bool(chess960)
        self.accumulator = None
        self.placed = [0] * 64
        self.set_fen(START_FENS[variant] if fen is None else fen)

    # ------------------------------------------------------------------ FEN (engine.fen)

    def set_fen(self, fen: str) -> None:
        """Load a FEN (with optional ``[hand]`` after the board); ValueError naming the problem."""
        read_fen(self, fen)

    def fen(self) -> str:
        """The FEN exactly as Fairy-Stockfish writes it for this variant."""
        return write_fen(self)

    def compute_hash(self) -> int:
        """The Zobrist key from scratch: pieces, side, castling rights, en passant file, pieces in hand."""
        return zobrist_hash(self)

    # ------------------------------------------------------------------ make / unmake

    def make(self, code: int) -> None:
        """Play a move code (assumed legal in this position)."""
        squares = self.squares
        frm = move_from(code)
        to = move_to(code)
        flag = move_kind(code)
        side = self.side
        h = self.hash
        ep = self.ep
        self._push_undo(code, squares[to])
        # What the move may change, for the accumulator: the squares written (more below) and the hands.
        self.changed_squares = _ONE << frm | _ONE << to
        self.hand_changed = False
        # Each Zobrist key goes through the local z before the XOR: a C long long in the compiled build
        # (position.pxd), so the hash is updated in C rather than with Python ints; the same under CPython.
        if ep >= 0:
            z = _ZOBRIST_EP[ep]
            h ^= z
            self.ep = -1
        piece = squares[frm]
        p = (piece + 8) * 64  # the moving piece's keys in _ZOBRIST_AT
        if flag <= DOUBLE_PUSH:
            captured = squares[to]
            squares[frm] = 0
            squares[to] = piece
            z = _ZOBRIST_AT[p + frm]
            h ^= z
            z = _ZOBRIST_AT[p + to]
            h ^= z
            if captured:
                z = _ZOBRIST_AT[(captured + 8) * 64 + to]
                h ^= z
                self.halfmove = 0
                if self.drops:  # S-House: the captured piece goes to our hand
                    z = self._capture_to_hand(captured, to, side)
                    h ^= z
            elif piece == side:
                self.halfmove = 0
                if flag:  # double push: an en passant square only if an enemy pawn next to it could take
                    f = to & 7
                    if (f > 0 and squares[to - 1] == -side) or (f < 7 and squares[to + 1] == -side):
                        target = (frm + to) >> 1
                        self.ep = target
                        z = _ZOBRIST_EP[target]
                        h ^= z
            else:
                self.halfmove += 1
            if piece == KING or piece == -KING:
                self.king_sq[0 if side == 1 else 1] = to
            elif self.promoted >> frm & 1:  # a promoted piece keeps its mark (drop variants)
                self.promoted ^= _ONE << frm | _ONE << to
        elif flag == PROMOTION:
            captured = squares[to]
            new_piece = move_piece(code) * side
            squares[frm] = 0
            squares[to] = new_piece
            z = _ZOBRIST_AT[p + frm]
            h ^= z
            z = _ZOBRIST_AT[(new_piece + 8) * 64 + to]
            h ^= z
            if captured:
                z = _ZOBRIST_AT[(captured + 8) * 64 + to]
                h ^= z
                if self.drops:
                    z = self._capture_to_hand(captured, to, side)
                    h ^= z
            if self.drops:
                self.promoted |= _ONE << to
            self.halfmove = 0
        elif flag == EN_PASSANT:
            victim_sq = to - 8 * side
            squares[frm] = 0
            squares[to] = piece
            squares[victim_sq] = 0
            self.changed_squares |= _ONE << victim_sq
            z = _ZOBRIST_AT[p + frm]
            h ^= z
            z = _ZOBRIST_AT[p + to]
            h ^= z
            z = _ZOBRIST_AT[(8 - piece) * 64 + victim_sq]
            h ^= z
            if self.drops:
                z = self._capture_to_hand(-piece, victim_sq, side)
                h ^= z
            self.halfmove = 0
        elif flag == DROP:  # S-House: a piece from our hand on the empty square to (= frm)
            dropped = move_piece(code) * side
            squares[to] = dropped
            hand = self.hand
            count = hand[dropped]
            hand[dropped] = count - 1
            self.hand_changed = True
            z = _ZOBRIST_AT[(dropped + 8) * 64 + to]
            h ^= z
            z = _ZOBRIST_HAND_AT[(dropped + 8) * HAND_SLOTS + count]
            h ^= z
            z = _ZOBRIST_HAND_AT[(dropped + 8) * HAND_SLOTS + count - 1]
            h ^= z
            self.halfmove = 0
        elif flag == PLACE:
            return _make_placement(self, code, h)
        else:  # castling: from = king, to = rook
            king_to, rook_to = self._castle_info[to][:2]
            rook = squares[to]
            squares[frm] = 0
            squares[to] = 0
            squares[king_to] = piece
            squares[rook_to] = rook
            self.changed_squares |= _ONE << king_to | _ONE << rook_to
            z = _ZOBRIST_AT[p + frm]
            h ^= z
            z = _ZOBRIST_AT[p + king_to]
            h ^= z
            z = _ZOBRIST_AT[(rook + 8) * 64 + to]
            h ^= z
            z = _ZOBRIST_AT[(rook + 8) * 64 + rook_to]
            h ^= z
            self.king_sq[0 if side == 1 else 1] = king_to
            self.halfmove += 1
        self.hash = h ^ ZOBRIST_SIDE
        # Castling rights and gates live on the back ranks only: skip the (64-bit, under PyPy big-integer) masks
        # for any other move.
        if frm < 8 or frm > 55 or to < 8 or to > 55:
            self._update_back_rank(code, frm, to, flag, side)
        self.side = -side
        self.ply += 1
        if self.accumulator is not None:  # the learned evaluation's, while a search uses it
            self.accumulator.push(self)

    def _capture_to_hand(self, captured: int, sq: int, side: int) -> int:
        """Put the piece captured on ``sq`` into the hand of ``side`` (the captor), in its colour, a promoted
        piece as a pawn; returns the change of the hash (part of ``make`` in drop variants)."""
        bit = _ONE << sq
        if self.promoted & bit:
            self.promoted ^= bit
            gained = side
        else:
            gained = -captured
        hand = self.hand
        count = hand[gained]
        hand[gained] = count + 1
        self.hand_changed = True
        z = _ZOBRIST_HAND_AT[(gained + 8) * HAND_SLOTS + count]
        h = z
        z = _ZOBRIST_HAND_AT[(gained + 8) * HAND_SLOTS + count + 1]
        h ^= z
        return h

    def _push_undo(self, code: int, captured: int) -> None:
        """Record what ``unmake`` needs to take back ``code`` (-1: a null move) before ``make`` changes it."""
        n = self.undo_len
        i = n * UNDO_WORDS
        if i + UNDO_WORDS > len(self.undo):
            self._grow_undo()
        # self.undo and self.undo_masks at each use rather than in locals: in the compiled build a local typed
        # memoryview takes and drops a reference to the buffer at every call (two atomic operations).
        self.undo[i] = code
        self.undo[i + 1] = captured
        self.undo[i + 2] = self.ep
        self.undo[i + 3] = self.halfmove
        self.undo[i + 4] = self.hash
        self.undo_masks[UNDO_MASKS * n] = self.castling
        self.undo_masks[UNDO_MASKS * n + 1] = self.gates
        self.undo_masks[UNDO_MASKS * n + 2] = self.promoted
        self.undo_len = n + 1

    def _update_back_rank(self, code: int, frm: int, to: int, flag: int, side: int) -> None:
        """The castling rights and gates after a move from or to a back-rank square (part of ``make``)."""
        squares = self.squares
        h = self.hash
        # The masks go through typed locals: C unsigned ints in the compiled build (position.pxd), so the
        # rights and gates are updated without a Python int.
        castling = self.castling
        if castling:
            keep = self._castle_clear[frm]
            new_castling = castling & keep
            keep = self._castle_clear[to]
            new_castling &= keep
            if new_castling != castling:
                z = mask_hash(castling ^ new_castling, ZOBRIST_CASTLING)
                h ^= z
                self.castling = new_castling
        gates = self.gates
        if gates:
            if self.entry_rule == _PLACEMENT and gates >> to & 1 and (to > 55 if side == 1 else to < 8):
                h = _forfeit_placed(self, to, -side, h)
            gates &= ~(_ONE << frm | _ONE << to)
            gate_type = gated_piece(code)
            if gate_type:
                gated = gate_type * side
                gate_sq = to if flag == CASTLE_ROOK_GATE else frm
                squares[gate_sq] = gated
                hand = self.hand
                count = hand[gated]
                hand[gated] = count - 1
                self.hand_changed = True
                z = _ZOBRIST_AT[(gated + 8) * 64 + gate_sq]  # through z: see make
                h ^= z
                z = _ZOBRIST_HAND_AT[(gated + 8) * HAND_SLOTS + count]
                h ^= z
                z = _ZOBRIST_HAND_AT[(gated + 8) * HAND_SLOTS + count - 1]
                h ^= z
                if self.entry_rule == _PLACEMENT:
                    z = _ZOBRIST_PLACED_AT[(gated + 8) * 64 + gate_sq]
                    h ^= z
                # S-chess: an empty hand ends the gates for good; in S-House captures refill it
                if not self.drops and hand[HAWK * side] + hand[ELEPHANT * side] == 0:
                    gates &= ~(_RANK_1 if side == 1 else _RANK_8)
            self.gates = gates
        self.hash = h

    def unmake(self) -> int:
        """Take back the last move; returns its code."""
        n = self.undo_len - 1
        if n < 0:
            raise IndexError("unmake: no move to take back")
        self.undo_len = n
        i = n * UNDO_WORDS  # self.undo and self.undo_masks at each use, not in locals: see _push_undo
        code = self.undo[i]
        captured = self.undo[i + 1]
        ep = self.undo[i + 2]
        halfmove = self.undo[i + 3]
        h = self.undo[i + 4]
        castling = self.undo_masks[UNDO_MASKS * n]
        gates = self.undo_masks[UNDO_MASKS * n + 1]
        squares = self.squares
        frm = move_from(code)
        to = move_to(code)
        flag = move_kind(code)
        side = -self.side  # the side that made the move
        self.side = side
        self.castling = castling
        self.ep = ep
        self.halfmove = halfmove
        self.hash = h
        self.ply -= 1
        gate_type = gated_piece(code)
        if gate_type:
            self.hand[gate_type * side] += 1
        if self.entry_rule == _PLACEMENT and gates >> to & 1 and captured * side < 0:
            self.hand[-self.placed[to] * side] += 1  # the piece forfeited by the capture comes back
        self.gates = gates
        if self.drops:
            self._undo_drop_game(code, to, flag, side, captured)
        if flag <= DOUBLE_PUSH:
            piece = squares[to]
            squares[frm] = piece
            squares[to] = captured
            if piece == KING or piece == -KING:
                self.king_sq[0 if side == 1 else 1] = frm
        elif flag == PROMOTION:
            squares[frm] = side
            squares[to] = captured
        elif flag == EN_PASSANT:
            squares[frm] = side
            squares[to] = 0
            squares[to - 8 * side] = -side
        elif flag == DROP:
            squares[to] = 0
        elif flag != PLACE:  # castling (a placement left the board as it was)
            king_to, rook_to = self._castle_info[to][:2]
            king = squares[king_to]
            rook = squares[rook_to]
            squares[king_to] = 0
            squares[rook_to] = 0
            squares[frm] = king
            squares[to] = rook
            self.king_sq[0 if side == 1 else 1] = frm
        if self.accumulator is not None:
            self.accumulator.pop()
        return code

    def make_null(self) -> None:
        """Pass the move (for null-move pruning in the search); undo with unmake_null."""
        self._push_undo(-1, 0)
        h = self.hash ^ ZOBRIST_SIDE
        if self.ep >= 0:
            z = _ZOBRIST_EP[self.ep]  # through z: see make
            h ^= z
            self.ep = -1
        self.hash = h
        self.side = -self.side
        self.halfmove += 1
        self.ply += 1

    def unmake_null(self) -> None:
        n = self.undo_len - 1
        self.undo_len = n
        self.ep = self.undo[n * UNDO_WORDS + 2]  # self.undo, not a local: see _push_undo
        self.halfmove = self.undo[n * UNDO_WORDS + 3]
        self.hash = self.undo[n * UNDO_WORDS + 4]
        self.side = -self.side
        self.ply -= 1


def _make_placement(pos: Position, code: int, h: int) -> None:
    """The rest of :meth:`Position.make` for a placement (``h``: the hash so far): the piece goes behind the
    piece on the move's square, a gate of the placed piece's type (engine.entry_rules)."""
    sq = move_from(code)
    piece_type = move_piece(code)
    pos.gates |= _ONE << sq
    pos.placed[sq] = piece_type
    z = _ZOBRIST_PLACED_AT[(piece_type * pos.side + 8) * 64 + sq]
    h ^= z
    pos.hash = h ^ ZOBRIST_SIDE
    pos.halfmove += 1
    pos.side = -pos.side
    pos.ply += 1
    if pos.accumulator is not None:  # a placement changes the gates only
        pos.accumulator.push(pos)


def _forfeit_placed(pos: Position, sq: int, owner: int, h: int) -> int:
    """Placement S-chess: the piece placed behind ``sq`` (of side ``owner``), whose piece was just
    captured there, leaves the game; returns the hash ``h`` updated."""
    placed = pos.placed[sq] * owner
    hand = pos.hand
    count = hand[placed]
    hand[placed] = count - 1
    pos.hand_changed = True
    z = _ZOBRIST_PLACED_AT[(placed + 8) * 64 + sq]
    h ^= z
    z = _ZOBRIST_HAND_AT[(placed + 8) * HAND_SLOTS + count]
    h ^= z
    z = _ZOBRIST_HAND_AT[(placed + 8) * HAND_SLOTS + count - 1]
    h ^= z
    return h
