"""Challenge endpoints of the loopback server: the bot accepts or declines challenges, creates its own (Lichess),
cancels them, and lists the online bots. A mixin of ``Referee``, which provides the state and helpers."""

from __future__ import annotations

import random
import threading
import time
from typing import TYPE_CHECKING, Any, Optional, Union

import bot.loopback.wire as wire
from bot import ServerKind
from bot.loopback.answers import OK, OpponentFactory, Reply, ScriptedBot
from bot.loopback.model import ChallengeAnswer, ColorName, LoopbackChallenge, LoopbackTimeControl, User
from bot.loopback.opponents import Opponent
from bot.loopback.positions import start_fen

if TYPE_CHECKING:
    from bot.loopback.games import Game


class ChallengeDesk:
    """The ``api_*`` methods about challenges (run under the referee's lock)."""

    dialect: ServerKind
    bot: User
    bot_title: Optional[str]
    base_url: str
    challenges: dict[str, LoopbackChallenge]
    online_bots: dict[str, ScriptedBot]
    opponent_factory: OpponentFactory
    stopping: threading.Event
    _cond: threading.Condition
    _rng: random.Random
    _challenge_opponents: dict[str, Opponent]

    if TYPE_CHECKING:

        def _new_id(self) -> str: ...

        def _emit_event(self, line: str) -> None: ...

        def _start_game(self, challenge: LoopbackChallenge, opponent_player: User, opponent: Opponent) -> Game: ...

    def api_answer_challenge(self, challenge_id: str, accept: bool, reason: Optional[str]) -> Reply:
        """``/api/challenge/{id}/accept`` and ``/decline``."""
        with self._cond:
            challenge = self.challenges.get(challenge_id)
            if challenge is None or challenge.direction != "in" or challenge.status != "created":
                return Reply(404, {"error": "Challenge not found"})
            challenge.answer = ChallengeAnswer(accept, None if accept else (reason or "generic"), time.time())
            if accept:
                challenge.status = "accepted"
                opponent = self._challenge_opponents.pop(challenge_id, None) or self.opponent_factory()
                self._start_game(challenge, challenge.challenger, opponent)
            else:
                challenge.status = "declined"
                self._challenge_opponents.pop(challenge_id, None)
            self._cond.notify_all()
            return OK

    def api_create_challenge(self, username: str, form: dict[str, str]) -> Reply:
        """``POST /api/challenge/{username}``: Lichess only, and only to bots listed as online here."""
        with self._cond:
            if self.dialect == "pychess":
                return Reply(403, {"error": "Bots cannot create challenges"})
            target = self.online_bots.get(username.lower())
            if target is None:
                return Reply(404, {"error": f"No such user: {username}"})
            try:
                limit = form.get("clock.limit")
                increment = form.get("clock.increment")
                days = form.get("days")
                time_control = LoopbackTimeControl(
                    int(limit) if limit else None,
                    int(increment or 0) if limit else None,
                    int(days) if days else None,
                )
            except ValueError:
                return Reply(400, {"error": "Invalid time control"})
            variant_key = form.get("variant", "standard")
            variant, chess960 = {
                "standard": ("chess", False),
                "chess960": ("chess", True),
                "seirawan": ("seirawan", False),
                "seirawan960": ("seirawan", True),
                "shouse": ("shouse", False),
                "seirawan-placement": ("seirawan-placement", False),
                "seirawan-forced-entry": ("seirawan-forced-entry", False),
            }.get(variant_key, (None, False))
            if variant is None:
                return Reply(400, {"error": f"Unsupported variant {variant_key}"})
            color = form.get("color", "random")
            final: ColorName = (
                "white" if color == "white" else "black" if color == "black" else self._rng.choice(("white", "black"))
            )
            challenge = LoopbackChallenge(
                id=self._new_id(),
                challenger=self.bot,
                dest=target.player,
                variant=variant,
                chess960=chess960,
                time_control=time_control,
                rated=form.get("rated", "false") == "true",
                color=color,
                final_color=final,
                direction="out",
                initial_fen=start_fen(variant, True, self._rng) if chess960 else None,
            )
            self.challenges[challenge.id] = challenge
            self._emit_event(
                wire.challenge_event(challenge, self.dialect, self.base_url, bot_account=self.bot_title == "BOT")
            )
            if target.answer != "ignore":
                timer = threading.Timer(target.answer_delay_s, self._online_bot_answers, (challenge.id,))
                timer.daemon = True
                timer.start()
            self._cond.notify_all()
            return Reply(200, wire.challenge_json(challenge, self.dialect, self.base_url))

    def _online_bot_answers(self, challenge_id: str) -> None:
        with self._cond:
            challenge = self.challenges[challenge_id]
            target = self.online_bots.get(challenge.dest.id)
            if challenge.status != "created" or target is None or self.stopping.is_set():
                return
            accepted = target.answer == "accept"
            challenge.answer = ChallengeAnswer(accepted, None if accepted else target.decline_reason, time.time())
            if accepted:
                challenge.status = "accepted"
                opponent = target.opponent() if target.opponent else self.opponent_factory()
                self._start_game(challenge, target.player, opponent)
            else:
                challenge.status = "declined"
                self._emit_event(wire.challenge_event(challenge, self.dialect, self.base_url, "challengeDeclined"))
            self._cond.notify_all()

    def api_cancel_challenge(self, challenge_id: str) -> Reply:
        """``POST /api/challenge/{id}/cancel`` for the bot's own challenges."""
        with self._cond:
            challenge = self.challenges.get(challenge_id)
            if challenge is None or challenge.direction != "out" or challenge.status != "created":
                return Reply(404, {"error": "Challenge not found"})
            challenge.status = "canceled"
            self._emit_event(wire.challenge_event(challenge, self.dialect, self.base_url, "challengeCanceled"))
            self._cond.notify_all()
            return OK

    def api_online_bots(self, limit: int) -> Union[list[Any], Reply]:
        """Lichess ``GET /api/bot/online``: ndjson of the online bots."""
        if self.dialect == "pychess":
            return Reply(404, {"error": "Not found"})
        with self._cond:
            return [wire.online_bot_json(b.player) for b in list(self.online_bots.values())[:limit]]
