"""The real bot plays complete S-chess games on the loopback server, in both dialects, to every end."""

from __future__ import annotations

from pathlib import Path

from bot.loopback import LoopbackServer, Manual, RandomMoves, Scripted
from tests.e2e.conftest import BotThread, assert_clean_game, bot_config, replay_pgn
from tests.timing import GAME_S, STARTUP_S

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1[] w - - 0 1"
HOPELESS = "qr4k1/8/8/8/8/8/8/7K[] w - - 0 1"
LAST_PAWN = "8/8/4k3/8/8/3p4/4K3/8[] w - - 0 1"


def test_a_complete_s_chess_game_from_the_start_position(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    game_id = server.challenge(challenger="Alice", clock=(120, 2), opponent=RandomMoves(seed=11))
    bots.append(BotThread(bot_config(server, tmp_path), max_games=1).start())
    assert server.wait_for_answer(game_id, STARTUP_S).accepted
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert game.status in ("mate", "draw", "stalemate"), game.describe()
    assert len(game.bot_moves()) >= 2
    assert bots[0].join(GAME_S) == 0, "the bot stops by itself after --games 1"
    saved = tmp_path / f"{game_id}.pgn"
    assert saved.exists(), list(tmp_path.iterdir())
    assert replay_pgn(saved) == game.moves, "the bot's PGN replays to the server's move list"
    assert game.result() in saved.read_text()
    hello = [c.text for c in game.chat if c.by == "bot"]
    assert hello and "Good luck" in hello[0]
    if server.dialect == "pychess":
        caps = server.requests_to("stream_event")[0].headers["X-PyChess-Bot-Capabilities"]
        assert '"seirawan"' in caps
        assert all(r.json_body is None for r in server.requests_to("chat")), "pychess needs form bodies"


def test_the_bot_mates(server: LoopbackServer, tmp_path: Path, bots: list[BotThread]) -> None:
    game_id = server.challenge(initial_fen=MATE_IN_ONE, color="black", opponent=Manual())
    bots.append(BotThread(bot_config(server, tmp_path), max_games=1).start())
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert (game.status, game.winner, game.moves) == ("mate", True, ["a1a8"])
    assert bots[0].join(GAME_S) == 0


def test_the_bot_resigns_a_hopeless_game(server: LoopbackServer, tmp_path: Path, bots: list[BotThread]) -> None:
    game_id = server.challenge(initial_fen=HOPELESS, color="black", opponent=RandomMoves(seed=2))
    config = bot_config(server, tmp_path, resign={"enabled": True, "score_cp": -500, "moves": 2})
    bots.append(BotThread(config, max_games=1).start())
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert (game.status, game.winner) == ("resign", False), game.describe()
    assert server.requests_to("resign", game_id), "the bot resigned through the API"
    assert bots[0].join(GAME_S) == 0, "a resigned game counts as finished even without an end event (pychess)"


def test_the_opponent_resigns(server: LoopbackServer, tmp_path: Path, bots: list[BotThread]) -> None:
    game_id = server.challenge(color="black", opponent=Scripted(["e7e5", "resign"]))
    bots.append(BotThread(bot_config(server, tmp_path), max_games=1).start())
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert (game.status, game.winner, len(game.moves)) == ("resign", True, 3)
    assert bots[0].join(GAME_S) == 0


def test_a_drawn_position_ends_the_game(server: LoopbackServer, tmp_path: Path, bots: list[BotThread]) -> None:
    game_id = server.challenge(initial_fen=LAST_PAWN, color="black", opponent=Manual())
    bots.append(BotThread(bot_config(server, tmp_path), max_games=1).start())
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert (game.status, game.winner, game.moves) == ("draw", None, ["e2d3"]), "king takes the last pawn"
    assert game.termination == "insufficient material"
    assert bots[0].join(GAME_S) == 0
    assert "1/2-1/2" in (tmp_path / f"{game_id}.pgn").read_text()


def test_draw_agreed_on_lichess(lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]) -> None:
    game_id = lichess_server.challenge(color="black", opponent=RandomMoves(seed=4, accept_draws=True))
    config = bot_config(
        lichess_server,
        tmp_path,
        draw={"enabled": True, "offer_after_move": 1, "max_score_cp": 10000, "moves": 1},
    )
    bots.append(BotThread(config, max_games=1).start())
    game = lichess_server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert (game.status, game.termination) == ("draw", "draw agreed")
    assert game.bot_draw_offers >= 1


def test_no_draw_offers_are_sent_to_pychess(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    game_id = pychess_server.challenge(color="black", opponent=Scripted(["e7e5", "g8f6", "resign"]))
    config = bot_config(
        pychess_server,
        tmp_path,
        draw={"enabled": True, "offer_after_move": 1, "max_score_cp": 10000, "moves": 1},
    )
    bots.append(BotThread(config, max_games=1).start())
    game = pychess_server.wait_for_game_end(game_id, GAME_S)
    assert game.status == "resign" and game.bot_draw_offers == 0
    assert not pychess_server.requests_to("draw")
    assert not [r for r in pychess_server.requests_to("move") if "offeringDraw" in r.path]


def test_the_final_move_never_arrives_on_pychess(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    game_id = pychess_server.challenge(initial_fen=MATE_IN_ONE, color="black", opponent=Manual())
    bots.append(BotThread(bot_config(pychess_server, tmp_path), max_games=1).start())
    game = pychess_server.wait_for_game_end(game_id, GAME_S)
    assert (game.status, game.moves) == ("mate", ["a1a8"])
    assert bots[0].join(GAME_S) == 0
    saved = tmp_path / f"{game_id}.pgn"
    assert saved.exists(), "a PGN is saved for every finished game"
    assert "1-0" in saved.read_text()


def test_a_game_the_opponent_never_starts_is_aborted(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    game_id = server.challenge(color="white", opponent=Manual())  # white never makes a first move
    bots.append(BotThread(bot_config(server, tmp_path, time={"abort_unstarted_after_s": 1}), max_games=1).start())
    game = server.wait_for_game_end(game_id, GAME_S)
    assert (game.status, game.moves, game.termination) == ("aborted", [], "bot aborted")
    assert server.requests_to("abort", game_id)
    assert bots[0].join(GAME_S) == 0
