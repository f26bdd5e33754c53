"""Transposition table: fixed slots in buckets of four, 16 bytes a slot, replacement by depth and age, never
emptied during a search; one layout for one thread and for the Lazy SMP table in shared memory.

The table is a flat array of signed 64-bit words (``array('q')`` of its own, or the words of the shared memory
block of :mod:`engine.sharedtable`; this module imports neither that nor the search), two words per slot:

- ``data``: move (bits 0-19) | score + 32768 (bits 20-35) | bound (36-37) | depth (38-44, 0..127) | age (45-50),
  never 0 in a slot that holds one (the score field is at least 768), so 0 marks an empty slot;
- ``key ^ data``: a slot answers a probe only when the XOR of its two words gives the probed key. Two processes
  writing one slot at once can tear it (one word of each): it then reads as a miss, never as another key's data
  (Hyatt and Mann's lockless hashing), so the shared table needs no locks.

A key (:func:`tt_key`, 63 bits) picks a bucket of four slots (64 bytes, one cache line in C). A store goes to
the slot holding the same key, else an empty one, else the one whose data is worth least: its depth minus
8 per search since it was stored (the age counts searches, modulo 64). Of the same key, data of this search
much deeper than the new is kept unless the new is exact. Mate scores are stored relative to the node
(the search adds and removes the ply).

In the compiled build (``tt.pxd``) the words are a typed memoryview and probes and stores are C code; the pure
build runs the same code on the ``array`` (the same size and layout), so both search the same tree.
"""

from __future__ import annotations

import random
from array import array
from typing import Any, Optional, Protocol

EXACT, LOWER, UPPER = 0, 1, 2
SLOT_BYTES = 16  # two 64-bit words
BUCKET_SLOTS = 4
SCORE_OFFSET = 1 << 15  # scores are within +-32000
# The fields of a data word (see the module's notes): move | score | bound | depth | age, low bits first.
MOVE_MASK = 0xFFFFF
SCORE_SHIFT = 20
SCORE_MASK = 0xFFFF
BOUND_SHIFT = 36
BOUND_MASK = 3
DEPTH_SHIFT = 38
DEPTH_MAX = 127
AGE_SHIFT = 45
AGE_MASK = 63
# Private copies of the constants the table's own code uses: C values in the compiled build (tt.pxd), where a
# name other modules import must stay a Python object.
_EXACT = EXACT
_OFFSET = SCORE_OFFSET
_MOVE_MASK = MOVE_MASK
_SCORE_SHIFT = SCORE_SHIFT
_BOUND_SHIFT = BOUND_SHIFT
_DEPTH_SHIFT = DEPTH_SHIFT
_DEPTH_MAX = DEPTH_MAX
_AGE_SHIFT = AGE_SHIFT
_AGE_MASK = AGE_MASK
# Gates are back-rank squares: one 63-bit key per pattern of white gates (rank 1) and of black gates (rank 8).
# Looking them up costs two small-int operations; multiplying the 64-bit mask by a constant made a 128-bit
# big integer at every node (slow under CPython, and a heap allocation under PyPy).
_gate_rng = random.Random(0x6A7E5)
GATE_KEYS_WHITE = [0] + [_gate_rng.getrandbits(63) for _ in range(255)]
GATE_KEYS_BLACK = [0] + [_gate_rng.getrandbits(63) for _ in range(255)]


class SharedWords(Protocol):
    """Words in shared memory the table can live in instead of its own (Lazy SMP): ``words`` is a writable
    buffer of ``slots * 2`` signed 64-bit words (a ``memoryview`` of format ``q``)."""

    words: Any
    slots: int


def tt_key(position_hash: int, gates: int) -> int:
    """The table key: the position's Zobrist hash (which leaves gates out) with the gates mixed in."""
    if not gates:
        return position_hash
    white = GATE_KEYS_WHITE[gates & 255]  # C long long in the compiled build (tt.pxd): the XOR is C
    black = GATE_KEYS_BLACK[gates >> 56]
    return position_hash ^ white ^ black


def slots_for(megabytes: int) -> int:
    """The number of slots of a table of ``megabytes``: the largest power of two that fits (at least 1024)."""
    slots = 1024
    while slots * 2 * SLOT_BYTES <= megabytes * 1024 * 1024:
        slots *= 2
    return slots


def pack(depth: int, bound: int, score: int, move: int, age: int) -> int:
    """The data word of a slot (depth clamped to 0..127)."""
    if depth < 0:
        depth = 0
    elif depth > _DEPTH_MAX:
        depth = _DEPTH_MAX
    return (move | (score + _OFFSET) << _SCORE_SHIFT | bound << _BOUND_SHIFT | depth << _DEPTH_SHIFT
            | (age & _AGE_MASK) << _AGE_SHIFT)


def unpack(data: int) -> tuple[int, int, int, int]:
    """``(depth, bound, score, move)`` of a data word (for tests and tools; the search reads the fields one by
    one, engine.search's ``stored_*``)."""
    return (data >> DEPTH_SHIFT & DEPTH_MAX, data >> BOUND_SHIFT & BOUND_MASK,
            (data >> SCORE_SHIFT & SCORE_MASK) - SCORE_OFFSET, data & MOVE_MASK)


class TranspositionTable:
    """The table the search probes and stores: its own words, or a shared block's (:meth:`use_shared`)."""

    def __init__(self, megabytes: int = 16) -> None:
        self.buffer: Any = array("q")  # the object that owns the words (an array, or the shared memoryview)
        self.words: Any = self.buffer  # the same words as the search indexes them (typed in the compiled build)
        self.shared: Optional[SharedWords] = None
        self.slots = 0
        self.bucket_mask = 0
        self.age = 0
        self.megabytes = megabytes
        self.resize(megabytes)

    def _set_words(self, buffer: Any, slots: int) -> None:
        self.buffer = buffer
        self.words = buffer
        self.slots = slots
        self.bucket_mask = slots // BUCKET_SLOTS - 1

    def resize(self, megabytes: int) -> None:
        """A new empty table of ``megabytes`` (a shared table is sized by whoever made it: it stays, and the size
        applies once the table is the search's own again)."""
        self.megabytes = megabytes
        if self.shared is None:
            slots = slots_for(megabytes)
            self._set_words(array("q", bytes(slots * SLOT_BYTES)), slots)

    def use_shared(self, shared: Optional[SharedWords]) -> None:
        """Probe and store ``shared``'s words from now on; None goes back to an own (empty) table."""
        self.shared = shared
        if shared is None:
            self.resize(self.megabytes)
        else:
            self._set_words(shared.words, shared.slots)

    def clear(self) -> None:
        """Empty every slot (``ucinewgame``, ``Clear Hash``); never during a search."""
        memoryview(self.buffer).cast("B")[:] = bytes(self.slots * SLOT_BYTES)
        self.age = 0

    def new_search(self) -> None:
        """Called before each search: what earlier searches stored counts as older from now on."""
        self.age = (self.age + 1) & _AGE_MASK

    def probe(self, key: int) -> int:
        """The data word stored for ``key`` (decode with the shifts of :func:`unpack`), or 0."""
        # self.words at each use rather than in a local: in the compiled build a local typed memoryview takes
        # and drops a reference to the buffer at every call (two atomic operations), the attribute does not.
        i = (key & self.bucket_mask) << 3
        end = i + 8
        while i < end:
            data = self.words[i]
            if data and self.words[i + 1] ^ data == key:
                return data  # type: ignore[no-any-return]
            i += 2
        return 0

    def store(self, key: int, depth: int, bound: int, score: int, move: int) -> None:
        """Store a search result for ``key`` in its bucket (see the module's notes on replacement)."""
        age = self.age  # self.words at each use, not in a local: see probe
        i = (key & self.bucket_mask) << 3
        end = i + 8
        target = i
        worst = 1 << 20
        while i < end:
            data = self.words[i]
            if not data:
                target = i
                break
            if self.words[i + 1] ^ data == key:
                if (bound != _EXACT and data >> _AGE_SHIFT == age and (data >> _DEPTH_SHIFT & _DEPTH_MAX) > depth + 2):
                    return  # much deeper data of this search: keep it
                if not move:
                    move = data & _MOVE_MASK  # keep the move stored before
                target = i
                break
            value = (data >> _DEPTH_SHIFT & _DEPTH_MAX) - 8 * ((age - (data >> _AGE_SHIFT)) & _AGE_MASK)
            if value < worst:
                worst = value
                target = i
            i += 2
        data = pack(depth, bound, score, move, age)
        self.words[target] = data
        self.words[target + 1] = key ^ data

    def stored(self, key: int) -> Optional[tuple[int, int, int, int]]:
        """``(depth, bound, score, move)`` stored for ``key``, or None (for tests and the PV)."""
        data = self.probe(key)
        return unpack(data) if data else None

    def permille(self) -> int:
        """How full the table is with data of the current search, from its first 1000 slots (``hashfull``)."""
        words = self.words
        age = self.age
        count = 0
        for i in range(0, 2000 if self.slots >= 1000 else 2 * self.slots, 2):
            data = words[i]
            if data and data >> _AGE_SHIFT == age:
                count += 1
        return count
