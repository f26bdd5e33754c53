"""``schess-bot --sandbox``: one whole game on a loopback server, printed, with no account and no network."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.e2e.conftest import REPO
from tests.timing import GAME_S, SANDBOX_S


def test_the_sandbox_checks_the_pgn_directory_it_writes_to(tmp_path: Path) -> None:
    """--pgn-directory is where the sandbox writes (the Docker image passes /games): the check looks at that
    folder, not at the config's pgn_directory, which once failed a sandbox that had a good place to write."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    config = tmp_path / "config.yml"
    config.write_text(yaml.safe_dump({"pgn_directory": str(blocker / "games")}))
    kept = tmp_path / "kept"
    completed = run_sandbox(tmp_path, "--config", str(config), "--pgn-directory", str(kept))
    assert completed.returncode == 0, completed.stderr
    assert f"OK   pgn_directory: {kept} (folder {kept} " in completed.stdout
    assert len(list(kept.glob("*.pgn"))) == 1


def sandbox_environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "SCHESS_BOT_TOKEN"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def run_sandbox(workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot", "--sandbox", *args], cwd=workdir, env=sandbox_environment(),
                          capture_output=True, text=True, timeout=SANDBOX_S)


@pytest.mark.wall_clock
def test_sandbox_plays_one_game_and_prints_moves_and_pgn(tmp_path: Path) -> None:
    """The README's first command, timed: a 1+1 game with the start-up checks must end within 60 s, the quick
    first run the README promises (the game's own clocks allow about 2 minutes, so this is a real bound)."""
    env = sandbox_environment()
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "bot", "--sandbox"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=SANDBOX_S,  # ends a hung run; the bound under test is the 60 s asserted below
    )
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr[-2000:]
    out = result.stdout
    assert "127.0.0.1" in out and "S-chess 1+1" in out
    assert "  1.    " in out and "  1...  " in out, "moves are printed as they happen"
    assert '[Variant "Seirawan"]' in out and '[Result "' in out
    result_tag = out.split('[Result "', 1)[1].split('"', 1)[0]
    assert result_tag in ("1-0", "0-1", "1/2-1/2")
    assert out.rstrip().endswith(result_tag), "the PGN movetext ends with the result"
    assert "[%eval " in out and "[%clk " in out, "the bot's PGN with its evaluations and clocks"
    assert elapsed < 60, f"the sandbox took {elapsed:.0f} s"
    assert not list(tmp_path.glob("games")), "the sandbox leaves no PGN folder behind"
    assert out.startswith("sandbox: no config.yml here, so the defaults (schess-bot init writes the commented "
                          "file)\nOK   config: no config file: every key at its default\n")
    assert "OK   engine: " in out


def sample_in_the_docs() -> list[str]:
    """The sample run printed in docs/sandbox.md (its code block that shows the sandbox's server line)."""
    blocks = (REPO / "docs" / "sandbox.md").read_text().split("```")[1::2]
    (block,) = [block for block in blocks if "sandbox: pychess-style server on" in block]
    return block.strip("\n").splitlines()


def comparable(line: str) -> str:
    """A sandbox line with what differs from run to run (port, game id, engine build) made the same."""
    line = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", line)
    line = re.sub(r"(127\.0\.0\.1:PORT)/\w+", r"\1/ID", line)
    return line.replace("compiled (Cython)", "BUILD").replace("pure Python", "BUILD")


def test_the_sample_run_in_the_docs_is_what_the_sandbox_prints(tmp_path: Path) -> None:
    """Issue 27, finding 8: docs/sandbox.md showed output the sandbox did not print (no check lines, another
    Event tag, no evaluations). Its lines up to the first move must be the real ones, its PGN tags too."""
    completed = run_sandbox(tmp_path)
    assert completed.returncode == 0, completed.stderr[-2000:]
    out = completed.stdout.splitlines()
    sample = sample_in_the_docs()
    head = sample[:next(i for i, line in enumerate(sample) if line.startswith("  1."))]
    assert [comparable(line) for line in out[:len(head)]] == [comparable(line) for line in head]
    tags = [line for line in sample if line.startswith("[")]
    assert tags and all(comparable(tag) in {comparable(line) for line in out} for tag in tags), tags
    ending = [line for line in sample if re.fullmatch(r"sandbox: (1-0|0-1|1/2-1/2) \(.+\)", line)]
    assert len(ending) == 1 and any(re.fullmatch(r"sandbox: (1-0|0-1|1/2-1/2) \(.+\)", line) for line in out)
    movetext = " ".join(line for line in sample if line.startswith("1. "))
    assert "[%eval " in movetext and "[%clk " in movetext, "the PGN shown has the bot's evals and clocks"


def test_sandbox_twice_with_one_pgn_directory_plays_two_games(tmp_path: Path) -> None:
    """Issue 27, finding 1: every sandbox game had the same id, and the second run found it over in the state
    file of the kept folder, played nothing and exited 1 after 150 s."""
    kept = tmp_path / "kept"
    first = run_sandbox(tmp_path, "--pgn-directory", str(kept))
    second = run_sandbox(tmp_path, "--pgn-directory", str(kept))
    assert (first.returncode, second.returncode) == (0, 0), second.stderr[-2000:]
    assert "  1.    " in second.stdout
    assert len(list(kept.glob("*.pgn"))) == 2, "two games, two ids, two PGNs"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_signal_during_the_sandbox_game_exits_128_plus_its_number(tmp_path: Path, signum: int) -> None:
    """Issue 27, finding 2: Ctrl-C or SIGTERM mid-game said 'stopped before the bot started playing', exit 0.
    Issue 50: SIGTERM exits 143, as a shell reports a program it killed, Ctrl-C 130."""
    process = subprocess.Popen([sys.executable, "-m", "bot", "--sandbox"], cwd=tmp_path, env=sandbox_environment(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    try:
        for line in process.stdout:
            if line.startswith("  1.    "):  # the game is running
                break
        process.send_signal(signum)
        out, err = process.communicate(timeout=GAME_S)
    finally:
        process.kill()
    assert process.returncode == 128 + signum, err
    assert err.strip().splitlines()[-1] == f"sandbox: interrupted ({signal.Signals(signum).name})"
    assert "stopped before the bot started playing" not in err


@pytest.mark.parametrize("data, message", [
    ({"challenge": {"concurency": 2}},
     "FAIL config: unknown key challenge.concurency; did you mean challenge.concurrency?"),
    ({"pgn_dir": "games"}, "FAIL config: unknown key pgn_dir; did you mean pgn_directory?"),
    ({"engine": {"options": {"Hash": "lots"}}},
     "FAIL engine.options.Hash: must be an integer from 1 to 1024 (the engine's Hash is a spin), got 'lots'"),
])
def test_the_sandbox_refuses_a_config_the_real_run_refuses(tmp_path: Path, data: dict, message: str) -> None:
    """Issue 27, finding 3: the sandbox read engine, time and greeting only, so these passed with exit 0."""
    config = tmp_path / "config.yml"
    config.write_text(yaml.safe_dump(data))
    completed = run_sandbox(tmp_path, "--config", str(config))
    assert completed.returncode == 2, completed.stdout
    assert completed.stderr.strip() == message
    assert "  1.    " not in completed.stdout, "no game was played"


def test_the_sandbox_refuses_a_config_file_that_does_not_exist(tmp_path: Path) -> None:
    completed = run_sandbox(tmp_path, "--config", str(tmp_path / "nonexistent.yml"))
    assert completed.returncode == 2
    assert completed.stderr.strip().startswith(f"FAIL config: cannot read {tmp_path / 'nonexistent.yml'}: no such file")


def test_the_sandbox_names_the_file_of_a_yaml_error(tmp_path: Path) -> None:
    config = tmp_path / "config.yml"
    config.write_text("engine:\n  options: {Hash: 64\nchallenge:\n  concurrency: 1\n")
    completed = run_sandbox(tmp_path, "--config", str(config))
    assert completed.returncode == 2
    assert completed.stderr.strip() == (f"FAIL config: {config} is not valid YAML: expected ',' or '}}', but got ':' "
                                        "at line 3, column 10 (while parsing a flow mapping at line 2)")


def test_the_sandbox_writes_the_configured_log_file_as_the_real_run_does(tmp_path: Path) -> None:
    config = tmp_path / "config.yml"
    log_file = tmp_path / "logs" / "bot.log"
    config.write_text(yaml.safe_dump({"logging": {"file": str(log_file), "file_level": "INFO"}}))
    completed = run_sandbox(tmp_path, "--config", str(config))
    assert completed.returncode == 0, completed.stderr[-2000:]
    written = log_file.read_text()
    assert "logged in to http://127.0.0.1:" in written and ": finished " in written, written[-2000:]
    assert "logged in" not in completed.stderr, "the terminal shows warnings only"


def test_the_sandbox_refuses_a_log_file_that_cannot_be_opened(tmp_path: Path) -> None:
    (tmp_path / "not-a-folder").write_text("a file")
    log_file = tmp_path / "not-a-folder" / "bot.log"
    config = tmp_path / "config.yml"
    config.write_text(yaml.safe_dump({"logging": {"file": str(log_file)}}))
    completed = run_sandbox(tmp_path, "--config", str(config))
    assert completed.returncode == 2
    assert completed.stderr.strip().splitlines()[-1].startswith(
        f"FAIL logging.file: {str(log_file)!r} cannot be written: {tmp_path / 'not-a-folder'} is not a folder; fix: ")
    assert "  1.    " not in completed.stdout, "no game was played"


@pytest.mark.parametrize("variant,tag,first", [
    ("seirawan-placement", "Seirawan-Placement", "@"), ("seirawan-forced-entry", "Seirawan-Forced-Entry", ""),
])
def test_the_sandbox_plays_the_alternative_s_chess_rules(tmp_path: Path, variant: str, tag: str, first: str) -> None:
    """--variant: the loopback server hosts placement and forced entry, the bot and the opponent play one to
    its end, and the PGN carries the Variant tag and the start FEN (no other tool knows those starts)."""
    completed = run_sandbox(tmp_path, "--variant", variant)
    assert completed.returncode == 0, completed.stderr[-2000:]
    out = completed.stdout
    assert f'[Variant "{tag}"]' in out and '[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w ' in out
    first_move = out.split("  1.    ", 1)[1].split()[0]
    assert first in first_move  # placement starts with a placement (H@b1)
    assert re.search(r"^sandbox: (1-0|0-1|1/2-1/2) ", out, re.M)
