"""Fault 3: malformed lines on the event and game streams (invalid JSON, unknown types, missing fields, wrong
types, float clocks, an unknown variant, a FEN the board rejects, a move list with an illegal move) -> the line
or the game is skipped, or the game is aborted/resigned, each with a log line; the bot keeps serving its other
games. Both dialects."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from bot.loopback import LoopbackServer, Scripted
from bot.loopback.games import default_board_factory
from tests.e2e.conftest import refereed_server
from tests.reliability.conftest import KEEPALIVE_S, BotThread, ResignAfter, assert_clean_game, bot_config
from tests.timing import GAME_S, wait_until

BAD_FEN = "not-a-fen"

EVENT_LINES = [
    '{"type": "challenge", "challenge": {"id": "x1"',  # invalid JSON
    '{"type": "surprise", "game": {}}',  # unknown type
    "[1, 2, 3]",  # not an object
    '{"type": "challenge"}',  # missing field
    '{"type": "challenge", "challenge": {"id": 42}}',  # wrong type
    '{"type": "gameStart", "game": {}}',  # no game id
    '{"type": "gameStart", "game": {"id": ["x"]}}',
    '{"type": "challenge", "challenge": {"id": "c1", "timeControl": {"type": "clock", "limit": "soon"}}}',
]
GAME_LINES = [
    '{"type": "gameState", "moves": "e2e4", "wtime": ',  # invalid JSON
    '{"type": "surprise"}',  # unknown type
    '{"type": "gameState", "wtime": 1000, "btime": 1000}',  # missing moves
    '{"type": "gameState", "moves": ["e2e4"], "wtime": 1000, "btime": 1000}',  # wrong type
    '{"type": "gameState", "moves": "", "wtime": "lots", "btime": 1000}',
    '{"type": "gameState", "moves": "", "wtime": 1e999, "btime": 1000}',
    '{"type": "chatLine", "room": null, "username": 7, "text": ["x"]}',
]


def board_factory() -> Any:
    """The server's boards: ``BAD_FEN`` games are really played from the start position, but the bot is sent
    ``BAD_FEN`` (a FEN its own board rejects)."""
    real = default_board_factory()

    def make(fen: str, variant: str = "seirawan", chess960: bool = False) -> Any:
        return real(None if fen == BAD_FEN else fen, variant=variant, chess960=chess960)

    return make


@pytest.fixture
def odd_server(dialect: str) -> Any:
    with refereed_server(dialect, keepalive_s=KEEPALIVE_S,
                        board_factory=board_factory(), float_clocks=True) as srv:
        yield srv


def test_malformed_lines_are_skipped_and_broken_games_left_cleanly_while_the_others_go_on(
    odd_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    server = odd_server
    caplog.set_level(logging.INFO)
    healthy = server.challenge(challenger="Healthy", color="white", clock=(120, 1),
                               opponent=Scripted(["e2e4", "g1f3", "wait"]))
    config = bot_config(server, tmp_path, challenge={"concurrency": 3, "variants": ["seirawan", "chess"]})
    bots.append(BotThread(config).start())
    server.wait_for_plies(healthy, 2, GAME_S)
    for line in EVENT_LINES:
        server.inject_event_line(line)
    for line in GAME_LINES:
        server.inject_game_line(healthy, line)
    # an unknown variant (gameStart/challenge with chess960 as a string, as pychess sends it)
    server.inject_event_line('{"type": "challenge", "challenge": {"id": "shogi1", "challenger": {"name": "Odd"}, '
                             '"variant": {"key": "shogi"}, "rated": "False", "chess960": "False", '
                             '"timeControl": {"type": "clock", "limit": 60.5, "increment": 0}}}')
    bad_fen = server.challenge(challenger="BadFen", color="white", clock=(120, 1), initial_fen=BAD_FEN,
                               opponent=Scripted(["wait"]))
    illegal = server.challenge(challenger="Illegal", color="white", clock=(120, 1),
                               opponent=Scripted(["e2e4", "g1f3", "wait"]))
    server.wait_for_plies(illegal, 2, GAME_S)
    server.inject_game_line(illegal, '{"type": "gameState", "moves": "e2e4 e7e5 e1e8", "wtime": 100000.5, '
                            '"btime": 100000, "winc": 1, "binc": 1, "status": "started"}')
    assert server.wait_for_game_end(bad_fen, GAME_S).status == "aborted", "a game the board cannot set up: aborted"
    broken = server.wait_for_game_end(illegal, GAME_S)
    assert broken.status in ("aborted", "resign") and broken.winner is not broken.bot_color
    server.set_opponent(healthy, ResignAfter(8, seed=4))
    game = server.wait_for_game_end(healthy, GAME_S)
    assert_clean_game(game)
    assert game.status == "resign" and len(game.bot_moves()) >= 7, "the healthy game was played to its end"
    wait_until((tmp_path / f"{healthy}.pgn").exists, "the healthy game's PGN", 10)
    assert bots[0].stop(GAME_S) == 0
    text = caplog.text
    assert text.count("skipped a malformed line") >= len(EVENT_LINES) + len(GAME_LINES) - 3  # 3 are valid shapes
    # the unknown variant is declined (the loopback server never issued that challenge, hence a 404 answer)
    assert [r.form.get("reason") for r in server.requests_to("decline", "shogi1")] == ["variant"]
    assert "challenge shogi1: could not answer" in text
    assert f"game {bad_fen}: cannot set up the position" in text
    assert f"game {illegal}:" in text and "aborting" in text
    assert "unexpected error" not in text and "Traceback" not in text
