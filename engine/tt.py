"""Transposition table: a dict keyed by the position's Zobrist key (gates mixed in), with a size cap.

An entry is a tuple ``(depth, bound, score, move)``; mate scores are stored relative to the node (see
``score_to_tt``/``score_from_tt`` in the search). When the table is full it is cleared at the start of the
next search (cheap, and a dict of tuples cannot be aged in place without a scan).
"""

from __future__ import annotations

EXACT, LOWER, UPPER = 0, 1, 2
# Rough memory of one entry in CPython: dict slot + int key + 4-tuple + small ints.
BYTES_PER_ENTRY = 200
GATE_MIX = 0x9E3779B97F4A7C15
MASK63 = (1 << 63) - 1  # keys stay below 2**63 so PyPy keeps them unboxed (see engine.tables)


def tt_key(position_hash: int, gates: int) -> int:
    """The table key: the position's Zobrist hash (which leaves gates out) with the gates mixed in."""
    return position_hash ^ (gates * GATE_MIX & MASK63)


class TranspositionTable:
    def __init__(self, megabytes: int = 16) -> None:
        self.table: dict[int, tuple[int, int, int, int]] = {}
        self.capacity = 1
        self.resize(megabytes)

    def resize(self, megabytes: int) -> None:
        self.capacity = max(1024, megabytes * 1024 * 1024 // BYTES_PER_ENTRY)
        self.table.clear()

    def clear(self) -> None:
        self.table.clear()

    def new_search(self) -> None:
        """Called before each search: make room if the table has reached its cap."""
        if len(self.table) >= self.capacity:
            self.table.clear()

    def permille(self) -> int:
        return min(1000, len(self.table) * 1000 // self.capacity)
