"""Legal move generation and attack detection for :class:`engine.position.Position` (one of its base classes).

Legal moves are generated directly, without make-and-test: checkers and pinned pieces are found once per
node from rays out of the king's square; in check only evasions survive (captures of the checker, blocks),
pinned pieces keep to their pin line, the king only steps to squares not attacked once it has left its own
square, en passant is tested by playing it on the board. Gating twins (the same move plus a piece from the
hand on the vacated square) are appended for moves from gate squares: the rules judge a gating move exactly
like the move without the gated piece, so the twins share the plain move's legality. In S-House any piece in
hand but a pawn may be gated, and drops (a piece from the hand on an empty square, pawns not on the first or
last rank) are legal unless they leave the king in check: in check only drops between the king and a sliding
checker, in double check none. The alternative entry
rules (placement, forced entry: ``entry_rule``) keep some of S-chess's moves, in :mod:`engine.entry_rules`.
"""

from __future__ import annotations

from .entry_rules import entry_legal
from .movecodes import (
    CASTLE,
    CASTLE_ROOK_GATE,
    DOUBLE_PUSH,
    DROP,
    EN_PASSANT,
    NORMAL,
    PROMOTION,
    encode,
    move_from,
    move_kind,
    move_to,
)
from .state import PositionState
from .tables import (
    BETWEEN,
    BISHOP,
    DIAGONAL_SLIDERS,
    ELEPHANT,
    GATE_TYPES,
    HAWK,
    KING,
    KNIGHT,
    KNIGHT_LEAPER,
    LEAP_COUNT,
    LEAP_SQUARES,
    LEAPERS,
    ORTHOGONAL_SLIDERS,
    PAWN,
    PAWN_ATTACKERS_BLACK,
    PAWN_ATTACKERS_WHITE,
    QUEEN,
    RAY_LENGTH,
    RAY_SQUARES,
    RAYS_FROM,
    RAYS_TO,
    ROOK,
    SQUARE_BITS,
)


# The attackers of a king, by kind of attack: one flag per defending colour c (0 white, 1 black) and signed
# piece code q, at c * 17 + 8 + q (a flat list, a C array in the compiled build, where a negative index would
# leave the array; a list index is cheaper than a set lookup under CPython too).
def _attacker_flags(types: tuple[int, ...]) -> list[int]:
    flags = [0] * 34
    for t in types:
        flags[8 - t] = 1  # a black piece attacks a white king
        flags[17 + 8 + t] = 1
    return flags


_ORTHO_AT = _attacker_flags(ORTHOGONAL_SLIDERS)
_DIAG_AT = _attacker_flags(DIAGONAL_SLIDERS)
_LEAP_AT = _attacker_flags(LEAPERS)
_RAY_SQUARES = RAY_SQUARES
_RAY_LENGTH = RAY_LENGTH
_LEAP_SQUARES = LEAP_SQUARES
_LEAP_COUNT = LEAP_COUNT
_KNIGHT_LEAPER = KNIGHT_LEAPER
_RAYS_FROM = RAYS_FROM
_RAYS_TO = RAYS_TO
# The squares between the king on k and a slider on t, and t itself, at k * 64 + t: where a piece pinned
# between them may go, or a move must land to answer the slider's check (a C array in the compiled build).
_LINE_TO = [BETWEEN[_k][_t] | SQUARE_BITS[_t] for _k in range(64) for _t in range(64)]
_ONE = 1
_ALL_SQUARES = (1 << 64) - 1
_PROMOTIONS = {
    "seirawan": (QUEEN, ROOK, BISHOP, KNIGHT, HAWK, ELEPHANT),
    "chess": (QUEEN, ROOK, BISHOP, KNIGHT),
    "shouse": (QUEEN, ROOK, BISHOP, KNIGHT, HAWK, ELEPHANT),
    "seirawan-placement": (QUEEN, ROOK, BISHOP, KNIGHT, HAWK, ELEPHANT),
    "seirawan-forced-entry": (QUEEN, ROOK, BISHOP, KNIGHT, HAWK, ELEPHANT),
}
# The promotion pieces in generation order: a variant promotes to the first len(_PROMOTIONS[variant]) of them
# (a C array in the compiled build).
_PROMOTION_ORDER = list(_PROMOTIONS["seirawan"])
assert GATE_TYPES == (HAWK, ELEPHANT)  # S-chess gates from first_gate = HAWK to ELEPHANT, S-House from KNIGHT
assert all(_PROMOTIONS["seirawan"][:len(pieces)] == pieces for pieces in _PROMOTIONS.values())


# Move codes as list lookups instead of int arithmetic: PLAIN_MOVES[frm][to] is the code of the plain move
# frm -> to, DOUBLE_PUSHES[frm] that of a pawn's double step from frm, GATED_MOVES[g][m] that of plain move m
# (below 4096) with piece g gated in. Reading an int out of a list makes no new int object, under CPython as in
# the compiled build (where building one allocates it).
PLAIN_MOVES = tuple([encode(frm, to) for to in range(64)] for frm in range(64))
DOUBLE_PUSHES = [encode(frm, frm + 16, 0, DOUBLE_PUSH) if 8 <= frm < 16  # white, from rank 2
                 else encode(frm, frm - 16, 0, DOUBLE_PUSH) if 48 <= frm < 56  # black, from rank 7
                 else 0 for frm in range(64)]
GATED_MOVES = tuple([encode(move_from(m), move_to(m), g) for m in range(4096)] if g not in (0, PAWN, KING) else []
                    for g in range(ELEPHANT + 1))
# DROP_MOVES[p][sq]: the code of dropping a piece of type p on sq.
DROP_MOVES = tuple([encode(sq, sq, p, DROP) for sq in range(64)] for p in range(ELEPHANT + 1))

# The set bits of each 8-bit pattern (one back rank of a square mask).
_RANK_BITS = tuple(tuple(sq for sq in range(8) if bits >> sq & 1) for bits in range(256))
_RANK_BITS_8 = tuple(tuple(sq + 56 for sq in squares) for squares in _RANK_BITS)  # the same on rank 8


class MoveGenerator(PositionState):
    """Attack tests and legal move generation over the state of a Position."""

    def is_attacked(self, sq: int, by_side: int) -> bool:
        """True if a piece of ``by_side`` (1 white, -1 black) attacks ``sq`` on the current board."""
        squares = self.squares
        # The flag tables' offset for the defending colour (0 white, 1 black), plus 8 for the signed codes.
        flags = 8 if by_side == -1 else 25
        # The flat tables (engine.tables) index every C array in the compiled build; each square's code goes
        # through the C int q: an object index or comparison would stay Python.
        leaps = sq * 32  # sq's knight leaps; its king steps start 8 further, the pawn attackers 16 and 24
        for t in _LEAP_SQUARES[leaps:leaps + _LEAP_COUNT[sq * 4]]:
            q = squares[t]
            if _LEAP_AT[flags + q]:
                return True
        for d in range(sq * 8, sq * 8 + 4):
            for t in _RAY_SQUARES[d * 8:d * 8 + _RAY_LENGTH[d]]:
                q = squares[t]
                if q:
                    if _ORTHO_AT[flags + q]:
                        return True
                    break
        for d in range(sq * 8 + 4, sq * 8 + 8):
            for t in _RAY_SQUARES[d * 8:d * 8 + _RAY_LENGTH[d]]:
                q = squares[t]
                if q:
                    if _DIAG_AT[flags + q]:
                        return True
                    break
        pawn = by_side  # PAWN * by_side
        k = sq * 4 + (2 if by_side == 1 else 3)  # the squares a pawn of by_side attacks sq from
        for t in _LEAP_SQUARES[k * 8:k * 8 + _LEAP_COUNT[k]]:
            q = squares[t]
            if q == pawn:
                return True
        king = KING * by_side
        for t in _LEAP_SQUARES[leaps + 8:leaps + 8 + _LEAP_COUNT[sq * 4 + 1]]:
            q = squares[t]
            if q == king:
                return True
        return False

    def in_check(self) -> bool:
        """True if the side to move is in check."""
        side = self.side
        return self.is_attacked(self.king_sq[0 if side == 1 else 1], -side)

    def generate_legal(self) -> list[int]:
        """All legal move codes of the side to move."""
        if self.entry_rule > 0:  # placement or forced entry: S-chess's moves, some of them (engine.entry_rules)
            return entry_legal(self)
        squares = self.squares
        side = self.side
        us = 0 if side == 1 else 1
        ksq = self.king_sq[us]
        # moves.append at each use rather than a bound method in a local: as fast under CPython, and the
        # compiled build turns it into a C call (a local holding the method stays a Python call).
        moves: list[int] = []

        # Checkers and pinned pieces, from rays and leaps out of the king's square (the flat tables of
        # engine.tables, C arrays in the compiled build; flags: the flag tables' offset for our colour).
        flags = us * 17 + 8
        checkers = 0
        check_mask = _ALL_SQUARES  # where a move must land to answer the check (every square: no check)
        pinned = 0  # the squares of our pinned pieces; pin_line[sq] is the line a piece pinned on sq keeps to
        pin_line = self.pin_line
        for d in range(ksq * 8, ksq * 8 + 8):  # four rook rays, then four bishop rays
            blocker = -1
            for t in _RAY_SQUARES[d * 8:d * 8 + _RAY_LENGTH[d]]:
                q = squares[t]
                if q:
                    if q * side > 0:
                        if blocker >= 0:
                            break
                        blocker = t
                        continue
                    if (_ORTHO_AT[flags + q] if d < ksq * 8 + 4 else _DIAG_AT[flags + q]):
                        line = _LINE_TO[ksq * 64 + t]
                        if blocker < 0:
                            checkers += 1
                            check_mask = line
                        else:
                            pinned |= _ONE << blocker
                            pin_line[blocker] = line
                    break
        for t in _LEAP_SQUARES[ksq * 32:ksq * 32 + _LEAP_COUNT[ksq * 4]]:  # knight leaps
            q = squares[t]
            if _LEAP_AT[flags + q]:
                checkers += 1
                check_mask = _ONE << t
        k = ksq * 4 + (3 if side == 1 else 2)  # the squares an enemy pawn attacks our king from
        for t in _LEAP_SQUARES[k * 8:k * 8 + _LEAP_COUNT[k]]:
            q = squares[t]
            if q == -side:
                checkers += 1
                check_mask = _ONE << t

        # The piece types we can gate in, as bit g for type g (from first_gate up to ELEPHANT, the order the
        # gated twins of a move come in; never a king or a pawn): a C int in the compiled build, where a list
        # would be an object.
        hand = self.hand
        gate_types = 0
        first_gate = self.first_gate
        if self.gates:
            for g in range(first_gate, ELEPHANT + 1):
                if hand[g * side]:
                    gate_types |= 1 << g
        gates = self.gates if gate_types else 0

        if checkers < 2:
            up = 8 * side
            start_rank = 1 if side == 1 else 6
            promo_rank = 6 if side == 1 else 1  # pawns on this rank promote when they move
            captures_at = 3 if side == 1 else 2  # our pawns' captures: the leaps of the other colour's attackers
            for frm in range(64):
                piece = squares[frm]
                p = piece * side
                if p <= 0:
                    continue
                row = PLAIN_MOVES[frm]
                if p == PAWN:  # inline: pawns are the most common piece and a call per pawn costs
                    rank = frm >> 3
                    one = frm + up
                    k = frm * 4 + captures_at
                    if rank == promo_rank:
                        promotions = len(_PROMOTIONS[self.variant])
                        if squares[one] == 0:
                            for i in range(promotions):
                                moves.append(encode(frm, one, _PROMOTION_ORDER[i], PROMOTION))
                        for j in range(k * 8, k * 8 + _LEAP_COUNT[k]):
                            t = _LEAP_SQUARES[j]
                            if (q := squares[t]) * side < 0:
                                for i in range(promotions):
                                    moves.append(encode(frm, t, _PROMOTION_ORDER[i], PROMOTION))
                    else:
                        if squares[one] == 0:
                            moves.append(row[one])
                        for j in range(k * 8, k * 8 + _LEAP_COUNT[k]):
                            t = _LEAP_SQUARES[j]
                            if (q := squares[t]) * side < 0:
                                moves.append(row[t])
                        if rank == start_rank and squares[one] == 0 and squares[one + up] == 0:
                            moves.append(DOUBLE_PUSHES[frm])
                    continue
                if p == KING:
                    continue
                gate_here = gates and (frm < 8 or frm > 55) and gates >> frm & 1
                if gate_here:
                    start = len(moves)
                if _KNIGHT_LEAPER[p]:
                    for t in _LEAP_SQUARES[frm * 32:frm * 32 + _LEAP_COUNT[frm * 4]]:
                        if (q := squares[t]) * side <= 0:
                            moves.append(row[t])
                for d in range(frm * 8 + _RAYS_FROM[p], frm * 8 + _RAYS_TO[p]):
                    for t in _RAY_SQUARES[d * 8:d * 8 + _RAY_LENGTH[d]]:
                        q = squares[t]
                        if q == 0:
                            moves.append(row[t])
                        else:
                            if q * side < 0:
                                moves.append(row[t])
                            break
                if gate_here:
                    end = len(moves)
                    for i in range(start, end):
                        m = moves[i]
                        for g in range(first_gate, ELEPHANT + 1):
                            if gate_types >> g & 1:
                                moves.append(GATED_MOVES[g][m])
            if self.ep >= 0:
                self._en_passant_moves(side, ksq, moves)
            if pinned or checkers:
                # Pinned pieces keep to their line, and in check a move must capture or block the checker (en
                # passant was tested on the board already): the moves kept move up in the list, in order.
                end = 0
                for i in range(len(moves)):
                    m = moves[i]
                    if m >> 16 != EN_PASSANT:  # move_kind, move_from, move_to written out: a loop over every move
                        frm = m & 63
                        to = m >> 6 & 63
                        if pinned >> frm & 1 and not pin_line[frm] >> to & 1:
                            continue
                        if not check_mask >> to & 1:
                            continue
                    moves[end] = moves[i]  # the item itself: a C int m would be made into a new object
                    end += 1
                del moves[end:]
            if self.drops:
                self._drop_moves(side, check_mask, moves)

        self._king_moves(side, ksq, checkers, gates, gate_types, moves)
        return moves

    def _king_moves(self, side: int, ksq: int, checkers: int, gates: int, gate_types: int, moves: list[int]) -> None:
        """The king's moves, appended to ``moves``: steps to squares not attacked once the king has left its
        own, castling when not in check, and the gated twins of the steps from a gate square."""
        squares = self.squares
        king = squares[ksq]
        squares[ksq] = 0
        start = len(moves)
        row = PLAIN_MOVES[ksq]
        for t in _LEAP_SQUARES[ksq * 32 + 8:ksq * 32 + 8 + _LEAP_COUNT[ksq * 4 + 1]]:  # king steps
            if squares[t] * side <= 0 and not self.is_attacked(t, -side):
                moves.append(row[t])
        squares[ksq] = king
        if self.castling and not checkers:
            self._castling_moves(side, ksq, gates, gate_types, moves)
        if gates >> ksq & 1:
            end = len(moves)
            for i in range(start, end):
                m = moves[i]
                if move_kind(m) == NORMAL:
                    for g in range(self.first_gate, ELEPHANT + 1):
                        if gate_types >> g & 1:
                            moves.append(GATED_MOVES[g][m])

    def _drop_moves(self, side: int, target: int, moves: list[int]) -> None:
        """The drops of the side to move onto the empty squares of ``target`` (every square when not in
        check; the squares between the king and a sliding checker in check)."""
        hand = self.hand
        kinds = 0  # bit p for each piece type p in hand
        for p in range(PAWN, ELEPHANT + 1):
            if hand[p * side]:
                kinds |= 1 << p
        if not kinds:
            return
        squares = self.squares
        for p in range(PAWN, ELEPHANT + 1):
            if kinds >> p & 1:
                row = DROP_MOVES[p]
                first = 8 if p == PAWN else 0  # pawns: not on the first or last rank
                last = 56 if p == PAWN else 64
                for sq in range(first, last):
                    if squares[sq] == 0 and target >> sq & 1:
                        moves.append(row[sq])

    def _en_passant_moves(self, side: int, ksq: int, moves: list[int]) -> None:
        ep = self.ep
        squares = self.squares
        victim = ep - 8 * side
        attackers = PAWN_ATTACKERS_WHITE[ep] if side == 1 else PAWN_ATTACKERS_BLACK[ep]
        for frm in attackers:
            if squares[frm] != side:
                continue
            squares[frm] = 0
            squares[victim] = 0
            squares[ep] = side
            legal = not self.is_attacked(ksq, -side)
            squares[frm] = side
            squares[victim] = -side
            squares[ep] = 0
            if legal:
                moves.append(encode(frm, ep, 0, EN_PASSANT))

    def _castling_moves(self, side: int, ksq: int, gates: int, gate_types: int, moves: list[int]) -> None:
        """The legal castling moves and their gated twins (``gate_types``: bit g for each type g in hand)."""
        squares = self.squares
        castling = self.castling
        # The rook squares of this side's rights, from the 8 bits of its back rank (small ints for PyPy).
        rooks = _RANK_BITS[castling & 255] if side == 1 else _RANK_BITS_8[castling >> 56 & 255]
        for rook_sq in rooks:
            king_to, rook_to, path, king_path = self._castle_info[rook_sq]
            blocked = False
            for sq in path:
                if squares[sq]:
                    blocked = True
                    break
            if blocked:
                continue
            king = squares[ksq]
            rook = squares[rook_sq]
            squares[ksq] = 0
            squares[rook_sq] = 0
            safe = True
            for sq in king_path:
                if self.is_attacked(sq, -side):
                    safe = False
                    break
            if safe and (king_to != ksq or rook_to != rook_sq):
                # The final position decides (a rook that shielded the king's square may have moved away).
                squares[king_to] = king
                squares[rook_to] = rook
                safe = not self.is_attacked(king_to, -side)
                squares[king_to] = 0
                squares[rook_to] = 0
            squares[ksq] = king
            squares[rook_sq] = rook
            if not safe:
                continue
            base = encode(ksq, rook_sq, 0, CASTLE)
            moves.append(base)
            if gate_types:
                if gates >> ksq & 1 and ksq != king_to and ksq != rook_to:
                    for g in range(self.first_gate, ELEPHANT + 1):
                        if gate_types >> g & 1:
                            moves.append(encode(ksq, rook_sq, g, CASTLE))
                if gates >> rook_sq & 1 and rook_sq != king_to and rook_sq != rook_to:
                    for g in range(self.first_gate, ELEPHANT + 1):
                        if gate_types >> g & 1:
                            moves.append(encode(ksq, rook_sq, g, CASTLE_ROOK_GATE))

