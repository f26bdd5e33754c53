"""The learned evaluation: a small NNUE-style network with an accumulator kept incrementally by make/unmake.

Inputs (per perspective, ``N_FEATURES`` binary features; the board flipped for black, so "own" pieces are
always the perspective's and its first rank is rank 1):

* ``[0, 1024)``: a piece on a square, ``(colour * 8 + type - 1) * 64 + square`` (colour 0 own, 1 enemy;
  types pawn .. Elephant as in :mod:`engine.tables`): the 768 planes of chess plus Hawk and Elephant.
* ``[1024, 1152)``: pieces in hand, ``1024 + (colour * 8 + type - 1) * 8 + k - 1`` set for k = 1 .. count
  (up to 8): every piece type has room, for drop variants.
* ``[1152, 1168)``: gate rights, ``1152 + file`` for the own back rank, ``1160 + file`` for the enemy's.

Network: ``N_FEATURES -> hidden`` (int16 weights, int32 accumulator, one per perspective, shared weights),
the side to move's half first, squared clipped ReLU (``clamp(x, 0, QA) ** 2``) and one int16 output neuron:
``eval = ((sum(screlu(acc) * w2) // QA + b2) * SCALE) // (QA * QB)`` centipawns from the side to move.
Every step is integer arithmetic with Python's floor division, so the compiled build (C arrays, ``nnue.pxd``)
and the pure build compute the same numbers and the search the same nodes.

The accumulator keeps one slot per ply of the line being searched: each slot holds the two perspectives'
sums and a snapshot of what they describe (board, hands, gates). The slots are filled lazily:
:meth:`Accumulator.push` (after ``make``) only moves to the next slot and marks it empty, and
:meth:`Accumulator.evaluate` fills an empty slot from the nearest filled one below it plus the difference
between that slot's snapshot and the position, so the nodes the search leaves without evaluating them (table
cut-offs, moves pruned after ``make``) cost no update, and any move of any variant is handled without the
accumulator knowing the rules. :meth:`Accumulator.pop` (after ``unmake``) goes back one slot. Null moves
change no input and touch no slot.

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
_QA = QA
_DIV = QA * QB
_SCALE = SCALE
_LIMIT = EVAL_LIMIT
_SLOT = 2 * MAX_HIDDEN  # accumulator values per slot: white's perspective, then black's
# Private copies of the constants: C ints in the compiled build (nnue.pxd), where the public ones stay Python.
_MAXH = MAX_HIDDEN
_STACK = STACK_PLIES
_HAND_BASE = HAND_BASE
_CHANGES_MAX = 64 + 16 * HAND_STEPS + 16
_HAND_STEPS = HAND_STEPS
_GATE_BASE = GATE_BASE

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
    _install(hidden, w1, b1, w2, b2, _HEADER.unpack_from(data)[1] == VERSION_ADDED)
    return NetInfo(str(file), hashlib.sha256(data).hexdigest(), hidden)


def _install(hidden: int, w1: array[int], b1: array[int], w2: array[int], b2: int, added: bool = False) -> None:
    global _HIDDEN, _B2, _ADDED, _W2_FITS_INT
    _HIDDEN = 0  # no accumulator evaluates a half-written net
    for i in range(N_FEATURES * hidden):
        _W1[i] = w1[i]
    for i in range(hidden):
        _B1[i] = b1[i]
        _W2[i] = w2[i]
        _W2[hidden + i] = w2[hidden + i]
    _B2 = b2
    _ADDED = 1 if added else 0
    # The output layer's sum of each half, at most QA^2 times the sum of its |weights|: in 32 bits when that
    # cannot overflow (every net trained here), else in 64.
    bound = QA * QA * max(sum(abs(w) for w in w2[:hidden]), sum(abs(w) for w in w2[hidden:2 * hidden]))
    _W2_FITS_INT = 1 if bound < 2 ** 31 else 0
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
        self.values = _zeros(STACK_PLIES * 2 * MAX_HIDDEN)
        self.board = _zeros(STACK_PLIES * 64)
        self.hands = _zeros(STACK_PLIES * 16)  # white's pieces in hand by type - 1, then black's
        self.gate_masks = _zeros(STACK_PLIES)
        self.filled = _zeros(STACK_PLIES)  # 1: the slot's sums and snapshot are set (else push left it empty)
        # The features _advance adds and removes (white's and black's row of each): at most every square, a
        # full hand of each type and every gate.
        self.added = _zeros(2 * _CHANGES_MAX)
        self.removed = _zeros(2 * _CHANGES_MAX)
        self.top = 0
        self.overflow = 0  # pushes past the last slot, updated in place there
        self.stale = False  # the top slot may not describe the position (popped past it): redo before use

    def refresh(self, pos: Position) -> None:
        """Describe ``pos`` from scratch in slot 0: the biases plus every feature of the position."""
        h = _HIDDEN
        for i in range(h):
            self.values[i] = _B1[i]
            self.values[_MAXH + i] = _B1[i]
        for i in range(64):
            self.board[i] = 0
        for i in range(16):
            self.hands[i] = 0
        self.gate_masks[0] = 0
        self.top = 0
        self.overflow = 0
        self.stale = False
        self._advance(pos, 0, 0)
        self.filled[0] = 1

    def push(self, pos: Position) -> None:
        """After ``pos.make``: the next slot is ``pos``'s, left empty until :meth:`evaluate` needs it (past
        the last slot, the last one is marked stale instead and brought up to date in place)."""
        top = self.top
        if top < _STACK - 1 and not self.overflow:
            self.top = top + 1
            self.filled[top + 1] = 0
        else:
            self.overflow += 1
            self.stale = True

    def pop(self) -> None:
        """After ``pos.unmake``: back to the slot of the position before the move."""
        if self.overflow:
            self.overflow -= 1
            self.stale = True
        elif self.top:
            self.top -= 1
        else:
            self.stale = True

    def _advance(self, pos: Position, src: int, dst: int) -> None:
        """Slot ``dst`` := slot ``src`` plus the features that differ between its snapshot and ``pos``
        (``src == dst`` updates a slot in place): the differences are listed first, then each perspective's
        sums are written in one pass for the first feature added and removed (a move's usual change) and
        one more pass for each other feature."""
        added = self.added  # feature rows, white's perspective at 2k, black's at 2k + 1
        removed = self.removed
        n_add = 0
        n_sub = 0
        squares = pos.squares
        old_board = src * 64
        new_board = dst * 64
        for sq in range(64):
            new = squares[sq]
            old = self.board[old_board + sq]
            if new != old:
                if old:
                    removed[2 * n_sub] = _PIECE_WHITE[(old + 8) * 64 + sq]
                    removed[2 * n_sub + 1] = _PIECE_BLACK[(old + 8) * 64 + sq]
                    n_sub += 1
                if new:
                    added[2 * n_add] = _PIECE_WHITE[(new + 8) * 64 + sq]
                    added[2 * n_add + 1] = _PIECE_BLACK[(new + 8) * 64 + sq]
                    n_add += 1
            self.board[new_board + sq] = new
        hand = pos.hand
        for slot in range(16):
            t = (slot & 7) + 1
            new = hand[t if slot < 8 else -t]
            old = self.hands[src * 16 + slot]
            if new != old:
                self.hands[dst * 16 + slot] = new
                new = new if new < _HAND_STEPS else _HAND_STEPS
                old = old if old < _HAND_STEPS else _HAND_STEPS
                # White's pieces are own (colour 0) for white and enemy (colour 1) for black, and the reverse.
                row_white = _HAND_BASE + slot * _HAND_STEPS
                row_black = _HAND_BASE + (slot ^ 8) * _HAND_STEPS
                for k in range(old, new):
                    added[2 * n_add] = row_white + k
                    added[2 * n_add + 1] = row_black + k
                    n_add += 1
                for k in range(new, old):
                    removed[2 * n_sub] = row_white + k
                    removed[2 * n_sub + 1] = row_black + k
                    n_sub += 1
            elif src != dst:
                self.hands[dst * 16 + slot] = new
        gates = pos.gates
        changed = gates ^ self.gate_masks[src]
        self.gate_masks[dst] = gates
        if changed:
            for f in range(16):
                sq = f if f < 8 else 48 + f  # the back ranks: white's is own for white, the enemy's for black
                if changed >> sq & 1:
                    f = sq & 7
                    row_white = _GATE_BASE + (f if sq < 8 else 8 + f)
                    row_black = _GATE_BASE + (8 + f if sq < 8 else f)
                    if gates >> sq & 1:
                        added[2 * n_add] = row_white
                        added[2 * n_add + 1] = row_black
                        n_add += 1
                    else:
                        removed[2 * n_sub] = row_white
                        removed[2 * n_sub + 1] = row_black
                        n_sub += 1
        _apply(self.values, src * _SLOT, dst * _SLOT, added, n_add, removed, n_sub, 0, _HIDDEN)
        _apply(self.values, src * _SLOT + _MAXH, dst * _SLOT + _MAXH, added, n_add, removed, n_sub, 1, _HIDDEN)

    def adds_hand_made(self) -> bool:
        """Whether :meth:`evaluate`'s score is added to the hand-made evaluation's (a VERSION_ADDED net)."""
        return _ADDED != 0

    def evaluate(self, pos: Position) -> int:
        """The net's score of ``pos`` (which this accumulator follows) in centipawns, side to move's view."""
        top = self.top
        if not self.filled[top]:
            src = top - 1
            while not self.filled[src]:  # slot 0 is filled by refresh
                src -= 1
            self._advance(pos, src, top)
            self.filled[top] = 1
            self.stale = False
        elif self.stale:
            self._advance(pos, top, top)
            self.stale = False
        h = _HIDDEN
        values = self.values
        us = top * _SLOT + (0 if pos.side == 1 else _MAXH)
        them = top * _SLOT + (_MAXH if pos.side == 1 else 0)
        total = 0
        qa = _QA
        if _W2_FITS_INT:
            # Each half's sum fits a C int for this net (checked by _install): 32-bit arithmetic, which the
            # compiler vectorizes; the clipping as conditional moves (the signs of the sums are unpredictable).
            half_us = 0
            half_them = 0
            for i in range(h):
                c = values[us + i]
                c = c if c > 0 else 0
                c = c if c < qa else qa
                half_us += c * c * _W2[i]
            for i in range(h):
                c = values[them + i]
                c = c if c > 0 else 0
                c = c if c < qa else qa
                half_them += c * c * _W2[h + i]
            total = half_us
            total += half_them
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


def _apply(values: list[int], a: int, b: int, added: list[int], n_add: int, removed: list[int], n_sub: int,
           perspective: int, h: int) -> None:
    """One perspective's sums: ``values[b:b + h]`` := ``values[a:a + h]`` plus the W1 rows of ``added`` and
    minus those of ``removed`` (the perspective's rows at ``2k + perspective``), the first of each fused with
    the copy (C loops in the compiled build, which the compiler vectorizes)."""
    j = 0
    k = 0
    if n_add and n_sub:
        plus = added[perspective] * h
        minus = removed[perspective] * h
        for i in range(h):
            values[b + i] = values[a + i] + _W1[plus + i] - _W1[minus + i]
        j = k = 1
    elif n_add:
        plus = added[perspective] * h
        for i in range(h):
            values[b + i] = values[a + i] + _W1[plus + i]
        j = 1
    elif n_sub:
        minus = removed[perspective] * h
        for i in range(h):
            values[b + i] = values[a + i] - _W1[minus + i]
        k = 1
    elif a != b:
        for i in range(h):
            values[b + i] = values[a + i]
    while j < n_add:
        _add_row(values, b, added[2 * j + perspective], h)
        j += 1
    while k < n_sub:
        _sub_row(values, b, removed[2 * k + perspective], h)
        k += 1


def _add_row(values: list[int], at: int, feature: int, h: int) -> None:
    """values[at:at + h] += W1 row ``feature`` (a C loop in the compiled build)."""
    row = feature * h
    for i in range(h):
        values[at + i] += _W1[row + i]


def _sub_row(values: list[int], at: int, feature: int, h: int) -> None:
    row = feature * h
    for i in range(h):
        values[at + i] -= _W1[row + i]


def evaluate_from_scratch(pos: Position) -> int:
    """The net's score of ``pos`` without an accumulator kept by the search (tests, tools)."""
    accumulator = Accumulator()
    accumulator.refresh(pos)
    return accumulator.evaluate(pos)
