"""Transposition table: a dict keyed by the position's Zobrist key (gates mixed in), with a size cap; or, with
``Threads`` above 1, the fixed-size table in shared memory of :mod:`engine.sharedtable` behind the same ``get``
and item assignment (:class:`TableStore`; this module imports neither the search nor the shared table).

An entry is a tuple ``(depth, bound, score, move)``; mate scores are stored relative to the node (the search
adds and removes the ply). When the dict is full it is cleared at the start of the next search (cheap, and a
dict of tuples cannot be aged in place without a scan); the shared table replaces slots instead.
"""

from __future__ import annotations

import random
from typing import Any, Optional, Protocol

EXACT, LOWER, UPPER = 0, 1, 2
# Rough memory of one entry in CPython: dict slot + int key + 4-tuple + small ints.
BYTES_PER_ENTRY = 200
# Gates are back-rank squares: one 63-bit key per pattern of white gates (rank 1) and of black gates (rank 8).
# Looking them up costs two small-int operations; multiplying the 64-bit mask by a constant made a 128-bit
# big integer at every node (slow under CPython, and a heap allocation under PyPy).
_gate_rng = random.Random(0x6A7E5)
GATE_KEYS_WHITE = [0] + [_gate_rng.getrandbits(63) for _ in range(255)]
GATE_KEYS_BLACK = [0] + [_gate_rng.getrandbits(63) for _ in range(255)]


class TableStore(Protocol):
    """A table the search can use instead of its own dict (the shared one of Lazy SMP): the part of the dict
    interface the search uses, plus how full it is."""

    def get(self, key: int) -> Optional[tuple[int, int, int, int]]: ...

    def __setitem__(self, key: int, entry: tuple[int, int, int, int]) -> None: ...

    def clear(self) -> None: ...

    def permille(self) -> int: ...


def tt_key(position_hash: int, gates: int) -> int:
    """The table key: the position's Zobrist hash (which leaves gates out) with the gates mixed in."""
    if not gates:
        return position_hash
    white = GATE_KEYS_WHITE[gates & 255]  # C long long in the compiled build (tt.pxd): the XOR is C
    black = GATE_KEYS_BLACK[gates >> 56]
    return position_hash ^ white ^ black


class TranspositionTable:
    """The table the search reads and writes as ``table``: its own dict, or a shared one (``use_shared``)."""

    def __init__(self, megabytes: int = 16) -> None:
        # dict[int, tuple[int, int, int, int]], or the SharedTable while one is in use.
        self.table: Any = {}
        self.shared: Optional[TableStore] = None
        self.capacity = 1
        self.resize(megabytes)

    def resize(self, megabytes: int) -> None:
        """The size cap of the own dict (a shared table is sized by whoever made it)."""
        self.capacity = max(1024, megabytes * 1024 * 1024 // BYTES_PER_ENTRY)
        if self.shared is None:
            self.table.clear()

    def use_shared(self, shared: Optional[TableStore]) -> None:
        """Read and write ``shared`` from now on; None goes back to an own (empty) dict."""
        self.shared = shared
        self.table = {} if shared is None else shared

    def clear(self) -> None:
        self.table.clear()

    def over_capacity(self) -> bool:
        """The own dict has grown past its cap (a shared table never does)."""
        return self.shared is None and len(self.table) > self.capacity

    def new_search(self) -> None:
        """Called before each search: make room if the table has reached its cap."""
        if self.shared is None and len(self.table) >= self.capacity:
            self.table.clear()

    def permille(self) -> int:
        if self.shared is not None:
            return self.shared.permille()
        return min(1000, len(self.table) * 1000 // self.capacity)
