"""``python -m tools.match`` as a user runs it: a real process, real engines, its output and exit status."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest

from tests.match.pgn_reader import read_games
from tests.timing import PATIENCE_S, STARTUP_S, wait_until

REPO = Path(__file__).resolve().parents[2]
FAIRY = "/usr/games/fairy-stockfish"
FAKE = f"{sys.executable} {Path(__file__).parent / 'fake_engine.py'}"


def run_cli(arguments: List[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-m", "tools.match", *arguments],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def table_row(output: str, name: str) -> List[str]:
    """The fields of an engine's row in the final table (the rows follow the dashed rule)."""
    lines = output.splitlines()
    rule = next(index for index, line in enumerate(lines) if line.startswith("----"))
    row = next(line for line in lines[rule + 1 :] if line.startswith(name + " "))
    return row[len(name) :].split()


def test_help_lists_the_time_controls() -> None:
    completed = run_cli(["--help"])
    assert completed.returncode == 0
    for option in ("--tc", "--movetime", "--depth", "--nodes", "--openings", "--concurrency", "--pgn"):
        assert option in completed.stdout


def test_an_engine_that_cannot_start_exits_with_status_2() -> None:
    completed = run_cli(["--engine1", "/nonexistent/engine", "--engine2", FAKE, "--depth", "1"])
    assert completed.returncode == 2
    assert "engine1: cannot start" in completed.stderr


@pytest.mark.skipif(shutil.which(FAIRY) is None, reason="Fairy-Stockfish not installed")
def test_fairy_stockfish_match_prints_the_table_and_writes_the_pgn(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    completed = run_cli([
        "--engine1", FAIRY, "--engine1-option", "Skill Level=0", "--engine1-name", "Weak",
        "--engine2", FAIRY, "--engine2-option", "Skill Level=5", "--engine2-name", "Strong",
        "--games", "2", "--depth", "1", "--max-plies", "80", "--pgn", str(pgn),
    ])  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    assert sum(line.startswith("game ") for line in lines) == 2
    assert table_row(completed.stdout, "Weak")[0] == "2"  # games
    assert any(line.startswith("Elo difference (Weak - Strong): ") for line in lines)
    games = read_games(pgn.read_text())
    assert [tags["White"] for tags, _ in games] == ["Weak", "Strong"]


def test_illegal_moves_show_in_the_table() -> None:
    completed = run_cli([
        "--engine1", FAKE + " --fault illegal --after 1", "--engine1-name", "Cheat",
        "--engine2", FAKE, "--engine2-name", "Honest", "--games", "2", "--depth", "1", "--quiet",
    ])  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    # Games W D L Score Illegal Time Crash Hang
    assert table_row(completed.stdout, "Cheat") == ["2", "0", "0", "2", "0.0%", "2", "0", "0", "0"]
    assert table_row(completed.stdout, "Honest") == ["2", "2", "0", "0", "100.0%", "0", "0", "0", "0"]


def _running(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as status:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in status)
    except FileNotFoundError:
        return False


def _started_with_sigint(command: List[str], environment: Dict[str, str], ignored: bool) -> subprocess.Popen[str]:
    """Start ``command`` with SIGINT at its default action, as a shell does for a command in a terminal, or
    ignored, as a non-interactive shell starts what it runs in the background (``python -m tools.match ... &``
    in a script).

    A process inherits an ignored SIGINT, and Python then leaves it ignored unless the program sets a handler.
    A handled signal is reset to the default at exec, so a handler here gives the child the default.
    """
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN if ignored else signal.default_int_handler)
    try:
        return subprocess.Popen(
            command, cwd=REPO, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    finally:
        signal.signal(signal.SIGINT, previous)


def _lines(path: Path) -> List[str]:
    return path.read_text().split() if path.exists() else []


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc")
@pytest.mark.parametrize("stop, started_in_background", [
    (signal.SIGINT, False),  # Ctrl-C in a terminal
    (signal.SIGTERM, True),  # kill PID
    (signal.SIGINT, True),  # kill -INT PID of a match a script started in the background
], ids=["ctrl-c", "kill", "kill-int-in-background"])
def test_ctrl_c_or_kill_stops_the_match_prints_the_table_and_kills_the_engines(
        tmp_path: Path, stop: signal.Signals, started_in_background: bool) -> None:
    pids, goes = tmp_path / "pids", tmp_path / "goes"
    slow = f"{FAKE} --fault slow --delay 30 --pid-file {pids} --go-file {goes}"
    environment = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    process = _started_with_sigint(
        [sys.executable, "-m", "tools.match", "--engine1", slow, "--engine2", slow, "--depth", "1", "--games", "4"],
        environment, ignored=started_in_background,
    )
    try:
        # Ctrl-C once the first game is under way: an engine has its first go (and thinks for 30 s). The bound
        # only rules out a runner that never gets there (five processes start: ~2 s idle, ~10 s under load).
        wait_until(lambda: _lines(goes) or process.poll() is not None, "an engine asked to move", STARTUP_S)
        assert _lines(goes), f"no engine was asked to move; runner exit status {process.poll()}"
        process.send_signal(stop)
        # a runner that ignored the signal would wait for the engine's 30 s think, then play on
        stdout, stderr = process.communicate(timeout=PATIENCE_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, stderr
    assert "Match interrupted after 0 of 4 games." in stdout
    assert len(_lines(pids)) >= 4  # two probed, then the worker's pair

    def running() -> list[int]:
        return [pid for pid in map(int, _lines(pids)) if _running(pid)]

    # killed engines may take a moment to be reaped
    wait_until(lambda: not running(), lambda: f"every engine gone (still running: {running()})", PATIENCE_S)
