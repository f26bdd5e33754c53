"""In-game endpoints of the loopback server: the bot's moves, draw and takeback answers, resignation, abort,
claims, chat, and pychess's public game page. A mixin of ``Referee``, which provides the state and helpers."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Optional, Union

import bot.loopback.wire as wire
from bot import ServerKind
from bot.loopback.answers import OK, Reply
from bot.loopback.games import BoardFactory, Game, default_board_factory
from bot.loopback.model import ChatRecord, MoveRecord, User


class GameDesk:
    """The ``api_*`` methods about running games (run under the referee's lock)."""

    dialect: ServerKind
    bot: User
    games: dict[str, Game]
    board_factory: Optional[BoardFactory]
    _cond: threading.Condition
    #: how far behind an ongoing game Lichess's export is, in seconds (None: as Lichess, by time control)
    export_delay_s: Optional[float] = None

    if TYPE_CHECKING:

        def _emit_game(self, game: Game, line: str) -> None: ...

        def _state_line(self, game: Game, moves: Optional[list[str]] = None) -> str: ...

        def _push(self, game: Game, uci: str, by: str) -> None: ...

        def _finish(self, game: Game, status: str, winner: Optional[bool], termination: str,
                    end_event: bool = True) -> None: ...

    def _playing_game(self, game_id: str) -> Union[Game, Reply]:
        game = self.games.get(game_id)
        if game is None:
            return Reply(404, {"error": "No such game"})
        return game

    def _running_game(self, game_id: str) -> Union[Game, Reply]:
        """The game, or the answer the server gives when it does not exist (404) or is over (400)."""
        game = self._playing_game(game_id)
        if isinstance(game, Game) and game.over:
            return Reply(400, {"error": "Game is over"})
        return game

    def api_move(self, game_id: str, uci: str, offering_draw: bool) -> Reply:
        """``POST /api/bot/game/{id}/move/{uci}``: pychess answers 200 to an illegal move, which loses."""
        with self._cond:
            game = self._playing_game(game_id)
            if isinstance(game, Reply):
                return game
            pychess = self.dialect == "pychess"
            if game.over or not game.is_bot_turn():
                reason = "game over" if game.over else "not your turn"
                game.rejected.append((uci, reason))
                self._cond.notify_all()
                return OK if pychess else Reply(400, {"error": "Not your turn, or game already over"})
            move = game.canonical_move(uci, lichess=not pychess)
            if move is None:
                game.rejected.append((uci, "illegal"))
                game.move_log.append(
                    MoveRecord(ply=len(game.moves) + 1, uci=uci, by="bot", at=time.time(), legal=False)
                )
                if pychess:
                    self._finish(game, "illegal", not game.bot_color, f"bot played an illegal move {uci}")
                    return OK
                self._cond.notify_all()
                return Reply(400, {"error": f"Piece cannot move: {uci} is illegal in {game.board.fen()}"})
            self._push(game, move, "bot")
            if offering_draw and not pychess and not game.over:
                self._bot_offers_draw(game)
            return OK

    def _bot_offers_draw(self, game: Game) -> None:
        game.bot_draw_offers += 1
        if game.opponent.accepts_draw(game.position_for(not game.bot_color)):
            self._finish(game, "draw", None, "draw agreed")
        else:
            game.draw_offer[game.bot_color] = True
            game.version += 1
            self._emit_game(game, self._state_line(game))

    def api_draw(self, game_id: str, yes: bool) -> Reply:
        """Lichess ``/draw/{yes,no}``: accept the opponent's offer, or offer one."""
        with self._cond:
            game = self._running_game(game_id)
            if isinstance(game, Reply):
                return game
            opponent_offered = game.draw_offer[not game.bot_color]
            if yes and opponent_offered:
                self._finish(game, "draw", None, "draw agreed")
            elif yes:
                self._bot_offers_draw(game)
            elif opponent_offered:
                game.draw_offer[not game.bot_color] = False
                game.version += 1
                self._emit_game(game, self._state_line(game))
            self._cond.notify_all()
            return OK

    def api_takeback(self, game_id: str, yes: bool) -> Reply:
        """Lichess ``/takeback/{yes,no}``: grant the opponent's request, or ask for one."""
        with self._cond:
            game = self._running_game(game_id)
            if isinstance(game, Reply):
                return game
            opponent = not game.bot_color
            if yes and game.takeback_offer[opponent]:
                game.take_back(1 if game.is_bot_turn() else 2, time.monotonic())
                self._emit_game(game, self._state_line(game))
            elif yes:
                if game.bot_moves() and game.opponent.accepts_takeback(game.position_for(opponent)):
                    game.take_back(2 if game.is_bot_turn() else 1, time.monotonic())
                    self._emit_game(game, self._state_line(game))
            elif game.takeback_offer[opponent]:
                game.takeback_offer[opponent] = False
                game.version += 1
                self._emit_game(game, self._state_line(game))
            self._cond.notify_all()
            return OK

    def api_resign(self, game_id: str) -> Reply:
        """``/resign``: pychess sends no end event for it."""
        with self._cond:
            game = self._running_game(game_id)
            if isinstance(game, Reply):
                return game
            self._finish(game, "resign", not game.bot_color, "bot resigned", end_event=False)
            return OK

    def api_abort(self, game_id: str) -> Reply:
        """``/abort``: only before both sides have moved. Later, Lichess refuses (400); pychess answered 200 on
        the real server and the game went on (docs/server-api.md)."""
        with self._cond:
            game = self._playing_game(game_id)
            if isinstance(game, Reply):
                return game
            if game.over or len(game.moves) >= 2:
                game.rejected.append(("abort", "too late to abort" if not game.over else "game over"))
                return OK if self.dialect == "pychess" else Reply(400, {"error": "This game cannot be aborted"})
            self._finish(game, "aborted", None, "bot aborted")
            return OK

    def api_claim(self, game_id: str, victory: bool) -> Reply:
        """Lichess ``/claim-victory`` (opponent gone) and ``/claim-draw`` (threefold or 50 moves)."""
        with self._cond:
            game = self._running_game(game_id)
            if isinstance(game, Reply):
                return game
            if victory and game.opponent_gone and time.monotonic() >= game.claim_allowed_at:
                self._finish(game, "timeout", game.bot_color, "opponent left, victory claimed")
                return OK
            if not victory and game.outcome_status() is not None:
                self._finish(game, "draw", None, "draw claimed")
                return OK
            return Reply(400, {"error": "Nothing to claim"})

    def api_game_page(self, game_id: str) -> Reply:
        """pychess ``GET /{gameId}``: the public HTML page whose ``<body>`` attributes carry the result, the
        status number and every ply (see ``wire.game_page_html``)."""
        with self._cond:
            game = self.games.get(game_id)
            if game is None:
                return Reply(404, "<html><body><h1>404: Not Found</h1></body></html>")
            factory = self.board_factory or default_board_factory()
            return Reply(200, wire.game_page_html(game, factory))

    def api_game_export(self, game_id: str) -> Reply:
        """Lichess ``GET /game/export/{gameId}`` (JSON): status, winner and every move in SAN; an ongoing
        game's moves as they stood a few seconds ago (``export_delay_s``, by default Lichess's delay for the
        game's time control: ``wire.lichess_export_delay_s``)."""
        with self._cond:
            game = self.games.get(game_id)
            if game is None:
                return Reply(404, {"error": "Not found"})
            return Reply(200, wire.game_export_json(game, time.monotonic(), self.export_delay_s))

    def api_chat(self, game_id: str, room: str, text: str) -> Reply:
        """``/chat``: recorded; Lichess echoes it on the game stream."""
        with self._cond:
            game = self._playing_game(game_id)
            if isinstance(game, Reply):
                return game
            game.chat.append(ChatRecord(room=room, text=text, by="bot", at=time.time()))
            if self.dialect == "lichess":
                self._emit_game(game, wire.chat_line(room, self.bot.name, text, self.dialect))
            self._cond.notify_all()
            return OK
