"""Correspondence games on the loopback server: played in short visits (no game stream held open between
them), resumed after a restart, finished with a PGN, and accepted or declined by ``challenge.speeds``."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from bot.loopback import LoopbackServer, Manual
from tests.e2e.conftest import BotThread, bot_config, replay_pgn
from tests.timing import GAME_S, PATIENCE_S, STARTUP_S, wait_until

VISITS = {"check_interval_s": 1, "disconnect_after_s": 0.3}


def correspondence_config(server: LoopbackServer, tmp_path: Path, **overrides: Any) -> dict[str, Any]:
    return bot_config(server, tmp_path, correspondence=VISITS, time={"correspondence_move_s": 1},
                      **overrides)


def wait_until_parked(server: LoopbackServer, bot: BotThread, parks: int, caplog: pytest.LogCaptureFixture
                      ) -> None:
    """Until the bot has parked the game ``parks`` times and holds no game worker."""
    wait_until(lambda: caplog.text.count("parked until the next check") >= parks and not bot.lobby.workers,
               f"park number {parks}", PATIENCE_S)


def test_a_correspondence_game_is_played_in_visits(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="bot.game")
    config = correspondence_config(server, tmp_path)
    game_id = server.challenge(clock=None, days=3, color="black", opponent=Manual())
    bots.append(BotThread(config).start())
    assert server.wait_for_answer(game_id, STARTUP_S).accepted
    server.wait_for_plies(game_id, 1, GAME_S)
    wait_until_parked(server, bots[0], 1, caplog)
    connections = server.game(game_id).stream_connections
    server.play_opponent_move(game_id, "e7e5")
    game = server.wait_for_plies(game_id, 3, GAME_S)  # the next visit sees the move and answers
    assert server.game(game_id).stream_connections > connections
    assert [r.by for r in game.move_log] == ["bot", "opponent", "bot"]
    wait_until_parked(server, bots[0], 2, caplog)
    wait_until_parked(server, bots[0], 3, caplog)  # a visit that only looks
    parked = "Alice to move; parked until the next check"
    assert len(server.game(game_id).moves) == 3 and not server.game(game_id).over
    assert not server.requests_to("abort"), "an opponent who takes days is never aborted"
    assert [r.levelname for r in caplog.records if parked in r.getMessage()][:3] == ["INFO", "INFO", "DEBUG"]


def test_a_correspondence_game_survives_a_restart_and_ends_with_a_pgn(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.game")
    server = lichess_server
    game_id = server.challenge(clock=None, days=2, color="black", variant="chess", opponent=Manual())
    first = BotThread(correspondence_config(server, tmp_path)).start()
    bots.append(first)
    server.wait_for_plies(game_id, 1, GAME_S)
    assert first.stop() == 0
    assert not server.game(game_id).over, "stopping the bot (even with abort) leaves correspondence games alone"
    assert not server.requests_to("abort") and not server.requests_to("resign")
    server.play_opponent_move(game_id, "e7e5")
    bots.append(BotThread(correspondence_config(server, tmp_path), max_games=1).start())
    server.wait_for_plies(game_id, 3, GAME_S)  # gameStart is re-sent on connect: the new bot answers
    wait_until_parked(server, bots[1], 2, caplog)
    server.opponent_resign(game_id)  # gameFinish for a parked game: one last visit writes the PGN
    assert bots[1].join(GAME_S) == 0
    saved = tmp_path / f"{game_id}.pgn"
    assert replay_pgn(saved, variant="chess") == server.game(game_id).moves
    assert "1-0" in saved.read_text()


def test_correspondence_challenges_follow_challenge_speeds(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    config = correspondence_config(server, tmp_path, challenge={"speeds": ["blitz", "rapid"]})
    bots.append(BotThread(config).start())
    declined = server.challenge(clock=None, days=3)
    answer = server.wait_for_answer(declined, STARTUP_S)
    assert (answer.accepted, answer.reason) == (False, "timeControl")


def test_correspondence_games_do_not_take_the_real_time_slot(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    config = correspondence_config(server, tmp_path, challenge={"concurrency": 1})
    config["correspondence"] = dict(VISITS, max_games=1)
    bots.append(BotThread(config).start())
    first = server.challenge(challenger="Corr1", clock=None, days=3, color="white", opponent=Manual())
    assert server.wait_for_answer(first, STARTUP_S).accepted
    server.wait_for_game_start(first, STARTUP_S)
    second = server.challenge(challenger="Corr2", clock=None, days=3, color="white", opponent=Manual())
    assert server.wait_for_answer(second, STARTUP_S).reason == "later", "correspondence.max_games is 1"
    blitz = server.challenge(challenger="Blitz", clock=(180, 2), color="white", opponent=Manual())
    assert server.wait_for_answer(blitz, STARTUP_S).accepted, "the real-time slot is still free"
