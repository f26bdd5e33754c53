"""Fault 1: the event stream or a game stream is closed mid-game, or goes silent beyond the watchdog (no
keep-alives either) -> the bot reconnects with back-off, the game goes on to its end, and no game ever has two
workers. Both dialects."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.loopback import LoopbackServer, Scripted
from tests.e2e.conftest import replay_pgn
from tests.reliability.conftest import BotThread, ResignAfter, WorkerWatch, assert_clean_game, bot_config
from tests.timing import GAME_S, PATIENCE_S


def paused_game(server: LoopbackServer) -> str:
    """The opponent (white) plays two moves and then waits for the test."""
    return server.challenge(color="white", clock=(120, 1), opponent=Scripted(["e2e4", "g1f3", "wait"]))


@pytest.mark.parametrize("kind", ["event", "game"])
def test_a_stream_closed_mid_game_is_reopened_and_the_game_goes_on(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread], workers: WorkerWatch, kind: str
) -> None:
    game_id = paused_game(server)
    bots.append(BotThread(bot_config(server, tmp_path), max_games=1).start())
    server.wait_for_plies(game_id, 4, GAME_S)
    before = server.event_stream_connections, server.game(game_id).stream_connections
    assert server.faults.drop_streams(kind) == 1  # type: ignore[arg-type]
    server.set_opponent(game_id, ResignAfter(8, seed=1))  # moves while the stream is down (game) or not
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert game.status == "resign" and len(game.bot_moves()) >= 7, "the bot played on to the end"
    if kind == "event":
        assert server.event_stream_connections > before[0], "the event stream was reopened"
    else:
        assert game.stream_connections > before[1], "the game stream was reopened"
    assert bots[0].join(GAME_S) == 0
    assert workers.started.count(game_id) == 1, "a reconnect's repeated gameStart starts no second worker"
    assert replay_pgn(tmp_path / f"{game_id}.pgn") == game.moves


@pytest.mark.parametrize("kind", ["event", "game"])
def test_a_silent_stream_is_dropped_by_the_watchdog_and_reopened(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread], workers: WorkerWatch, kind: str
) -> None:
    game_id = paused_game(server)
    config = bot_config(server, tmp_path, server={"stream_timeout_s": 1.0})
    bots.append(BotThread(config, max_games=1).start())
    server.wait_for_plies(game_id, 4, GAME_S)
    before = server.event_stream_connections, server.game(game_id).stream_connections
    assert server.faults.silence_streams(kind, None if kind == "event" else game_id) == 1  # type: ignore[arg-type]
    if kind == "event":
        server.wait_for(lambda: server.event_stream_connections > before[0] or None, PATIENCE_S,
                        "event stream reopened")
    server.set_opponent(game_id, ResignAfter(8, seed=2))
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert game.status == "resign" and len(game.bot_moves()) >= 7
    if kind == "game":
        assert game.stream_connections > before[1], "the silent game stream was replaced"
    assert bots[0].join(GAME_S) == 0
    assert workers.started.count(game_id) == 1
