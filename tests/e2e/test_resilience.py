"""The bot survives what real servers do: dropped and silent streams, 429s, takebacks, and its own restart."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.config import Timing
from bot.loopback import LoopbackServer, RandomMoves, Scripted
from tests.e2e.conftest import BotProcess, BotThread, assert_clean_game, bot_config, replay_pgn
from tests.timing import GAME_S, PATIENCE_S


def start_paused_game(server: LoopbackServer) -> str:
    """A game where the opponent (white) plays two moves and then waits for the test to continue."""
    return server.challenge(color="white", clock=(180, 2), opponent=Scripted(["e2e4", "g1f3", "wait"]))


@pytest.mark.parametrize("streams", ["game", "any"])
def test_reconnects_after_the_server_drops_the_streams_mid_game(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread], streams: str
) -> None:
    game_id = start_paused_game(server)
    bots.append(BotThread(bot_config(server, tmp_path), max_games=1).start())
    server.wait_for_plies(game_id, 4, GAME_S)
    assert server.faults.drop_streams(streams) >= 1  # type: ignore[arg-type]
    server.set_opponent(game_id, RandomMoves(seed=8))  # the opponent moves while the bot is disconnected
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert game.stream_connections >= 2
    if streams == "any":
        assert server.event_stream_connections >= 2
    assert bots[0].join(GAME_S) == 0
    assert replay_pgn(tmp_path / f"{game_id}.pgn") == game.moves


def test_reconnects_when_the_game_stream_goes_silent(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    game_id = start_paused_game(pychess_server)
    config = bot_config(pychess_server, tmp_path, server={"stream_timeout_s": 2})
    bots.append(BotThread(config, max_games=1).start())
    pychess_server.wait_for_plies(game_id, 4, GAME_S)
    assert pychess_server.faults.silence_streams("game", game_id) == 1
    pychess_server.set_opponent(game_id, RandomMoves(seed=9))
    game = pychess_server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert game.stream_connections >= 2


def test_a_429_on_the_move_endpoint_is_waited_out_and_the_move_resent(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    # the bot pauses an endpoint for max(60 s, Retry-After); shorten the 60 s so the suite stays fast, and ask
    # for longer with Retry-After to prove the header is honoured
    timing = Timing(rate_limit_pause_s=1.0)
    game_id = server.challenge(color="black", clock=(180, 2), opponent=RandomMoves(seed=3))
    server.faults.fail("move", 429, times=1, retry_after_s=3)
    bots.append(BotThread(bot_config(server, tmp_path), max_games=1, timing=timing).start())
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    moves = server.requests_to("move", game_id)
    assert [r.status for r in moves[:2]] == [429, 200], "exactly one request while limited"
    assert moves[0].path == moves[1].path, "the same move is sent again"
    assert moves[1].at - moves[0].at >= 2.9, "Retry-After is honoured"


def test_a_move_whose_answer_is_lost_is_not_sent_again_after_the_opponents_reply(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    """The server carries the bot's move out and drops the connection before answering; the opponent replies at
    once. Sent again blind, the old move would land in the new position: on pychess an illegal move, a lost
    game (seen when a restart cut a move's answer). The server's record says the move is there."""
    caplog.set_level(logging.INFO, logger="bot.wire.server")
    game_id = server.challenge(color="white", clock=(180, 2), opponent=RandomMoves(seed=5))
    server.faults.lose_answers("move", times=1, target=game_id)
    bots.append(BotThread(bot_config(server, tmp_path), max_games=1).start())
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert not game.rejected, "no move was sent twice"
    first, second = server.requests_to("move", game_id)[:2]
    assert first.status == 0 and second.path != first.path, "the next move sent is the next position's"
    assert any("the server has it" in r.getMessage() for r in caplog.records)
    assert bots[0].join(GAME_S) == 0
    assert replay_pgn(tmp_path / f"{game_id}.pgn") == game.moves


def test_a_pychess_takeback_shrinks_the_move_list_and_the_bot_plays_on(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    game_id = start_paused_game(pychess_server)
    bots.append(BotThread(bot_config(pychess_server, tmp_path), max_games=1).start())
    pychess_server.wait_for_plies(game_id, 4, GAME_S)
    taken_back = pychess_server.game(game_id).moves[3]
    assert pychess_server.takeback(game_id, plies=1) == 1, "the bot's last move is taken back"
    game = pychess_server.wait_for_plies(game_id, 4, GAME_S)
    assert [r.ply for r in game.move_log if r.by == "bot"][:3] == [2, 4, 4], "the bot moved again at ply 4"
    pychess_server.set_opponent(game_id, RandomMoves(seed=10))
    game = pychess_server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert game.bot_moves()[1] == taken_back
    assert bots[0].join(GAME_S) == 0
    assert replay_pgn(tmp_path / f"{game_id}.pgn") == game.moves, "the PGN has the line after the takeback"


def test_the_bot_resumes_its_game_after_a_restart(server: LoopbackServer, tmp_path: Path) -> None:
    game_id = start_paused_game(server)
    bot = BotProcess(bot_config(server, tmp_path), tmp_path, "--games", "1").start()
    try:
        server.wait_for_plies(game_id, 4, GAME_S)
        bot.kill()
        server.set_opponent(game_id, RandomMoves(seed=12))
        server.wait_for_plies(game_id, 5, PATIENCE_S)  # the server's own random opponent moves
        bot.start()
        game = server.wait_for_game_end(game_id, GAME_S)
        assert_clean_game(game)
        assert game.stream_connections >= 2 and server.event_stream_connections >= 2
        assert bot.wait(GAME_S) == 0, bot.logs()
    finally:
        bot.stop()
    assert "e2e-token-do-not-log" not in bot.logs(), "the token never appears in the logs"


def test_the_bot_plays_on_after_a_server_restart(server: LoopbackServer, tmp_path: Path, bots: list[BotThread]) -> None:
    game_id = start_paused_game(server)
    bots.append(BotThread(bot_config(server, tmp_path), max_games=1).start())
    server.wait_for_plies(game_id, 4, GAME_S)
    server.faults.restart_server(down_s=2)  # pychess: "terminated", then gameFull says initialFen "None"
    server.set_opponent(game_id, RandomMoves(seed=13))
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert game.stream_connections >= 2 and server.event_stream_connections >= 2
    assert bots[0].join(GAME_S) == 0
