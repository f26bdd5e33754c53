"""The lobby: concurrency with accepted-but-unstarted games, no duplicate workers, and stopping by signal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import yaml

from bot.config import ChallengeSettings, Settings
from bot.lobby.loop import Lobby
from bot.wire.events import ChallengeEvent, ChallengeGone, GameStart
from bot.wire.normalise import normalise_lobby_line
from tests.bot.conftest import PYCHESS_ACCOUNT, PYCHESS_CHALLENGE, PYCHESS_GAME_FULL
from tests.bot.fakes import ME, LobbyServer, ScriptedEngine
from tests.bot.http_fixture import Reply, ScriptedServer
from tests.timing import GAME_S, STARTUP_S, wait_until

REPO = Path(__file__).resolve().parents[2]
FAKE = str(Path(__file__).with_name("fake_uci.py"))


def challenge_event(challenge_id: str) -> ChallengeEvent:
    data = json.loads(PYCHESS_CHALLENGE)
    data["challenge"]["id"] = challenge_id
    event = normalise_lobby_line(json.dumps(data))
    assert isinstance(event, ChallengeEvent)
    return event


def test_an_accepted_challenge_holds_its_slot_until_the_game_starts_and_workers_are_not_duplicated():
    server = LobbyServer()
    # decline_message "": pychess gets the reason key, as Lichess does (the text is tested on its own)
    settings = Settings(pgn_directory=None, challenge=replace(ChallengeSettings(), concurrency=1,
                                                             decline_message=""))
    engines: list[ScriptedEngine] = []
    lobby = Lobby(server, settings, ME,  # type: ignore[arg-type]
                  lambda label: engines.append(ScriptedEngine("e2e4")) or engines[-1])
    lobby._handle(challenge_event("c1"))
    lobby._handle(challenge_event("c2"))
    assert server.calls == [("accept", "c1"), ("decline", "c2", "later")]
    lobby._handle(GameStart("c1"))
    lobby._handle(GameStart("c1"))  # a reconnect re-sends gameStart
    assert list(lobby.workers) == ["c1"] and len(engines) == 1
    lobby._handle(challenge_event("c3"))
    assert server.calls[-1] == ("decline", "c3", "later")
    lobby.request_stop("abort")

    def reaped() -> bool:
        lobby._handle_stop(None)
        lobby._reap()
        return not lobby.workers

    wait_until(reaped, lambda: f"the stopped game's worker reaped (still running: {list(lobby.workers)})")
    assert lobby.games_finished == 1


def test_sigterm_during_a_game_aborts_it_per_config_and_exits_0(tmp_path):
    full = json.loads(PYCHESS_GAME_FULL)
    full["white"], full["black"] = full["black"], full["white"]  # we are black and wait for white
    with ScriptedServer() as http:
        http.route("GET", "/api/account", Reply(body=PYCHESS_ACCOUNT))
        http.route("GET", "/api/stream/event",
                   Reply(lines=['{"type":"gameStart","game":{"id":"RpxjQkJ5"}}'], stall_s=30))
        http.route("GET", "/api/bot/game/stream/RpxjQkJ5", Reply(lines=[json.dumps(full)], stall_s=30))
        http.route("POST", "/api/bot/game/RpxjQkJ5/abort", Reply())
        http.route("POST", "/api/bot/game/RpxjQkJ5/chat", Reply())
        config = tmp_path / "config.yml"
        config.write_text(yaml.safe_dump({
            "server": {"url": http.url, "dialect": "pychess"},
            "engine": {"command": f"{sys.executable} {FAKE} move e7e5"},
            "shutdown": {"on_signal": "abort"}, "pgn_directory": None,
        }))
        env = {**os.environ, "SCHESS_BOT_TOKEN": "lip_SIGTERMTOKEN", "PYTHONPATH": str(REPO)}
        process = subprocess.Popen([sys.executable, "-m", "bot", "--config", str(config)], cwd=tmp_path,
                                   env=env, stderr=subprocess.PIPE, text=True)
        try:
            # the greeting shows the worker has read gameFull: from then on it knows the game it must abort (the
            # wait includes the bot's process starting, its engine's too)
            http.wait_for_hit("POST", "/api/bot/game/RpxjQkJ5/chat", STARTUP_S)
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=GAME_S)
        finally:
            if process.poll() is None:
                process.kill()
        assert process.returncode == 0, err
        assert http.hits("POST", "/api/bot/game/RpxjQkJ5/abort")
        assert "received SIGTERM" in err and "lip_SIGTERMTOKEN" not in err


def named_challenge(challenge_id: str, name: str, title: str = "") -> ChallengeEvent:
    data = json.loads(PYCHESS_CHALLENGE)
    data["challenge"]["id"] = challenge_id
    data["challenge"]["challenger"] = {"name": name, "rating": 1500, "title": title}
    event = normalise_lobby_line(json.dumps(data))
    assert isinstance(event, ChallengeEvent)
    return event


def test_the_lobby_counts_games_per_user_and_bot_games_for_the_slots_reserved_for_humans(caplog):
    server = LobbyServer()
    settings = Settings(pgn_directory=None, challenge=replace(
        ChallengeSettings(), concurrency=4, reserve_for_humans=2, max_games_per_user=1, decline_message=""))
    lobby = Lobby(server, settings, ME, lambda label: None)  # type: ignore[arg-type]
    with caplog.at_level("INFO"):
        for challenge_id, name, title in (("c1", "RobotA", "BOT"), ("c2", "RobotB", "BOT"),
                                          ("c3", "RobotC", "BOT"), ("c4", "Alice", ""), ("c5", "alice", "")):
            lobby._handle(named_challenge(challenge_id, name, title))
    assert server.calls == [("accept", "c1"), ("accept", "c2"), ("decline", "c3", "later"), ("accept", "c4"),
                            ("decline", "c5", "later")]
    assert "2 of 4 slots are reserved for humans" in caplog.text
    assert "already playing 1 game with alice (max_games_per_user 1)" in caplog.text
    lobby._handle(ChallengeGone("c1"))  # RobotA's challenge went away before its game started
    lobby._handle(named_challenge("c6", "RobotC", "BOT"))
    assert server.calls[-1] == ("accept", "c6")
