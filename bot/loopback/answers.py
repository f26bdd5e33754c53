"""What the loopback server answers: an HTTP status with a JSON (or text) body, and the bots listed online."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

from bot.loopback.model import User
from bot.loopback.opponents import Opponent

OpponentFactory = Callable[[], Opponent]


@dataclass
class Reply:
    """An HTTP answer: status and a JSON body (or plain text when ``body`` is a ``str``)."""

    status: int
    body: Union[dict[str, Any], list[Any], str] = field(default_factory=lambda: {"ok": True})
    headers: dict[str, str] = field(default_factory=dict)


OK = Reply(200, {"ok": True})


@dataclass
class ScriptedBot:
    """A bot listed by ``/api/bot/online`` that answers the bot's own challenges (Lichess dialect)."""

    player: User
    answer: str = "accept"
    decline_reason: str = "generic"
    answer_delay_s: float = 0.05
    opponent: Optional[OpponentFactory] = None
