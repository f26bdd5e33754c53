"""Issue 27, finding 7: ``--help`` on every entry point and ``--version`` on both commands, each answered
with the right exit code instead of being taken for a command or a file name."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

import pytest
import requests

from engine import __version__
from engine.uci import bench_report
from tests.timing import PATIENCE_S, STARTUP_S

REPO = Path(__file__).resolve().parents[1]


def environment() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
                COLUMNS="200")  # argparse wraps at the terminal's width


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=STARTUP_S, env=environment(),
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("command, first_line", [
    (["-m", "engine", "--help"], "usage: schess-engine [COMMAND ...]"),
    (["-m", "bot.health", "--help"], "usage: python -m bot.health HEARTBEAT_FILE|http://HOST:PORT [MAX_AGE_S]"),
    (["-m", "bot.loopback", "--help"], "usage: python -m bot.loopback [-h] [--dialect {lichess,pychess}]"),
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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs 127.0.0.2 on the loopback interface")
@pytest.mark.parametrize("options, url_host, on_every_interface", [
    ([], "127.0.0.1", False),
    (["--host", "0.0.0.0"], "127.0.0.1", True),
])
def test_loopback_listens_on_127_0_0_1_unless_host_says_otherwise(options: list[str], url_host: str,
                                                                   on_every_interface: bool) -> None:
    """``--host`` (issue 28: bots in containers reach a server on the host): 127.0.0.2, another address of
    this machine, reaches the server only when it listens on every interface."""
    server = subprocess.Popen([sys.executable, "-m", "bot.loopback", "--challenges", "0", "--token", "t", *options],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=environment(),
                              stdin=subprocess.DEVNULL)
    try:
        assert server.stdout is not None
        found = re.search(r"server on http://([\d.]+):(\d+) ", server.stdout.readline())
        assert found is not None and found.group(1) == url_host
        port = found.group(2)
        assert requests.post(f"http://127.0.0.1:{port}/api/token/test", data="t", timeout=PATIENCE_S).status_code == 200
        try:
            answered = requests.post(f"http://127.0.0.2:{port}/api/token/test", data="t", timeout=PATIENCE_S).ok
        except requests.ConnectionError:
            answered = False
        assert answered == on_every_interface
    finally:
        server.terminate()
        server.wait(timeout=PATIENCE_S)


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


def test_health_help_names_both_forms() -> None:
    """Issue 28 added the status page form (``python -m bot.health http://127.0.0.1:8080 60``, what
    compose.yaml runs); --help still described the heartbeat file only."""
    out = " ".join(run("-m", "bot.health", "--help").stdout.split())
    assert "/api/status" in out and "status.listen" in out and "HEARTBEAT_FILE" in out


def test_health_check_refuses_an_option_for_a_file_name() -> None:
    completed = run("-m", "bot.health", "--max-age", "60")
    assert completed.returncode == 2 and "usage: python -m bot.health" in completed.stderr


def test_a_one_shot_command_answers_help_and_fails_with_exit_2() -> None:
    """``schess-engine bench --help`` printed ``info string error: bench: invalid literal for int()`` and exited
    0, as ``--help`` alone did before issue 27; a one-shot command that fails now exits 2."""
    completed = run("-m", "engine", "bench", "--help")
    assert completed.returncode == 0 and completed.stdout.startswith("usage: schess-engine [COMMAND ...]")
    assert "info string error" not in completed.stdout
    failed = run("-m", "engine", "bench", "deep")
    assert failed.returncode == 2
    assert failed.stdout.strip().splitlines()[-1].startswith("info string error: bench: ")


def console_script(name: str) -> tuple[str, str]:
    """The module and the function ``pyproject.toml`` makes the console script ``name`` of."""
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    module, function = scripts[name].split(":")
    return module, function


def untimed(output: str) -> list[str]:
    """The lines of an engine command's output that do not depend on how long it ran."""
    return [line for line in output.splitlines() if not re.search(r"(?i)\btime\b|second", line)]


FEN_960 = "qbbrnkrn/pppppppp/8/8/8/8/PPPPPPPP/QBBRNKRN[HEhe] w ABCDEFGHabcdefgh - 0 1"


@pytest.mark.parametrize("args", [
    ["perft", "2"],
    ["perft", "1", "--divide", "--variant", "seirawan960", "--fen", FEN_960],
    ["perft", "--help"],
    ["svg", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[EHeh] w KQBCDFGkqbcdfg - 2 3", "--flip"],
    ["svg", "not a fen"],
    ["bench", "1"],
    ["bench", "deep"],
    ["d"],
    ["--help"],
    ["--version"],
], ids=" ".join)
def test_schess_engine_and_python_m_engine_run_the_same_commands(args: list[str]) -> None:
    """Issue 61: ``schess-engine perft 2`` answered "unknown command" (exit 2) where ``python -m engine perft 2``
    counted; the console script now runs what ``python -m engine`` runs."""
    module, function = console_script("schess-engine")
    script = run("-c", f"import sys; from {module} import {function}; sys.exit({function}())", *args)
    module_run = run("-m", "engine", *args)
    assert script.returncode == module_run.returncode
    assert untimed(script.stdout) == untimed(module_run.stdout) and (script.stdout + script.stderr).strip()
    assert script.stderr == module_run.stderr


def test_bench_says_why_a_position_has_no_move() -> None:
    lines: list[str] = []
    bench_report(1, lines.append)
    empty = [line for line in lines if "bestmove (none)" in line]
    assert empty and all(line.endswith("(checkmate: no legal move)") for line in empty)
