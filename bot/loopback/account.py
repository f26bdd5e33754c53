"""Account endpoints of the loopback server, as both real servers have them: ``/api/account``, the BOT
upgrade, ``/api/token/test`` and ``/api/account/playing``. A mixin of ``Referee``, which provides the state."""

from __future__ import annotations

import threading
from typing import Optional

import bot.loopback.wire as wire
from bot import ServerKind
from bot.loopback.answers import OK, Reply
from bot.loopback.games import Game
from bot.loopback.model import User

#: what both servers say a BOT token may do (Lichess lists every scope; pychess says ``bot:play``)
TOKEN_SCOPES = {"lichess": "bot:play,challenge:read,challenge:write", "pychess": "bot:play"}
#: pychess answers every known token with this expiry (ms); Lichess with null for a token that never expires
PYCHESS_TOKEN_EXPIRES_MS = 1358509698620


class AccountDesk:
    """The ``api_*`` methods about the bot's account (run under the referee's lock)."""

    dialect: ServerKind
    token: str
    bot: User
    bot_title: Optional[str]
    games: dict[str, Game]
    _cond: threading.Condition

    def api_account(self) -> Reply:
        """``GET /api/account``."""
        return Reply(200, wire.account_json(self.bot, self.dialect, self.bot_title))

    def api_upgrade(self) -> Reply:
        """``POST /api/bot/account/upgrade``: becomes a BOT account (400 if it already is one)."""
        with self._cond:
            if self.bot_title == "BOT":
                return Reply(400, {"error": "This account is already a bot account"})
            self.bot_title = "BOT"
            return OK

    def api_token_test(self, body: str) -> Reply:
        """``POST /api/token/test`` (no token needed): the body is tokens separated by commas; each maps to
        its owner and scopes, or to null when the server does not know it."""
        answer: dict[str, Optional[dict[str, object]]] = {}
        for token in body.split(","):
            if token != self.token:
                answer[token] = None
            elif self.dialect == "pychess":
                answer[token] = {"scopes": TOKEN_SCOPES["pychess"], "userId": self.bot.name,
                                 "expires": PYCHESS_TOKEN_EXPIRES_MS}
            else:
                answer[token] = {"scopes": TOKEN_SCOPES["lichess"], "userId": self.bot.id, "expires": None}
        return Reply(200, answer)

    def api_playing(self, limit: int) -> Reply:
        """``GET /api/account/playing?nb=``: the bot's running games, as in Lichess's gameStart; pychess
        always answers an empty list."""
        with self._cond:
            if self.dialect == "pychess":
                return Reply(200, {"nowPlaying": []})
            running = [game for game in self.games.values() if not game.over]
            return Reply(200, {"nowPlaying": [wire.now_playing_json(game) for game in running[:limit]]})
