"""Precomputed board geometry and Zobrist keys.

Squares are 0..63 with a1 = 0, b1 = 1, ..., h8 = 63. Pieces are small signed ints: white pieces are
positive piece types (PAWN = 1 ... ELEPHANT = 8), black pieces the same types negated, 0 is an empty square.
Tables indexed by a signed piece code are lists of length 17, so that Python's negative indexing gives every
code from -8 to 8 its own slot (``table[-7]`` is ``table[10]``).

Everything here is computed once at import time; the move generator only reads tuples and ints.
"""

from __future__ import annotations

import random

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING, HAWK, ELEPHANT = 1, 2, 3, 4, 5, 6, 7, 8
PIECE_SYMBOLS = ".pnbrqkhe"  # index by piece type
SYMBOL_TO_TYPE = {ch: i for i, ch in enumerate(PIECE_SYMBOLS) if i}

# Piece types that reach along orthogonal / diagonal lines, and those with a knight's leap.
ORTHOGONAL_SLIDERS = (ROOK, QUEEN, ELEPHANT)
DIAGONAL_SLIDERS = (BISHOP, QUEEN, HAWK)
LEAPERS = (KNIGHT, HAWK, ELEPHANT)

# Nominal value of a piece type by type (king: large), for what counts material without evaluating: exchange
# tests (SEE), capture ordering (MVV-LVA) and the search's delta pruning. Not the evaluation's values.
ORDER_VALUE = (0, 100, 320, 330, 500, 900, 2000, 770, 880)

FILE_NAMES = "abcdefgh"
RANK_NAMES = "12345678"
SQUARE_NAMES = [f + r for r in RANK_NAMES for f in FILE_NAMES]
# The bit of each square in a 64-bit square mask. The rules code indexes this instead of writing ``1 << sq``:
# in the compiled build a shift of a C int would overflow past bit 31.
SQUARE_BITS = tuple(1 << sq for sq in range(64))
# The back ranks as square masks, and the piece types S-chess gates in.
RANK_1_MASK = 0xFF
RANK_8_MASK = 0xFF << 56
BACK_RANK_MASK = (RANK_1_MASK, RANK_8_MASK)  # index 0: white, 1: black
GATE_TYPES = (HAWK, ELEPHANT)


def square(file: int, rank: int) -> int:
    """The square index of a file (0..7) and a rank (0..7)."""
    return rank * 8 + file


def parse_square(name: str) -> int:
    """The index of a square name such as ``"e4"``; ValueError for anything else."""
    if len(name) != 2 or name[0] not in FILE_NAMES or name[1] not in RANK_NAMES:
        raise ValueError(f"invalid square name {name!r}")
    return square(FILE_NAMES.index(name[0]), RANK_NAMES.index(name[1]))


ROOK_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))
BISHOP_DIRECTIONS = ((1, 1), (-1, 1), (1, -1), (-1, -1))
KNIGHT_JUMPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))


def _ray(sq: int, df: int, dr: int) -> tuple[int, ...]:
    f, r = sq & 7, sq >> 3
    out = []
    f += df
    r += dr
    while 0 <= f < 8 and 0 <= r < 8:
        out.append(square(f, r))
        f += df
        r += dr
    return tuple(out)


def _steps(sq: int, deltas: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    f, r = sq & 7, sq >> 3
    return tuple(square(f + df, r + dr) for df, dr in deltas if 0 <= f + df < 8 and 0 <= r + dr < 8)


# Rays per square: only non-empty rays are kept, so generators never loop over nothing.
ROOK_RAYS = tuple(tuple(ray for d in ROOK_DIRECTIONS if (ray := _ray(sq, *d))) for sq in range(64))
BISHOP_RAYS = tuple(tuple(ray for d in BISHOP_DIRECTIONS if (ray := _ray(sq, *d))) for sq in range(64))
QUEEN_RAYS = tuple(ROOK_RAYS[sq] + BISHOP_RAYS[sq] for sq in range(64))
KNIGHT_TARGETS = tuple(_steps(sq, KNIGHT_JUMPS) for sq in range(64))
KING_TARGETS = tuple(
    _steps(sq, ROOK_DIRECTIONS + BISHOP_DIRECTIONS) for sq in range(64)
)

# The same geometry as flat lists of squares, for code that indexes instead of iterating: the compiled build
# copies them into C arrays (movegen.pxd, attacks.pxd), where a loop over them is C code. Square sq's ray in
# direction d (0-3 the rook's directions, 4-7 the bishop's, in the order above) is the RAY_LENGTH[sq * 8 + d]
# squares from RAY_SQUARES[(sq * 8 + d) * 8]; its leaps are the LEAP_COUNT[sq * 4 + k] squares from
# LEAP_SQUARES[(sq * 4 + k) * 8], for k = 0 a knight's, 1 a king's, 2 a white pawn's attackers (the squares
# from which a white pawn attacks sq), 3 a black pawn's.
def _flat(lines: list[tuple[int, ...]]) -> tuple[list[int], list[int]]:
    squares = [0] * (8 * len(lines))
    for i, line in enumerate(lines):
        squares[8 * i:8 * i + len(line)] = line
    return squares, [len(line) for line in lines]


RAY_SQUARES, RAY_LENGTH = _flat([_ray(sq, *d) for sq in range(64) for d in ROOK_DIRECTIONS + BISHOP_DIRECTIONS])
# Per piece type: whether it has a knight's leaps, and the directions it slides along (RAYS_FROM[t] to
# RAYS_TO[t], an empty range for none). Pawns and the king are handled apart.
KNIGHT_LEAPER = [0, 0, 1, 0, 0, 0, 0, 1, 1]
RAYS_FROM = [0, 0, 0, 4, 0, 0, 0, 4, 0]
RAYS_TO = [0, 0, 0, 8, 4, 8, 0, 8, 4]

# Squares from which a pawn of the given colour attacks ``sq`` (index 0: white pawns, 1: black pawns).
# A white pawn on sq-7 / sq-9 attacks sq; a black pawn on sq+7 / sq+9 does.
PAWN_ATTACKERS_WHITE = tuple(_steps(sq, ((-1, -1), (1, -1))) for sq in range(64))
PAWN_ATTACKERS_BLACK = tuple(_steps(sq, ((-1, 1), (1, 1))) for sq in range(64))
LEAP_SQUARES, LEAP_COUNT = _flat([
    lines[sq]
    for sq in range(64)
    for lines in (KNIGHT_TARGETS, KING_TARGETS, PAWN_ATTACKERS_WHITE, PAWN_ATTACKERS_BLACK)
])
# Squares a pawn on sq captures towards.
PAWN_CAPTURES_WHITE = PAWN_ATTACKERS_BLACK
PAWN_CAPTURES_BLACK = PAWN_ATTACKERS_WHITE


def _between_mask(a: int, b: int) -> int:
    """Bits of the squares strictly between a and b on a line, 0 if not on a common line."""
    fa, ra, fb, rb = a & 7, a >> 3, b & 7, b >> 3
    df, dr = fb - fa, rb - ra
    if a == b or not (df == 0 or dr == 0 or abs(df) == abs(dr)):
        return 0
    sf = (df > 0) - (df < 0)
    sr = (dr > 0) - (dr < 0)
    mask = 0
    f, r = fa + sf, ra + sr
    while (f, r) != (fb, rb):
        mask |= 1 << square(f, r)
        f += sf
        r += sr
    return mask


BETWEEN = tuple(tuple(_between_mask(a, b) for b in range(64)) for a in range(64))

# Zobrist keys. Fixed seed: hashes are stable across runs (useful for debugging and opening books).
_rng = random.Random(0x5C4E55)


def _key() -> int:
    # 63 bits, not 64: XORs of these stay below 2**63, where PyPy keeps ints unboxed (a 64-bit key would
    # make every hash update a heap-allocated big integer under PyPy).
    return _rng.getrandbits(63)


ZOBRIST_PIECE = [[0] * 64 for _ in range(17)]
for _code in list(range(1, 9)) + list(range(-8, 0)):
    ZOBRIST_PIECE[_code] = [_key() for _ in range(64)]
ZOBRIST_SIDE = _key()
ZOBRIST_CASTLING = [_key() for _ in range(64)]  # per rook square holding a castling right
ZOBRIST_EP = [_key() for _ in range(64)]
# Per signed piece code and count in hand (counts above 15 are not reachable from sane FENs; capped).
ZOBRIST_HAND = [[0] * 16 for _ in range(17)]
for _code in (HAWK, ELEPHANT, -HAWK, -ELEPHANT):
    ZOBRIST_HAND[_code] = [0] + [_key() for _ in range(15)]
# Keys for every piece type in hand (drop variants), HAND_SLOTS counts each: the Hawk's and the Elephant's
# first 16 are ZOBRIST_HAND's (so S-chess keys, and the books that store them, stay as they were), the rest
# are drawn after every other key.
HAND_SLOTS = 64
ZOBRIST_POCKET = [[0] * HAND_SLOTS for _ in range(17)]
for _code in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, HAWK, ELEPHANT):
    for _signed in (_code, -_code):
        _known = ZOBRIST_HAND[_signed] if _code in (HAWK, ELEPHANT) else [0]
        ZOBRIST_POCKET[_signed] = _known + [_key() for _ in range(HAND_SLOTS - len(_known))]



def squares_of(mask: int) -> list[int]:
    """The squares of the set bits of ``mask``, in increasing order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
