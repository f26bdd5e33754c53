"""What a game says and answers besides moves: greetings, chat commands, and (Lichess) draw offers and
takeback requests."""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot import __version__
from bot.game.chat import ChatContext, ChatLimiter, command_reply, parse_command
from bot.game.context import GameContext
from bot.game.decisions import should_accept_draw, should_accept_takeback
from bot.wire.errors import ServerError
from bot.wire.events import ChatLine, GameState

log = logging.getLogger("bot.game")


class Talk:
    """The game's conversation. ``engine_name``: for ``!name``; ``challenges_waiting``: for ``!queue``;
    ``on_takeback``: called when we grant a takeback (the ponder search is then stale)."""

    def __init__(self, game: GameContext, engine_name: Callable[[], str], challenges_waiting: Callable[[], int],
                 on_takeback: Callable[[], None]) -> None:
        self.game = game
        self.engine_name = engine_name
        self.challenges_waiting = challenges_waiting
        self.on_takeback = on_takeback
        self.limiter = ChatLimiter(game.settings.chat.cooldown_s, game.monotonic)
        self.greeted = False
        self.draw_answered_at_ply = -1
        self.takebacks_granted = 0
        self.takeback_answered: tuple[str, ...] | None = None

    def say(self, template: str) -> None:
        """A greeting or goodbye (``{me}``, ``{opponent}`` filled in); never waits out a rate limit."""
        game = self.game
        if not template:
            return
        text = template.replace("{me}", game.account.username).replace("{opponent}", game.opponent_name)
        try:
            # never wait out a 429 pause for a greeting: the game thread would stop playing meanwhile
            game.server.chat(game.game_id, text, wait=False)
        except ServerError as error:
            log.info("%s: chat failed (%s)", game.label, error)

    def greet_once(self) -> None:
        if not self.greeted:
            self.greeted = True
            self.say(self.game.settings.greeting.hello)

    def on_chat(self, line: ChatLine) -> None:
        """Answer ``!help``/``!name``/``!eval``/``!queue``; everything else in the chat is only logged."""
        game = self.game
        log.debug("%s: chat %s/%s: %.200s", game.label, line.room, line.username, line.text)
        if not game.settings.chat.commands:
            return
        if line.username.lower() in (game.account.username.lower(), game.account.id.lower()):
            return  # our own lines echoed back
        command = parse_command(line.text)
        if command is None:
            return
        room = line.room if line.room in ("player", "spectator") else "player"
        if not self.limiter.allow(room):
            log.debug("%s: %s from %s not answered (rate limit)", game.label, command, line.username)
            return
        last = game.last_result
        context = ChatContext(
            engine_name=self.engine_name(), bot_version=__version__,
            last_score=last.describe_score() if last is not None else None,
            last_depth=last.depth if last is not None else None,
            challenges_waiting=self.challenges_waiting(),
        )
        reply = command_reply(command, room, context, game.settings.chat, game.server.dialect)
        if reply is None:
            return
        try:
            game.server.chat(game.game_id, reply, room=room, wait=False)
            log.info("%s: answered %s from %s in the %s chat", game.label, command, line.username, room)
        except ServerError as error:
            log.info("%s: chat reply not sent (%s)", game.label, error)

    def answer_draw_offer(self, state: GameState) -> None:
        """Accept or decline the opponent's draw offer (``draw`` settings, recent scores), where draw offers
        exist (Lichess)."""
        game = self.game
        if not game.dialect.draw_offers or game.position is None:
            return
        offered = state.bdraw if game.we_are_white else state.wdraw
        if not offered or self.draw_answered_at_ply == len(state.moves):
            return
        self.draw_answered_at_ply = len(state.moves)
        accept = should_accept_draw(game.scores, game.position.board.fullmove_number, game.settings.draw)
        try:
            game.server.answer_draw(game.game_id, accept)
            log.info("%s: %s the draw offer", game.label, "accepted" if accept else "declined")
        except ServerError as error:
            log.warning("%s: could not answer the draw offer (%s)", game.label, error)

    def answer_takeback_request(self, state: GameState, answered: tuple[str, ...] | None) -> None:
        """Lichess: grant or decline the opponent's takeback request (``takeback.max_takebacks``).
        ``answered``: the move list our last move answered (our move cancels a pending request)."""
        game = self.game
        if not game.dialect.takebacks or game.position is None:
            return
        offered = state.btakeback if game.we_are_white else state.wtakeback
        if not offered:
            self.takeback_answered = None  # the request is gone: a later one gets its own answer
            return
        if self.takeback_answered == state.moves or answered == state.moves:
            return
        self.takeback_answered = state.moves
        accept = should_accept_takeback(self.takebacks_granted, game.settings.takeback)
        try:
            game.server.answer_takeback(game.game_id, accept)
        except ServerError as error:
            log.warning("%s: could not answer the takeback request (%s)", game.label, error)
            return
        if accept:
            self.takebacks_granted += 1
            self.on_takeback()
        log.info("%s: %s the takeback request (%d of %d granted)", game.label,
                 "granted" if accept else "declined", self.takebacks_granted, game.settings.takeback.max_takebacks)
