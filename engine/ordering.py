"""Move ordering: the ordering key of each move and the sort by key, highest first.

A key is packed with its move as ``key << 20 | move code`` (one int sorts faster than a tuple); the codes of
one move list differ, so these ints do too, and any correct sort gives the same order. This module is what
CPython and PyPy run. The compiled build (``SCHESS_ENGINE_COMPILE=1``) also compiles ``engine/_ordering.pyx``,
the same functions on C arrays (keys as C ``long long``, an insertion sort that carries each key's index so
that the result reuses the move list's int objects), and the compiled search and captures call those. Both
read the keys below; ``test_compiled_move_ordering_matches_the_python_one`` (run on the compiled build) and
the ``bench`` node count, equal in both builds, check that the two agree.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING, Any

from .attacks import SEE_VALUE, see
from .movecodes import DROP, EN_PASSANT, PROMOTION, keyed_move
from .tables import QUEEN

if TYPE_CHECKING:
    from .position import Position

# The keys of the ordering rules, best first: the one table both builds read (``_ordering.pyx`` takes these
# values; the order of the tests is :func:`keyed_moves` and its C twin ``_key``).
HASH_MOVE_KEY = 1 << 30
CAPTURE_KEY = 1 << 24  # plus the capture's MVV-LVA (capture_order) and the piece it gates
EN_PASSANT_KEY = CAPTURE_KEY + 1600
# A bad capture (its exchange loses material: a capturing piece worth more than its victim, SEE below zero) is
# tried after every quiet move, keeping its MVV-LVA order among the bad ones (Stockfish's move picker tries bad
# captures last). With ``bad_last`` its key is its capture key less this; the search's own buffer (order_into
# without it) keeps every capture among the captures and defers a bad one when it reaches it, in the same
# order, so that a node that cuts off first never pays for the exchange (AlphaBetaSearch.pvs).
BAD_CAPTURE_DROP = CAPTURE_KEY + (1 << 21)
#: A promotion's key by the piece it makes: a queen among the captures, the others after the small ones.
PROMOTION_KEYS = tuple(CAPTURE_KEY + (850 if piece == QUEEN else piece * 20) for piece in range(16))
KILLER_KEY = 1 << 22
FIRST_KILLER_KEY = KILLER_KEY + 1
SECOND_KILLER_KEY = KILLER_KEY
COUNTERMOVE_KEY = KILLER_KEY - 1
# Below them the quiet moves by history, plus the piece they gate.
# S-House: a drop within two squares of the enemy king (where attacks on it start) ranks this much above
# the history of other quiet moves; DROP_NEAR[king * 64 + sq] is 1 for those squares.
DROP_NEAR_KEY = 1 << 18
DROP_NEAR = [1 if max(abs((king & 7) - (sq & 7)), abs((king >> 3) - (sq >> 3))) <= 2 else 0
             for king in range(64) for sq in range(64)]
# A drop more than two squares from both kings ranks this much below the history of other quiet moves, so
# that late-move pruning and reductions reach it first (DROP_NEAR is 0 for such squares of each king).
DROP_FAR_KEY = 1 << 20
# The tables of the quiet keys (engine.search.MoveOrderer keeps them): the history by colour and from-to
# squares, 2 x 4096 words (white's first), and the continuation history, a row per piece-to of the move one,
# two or four plies up, ``piece_to * PIECE_TO``, then the piece-to of this move (a piece-to is the moving or
# dropped piece's signed code + 8, times 64, plus its destination). One more row, CONT_NONE, stands for "no
# move" (a null move, the plies before the root): the search never updates it, so it stays zero.
PIECE_TO = 17 * 64
CONT_NONE = PIECE_TO * PIECE_TO
# The capture history (Stockfish's captureHistory), added to a capture's MVV-LVA key: a word per capturing piece
# and destination (its piece-to) and the type it takes, at ``piece_to * 8 + type - 1``.
CAPTURE_HISTORY_SIZE = PIECE_TO * 8


def capture_order(mvv: list[int], attacker_rank: list[int]) -> list[list[int]]:
    """The ordering key of a capture by signed victim and attacker codes (17 x 17, negative codes wrap):
    most valuable victim first, cheapest attacker first (one lookup instead of three)."""
    return [[CAPTURE_KEY + mvv[victim] * 16 - attacker_rank[attacker] for attacker in range(17)]
            for victim in range(17)]


def piece_to(pos: Position, m: int) -> int:
    """The piece-to index of the move ``m`` in ``pos``: the signed code of the piece it moves or drops, + 8,
    times 64, plus its destination (the continuation history's coordinates)."""
    if m >> 16 == DROP:
        return ((m >> 12 & 15) * pos.side + 8) * 64 + (m >> 6 & 63)
    return (pos.squares[m & 63] + 8) * 64 + (m >> 6 & 63)


def keyed_moves(moves: list[int], pos: Position, capture_keys: list[list[int]], history: Any,
                killer1: int, killer2: int, counter: int, hash_move: int, cont: Any, row1: int, row2: int,
                row4: int, bad_last: bool, capture_history: Any) -> list[int]:
    """``moves`` (legal in ``pos``) as ``key << 20 | move`` ints, in the order given: the hash move highest,
    then captures (``capture_keys`` plus ``capture_history``) and promotions, en passant, the two killers,
    the countermove, then the quiet moves by ``history`` (the side to move's half) plus twice the
    continuation history ``cont`` under the moves one, two and four plies up (rows ``row1``, ``row2``,
    ``row4``); a gated twin a little above its plain move, a drop by the piece it drops and well above the
    rest when it lands near the enemy king, below them when it lands near neither king; with ``bad_last``,
    last the captures that lose material (BAD_CAPTURE_DROP)."""
    squares = pos.squares
    side = pos.side
    base = 0 if side == 1 else 4096
    near = pos.king_sq[1 if side == 1 else 0] * 64  # the enemy king's row of DROP_NEAR
    own = pos.king_sq[0 if side == 1 else 1] * 64  # our king's row
    keyed: list[int] = []
    append = keyed.append
    for m in moves:
        if m == hash_move:
            append(HASH_MOVE_KEY << 20 | m)
            continue
        # The fields of engine.movecodes written out (a call each would cost the pure build's hottest loop; the
        # compiled twin calls them): move_to, move_kind, move_piece, move_from, from_to.
        victim = squares[m >> 6 & 63]
        kind = m >> 16
        piece = m >> 12 & 15
        if victim * side < 0:
            attacker = squares[m & 63]
            # The capture history at the move's piece-to and the type it takes (-victim * side, 1 .. 8).
            key = (capture_keys[victim][attacker] + piece
                   + capture_history[((attacker + 8) * 64 + (m >> 6 & 63)) * 8 - victim * side - 1])
            if bad_last and SEE_VALUE[attacker] > SEE_VALUE[victim] and see(pos, m) < 0:
                key -= BAD_CAPTURE_DROP
        elif kind == PROMOTION:
            key = PROMOTION_KEYS[piece]
        elif kind == EN_PASSANT:
            key = EN_PASSANT_KEY
        elif m == killer1:
            key = FIRST_KILLER_KEY
        elif m == killer2:
            key = SECOND_KILLER_KEY
        elif m == counter:
            key = COUNTERMOVE_KEY
        elif kind == DROP:
            to = m >> 6 & 63
            pt = (piece * side + 8) * 64 + to
            key = (history[base + (m & 4095)] + 2 * (cont[row1 + pt] + cont[row2 + pt] + cont[row4 + pt]) + piece
                   + DROP_NEAR[near + to] * DROP_NEAR_KEY)
            if not DROP_NEAR[near + to] and not DROP_NEAR[own + to]:
                key -= DROP_FAR_KEY
        else:
            pt = (squares[m & 63] + 8) * 64 + (m >> 6 & 63)
            key = history[base + (m & 4095)] + 2 * (cont[row1 + pt] + cont[row2 + pt] + cont[row4 + pt]) + piece
        append(key << 20 | m)
    return keyed


def order_moves(moves: list[int], pos: Position, capture_keys: list[list[int]], history: Any, killer1: int,
                killer2: int, counter: int, hash_move: int, cont: Any, row1: int, row2: int,
                row4: int, bad_last: bool, capture_history: Any) -> list[int]:
    """``moves`` best first, by the keys of :func:`keyed_moves`."""
    keyed = keyed_moves(moves, pos, capture_keys, history, killer1, killer2, counter, hash_move, cont, row1, row2,
                        row4, bad_last, capture_history)
    keyed.sort(reverse=True)
    return [keyed_move(k) for k in keyed]


def order_into(moves: list[int], pos: Position, capture_keys: list[list[int]], history: Any, killer1: int,
               killer2: int, counter: int, hash_move: int, cont: Any, row1: int, row2: int, row4: int, out: Any,
               start: int, bad_last: bool, capture_history: Any) -> int:
    """The keys of :func:`keyed_moves` written to ``out[start:]`` (an ``array('q')``, the search's move
    buffer), highest first: the moves best first, ``key & 0xFFFFF`` each; returns how many."""
    keyed = keyed_moves(moves, pos, capture_keys, history, killer1, killer2, counter, hash_move, cont, row1, row2,
                        row4, bad_last, capture_history)
    n = len(keyed)
    if start + n > len(out):
        raise IndexError(f"move buffer full: {n} moves at {start} of {len(out)}")
    keyed.sort(reverse=True)
    out[start:start + n] = array("q", keyed)
    return n


def sort_desc_range(keys: Any, start: int, n: int) -> None:
    """``keys[start:start + n]`` (``key << 20 | move`` ints in an ``array('q')``, the buffer of
    :func:`engine.attacks.captures_into`) sorted highest first, in place."""
    keys[start:start + n] = array("q", sorted(keys[start:start + n], reverse=True))
