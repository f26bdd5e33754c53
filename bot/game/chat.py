"""Game-chat commands: ``!help``, ``!name``, ``!eval``, ``!queue``.

Only the first word of a chat line is looked at, and only when it is exactly one of these commands; any other
text (and anything after the command) is ignored, so nothing an opponent writes can steer the bot. Replies are
rate limited per room by :class:`ChatLimiter` (an injectable clock makes it testable).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.config import ChatSettings
from bot.wire.dialect import Dialect

COMMANDS = ("!help", "!name", "!eval", "!queue")
#: Replies are cut to this length (Lichess refuses chat lines over 140 characters).
MAX_REPLY_CHARS = 140


@dataclass(frozen=True)
class ChatContext:
    """What the commands can tell: filled in by the game worker at the moment of the command."""

    engine_name: str
    bot_version: str
    last_score: str | None = None  # e.g. "+0.42" or "#3", from our point of view
    last_depth: int | None = None
    challenges_waiting: int = 0


def parse_command(text: str) -> str | None:
    """The command a chat line asks for (``"!eval"``), or None. Case-insensitive, first word only."""
    words = text.strip().split(maxsplit=1)
    if not words:
        return None
    word = words[0].lower()
    return word if word in COMMANDS else None


def eval_rooms(settings: ChatSettings, dialect: Dialect | None) -> tuple[str, ...]:
    """Where ``!eval`` is answered: ``chat.eval_rooms``, or by default where people can read it: on pychess.org
    the player room (a BOT's chat reaches only the opponent's page, which drops spectator lines), on Lichess
    the spectator room (the opponent is not told our evaluation)."""
    if settings.eval_rooms is not None:
        return tuple(settings.eval_rooms)
    return dialect.chat_rooms if dialect is not None else ("spectator",)


def command_reply(command: str, room: str, context: ChatContext, settings: ChatSettings,
                  dialect: Dialect | None = None) -> str | None:
    """The reply to ``command`` written in ``room`` (``player`` / ``spectator``), or None to stay silent."""
    if command == "!help":
        reply = "Commands: " + ", ".join(COMMANDS)
    elif command == "!name":
        reply = f"I am schess-bot {context.bot_version}, playing with {context.engine_name}."
    elif command == "!eval":
        rooms = eval_rooms(settings, dialect)
        if room not in rooms:
            reply = f"I tell the evaluation only in the {' and '.join(rooms)} chat."
        elif context.last_score is None:
            reply = "No evaluation yet."
        else:
            depth = f" at depth {context.last_depth}" if context.last_depth is not None else ""
            reply = f"Evaluation {context.last_score}{depth} (my point of view)."
    elif command == "!queue":
        count = context.challenges_waiting
        reply = "No challenges waiting." if count == 0 else (
            f"{count} challenge{'s' if count != 1 else ''} waiting.")
    else:
        return None
    return reply[:MAX_REPLY_CHARS]


class ChatLimiter:
    """At most one reply per room every ``cooldown_s`` seconds; extra commands are dropped, not queued."""

    def __init__(self, cooldown_s: float, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.cooldown_s = cooldown_s
        self.monotonic = monotonic
        self._last: dict[str, float] = {}

    def allow(self, room: str) -> bool:
        """Whether a reply may be sent to ``room`` now (and if so, count it)."""
        now = self.monotonic()
        last = self._last.get(room)
        if last is not None and now - last < self.cooldown_s:
            return False
        self._last[room] = now
        return True
