"""Lazy SMP for the ``Threads`` UCI option: helper processes search the same root as the main search and share
its transposition table through shared memory.

Python threads cannot run the search in parallel (the GIL), so the helpers are processes (``spawn``: no
fork of a process that runs threads). Each helper has its own :class:`~engine.search.Searcher`; they differ
from the main search only in the depth their iterative deepening starts at, so that they run ahead of it
and fill the shared table with results it then finds. Only the main search decides the move: when it
stops (time, ``stop``, node or depth limit) it raises the shared stop flag, the helpers abandon their search
within a few hundred nodes, and each reports that it is idle again before the next ``go``.

The table (:class:`SharedTable`) is a flat array of 64-bit words in one ``multiprocessing.shared_memory``
block, two words per slot: the packed entry and ``key ^ entry``. A reader accepts a slot only when the
second word XOR the first gives its key, so an entry torn by two processes writing the same slot at once
reads as a miss, never as a wrong entry (the XOR check of Hyatt and Mann's lockless hashing); there are no
locks. The first 64 bytes of the block hold the stop flag.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from multiprocessing.connection import Connection, wait
from multiprocessing.shared_memory import SharedMemory
from typing import Any, Optional

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


def helper_depth(index: int) -> int:
    """The depth helper ``index`` (1, 2, ...) starts iterative deepening at: 2, 3, 2, 3, ... (the main
    search starts at 1)."""
    return 2 + (index - 1) % 2


def _exit_with(sentinel: int) -> None:
    wait([sentinel])
    os._exit(0)


def _helper_main(table_name: str, megabytes: int, index: int, conn: Connection) -> None:
    """A helper process: wait for a root, search it until the stop flag rises, report idle, repeat. Ends on
    ``None`` or when the pipe closes (the engine process has gone)."""
    from .board import Board
    from .search import Searcher, SearchLimits

    parent = multiprocessing.parent_process()
    if parent is not None:
        # The engine process may end without a word (killed): a helper deep in a search would not notice the
        # closed pipe, so a thread waits for the parent's end and ends this process with it.
        threading.Thread(target=_exit_with, args=(parent.sentinel,), daemon=True).start()
    table = SharedTable(megabytes, name=table_name)
    searcher = Searcher(1)
    searcher.use_shared_table(table)
    searcher.start_depth = helper_depth(index)
    searcher.stop_signal = table
    try:
        while True:
            try:
                job = conn.recv()
            except (EOFError, OSError):
                break
            if job is None:
                break
            variant, chess960, fen, moves, skill = job
            board = Board(fen, variant=variant, chess960=chess960)
            for text in moves:
                board.push_uci(text)
            searcher.skill_level = skill
            try:
                searcher.search(board, SearchLimits(infinite=True))
            except Exception:  # a helper must never take the engine down; the main search decides anyway
                pass
            conn.send("idle")
    finally:
        table.close()


class HelperPool:
    """``threads - 1`` helper processes around a shared table of ``megabytes``."""

    def __init__(self, threads: int, megabytes: int) -> None:
        self.table = SharedTable(megabytes)
        self.megabytes = megabytes
        context = multiprocessing.get_context("spawn")
        self.connections: list[Connection] = []
        self.processes: list[Any] = []
        self.busy = False
        for index in range(1, threads):
            parent, child = context.Pipe()
            process = context.Process(target=_helper_main, args=(self.table.name, megabytes, index, child),
                                      name=f"schess-engine helper {index}", daemon=True)
            process.start()
            child.close()
            self.connections.append(parent)
            self.processes.append(process)

    @property
    def threads(self) -> int:
        return len(self.processes) + 1

    def start(self, variant: str, chess960: bool, fen: Optional[str], moves: list[str], skill: int) -> None:
        """Let every helper search this root (the position as ``position`` set it up)."""
        self.wait_idle()
        self.table.set_stop(False)
        for conn in self.connections:
            try:
                conn.send((variant, chess960, fen, list(moves), skill))
            except (BrokenPipeError, OSError):  # a helper that died: the others and the main search go on
                pass
        self.busy = True

    def stop(self) -> None:
        """Raise the stop flag and wait until every helper has left its search."""
        self.table.set_stop(True)
        self.wait_idle()

    def wait_idle(self) -> None:
        if not self.busy:
            return
        for conn, process in zip(self.connections, self.processes):
            try:
                while process.is_alive():
                    if conn.poll(0.5):
                        conn.recv()
                        break
            except (EOFError, OSError):  # the helper died meanwhile
                pass
        self.busy = False

    def close(self) -> None:
        """Stop the helpers, end their processes and free the shared memory."""
        self.stop()
        for conn in self.connections:
            try:
                conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        for process in self.processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
                process.join()
        for conn in self.connections:
            conn.close()
        self.table.close(unlink=True)
