"""``python -m tools.match`` as a user runs it: a real process, real engines, its output and exit status."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List

import pytest

from tests.match.pgn_reader import read_games
from tests.timing import PATIENCE_S

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


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc")
def test_ctrl_c_stops_the_match_prints_the_table_and_kills_the_engines(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    slow = f"{FAKE} --fault slow --delay 30 --pid-file {pids}"
    environment = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    process = subprocess.Popen(
        [sys.executable, "-m", "tools.match", "--engine1", slow, "--engine2", slow, "--depth", "1", "--games", "4"],
        cwd=REPO,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 20
    # wait until the worker's two engines are up (the two probe engines come first)
    while time.monotonic() < deadline and len(pids.read_text().split() if pids.exists() else []) < 4:
        time.sleep(0.05)
    time.sleep(0.3)
    process.send_signal(signal.SIGINT)
    # generous on a busy machine; a runner that ignored Ctrl-C would play 4 games of 30 s engine delays
    stdout, _ = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "Match interrupted after 0 of 4 games." in stdout
    deadline = time.monotonic() + PATIENCE_S  # killed engines may take a moment to be reaped
    while [pid for pid in map(int, pids.read_text().split()) if _running(pid)] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in map(int, pids.read_text().split()) if _running(pid)] == []
