"""Lazy SMP (the Threads option): the shared transposition table, the helper processes, and the UCI
conversation with Threads 2 (legal moves, stop, ponderhit, helpers gone after quit)."""

from __future__ import annotations

import multiprocessing
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

from engine import Board
from engine.search import Searcher, SearchLimits
from engine.sharedtable import SharedTable
from engine.smp import HelperPool, helper_depth
from engine.tt import EXACT, LOWER, UPPER, TranspositionTable, slots_for, tt_key
from engine.uci import UciFrontEnd
from tests.timing import GAME_S, PATIENCE_S


def _over(shared: SharedTable) -> TranspositionTable:
    table = TranspositionTable(1)
    table.use_shared(shared)
    return table


def test_a_table_over_shared_words_returns_what_was_stored_and_misses_other_keys() -> None:
    shared = SharedTable(1)
    table = _over(shared)
    try:
        assert table.slots == shared.slots == slots_for(1)
        key = tt_key(Board().hash, Board().gates)
        assert table.stored(key) is None
        table.store(key, 12, LOWER, -30950, 0x5ABCD)
        assert table.stored(key) == (12, LOWER, -30950, 0x5ABCD)
        other = key ^ (table.slots << 3)  # the same bucket
        assert other & table.bucket_mask == key & table.bucket_mask
        assert table.stored(other) is None
        table.store(other, 3, UPPER, 31000, 7)
        assert table.stored(key) == (12, LOWER, -30950, 0x5ABCD) and table.stored(other) == (3, UPPER, 31000, 7)
        table.clear()
        assert table.stored(other) is None and table.stored(key) is None
    finally:
        table.use_shared(None)
        shared.close(unlink=True)


def test_a_torn_slot_reads_as_a_miss() -> None:
    """Two processes writing one slot at once can leave one word of each: the key check rejects that."""
    shared = SharedTable(1)
    table = _over(shared)
    try:
        key_a = 0x1234567 << 20 | 5
        table.store(key_a, 5, EXACT, 10, 99)
        index = (key_a & table.bucket_mask) << 3  # the first slot of the bucket: the one key_a went to
        data_of_a = shared.words[index]
        assert shared.words[index + 1] ^ data_of_a == key_a
        shared.words[index] = data_of_a ^ (1 << 40)  # another process's data, key_a's check word
        assert table.stored(key_a) is None
    finally:
        table.use_shared(None)
        shared.close(unlink=True)


def _write_in_child(name: str, key: int, conn: Connection) -> None:
    shared = SharedTable(1, name=name)
    table = _over(shared)
    table.store(key, 7, EXACT, 123, 4567)
    table.use_shared(None)
    shared.close()
    conn.send("done")


def test_another_process_sees_the_stored_data_and_the_stop_flag() -> None:
    shared = SharedTable(1)
    table = _over(shared)
    try:
        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe()
        process = context.Process(target=_write_in_child, args=(shared.name, 987654321, child))
        process.start()
        assert parent.recv() == "done"
        process.join()
        assert table.stored(987654321) == (7, EXACT, 123, 4567)
        assert not shared.stopped
        shared.set_stop(True)
        attached = SharedTable(1, name=shared.name)
        assert attached.stopped
        attached.close()
    finally:
        table.use_shared(None)
        shared.close(unlink=True)


def test_a_stopped_signal_ends_a_helper_search_and_a_shared_table_search_is_legal() -> None:
    table = SharedTable(1)
    searcher = Searcher(1)
    helper = Searcher(1)
    try:
        searcher.use_shared_table(table)
        board = Board()
        result = searcher.search(board, SearchLimits(depth=4))
        assert result.best in board.generate_legal() and result.depth == 4
        helper.use_shared_table(table)
        helper.stop_signal = table
        helper.start_depth = helper_depth(1)
        table.set_stop(True)
        stopped = helper.search(board, SearchLimits(infinite=True))  # would never end without the flag
        assert stopped.best in board.generate_legal()
        assert board.fen() == Board().fen()
    finally:
        searcher.use_shared_table(None)
        helper.use_shared_table(None)
        table.close(unlink=True)


def test_helpers_start_deeper_than_the_main_search() -> None:
    assert [helper_depth(i) for i in (1, 2, 3, 4)] == [2, 3, 2, 3]


class Session:
    """An in-process UCI session collecting its output."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.bestmove = threading.Event()
        self.engine = UciFrontEnd(self._write)

    def _write(self, line: str) -> None:
        self.lines.append(line)
        if line.startswith("bestmove"):
            self.bestmove.set()

    def send(self, line: str) -> None:
        self.engine.handle(line)

    def wait_bestmove(self) -> str:
        # a depth 3-5 search with helper processes, or a stop answered: seconds, but two minutes (GAME_S's
        # bound for the bot's replies) on a busy machine; a hang is what fails
        assert self.bestmove.wait(GAME_S), self.lines[-5:]
        self.bestmove.clear()
        return [line for line in self.lines if line.startswith("bestmove")][-1]


def test_threads_two_plays_legal_moves_stops_and_leaves_no_helper_behind() -> None:
    session = Session()
    session.send("uci")
    assert "option name Threads type spin default 1 min 1 max 64" in session.lines
    session.send("setoption name Threads value 2")
    pool = session.engine.search_thread.pool
    assert isinstance(pool, HelperPool) and pool.threads == 2
    assert all(process.is_alive() for process in pool.processes)
    session.send("position startpos moves g1f3h g8f6e")
    session.send("go depth 5")
    move = session.wait_bestmove().split()[1]
    board = Board()
    board.push_uci("g1f3h")
    board.push_uci("g8f6e")
    board.parse_uci(move)  # legal, or IllegalMoveError
    # stop during go infinite, and pondering with ponderhit, both still answer.
    session.send("go infinite")
    session.send("stop")
    session.wait_bestmove()
    session.send("go ponder wtime 2000 btime 2000")
    session.send("ponderhit")
    session.wait_bestmove()
    assert not [line for line in session.lines if "error" in line]
    session.send("quit")  # handle() returns False; run() then closes the helpers
    session.engine.close_helpers()
    assert session.engine.search_thread.pool is None
    assert not any(process.is_alive() for process in pool.processes)


def test_threads_back_to_one_ends_the_helpers_and_bad_values_are_refused() -> None:
    session = Session()
    session.send("setoption name Threads value 3")
    pool = session.engine.search_thread.pool
    assert pool is not None and len(pool.processes) == 2
    session.send("setoption name Threads value 1")
    assert session.engine.search_thread.pool is None and not any(p.is_alive() for p in pool.processes)
    assert session.engine.searcher.tt.shared is None
    session.send("setoption name Threads value 0")
    session.send("setoption name Threads value two")
    errors = [line for line in session.lines if line.startswith("info string error")]
    assert len(errors) == 2 and all("Threads" in line for line in errors)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the process tree from /proc (Linux)")
def test_the_bots_engine_options_start_the_helpers_of_the_bundled_engine() -> None:
    """``engine.options: {Threads: 2}`` in config.yml reaches the bundled engine: its process gets a helper."""
    from bot.app.run import default_engine_factory
    from bot.config import settings_from_dict
    from bot.engines.uci import UciEngine

    settings = settings_from_dict({"engine": {"options": {"Threads": 2}}})
    engine = default_engine_factory(settings)("test")
    assert isinstance(engine, UciEngine)
    engine.start()
    try:
        assert engine.supports("Threads")
        process = engine.process._process
        assert process is not None
        pid = process.pid
        # A child that was just forked has no command line until it has exec'd: look again until each has one.
        for _ in range(int(PATIENCE_S / 0.1)):
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            commands = [Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ") for child in children]
            if commands and all(commands):
                break
            time.sleep(0.1)
        helpers = [c for c in commands if b"multiprocessing.spawn" in c and b"resource_tracker" not in c]
        assert len(helpers) == 1, commands
    finally:
        engine.close()


def test_a_dead_helper_does_not_stop_the_engine_from_answering() -> None:
    session = Session()
    session.send("setoption name Threads value 2")
    pool = session.engine.search_thread.pool
    assert pool is not None
    pool.processes[0].kill()
    pool.processes[0].join()
    session.send("position startpos")
    session.send("go depth 3")
    Board().parse_uci(session.wait_bestmove().split()[1])
    assert not [line for line in session.lines if "error" in line]
    session.engine.close_helpers()
