"""Static evaluation: material and tapered piece-square tables (kept incrementally by the search), pieces in
hand against the gates left to bring them in, and a few cheap positional terms. In S-House (a drop variant)
pieces in hand are worth about their board value, and each king's danger (the enemy's attackers near it,
squares to drop on, checks its hand could give) weighs against it, quadratically.

Scores are centipawns. The tables are from white's point of view; ``evaluate`` returns the score from
the side to move. The search keeps ``mg``/``eg`` (the sums of ``PST_MG``/``PST_EG`` over the board) and
``phase`` up to date with :func:`move_delta` instead of rescanning the board at every node.

The weights are in ``engine/eval_weights.py``, fitted to Fairy-Stockfish self-play by ``tools/tune`` from
hand-set starting values (material from Fairy-Stockfish's S-chess values scaled to a queen of about 900);
S-House's drop terms are here, fitted to its S-House games by ``python -m tools.tune drops``.
"""

from __future__ import annotations

from . import bitops as bits
from . import eval_weights as W
from .movecodes import (
    CASTLE,
    CASTLE_ROOK_GATE,
    DROP,
    EN_PASSANT,
    PLACE,
    PROMOTION,
    move_from,
    move_kind,
    move_piece,
    move_to,
)
from .position import Position
from .tables import (
    BISHOP,
    BISHOP_RAYS,
    ELEPHANT,
    HAWK,
    KING,
    KING_TARGETS,
    KNIGHT,
    KNIGHT_LEAPER,
    KNIGHT_TARGETS,
    LEAP_COUNT,
    LEAP_SQUARES,
    PAWN,
    PAWN_CAPTURES_BLACK,
    PAWN_CAPTURES_WHITE,
    QUEEN,
    QUEEN_RAYS,
    RAY_LENGTH,
    RAY_SQUARES,
    RAYS_FROM,
    RAYS_TO,
    ROOK,
    ROOK_RAYS,
)
from .variants import PLACEMENT

# Game phase: 24 (or more, clamped) = opening, 0 = bare kings and pawns. Pieces in hand count.
PHASE_WEIGHT = (0, 0, 1, 1, 2, 4, 0, 3, 3)
PHASE_MAX = 24
_PHASE_MAX = PHASE_MAX  # a C int in the compiled build

# The fitted weights (engine/eval_weights.py, written by ``python -m tools.tune fit``): piece-square
# tables with material, tempo, king shield, and the value of pieces in hand. The tuner starts from (and
# pulls towards) the values these names hold.
TEMPO = W.TEMPO
_TEMPO = TEMPO  # a C int in the compiled build (evaluate.pxd), where TEMPO stays importable
# A Hawk or Elephant in hand while there is a gate for it (on the board they are worth their table value).
HAND_VALUE = W.HAND_VALUE
# Penalty per piece in hand by how many spare gates are left (gates - pieces): a side about to run out of
# gates must gate now or lose the piece.
GATE_SHORTAGE_PENALTY = W.GATE_SHORTAGE_PENALTY
BACK_RANK = (0xFF, 0xFF << 56)


def _signed_tables() -> tuple[list[list[int]], list[list[int]]]:
    """The tables of ``eval_weights`` indexed by signed piece code (17 slots, negative codes wrap), material
    included, white's view: black pieces score negative on the mirrored square."""
    white_mg, white_eg = W.PST_MG, W.PST_EG
    pst_mg = [[0] * 64 for _ in range(17)]
    pst_eg = [[0] * 64 for _ in range(17)]
    for piece_type in range(1, 9):
        for sq in range(64):
            pst_mg[piece_type][sq] = white_mg[piece_type][sq]
            pst_eg[piece_type][sq] = white_eg[piece_type][sq]
            pst_mg[-piece_type][sq ^ 56] = -pst_mg[piece_type][sq]
            pst_eg[-piece_type][sq ^ 56] = -pst_eg[piece_type][sq]
    return pst_mg, pst_eg


PST_MG, PST_EG = _signed_tables()
# Phase by signed piece code.
PHASE_OF = [0] * 17
for _t in range(1, 9):
    PHASE_OF[_t] = PHASE_OF[-_t] = PHASE_WEIGHT[_t]
# The same tables flat, for move_delta: (piece code + 8) * 64 + square, and piece code + 8 (C arrays in the
# compiled build, evaluate.pxd, where a negative index would leave the array).
_MG = [PST_MG[_q][_sq] for _q in range(-8, 9) for _sq in range(64)]
_EG = [PST_EG[_q][_sq] for _q in range(-8, 9) for _sq in range(64)]
_PHASE_AT = [PHASE_OF[_q] for _q in range(-8, 9)]


def initial_scores(pos: Position) -> tuple[int, int, int]:
    """(mg, eg, phase) of a position from scratch; the search then updates them with ``move_delta``."""
    mg = eg = phase = 0
    for sq, p in enumerate(pos.squares):
        if p:
            mg += PST_MG[p][sq]
            eg += PST_EG[p][sq]
            phase += PHASE_OF[p]
    for piece in range(PAWN, ELEPHANT + 1):
        phase += PHASE_OF[piece] * (pos.hand[piece] + pos.hand[-piece])
    return mg, eg, phase


def move_delta(pos: Position, code: int) -> tuple[int, int, int]:
    """How (mg, eg, phase) change when ``code`` is played; call before ``pos.make(code)``."""
    squares = pos.squares
    frm = move_from(code)
    to = move_to(code)
    flag = move_kind(code)
    piece = squares[frm]
    # The flat tables: (piece code + 8) * 64 + square (C arrays in the compiled build).
    p = (piece + 8) * 64
    if flag < EN_PASSANT:  # normal or double push
        captured = squares[to]
        dmg = _MG[p + to] - _MG[p + frm]
        deg = _EG[p + to] - _EG[p + frm]
        dphase = 0
        if captured:
            c = (captured + 8) * 64 + to
            dmg -= _MG[c]
            deg -= _EG[c]
            dphase = _captured_phase(pos, captured, to)
            if pos.entry_rule == _PLACEMENT and pos.gates >> to & 1:
                dphase -= _PHASE_AT[pos.placed[to] + 8]  # the piece placed behind the victim is forfeited
        gate = move_piece(code)
        if gate:
            g = ((gate if piece > 0 else -gate) + 8) * 64 + frm
            dmg += _MG[g]
            deg += _EG[g]
        return dmg, deg, dphase
    if flag == PROMOTION:
        captured = squares[to]
        new = move_piece(code) * (1 if piece > 0 else -1)
        dmg = _MG[(new + 8) * 64 + to] - _MG[p + frm]
        deg = _EG[(new + 8) * 64 + to] - _EG[p + frm]
        dphase = _PHASE_AT[new + 8]
        if captured:
            c = (captured + 8) * 64 + to
            dmg -= _MG[c]
            deg -= _EG[c]
            dphase += _captured_phase(pos, captured, to)
            if pos.entry_rule == _PLACEMENT and pos.gates >> to & 1:
                dphase -= _PHASE_AT[pos.placed[to] + 8]
        return dmg, deg, dphase
    if flag == EN_PASSANT:
        victim = (8 - piece) * 64 + (to - 8 if piece > 0 else to + 8)  # the enemy pawn's row and square
        return _MG[p + to] - _MG[p + frm] - _MG[victim], _EG[p + to] - _EG[p + frm] - _EG[victim], 0
    if flag == DROP:  # the piece enters the board from the hand (its phase was counted in the hand)
        d = (move_piece(code) * pos.side + 8) * 64 + to
        return _MG[d], _EG[d], 0
    if flag == PLACE:  # a placement: the piece stays in hand, the board does not change
        return 0, 0, 0
    # castling: from = king, to = rook square
    king_to, rook_to = pos._castle_info[to][:2]
    r = (squares[to] + 8) * 64
    dmg = _MG[p + king_to] - _MG[p + frm] + _MG[r + rook_to] - _MG[r + to]
    deg = _EG[p + king_to] - _EG[p + frm] + _EG[r + rook_to] - _EG[r + to]
    gate = move_piece(code)
    if gate:
        g = ((gate if piece > 0 else -gate) + 8) * 64 + (to if flag == CASTLE_ROOK_GATE else frm)
        dmg += _MG[g]
        deg += _EG[g]
    assert flag in (CASTLE, CASTLE_ROOK_GATE)
    return dmg, deg, 0


def _captured_phase(pos: Position, captured: int, to: int) -> int:
    """The phase change of capturing ``captured`` on ``to``: the piece leaves the game, except in a drop
    variant, where it goes to the captor's hand (a promoted piece as a pawn, which has no phase weight)."""
    if pos.drops and not pos.promoted >> to & 1:
        return 0
    return -_PHASE_AT[captured + 8]


_POPCOUNT8 = [bin(i).count("1") for i in range(256)]
_PLACEMENT = PLACEMENT
# Placement S-chess values its pieces in hand as if each had its gates: a placed piece comes in by itself, an
# unplaced one will be placed (a capture that forfeits one takes it out of the hand).
_ALL_GATES = 0xFF | 0xFF << 56
# The weights above as C ints in the compiled build (evaluate.pxd): the penalty by spare gates 0..8, zero past
# the fitted ones.
_HAND_HAWK = HAND_VALUE[0]
_HAND_ELEPHANT = HAND_VALUE[1]
_SHORTAGE_AT = [GATE_SHORTAGE_PENALTY[_n] if _n < len(GATE_SHORTAGE_PENALTY) else 0 for _n in range(9)]


def hand_score(hand: list[int], gates: int) -> int:
    """Pieces in hand (white's view): worth a little more than on the board while there is a gate for each,
    penalised as the spare gates run out, and worthless once no gate is left for them."""
    # Gates are back-rank squares: each side's are the 8 bits of its own back rank.
    return (_hand_value(hand[HAWK], hand[ELEPHANT], _POPCOUNT8[gates & 255])
            - _hand_value(hand[-HAWK], hand[-ELEPHANT], _POPCOUNT8[gates >> 56]))


def _hand_value(hawks: int, elephants: int, gate_count: int) -> int:
    """One side's pieces in hand with ``gate_count`` gates left (C ints throughout in the compiled build)."""
    count = hawks + elephants
    if not count:
        return 0
    # With fewer gates than pieces, the side keeps the most valuable ones: the Elephants first.
    usable = count if count < gate_count else gate_count
    take = elephants if elephants < usable else usable
    value = take * _HAND_ELEPHANT
    usable -= take
    take = hawks if hawks < usable else usable
    value += take * _HAND_HAWK
    spare = gate_count - count
    if spare >= 0:
        value -= _SHORTAGE_AT[spare] * count
    return value


# Drop variants (S-House): the value of a piece in hand by type; the danger to the kings is ``_king_danger``
# below. Both fitted to Fairy-Stockfish's S-House games by ``python -m tools.tune drops`` (docs/engine.md).
DROP_HAND_VALUE = (0, 221, 344, 378, 531, 738, 0, 708, 751)
_DROP_HAND_VALUE = list(DROP_HAND_VALUE)  # a C array in the compiled build
# Added to each piece on the board by type (S-House's values are flatter than S-chess's: a captured piece
# changes sides), and the side to move's extra tempo; both fitted with the rest.
DROP_BOARD_VALUE = (0, 183, 159, 133, 91, -28, 0, 10, -69)
_DROP_BOARD_VALUE = list(DROP_BOARD_VALUE)  # a C array in the compiled build
DROP_TEMPO = 145
_DROP_TEMPO = DROP_TEMPO


def drop_score(pos: Position) -> int:
    """Pieces in hand and the danger to each king from the enemy's pieces and hand, white's view (drop
    variants only)."""
    hand = pos.hand
    value = 0
    for t in range(PAWN, ELEPHANT + 1):
        value += (hand[t] - hand[-t]) * _DROP_HAND_VALUE[t]
    squares = pos.squares
    for sq in range(64):
        p = squares[sq]
        if p > 0:
            value += _DROP_BOARD_VALUE[p]
        elif p < 0:
            value -= _DROP_BOARD_VALUE[-p]
    value += _DROP_TEMPO if pos.side == 1 else -_DROP_TEMPO
    # How many pieces (kings aside) of each side attack each square: one walk of the board feeds both kings'
    # danger (C arrays on the stack in the compiled build).
    white = [0] * 64
    black = [0] * 64
    _attack_counts(squares, white, black)
    return (value
            + _king_danger(squares, pos.king_sq[1], -1, hand[PAWN], hand[KNIGHT], hand[BISHOP], hand[ROOK],
                           hand[QUEEN], hand[HAWK], hand[ELEPHANT], white, black)
            - _king_danger(squares, pos.king_sq[0], 1, hand[-PAWN], hand[-KNIGHT], hand[-BISHOP], hand[-ROOK],
                           hand[-QUEEN], hand[-HAWK], hand[-ELEPHANT], black, white))


# S-House king danger, fitted (above), in units squared / KD_DIVISOR centipawns (capped): the enemy's attackers
# on the king's zone, zone squares it attacks that no own piece guards, empty unguarded zone squares it could
# drop on, unguarded squares where a piece from its hand would give check, its pieces in hand, missing shelter
# pawns.
KD_ATTACK = 17  # per enemy attacker of a square next to the king
KD_WEAK = 25  # a square next to the king attacked by the enemy and guarded by no own piece but the king
KD_DROP_SQUARE = 13  # an empty square next to the king, unguarded, while the enemy holds something to drop
KD_KNIGHT_CHECK = 42  # an empty unguarded square where a knight-like piece in the enemy's hand would check
KD_SLIDER_CHECK = 23  # a ray of the king with an empty unguarded square a slider in hand would check from
KD_HAND_PIECE = 7  # per piece (not pawn) in the enemy's hand
KD_HAND_QUEEN = 0  # extra per queen-like piece (queen, Hawk, Elephant) in the enemy's hand
KD_SHELTER = 10  # per missing own pawn on the three squares in front of the king
KD_DIVISOR = 10
KD_CAP = 2020
_KD_ATTACK = KD_ATTACK  # C ints in the compiled build
_KD_WEAK = KD_WEAK
_KD_DROP_SQUARE = KD_DROP_SQUARE
_KD_KNIGHT_CHECK = KD_KNIGHT_CHECK
_KD_SLIDER_CHECK = KD_SLIDER_CHECK
_KD_HAND_PIECE = KD_HAND_PIECE
_KD_HAND_QUEEN = KD_HAND_QUEEN
_KD_SHELTER = KD_SHELTER
_KD_DIVISOR = KD_DIVISOR
_KD_CAP = KD_CAP
# By signed piece code + 8: moves like a knight, along ranks and files, along diagonals.
_KNIGHT_LIKE_AT = [1 if abs(_q) in (KNIGHT, HAWK, ELEPHANT) else 0 for _q in range(-8, 9)]
_ORTHO_AT = [1 if abs(_q) in (ROOK, QUEEN, ELEPHANT) else 0 for _q in range(-8, 9)]
_DIAG_AT = [1 if abs(_q) in (BISHOP, QUEEN, HAWK) else 0 for _q in range(-8, 9)]


def _attack_counts(squares: list[int], white: list[int], black: list[int]) -> None:
    """Add to ``white[sq]`` / ``black[sq]`` one for each white / black piece but the king that attacks ``sq``
    (a slider up to and including the first piece on its ray)."""
    for sq in range(64):
        p = squares[sq]
        if p == 0:
            continue
        counts = white if p > 0 else black
        t = p if p > 0 else -p
        if t == PAWN:
            k = sq * 4 + (3 if p > 0 else 2)  # a white pawn attacks the squares a black pawn is attacked from
            for i in range(k * 8, k * 8 + _M_LEAP_COUNT[k]):
                counts[_M_LEAP_SQUARES[i]] += 1
            continue
        if t == KING:
            continue
        if _KNIGHT_LIKE_AT[t + 8]:
            for i in range(sq * 32, sq * 32 + _M_LEAP_COUNT[sq * 4]):
                counts[_M_LEAP_SQUARES[i]] += 1
        ortho = _ORTHO_AT[t + 8]
        diag = _DIAG_AT[t + 8]
        if ortho or diag:
            for d in range(sq * 8, sq * 8 + 8):
                if not (ortho if d < sq * 8 + 4 else diag):
                    continue
                for i in range(d * 8, d * 8 + _M_RAY_LENGTH[d]):
                    z = _M_RAY_SQUARES[i]
                    counts[z] += 1
                    if squares[z]:
                        break


def _guards(own: list[int], king: int, z: int) -> int:
    """The own pieces attacking ``z`` (``own``, from :func:`_attack_counts`), the king on ``king`` counted."""
    df = (z & 7) - (king & 7)
    dr = (z >> 3) - (king >> 3)
    return own[z] + (1 if -1 <= df <= 1 and -1 <= dr <= 1 and z != king else 0)


def _king_danger(squares: list[int], king: int, side: int, pawns: int, knights: int, bishops: int, rooks: int,
                 queens: int, hawks: int, elephants: int, attacks: list[int], own: list[int]) -> int:
    """The danger to ``side``'s king on ``king`` from the enemy's pieces and its hand (the counts given), in
    centipawns (positive: bad for ``side``); ``attacks`` and ``own`` count the enemy's and ``side``'s
    attackers of each square, kings aside (:func:`_attack_counts`)."""
    pieces = knights + bishops + rooks + queens + hawks + elephants
    units = pieces * _KD_HAND_PIECE + (queens + hawks + elephants) * _KD_HAND_QUEEN
    droppable = pieces + pawns
    for i in range(king * 32 + 8, king * 32 + 8 + _M_LEAP_COUNT[king * 4 + 1]):  # the king's neighbours
        z = _M_LEAP_SQUARES[i]
        a = attacks[z]
        if a:
            units += a * _KD_ATTACK
            if squares[z] * side <= 0 and not own[z]:
                units += _KD_WEAK
        elif droppable and squares[z] == 0 and not own[z]:
            units += _KD_DROP_SQUARE
    if knights + hawks + elephants:
        for i in range(king * 32, king * 32 + _M_LEAP_COUNT[king * 4]):
            z = _M_LEAP_SQUARES[i]
            if squares[z] == 0 and not _guards(own, king, z):
                units += _KD_KNIGHT_CHECK
    ortho = rooks + queens + elephants
    diag = bishops + queens + hawks
    if ortho or diag:
        for d in range(king * 8, king * 8 + 8):
            if not (ortho if d < king * 8 + 4 else diag):
                continue
            for i in range(d * 8, d * 8 + _M_RAY_LENGTH[d]):
                z = _M_RAY_SQUARES[i]
                if squares[z]:
                    break
                if not _guards(own, king, z):
                    units += _KD_SLIDER_CHECK
                    break
    r = (king >> 3) + side
    if 0 <= r <= 7:
        f = king & 7
        for ff in range(f - 1, f + 2):
            if 0 <= ff <= 7 and squares[r * 8 + ff] != PAWN * side:
                units += _KD_SHELTER
    score = units * units // _KD_DIVISOR
    return score if score < _KD_CAP else _KD_CAP


# King safety, middlegame only: the pawn shield of a castled king (a king-tropism term was tried and lost).
SHIELD_NEAR = W.SHIELD_NEAR  # own pawn straight or diagonally in front of the king
SHIELD_FAR = W.SHIELD_FAR  # two ranks in front
OPEN_KING_FILE = W.OPEN_KING_FILE  # no own pawn on the king's file (or a file next to it) in front of the king
CENTRAL_KING = W.CENTRAL_KING  # a king still in the centre (d/e files): the shield does not count there


_SHIELD_NEAR = SHIELD_NEAR  # private copies: C ints in the compiled build
_SHIELD_FAR = SHIELD_FAR
_OPEN_KING_FILE = OPEN_KING_FILE
_CENTRAL_KING = CENTRAL_KING


def _shield(squares: list[int], king: int, sign: int) -> int:
    """Pawn shield of a king in the middlegame: bonus for own pawns in front, penalty for open files."""
    f = king & 7
    if 2 < f < 5:
        return -_CENTRAL_KING
    r = king >> 3
    near = r + sign
    far = r + 2 * sign
    score = 0
    for ff in range(f - 1, f + 2):  # the king's file and the files next to it
        if ff < 0 or ff > 7:
            continue
        if 0 <= near <= 7 and squares[near * 8 + ff] == sign:
            score += _SHIELD_NEAR
        elif 0 <= far <= 7 and squares[far * 8 + ff] == sign:
            score += _SHIELD_FAR
        else:
            score -= _OPEN_KING_FILE
    return score


def king_safety(pos: Position) -> int:
    """Middlegame king safety from white's view: the two pawn shields."""
    squares = pos.squares
    white_king, black_king = pos.king_sq
    return _shield(squares, white_king, 1) - _shield(squares, black_king, -1)


# Piece activity, from one scan of the board. ``activity`` counts the terms (white minus black) in the layout
# of ``ACTIVITY_MG``/``ACTIVITY_EG``, the fitted weights per count:
#   [MOBILITY + t]        squares a piece of type t attacks that do not hold a piece of its own side
#   [KING_ATTACK + t]     squares of the enemy king's zone (the king's square and its neighbours) it attacks
#   [PASSED + r]          passed pawns (no enemy pawn ahead on their file or the files next to it) on the
#                         pawn's own rank r (1..6, counted from its side's first rank)
#   [PAWN_THREAT + t]     enemy pieces of type t (not pawns or the king) that a pawn attacks
#   [PIECE_THREAT + t]    enemy pieces of type t attacked by a lesser piece (``THREAT_RANK``; not by pawns)
#   [OPEN_FILE + t]       pieces of type t on a file without pawns
#   [HALF_OPEN_FILE + t]  pieces of type t on a file with enemy pawns only
# t is the piece type (1..8), so each block has 9 slots; the ones no piece can fill stay zero.
MOBILITY = 0
KING_ATTACK = 9
PASSED = 18
PAWN_THREAT = 26
PIECE_THREAT = 35
OPEN_FILE = 44
HALF_OPEN_FILE = 53
N_ACTIVITY = 62
# Weights files written before a block existed are shorter: the missing weights are zero.
ACTIVITY_MG = tuple(W.ACTIVITY_MG) + (0,) * (N_ACTIVITY - len(W.ACTIVITY_MG))
ACTIVITY_EG = tuple(W.ACTIVITY_EG) + (0,) * (N_ACTIVITY - len(W.ACTIVITY_EG))
# Who counts as a lesser attacker: by piece type (pawn, knight, bishop, rook, queen, king, Hawk, Elephant).
# The king is never a victim (an attack on it is check) nor counted as an attacker.
THREAT_RANK = (0, 1, 3, 3, 5, 9, 0, 7, 8)
_KING_ATTACK = KING_ATTACK  # private copies: C ints in the compiled build
_PASSED = PASSED
_PAWN_THREAT = PAWN_THREAT
_PIECE_THREAT = PIECE_THREAT
_OPEN_FILE = OPEN_FILE
_HALF_OPEN_FILE = HALF_OPEN_FILE
_N_ACTIVITY = N_ACTIVITY
# Leaps and rays by piece type (the king's own moves are not counted).
_LEAPS = (None, None, KNIGHT_TARGETS, None, None, None, None, KNIGHT_TARGETS, KNIGHT_TARGETS)
_RAYS = (None, None, None, BISHOP_RAYS, ROOK_RAYS, QUEEN_RAYS, None, BISHOP_RAYS, ROOK_RAYS)
# KING_ZONE[k][sq] is 1 when sq is the king's square k or next to it.
KING_ZONE = [[0] * 64 for _ in range(64)]
for _k in range(64):
    KING_ZONE[_k][_k] = 1
    for _sq in KING_TARGETS[_k]:
        KING_ZONE[_k][_sq] = 1
_ACTIVE = [False] * 17  # pieces whose moves are walked
for _t in (KNIGHT, BISHOP, ROOK, QUEEN, HAWK, ELEPHANT):
    _ACTIVE[_t] = _ACTIVE[-_t] = True
# Pawn captures by colour: a white pawn on sq attacks the squares from which a black pawn would attack it.
_PAWN_CAPTURE_LEAPS = (PAWN_CAPTURES_WHITE, PAWN_CAPTURES_BLACK)

# The same terms as evaluate computes them: ``positional`` walks the flat tables of engine.tables (C arrays in
# the compiled build, like the move generator's) and weights the counts as it goes, so a node costs no list
# and no Python int. activity() stays the tuner's reference; a test checks that the two agree.
_W_MG = list(ACTIVITY_MG)
_W_EG = list(ACTIVITY_EG)
_THREAT_RANK = list(THREAT_RANK)
# Whether a block has a weight at all: a block whose weights are all zero is not computed.
_MOBILE = [1 if _ACTIVE[_t] and (ACTIVITY_MG[MOBILITY + _t] or ACTIVITY_EG[MOBILITY + _t]) else 0
           for _t in range(9)]


def _block_on(start: int) -> bool:
    return any(ACTIVITY_MG[start:start + 9]) or any(ACTIVITY_EG[start:start + 9])


_ATTACK_ON = _block_on(KING_ATTACK)
_PASSED_ON = any(ACTIVITY_MG[PASSED:PAWN_THREAT]) or any(ACTIVITY_EG[PASSED:PAWN_THREAT])
_PAWN_THREAT_ON = _block_on(PAWN_THREAT)
_PIECE_THREAT_ON = _block_on(PIECE_THREAT)
_FILES_ON = _block_on(OPEN_FILE) or _block_on(HALF_OPEN_FILE)
_WALK_ON = any(_MOBILE) or _ATTACK_ON or _PIECE_THREAT_ON
_POSITIONAL_ON = _WALK_ON or _PASSED_ON or _PAWN_THREAT_ON or _FILES_ON
# Each king's zone as a bit mask.
_ZONE_MASK = [sum(1 << _sq for _sq in range(64) if KING_ZONE[_k][_sq]) for _k in range(64)]
# Square masks for ``positional``'s bit scans (C arrays in the compiled build): each square's bit, the squares
# of each ray (at sq * 8 + d, the directions of engine.tables), whether a ray runs towards higher squares (its
# first piece is then its lowest bit), each square's knight leaps, the files, and the squares that must hold no
# enemy pawn for a pawn to be passed (its file and the files next to it, ahead of it).
_SQ_BIT = [1 << _sq for _sq in range(64)]
_RAY_MASK = [sum(1 << _z for _z in RAY_SQUARES[_d * 8:_d * 8 + RAY_LENGTH[_d]]) for _d in range(512)]
_RAY_UP = [1, 0, 1, 0, 1, 1, 0, 0]
_KNIGHT_MASK = [sum(1 << _z for _z in KNIGHT_TARGETS[_sq]) for _sq in range(64)]
_FILE_MASK = [0x0101010101010101 << _f for _f in range(8)]
_NOT_FILE_A = 0xFFFFFFFFFFFFFFFF ^ _FILE_MASK[0]
_NOT_FILE_H = 0xFFFFFFFFFFFFFFFF ^ _FILE_MASK[7]
_PASSED_WHITE = [sum(1 << _z for _z in range(64) if abs((_z & 7) - (_sq & 7)) <= 1 and _z >> 3 > _sq >> 3)
                 for _sq in range(64)]
_PASSED_BLACK = [sum(1 << _z for _z in range(64) if abs((_z & 7) - (_sq & 7)) <= 1 and _z >> 3 < _sq >> 3)
                 for _sq in range(64)]
_M_RAY_SQUARES = RAY_SQUARES
_M_RAY_LENGTH = RAY_LENGTH
_M_LEAP_SQUARES = LEAP_SQUARES
_M_LEAP_COUNT = LEAP_COUNT
_M_KNIGHT_LEAPER = KNIGHT_LEAPER
_M_RAYS_FROM = RAYS_FROM
_M_RAYS_TO = RAYS_TO


def _pawn_threats(squares: list[int], hits: int, mg: int, eg: int, sign: int) -> tuple[int, int]:
    """``mg`` and ``eg`` plus the pawn-threat weights of the pieces on the squares of ``hits``, attacked by pawns
    of ``sign``'s side (1 white, -1 black), each counted once."""
    while hits:
        to = bits.lsb(hits)
        hits &= hits - 1
        mg += _W_MG[_PAWN_THREAT - squares[to] * sign] * sign
        eg += _W_EG[_PAWN_THREAT - squares[to] * sign] * sign
    return mg, eg


def positional(pos: Position) -> tuple[int, int]:
    """The weighted activity terms of a position, (middlegame, endgame), white's view: ``activity``'s counts
    times ``ACTIVITY_MG``/``ACTIVITY_EG``, computed from square masks: one scan of the board for each side's
    pieces and pawns, then each piece's attacked squares as a mask (a ray ends at its first piece), counted."""
    squares = pos.squares
    mg = 0
    eg = 0
    white = 0  # the squares of each side's pieces, of its pawns, and the pieces that are neither pawn nor king
    black = 0
    white_pawns = 0
    black_pawns = 0
    pieces = 0
    for sq in range(64):
        piece = squares[sq]
        if piece > 0:
            white |= _SQ_BIT[sq]
            if piece == PAWN:
                white_pawns |= _SQ_BIT[sq]
            elif piece != KING:
                pieces |= _SQ_BIT[sq]
        elif piece < 0:
            black |= _SQ_BIT[sq]
            if piece == -PAWN:
                black_pawns |= _SQ_BIT[sq]
            elif piece != -KING:
                pieces |= _SQ_BIT[sq]
    occupied = white | black
    if _PAWN_THREAT_ON:
        # Each enemy piece (not a pawn or the king) a pawn attacks, once per pawn: the captures to each side apart.
        targets = black & ~black_pawns & pieces
        mg, eg = _pawn_threats(squares, ((white_pawns & _NOT_FILE_A) << 7) & targets, mg, eg, 1)
        mg, eg = _pawn_threats(squares, ((white_pawns & _NOT_FILE_H) << 9) & targets, mg, eg, 1)
        targets = white & ~white_pawns & pieces
        mg, eg = _pawn_threats(squares, (black_pawns & _NOT_FILE_A) >> 9 & targets, mg, eg, -1)
        mg, eg = _pawn_threats(squares, (black_pawns & _NOT_FILE_H) >> 7 & targets, mg, eg, -1)
    if _PASSED_ON:
        rest = white_pawns
        while rest:
            sq = bits.lsb(rest)
            rest &= rest - 1
            if not _PASSED_WHITE[sq] & black_pawns:
                mg += _W_MG[_PASSED + (sq >> 3)]
                eg += _W_EG[_PASSED + (sq >> 3)]
        rest = black_pawns
        while rest:
            sq = bits.lsb(rest)
            rest &= rest - 1
            if not _PASSED_BLACK[sq] & white_pawns:
                mg -= _W_MG[_PASSED + 7 - (sq >> 3)]
                eg -= _W_EG[_PASSED + 7 - (sq >> 3)]
    if not _FILES_ON and not _WALK_ON:
        return mg, eg
    white_zone = _ZONE_MASK[pos.king_sq[0]]
    black_zone = _ZONE_MASK[pos.king_sq[1]]
    rest = pieces
    while rest:
        sq = bits.lsb(rest)
        rest &= rest - 1
        piece = squares[sq]
        if piece > 0:
            t = piece
            sign = 1
            zone = black_zone
            own = white
            own_pawns = white_pawns
            enemy_pawns = black_pawns
        else:
            t = -piece
            sign = -1
            zone = white_zone
            own = black
            own_pawns = black_pawns
            enemy_pawns = white_pawns
        if _FILES_ON and not own_pawns & _FILE_MASK[sq & 7]:
            if enemy_pawns & _FILE_MASK[sq & 7]:
                mg += _W_MG[_HALF_OPEN_FILE + t] * sign
                eg += _W_EG[_HALF_OPEN_FILE + t] * sign
            else:
                mg += _W_MG[_OPEN_FILE + t] * sign
                eg += _W_EG[_OPEN_FILE + t] * sign
        if not _WALK_ON:
            continue
        # The squares it attacks: its knight leaps, and each ray up to and including its first piece.
        attacked = _KNIGHT_MASK[sq] if _M_KNIGHT_LEAPER[t] else 0
        for d in range(sq * 8 + _M_RAYS_FROM[t], sq * 8 + _M_RAYS_TO[t]):
            ray = _RAY_MASK[d]
            blockers = ray & occupied
            if blockers:
                if _RAY_UP[d & 7]:
                    ray ^= _RAY_MASK[bits.lsb(blockers) * 8 + (d & 7)]
                else:
                    ray ^= _RAY_MASK[bits.msb(blockers) * 8 + (d & 7)]
            attacked |= ray
        n = bits.popcount(attacked & ~own)
        attack = bits.popcount(attacked & zone)
        mg += (_W_MG[t] * n + _W_MG[_KING_ATTACK + t] * attack) * sign
        eg += (_W_EG[t] * n + _W_EG[_KING_ATTACK + t] * attack) * sign
        if _PIECE_THREAT_ON:
            rank = _THREAT_RANK[t]
            hits = attacked & occupied & ~own
            while hits:
                to = bits.lsb(hits)
                hits &= hits - 1
                q = -squares[to] * sign  # the victim's type
                if rank < _THREAT_RANK[q]:
                    mg += _W_MG[_PIECE_THREAT + q] * sign
                    eg += _W_EG[_PIECE_THREAT + q] * sign
    return mg, eg


def activity(pos: Position) -> list[int]:
    """The activity counts of a position, white minus black (layout above): the tuner's reference, written
    for clarity; ``positional`` computes the same weighted sums fast."""
    counts = [0] * _N_ACTIVITY
    squares = pos.squares
    white_zone = KING_ZONE[pos.king_sq[0]]
    black_zone = KING_ZONE[pos.king_sq[1]]
    for sq in range(64):
        piece = squares[sq]
        if not _ACTIVE[piece]:
            continue
        if piece > 0:
            t = piece
            sign = 1
            zone = black_zone
        else:
            t = -piece
            sign = -1
            zone = white_zone
        mobility = 0
        attack = 0
        targets = []  # the enemy pieces it attacks
        leaps = _LEAPS[t]
        if leaps is not None:
            for to in leaps[sq]:
                if squares[to] * sign <= 0:
                    mobility += 1
                attack += zone[to]
                if squares[to] * sign < 0:
                    targets.append(-squares[to] * sign)
        rays = _RAYS[t]
        if rays is not None:
            for ray in rays[sq]:
                for to in ray:
                    q = squares[to]
                    attack += zone[to]
                    if q:
                        if q * sign < 0:
                            mobility += 1
                            targets.append(-q * sign)
                        break
                    mobility += 1
        counts[t] += mobility * sign  # MOBILITY + t
        counts[_KING_ATTACK + t] += attack * sign
        for victim in targets:
            if THREAT_RANK[t] < THREAT_RANK[victim]:
                counts[_PIECE_THREAT + victim] += sign
    white_pawns = [sq for sq in range(64) if squares[sq] == PAWN]
    black_pawns = [sq for sq in range(64) if squares[sq] == -PAWN]
    for pawns, sign in ((white_pawns, 1), (black_pawns, -1)):
        for sq in pawns:
            for to in _PAWN_CAPTURE_LEAPS[0 if sign > 0 else 1][sq]:
                victim = -squares[to] * sign
                if victim > PAWN and victim != KING:
                    counts[_PAWN_THREAT + victim] += sign
    # Per file (with a guard file on each side): the highest rank of a black pawn, the lowest of a white.
    black_top = [-1] * 10
    white_low = [8] * 10
    for sq in white_pawns:
        f = (sq & 7) + 1
        if sq >> 3 < white_low[f]:
            white_low[f] = sq >> 3
    for sq in black_pawns:
        f = (sq & 7) + 1
        if sq >> 3 > black_top[f]:
            black_top[f] = sq >> 3
    for sq in white_pawns:
        f = (sq & 7) + 1
        r = sq >> 3
        if black_top[f] <= r and black_top[f - 1] <= r and black_top[f + 1] <= r:
            counts[_PASSED + r] += 1
    for sq in black_pawns:
        f = (sq & 7) + 1
        r = sq >> 3
        if white_low[f] >= r and white_low[f - 1] >= r and white_low[f + 1] >= r:
            counts[_PASSED + 7 - r] -= 1
    white_pawn_files = {sq & 7 for sq in white_pawns}
    black_pawn_files = {sq & 7 for sq in black_pawns}
    for sq in range(64):
        piece = squares[sq]
        if not _ACTIVE[piece]:
            continue
        t, sign = (piece, 1) if piece > 0 else (-piece, -1)
        own, enemy = (white_pawn_files, black_pawn_files) if sign > 0 else (black_pawn_files, white_pawn_files)
        f = sq & 7
        if f not in own:
            counts[(_HALF_OPEN_FILE if f in enemy else _OPEN_FILE) + t] += sign
    return counts

def evaluate(pos: Position, mg: int, eg: int, phase: int) -> int:
    """The static score in centipawns from the side to move's point of view: the learned evaluation's
    (:mod:`engine.nnue`) while the position carries an accumulator, else the hand-made one; a net of the
    version that is added to the hand-made evaluation gives the sum."""
    accumulator = pos.accumulator
    net: int = 0
    if accumulator is not None:
        net = accumulator.evaluate(pos)  # type: ignore[attr-defined]  # an engine.nnue.Accumulator
        if not accumulator.adds_hand_made():  # type: ignore[attr-defined]
            return net
    phase_max = _PHASE_MAX  # C ints in the compiled build (evaluate.pxd): the arithmetic below is C
    tempo = _TEMPO
    p = phase if phase < phase_max else phase_max
    if p > 6:
        mg += king_safety(pos)
    if _POSITIONAL_ON:
        dmg, deg = positional(pos)
        mg += dmg
        eg += deg
    score = (mg * p + eg * (phase_max - p)) // phase_max
    if pos.drops:
        score += drop_score(pos)
    elif pos.entry_rule == _PLACEMENT:
        score += hand_score(pos.hand, _ALL_GATES)
    elif pos.gates:
        score += hand_score(pos.hand, pos.gates)
    return (score if pos.side == 1 else -score) + tempo + net


def evaluate_position(pos: Position) -> int:
    """The static score of a position from scratch (side to move's view); for tests and tools."""
    mg, eg, phase = initial_scores(pos)
    return evaluate(pos, mg, eg, phase)
