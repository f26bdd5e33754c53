"""The fields of a position, declared once: :class:`PositionState`, the base of the move generator
(:mod:`engine.movegen`) and so of :class:`engine.position.Position`, with its undo records and the hash of a
square mask.

In the compiled build (``state.pxd``) the board and the king squares are C arrays, the masks C unsigned ints and
the undo records typed memoryviews of their ``array`` buffers.
"""

from __future__ import annotations

from array import array

from .movecodes import CASTLE, CASTLE_ROOK_GATE, DROP, EN_PASSANT, move_piece
from .tables import ELEPHANT, HAWK


def mask_hash(mask: int, keys: list[int]) -> int:
    """XOR of ``keys[sq]`` over the set bits of ``mask`` (castling rights: compiled with the rules, since make
    calls it)."""
    h = 0
    while mask:
        low = mask & -mask  # a C unsigned long long in the compiled build, where -mask wraps to the same bit
        z = keys[_LOW_BIT_SQUARE[low % 67]]  # a C long long in the compiled build: the XOR is C
        h ^= z
        mask ^= low
    return h


# The square of a one-bit mask 1 << sq at index (1 << sq) % 67 (the 64 remainders differ): what
# ``bit_length() - 1`` gives, as a lookup that compiles to C (a C array in the compiled build).
_LOW_BIT_SQUARE = [0] * 67
for _sq in range(64):
    _LOW_BIT_SQUARE[(1 << _sq) % 67] = _sq


UNDO_WORDS = 5  # signed words of one undo record (see PositionState)
UNDO_MASKS = 3  # unsigned words of one undo record: castling rights, gates, promoted pieces
UNDO_ENTRIES = 256  # undo records a new position has room for; the buffers double when a game needs more
_UNDO_WORDS = UNDO_WORDS  # a C int in the compiled build (movecodes.pxd), where UNDO_WORDS stays importable


def undo_buffers(entries: int = UNDO_ENTRIES) -> tuple[array[int], array[int]]:
    """Zeroed undo buffers for ``entries`` records: the signed words and the two masks of each."""
    return array("q", bytes(8 * UNDO_WORDS * entries)), array("Q", bytes(8 * UNDO_MASKS * entries))


class PositionState:
    """The fields of a position, declared once for the base classes of :class:`engine.position.Position`
    (FEN codec, move generator): ``squares`` 64 signed piece codes, ``side`` 1 white / -1 black, ``king_sq``
    [white, black], ``hand`` 17 slots indexed by signed piece code, ``gates`` and ``castling`` square
    bitmasks, ``ep`` en passant square or -1, ``drops`` (captures go to hand and pieces in hand may be
    dropped: S-House), ``promoted`` (square bitmask of promoted pieces, which go back to hand as pawns; drop
    variants only), ``first_gate`` (the lowest piece type that may be gated: the Hawk in S-chess, the knight in
    S-House), and the undo records of the ``undo_len`` moves made since the FEN: :data:`UNDO_WORDS` signed
    words each in ``undo`` (move code or -1 for a null move, captured piece, en passant square, halfmove
    clock, hash before the move) and :data:`UNDO_MASKS` unsigned ones in ``undo_masks`` (castling rights,
    gates, promoted pieces). ``undo`` and ``undo_masks`` are ``array`` buffers (``undo_buffer``,
    ``undo_mask_buffer``), typed memoryviews of them in the compiled build: no object per move."""

    variant: str
    chess960: bool
    entry_rule: int  # engine.variants.ENTRY_RULES of the variant
    placed: list[int]  # placement S-chess: the piece type placed behind each square (read only where gates has it)
    squares: list[int]
    side: int
    king_sq: list[int]
    hand: list[int]
    gates: int
    castling: int
    ep: int
    drops: bool
    promoted: int
    first_gate: int
    halfmove: int
    start_ply: int
    ply: int
    hash: int
    changed_squares: int  # the squares the last make wrote (a superset of those whose piece changed)
    hand_changed: bool  # whether the last make changed a count in hand
    undo: array[int]  # a typed memoryview of undo_buffer in the compiled build
    undo_masks: array[int]
    undo_buffer: array[int]
    undo_mask_buffer: array[int]
    undo_len: int
    pin_line: list[int]  # generate_legal's scratch: the line a piece pinned on each square keeps to
    _castle_info: dict[int, tuple[int, int, tuple[int, ...], tuple[int, ...]]]
    _castle_clear: list[int]

    def copy_state_to(self, other: PositionState) -> None:
        """Give ``other`` an independent copy of this position's state, undo stack included."""
        other.variant = self.variant
        other.chess960 = self.chess960
        other.entry_rule = self.entry_rule
        other.placed = self.placed[:]
        other.squares = list(self.squares)  # list(): a C array in the compiled build, copied either way
        other.side = self.side
        other.king_sq = list(self.king_sq)
        other.hand = self.hand[:]
        other.gates = self.gates
        other.castling = self.castling
        other.ep = self.ep
        other.drops = self.drops
        other.promoted = self.promoted
        other.first_gate = self.first_gate
        other.halfmove = self.halfmove
        other.start_ply = self.start_ply
        other.ply = self.ply
        other.hash = self.hash
        n = self.undo_len
        other.undo_buffer = array("q", self.undo_buffer)
        other.undo = other.undo_buffer
        other.undo_mask_buffer = array("Q", self.undo_mask_buffer)
        other.undo_masks = other.undo_mask_buffer
        other.undo_len = n
        other._castle_info = self._castle_info
        other._castle_clear = self._castle_clear

    def _undo_drop_game(self, code: int, to: int, flag: int, side: int, captured: int) -> None:
        """The hand and the promoted marks before ``code`` (part of ``unmake`` in drop variants)."""
        n = self.undo_len  # the record of code (unmake has taken it off the stack already)
        promoted = self.undo_masks[UNDO_MASKS * n + 2]
        self.promoted = promoted
        hand = self.hand
        if flag == DROP:
            hand[move_piece(code) * side] += 1
        elif flag == EN_PASSANT:
            hand[side] -= 1
        elif captured and flag != CASTLE and flag != CASTLE_ROOK_GATE:  # castling records its own rook
            hand[side if promoted >> to & 1 else -captured] -= 1

    def _keeps_gates(self, sign: int) -> bool:
        """Whether the gates of the side ``sign`` are live: in S-chess while it holds a piece in hand, in
        S-House always (captures can refill an empty hand)."""
        return self.drops or self.hand[HAWK * sign] + self.hand[ELEPHANT * sign] > 0

    def clear_undo(self) -> None:
        """No move recorded (a FEN was just loaded): a new position gets its undo buffers and the move
        generator's scratch here, a position loaded again keeps them."""
        self.undo_len = 0
        if getattr(self, "undo_buffer", None) is None:
            self.undo_buffer, self.undo_mask_buffer = undo_buffers()
            self.undo = self.undo_buffer
            self.undo_masks = self.undo_mask_buffer
            self.pin_line = [0] * 64  # scratch of generate_legal (a C array in the compiled build)

    def _grow_undo(self) -> None:
        """Twice the room for undo records (a game or a search longer than any before on this position)."""
        grown, masks = undo_buffers(len(self.undo_buffer) // _UNDO_WORDS)
        grown[:0] = self.undo_buffer  # the records so far first, the new room after them
        masks[:0] = self.undo_mask_buffer
        self.undo_buffer = grown
        self.undo = grown
        self.undo_mask_buffer = masks
        self.undo_masks = masks

    def undo_code(self, i: int) -> int:
        """The code of the ``i``-th move recorded since the FEN (0 first; -1 for a null move)."""
        return self.undo[i * _UNDO_WORDS]

    def undo_captured(self, i: int) -> int:
        """The piece code the ``i``-th recorded move captured on its destination (0 for none)."""
        return self.undo[i * _UNDO_WORDS + 1]

    def undo_hash(self, i: int) -> int:
        """The hash of the position before the ``i``-th recorded move."""
        return self.undo[i * _UNDO_WORDS + 4]
