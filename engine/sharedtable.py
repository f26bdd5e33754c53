"""The transposition table of Lazy SMP in shared memory, with the stop flag the helpers poll.

The table is a flat array of 64-bit words in one ``multiprocessing.shared_memory`` block, in the layout of the
single-thread table (:mod:`engine.tt`: two words per slot, the packed data and ``key ^ data``, buckets of
four, replacement by depth and age). A reader accepts a slot only when the second word XOR the first gives its
key, so a slot torn by two processes writing it at once reads as a miss, never as another key's data
(the XOR check of Hyatt and Mann's lockless hashing); there are no locks. The first 64 bytes of the block
hold the stop flag.

It serves the search as :class:`engine.tt.SharedWords` and :class:`engine.search.StopSignal`; it imports
only :mod:`engine.tt` (for the layout), nothing of the search (:mod:`engine.smp` drives the helpers).
"""

from __future__ import annotations

from multiprocessing.shared_memory import SharedMemory
from typing import Optional

from .tt import SLOT_BYTES, slots_for

HEADER_BYTES = 64  # byte 0: the stop flag


class SharedTable:
    """The shared memory block of Lazy SMP: a 64-byte header (byte 0: the stop flag) and the words of a
    transposition table in the layout of :mod:`engine.tt` (``slots`` slots of two words), which each process's
    :class:`engine.tt.TranspositionTable` probes and stores through ``use_shared``.

    ``name`` attaches to the block another process created; the creator owns it (``close(unlink=True)``)."""

    def __init__(self, megabytes: int, name: Optional[str] = None) -> None:
        slots = slots_for(megabytes)
        self.slots = slots
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

    def clear(self) -> None:
        """Empty every slot."""
        self.words.cast("B")[:] = bytes(self.slots * SLOT_BYTES)

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
