"""Chat commands as pure functions: what is a command, what the replies say, the per-room rate limit."""

from __future__ import annotations

import pytest

from bot.config import ChatSettings
from bot.game.chat import MAX_REPLY_CHARS, ChatContext, ChatLimiter, command_reply, parse_command
from bot.wire.dialect import LICHESS, PYCHESS

CONTEXT = ChatContext(engine_name="Fairy-Stockfish 14", bot_version="0.1.0", last_score="+0.42",
                      last_depth=12, challenges_waiting=2)


@pytest.mark.parametrize("text, command", [
    ("!help", "!help"), ("  !EVAL  ", "!eval"), ("!name please", "!name"), ("!queue", "!queue"),
    ("please resign !eval", None), ("!resign", None), ("!helpme", None), ("", None), ("   ", None),
    ("!eval;rm -rf /", None),
])
def test_only_the_first_word_counts_and_only_known_commands(text: str, command: str | None) -> None:
    assert parse_command(text) == command


def test_help_and_name() -> None:
    settings = ChatSettings()
    assert command_reply("!help", "player", CONTEXT, settings) == "Commands: !help, !name, !eval, !queue"
    assert command_reply("!name", "player", CONTEXT, settings) == (
        "I am schess-bot 0.1.0, playing with Fairy-Stockfish 14.")


def test_eval_goes_where_people_can_read_it_on_each_server() -> None:
    """pychess.org drops a BOT's spectator lines, so !eval is answered in the player room there; on Lichess
    the opponent is not told (spectators are)."""
    settings = ChatSettings()
    answer = "Evaluation +0.42 at depth 12 (my point of view)."
    assert command_reply("!eval", "player", CONTEXT, settings, PYCHESS) == answer
    assert command_reply("!eval", "spectator", CONTEXT, settings, PYCHESS) == (
        "I tell the evaluation only in the player chat.")
    assert command_reply("!eval", "spectator", CONTEXT, settings, LICHESS) == answer
    assert command_reply("!eval", "player", CONTEXT, settings, LICHESS) == (
        "I tell the evaluation only in the spectator chat.")
    both = ChatSettings(eval_rooms=("player", "spectator"))
    assert command_reply("!eval", "player", CONTEXT, both, LICHESS) == answer
    assert command_reply("!eval", "spectator", CONTEXT, both, PYCHESS) == answer


def test_eval_before_any_search_and_the_queue() -> None:
    empty = ChatContext(engine_name="x", bot_version="0.1.0")
    assert command_reply("!eval", "spectator", empty, ChatSettings(), LICHESS) == "No evaluation yet."
    assert command_reply("!queue", "player", empty, ChatSettings()) == "No challenges waiting."
    assert command_reply("!queue", "player", CONTEXT, ChatSettings()) == "2 challenges waiting."
    assert command_reply("!resign", "player", CONTEXT, ChatSettings()) is None


def test_replies_fit_in_a_lichess_chat_line() -> None:
    long_name = ChatContext(engine_name="E" * 500, bot_version="0.1.0")
    assert len(command_reply("!name", "player", long_name, ChatSettings()) or "") == MAX_REPLY_CHARS


def test_one_reply_per_room_per_cooldown() -> None:
    now = [100.0]
    limiter = ChatLimiter(5.0, monotonic=lambda: now[0])
    assert limiter.allow("player")
    assert not limiter.allow("player")
    assert limiter.allow("spectator"), "each room has its own budget"
    now[0] += 4.9
    assert not limiter.allow("player")
    now[0] += 0.2
    assert limiter.allow("player")
