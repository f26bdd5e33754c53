"""Pondering in real games on the loopback server: ``go ponder`` on the opponent's time, ``ponderhit`` when the
predicted move comes (the time gained is in the move log), ``stop`` and a fresh search when it does not.

A scripted fake engine makes the predictions exact; the builtin engine and Fairy-Stockfish play a game with
pondering on to show that real engines follow the same conversation."""

from __future__ import annotations

import logging
import re
import shlex
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.loopback import LoopbackServer, RandomMoves, Scripted
from tests.e2e.conftest import KEEPALIVE_S, BotThread, assert_clean_game, bot_config, refereed_server
from tests.timing import GAME_S

FAKE = Path(__file__).resolve().parents[1] / "bot" / "fake_uci.py"
# the whole game as the fake engine predicts it; the opponent follows it for two moves, then deviates
SCRIPT = "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 d2d3 f8c5"
OPPONENT = ["e7e5", "b8c6", "a7a6", "resign"]
FAIRY = shutil.which("fairy-stockfish") or shutil.which("/usr/games/fairy-stockfish")


@pytest.fixture(params=["pychess", "lichess"])
def slow_server(request: pytest.FixtureRequest) -> Iterator[LoopbackServer]:
    """The opponent takes 0.4 s per move: time for the bot to ponder."""
    with refereed_server(request.param, keepalive_s=KEEPALIVE_S,
                        opponent_delay_s=0.4) as srv:
        yield srv


def test_ponderhit_gains_time_and_a_wrong_guess_is_stopped(
    slow_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.INFO, logger="bot.game")
    uci_log = tmp_path / "uci.log"
    monkeypatch.setenv("FAKE_UCI_SCRIPT", SCRIPT)
    monkeypatch.setenv("FAKE_UCI_LOG", str(uci_log))
    command = shlex.join([sys.executable, str(FAKE), "script"])
    config = bot_config(slow_server, tmp_path, engine={"command": command, "ponder": True, "limits": {}})
    game_id = slow_server.challenge(clock=(60, 1), color="black", opponent=Scripted(OPPONENT))
    bots.append(BotThread(config, max_games=1).start())
    game = slow_server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert game.moves == ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "a7a6", "d2d3"]
    played = [r.getMessage() for r in caplog.records if ": played " in r.getMessage()]
    assert len(played) == 4, played
    gains = [float(found.group(1)) for line in played
             if (found := re.search(r"ponderhit: ([\d.]+) s gained", line))]
    assert len(gains) == 2 and all(gain >= 0.3 for gain in gains), played
    assert "ponderhit" not in played[0] and "ponderhit" in played[1] and "ponderhit" in played[2]
    assert "[ponder miss: expected g8f6]" in played[3] and "ponderhit" not in played[3]
    assert bots[0].join(GAME_S) == 0  # the engine is closed: its log is complete
    sent = uci_log.read_text().splitlines()
    assert "setoption name Ponder value true" in sent
    goes = [line for line in sent if line.startswith(("go", "ponderhit", "stop"))]
    assert [line.split()[0] + (" ponder" if " ponder" in line else "") for line in goes] == [
        "go", "go ponder", "ponderhit", "go ponder", "ponderhit", "go ponder", "stop", "go", "go ponder", "stop",
    ]
    ponder_positions = [line for line in sent if line.startswith("position")]
    assert ponder_positions[1].endswith("moves e2e4 e7e5"), "the first ponder search assumes e7e5"


def test_no_pondering_when_it_is_off(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], monkeypatch: pytest.MonkeyPatch
) -> None:
    uci_log = tmp_path / "uci.log"
    monkeypatch.setenv("FAKE_UCI_SCRIPT", SCRIPT)
    monkeypatch.setenv("FAKE_UCI_LOG", str(uci_log))
    command = shlex.join([sys.executable, str(FAKE), "script"])
    config = bot_config(lichess_server, tmp_path, engine={"command": command, "limits": {}})
    game_id = lichess_server.challenge(clock=(60, 1), color="black", opponent=Scripted(OPPONENT))
    bots.append(BotThread(config, max_games=1).start())
    assert_clean_game(lichess_server.wait_for_game_end(game_id, GAME_S))
    assert bots[0].join(GAME_S) == 0
    sent = uci_log.read_text()
    assert "ponder" not in sent.replace("option name Ponder", "")


@pytest.mark.parametrize("engine", ["builtin", "fairy-stockfish"])
def test_real_engines_ponder_through_a_game(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture,
    engine: str,
) -> None:
    if engine == "fairy-stockfish" and FAIRY is None:
        pytest.skip("Fairy-Stockfish is not installed")
    caplog.set_level(logging.DEBUG, logger="bot.game")
    command = "builtin" if engine == "builtin" else str(FAIRY)
    config = bot_config(lichess_server, tmp_path,
                        engine={"command": command, "ponder": True, "limits": {"depth": 2}})
    game_id = lichess_server.challenge(clock=(60, 1), color="black",
                                       opponent=Scripted(["e7e5", "b8c6", "g8f6", "resign"], seed=1))
    bots.append(BotThread(config, max_games=1).start())
    game = lichess_server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert game.status == "resign" and len(game.bot_moves()) == 4
    assert caplog.text.count(": pondering on ") >= 3, "each move of ours is followed by a ponder search"
    assert "engine passed its deadline" not in caplog.text and "restarting the engine" not in caplog.text


def test_pondering_against_random_moves_stays_legal(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    config = bot_config(pychess_server, tmp_path, engine={"ponder": True, "limits": {"depth": 1}})
    game_id = pychess_server.challenge(clock=(30, 1), color="white", opponent=RandomMoves(seed=5))
    bots.append(BotThread(config).start())
    game = pychess_server.wait_for_plies(game_id, 16, GAME_S)
    assert not [r for r in game.move_log if not r.legal]
    assert not [r for r in game.rejected if r[1] == "illegal"]
