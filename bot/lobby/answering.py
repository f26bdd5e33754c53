"""Answering challenges for the lobby: accept or decline each one, or hold it in the queue while only a busy
slot is in its way (``challenge.queue_size``), and answer the queue as slots come free."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from bot import metrics
from bot.config import Settings
from bot.lobby.challenges import (
    Accept,
    AcceptedBotChallenge,
    Decision,
    Decline,
    LobbyState,
    decide_challenge,
    decline_message,
    describe_time_control,
    our_rating,
)
from bot.lobby.enginehealth import EngineHealth
from bot.lobby.roster import KnownOpponent, Roster
from bot.wire.errors import ServerError, TokenRejected
from bot.wire.events import Account, Challenge
from bot.wire.server import Server

log = logging.getLogger(__name__)


class ChallengeAnswerer:
    """The lobby's challenge answers; ``lobby_state`` and ``stopping`` ask the lobby what it is doing now."""

    def __init__(self, server: Server, settings: Settings, account: Account, games: Roster,
                 engine_health: EngineHealth, *, lobby_state: Callable[[], LobbyState],
                 stopping: Callable[[], bool], monotonic: Callable[[], float]) -> None:
        self.server = server
        self.settings = settings
        self.account = account
        self.games = games
        self.engine_health = engine_health
        self.lobby_state = lobby_state
        self.stopping = stopping
        self.monotonic = monotonic
        #: challenges waiting for a free slot (``challenge.queue_size``), oldest first: id -> (challenge, when)
        self.queued: dict[str, tuple[Challenge, float]] = {}
        self._rating_diff_note_logged = False

    def on_challenge(self, challenge: Challenge) -> None:
        """A new challenge: answered now, or held in the queue when only a busy slot is in its way."""
        if challenge.challenger.is_user(self.account.id, self.account.username):
            log.debug("challenge %s: our own challenge", challenge.id)  # Lichess echoes outgoing ones
            return
        self.games.expire_accepted()
        decision = self.decide(challenge)
        if isinstance(decision, Decline) and decision.busy and len(self.queued) < self.settings.challenge.queue_size:
            self.queued[challenge.id] = (challenge, self.monotonic())
            log.info("challenge %s: queued %s (%s; %d waiting)", challenge.id, self.summary(challenge),
                     decision.detail, len(self.queued))
            return
        self.answer(challenge, decision)

    def decide(self, challenge: Challenge) -> Decision:
        if self.engine_health.problem is not None:
            return Decline("later", f"no engine works: {self.engine_health.problem}")
        rating = our_rating(challenge, self.account.ratings)
        if rating is None and self.settings.challenge.max_rating_diff is not None \
                and not self._rating_diff_note_logged:
            log.info("challenge.max_rating_diff is not applied: the server does not tell our rating")
            self._rating_diff_note_logged = True
        state = replace(self.lobby_state(), our_rating=rating)
        return decide_challenge(challenge, self.settings.challenge, state,
                                max_correspondence_games=self.settings.correspondence.max_games)

    @staticmethod
    def summary(challenge: Challenge) -> str:
        who = challenge.challenger.name + (f" ({challenge.challenger.rating})" if challenge.challenger.rating
                                           else "")
        return (f"{describe_time_control(challenge)} {challenge.variant.config_name} "
                f"{'rated' if challenge.rated else 'casual'} from {who}")

    def answer(self, challenge: Challenge, decision: Decision) -> None:
        """Accept or decline (pychess.org: the reason as free text from ``challenge.decline_message``)."""
        summary = self.summary(challenge)
        try:
            if isinstance(decision, Accept):
                self.games.accepted[challenge.id] = self.monotonic()
                if challenge.time_control.kind != "clock":
                    self.games.correspondence_ids.add(challenge.id)
                self.games.opponents[challenge.id] = KnownOpponent(challenge.challenger.name.lower(),
                                                                   challenge.challenger.is_bot)
                self.server.accept_challenge(challenge.id)
                self.games.accepted_at[challenge.id] = self.games.accepted[challenge.id]
                if challenge.challenger.is_bot:
                    self.games.accepted_from_bots.append(AcceptedBotChallenge(self.monotonic(),
                                                                              challenge.challenger.name.lower()))
                metrics.CHALLENGES.labels(decision="accepted", reason="accepted").inc()
                log.info("challenge %s: accepted %s", challenge.id, summary)
            else:
                reason = (decline_message(decision, self.settings.challenge) if self.server.dialect is not None
                          and self.server.dialect.decline_as_free_text
                          else decision.reason)
                self.server.decline_challenge(challenge.id, reason)
                metrics.CHALLENGES.labels(decision="declined", reason=decision.reason).inc()
                log.info("challenge %s: declined %s (%s: %s)", challenge.id, summary, decision.reason,
                         decision.detail)
        except TokenRejected:
            raise
        except ServerError as error:
            self.games.drop_challenge(challenge.id)
            log.warning("challenge %s: could not answer (%s)", challenge.id, error)

    def serve_queue(self) -> None:
        """Queued challenges: declined (later) after ``challenge.queue_timeout_s`` or when the bot stops; the
        oldest one is answered as soon as more than a busy slot is in its way, or nothing is."""
        if not self.queued:
            return
        now = self.monotonic()
        timeout = self.settings.challenge.queue_timeout_s
        for challenge_id, (challenge, queued_at) in list(self.queued.items()):
            if self.stopping() or now - queued_at > timeout:
                del self.queued[challenge_id]
                why = "the bot is stopping" if self.stopping() else f"queued for more than {timeout:g} s"
                self.answer(challenge, Decline("later", why))
        if not self.queued:
            return
        challenge_id, (challenge, _queued_at) = next(iter(self.queued.items()))
        decision = self.decide(challenge)
        if isinstance(decision, Decline) and decision.busy:
            return
        del self.queued[challenge_id]
        self.answer(challenge, decision)

    def decline_queued(self) -> None:
        """The bot stops: every queued challenge is declined (later)."""
        for challenge, _queued_at in list(self.queued.values()):
            self.answer(challenge, Decline("later", "the bot is stopping"))
        self.queued.clear()

    def withdrawn(self, challenge_id: str) -> None:
        if self.queued.pop(challenge_id, None) is not None:
            log.info("challenge %s: withdrawn while queued", challenge_id)
