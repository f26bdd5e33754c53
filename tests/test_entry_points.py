"""Issue 27, finding 7: ``--help`` on every entry point and ``--version`` on both commands, each answered
with the right exit code instead of being taken for a command or a file name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import __version__
from engine.uci import bench_report

REPO = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
               COLUMNS="200")  # argparse wraps at the terminal's width
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=60, env=env,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("command, first_line", [
    (["-m", "engine", "--help"], "usage: schess-engine [COMMAND ...]"),
    (["-m", "bot.health", "--help"], "usage: python -m bot.health HEARTBEAT_FILE [MAX_AGE_S]"),
    (["-m", "bot.loopback", "--help"], "usage: python -m bot.loopback [-h] [--dialect {pychess,lichess}]"),
    (["-m", "bot", "--help"], "usage: schess-bot [-h] [--version] [--config PATH] [--check]"),
    (["-m", "bot", "init", "--help"], "usage: schess-bot init [-h] [--server {lichess,pychess}] [path]"),
])
def test_every_entry_point_answers_help(command: list[str], first_line: str) -> None:
    completed = run(*command)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith(first_line)
    assert "info string error" not in completed.stdout and "no heartbeat file" not in completed.stdout


def test_loopback_help_shows_defaults_and_no_rest_markup() -> None:
    out = " ".join(run("-m", "bot.loopback", "--help").stdout.split())
    assert "``" not in out and "(default: pychess)" in out and "(default: loopback-token)" in out


@pytest.mark.parametrize("command, start", [
    (["-m", "engine", "--version"], f"schess-engine {__version__} ("),
    (["-m", "bot", "--version"], f"schess-bot {__version__} (engine: "),
])
def test_both_commands_answer_version_with_build_and_python(command: list[str], start: str) -> None:
    completed = run(*command)
    assert completed.returncode == 0
    line = completed.stdout.strip()
    assert line.startswith(start) and ("pure Python" in line or "compiled" in line) and "python: " in line


def test_an_unknown_engine_option_exits_2_with_one_line() -> None:
    completed = run("-m", "engine", "--frobnicate")
    assert completed.returncode == 2
    assert completed.stderr.strip() == "schess-engine: unknown option '--frobnicate' (options: --help, --version)"


def test_health_check_refuses_an_option_for_a_file_name() -> None:
    completed = run("-m", "bot.health", "--max-age", "60")
    assert completed.returncode == 2 and "usage: python -m bot.health" in completed.stderr


def test_bench_says_why_a_position_has_no_move() -> None:
    lines: list[str] = []
    bench_report(1, lines.append)
    empty = [line for line in lines if "bestmove (none)" in line]
    assert empty and all(line.endswith("(checkmate: no legal move)") for line in empty)
