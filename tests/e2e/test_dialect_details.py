"""Server quirks the bot must take in its stride: king-takes-rook castling, float clocks, close-delimited
streams, S-chess960 and standard chess games, a server that refuses connections for a while."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.loopback import LoopbackServer, RandomMoves, Scripted
from tests.e2e.conftest import KEEPALIVE_S, BotThread, assert_clean_game, bot_config, refereed_server, replay_pgn
from tests.timing import GAME_S, PATIENCE_S, STARTUP_S, wait_until

CASTLING_READY = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"


@pytest.fixture
def make_server() -> Iterator[list[LoopbackServer]]:
    servers: list[LoopbackServer] = []
    yield servers
    for server in servers:
        server.stop()


def start(servers: list[LoopbackServer], dialect: str, **options: object) -> LoopbackServer:
    server = refereed_server(dialect, keepalive_s=KEEPALIVE_S, **options)
    servers.append(server.start())
    return server


def test_lichess_king_takes_rook_castling_in_the_move_list(
    make_server: list[LoopbackServer], tmp_path: Path, bots: list[BotThread]
) -> None:
    server = start(make_server, "lichess", king_takes_rook=True)
    game_id = server.challenge(
        variant="chess", initial_fen=CASTLING_READY, color="black", opponent=Scripted(["e8g8", "resign"])
    )
    bots.append(BotThread(bot_config(server, tmp_path), max_games=1).start())
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert game.moves[1] == "e8g8" and game.wire_moves[1] == "e8h8", "the server wrote king-takes-rook"
    assert (game.status, game.winner, len(game.moves)) == ("resign", True, 3), "the bot moved after the castling"


@pytest.mark.parametrize(
    ("dialect", "options"),
    [
        ("pychess", {"float_clocks": True}),
        ("pychess", {"stream_encoding": "close"}),
        ("lichess", {"stream_encoding": "close"}),
    ],
    ids=["pychess-float-clocks", "pychess-close-delimited", "lichess-close-delimited"],
)
def test_a_game_with_server_quirks(
    make_server: list[LoopbackServer], tmp_path: Path, bots: list[BotThread], dialect: str, options: dict[str, object]
) -> None:
    server = start(make_server, dialect, **options)
    game_id = server.challenge(clock=(120, 1), opponent=RandomMoves(seed=21))
    bots.append(BotThread(bot_config(server, tmp_path), max_games=1).start())
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert game.status in ("mate", "draw", "stalemate"), game.describe()


@pytest.mark.parametrize(
    ("dialect", "variant", "chess960"),
    [
        ("pychess", "seirawan", True),
        ("lichess", "seirawan", True),
        ("lichess", "chess", False),
        ("lichess", "chess", True),
    ],
)
def test_other_variants_played_to_the_end(
    make_server: list[LoopbackServer], tmp_path: Path, bots: list[BotThread], dialect: str, variant: str, chess960: bool
) -> None:
    server = start(make_server, dialect, seed=7)
    game_id = server.challenge(variant=variant, chess960=chess960, clock=(120, 1), opponent=RandomMoves(seed=22))
    variants = ["seirawan", "seirawan960", "chess", "chess960"]
    bots.append(BotThread(bot_config(server, tmp_path, challenge={"variants": variants}), max_games=1).start())
    assert server.wait_for_answer(game_id, STARTUP_S).accepted
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert game.status in ("mate", "draw", "stalemate"), game.describe()
    assert bots[0].join(GAME_S) == 0
    assert replay_pgn(tmp_path / f"{game_id}.pgn", variant, chess960) == game.moves


def test_the_bot_waits_for_a_server_that_refuses_connections(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="bot.wire.streams")
    game_id = lichess_server.challenge(color="white", opponent=Scripted(["e2e4", "d2d4", "wait"]))
    bots.append(BotThread(bot_config(lichess_server, tmp_path), max_games=1).start())
    lichess_server.wait_for_plies(game_id, 2, GAME_S)
    lichess_server.faults.refuse_connections(3)  # it also cuts the streams
    # the opponent plays on while the bot finds the server refusing it (an attempt to reconnect refused), or,
    # on a machine too busy for the bot to try within the refusal's 3 s, once the refusal is over
    wait_until(lambda: "still down (connection refused" in caplog.text or not lichess_server.faults.refusing,
               "the bot to meet the refusal", 3 + PATIENCE_S)
    lichess_server.set_opponent(game_id, RandomMoves(seed=23))
    game = lichess_server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert game.stream_connections >= 2
