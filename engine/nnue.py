"""The learned evaluation: a small NNUE-style network with an accumulator kept incrementally by make/unmake.

Inputs (per perspective, ``N_FEATURES`` binary features; the board flipped for black, so "own" pieces are
always the perspective's and its first rank is rank 1):

* ``[0, 1024)``: a piece on a square, ``(colour * 8 + type - 1) * 64 + square`` (colour 0 own, 1 enemy;
  types pawn .. Elephant as in :mod:`engine.tables`): the 768 planes of chess plus Hawk and Elephant.
* ``[1024, 1152)``: pieces in hand, ``1024 + (colour * 8 + type - 1) * 8 + k - 1`` set for k = 1 .. count
  (up to 8): every piece type has room, for drop variants.
* ``[1152, 1168)``: gate rights, ``1152 + file`` for the own back rank, ``1160 + file`` for the enemy's.

Network: ``N_FEATURES -> hidden`` (int16 weights, int16 accumulator, one per perspective, shared weights),
the side to move's half first, squared clipped ReLU (``clamp(x, 0, QA) ** 2``) and one int16 output neuron:
``eval = ((sum(screlu(acc) * w2) // QA + b2) * SCALE) // (QA * QB)`` centipawns from the side to move.
Every step is integer arithmetic with Python's floor division, so the compiled build (C arrays, ``nnue.pxd``)
and the pure build compute the same numbers and the search the same nodes.

The accumulator keeps one slot per ply of the line being searched: each slot holds the two perspectives'
sums and what the move into it changed. :meth:`Accumulator.push` (after ``make``) records the squares whose
piece changed (``make`` names the squares it wrote), the hand counts that changed (when ``make`` says one did)
and the gates, and marks the slot empty; :meth:`Accumulator.evaluate` fills an empty slot from the nearest
filled one below it plus the features of the changes recorded in between, so the nodes the search leaves
without evaluating them (table cut-offs, moves pruned after ``make``) cost no update, and any move of any
variant is handled without the accumulator knowing the rules. :meth:`Accumulator.pop` (after ``unmake``)
takes the top slot's changes back. Null moves change no input and touch no slot. The sums are int16 (C
shorts in the compiled build): :func:`load` refuses a net whose sums could leave that range.

Net files (``EvalFile``): the header ``MAGIC``, then little-endian int32 ``version, features, hidden, QA,
QB, SCALE``, int16 ``W1[features][hidden]``, int16 ``B1[hidden]``, int16 ``W2[2 * hidden]``, int32 ``B2``.
Version 1: the net's score is the evaluation; version :data:`VERSION_ADDED` (2): the net's score is added to
the hand-made evaluation's (a net trained on the difference, ``train --residual``; ``evaluate.evaluate``).
The built-in nets are in ``engine/data/``: :data:`DEFAULT_NET` and one per variant in :data:`VARIANT_NETS` (their
hashes in engine/data/README.md, how they were made in docs/nnue.md).
"""

from __future__ import annotations

import hashlib
import struct
from array import array
from pathlib import Path
from typing import Optional

from . import nnue_kernels as kern
from .position import MoveObserver, Position

MAGIC = b"SCHESSNN"
VERSION = 1
VERSION_ADDED = 2  # the net's score is added to the hand-made evaluation's
HAND_BASE = 1024
HAND_STEPS = 8
GATE_BASE = 1152
N_FEATURES = 1168
MAX_HIDDEN = 256
QA = 255
QB = 1024
SCALE = 400
EVAL_LIMIT = 12000  # |eval| in centipawns, well short of the search's mate scores
STACK_PLIES = 192  # accumulator slots; deeper lines update the last slot in place
DEFAULT_NET = "schess-nnue.bin"
#: The built-in net of each variant that has one of its own (S-House: drops, pockets of every piece type);
#: the other variants (S-chess, its rule variants, chess) use DEFAULT_NET.
VARIANT_NETS = {"shouse": "shouse-nnue.bin"}
_HEADER = struct.Struct("<8s6i")
#: The loops by level of engine.nnue_kernels.
KERNEL_NAMES = ("python", "portable", "avx2")



def _zeros(n: int) -> list[int]:
    """A list of ``n`` zeros (a function: the compiled build fills its C arrays from any Python list, but
    not from a list multiplied by a name)."""
    return [0] * n


# The net in use (C arrays in the compiled build, nnue.pxd): W1 row by row, ``hidden`` values a feature.
_W1 = _zeros(N_FEATURES * MAX_HIDDEN)
_B1 = _zeros(MAX_HIDDEN)
_W2 = _zeros(2 * MAX_HIDDEN)
_B2 = 0
_HIDDEN = 0  # 0: no net loaded
_ADDED = 0  # 1: the net in use is a VERSION_ADDED net
_W2_FITS_INT = 0  # 1: the output layer's sums of the net in use fit a C int (Accumulator.evaluate)
_W2_OFFSET = 0  # 32768 * sum(W2): what Accumulator.evaluate's 16-bit output layer adds back
ACCUMULATOR_LIMIT = 32767  # the first layer's sums are C shorts in the compiled build: no net may exceed it
_QA = QA
_DIV = QA * QB
_SCALE = SCALE
_LIMIT = EVAL_LIMIT
_SLOT = 2 * MAX_HIDDEN  # accumulator values per slot: white's perspective, then black's
# Private copies of the constants: C ints in the compiled build (nnue.pxd), where the public ones stay Python.
_MAXH = MAX_HIDDEN
_STACK = STACK_PLIES
_HAND_BASE = HAND_BASE
_SQUARES_MAX = 8  # squares one move changes (castling: 4; the placement forfeits: fewer)
_SLOT_CHANGES_MAX = 2 * _SQUARES_MAX + 16 * HAND_STEPS + 16  # features one slot's changes add or remove
_CHANGES_MAX = 2 * _SLOT_CHANGES_MAX
_HAND_STEPS = HAND_STEPS
_GATE_BASE = GATE_BASE
# The square of a one-bit mask: _LOW_BIT_SQUARE[(1 << sq) % 67] == sq (67 is prime, every 2^k mod 67 distinct).
_LOW_BIT_SQUARE = _zeros(67)
for _sq in range(64):
    _LOW_BIT_SQUARE[(1 << _sq) % 67] = _sq

# Feature of a piece (signed code) on a square, for each perspective: (code + 8) * 64 + square.
_PIECE_WHITE = _zeros(17 * 64)
_PIECE_BLACK = _zeros(17 * 64)
for _code in range(-8, 9):
    for _sq in range(64):
        if _code:
            _t = abs(_code) - 1
            _PIECE_WHITE[(_code + 8) * 64 + _sq] = ((0 if _code > 0 else 1) * 8 + _t) * 64 + _sq
            _PIECE_BLACK[(_code + 8) * 64 + _sq] = ((0 if _code < 0 else 1) * 8 + _t) * 64 + (_sq ^ 56)


class NetError(ValueError):
    """A net file that cannot be used; the message names the file and what is wrong."""


class NetInfo:
    """What :func:`load` read: the file, its SHA-256 and the hidden width."""

    def __init__(self, path: str, sha256: str, hidden: int) -> None:
        self.path = path
        self.sha256 = sha256
        self.hidden = hidden

    def __repr__(self) -> str:
        return f"NetInfo({self.path!r}, sha256={self.sha256[:12]}, hidden={self.hidden})"


def builtin_net(variant: str = "seirawan") -> str:
    """The file name (in ``engine/data/``) of the built-in net for ``variant``."""
    return VARIANT_NETS.get(variant, DEFAULT_NET)


def default_path(variant: str = "seirawan") -> Path:
    return Path(__file__).resolve().parent / "data" / builtin_net(variant)


def parse(data: bytes, name: str = "<bytes>") -> tuple[int, array[int], array[int], array[int], int]:
    """(hidden, W1, B1, W2, B2) of a net file's bytes; NetError when they are not a net of this engine."""
    if len(data) < _HEADER.size:
        raise NetError(f"{name}: {len(data)} bytes, too short for a net")
    magic, version, features, hidden, qa, qb, scale = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise NetError(f"{name}: not a schess-bot net (header {magic!r})")
    if version not in (VERSION, VERSION_ADDED) or features != N_FEATURES or (qa, qb, scale) != (QA, QB, SCALE):
        raise NetError(f"{name}: format {version}, {features} features, QA {qa} QB {qb} scale {scale}; this "
                       f"engine reads format {VERSION} or {VERSION_ADDED}, {N_FEATURES} features, QA {QA} QB {QB} "
                       f"scale {SCALE}")
    if not 1 <= hidden <= MAX_HIDDEN:
        raise NetError(f"{name}: hidden width {hidden}, expected 1..{MAX_HIDDEN}")
    expected = _HEADER.size + 2 * (features * hidden + hidden + 2 * hidden) + 4
    if len(data) != expected:
        raise NetError(f"{name}: {len(data)} bytes, expected {expected} for hidden width {hidden}")
    offset = _HEADER.size
    parts = []
    for count in (features * hidden, hidden, 2 * hidden):
        part = array("h")
        part.frombytes(data[offset:offset + 2 * count])
        parts.append(part)
        offset += 2 * count
    if array("h", [1]).tobytes() != b"\x01\x00":  # a big-endian machine
        for part in parts:
            part.byteswap()
    (bias,) = struct.unpack_from("<i", data, offset)
    return hidden, parts[0], parts[1], parts[2], bias


def serialize(hidden: int, w1: list[int], b1: list[int], w2: list[int], b2: int, version: int = VERSION) -> bytes:
    """A net file's bytes (the trainer's export; ``parse`` reads them back)."""
    header = _HEADER.pack(MAGIC, version, N_FEATURES, hidden, QA, QB, SCALE)
    body = array("h", list(w1) + list(b1) + list(w2))
    if array("h", [1]).tobytes() != b"\x01\x00":
        body.byteswap()
    return header + body.tobytes() + struct.pack("<i", b2)


def load(path: Optional[str] = None, variant: str = "seirawan") -> NetInfo:
    """Read a net file (default: the built-in net of ``variant``) and make it the one every accumulator
    evaluates with; NetError (the net in use unchanged) when it cannot be read or is not a net of this engine."""
    file = Path(path) if path else default_path(variant)
    try:
        data = file.read_bytes()
    except OSError as error:
        raise NetError(f"{file}: cannot be read ({error.strerror or error})") from None
    hidden, w1, b1, w2, b2 = parse(data, str(file))
    bound = accumulator_bound(hidden, w1, b1)
    if bound > ACCUMULATOR_LIMIT:
        raise NetError(f"{file}: its first layer can sum to {bound} in some position, beyond the accumulator's "
                       f"16-bit range ({ACCUMULATOR_LIMIT}); train it with smaller weights")
    _install(hidden, w1, b1, w2, b2, _HEADER.unpack_from(data)[1] == VERSION_ADDED)
    return NetInfo(str(file), hashlib.sha256(data).hexdigest(), hidden)


def accumulator_bound(hidden: int, w1: array[int], b1: array[int]) -> int:
    """The largest first-layer sum any position can give the net (with 64 pieces, every hand full, every
    gate): per neuron its bias plus, on each square, the largest weight of any piece there, and every hand and
    gate weight, all taken by size."""
    worst = 0
    for j in range(hidden):
        total = abs(b1[j])
        for sq in range(64):
            total += max(abs(w1[(code * 64 + sq) * hidden + j]) for code in range(16))
        for feature in range(HAND_BASE, N_FEATURES):
            total += abs(w1[feature * hidden + j])
        worst = max(worst, total)
    return worst


def _install(hidden: int, w1: array[int], b1: array[int], w2: array[int], b2: int, added: bool = False) -> None:
    global _HIDDEN, _B2, _ADDED, _W2_FITS_INT, _W2_OFFSET
    _HIDDEN = 0  # no accumulator evaluates a half-written net
    for i in range(N_FEATURES * hidden):
        _W1[i] = w1[i]
    for i in range(hidden):
        _B1[i] = b1[i]
        _W2[i] = w2[i]
        _W2[hidden + i] = w2[hidden + i]
    _B2 = b2
    _ADDED = 1 if added else 0
    # The output layer's sum of each half in Accumulator.evaluate's 16-bit form, at most 32768 times the sum of
    # its |weights|: in 32 bits when that cannot overflow (every net trained here), else in 64.
    bound = 32768 * max(sum(abs(w) for w in w2[:hidden]), sum(abs(w) for w in w2[hidden:2 * hidden]))
    _W2_FITS_INT = 1 if bound < 2 ** 31 else 0
    _W2_OFFSET = 32768 * sum(w2[:2 * hidden])
    _HIDDEN = hidden


def loaded_adds_hand_made() -> bool:
    """Whether the net in use is added to the hand-made evaluation (a :data:`VERSION_ADDED` file)."""
    return _ADDED != 0


def loaded_hidden() -> int:
    """The hidden width of the net in use, 0 when none is loaded."""
    return _HIDDEN


def features(squares: list[int], hand: list[int], gates: int, perspective: int) -> list[int]:
    """The active features of a position from one side's view (1 white, -1 black): the reference the
    accumulator's incremental sums follow, and the trainer's input."""
    out = [_PIECE_WHITE[(p + 8) * 64 + sq] if perspective == 1 else _PIECE_BLACK[(p + 8) * 64 + sq]
           for sq, p in enumerate(squares) if p]
    for colour in (0, 1):
        sign = perspective if colour == 0 else -perspective
        for t in range(1, 9):
            for k in range(min(hand[t * sign], HAND_STEPS)):
                out.append(HAND_BASE + (colour * 8 + t - 1) * HAND_STEPS + k)
    for sq in range(64):
        if gates >> sq & 1:
            rel = sq if perspective == 1 else sq ^ 56
            if rel < 8:
                out.append(GATE_BASE + rel)
            elif rel >= 56:
                out.append(GATE_BASE + 8 + rel - 56)
    return out


class Accumulator(MoveObserver):
    """The first layer's sums of the position being searched, one slot per ply (see the module's docstring).
    A position carries one while a search runs (``Position.accumulator``); :meth:`refresh` sets it to a position."""

    def __init__(self) -> None:
        # One slot per ply, and one more (the last) for a position past them (evaluated from scratch).
        self.values = _zeros((STACK_PLIES + 1) * 2 * MAX_HIDDEN)
        self.filled = _zeros(STACK_PLIES)  # 1: the slot's sums are set (else push left it empty)
        # What the position of the top slot holds (kept by push and pop): board, hands, gates.
        self.board = _zeros(64)
        self.hands = _zeros(16)  # white's pieces in hand by type - 1, then black's
        self.gates = 0
        # What each slot's move changed, to fill its sums (evaluate) and to take it back (pop): the squares
        # with their piece before and after, the hand counts before and after, the gates before and after.
        self.square_count = _zeros(STACK_PLIES)
        self.square_at = _zeros(STACK_PLIES * _SQUARES_MAX)
        self.square_old = _zeros(STACK_PLIES * _SQUARES_MAX)
        self.square_new = _zeros(STACK_PLIES * _SQUARES_MAX)
        self.hand_count = _zeros(STACK_PLIES)
        self.hand_at = _zeros(STACK_PLIES * 16)
        self.hand_old = _zeros(STACK_PLIES * 16)
        self.hand_new = _zeros(STACK_PLIES * 16)
        self.gates_old = _zeros(STACK_PLIES)
        self.gates_new = _zeros(STACK_PLIES)
        # The features an update adds and removes (white's and black's row of each).
        self.added = _zeros(2 * _CHANGES_MAX)
        self.removed = _zeros(2 * _CHANGES_MAX)
        self.n_add = 0
        self.n_sub = 0
        self.top = 0
        self.overflow = 0  # pushes past the last slot (evaluated from scratch; their pops only count down)
        self.stale = False  # popped below the first slot: the next evaluate starts again from the position

    def refresh(self, pos: Position) -> None:
        """Describe ``pos`` from scratch in slot 0."""
        squares = pos.squares
        for sq in range(64):
            self.board[sq] = squares[sq]
        hand = pos.hand
        for slot in range(16):
            t = (slot & 7) + 1
            self.hands[slot] = hand[t if slot < 8 else -t]
        self.gates = pos.gates
        self.top = 0
        self.overflow = 0
        self.stale = False
        self._fill(pos, 0)
        self.filled[0] = 1

    def _fill(self, pos: Position, slot: int) -> None:
        """Slot ``slot``'s sums := the biases plus every feature of ``pos``."""
        h = _HIDDEN
        at = slot * _SLOT
        for i in range(h):
            self.values[at + i] = _B1[i]
            self.values[at + _MAXH + i] = _B1[i]
        squares = pos.squares
        for sq in range(64):
            if squares[sq]:
                self._list_square(sq, 0, squares[sq])
        hand = pos.hand
        for slot_ in range(16):
            t = (slot_ & 7) + 1
            self._list_hand(slot_, 0, hand[t if slot_ < 8 else -t])
        self._list_gates(0, pos.gates)
        self._apply_lists(at, at)  # at most 64 squares, 16 x 8 hand and 16 gate features: within the lists

    def _list_square(self, sq: int, old: int, new: int) -> None:
        """List the features of square ``sq`` going from piece ``old`` to ``new`` (0: empty)."""
        if old:
            self.removed[2 * self.n_sub] = _PIECE_WHITE[(old + 8) * 64 + sq]
            self.removed[2 * self.n_sub + 1] = _PIECE_BLACK[(old + 8) * 64 + sq]
            self.n_sub += 1
        if new:
            self.added[2 * self.n_add] = _PIECE_WHITE[(new + 8) * 64 + sq]
            self.added[2 * self.n_add + 1] = _PIECE_BLACK[(new + 8) * 64 + sq]
            self.n_add += 1

    def _list_hand(self, slot: int, old: int, new: int) -> None:
        """List the features of hand slot ``slot`` going from ``old`` to ``new`` pieces."""
        new = new if new < _HAND_STEPS else _HAND_STEPS
        old = old if old < _HAND_STEPS else _HAND_STEPS
        # White's pieces are own (colour 0) for white and enemy (colour 1) for black, and the reverse.
        row_white = _HAND_BASE + slot * _HAND_STEPS
        row_black = _HAND_BASE + (slot ^ 8) * _HAND_STEPS
        for k in range(old, new):
            self.added[2 * self.n_add] = row_white + k
            self.added[2 * self.n_add + 1] = row_black + k
            self.n_add += 1
        for k in range(new, old):
            self.removed[2 * self.n_sub] = row_white + k
            self.removed[2 * self.n_sub + 1] = row_black + k
            self.n_sub += 1

    def _list_gates(self, old: int, new: int) -> None:
        """List the gate features that differ between the gate masks ``old`` and ``new``."""
        changed = old ^ new
        if changed:
            for f in range(16):
                sq = f if f < 8 else 48 + f  # the back ranks: white's is own for white, the enemy's for black
                if changed >> sq & 1:
                    g = sq & 7
                    row_white = _GATE_BASE + (g if sq < 8 else 8 + g)
                    row_black = _GATE_BASE + (8 + g if sq < 8 else g)
                    if new >> sq & 1:
                        self.added[2 * self.n_add] = row_white
                        self.added[2 * self.n_add + 1] = row_black
                        self.n_add += 1
                    else:
                        self.removed[2 * self.n_sub] = row_white
                        self.removed[2 * self.n_sub + 1] = row_black
                        self.n_sub += 1

    def _apply_lists(self, src: int, dst: int) -> None:
        """The sums at ``dst`` := those at ``src`` plus the listed features (then no feature is listed)."""
        kern.apply_changes(self.values, src, dst, _W1, self.added, self.n_add, self.removed, self.n_sub, 0, _HIDDEN)
        kern.apply_changes(self.values, src + _MAXH, dst + _MAXH, _W1, self.added, self.n_add, self.removed,
                           self.n_sub, 1, _HIDDEN)
        self.n_add = 0
        self.n_sub = 0

    def push(self, pos: Position) -> None:
        """After ``pos.make``: record what the move changed (the squares ``pos.changed_squares`` names, the
        hands when ``pos.hand_changed``, the gates) in the next slot, left empty until :meth:`evaluate` needs
        its sums. Past the last slot only the count goes up."""
        if self.stale:
            return
        top = self.top
        if top >= _STACK - 1 or self.overflow:
            self.overflow += 1
            return
        top += 1
        self.top = top
        self.filled[top] = 0
        squares = pos.squares
        base = top * _SQUARES_MAX
        n = 0
        changed = pos.changed_squares
        while changed:
            low = changed & (~changed + 1)
            sq = _LOW_BIT_SQUARE[low % 67]
            changed ^= low
            new = squares[sq]
            old = self.board[sq]
            if new != old:
                self.square_at[base + n] = sq
                self.square_old[base + n] = old
                self.square_new[base + n] = new
                self.board[sq] = new
                n += 1
        self.square_count[top] = n
        n = 0
        if pos.hand_changed:
            hand = pos.hand
            base = top * 16
            for slot in range(16):
                t = (slot & 7) + 1
                new = hand[t if slot < 8 else -t]
                old = self.hands[slot]
                if new != old:
                    self.hand_at[base + n] = slot
                    self.hand_old[base + n] = old
                    self.hand_new[base + n] = new
                    self.hands[slot] = new
                    n += 1
        self.hand_count[top] = n
        self.gates_old[top] = self.gates
        self.gates = pos.gates
        self.gates_new[top] = self.gates

    def pop(self) -> None:
        """After ``pos.unmake``: take back the top slot's changes, back to the slot of the position before."""
        if self.stale:
            return
        if self.overflow:
            self.overflow -= 1
            return
        top = self.top
        if not top:
            self.stale = True  # a takeback past the position of slot 0
            return
        base = top * _SQUARES_MAX
        for i in range(self.square_count[top]):
            self.board[self.square_at[base + i]] = self.square_old[base + i]
        base = top * 16
        for i in range(self.hand_count[top]):
            self.hands[self.hand_at[base + i]] = self.hand_old[base + i]
        self.gates = self.gates_old[top]
        self.top = top - 1

    def _update(self, src: int, dst: int) -> None:
        """Slot ``dst``'s sums := slot ``src``'s plus the changes the slots above ``src`` up to ``dst``
        recorded: one pass over each perspective's sums for the first feature added and the first removed (a
        quiet move's whole change), one more for each other feature."""
        at_src = src * _SLOT
        at_dst = dst * _SLOT
        for slot in range(src + 1, dst + 1):
            if self.n_add > _CHANGES_MAX - _SLOT_CHANGES_MAX or self.n_sub > _CHANGES_MAX - _SLOT_CHANGES_MAX:
                self._apply_lists(at_src, at_dst)  # room for the next slot's changes
                at_src = at_dst
            base = slot * _SQUARES_MAX
            for i in range(self.square_count[slot]):
                self._list_square(self.square_at[base + i], self.square_old[base + i], self.square_new[base + i])
            base = slot * 16
            for i in range(self.hand_count[slot]):
                self._list_hand(self.hand_at[base + i], self.hand_old[base + i], self.hand_new[base + i])
            self._list_gates(self.gates_old[slot], self.gates_new[slot])
        if dst - src > 1:
            self._cancel()
        self._apply_lists(at_src, at_dst)

    def _cancel(self) -> None:
        """Take out of the lists each feature both added and removed (a piece that moved on, or back, over the
        slots an update spans): each one fewer pass over the sums. The white row names a feature (the black
        row follows from it)."""
        i = 0
        while i < self.n_add:
            feature = self.added[2 * i]
            j = 0
            while j < self.n_sub and self.removed[2 * j] != feature:
                j += 1
            if j < self.n_sub:  # both go: the last of each list takes its place
                self.n_add -= 1
                self.added[2 * i] = self.added[2 * self.n_add]
                self.added[2 * i + 1] = self.added[2 * self.n_add + 1]
                self.n_sub -= 1
                self.removed[2 * j] = self.removed[2 * self.n_sub]
                self.removed[2 * j + 1] = self.removed[2 * self.n_sub + 1]
            else:
                i += 1

    def adds_hand_made(self) -> bool:
        """Whether :meth:`evaluate`'s score is added to the hand-made evaluation's (a VERSION_ADDED net)."""
        return _ADDED != 0

    def evaluate(self, pos: Position) -> int:
        """The net's score of ``pos`` (which this accumulator follows) in centipawns, side to move's view."""
        if self.stale:
            self.refresh(pos)
        if self.overflow:
            top = _STACK  # the spare slot, from scratch
            self._fill(pos, top)
        else:
            top = self.top
            if not self.filled[top]:
                src = top - 1
                while not self.filled[src]:  # slot 0 is filled by refresh
                    src -= 1
                self._update(src, top)
                self.filled[top] = 1
        h = _HIDDEN
        values = self.values
        us = top * _SLOT + (0 if pos.side == 1 else _MAXH)
        them = top * _SLOT + (_MAXH if pos.side == 1 else 0)
        total = 0
        qa = _QA
        if _W2_FITS_INT:
            # In 16-bit lanes (pminsw, pmullw, pmaddwd: SSE2, every x86-64; AVX2 where the processor has it,
            # engine.nnue_kernels): c * c - 32768 fits a short (c is at most 255), its product with a weight an
            # int, and each half's sum of those fits an int for this net (checked by _install); the 32768 *
            # sum(w2) taken off is added back in 64 bits.
            total = kern.output_sum(values, us, them, _W2, h, qa)
            total += _W2_OFFSET
        else:
            for i in range(h):
                v = values[us + i]
                v = v if v > 0 else 0
                v = v if v < qa else qa
                total += v * v * _W2[i]
            for i in range(h):
                v = values[them + i]
                v = v if v > 0 else 0
                v = v if v < qa else qa
                total += v * v * _W2[h + i]
        total = total // _QA + _B2
        score = total * _SCALE // _DIV
        if score > _LIMIT:
            return _LIMIT
        if score < -_LIMIT:
            return -_LIMIT
        return score


def kernels() -> str:
    """The loops the accumulator and output layer run (engine.nnue_kernels): ``python`` in the pure build,
    ``avx2`` or ``portable`` (the compiler's default instruction set) in the compiled build."""
    return KERNEL_NAMES[kern.level()]


def select_kernels(name: str) -> str:
    """Run the loops ``name`` names (one of :data:`KERNEL_NAMES`) where this build and processor have them,
    else the nearest ones they have (AVX2 falls back to the portable loops, and the compiled build runs no
    Python loops); the name of those in use. Every choice gives the same evaluations."""
    if name not in KERNEL_NAMES:
        raise ValueError(f"unknown kernels {name!r}: expected one of {', '.join(KERNEL_NAMES)}")
    return KERNEL_NAMES[kern.select(KERNEL_NAMES.index(name))]


def evaluate_from_scratch(pos: Position) -> int:
    """The net's score of ``pos`` without an accumulator kept by the search (tests, tools)."""
    accumulator = Accumulator()
    accumulator.refresh(pos)
    return accumulator.evaluate(pos)
