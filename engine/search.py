"""Alpha-beta search: iterative deepening PVS with aspiration windows, quiescence, transposition table,
null move, ProbCut, late-move reductions, check extension, killers and history.

The search works on the int move codes of :class:`engine.position.Position` and keeps the material/PST sums
incrementally (``evaluate.move_delta``). One Searcher is one thread of search; the UCI front end runs it in a
thread and stops it through ``Searcher.stop_now``. With ``Threads`` above 1, helper processes run Searchers
of their own on a shared table (:mod:`engine.smp`, :mod:`engine.sharedtable`); this module imports
neither.

The parts, one class each: :class:`Searcher` drives a search (iterative deepening, aspiration windows, the
root moves, the principal variation, Skill Level); :class:`AlphaBetaSearch` searches the tree below the root
(PVS, pruning, the transposition table) and :class:`QuiescenceSearch` the captures at its leaves;
:class:`MoveOrderer` orders the moves and learns from cut-offs (history, killers, countermoves);
:class:`SearchControl` counts the nodes and says when to stop.
"""

from __future__ import annotations

import math
import random
import time
from array import array
from typing import Any, Callable, Dict, Optional, Protocol

from .attacks import ATTACKER_RANK, CAPTURES_MAX, MVV, SEE_VALUE, captures, captures_into, gives_check_quiet, see
from .evaluate import evaluate, initial_scores, move_delta
from .movecodes import (
    CASTLE,
    CASTLE_ROOK_GATE,
    DROP,
    EN_PASSANT,
    PROMOTION,
    from_to,
    is_plain,
    is_simple_move,
    keyed_move,
    move_from,
    move_kind,
    move_piece,
    move_to,
)
from .nnue import Accumulator
from .ordering import (
    CAPTURE_HISTORY_SIZE,
    CONT_NONE,
    PIECE_TO,
    capture_order,
    order_into,
    order_moves,
    piece_to,
    sort_desc_range,
)
from .position import Position
from .tables import (
    KING,
    ORDER_VALUE,
    PAWN,
    ROOK,
)
from .timeman import keep_searching
from .tt import (
    BOUND_MASK,
    BOUND_SHIFT,
    DEPTH_MAX,
    DEPTH_SHIFT,
    EXACT,
    LOWER,
    MOVE_MASK,
    SCORE_MASK,
    SCORE_OFFSET,
    SCORE_SHIFT,
    UPPER,
    SharedWords,
    TranspositionTable,
    tt_key,
)

INFINITE = 32000
MATE = 31000
MATE_BOUND = MATE - 1000  # scores beyond this are mates
_MATE_BOUND = MATE_BOUND  # a C value in the compiled build (search.pxd), where MATE_BOUND stays importable
MAX_PLY = 100
# Room for the moves of one node in the search's move buffers: more than any position has (chess at most
# 218 legal moves; S-chess adds at most two gated twins to each of the moves from a gate square).
MOVES_MAX = 1024
# The keys of a move buffer word whose capture pvs tries after the others (below any ordering key): LOST when
# the exchange loses more than 80 cp a ply of depth, which prunes the capture near the leaves.
DEFERRED = -(1 << 30)
LOST = DEFERRED - 1
# Static evaluations a search keeps by table key (QuiescenceSearch.static_eval): a power of two.
EVAL_CACHE_SLOTS = 1 << 15

# The history tables move towards +-their limit by Stockfish's gravity rule, h += bonus - h * |bonus| / limit,
# so that 16-bit words hold them: the history by colour and from-to squares, and the continuation history.
HISTORY_MAX = 10692
CONT_MAX = 29952

# The ordering key of a capture by signed victim and attacker codes (engine.ordering).
_CAPTURE_ORDER = capture_order(MVV, ATTACKER_RANK)

# Late-move reduction by depth and move number, at depth * 64 + number (:func:`_lmr`): an array, which the compiled
# build reads as a C array.
_LMR = array("i", bytes(4 * 64 * 64))
for _d in range(1, 64):
    for _m in range(1, 64):
        _LMR[_d * 64 + _m] = int(0.5 + math.log(_d) * math.log(_m) / 1.8)

REVERSE_FUTILITY_MARGIN = 110  # cp a ply (one ply less when the static evaluation is improving)
REVERSE_FUTILITY_DEPTH = 6
# Futility pruning of quiet moves by the depth left after their late-move reduction: the static evaluation
# plus FUTILITY_BASE + FUTILITY_MARGIN a ply still below alpha.
FUTILITY_BASE = 120
FUTILITY_MARGIN = 100
FUTILITY_DEPTH = 6
# Late-move pruning: quiet moves searched at depth 1..LATE_MOVE_DEPTH before the rest are skipped,
# (5 + depth^2) / 2, twice as many when the static evaluation is improving (Stockfish's move counts).
LATE_MOVE_DEPTH = 8
LATE_MOVE_COUNT = [(5 + _d * _d) // 2 for _d in range(LATE_MOVE_DEPTH + 1)]
LATE_MOVE_COUNT_IMPROVING = [5 + _d * _d for _d in range(LATE_MOVE_DEPTH + 1)]
# SEE pruning of quiet moves: skipped when they lose more than SEE_QUIET_MARGIN x d^2 on their square
# (d: the depth left after the late-move reduction, below SEE_QUIET_DEPTH).
SEE_QUIET_MARGIN = 20
SEE_QUIET_DEPTH = 8
# ProbCut: at a non-PV node from PROBCUT_DEPTH, a capture whose exchange reaches PROBCUT_MARGIN above beta
# (less PROBCUT_IMPROVING when improving) past the static evaluation, and that still beats that raised beta in
# a quiescence search and then a search PROBCUT_REDUCTION plies shallower, cuts the node (Stockfish 11's
# margins of 189 and 45 in its units, about 90 and 20 cp); at most PROBCUT_TRIES captures are tried.
PROBCUT_DEPTH = 5
PROBCUT_MARGIN = 100
PROBCUT_IMPROVING = 25
PROBCUT_REDUCTION = 4
PROBCUT_TRIES = 3
# The null move (Stockfish 11's constants): tried when the static evaluation is at least beta and at least
# beta + NULL_MARGIN - NULL_MARGIN_DEPTH x depth (NULL_MARGIN_IMPROVING less when improving); searched
# (NULL_BASE + NULL_DEPTH x depth) / 258 plies shallower, a ply more per 192 cp above beta (up to 3).
NULL_MARGIN = 292
NULL_MARGIN_DEPTH = 32
NULL_MARGIN_IMPROVING = 30
NULL_BASE = 854
NULL_DEPTH = 68
# Correction history: what this game's searches found the static evaluation to miss, by side to move and pawn
# structure (CORRECTION_SIZE slots a side, by a hash of where each side's pawns stand). A node not in check whose
# best move is quiet, and whose result bounds its score on the far side of the static evaluation (or is exact),
# moves its slot's 16-bit word by the gravity rule with (score - static evaluation) x depth / 8 (within a quarter
# of CORRECTION_MAX); the static evaluation adds word x |word| / CORRECTION_GRAIN (Stockfish's square: small words,
# the noise of a few nodes, count little), so at most 64 cp.
CORRECTION_BITS = 14
CORRECTION_SIZE = 1 << CORRECTION_BITS
CORRECTION_MAX = 1024
CORRECTION_GRAIN = 16384
# The pawn-structure hash: each side's pawn squares as a 64-bit mask, multiplied by an odd constant (64-bit
# wrap-around in both builds), the two products' exclusive or, its top CORRECTION_BITS bits.
_MASK64 = (1 << 64) - 1
_PAWN_MIX_WHITE = 0x9E3779B97F4A7C15
_PAWN_MIX_BLACK = 0xC2B2AE3D27D4EB4F
# A checking drop (S-House) past the first move of a non-PV node is skipped when it loses more than
# CHECK_SEE_MARGIN x depth on its square.
CHECK_SEE_MARGIN = 200
# Singular extension: from this depth, a hash move whose table score is a lower bound (or exact) from a search
# at most SINGULAR_DEPTH_SLACK plies shallower is tested for being the only good move: the other moves, searched
# to half the depth, all stay below its table score less SINGULAR_MARGIN x depth. Then it is searched a ply
# deeper; when even that reduced search of the others reaches beta, the node is cut (multi-cut).
SINGULAR_DEPTH = 6
SINGULAR_DEPTH_SLACK = 3
SINGULAR_MARGIN = 2

__all__ = [  # the rules helpers the search uses keep their old import path (engine.search.see ...)
    "MATE_BOUND", "AlphaBetaSearch", "MoveOrderer", "QuiescenceSearch", "SearchAborted", "SearchControl",
    "SearchLimits", "SearchResult", "Searcher", "captures", "gives_check_quiet", "mate_in", "see",
]


# A score no search returns: a stage that did not settle the node, a move that was pruned.
NO_SCORE = INFINITE + 1


# ---------------------------------------------------------------------- what the table stored
# The fields of the data word a table slot holds (layout: engine.tt), by name (the move's fields are
# engine.movecodes'). The compiled build declares them ``cdef`` (search.pxd): the same C as the shifts written out.


def stored_move(data: int) -> int:
    """The move the table stored (0: none; an empty slot's data is 0 too)."""
    return data & MOVE_MASK


def stored_depth(data: int) -> int:
    """The depth the stored score was searched to."""
    return data >> DEPTH_SHIFT & DEPTH_MAX


def stored_bound(data: int) -> int:
    """EXACT, LOWER or UPPER: what the stored score is."""
    return data >> BOUND_SHIFT & BOUND_MASK


def stored_score(data: int) -> int:
    """The stored score, a mate relative to its node (:func:`score_from_table`)."""
    return (data >> SCORE_SHIFT & SCORE_MASK) - SCORE_OFFSET


def score_to_table(score: int, ply: int) -> int:
    """A score at ``ply`` as the table stores it: a mate counted from the node, not from the root."""
    if score > _MATE_BOUND:
        return score + ply
    if score < -_MATE_BOUND:
        return score - ply
    return score


def score_from_table(score: int, ply: int) -> int:
    """A stored score read at ``ply``: a mate counted from the root again."""
    if score > _MATE_BOUND:
        return score - ply
    if score < -_MATE_BOUND:
        return score + ply
    return score


def bound_cuts(bound: int, score: int, alpha: int, beta: int) -> bool:
    """Whether a table score with this bound settles a node searched in ``(alpha, beta)``: an exact score,
    a lower bound at or above beta, an upper bound at or below alpha."""
    return bound == EXACT or (bound == LOWER and score >= beta) or (bound == UPPER and score <= alpha)


def bound_of(best: int, original_alpha: int, beta: int) -> int:
    """What a fail-soft result ``best`` of a node searched in ``(original_alpha, beta)`` is: a lower bound at or
    above beta, exact between, an upper bound at or below alpha."""
    if best >= beta:
        return LOWER
    if best > original_alpha:
        return EXACT
    return UPPER


def _counter_slot(pos: Position) -> int:
    """The countermove slot of the opponent's last move, by its piece and destination; -1 after a null move
    or at the start of the game."""
    if not pos.undo_len:
        return -1
    prev = pos.undo_code(pos.undo_len - 1)
    if prev <= 0:
        return -1
    prev_to = move_to(prev)
    return (pos.squares[prev_to] + 8) * 64 + prev_to


def _lmr(depth: int, searched: int) -> int:
    """The late-move reduction from the table at ``depth`` for a move with ``searched`` moves before it."""
    return _LMR[(depth if depth < 64 else 63) * 64 + (searched if searched < 64 else 63)]


def _late_move_limit(depth: int, improving: bool) -> int:
    """How many quiet moves a prunable node searches before the rest are pruned (late-move pruning)."""
    if depth > LATE_MOVE_DEPTH:
        return 1000
    return LATE_MOVE_COUNT_IMPROVING[depth] if improving else LATE_MOVE_COUNT[depth]


def _late_move_reduction(depth: int, searched: int, new_depth: int, pv_node: bool, improving: bool,
                         killer: bool, check: bool) -> int:
    """The plies a late quiet move is searched shallower (``searched`` moves before it): by the table, one
    less at a PV node or for a killer, one more at a non-PV node that is not improving; at most
    ``new_depth - 1``, and then one less for a move that gives ``check``."""
    reduction = _lmr(depth, searched)
    if pv_node and reduction:
        reduction -= 1
    elif not pv_node and not improving:
        reduction += 1
    if killer:
        reduction = reduction - 1 if reduction else 0
    if reduction >= new_depth:
        reduction = new_depth - 1
    if check and reduction:
        reduction -= 1
    return reduction


def _plausible(pos: Position, m: int) -> bool:
    """Cheap sanity check of a move from the transposition table before it is played without generating
    the legal moves: the key matched, so it is legal unless two positions share a 64-bit key; this only
    makes sure such a collision cannot corrupt the board (no king capture, own piece moving)."""
    squares = pos.squares
    side = pos.side
    frm = move_from(m)
    to = move_to(m)
    flag = move_kind(m)
    if flag == DROP:  # S-House: a piece we hold, on an empty square (a pawn not on the first or last rank)
        piece = move_piece(m)
        return squares[to] == 0 and pos.hand[piece * side] > 0 and (piece != 1 or 8 <= to < 56)
    piece = squares[frm]
    if piece * side <= 0:
        return False
    if flag == CASTLE or flag == CASTLE_ROOK_GATE:
        victim = squares[to]
        return piece == KING * side and pos.castling >> to & 1 == 1 and victim == ROOK * side
    victim = squares[to]
    if victim * side > 0 or victim == KING or victim == -KING:
        return False
    if flag == EN_PASSANT:
        return to == pos.ep
    gate = move_piece(m)
    if gate and flag != PROMOTION:
        return pos.hand[gate * side] > 0 and pos.gates >> frm & 1 == 1
    return True


def _make_checked(pos: Position, m: int) -> bool:
    """Make the capture or promotion ``m`` on ``pos``; whether it gives check (for a plain move, the test
    without the board, which is cheaper, before it is made)."""
    if is_plain(m):
        check = gives_check_quiet(pos, m)
        pos.make(m)
        return check
    pos.make(m)
    return pos.in_check()


def _list_of(n: int, value: int) -> list[int]:
    """``n`` times ``value`` (a function: the compiled build fills a C array from a list, not from a list
    multiplied by a name)."""
    return [value] * n


def _pawn_slot(pos: Position) -> int:
    """The correction history's slot of ``pos``: its side to move and a hash of its pawns' squares."""
    squares = pos.squares
    white = 0
    black = 0
    one = 1
    for sq in range(64):
        p = squares[sq]
        if p == PAWN:
            white |= one << sq
        elif p == -PAWN:
            black |= one << sq
    mixed = (white * _PAWN_MIX_WHITE & _MASK64) ^ (black * _PAWN_MIX_BLACK & _MASK64)
    return (CORRECTION_SIZE if pos.side < 0 else 0) + (mixed >> (64 - CORRECTION_BITS))


def _has_pieces(pos: Position, side: int) -> bool:
    """Anything but king and pawns (on the board, or in hand with a gate) for the null-move test."""
    for p in pos.squares:
        if p * side > 1 and p * side != KING:
            return True
    return False


class StopSignal(Protocol):
    """What a Lazy SMP helper's search polls to learn that the main search has finished (the shared block of
    :mod:`engine.sharedtable` is one); the search needs nothing else from it."""

    @property
    def stopped(self) -> bool: ...


class SearchAborted(Exception):
    """Raised inside the tree when time is up or ``stop`` arrived; the root restores the position."""


class SearchLimits:
    """What bounds a search. Times are in seconds from the start of the search; None = no bound."""

    def __init__(
        self,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        soft_time: Optional[float] = None,
        hard_time: Optional[float] = None,
        infinite: bool = False,
    ) -> None:
        self.depth = depth
        self.nodes = nodes
        self.soft_time = soft_time
        self.hard_time = hard_time
        self.infinite = infinite


class SearchResult:
    def __init__(self, best: int, ponder: int, score: int, depth: int, nodes: int, pv: list[int]) -> None:
        self.best = best
        self.ponder = ponder
        self.score = score
        self.depth = depth
        self.nodes = nodes
        self.pv = pv


InfoCallback = Callable[[Dict[str, Any]], None]


class SearchControl:
    """The counters and the stop conditions of one search, shared by the driver and the tree searches: the
    nodes searched, the selective depth reached, the start time, the hard deadline, the node limit, the
    ``stop`` flag and a Lazy SMP helper's stop signal. The tree searches count a node and call :meth:`check`
    every 256 nodes."""

    def __init__(self, tt: TranspositionTable) -> None:
        self.tt = tt
        self.nodes = 0
        self.seldepth = 0
        self.stop_flag = False
        self.start_time = 0.0
        self.hard_deadline: Optional[float] = None
        self.node_limit: Optional[int] = None
        self.stop_signal: Optional[StopSignal] = None  # a helper's: stop when the main search has stopped

    def start(self, limits: SearchLimits, stop_signal: Optional[StopSignal]) -> None:
        """Zero the counters and take the bounds of a new search; its times count from now."""
        self.nodes = 0
        self.seldepth = 0
        self.stop_flag = False
        self.start_time = time.perf_counter()
        self.hard_deadline = None if limits.hard_time is None else self.start_time + limits.hard_time
        self.node_limit = limits.nodes
        self.stop_signal = stop_signal

    def elapsed(self) -> float:
        """Seconds since the search started."""
        return time.perf_counter() - self.start_time

    def visit(self, ply: int) -> None:
        """Count a node at ``ply`` (and the selective depth), and every 256 nodes :meth:`check`."""
        self.nodes += 1
        if not self.nodes & 255:
            self.check()
        if ply > self.seldepth:
            self.seldepth = ply

    def check(self) -> None:
        """Raise SearchAborted when ``stop`` arrived, the hard deadline or the node limit passed, or (a Lazy SMP
        helper) the main search finished."""
        if self.stop_flag:
            raise SearchAborted
        if self.hard_deadline is not None and time.perf_counter() >= self.hard_deadline:
            raise SearchAborted
        if self.node_limit is not None and self.nodes >= self.node_limit:
            raise SearchAborted
        signal = self.stop_signal
        if signal is not None and signal.stopped:  # a Lazy SMP helper: the main search has finished
            raise SearchAborted


def stat_bonus(depth: int) -> int:
    """What a cut-off at ``depth`` adds to the histories of its move, and takes from the quiet moves tried
    before it (Stockfish's bonus, flat from depth 15)."""
    if depth > 15:
        depth = 15
    return 19 * depth * depth + 155 * depth - 132


def _gravity(h: int, bonus: int, limit: int) -> int:
    """``h`` moved by ``bonus`` towards +-``limit``: the closer it is, the less it moves (floor division in
    both builds), so it never passes the limit."""
    return h + bonus - h * (bonus if bonus > 0 else -bonus) // limit


class MoveOrderer:
    """Move ordering and what it learns from cut-offs: the history by colour and from-to squares, the
    continuation history (by the piece and destination of the move one, two or four plies up and of this move,
    :func:`engine.ordering.piece_to`), the capture history (by the capturing piece, its destination and the
    type it takes), two killer moves per ply and the countermoves. The histories are ``array('h')`` tables of
    16-bit words (typed memoryviews of them in the compiled build; the gravity rule keeps each word within its
    limit), kept from search to search (the from-to history counts a quarter in the next search) and cleared
    by :meth:`new_game`; the killers belong to one search."""

    def __init__(self) -> None:
        self.history_table = array("h", bytes(2 * 2 * 4096))
        self.history: Any = self.history_table
        self.cont_table = array("h", bytes(2 * (CONT_NONE + PIECE_TO)))
        self.cont: Any = self.cont_table
        self.capture_table = array("h", bytes(2 * CAPTURE_HISTORY_SIZE))
        self.capture_history: Any = self.capture_table
        # Countermove: the quiet move that last refuted the opponent's move, by (piece, destination) of that move.
        self.countermoves = [0] * (17 * 64)
        self.killers = [[0, 0] for _ in range(MAX_PLY + 2)]

    def new_game(self) -> None:
        """Forget the histories and the countermoves."""
        self.history_table[:] = array("h", bytes(2 * len(self.history_table)))
        self.cont_table[:] = array("h", bytes(2 * len(self.cont_table)))
        self.capture_table[:] = array("h", bytes(2 * len(self.capture_table)))
        self.countermoves = [0] * (17 * 64)

    def new_search(self) -> None:
        """Before a search: no killers yet, and the from-to history of the last searches counts a quarter."""
        self.killers = [[0, 0] for _ in range(MAX_PLY + 2)]
        history = self.history
        for i in range(2 * 4096):
            history[i] >>= 2

    def order(self, pos: Position, moves: list[int], hash_move: int, ply: int, counter: int = 0) -> list[int]:
        """``moves`` best first: the hash move, captures by MVV-LVA plus the capture history (gated captures
        just after their plain twin), promotions, en passant, the killers of ``ply``, the countermove
        ``counter``, then the quiet moves by history, without the continuation history, and last the captures
        that lose material (:func:`engine.ordering.order_moves`)."""
        killers = self.killers[ply]
        return order_moves(moves, pos, _CAPTURE_ORDER, self.history, killers[0], killers[1],
                           counter, hash_move, self.cont, CONT_NONE, CONT_NONE, CONT_NONE, True, self.capture_history)

    def order_into(self, pos: Position, moves: list[int], hash_move: int, ply: int, counter: int, row1: int,
                   row2: int, row4: int, out: Any, start: int) -> int:
        """The order of :meth:`order` with the continuation history of the moves one, two and four plies up
        (rows ``row1``, ``row2``, ``row4``), written to ``out[start:]`` as ``key << 20 | move`` words, best
        first (:func:`engine.ordering.order_into`), every capture among the captures (the search defers
        those that lose material when it reaches them); returns how many."""
        killers = self.killers[ply]
        return order_into(moves, pos, _CAPTURE_ORDER, self.history, killers[0], killers[1], counter, hash_move,
                          self.cont, row1, row2, row4, out, start, False, self.capture_history)

    def record_cutoff(self, pos: Position, m: int, ply: int, depth: int, counter_index: int, row1: int, row2: int,
                      row4: int, quiets: Any, start: int, count: int) -> None:
        """The quiet move ``m`` cut off at ``ply`` of ``pos`` with ``depth`` to go: it becomes the countermove
        of the opponent's last move (slot ``counter_index``, none when negative) and a killer; its from-to
        history and its continuation histories under the moves one, two and four plies up (rows ``row1``,
        ``row2``, ``row4``; the row CONT_NONE is left alone) gain :func:`stat_bonus`, and the quiet moves
        tried before it lose as much (``quiets[start:start + count]``, the search's buffer, ends with
        ``m``)."""
        if counter_index >= 0:
            self.countermoves[counter_index] = m
        killers = self.killers[ply]
        if killers[0] != m:
            killers[1] = killers[0]
            killers[0] = m
        bonus = stat_bonus(depth)
        for i in range(start, start + count):
            q = quiets[i]
            self.update_quiet(pos, q, bonus if q == m else -bonus, row1, row2, row4)

    def record_fail_low(self, pos: Position, m: int, depth: int, row1: int, row2: int, row4: int) -> None:
        """The quiet move ``m`` of ``pos`` failed low at ``depth``: its from-to history and its continuation
        histories under the moves one, two and four plies up (rows ``row1``, ``row2``, ``row4``; the row
        CONT_NONE is left alone) lose :func:`stat_bonus`."""
        self.update_quiet(pos, m, -stat_bonus(depth), row1, row2, row4)

    def update_quiet(self, pos: Position, q: int, bonus: int, row1: int, row2: int, row4: int) -> None:
        """The quiet move ``q`` of ``pos`` gains ``bonus`` (loses, when negative) in its from-to history and in
        its continuation histories under the moves one, two and four plies up (rows ``row1``, ``row2``,
        ``row4``; the row CONT_NONE is left alone), each bounded by :func:`_gravity`."""
        history = self.history
        h = (0 if pos.side == 1 else 4096) + from_to(q)
        history[h] = _gravity(history[h], bonus, HISTORY_MAX)
        if row1 == CONT_NONE and row2 == CONT_NONE and row4 == CONT_NONE:
            return
        cont = self.cont
        pt = piece_to(pos, q)
        if row1 != CONT_NONE:
            cont[row1 + pt] = _gravity(cont[row1 + pt], bonus, CONT_MAX)
        if row2 != CONT_NONE:
            cont[row2 + pt] = _gravity(cont[row2 + pt], bonus, CONT_MAX)
        if row4 != CONT_NONE:
            cont[row4 + pt] = _gravity(cont[row4 + pt], bonus, CONT_MAX)

    def record_captures(self, pos: Position, m: int, depth: int, moves: Any, start: int, count: int) -> None:
        """A cut-off at ``depth`` of ``pos`` by the move ``m``: the captures tried before it lose
        :func:`stat_bonus` in the capture history and ``m``, when a capture, gains it (``moves[start:start +
        count]``, the search's buffer, ends with ``m`` when it is one; Stockfish's captureHistory)."""
        table = self.capture_history
        side = pos.side
        squares = pos.squares
        bonus = stat_bonus(depth)
        for i in range(start, start + count):
            c = moves[i]
            h = piece_to(pos, c) * 8 - squares[move_to(c)] * side - 1
            table[h] = _gravity(table[h], bonus if c == m else -bonus, HISTORY_MAX)


class QuiescenceSearch:
    """The quiescence search at the leaves of the tree: captures until the position is quiet, every evasion
    when in check. Searches ``pos`` (set by :meth:`AlphaBetaSearch.set_position`), counting its nodes on the
    shared :class:`SearchControl`."""

    def __init__(self, control: SearchControl, orderer: MoveOrderer) -> None:
        self.control = control
        self.orderer = orderer
        self.tt = control.tt
        self.pos: Position = Position()
        # The keyed captures of every ply below MAX_PLY, CAPTURES_MAX words each (engine.attacks.captures_into).
        self.key_buffer = array("q", bytes(8 * MAX_PLY * CAPTURES_MAX))
        self.keys: Any = self.key_buffer  # a typed memoryview of it in the compiled build
        # The static evaluations of this search so far by table key, one per slot (the last one kept; -1: none,
        # never a key): a position evaluated again (the next iteration, a transposition) costs a lookup. The
        # evaluation is a function of the position alone, so the tree is the same with or without them.
        self.eval_keys = _list_of(EVAL_CACHE_SLOTS, -1)
        self.eval_values = _list_of(EVAL_CACHE_SLOTS, 0)
        self.eval_slots = _list_of(EVAL_CACHE_SLOTS, 0)  # their correction slots (_pawn_slot)
        # The correction history (CORRECTION_SIZE words a side), kept from search to search, cleared by
        # :meth:`clear_corrections`; ``slot`` is the slot of the last static evaluation.
        self.correction_table = array("h", bytes(2 * 2 * CORRECTION_SIZE))
        self.correction: Any = self.correction_table
        self.slot = 0

    def clear_evals(self) -> None:
        """Forget the cached evaluations (a search starts: the net or the variant may have changed)."""
        for i in range(EVAL_CACHE_SLOTS):
            self.eval_keys[i] = -1

    def clear_corrections(self) -> None:
        """Forget the correction history (a new game)."""
        self.correction_table[:] = array("h", bytes(2 * len(self.correction_table)))

    def static_eval(self, key: int, mg: int, eg: int, phase: int) -> int:
        """The static evaluation of ``pos``, whose table key is ``key`` (``evaluate.evaluate``, cached), plus
        its correction slot's word x |word| / CORRECTION_GRAIN (the slot is left in ``self.slot``), short of a mate
        score."""
        i = key & (EVAL_CACHE_SLOTS - 1)
        if self.eval_keys[i] == key:
            value = self.eval_values[i]
            slot = self.eval_slots[i]
        else:
            value = evaluate(self.pos, mg, eg, phase)
            slot = _pawn_slot(self.pos)
            self.eval_keys[i] = key
            self.eval_values[i] = value
            self.eval_slots[i] = slot
        self.slot = slot
        correction: int = self.correction[slot]
        value += correction * (correction if correction > 0 else -correction) // CORRECTION_GRAIN
        if value >= _MATE_BOUND:
            return _MATE_BOUND - 1
        if value <= -_MATE_BOUND:
            return -_MATE_BOUND + 1
        return value

    def correct(self, slot: int, error: int, depth: int) -> None:
        """A node at ``depth`` found its score ``error`` cp from its (corrected) static evaluation, whose
        correction slot is ``slot``: the slot moves that way by the gravity rule."""
        bonus = error * depth // 8
        limit = CORRECTION_MAX // 4
        if bonus > limit:
            bonus = limit
        elif bonus < -limit:
            bonus = -limit
        self.correction[slot] = _gravity(self.correction[slot], bonus, CORRECTION_MAX)

    def qsearch(self, alpha: int, beta: int, ply: int, mg: int, eg: int, phase: int, in_check: bool) -> int:
        """Quiescence search of ``self.pos`` at ``ply`` from the root: the score (side to move's view) once
        the captures have played out, fail-soft within the window ``alpha < score < beta``.

        The table first: at a zero-window node, a stored score whose bound settles the window is the answer
        (any stored depth: every search result is at least a quiescence search). Not in check: the static
        evaluation stands pat as a lower bound (the table's score instead where its bound says it is better),
        then the legal captures and queen promotions (:func:`engine.attacks.captures`, best first; delta
        pruning and SEE < 0 skip some). In check: every evasion is searched, and no evasion at all returns the
        mate score ``-MATE + ply``. A result ``<= alpha`` is an upper bound, ``>= beta`` a lower bound,
        anything between exact; the table stores it at depth 0 (:meth:`_store`). ``mg``/``eg``/``phase`` are
        the incremental evaluation sums of the position."""
        self.control.visit(ply)
        pos = self.pos
        key = tt_key(pos.hash, pos.gates)
        data = self.tt.probe(key)
        tt_score = score_from_table(stored_score(data), ply) if data else 0
        if data and beta - alpha <= 1 and bound_cuts(stored_bound(data), tt_score, alpha, beta):
            return tt_score
        original_alpha = alpha
        best_move = 0
        if in_check:
            moves = pos.generate_legal()
            if not moves:
                return -MATE + ply
            if ply >= MAX_PLY:
                return evaluate(pos, mg, eg, phase)
            best = -MATE + ply
            for m in self.orderer.order(pos, moves, stored_move(data), ply):
                dmg, deg, dph = move_delta(pos, m)
                pos.make(m)
                score = -self.qsearch(-beta, -alpha, ply + 1, mg + dmg, eg + deg, phase + dph, pos.in_check())
                pos.unmake()
                if score > best:
                    best = score
                    if score > alpha:
                        best_move = m
                        if score >= beta:
                            break
                        alpha = score
            self._store(key, ply, best, best_move, original_alpha, beta)
            return best
        stand = self.static_eval(key, mg, eg, phase)
        if data and abs(tt_score) < _MATE_BOUND and stored_bound(data) != (UPPER if tt_score > stand else LOWER):
            stand = tt_score
        if stand >= beta or ply >= MAX_PLY:
            return stand
        if stand > alpha:
            alpha = stand
        best = stand
        squares = pos.squares
        # In S-House the victim also lands in our hand: a capture gains it twice (delta pruning below).
        gain_factor = 2 if pos.drops else 1
        # This ply's captures, keyed, in its own part of the buffer (no list, no int objects), best first.
        keys = self.keys
        start = ply * CAPTURES_MAX
        end = start + captures_into(pos, keys, start)
        sort_desc_range(keys, start, end - start)
        for i in range(start, end):
            m = keyed_move(keys[i])
            victim = squares[move_to(m)]
            if move_kind(m) == PROMOTION:
                gain = ORDER_VALUE[victim if victim > 0 else -victim] + 800
            else:
                gain = ORDER_VALUE[victim if victim > 0 else -victim] if victim else 100
                # Delta pruning: even winning the victim for free cannot reach alpha.
                if stand + gain * gain_factor + 150 < alpha:
                    continue
                # Captures that lose material in the exchange on the square (SEE < 0) are skipped; a capture
                # of a piece worth at least the capturer cannot lose.
                if SEE_VALUE[squares[move_from(m)]] > gain and see(pos, m) < 0:
                    continue
            dmg, deg, dph = move_delta(pos, m)
            check = _make_checked(pos, m)
            score = -self.qsearch(-beta, -alpha, ply + 1, mg + dmg, eg + deg, phase + dph, check)
            pos.unmake()
            if score > best:
                best = score
                if score > alpha:
                    best_move = m
                    if score >= beta:
                        break
                    alpha = score
        self._store(key, ply, best, best_move, original_alpha, beta)
        return best

    def _store(self, key: int, ply: int, best: int, best_move: int, original_alpha: int, beta: int) -> None:
        """Store a quiescence result at depth 0, its bound from its window (:func:`bound_of`)."""
        self.tt.store(key, 0, bound_of(best, original_alpha, beta), score_to_table(best, ply), best_move)


class AlphaBetaSearch:
    """The tree below the root: principal variation search with the transposition table, mate-distance,
    null-move, futility and late-move pruning, late-move reductions and the check extension, on ``pos`` (set
    by :meth:`set_position`; the moves are made and unmade on it). The leaves go to its
    :class:`QuiescenceSearch`, the move order to the shared :class:`MoveOrderer`."""

    def __init__(self, tt: TranspositionTable, control: SearchControl, orderer: MoveOrderer) -> None:
        self.tt = tt
        self.control = control
        self.orderer = orderer
        self.quiescence = QuiescenceSearch(control, orderer)
        self.pos: Position = self.quiescence.pos
        # The moves of every ply, MOVES_MAX words each, best first as ``key << 20 | move`` (the hash move
        # alone, unkeyed, until the others are generated), and the quiet moves each ply has tried: no list
        # per node.
        self.move_buffer = array("q", bytes(8 * (MAX_PLY + 1) * MOVES_MAX))
        self.moves: Any = self.move_buffer  # typed memoryviews of them in the compiled build
        self.quiet_buffer = array("q", bytes(8 * (MAX_PLY + 1) * MOVES_MAX))
        self.quiets: Any = self.quiet_buffer
        self.capture_buffer = array("q", bytes(8 * (MAX_PLY + 1) * MOVES_MAX))  # and the captures it has tried
        self.capture_moves: Any = self.capture_buffer
        # The static evaluation of each ply of the current line (-INFINITE: in check), for ``improving``.
        self.eval_buffer = array("i", bytes(4 * (MAX_PLY + 2)))
        self.evals: Any = self.eval_buffer
        # The continuation-history row of the move played at each ply (``piece_to * PIECE_TO``), at ply + 4:
        # the four words before the root's stay CONT_NONE, and a null move writes CONT_NONE.
        self.row_buffer = array("i", [CONT_NONE] * (MAX_PLY + 6))
        self.rows: Any = self.row_buffer

    def set_position(self, pos: Position) -> None:
        """Search ``pos`` from now on (the quiescence search too)."""
        self.pos = pos
        self.quiescence.pos = pos

    def is_draw(self, pos: Position) -> bool:
        """Fifty-move rule or a repetition of a position since the last irreversible move (one repetition
        inside the tree is enough to score it as a draw)."""
        halfmove = pos.halfmove
        if halfmove >= 100:
            return True
        n = pos.undo_len
        window = halfmove
        if pos.drops:  # S-House: captures and drops do not end the chain (pieces come back from the hands)
            window = n
        if window < 4:
            return False
        key = pos.hash
        low = n - window
        if low < 0:
            low = 0
        i = n - 4
        while i >= low:
            if pos.undo_hash(i) == key:
                return True
            if pos.undo_code(i) == -1 or pos.undo_code(i + 1) == -1:  # a null move breaks the chain
                return False
            i -= 2
        return False

    def pvs(self, depth: int, alpha: int, beta: int, ply: int, mg: int, eg: int, phase: int,
            null_ok: bool, in_check: bool, excluded: int = 0) -> int:
        """Principal variation search of ``self.pos`` to ``depth`` plies at ``ply`` from the root: the score
        (side to move's view, centipawns; mates as ``MATE - plies to mate``), fail-soft in the window
        ``(alpha, beta)``. A result ``<= alpha`` is an upper bound, ``>= beta`` a lower bound (a cut-off),
        anything between is exact; what the table stores for the node says which (EXACT/LOWER/UPPER), with
        mate scores made relative to the node. ``beta - alpha > 1`` marks a PV node (no table cut-offs, no
        pruning); a null window is a zero-window test. ``depth <= 0`` drops into the quiescence search (unless in
        check, which is searched one ply deeper). A draw by repetition or the fifty-move rule returns 0.
        ``null_ok`` allows null-move pruning (not twice in a row); ``in_check`` says whether the side to move
        is in check (the caller knows it from making the move). Raises SearchAborted when time, nodes or
        ``stop`` run out; the root restores the position. The stages: the node's own exits, the cut-offs before
        any move (:meth:`_cut_before_moves`, :meth:`_probcut`), the singular test of the hash move
        (:meth:`_singular`), each move (:meth:`_search_move`), the table's store (:meth:`_store`).

        ``excluded``: the singular test's search, the node without that move: no table slot is read or written
        and nothing is cut before the moves (the node's own slot is what is being tested), and a node whose only
        move is the excluded one scores ``alpha``."""
        pos = self.pos
        if depth <= 0 and not in_check:
            return self.quiescence.qsearch(alpha, beta, ply, mg, eg, phase, False)
        if depth < 1:
            depth = 1
        self.control.visit(ply)
        if self.is_draw(pos):
            return 0
        if ply >= MAX_PLY:
            return evaluate(pos, mg, eg, phase)
        # Mate distance pruning.
        alpha = max(alpha, -MATE + ply)
        beta = min(beta, MATE - ply - 1)
        if alpha >= beta:
            return alpha
        pv_node = beta - alpha > 1
        tt = self.tt
        key = tt_key(pos.hash, pos.gates)
        data = tt.probe(key) if not excluded else 0  # the slot's data word (engine.tt), 0 when there is none
        hash_move = stored_move(data)
        if data and not pv_node and stored_depth(data) >= depth:
            score = score_from_table(stored_score(data), ply)
            if bound_cuts(stored_bound(data), score, alpha, beta):
                if hash_move:
                    self._table_cut_stats(hash_move, ply, depth, score >= beta)
                return score

        evals = self.evals
        static_eval = -INFINITE if in_check else self.quiescence.static_eval(key, mg, eg, phase)
        slot = self.quiescence.slot
        # Improving: the static evaluation is above the one of this side's last move (two plies up; a position
        # in check there counts as below).
        improving = not in_check and (ply < 2 or static_eval > evals[ply - 2])
        evals[ply] = static_eval
        if not in_check and not pv_node and abs(beta) < _MATE_BOUND and not excluded:
            score = self._cut_before_moves(depth, beta, ply, mg, eg, phase, null_ok, static_eval, improving)
            if score != NO_SCORE:
                return score
            if depth >= PROBCUT_DEPTH:
                score = self._probcut(depth, beta, ply, mg, eg, phase, static_eval, improving, data)
                if score != NO_SCORE:
                    return score
        singular = False
        if (depth >= SINGULAR_DEPTH and hash_move and stored_bound(data) != UPPER
                and stored_depth(data) >= depth - SINGULAR_DEPTH_SLACK):
            score = self._singular(data, depth, beta, ply, mg, eg, phase, in_check)
            if score == NO_SCORE:
                singular = True
            elif score != -NO_SCORE:
                return score  # multi-cut

        orderer = self.orderer
        counter_index = _counter_slot(pos)
        counter = orderer.countermoves[counter_index] if counter_index >= 0 else 0
        rows = self.rows
        row1 = rows[ply + 3]  # the continuation rows of the moves one, two and four plies up
        row2 = rows[ply + 2]
        row4 = rows[ply]
        # This ply's part of the move buffers (a child's ply has its own; internal iterative deepening, at
        # this ply, runs before the moves are written).
        buffer = self.moves
        start = ply * MOVES_MAX
        staged = hash_move != 0 and _plausible(pos, hash_move)
        if staged:  # try the hash move before generating the others (it often cuts off on its own)
            buffer[start] = hash_move
            end = start + 1
        else:
            moves = pos.generate_legal()
            if not moves:
                return -MATE + ply if in_check else 0
            if not hash_move and depth >= 5 and pv_node:
                # Internal iterative deepening: find a move to search first.
                self.pvs(depth - 2, alpha, beta, ply, mg, eg, phase, False, in_check)
                hash_move = stored_move(tt.probe(key))
            end = start + orderer.order_into(pos, moves, hash_move, ply, counter, row1, row2, row4, buffer, start)
        best = -INFINITE
        best_move = 0
        best_quiet = False
        original_alpha = alpha
        # Pruning near the leaves, at non-PV nodes not in check: captures that lose material, quiet moves that
        # do not check (late-move, futility and SEE pruning, :meth:`_prune_quiet`).
        prunable = not pv_node and not in_check
        late_limit = _late_move_limit(depth, improving) if prunable else 1000
        quiets = self.quiets
        tried = 0  # quiet moves tried, at quiets[start:start + tried]
        caps = self.capture_moves
        tried_captures = 0  # captures tried, at caps[start:start + tried_captures]
        searched = 0
        index = start
        # A capture that loses material (SEE below zero, its piece worth more than its victim; not the hash move)
        # waits until every other move has been tried: marked DEFERRED (or LOST) in the buffer when the first pass
        # reaches it, tried in a second pass in the order it had (Stockfish's bad captures last; MoveOrderer.order
        # puts them last the same way). A node that cuts off before it never computes its exchange; a LOST one is
        # skipped at a prunable node to depth 3 once a move was searched.
        deferred = 0
        second_pass = False
        while True:
            if index >= end:
                if staged:
                    staged = False
                    end = start + orderer.order_into(pos, pos.generate_legal(), hash_move, ply, counter, row1, row2,
                                                     row4, buffer, start)
                    index = start + 1 if end > start and keyed_move(buffer[start]) == hash_move else start
                    continue
                if not deferred or second_pass:
                    break
                second_pass = True
                index = start
            word = buffer[index]
            index += 1
            if second_pass:
                if word >> 20 > DEFERRED or (word >> 20 == LOST and searched and prunable and depth <= 3):
                    continue
            m = keyed_move(word)
            if m == excluded:
                continue
            victim = pos.squares[move_to(m)]
            kind = move_kind(m)
            quiet = victim * pos.side >= 0 and kind != PROMOTION and kind != EN_PASSANT
            if (not quiet and not second_pass and victim * pos.side < 0 and m != hash_move
                    and SEE_VALUE[pos.squares[move_from(m)]] > SEE_VALUE[victim]):
                exchange = see(pos, m)
                if exchange < 0:
                    buffer[index - 1] = (LOST if exchange < -80 * depth else DEFERRED) << 20 | m
                    deferred += 1
                    continue
            prune = (quiet and searched > 0 and prunable
                     and self._prune_quiet(m, depth, alpha, static_eval, searched, tried, late_limit))
            score = self._search_move(m, depth, alpha, beta, ply, mg, eg, phase, in_check, pv_node, improving,
                                      quiet, prune, searched, singular and m == hash_move)
            if score == NO_SCORE:
                continue
            searched += 1
            if quiet:
                quiets[start + tried] = m
                tried += 1
            elif victim:
                caps[start + tried_captures] = m
                tried_captures += 1
            if score > best:
                best = score
                best_move = m
                best_quiet = quiet
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        if quiet:
                            orderer.record_cutoff(pos, m, ply, depth, counter_index, row1, row2, row4, quiets,
                                                  start, tried)
                        if tried_captures:
                            orderer.record_captures(pos, m, depth, caps, start, tried_captures)
                        break
        if searched == 0:
            if excluded:
                return alpha  # the excluded move is the only one searched: it is singular
            # Every move was pruned: fall back to the static evaluation.
            return static_eval if static_eval > -INFINITE else alpha
        # The correction history learns from a result that says which way the static evaluation erred: exact,
        # a lower bound above it, an upper bound below it (a capture's score is the capture's, not the eval's).
        if (not in_check and best_quiet and (best < beta or best > static_eval)
                and (best > original_alpha or best < static_eval) and -_MATE_BOUND < best < _MATE_BOUND):
            self.quiescence.correct(slot, best - static_eval, depth)
        if not excluded:
            self._store(key, depth, ply, best, best_move, hash_move, original_alpha, beta)
        return best

    def _table_cut_stats(self, m: int, ply: int, depth: int, cut: bool) -> None:
        """The table settled the node and its move ``m`` is quiet: as if it had been searched (Stockfish's
        rule), a score at or above beta (``cut``) records ``m`` as a cut-off at ``depth`` (killer, countermove,
        histories), a score below alpha takes :func:`stat_bonus` from its histories."""
        pos = self.pos
        victim = pos.squares[move_to(m)]
        kind = move_kind(m)
        if victim * pos.side < 0 or kind == PROMOTION or kind == EN_PASSANT:
            return
        rows = self.rows
        if cut:
            quiets = self.quiets
            start = ply * MOVES_MAX
            quiets[start] = m
            self.orderer.record_cutoff(pos, m, ply, depth, _counter_slot(pos), rows[ply + 3], rows[ply + 2],
                                       rows[ply], quiets, start, 1)
        else:
            self.orderer.record_fail_low(pos, m, depth, rows[ply + 3], rows[ply + 2], rows[ply])

    def _singular(self, data: int, depth: int, beta: int, ply: int, mg: int, eg: int, phase: int,
                  in_check: bool) -> int:
        """The singular test of the table's move (slot ``data``: a lower bound or exact score from a search at
        least ``depth - SINGULAR_DEPTH_SLACK`` deep): the other moves, searched to half the depth in a zero
        window at its score less SINGULAR_MARGIN x depth. NO_SCORE: they all fail low, the move is singular
        (extend it); a score: they reach beta on their own, the node's result (multi-cut); -NO_SCORE: neither."""
        tt_score = score_from_table(stored_score(data), ply)
        hash_move = stored_move(data)
        if tt_score >= _MATE_BOUND or tt_score <= -_MATE_BOUND or not _plausible(self.pos, hash_move):
            return -NO_SCORE
        singular_beta = tt_score - SINGULAR_MARGIN * depth
        score = self.pvs(depth // 2, singular_beta - 1, singular_beta, ply, mg, eg, phase, False, in_check,
                         hash_move)
        if score < singular_beta:
            return NO_SCORE
        if singular_beta >= beta:
            return singular_beta
        return -NO_SCORE

    def _cut_before_moves(self, depth: int, beta: int, ply: int, mg: int, eg: int, phase: int, null_ok: bool,
                          static_eval: int, improving: bool) -> int:
        """The cut-offs of a non-PV node not in check before any move is searched: reverse futility (the
        static evaluation far above beta at low depth) and the null move (pass, and the opponent still
        cannot reach beta). The node's score, or NO_SCORE to search the moves."""
        if (depth <= REVERSE_FUTILITY_DEPTH
                and static_eval - REVERSE_FUTILITY_MARGIN * (depth - improving) >= beta):
            return static_eval
        pos = self.pos
        # Stockfish 11's null move: near the leaves only when the static evaluation is well above beta (the
        # constants' comment); the further above beta, the shallower the test.
        if (null_ok and depth >= 3 and static_eval >= beta
                and static_eval >= beta - NULL_MARGIN_DEPTH * depth + NULL_MARGIN - NULL_MARGIN_IMPROVING * improving
                and _has_pieces(pos, pos.side)):
            reduction = (NULL_BASE + NULL_DEPTH * depth) // 258 + min((static_eval - beta) // 192, 3)
            self.rows[ply + 4] = CONT_NONE
            pos.make_null()
            score = -self.pvs(depth - reduction, -beta, -beta + 1, ply + 1, mg, eg, phase, False, False)
            pos.unmake_null()
            if score >= beta:
                return beta if score > _MATE_BOUND else score
        return NO_SCORE

    def _probcut(self, depth: int, beta: int, ply: int, mg: int, eg: int, phase: int, static_eval: int,
                 improving: bool, data: int) -> int:
        """ProbCut at a non-PV node not in check: a capture that wins enough on its square to lift the static
        evaluation PROBCUT_MARGIN above beta is tried (the hash move first, then by MVV-LVA; at most
        PROBCUT_TRIES of them), first in a quiescence search, then, if that holds, in a search PROBCUT_REDUCTION
        plies shallower, each against the raised beta. A capture that beats it there is taken to beat beta at
        full depth: its score, else NO_SCORE. Skipped when the table already holds a score below the raised
        beta from a search at most 3 plies shallower."""
        raised = beta + PROBCUT_MARGIN - (PROBCUT_IMPROVING if improving else 0)
        if raised >= _MATE_BOUND:
            return NO_SCORE
        if data and stored_depth(data) >= depth - 3 and score_from_table(stored_score(data), ply) < raised:
            return NO_SCORE
        pos = self.pos
        quiescence = self.quiescence
        keys = quiescence.keys  # this ply's part of the quiescence buffer: the quiescence search below is a ply down
        start = ply * CAPTURES_MAX
        end = start + captures_into(pos, keys, start)
        if end == start:
            return NO_SCORE
        sort_desc_range(keys, start, end - start)
        hash_move = stored_move(data)
        if hash_move:  # the hash move first when it is a capture, the others keeping their order
            for i in range(start + 1, end):
                if keyed_move(keys[i]) == hash_move:
                    word = keys[i]
                    j = i
                    while j > start:
                        keys[j] = keys[j - 1]
                        j -= 1
                    keys[start] = word
                    break
        threshold = raised - static_eval
        tries = 0
        for i in range(start, end):
            m = keyed_move(keys[i])
            if see(pos, m) < threshold:
                continue
            tries += 1
            dmg, deg, dph = move_delta(pos, m)
            self.rows[ply + 4] = piece_to(pos, m) * PIECE_TO
            check = _make_checked(pos, m)
            score = -quiescence.qsearch(-raised, -raised + 1, ply + 1, mg + dmg, eg + deg, phase + dph, check)
            if score >= raised:
                score = -self.pvs(depth - 1 - PROBCUT_REDUCTION, -raised, -raised + 1, ply + 1, mg + dmg,
                                  eg + deg, phase + dph, True, check)
            pos.unmake()
            if score >= raised:
                return score
            if tries >= PROBCUT_TRIES:
                return NO_SCORE
        return NO_SCORE

    def _prune_quiet(self, m: int, depth: int, alpha: int, static_eval: int, searched: int, tried: int,
                     late_limit: int) -> bool:
        """Whether the quiet move ``m`` of a prunable node (non-PV, not in check, a move already searched)
        is skipped unless it checks: past the move count (late-move pruning), hopeless by the static
        evaluation (futility) or losing material on its square (SEE), by the depth its late-move reduction
        leaves."""
        if tried >= late_limit:
            return True
        lmr_depth = depth - 1 - _lmr(depth, searched)
        if lmr_depth < FUTILITY_DEPTH and static_eval + FUTILITY_BASE + FUTILITY_MARGIN * (
                lmr_depth if lmr_depth > 0 else 0) <= alpha:
            return True
        return (lmr_depth < SEE_QUIET_DEPTH and is_simple_move(m)
                and see(self.pos, m) < -SEE_QUIET_MARGIN * lmr_depth * lmr_depth)

    def _search_move(self, m: int, depth: int, alpha: int, beta: int, ply: int, mg: int, eg: int, phase: int,
                     in_check: bool, pv_node: bool, improving: bool, quiet: bool, prune: bool,
                     searched: int, singular: bool) -> int:
        """Make ``m``, search it and unmake it: the score from this node's side, or NO_SCORE when ``prune``
        skipped it (a pruned move that checks is searched all the same). The first move gets the full window;
        the others a zero-window test, late quiet ones reduced (late-move reductions; a check a ply less),
        searched again in the full window when they beat alpha. A check is extended by a ply unless it loses
        material on its square (Stockfish's rule; gated moves, promotions and castling that check are always
        extended); so is a ``singular`` move (:meth:`_singular`)."""
        pos = self.pos
        kind = move_kind(m)
        if is_simple_move(m) or kind == DROP:
            # A move of one piece (captures included) or a drop: the check test without the board is cheaper.
            gives_check = gives_check_quiet(pos, m)
            if prune and not gives_check:
                return NO_SCORE
            self.rows[ply + 4] = piece_to(pos, m) * PIECE_TO  # the continuation row of the plies below
            if gives_check:
                exchange = see(pos, m)
                # A checking drop that loses the piece on its square (most of S-House's checks) is pruned
                # where quiet moves are, at shallow depth (Stockfish's rule for captures and checks).
                if (kind == DROP and searched and not pv_node and not in_check
                        and exchange < -CHECK_SEE_MARGIN * depth):
                    return NO_SCORE
                extend = exchange >= 0
            else:
                extend = False
            dmg, deg, dph = move_delta(pos, m)
            pos.make(m)
        else:
            row = piece_to(pos, m) * PIECE_TO
            dmg, deg, dph = move_delta(pos, m)
            pos.make(m)
            gives_check = extend = pos.in_check()
            if prune and not gives_check:
                pos.unmake()
                return NO_SCORE
            self.rows[ply + 4] = row
        new_depth = depth - 1 + (1 if extend or singular else 0)
        if searched == 0:
            score = -self.pvs(new_depth, -beta, -alpha, ply + 1, mg + dmg, eg + deg, phase + dph, True, gives_check)
        else:
            reduction = 0
            if depth >= 3 and quiet and not in_check:
                killers = self.orderer.killers[ply]
                reduction = _late_move_reduction(depth, searched, new_depth, pv_node, improving,
                                                 m == killers[0] or m == killers[1], gives_check)
            elif (depth >= 3 and pos.drops and not quiet and not pv_node and not in_check and not gives_check
                  and kind != PROMOTION):
                # S-House: a late capture at a non-PV node (pieces stand en prise everywhere there) is
                # searched a ply shallower first.
                reduction = 1
            score = -self.pvs(new_depth - reduction, -alpha - 1, -alpha, ply + 1, mg + dmg, eg + deg, phase + dph,
                              True, gives_check)
            if score > alpha and (reduction or (pv_node and score < beta)):
                score = -self.pvs(new_depth, -beta, -alpha, ply + 1, mg + dmg, eg + deg, phase + dph, True,
                                  gives_check)
        pos.unmake()
        return score

    def _store(self, key: int, depth: int, ply: int, best: int, best_move: int, hash_move: int,
               original_alpha: int, beta: int) -> None:
        """Store the node in the table: its bound from the window it was searched in (an upper bound keeps the hash
        move, if any), its mate score made relative to the node."""
        bound = bound_of(best, original_alpha, beta)
        if bound == UPPER and hash_move:
            best_move = hash_move
        self.tt.store(key, depth, bound, score_to_table(best, ply), best_move)


class Searcher:
    """One thread of search: iterative deepening with aspiration windows over the root moves, the principal
    variation, Skill Level and an ``info`` dict per iteration, on top of an :class:`AlphaBetaSearch`. Holds
    what is kept between searches (the transposition table, the :class:`MoveOrderer`) and runs one search at
    a time; :meth:`stop_now` and :meth:`set_deadline` may be called from another thread while it runs."""

    def __init__(self, hash_mb: int = 16) -> None:
        self.tt = TranspositionTable(hash_mb)
        self.control = SearchControl(self.tt)
        self.orderer = MoveOrderer()
        self.tree = AlphaBetaSearch(self.tt, self.control, self.orderer)
        self.skill_level = 20
        self.rng = random.Random()
        self.start_depth = 1  # where iterative deepening starts (Lazy SMP helpers start deeper)
        self.stop_signal: Optional[StopSignal] = None  # a helper's: stop when the main search has stopped
        # The best move (and score) the running iteration has proved so far; 0 before its first move ends.
        self.partial_move = 0
        self.partial_score = 0
        self.partial_exact = False
        # The learned evaluation's accumulator (engine.nnue), None for the hand-made evaluation.
        self.accumulator: Optional[Accumulator] = None

    # ------------------------------------------------------------------ control

    def use_net(self, on: bool) -> None:
        """Evaluate with the net :mod:`engine.nnue` has loaded (True) or the hand-made evaluation (False)."""
        if not on:
            self.accumulator = None
        elif self.accumulator is None:
            self.accumulator = Accumulator()

    def new_game(self) -> None:
        self.tt.clear()
        self.orderer.new_game()
        self.tree.quiescence.clear_corrections()

    def stop_now(self) -> None:
        self.control.stop_flag = True

    def use_shared_table(self, shared: Optional[SharedWords]) -> None:
        """Search with the transposition table in shared memory of Lazy SMP (None: an own table again)."""
        self.tt.use_shared(shared)

    def elapsed(self) -> float:
        """Seconds since the current (or last) search started."""
        return self.control.elapsed()

    def set_deadline(self, seconds: float) -> None:
        """Stop the running search ``seconds`` from now at the latest (``ponderhit``)."""
        self.control.hard_deadline = time.perf_counter() + seconds

    # ------------------------------------------------------------------ root

    def _root(self, depth: int, alpha: int, beta: int, root_moves: list[int], mg: int, eg: int,
              phase: int) -> tuple[int, int]:
        """One iteration over ``root_moves`` (best first) in the window ``(alpha, beta)``: the best score and
        move; PVS, with a one-ply reduction of late quiet moves."""
        tree = self.tree
        pos = tree.pos
        best = -INFINITE
        best_move = root_moves[0]
        in_check = pos.in_check()
        drops = pos.drops
        rows = tree.row_buffer  # the array itself: the root is Python code in the compiled build too
        for index, m in enumerate(root_moves):
            rows[4] = piece_to(pos, m) * PIECE_TO
            dmg, deg, dph = move_delta(pos, m)
            pos.make(m)
            gives_check = pos.in_check()
            new_depth = depth - 1 + (1 if gives_check else 0)
            if index == 0:
                score = -tree.pvs(new_depth, -beta, -alpha, 1, mg + dmg, eg + deg, phase + dph, True, gives_check)
            else:
                reduction = 0
                if (depth >= 3 and index >= 4 and not in_check and not gives_check
                        and pos.undo_captured(pos.undo_len - 1) == 0 and move_kind(m) != PROMOTION):
                    # S-House has a hundred and more root moves, most of them drops: the table's reduction
                    # of a PV node; one ply in the other variants.
                    reduction = _late_move_reduction(depth, index, new_depth, True, True, False, False) if drops else 1
                score = -tree.pvs(new_depth - reduction, -alpha - 1, -alpha, 1, mg + dmg, eg + deg,
                                      phase + dph, True, gives_check)
                if score > alpha:
                    score = -tree.pvs(new_depth, -beta, -alpha, 1, mg + dmg, eg + deg, phase + dph, True,
                                          gives_check)
            pos.unmake()
            if score > best:
                best = score
                best_move = m
                if score > alpha:
                    # Fully searched and better than every move before it: the move to play should the
                    # iteration be stopped before it ends.
                    self.partial_move = m
                    self.partial_score = score
                    self.partial_exact = score < beta
                    alpha = score
                    if score >= beta:
                        break
        return best, best_move

    def _extract_pv(self, first: int) -> list[int]:
        """The principal variation from ``first`` on, read from the transposition table (legal moves only,
        up to 32, no position twice)."""
        pos = self.tree.pos
        pv = [first]
        made = 0
        pos.make(first)
        made += 1
        seen = {tt_key(pos.hash, pos.gates)}
        while len(pv) < 32:
            m = stored_move(self.tt.probe(tt_key(pos.hash, pos.gates)))
            if not m:
                break
            if m not in pos.generate_legal():
                break
            pos.make(m)
            made += 1
            pv.append(m)
            k = tt_key(pos.hash, pos.gates)
            if k in seen:
                break
            seen.add(k)
        for _ in range(made):
            pos.unmake()
        return pv

    def search(self, pos: Position, limits: SearchLimits, info: Optional[InfoCallback] = None) -> SearchResult:
        """Search ``pos`` (left unchanged) within ``limits``; ``info`` gets a dict per finished iteration."""
        control = self.control
        control.start(limits, self.stop_signal)
        self.tree.set_position(pos)
        self.tree.quiescence.clear_evals()
        self.tt.new_search()
        self.orderer.new_search()
        root_stack = pos.undo_len

        moves = pos.generate_legal()
        if not moves:
            return SearchResult(0, 0, -MATE if pos.in_check() else 0, 0, 0, [])
        accumulator = self.accumulator
        if accumulator is not None:  # make/unmake keep it up to date until the search lets go of pos
            pos.accumulator = accumulator
            accumulator.refresh(pos)
        mg, eg, phase = initial_scores(pos)
        self.tree.evals[0] = -INFINITE if pos.in_check() else evaluate(pos, mg, eg, phase)
        root_moves = self.orderer.order(pos, moves, stored_move(self.tt.probe(tt_key(pos.hash, pos.gates))), 0)
        best_move = root_moves[0]
        best_score = 0
        completed_depth = 0
        pv: list[int] = [best_move]
        max_depth = limits.depth if limits.depth else MAX_PLY - 4
        skill = self.skill_level
        if skill < 20:
            max_depth = min(max_depth, 1 + skill // 2)
        previous_best = best_move
        previous_score = 0
        stability = 0
        depth = min(self.start_depth, max_depth)
        while depth <= max_depth:
            control.seldepth = 0
            iteration_start = control.elapsed()
            self.partial_move = 0
            self.partial_exact = False
            try:
                if depth >= 4 and abs(best_score) < _MATE_BOUND:
                    window = 35
                    alpha = best_score - window
                    beta = best_score + window
                    while True:
                        score, move = self._root(depth, alpha, beta, root_moves, mg, eg, phase)
                        if score <= alpha:
                            alpha = max(score - window * 3, -INFINITE)
                            window *= 3
                        elif score >= beta:
                            beta = min(score + window * 3, INFINITE)
                            window *= 3
                            root_moves.remove(move)
                            root_moves.insert(0, move)
                        else:
                            break
                        if window > 1000:
                            alpha, beta = -INFINITE, INFINITE
                else:
                    score, move = self._root(depth, -INFINITE, INFINITE, root_moves, mg, eg, phase)
            except SearchAborted:
                while pos.undo_len > root_stack:
                    if pos.undo_code(pos.undo_len - 1) == -1:
                        pos.unmake_null()
                    else:
                        pos.unmake()
                partial = self.partial_move
                if partial and (partial != best_move or self.partial_exact):
                    # The unfinished iteration already proved a move better than the last one's best (the
                    # best move of the last iteration is searched first), or gave that move an exact score at
                    # this depth: play it, with that score.
                    best_move = partial
                    best_score = self.partial_score
                    pv = self._extract_pv(best_move)
                    if self.partial_exact and info is not None:
                        # Reported at the depth the clock cut, as Stockfish does: the move and score are
                        # this depth's, only the moves after it were not all searched. The result's depth
                        # stays the last finished one.
                        info(self._info(depth, best_score, pv))
                break
            best_move = move
            best_score = score
            completed_depth = depth
            root_moves.remove(move)
            root_moves.insert(0, move)
            pv = self._extract_pv(move)
            if info is not None:
                info(self._info(depth, score, pv))
            if move == previous_best:
                stability += 1
            else:
                stability = 0
            previous_best = move
            # A score that fell since the last iteration means trouble the shallower search did not see:
            # it earns more time (Stockfish's "falling eval"), up to the same cap as an unstable move.
            falling = previous_score - score if depth > 1 else 0
            previous_score = score
            if abs(score) > _MATE_BOUND and depth > 2 and MATE - abs(score) <= depth and not limits.infinite:
                break  # a forced mate found within the full-width depth
            if limits.soft_time is not None and not limits.infinite:
                # More time for an unstable move or a falling score, less for a settled move or a decided
                # game, and no iteration that could not finish before the hard cap (engine.timeman).
                elapsed = control.elapsed()
                deadline = control.hard_deadline
                hard = None if deadline is None else deadline - control.start_time
                if not keep_searching(elapsed, limits.soft_time, hard, elapsed - iteration_start, stability,
                                      falling, score):
                    break
            if len(root_moves) == 1 and depth >= 2 and not limits.infinite and limits.depth is None:
                break
            depth += 1
        if skill < 20 and len(root_moves) > 1:
            best_move = self._weaken(pos, root_moves, best_move, skill, mg, eg, phase)
            pv = [best_move]
        ponder = pv[1] if len(pv) > 1 and pv[0] == best_move else 0
        pos.accumulator = None
        return SearchResult(best_move, ponder, best_score, completed_depth, control.nodes, pv)

    def _weaken(self, pos: Position, root_moves: list[int], best_move: int, skill: int, mg: int, eg: int,
                phase: int) -> int:
        """Skill Level below 20: pick among the moves whose shallow score is within a skill-dependent margin."""
        margin = (20 - skill) * 12
        self.control.hard_deadline = None
        self.control.stop_flag = False
        quiescence = self.tree.quiescence
        scored = []
        for m in root_moves:
            dmg, deg, dph = move_delta(pos, m)
            pos.make(m)
            score = -quiescence.qsearch(-INFINITE, INFINITE, 1, mg + dmg, eg + deg, phase + dph, pos.in_check())
            pos.unmake()
            scored.append((score + self.rng.randint(0, margin), m))
        scored.sort(reverse=True)
        return scored[0][1]

    def _info(self, depth: int, score: int, pv: list[int]) -> Dict[str, Any]:
        """The ``info`` callback's dict for a finished iteration."""
        control = self.control
        elapsed = control.elapsed()
        return {
            "depth": depth,
            "seldepth": max(control.seldepth, depth),
            "score": score,
            "mate": mate_in(score),
            "nodes": control.nodes,
            "time_ms": int(elapsed * 1000),
            "nps": int(control.nodes / elapsed) if elapsed > 0 else 0,
            "hashfull": self.tt.permille(),
            "pv": pv,
        }



def mate_in(score: int) -> Optional[int]:
    """Moves to mate (negative when being mated) for a mate score, else None."""
    if score > _MATE_BOUND:
        return (MATE - score + 1) // 2
    if score < -_MATE_BOUND:
        return -((MATE + score) // 2)
    return None
