"""Stream endpoints of the loopback server: the event stream (with pychess's capability header) and the game
streams, each opened already holding what the real servers re-send on connecting. A mixin of ``Referee``,
which provides the state."""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any, Optional, Union

import bot.loopback.wire as wire
from bot import ServerKind
from bot.loopback.answers import Reply
from bot.loopback.games import Game
from bot.loopback.model import LoopbackChallenge
from bot.loopback.streams import Stream

CAPABILITIES_HEADER = "X-PyChess-Bot-Capabilities"
MAX_CAPABILITIES_BYTES = 6 * 1024


class StreamDesk:
    """The ``api_open_*_stream`` methods (run under the referee's lock)."""

    dialect: ServerKind
    keepalive_s: float
    base_url: str
    bot_title: Optional[str]
    capabilities: Optional[dict[str, Any]]
    challenges: dict[str, LoopbackChallenge]
    games: dict[str, Game]
    event_streams: list[Stream]
    event_stream_connections: int
    second_game_stream_breaks: bool
    float_clocks: bool
    restarted_at: float
    _cond: threading.Condition

    if TYPE_CHECKING:

        def _offered_to_bot(self, challenge: LoopbackChallenge) -> bool: ...

        def announced_after_restart(self, game: Game) -> bool: ...

    def api_open_event_stream(self, headers: dict[str, str]) -> Union[Stream, Reply]:
        """``GET /api/stream/event``: the new stream, already holding re-sent challenges and games."""
        with self._cond:
            if self.dialect == "pychess":
                raw = headers.get(CAPABILITIES_HEADER.lower())
                if raw is None:
                    return Reply(400, {"error": f"missing {CAPABILITIES_HEADER} header"})
                try:
                    if len(raw.encode()) > MAX_CAPABILITIES_BYTES:
                        raise ValueError("too long")
                    capabilities = json.loads(raw)
                    if not isinstance(capabilities, dict):
                        raise ValueError("not an object")
                except ValueError:
                    return Reply(400, {"error": f"invalid {CAPABILITIES_HEADER} header"})
                self.capabilities = capabilities
                keepalive = wire.PYCHESS_PING
            else:
                for old in self.event_streams:
                    old.close()
                self.event_streams = []
                keepalive = wire.LICHESS_KEEPALIVE
            stream = Stream("event", None, keepalive, self.keepalive_s)
            for challenge in self.challenges.values():
                if challenge.status == "created" and challenge.direction == "in":
                    challenge.offered = self._offered_to_bot(challenge)
                    if challenge.offered:
                        stream.send(
                            wire.challenge_event(
                                challenge, self.dialect, self.base_url, bot_account=self.bot_title == "BOT"
                            )
                        )
            for game in self.games.values():
                if not game.over and self.announced_after_restart(game):
                    stream.send(wire.game_start_event(game, self.dialect))
            self.event_streams.append(stream)
            self.event_stream_connections += 1
            self._cond.notify_all()
            return stream

    def api_open_game_stream(self, game_id: str) -> Union[Stream, Reply]:
        """``GET /api/bot/game/stream/{id}``."""
        with self._cond:
            game = self.games.get(game_id)
            if game is None:
                return Reply(404, {"error": "No such game"})
            if self.dialect == "pychess" and self.second_game_stream_breaks and any(s.alive() for s in game.streams):
                game.stream_refusals += 1
                return Reply(200, "Error: this game is already streamed to you (one stream per game)\n")
            pychess = self.dialect == "pychess"
            keepalive = wire.PYCHESS_PING if pychess else wire.LICHESS_KEEPALIVE
            stream = Stream("game", game_id, keepalive, self.keepalive_s)
            for line in game.backlog:
                stream.send(line)
            game.backlog = []
            restarted = game.created_at < self.restarted_at
            stream.send(wire.game_full_line(game, self.dialect, self.float_clocks, restarted))
            if pychess:
                stream.send(wire.PYCHESS_PING)
            if game.over:
                if pychess and not game.termination.startswith("bot resigned"):
                    stream.send(wire.game_end_line(game))
                elif not pychess:
                    stream.close()
            game.streams = [s for s in game.streams if not s.finished.is_set() and not s.silent] + [stream]
            game.stream_connections += 1
            self._cond.notify_all()
            return stream
