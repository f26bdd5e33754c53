"""Rules questions the search asks about a position without playing a move: the legal captures for the
quiescence search, static exchange evaluation, and whether a plain move gives check.

This is rules code, kept next to the move generator (:mod:`engine.movegen`) and exact in the same way: the
tests compare :func:`captures` with the legal move generator and :func:`gives_check_quiet` with playing the
move. The ordering tables ``MVV`` and ``ATTACKER_RANK`` are shared with the search's move ordering.

It imports only rules modules (``movecodes``, ``position``, ``tables``): the piece values it counts exchanges
with are ``tables.ORDER_VALUE``, and :func:`captures` leaves the sort by key to its caller.
"""

from __future__ import annotations

from array import array
from typing import Any

from .entry_rules import entry_captures
from .movecodes import DROP, EN_PASSANT, PROMOTION, encode, move_from, move_kind, move_piece, move_to
from .position import Position
from .tables import (
    BISHOP,
    DIAGONAL_SLIDERS,
    ELEPHANT,
    HAWK,
    KING,
    KNIGHT,
    KNIGHT_LEAPER,
    LEAP_COUNT,
    LEAP_SQUARES,
    LEAPERS,
    ORDER_VALUE,
    ORTHOGONAL_SLIDERS,
    PAWN,
    QUEEN,
    QUEEN_RAYS,
    RAY_LENGTH,
    RAY_SQUARES,
    RAYS_FROM,
    RAYS_TO,
    ROOK,
)

# Victim value * 16 - attacker type: most valuable victim first, cheapest attacker first.
MVV = [0] * 17
for _t in range(1, 9):
    MVV[_t] = MVV[-_t] = ORDER_VALUE[_t]
ATTACKER_RANK = [0] * 17
for _t, _rank in ((PAWN, 0), (KNIGHT, 1), (BISHOP, 2), (HAWK, 3), (ROOK, 4), (ELEPHANT, 5), (QUEEN, 6),
                  (KING, 7)):
    ATTACKER_RANK[_t] = ATTACKER_RANK[-_t] = _rank


# Squares from which a piece could be pinned to a king on a square (the king's queen rays), as 64 flags per
# king square (a list, not a 64-bit mask: PyPy keeps ints with bit 63 as big integers).
_ALIGNED = [[0] * 64 for _ in range(64)]
for _sq in range(64):
    for _ray in QUEEN_RAYS[_sq]:
        for _t in _ray:
            _ALIGNED[_sq][_t] = 1


# Which signed piece codes slide orthogonally, slide diagonally, have a knight's leap.
_ORTHO_SLIDER = [False] * 17
_DIAG_SLIDER = [False] * 17
_LEAPER = [False] * 17
for _t in ORTHOGONAL_SLIDERS:
    _ORTHO_SLIDER[_t] = _ORTHO_SLIDER[-_t] = True
for _t in DIAGONAL_SLIDERS:
    _DIAG_SLIDER[_t] = _DIAG_SLIDER[-_t] = True
for _t in LEAPERS:
    _LEAPER[_t] = _LEAPER[-_t] = True


def gives_check_quiet(pos: Position, m: int) -> bool:
    """Exactly whether a plain move (flag NORMAL or DOUBLE_PUSH, no gating, no capture needed) or a drop
    checks the enemy king, without playing it: a direct check from the destination or (not for a drop) a
    discovered one."""
    squares = pos.squares
    side = pos.side
    frm = move_from(m)
    to = move_to(m)
    drop = move_kind(m) == DROP
    piece = move_piece(m) * side if drop else squares[frm]
    enemy_king = pos.king_sq[1 if side == 1 else 0]
    # The flat tables below (C arrays in the compiled build, attacks.pxd): no tuple is walked, no int made.
    if piece == side:  # a pawn: is to one of the squares a pawn of side attacks the king from?
        k = enemy_king * 4 + (2 if side == 1 else 3)
        for i in range(k * 8, k * 8 + _LEAP_COUNT[k]):
            if _LEAP_SQUARES[i] == to:
                return True
    elif _KNIGHT_LIKE_AT[piece + 8]:
        for i in range(enemy_king * 32, enemy_king * 32 + _LEAP_COUNT[enemy_king * 4]):
            if _LEAP_SQUARES[i] == to:
                return True
    # The king's ray through the destination (a direct check by a slider), then the one through the origin
    # (a discovered check); directions 0-3 are orthogonal, 4-7 diagonal.
    d = _DIRECTION_TO[enemy_king * 64 + to]
    if d >= 0 and (_ORTHO_SLIDER_AT[piece + 8] if d & 7 < 4 else _DIAG_SLIDER_AT[piece + 8]):
        for i in range(d * 8, d * 8 + _RAY_LENGTH[d]):
            t = _RAY_SQUARES[i]
            if t == to:
                return True
            if t != frm and squares[t]:
                break
    if drop:  # a piece dropped blocks a ray; it uncovers none
        return False
    d = _DIRECTION_TO[enemy_king * 64 + frm]
    if d >= 0:
        for i in range(d * 8, d * 8 + _RAY_LENGTH[d]):
            t = _RAY_SQUARES[i]
            if t == frm:
                continue
            if t == to:
                return False
            q = squares[t]
            if q:
                if q * side < 0:
                    return False
                return bool(_ORTHO_SLIDER_AT[q + 8] if d & 7 < 4 else _DIAG_SLIDER_AT[q + 8])
    return False


# Static exchange evaluation: values by signed piece code (the king is worth more than anything it wins).
SEE_VALUE = [0] * 17
for _t in range(1, 9):
    SEE_VALUE[_t] = SEE_VALUE[-_t] = ORDER_VALUE[_t]


# The flags and values above by piece code + 8 (C arrays in the compiled build, attacks.pxd, which a negative
# index would leave), and the flat geometry of engine.tables. The copies under private names repeat
# engine.movegen's on purpose: Cython's module-level C arrays cannot be shared between modules, so each
# compiled module fills its own from the lists of engine.tables.
_ORTHO_SLIDER_AT = [int(_ORTHO_SLIDER[_q]) for _q in range(-8, 9)]
_DIAG_SLIDER_AT = [int(_DIAG_SLIDER[_q]) for _q in range(-8, 9)]
_KNIGHT_LIKE_AT = [int(_LEAPER[_q]) for _q in range(-8, 9)]  # pieces with a knight's leap
_SEE_VALUE_AT = [SEE_VALUE[_q] for _q in range(-8, 9)]
_MVV_AT = [MVV[_q] for _q in range(-8, 9)]
_ATTACKER_RANK_AT = [ATTACKER_RANK[_q] for _q in range(-8, 9)]
_ALIGNED_AT = [flag for row in _ALIGNED for flag in row]  # king square * 64 + square
_RAY_SQUARES = RAY_SQUARES
_RAY_LENGTH = RAY_LENGTH
_LEAP_SQUARES = LEAP_SQUARES
_LEAP_COUNT = LEAP_COUNT
_KNIGHT_LEAPER = KNIGHT_LEAPER
_RAYS_FROM = RAYS_FROM
_RAYS_TO = RAYS_TO
# The ray from square k through square sq, as its index k * 8 + d in RAY_SQUARES / RAY_LENGTH (d 0-3 the rook's
# directions, 4-7 the bishop's), at k * 64 + sq; -1 where sq is on none of k's lines.
_DIRECTION_TO = [-1] * 4096
for _sq in range(64):
    for _d in range(_sq * 8, _sq * 8 + 8):
        for _t in RAY_SQUARES[_d * 8:_d * 8 + RAY_LENGTH[_d]]:
            _DIRECTION_TO[_sq * 64 + _t] = _d


def _least_attacker(squares: list[int], sq: int, side: int) -> int:
    """The square of the cheapest piece of ``side`` attacking ``sq`` on the board as it is, or -1."""
    best_sq = -1
    best_value = 100000
    # Pawns first: nothing is cheaper. The squares a pawn of side attacks sq from are leaps 2 (white) or 3.
    k = sq * 4 + (2 if side == 1 else 3)
    for t in _LEAP_SQUARES[k * 8:k * 8 + _LEAP_COUNT[k]]:
        q = squares[t]  # a C int in the compiled build: comparing the list item itself would stay Python
        if q == side:
            return t
    for t in _LEAP_SQUARES[sq * 32:sq * 32 + _LEAP_COUNT[sq * 4]]:  # knight leaps
        q = squares[t]
        if q * side > 0 and _KNIGHT_LIKE_AT[q + 8]:
            v = _SEE_VALUE_AT[q + 8]
            if v < best_value:
                best_value = v
                best_sq = t
    for d in range(sq * 8, sq * 8 + 4):  # the rook's rays
        for t in _RAY_SQUARES[d * 8:d * 8 + _RAY_LENGTH[d]]:
            q = squares[t]
            if q:
                if q * side > 0 and _ORTHO_SLIDER_AT[q + 8]:
                    v = _SEE_VALUE_AT[q + 8]
                    if v < best_value:
                        best_value = v
                        best_sq = t
                break
    for d in range(sq * 8 + 4, sq * 8 + 8):  # the bishop's
        for t in _RAY_SQUARES[d * 8:d * 8 + _RAY_LENGTH[d]]:
            q = squares[t]
            if q:
                if q * side > 0 and _DIAG_SLIDER_AT[q + 8]:
                    v = _SEE_VALUE_AT[q + 8]
                    if v < best_value:
                        best_value = v
                        best_sq = t
                break
    if best_sq < 0:
        king = KING * side
        for t in _LEAP_SQUARES[sq * 32 + 8:sq * 32 + 8 + _LEAP_COUNT[sq * 4 + 1]]:  # king steps
            q = squares[t]
            if q == king:
                return t
    return best_sq


def see(pos: Position, m: int) -> int:
    """Static exchange evaluation of a capture (or any move) ``m``: the material the mover expects to win on
    the destination square when both sides keep recapturing with their cheapest piece and may stop at any
    time. The gated piece (if any) is ignored; x-rays come in as pieces leave the board. En passant counts as
    a pawn for a pawn. A drop (S-House) is a move from nowhere onto its empty square."""
    squares = pos.squares
    frm = move_from(m)
    to = move_to(m)
    if move_kind(m) == EN_PASSANT:
        return 0 if pos.is_attacked(to, -pos.side) else 100
    drop = move_kind(m) == DROP
    piece = move_piece(m) * pos.side if drop else squares[frm]
    victim = squares[to]
    # The gains of the exchange so far, and the squares it emptied with the pieces that stood there: fixed
    # arrays (C arrays on the stack in the compiled build, attacks.pxd), one slot per square of the board.
    gains = [0] * 64
    emptied = [0] * 64
    pieces = [0] * 64
    gains[0] = _SEE_VALUE_AT[victim + 8]
    on_square = _SEE_VALUE_AT[piece + 8]
    emptied[0] = frm
    pieces[0] = 0 if drop else piece  # what goes back on the mover's square afterwards (a drop's: nothing)
    n = 1
    squares[frm] = 0
    squares[to] = piece
    side = -pos.side
    while n < 64:  # each capturer leaves a square of its own, so there are fewer than 64 of them
        sq = _least_attacker(squares, to, side)
        if sq < 0:
            break
        gains[n] = on_square - gains[n - 1]
        q = squares[sq]
        on_square = _SEE_VALUE_AT[q + 8]
        emptied[n] = sq
        pieces[n] = q
        n += 1
        squares[sq] = 0
        squares[to] = q
        side = -side
    squares[to] = victim
    for i in range(n):
        squares[emptied[i]] = pieces[i]
    n -= 1
    while n > 0:
        if -gains[n - 1] < gains[n]:
            gains[n - 1] = -gains[n]
        n -= 1
    return gains[0]


CAPTURES_MAX = 256  # room for one position's keyed captures in a buffer (far more than a position has)
_CAPTURES_MAX = CAPTURES_MAX  # a C int in the compiled build (attacks.pxd), where CAPTURES_MAX stays importable


def captures(pos: Position) -> list[int]:
    """Legal captures and queen promotions (gated twins included) of a side not in check, in generation order,
    each as ``ordering key << 20 | move`` (one int sorts faster than a tuple; ``& 0xFFFFF`` is the move). The
    keys are unique: any sort puts them in one order (the search's is ``engine.ordering.sort_desc_range``,
    on the buffer :func:`captures_into` writes them to instead of a new list)."""
    out = array("q", bytes(8 * CAPTURES_MAX))
    return list(out[:captures_into(pos, out, 0)])


def captures_into(pos: Position, out: Any, start: int) -> int:
    """The keyed captures of :func:`captures` written to ``out[start:]`` (an ``array('q')`` of at least
    ``start + CAPTURES_MAX`` words, a typed memoryview of it in the compiled build); returns how many. A
    position with more than ``CAPTURES_MAX`` of them, if there were one, would have the rest left out."""
    end = start + _CAPTURES_MAX
    n = start
    squares = pos.squares
    side = pos.side
    us = 0 if side == 1 else 1
    ksq = pos.king_sq[us]
    aligned = ksq * 64  # our king's row of _ALIGNED_AT
    # The piece types we can gate in, as bit g for type g (from first_gate up: the order of the twins; HAWK
    # and ELEPHANT in S-chess, any piece but a pawn in S-House).
    gates = pos.gates
    gate_types = 0
    first_gate = pos.first_gate
    if gates:
        hand = pos.hand
        for g in range(first_gate, ELEPHANT + 1):
            if hand[g * side]:
                gate_types |= 1 << g
        if not gate_types:
            gates = 0
    # The capture targets of one piece at a time, in a fixed array (a C array in the compiled build): a piece
    # has at most 8 rays and 8 leaps.
    targets = [0] * 16
    for frm in range(64):
        piece = squares[frm]
        p = piece * side
        if p <= 0:
            continue
        count = 0
        if p == PAWN:
            one = frm + 8 * side
            f = frm & 7
            promo = (one >> 3) == (7 if side == 1 else 0)
            if f > 0 and (q := squares[one - 1]) * side < 0:
                targets[count] = one - 1
                count += 1
            if f < 7 and (q := squares[one + 1]) * side < 0:
                targets[count] = one + 1
                count += 1
            if promo:
                if squares[one] == 0:
                    targets[count] = one
                    count += 1
                for i in range(count):
                    t = targets[i]
                    if _legal_after(pos, frm, t, ksq, side):
                        key = _MVV_AT[squares[t] + 8] * 16 + 900  # a C long long: the shift needs 64 bits
                        if n < end:
                            out[n] = key << 20 | encode(frm, t, QUEEN, PROMOTION)
                            n += 1
                continue
        elif p == KING:
            for i in range(frm * 32 + 8, frm * 32 + 8 + _LEAP_COUNT[frm * 4 + 1]):  # king steps
                t = _LEAP_SQUARES[i]
                if (q := squares[t]) * side < 0:
                    targets[count] = t
                    count += 1
        else:
            if _KNIGHT_LEAPER[p]:
                for i in range(frm * 32, frm * 32 + _LEAP_COUNT[frm * 4]):
                    t = _LEAP_SQUARES[i]
                    if (q := squares[t]) * side < 0:
                        targets[count] = t
                        count += 1
            for d in range(frm * 8 + _RAYS_FROM[p], frm * 8 + _RAYS_TO[p]):
                for i in range(d * 8, d * 8 + _RAY_LENGTH[d]):
                    t = _RAY_SQUARES[i]
                    q = squares[t]
                    if q:
                        if q * side < 0:
                            targets[count] = t
                            count += 1
                        break
        if not count:
            continue
        rank = _ATTACKER_RANK_AT[p + 8]
        gated = gates and (frm < 8 or frm > 55) and gates >> frm & 1
        for i in range(count):
            t = targets[i]
            if p == KING:
                if not _king_safe_after(pos, frm, t, side):
                    continue
            elif _ALIGNED_AT[aligned + frm] and not _legal_after(pos, frm, t, ksq, side):
                continue
            q = squares[t]
            victim_value = _MVV_AT[q + 8]
            key = victim_value * 16 - rank
            if n < end:
                out[n] = key << 20 | encode(frm, t)
                n += 1
            if gated:
                for g in range(first_gate, ELEPHANT + 1):
                    if gate_types >> g & 1 and n < end:
                        out[n] = key << 20 | encode(frm, t, g)
                        n += 1
    if pos.ep >= 0:
        ep = pos.ep
        victim = ep - 8 * side
        k = ep * 4 + (2 if side == 1 else 3)  # the squares a pawn of side attacks ep from
        for i in range(k * 8, k * 8 + _LEAP_COUNT[k]):
            frm = _LEAP_SQUARES[i]
            if squares[frm] != side:
                continue
            squares[frm] = 0
            squares[victim] = 0
            squares[ep] = side
            legal = not pos.is_attacked(ksq, -side)
            squares[frm] = side
            squares[victim] = -side
            squares[ep] = 0
            if legal:
                if n < end:
                    out[n] = 1600 << 20 | encode(frm, ep, 0, EN_PASSANT)
                    n += 1
    if pos.entry_rule > 0:  # placement, forced entry: the captures their entry rule allows (engine.entry_rules)
        return entry_captures(pos, out, start, n - start)
    return n - start

def _legal_after(pos: Position, frm: int, to: int, ksq: int, side: int) -> bool:
    """Would our king on ``ksq`` be safe after moving frm -> to (not a king move)?"""
    if not _ALIGNED_AT[ksq * 64 + frm]:
        return True
    squares = pos.squares
    piece = squares[frm]
    captured = squares[to]
    squares[frm] = 0
    squares[to] = piece
    safe = not pos.is_attacked(ksq, -side)
    squares[frm] = piece
    squares[to] = captured
    return safe

def _king_safe_after(pos: Position, frm: int, to: int, side: int) -> bool:
    squares = pos.squares
    piece = squares[frm]
    captured = squares[to]
    squares[frm] = 0
    squares[to] = piece
    safe = not pos.is_attacked(to, -side)
    squares[frm] = piece
    squares[to] = captured
    return safe

