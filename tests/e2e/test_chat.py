"""Chat commands in a real game on the loopback server: !help, !name, !eval (by default where people can read
it: pychess's player room, Lichess's spectator room),
!queue; replies go to the room the command came from, are rate limited, and other text is ignored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot import __version__
from bot.loopback import LoopbackServer, Manual
from tests.e2e.conftest import BotThread, bot_config
from tests.timing import GAME_S, PATIENCE_S, STARTUP_S


def bot_replies(server: LoopbackServer, game_id: str) -> list[tuple[str, str]]:
    return [(c.room, c.text) for c in server.game(game_id).chat if c.by == "bot"]


def wait_for_replies(server: LoopbackServer, game_id: str, count: int, timeout: float = PATIENCE_S) -> Any:
    return server.wait_for(lambda: len(bot_replies(server, game_id)) >= count or None, timeout,
                           f"{count} bot chat lines")


def played_on(server: LoopbackServer, game_id: str) -> None:
    """The opponent moves and the bot answers: the game stream brings the chat lines sent before the move first,
    and the bot answers a chat line before it reads the next one, so once its move is in, every earlier line
    has had its answer (or its silence)."""
    server.play_opponent_move(game_id, "e7e5")
    server.wait_for_plies(game_id, 3, GAME_S)


def start_game(server: LoopbackServer, tmp_path: Path, bots: list[BotThread], **chat: Any) -> str:
    config = bot_config(server, tmp_path, greeting={"hello": "", "goodbye": ""}, chat=chat)
    game_id = server.challenge(color="black", opponent=Manual())
    bots.append(BotThread(config).start())
    server.wait_for_plies(game_id, 1, STARTUP_S)  # the bot (white) has moved and has an evaluation
    return game_id


def test_commands_are_answered_in_their_room(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    game_id = start_game(server, tmp_path, bots, cooldown_s=0)
    server.send_chat(game_id, "!help")
    wait_for_replies(server, game_id, 1)
    server.send_chat(game_id, "!NAME please")
    wait_for_replies(server, game_id, 2)
    server.send_chat(game_id, "!eval")
    wait_for_replies(server, game_id, 3)
    server.send_chat(game_id, "!eval", room="spectator")
    wait_for_replies(server, game_id, 4)
    server.send_chat(game_id, "!queue", room="spectator")
    replies = wait_for_replies(server, game_id, 5) and bot_replies(server, game_id)
    assert replies[0] == ("player", "Commands: !help, !name, !eval, !queue")
    assert replies[1][0] == "player" and f"schess-bot {__version__}" in replies[1][1]
    answered, refused = (replies[2], replies[3]) if server.dialect == "pychess" else (replies[3], replies[2])
    assert refused[1] == f"I tell the evaluation only in the {answered[0]} chat.", refused
    room, text = answered
    assert room == ("player" if server.dialect == "pychess" else "spectator"), answered
    assert text.startswith("Evaluation ") and "at depth 1" in text, text
    assert replies[4] == ("spectator", "No challenges waiting.")


def test_other_text_is_ignored_and_replies_are_rate_limited(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    game_id = start_game(lichess_server, tmp_path, bots, cooldown_s=30)
    for text in ("please resign !eval", "!resign", "!eval; !help", "hello", "!helpme"):
        lichess_server.send_chat(game_id, text)
    lichess_server.send_chat(game_id, "!help")
    wait_for_replies(lichess_server, game_id, 1)
    lichess_server.send_chat(game_id, "!name")
    lichess_server.send_chat(game_id, "!name", room="spectator")
    wait_for_replies(lichess_server, game_id, 2)
    played_on(lichess_server, game_id)
    replies = bot_replies(lichess_server, game_id)
    assert replies[0] == ("player", "Commands: !help, !name, !eval, !queue"), "only the first word counts"
    assert [room for room, _ in replies] == ["player", "spectator"], (
        "a second command in the player room within the cooldown is dropped; the spectator room has its own")
    assert lichess_server.game(game_id).moves and not lichess_server.requests_to("resign")


def test_eval_in_the_player_room_when_configured(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    game_id = start_game(lichess_server, tmp_path, bots, eval_rooms=["player", "spectator"])
    lichess_server.send_chat(game_id, "!eval")
    wait_for_replies(lichess_server, game_id, 1)
    room, text = bot_replies(lichess_server, game_id)[0]
    assert room == "player" and text.startswith("Evaluation ")


def test_commands_can_be_switched_off(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    game_id = start_game(pychess_server, tmp_path, bots, commands=False)
    pychess_server.send_chat(game_id, "!help")
    played_on(pychess_server, game_id)
    assert bot_replies(pychess_server, game_id) == []
