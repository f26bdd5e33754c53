"""Lichess takeback requests and draw offers from the opponent, answered by the real bot on the loopback server:
takebacks up to ``takeback.max_takebacks`` per game, draws by score and move number."""

from __future__ import annotations

from pathlib import Path

from bot.loopback import LoopbackServer, Manual
from tests.e2e.conftest import BotThread, bot_config
from tests.timing import GAME_S, PATIENCE_S, STARTUP_S

HOPELESS = "qr4k1/8/8/8/8/8/7K/8[] b - - 0 30"


def answers(server: LoopbackServer, endpoint: str, game_id: str) -> list[str]:
    return [r.path.rsplit("/", 1)[-1] for r in server.requests_to(endpoint, game_id)]


def played_on(server: LoopbackServer, game_id: str, uci: str, plies: int) -> None:
    """The opponent plays ``uci`` and the bot answers it: the bot reads its game stream in order, so by its
    move it has answered (or ignored) every request and offer that came before."""
    server.play_opponent_move(game_id, uci)
    server.wait_for_plies(game_id, plies, GAME_S)


def test_takebacks_are_granted_up_to_the_limit(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    game_id = lichess_server.challenge(color="black", opponent=Manual())
    bots.append(BotThread(bot_config(lichess_server, tmp_path, takeback={"max_takebacks": 1})).start())
    lichess_server.wait_for_plies(game_id, 1, STARTUP_S)
    lichess_server.play_opponent_move(game_id, "e7e5")
    lichess_server.wait_for_plies(game_id, 3, GAME_S)
    lichess_server.play_opponent_move(game_id, "d7d6")
    lichess_server.wait_for_plies(game_id, 5, GAME_S)
    lichess_server.offer_takeback(game_id)  # the opponent's d7d6 and the bot's reply go back
    lichess_server.wait_for_request("takeback", game_id, timeout=PATIENCE_S)
    game = lichess_server.wait_for(
        lambda: lichess_server.game(game_id) if len(lichess_server.game(game_id).moves) == 3 else None, PATIENCE_S,
        "the takeback")
    assert answers(lichess_server, "takeback", game_id) == ["yes"]
    assert game.moves[1] == "e7e5"
    lichess_server.play_opponent_move(game_id, "g8f6")  # the bot plays on from the old position
    lichess_server.wait_for_plies(game_id, 5, GAME_S)
    lichess_server.offer_takeback(game_id)
    lichess_server.wait_for_request("takeback", game_id, count=2, timeout=PATIENCE_S)
    assert answers(lichess_server, "takeback", game_id) == ["yes", "no"], "the second request is declined"
    assert len(lichess_server.game(game_id).moves) == 5


def test_takebacks_are_declined_by_default(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    game_id = lichess_server.challenge(color="black", opponent=Manual())
    bots.append(BotThread(bot_config(lichess_server, tmp_path)).start())
    lichess_server.wait_for_plies(game_id, 1, STARTUP_S)
    lichess_server.play_opponent_move(game_id, "e7e5")
    lichess_server.wait_for_plies(game_id, 3, GAME_S)
    before = list(lichess_server.game(game_id).moves)
    lichess_server.offer_takeback(game_id)
    lichess_server.wait_for_request("takeback", game_id, timeout=PATIENCE_S)
    assert answers(lichess_server, "takeback", game_id) == ["no"]
    played_on(lichess_server, game_id, "d7d6", 5)  # a second answer, or a takeback, would come before this
    assert answers(lichess_server, "takeback", game_id) == ["no"]
    assert lichess_server.game(game_id).moves[:3] == before, "nothing was taken back"


def test_an_early_draw_offer_is_declined(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    game_id = lichess_server.challenge(color="black", opponent=Manual())
    config = bot_config(lichess_server, tmp_path, draw={"enabled": True, "offer_after_move": 30})
    bots.append(BotThread(config).start())
    lichess_server.wait_for_plies(game_id, 1, STARTUP_S)
    lichess_server.offer_draw(game_id)
    lichess_server.wait_for_request("draw", game_id, timeout=PATIENCE_S)
    assert answers(lichess_server, "draw", game_id) == ["no"]
    assert not lichess_server.game(game_id).over


def test_a_draw_offer_in_a_lost_position_is_accepted(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    # the bot (white) has a bare king against queen and rook: any draw is a gift
    game_id = lichess_server.challenge(initial_fen=HOPELESS, color="black", opponent=Manual())
    config = bot_config(lichess_server, tmp_path, draw={"enabled": True})
    bots.append(BotThread(config).start())
    lichess_server.wait_for(lambda: lichess_server.games.get(game_id), STARTUP_S, "the game")
    lichess_server.play_opponent_move(game_id, "g8g7")
    lichess_server.wait_for_plies(game_id, 2, STARTUP_S)
    lichess_server.play_opponent_move(game_id, "g7f7")
    lichess_server.wait_for_plies(game_id, 4, GAME_S)
    lichess_server.offer_draw(game_id)
    game = lichess_server.wait_for_game_end(game_id, PATIENCE_S)
    assert answers(lichess_server, "draw", game_id) == ["yes"]
    assert (game.status, game.termination) == ("draw", "draw agreed")


def test_no_takeback_or_draw_answers_on_pychess(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    game_id = pychess_server.challenge(color="black", opponent=Manual())
    bots.append(BotThread(bot_config(pychess_server, tmp_path, takeback={"max_takebacks": 5})).start())
    pychess_server.wait_for_plies(game_id, 1, STARTUP_S)
    pychess_server.offer_takeback(game_id)
    pychess_server.offer_draw(game_id)
    played_on(pychess_server, game_id, "e7e5", 3)
    assert not pychess_server.requests_to("takeback") and not pychess_server.requests_to("draw")
