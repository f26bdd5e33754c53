"""The engine check at start-up: a missing, non-starting or wrong-variant engine stops ``schess-bot`` and
``schess-bot --sandbox`` with exit code 2 and one line naming the engine, before any login or game."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.loopback import LoopbackServer
from tests.e2e.conftest import REPO, TOKEN, bot_config
from tests.timing import GAME_S, STARTUP_S

FAKE_UCI = Path(__file__).resolve().parents[1] / "bot" / "fake_uci.py"

BROKEN_ENGINES = {
    # what is configured -> what the one-line message must say
    "missing": ({"command": "/nonexistent/engine"}, "/nonexistent/engine", "No such file"),
    "not an engine": ({"command": "cat", "startup_timeout_s": 1}, "'cat'", "no uciok"),
    "wrong variant": ({"command": f"{sys.executable} {FAKE_UCI} plain"}, "fake_uci.py plain", "cannot play seirawan"),
}


def environment() -> dict[str, str]:
    env = dict(os.environ, SCHESS_BOT_TOKEN=TOKEN)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def run_bot_process(config: dict[str, Any], workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    path = workdir / "config.yml"
    path.write_text(yaml.safe_dump(config))
    return subprocess.run([sys.executable, "-m", "bot", "--config", str(path), *args], cwd=workdir,
                          env=environment(), capture_output=True, text=True, timeout=STARTUP_S)


@pytest.mark.parametrize("case", sorted(BROKEN_ENGINES))
def test_a_broken_engine_stops_the_bot_before_it_logs_in_or_accepts_a_game(
    case: str, pychess_server: LoopbackServer, tmp_path: Path
) -> None:
    engine, names, what = BROKEN_ENGINES[case]
    challenge_id = pychess_server.challenge(clock=(60, 1))
    config = bot_config(pychess_server, tmp_path / "games", engine=engine,
                        challenge={"variants": ["seirawan", "chess"]})
    completed = run_bot_process(config, tmp_path)
    assert completed.returncode == 2, completed.stderr
    message = completed.stderr.strip().splitlines()
    assert len(message) == 1 and message[0].startswith("error: engine "), completed.stderr
    assert names in message[0] and what in message[0] and "fix:" in message[0], message[0]
    assert not pychess_server.requests_to("account"), "the bot logged in although its engine cannot play"
    assert pychess_server.answer(challenge_id) is None
    assert TOKEN not in completed.stderr


@pytest.mark.parametrize("case", sorted(BROKEN_ENGINES))
def test_a_broken_engine_stops_the_sandbox_before_its_game(case: str, tmp_path: Path) -> None:
    engine, names, what = BROKEN_ENGINES[case]
    path = tmp_path / "config.yml"
    path.write_text(yaml.safe_dump({"engine": engine}))
    env = {key: value for key, value in environment().items() if key != "SCHESS_BOT_TOKEN"}
    completed = subprocess.run([sys.executable, "-m", "bot", "--sandbox", "--config", str(path)], cwd=tmp_path,
                               env=env, capture_output=True, text=True, timeout=STARTUP_S)
    assert completed.returncode == 2, completed.stdout + completed.stderr
    message = completed.stderr.strip().splitlines()
    assert len(message) == 1 and names in message[0] and what in message[0], completed.stderr
    assert "1." not in completed.stdout, "no move of a sandbox game was played"


def test_unplayable_variants_are_dropped_with_a_warning_when_the_operator_asks(
    pychess_server: LoopbackServer, tmp_path: Path
) -> None:
    """A chess-only engine with drop_unplayable_variants: S-chess is not offered (pychess capability header)
    and the bot plays the chess game it is offered."""
    config = bot_config(pychess_server, tmp_path / "games",
                        engine={"command": f"{sys.executable} {FAKE_UCI} plain e2e4",
                                "drop_unplayable_variants": True},
                        challenge={"variants": ["seirawan", "chess"]})
    seirawan = pychess_server.challenge(variant="seirawan", clock=(60, 1))
    path = tmp_path / "config.yml"
    path.write_text(yaml.safe_dump(config))
    process = subprocess.Popen([sys.executable, "-m", "bot", "--config", str(path)], cwd=tmp_path,
                               env=environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        pychess_server.wait_for_request("stream_event", timeout=STARTUP_S)
        chess = pychess_server.challenge(variant="chess", clock=(60, 1), color="white")
        assert pychess_server.wait_for_answer(chess, STARTUP_S).accepted
        assert pychess_server.answer(seirawan) is None, "an S-chess challenge reached a bot that cannot play it"
    finally:
        process.terminate()
        output = process.communicate(timeout=GAME_S)[0]
    assert "cannot play seirawan, seirawan960" not in output
    assert "cannot play seirawan (" in output and "not accepting it (engine.drop_unplayable_variants)" in output
