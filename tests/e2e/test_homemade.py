"""A homemade engine (a Python class) plays whole games on the loopback server in both dialects, under the
same legality check and failure policy as an engine process."""

from __future__ import annotations

from pathlib import Path

from bot.loopback import Game, LoopbackServer, RandomMoves
from tests.bot import homemade_fixtures
from tests.e2e.conftest import BotThread, assert_clean_game, bot_config, replay_pgn
from tests.timing import GAME_S


def play_one_game(server: LoopbackServer, tmp_path: Path, bots: list[BotThread], command: str, seed: int,
                  timeout: float) -> tuple[str, Game]:
    """The bot, as White with the homemade engine ``command``, against random moves: the game id and game."""
    config = bot_config(server, tmp_path, engine={"protocol": "homemade", "command": command})
    game_id = server.challenge(color="black", clock=(120, 2), opponent=RandomMoves(seed=seed))
    bots.append(BotThread(config, max_games=1).start())
    return game_id, server.wait_for_game_end(game_id, timeout)


def test_the_example_engine_plays_a_whole_s_chess_game(server: LoopbackServer, tmp_path: Path,
                                                       bots: list[BotThread]) -> None:
    game_id, game = play_one_game(server, tmp_path, bots, "bot.engines.homemade_example:MaterialGreedy", 9, 120)
    assert_clean_game(game)
    assert len(game.bot_moves()) >= 2
    assert bots[0].join(GAME_S) == 0
    pgn = tmp_path / f"{game_id}.pgn"
    assert replay_pgn(pgn) == game.moves
    assert ",1]" in pgn.read_text(), "the example's evaluations (depth 1) reach the PGN"


def test_a_homemade_engine_that_keeps_failing_is_resigned_within_two_moves(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    homemade_fixtures.Breaks.calls = 0
    game_id, game = play_one_game(server, tmp_path, bots, "tests.bot.homemade_fixtures:Breaks", 4, 60)
    assert_clean_game(game)
    assert game.status == "resign" and game.winner is False, game.describe()
    assert len(game.bot_moves()) == 3, "two engine moves and one stand-in, then the resignation"
    assert bots[0].join(GAME_S) == 0
    assert "stand-in move" in (tmp_path / f"{game_id}.pgn").read_text()
