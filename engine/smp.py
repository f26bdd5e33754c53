"""Lazy SMP for the ``Threads`` UCI option: helper processes search the same root as the main search and share
its transposition table through shared memory.

Python threads cannot run the search in parallel (the GIL), so the helpers are processes (``spawn``: no
fork of a process that runs threads). Each helper has its own :class:`~engine.search.Searcher`; they differ
from the main search only in the depth their iterative deepening starts at, so that they run ahead of it
and fill the shared table with results it then finds. Only the main search decides the move: when it
stops (time, ``stop``, node or depth limit) it raises the shared stop flag, the helpers abandon their search
within a few hundred nodes, and each reports that it is idle again before the next ``go``.

The table and the stop flag live in one shared memory block (:class:`engine.sharedtable.SharedTable`, a
module of its own that knows nothing of the search). The imports run one way: ``tt`` <- ``search`` <-
``smp`` <- ``uci``.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from multiprocessing.connection import Connection, wait
from typing import Any, Optional

from .board import Board
from .nnue import NetError
from .nnue import load as load_net
from .search import Searcher, SearchLimits
from .sharedtable import SharedTable


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
    loaded_net: Optional[str] = None
    try:
        while True:
            try:
                job = conn.recv()
            except (EOFError, OSError):
                break
            if job is None:
                break
            variant, chess960, fen, moves, skill, net = job
            if net != loaded_net:  # the main search's evaluation: a net file, or None for the hand-made one
                loaded_net = net
                try:
                    if net is not None:
                        load_net(net)
                except NetError:  # the main process loaded it; should it have gone, the hand-made evaluation
                    loaded_net = None
                searcher.use_net(loaded_net is not None)
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
        searcher.use_shared_table(None)  # the search lets go of the block's words before they are released
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

    def start(self, variant: str, chess960: bool, fen: Optional[str], moves: list[str], skill: int,
              net: Optional[str] = None) -> None:
        """Let every helper search this root (the position as ``position`` set it up), evaluating with the
        net file ``net`` (None: the hand-made evaluation)."""
        self.wait_idle()
        self.table.set_stop(False)
        for conn in self.connections:
            try:
                conn.send((variant, chess960, fen, list(moves), skill, net))
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
        for conn, process in zip(self.connections, self.processes, strict=True):
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
