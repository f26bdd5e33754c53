"""UCI front end tests: a whole conversation through a real process, stop during go infinite, go movetime
timing, go perft, ponder/ponderhit, and bad input answered with ``info string error`` (in process)."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine import Board
from engine.timeman import plan_time
from engine.uci import UciFrontEnd
from tests.timing import PATIENCE_S, STARTUP_S

REPO = Path(__file__).resolve().parents[2]


class EngineProcess:
    """``python -m engine`` with a reader thread, so every read has a timeout."""

    def __init__(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "engine"], cwd=REPO, env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=1,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_until(self, prefix: str, timeout: float = STARTUP_S) -> list[str]:
        """All lines up to and including the first one starting with ``prefix`` (by default within STARTUP_S:
        the first read waits for the engine process to start)."""
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no {prefix!r} within {timeout} s; got {seen[-5:]}")
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                continue
            seen.append(line)
            if line.startswith(prefix):
                return seen

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send("quit")
                self.proc.wait(timeout=PATIENCE_S)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def engine_process():  # type: ignore[no-untyped-def]
    process = EngineProcess()
    yield process
    process.close()


def bestmove_of(lines: list[str]) -> tuple[str, str | None]:
    parts = lines[-1].split()
    assert parts[0] == "bestmove"
    return parts[1], (parts[3] if len(parts) > 3 and parts[2] == "ponder" else None)


def searched_for(e: EngineProcess, ms: int) -> list[str]:
    """Read the search's lines until an ``info`` line reports ``time`` of at least ``ms`` (the engine's own
    clock: proof that it has searched that long, however busy the machine); fail on a ``bestmove`` before."""
    seen: list[str] = []
    deadline = time.monotonic() + PATIENCE_S + ms / 1000
    while True:
        try:
            line = e.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise AssertionError(f"no info line with time {ms} or more; got {seen[-5:]}") from None
        seen.append(line)
        assert not line.startswith("bestmove"), seen[-5:]
        words = line.split()
        if "time" in words and int(words[words.index("time") + 1]) >= ms:
            return seen


def test_full_conversation(engine_process: EngineProcess) -> None:
    e = engine_process
    e.send("uci")
    lines = e.read_until("uciok")
    assert any(line.startswith("id name ") for line in lines)
    options = "\n".join(lines)
    for name in ("UCI_Variant", "UCI_Chess960", "Hash", "Move Overhead", "Skill Level", "UCI_LimitStrength",
                 "UCI_Elo", "Ponder"):
        assert f"option name {name} type" in options
    assert "var seirawan" in options
    e.send("setoption name UCI_Variant value seirawan")
    e.send("setoption name Hash value 8")
    e.send("isready")
    e.read_until("readyok")
    e.send("ucinewgame")
    e.send("position startpos moves e2e4 d7d5 e4d5 d8d5e")
    e.send("go wtime 10000 btime 10000 winc 100 binc 100")
    lines = e.read_until("bestmove", timeout=10 + PATIENCE_S)  # it may use its 10 s clock
    infos = [line for line in lines if line.startswith("info depth")]
    assert infos, lines
    for word in ("depth", "seldepth", "score", "nodes", "nps", "time", "pv"):
        assert f" {word} " in infos[-1]
    best, ponder = bestmove_of(lines)
    board = Board()
    for text in "e2e4 d7d5 e4d5 d8d5e".split():
        board.push_uci(text)
    board.push_uci(best)
    if ponder:
        board.parse_uci(ponder)
    # Standard chess in the same process.
    e.send("setoption name UCI_Variant value chess")
    e.send("position fen r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    e.send("go depth 3")
    lines = e.read_until("bestmove")
    assert bestmove_of(lines)[0] == "h5f7"
    assert any(" score mate 1 " in line for line in lines)
    # S-House: a drop mates.
    e.send("setoption name UCI_Variant value shouse")
    e.send("position fen 6k1/5ppp/8/8/8/8/5PPP/6K1[Qb] w - - 0 1 moves g1f1 b@e2 f1g1 g8h8")
    e.send("go depth 3")
    lines = e.read_until("bestmove")
    board = Board("6k1/5ppp/8/8/8/8/5PPP/6K1[Qb] w - - 0 1", variant="shouse")
    for text in "g1f1 B@e2 f1g1 g8h8".split():
        board.push_uci(text)
    board.push_uci(bestmove_of(lines)[0])
    assert board.is_checkmate() and any(" score mate 1 " in line for line in lines)
    e.send("quit")
    assert e.proc.wait(timeout=PATIENCE_S) == 0


def test_stop_during_go_infinite_answers_at_once(engine_process: EngineProcess) -> None:
    e = engine_process
    e.send("position startpos")
    e.send("go infinite")
    searched_for(e, 1000)  # a search with a time limit would have answered by now
    e.send("isready")
    lines = e.read_until("readyok", timeout=PATIENCE_S)  # answered while searching
    assert not [line for line in lines if line.startswith("bestmove")], lines
    start = time.monotonic()
    e.send("stop")
    lines = e.read_until("bestmove", timeout=PATIENCE_S)  # an infinite search answers only to stop
    assert time.monotonic() - start < PATIENCE_S
    assert bestmove_of(lines)[0] in {m.uci() for m in Board().legal_moves}


def test_go_movetime_is_respected(engine_process: EngineProcess) -> None:
    e = engine_process
    e.send("position fen reb1k2r/ppppqppp/2nb1n2/4p3/4P3/N1P2N2/PB1PQPPP/RE2KBHR[h] b KQkqc - 3 7")
    e.send("isready")
    e.read_until("readyok")
    start = time.monotonic()
    e.send("go movetime 300")
    lines = e.read_until("bestmove", timeout=PATIENCE_S)
    elapsed = time.monotonic() - start
    assert 0.1 <= elapsed <= PATIENCE_S, elapsed  # it used its time, and stopped (plan_time: exact limits)
    board = Board("reb1k2r/ppppqppp/2nb1n2/4p3/4P3/N1P2N2/PB1PQPPP/RE2KBHR[h] b KQkqc - 3 7")
    board.parse_uci(bestmove_of(lines)[0])


def test_go_perft(engine_process: EngineProcess) -> None:
    e = engine_process
    e.send("position startpos")
    e.send("go perft 2")
    lines = e.read_until("Nodes searched")
    counts = dict(line.split(": ") for line in lines if ": " in line and not line.startswith("Nodes"))
    assert len(counts) == 28 and counts["g1f3h"] == "28"
    assert lines[-1] == "Nodes searched: 784"


def test_ponder_then_ponderhit(engine_process: EngineProcess) -> None:
    e = engine_process
    e.send("setoption name Ponder value true")
    e.send("position startpos moves e2e4 e7e5")
    e.send("go ponder wtime 2000 btime 2000")
    searched_for(e, 300)  # with 2 s on its clock, a search that was not pondering would have answered by now
    e.send("ponderhit")
    lines = e.read_until("bestmove", timeout=PATIENCE_S)
    board = Board()
    for text in "e2e4 e7e5".split():
        board.push_uci(text)
    board.parse_uci(bestmove_of(lines)[0])


def test_little_time_still_moves_quickly(engine_process: EngineProcess) -> None:
    e = engine_process
    e.send("position startpos moves g1f3h")
    e.send("isready")
    e.read_until("readyok")
    start = time.monotonic()
    e.send("go wtime 80 btime 80")
    lines = e.read_until("bestmove", timeout=PATIENCE_S)  # without a time limit it would not answer
    assert time.monotonic() - start < PATIENCE_S
    assert bestmove_of(lines)[0] != "(none)"


# ---------------------------------------------------------------- in process


def run_commands(*commands: str) -> list[str]:
    out: list[str] = []
    engine = UciFrontEnd(out.append)
    for command in commands:
        assert engine.handle(command)
        engine.wait()
    engine.stop_search()
    return out


@pytest.mark.parametrize(
    "command, fragment",
    [
        ("flurb", "unknown command"),
        ("position fen 8/8/8/8 w", "invalid FEN"),
        ("position startpos moves e2e5", "illegal move 'e2e5'"),
        ("position sideways", "expected startpos or fen"),
        ("go depth x", "expects an integer"),
        ("go sideways 3", "unknown parameter"),
        ("setoption name Hash value lots", "expected an integer"),
        ("setoption name UCI_Variant value crazyhouse", "option UCI_Variant: expected seirawan, "),
        ("setoption name Frobnicate value 1", "unknown option"),
        ("setoption", "expected 'setoption name"),
    ],
)
def test_bad_input_is_reported_not_fatal(command: str, fragment: str) -> None:
    out = run_commands(command, "position startpos", "go depth 1")
    assert out[0].startswith("info string error: ") and fragment in out[0], out[0]
    assert out[-1].startswith("bestmove ") and out[-1] != "bestmove (none)"


def test_illegal_move_keeps_the_moves_before_it() -> None:
    out = run_commands("position startpos moves e2e4 e7e5 e1e3", "d")
    assert "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR[EHeh] w" in out[-1]


def test_bestmove_none_in_mate() -> None:
    out = run_commands(
        "position fen r1bqkbn1/pppppp2/8/6p1/Q2nP3/PBP5/1P1P1PP1/RNB1K2r[EHeh] w cdfgBCQq - 1 10", "go depth 2")
    assert out[-1] == "bestmove (none)"


def test_bench_prints_nodes_and_speed() -> None:
    out = run_commands("bench 2")
    assert any(line.startswith("Nodes searched  : ") for line in out)
    assert int(out[-1].split(":")[1]) > 0


def test_skill_level_plays_legal_moves() -> None:
    out = run_commands("setoption name Skill Level value 0", "position startpos", "go depth 3")
    assert out[-1].split()[1] in {m.uci() for m in Board().legal_moves}


def test_incremental_position_commands_give_the_same_board() -> None:
    out: list[str] = []
    engine = UciFrontEnd(out.append)
    engine.handle("position startpos moves e2e4 e7e5")
    engine.handle("position startpos moves e2e4 e7e5 g1f3h b8c6e")
    engine.handle("d")
    fresh = Board()
    for text in "e2e4 e7e5 g1f3h b8c6e".split():
        fresh.push_uci(text)
    assert out[-1] == f"info string fen {fresh.fen()}"
    engine.handle("position startpos moves d2d4")
    engine.handle("d")
    assert "/PPP1PPPP/" in out[-1]


# ---------------------------------------------------------------- time manager


@pytest.mark.parametrize("left, inc, overhead", [(30000, 300, 50), (1000, 0, 50), (200, 100, 100), (60, 0, 50),
                                                 (5, 0, 0), (600000, 0, 30)])
def test_time_plan_never_exceeds_time_left(left: int, inc: int, overhead: int) -> None:
    soft, hard = plan_time(left, inc, None, None, overhead, 20)
    assert soft is not None and hard is not None
    assert 0 < soft <= hard
    assert hard <= max(0.005, (left - overhead) / 1000)


def test_time_plan_with_moves_to_go_and_movetime() -> None:
    soft, hard = plan_time(10000, 0, 1, None, 50)
    assert hard is not None and hard <= 9.95
    assert plan_time(None, 0, None, 300, 50) == (0.25, 0.25)
    assert plan_time(None) == (None, None)


def test_clock_of_the_wrong_side_only_still_limits_the_search() -> None:
    start = time.monotonic()
    out = run_commands("position startpos moves e2e4", "go wtime 500")
    assert time.monotonic() - start < PATIENCE_S
    assert out[-1].startswith("bestmove ")


def test_chess960_and_standard_chess_positions_give_legal_moves() -> None:
    fen = "qbbrnkrn/pppppppp/8/8/8/8/PPPPPPPP/QBBRNKRN[HEhe] w ABCDEFGHabcdefgh - 0 1"
    out = run_commands("setoption name UCI_Chess960 value true", f"position fen {fen} moves g2g3 g7g6",
                       "go depth 3")
    board = Board(fen, chess960=True)
    board.push_uci("g2g3")
    board.push_uci("g7g6")
    board.parse_uci(out[-1].split()[1])
    out = run_commands("setoption name UCI_Variant value chess", "position startpos moves e2e4", "go nodes 500")
    board = Board(variant="chess")
    board.push_uci("e2e4")
    board.parse_uci(out[-1].split()[1])


def test_main_runs_a_command_from_the_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    from engine.uci import main

    assert main(["bench", "1"]) == 0
    assert "Nodes searched" in capsys.readouterr().out


def _search_lines(out: list[str]) -> list[str]:
    """The search's info and bestmove lines without their timing fields (time, nps)."""
    lines = []
    for line in out:
        if line.startswith("info depth") or line.startswith("bestmove"):
            words = line.split()
            for field in ("time", "nps"):
                if field in words:
                    at = words.index(field)
                    del words[at:at + 2]
            lines.append(" ".join(words))
    return lines


@pytest.mark.parametrize("switch", [
    ("setoption name UCI_Variant value shouse", "setoption name UCI_Variant value seirawan"),
    ("setoption name Use NNUE value false", "setoption name Use NNUE value true"),
])
def test_a_change_of_rules_or_evaluation_forgets_the_earlier_searches(switch: tuple[str, str]) -> None:
    """Scores in the transposition table are of the rules and evaluation that searched them: after a change
    of variant or evaluation the engine searches as a fresh one would (an S-House search's drop scores once
    made an S-chess start position +884)."""
    before, after = switch
    fresh = run_commands(after, "position startpos", "go nodes 3000")
    reused = run_commands(before, "position startpos", "go nodes 3000", after, "position startpos", "go nodes 3000")
    assert _search_lines(reused)[-len(_search_lines(fresh)):] == _search_lines(fresh)
