"""The transposition table of Lazy SMP in shared memory, with the stop flag the helpers poll.

The table is a flat array of 64-bit words in one ``multiprocessing.shared_memory`` block, two words per slot:
the packed entry and ``key ^ entry``. A reader accepts a slot only when the second word XOR the first gives
its key, so an entry torn by two processes writing the same slot at once reads as a miss, never as a wrong
entry (the XOR check of Hyatt and Mann's lockless hashing); there are no locks. The first 64 bytes of the
block hold the stop flag.

It serves the search as a :class:`engine.tt.TableStore` and a :class:`engine.search.StopSignal` without
importing either: nothing here knows the search (:mod:`engine.smp` drives the helpers).
"""

from __future__ import annotations

from multiprocessing.shared_memory import SharedMemory
from typing import Optional

HEADER_BYTES = 64  # byte 0: the stop flag
SLOT_BYTES = 16  # two signed 64-bit words
_MOVE_BITS = 20
_SCORE_OFFSET = 1 << 15  # scores are within +-32000


class SharedTable:
    """A transposition table in shared memory with the part of the dict interface the search uses:
    ``get(key)`` (an entry ``(depth, bound, score, move)`` or None) and ``table[key] = entry``.

    Fixed size (a power of two of slots, from ``megabytes``), always-replace. ``name`` attaches to the block
    another process created; the creator owns it (``close(unlink=True)``)."""

    def __init__(self, megabytes: int, name: Optional[str] = None) -> None:
        slots = 1024
        while slots * 2 * SLOT_BYTES <= megabytes * 1024 * 1024:
            slots *= 2
        self.slots = slots
        self.mask = slots - 1
        size = HEADER_BYTES + slots * SLOT_BYTES
        self.owner = name is None
        self.memory = SharedMemory(name=name, create=name is None, size=size if name is None else 0)
        self.name = self.memory.name
        # An attaching helper registers the block again with the resource tracker it shares with the engine
        # process (spawned children use their parent's): a set, so the owner's unlink still unregisters it.
        buf = self.memory.buf
        assert buf is not None
        self.control = buf[:HEADER_BYTES]
        self.words = buf[HEADER_BYTES:HEADER_BYTES + slots * SLOT_BYTES].cast("q")

    def get(self, key: int) -> Optional[tuple[int, int, int, int]]:
        index = (key & self.mask) << 1
        words = self.words
        data = words[index]
        if data == 0 or words[index + 1] ^ data != key:
            return None
        return (data >> 38, data >> 36 & 3, (data >> _MOVE_BITS & 0xFFFF) - _SCORE_OFFSET, data & 0xFFFFF)

    def __setitem__(self, key: int, entry: tuple[int, int, int, int]) -> None:
        depth, bound, score, move = entry
        data = (move | (score + _SCORE_OFFSET) << _MOVE_BITS | bound << 36 | (depth if depth > 0 else 0) << 38)
        index = (key & self.mask) << 1
        words = self.words
        words[index] = data
        words[index + 1] = key ^ data

    def clear(self) -> None:
        """Empty every slot (``ucinewgame``, ``Clear Hash``)."""
        self.words.cast("B")[:] = bytes(self.slots * SLOT_BYTES)

    def permille(self) -> int:
        """How full the table is, from its first 1000 slots (UCI ``hashfull``)."""
        words = self.words
        return sum(1 for i in range(0, 2000, 2) if words[i])

    @property
    def stopped(self) -> bool:
        return self.control[0] != 0

    def set_stop(self, value: bool) -> None:
        self.control[0] = 1 if value else 0

    def close(self, unlink: bool = False) -> None:
        self.words.release()
        self.control.release()
        self.memory.close()
        if unlink:
            self.memory.unlink()
