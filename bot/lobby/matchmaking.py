"""Matchmaking: when the bot has been idle for ``matchmaking.idle_s``, challenge an online bot (Lichess only).

The choices are pure functions (:func:`choose_offer`, :func:`is_avoided`, :func:`under_daily_limit`,
:func:`perf_for`); :class:`Matchmaker` keeps the state (the challenge in flight, who declined and why, what
was sent in the last 24 hours) and does the I/O through :class:`bot.wire.server.Server`. The lobby calls
:meth:`Matchmaker.tick` from its loop and forwards the challenge events that concern our own challenges.

As lichess-bot's matchmaking: ``rating_difference`` (the opponent's rating near ours), ``allow_during_games``
(the lobby then counts only free slots as idle), ``online_block_list`` (:class:`OnlineBlockList`: names
fetched from URLs, without our token) and per-variant ``overrides`` (:meth:`MatchmakingSettings.for_variant`).

A decline is remembered for ``decline_cooldown_s``: a reason about the variant avoids that bot for that
variant, a reason about the time control avoids it for that time control, any other reason (``later``,
``generic``, rated/casual, an unanswered challenge) avoids the bot altogether.
"""

from __future__ import annotations

import logging
import random
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.config import MatchmakingSettings, MatchmakingTimeControl, Settings
from bot.lobby.challenges import DAY_S
from bot.wire.dialect import Dialect
from bot.wire.errors import RateLimited, ServerError, TokenRejected
from bot.wire.events import Account, ChallengeGone, OnlineBot
from engine.variants import LICHESS_KEYS, variant_name

log = logging.getLogger(__name__)

#: How often the online block lists are fetched again.
ONLINE_BLOCK_LIST_REFRESH_S = 3600.0
ONLINE_BLOCK_LIST_TIMEOUT_S = 10.0

VARIANT_REASONS = ("variant", "standard")
TIME_CONTROL_REASONS = ("tooFast", "tooSlow", "timeControl")
#: Lichess ``variant`` form values for our variant names (from the one variant table, engine.variants).
LICHESS_VARIANT_KEYS = {variant_name(*combination): key for combination, key in LICHESS_KEYS.items()}


class ChallengeServer(Protocol):
    @property
    def dialect(self) -> Dialect | None: ...

    def online_bots(self, limit: int = 100) -> list[OnlineBot]: ...
    def create_challenge(self, username: str, *, variant: str, rated: bool, base_s: int | None = None,
                         increment_s: int = 0, days: int | None = None, color: str = "random") -> str: ...
    def cancel_challenge(self, challenge_id: str) -> None: ...


@dataclass(frozen=True)
class Offer:
    """A challenge we want to send."""

    opponent: str
    rating: int
    variant: str  # config name: chess, chess960, seirawan, seirawan960
    time_control: MatchmakingTimeControl
    rated: bool = False

    def describe(self) -> str:
        return f"{self.time_control.describe()} {self.variant} {'rated' if self.rated else 'casual'}"


@dataclass(frozen=True)
class DeclineNote:
    """Someone declined (or ignored) one of our challenges."""

    opponent: str  # lower case
    reason: str
    at: float
    variant: str
    time_control: MatchmakingTimeControl


def perf_for(variant: str, control: MatchmakingTimeControl) -> str:
    """The Lichess rating category a game counts for: ``chess960``, ``correspondence``, ``blitz``..."""
    if variant != "chess":
        return variant
    if control.days is not None:
        return "correspondence"
    estimate = (control.base_s or 0) + 40 * control.increment_s
    for limit, name in ((29, "ultraBullet"), (179, "bullet"), (479, "blitz"), (1499, "rapid")):
        if estimate <= limit:
            return name
    return "classical"


#: When a bot has no rating for the game's category, the first of these it has stands in for it.
FALLBACK_PERFS = ("blitz", "rapid", "bullet", "classical")


def rating_for(bot: OnlineBot, perf: str) -> int | None:
    """The bot's rating in ``perf``, else its blitz/rapid/bullet/classical rating, else None."""
    if perf in bot.ratings:
        return bot.ratings[perf]
    return next((bot.ratings[name] for name in FALLBACK_PERFS if name in bot.ratings), None)


def our_rating_for(ratings: Mapping[str, int], perf: str) -> int | None:
    """Our rating in ``perf`` (the account's ``perfs``), with the same stand-ins as :func:`rating_for`."""
    if perf in ratings:
        return ratings[perf]
    return next((ratings[name] for name in FALLBACK_PERFS if name in ratings), None)


def is_avoided(notes: Iterable[DeclineNote], opponent: str, variant: str, control: MatchmakingTimeControl,
               now: float, cooldown_s: float) -> bool:
    """Whether a recent decline by ``opponent`` rules out this variant and time control."""
    for note in notes:
        if note.opponent != opponent.lower() or now - note.at >= cooldown_s:
            continue
        if note.reason in VARIANT_REASONS:
            if note.variant == variant:
                return True
        elif note.reason in TIME_CONTROL_REASONS:
            if note.time_control == control:
                return True
        else:
            return True
    return False


def under_daily_limit(sent_at: Sequence[float], now: float, limit: int) -> bool:
    """Fewer than ``limit`` challenges in the last 24 hours."""
    return sum(1 for at in sent_at if now - at < DAY_S) < limit


def choose_offer(bots: Sequence[OnlineBot], settings: MatchmakingSettings, notes: Sequence[DeclineNote],
                 now: float, me: Account, extra_block_list: Sequence[str] = (),
                 rng: random.Random | None = None) -> Offer | None:
    """A random (bot, variant, time control) allowed by the rating range and ``rating_difference`` (each as
    the variant's ``overrides`` say), the block lists and the recent declines; None when nobody fits. Bots
    without any rating are skipped (see :func:`rating_for`); ``rating_difference`` is not applied when our
    own rating for the category is unknown."""
    blocked = set(settings.block_list) | {name.lower() for name in extra_block_list}
    blocked |= {me.username.lower(), me.id.lower()}
    candidates: list[Offer] = []
    for variant in settings.variants:
        chosen = settings.for_variant(variant)
        for control in chosen.time_controls:
            perf = perf_for(variant, control)
            ours = our_rating_for(me.ratings, perf)
            for bot in bots:
                if bot.name.lower() in blocked or bot.id.lower() in blocked:
                    continue
                rating = rating_for(bot, perf)
                if rating is None or not chosen.min_rating <= rating <= chosen.max_rating:
                    continue
                if chosen.rating_difference is not None and ours is not None \
                        and abs(rating - ours) > chosen.rating_difference:
                    continue
                if is_avoided(notes, bot.name, variant, control, now, settings.decline_cooldown_s):
                    continue
                candidates.append(Offer(bot.name, rating, variant, control, chosen.rated))
    if not candidates:
        return None
    return (rng or random.Random()).choice(candidates)


def fetch_text(url: str) -> str:
    """GET a block list (plain HTTP, no token: the list is on someone else's server)."""
    import requests

    response = requests.get(url, timeout=ONLINE_BLOCK_LIST_TIMEOUT_S)
    response.raise_for_status()
    return response.text


def parse_block_list(text: str) -> set[str]:
    """One bot name per line (lower case); blank lines and ``#`` comments are skipped."""
    return {line.split("#", 1)[0].strip().lower() for line in text.splitlines()} - {""}


class OnlineBlockList:
    """``matchmaking.online_block_list``: bot names fetched from URLs (``example.com/list`` means https),
    again every ONLINE_BLOCK_LIST_REFRESH_S; a list that cannot be fetched keeps its last names."""

    def __init__(self, urls: Sequence[str], *, fetch: Callable[[str], str] = fetch_text) -> None:
        self.urls = [url if "://" in url else f"https://{url}" for url in urls]
        self.fetch = fetch
        self.by_url: dict[str, set[str]] = {}
        self.fetched_at: float | None = None

    def names(self, now: float) -> set[str]:
        if self.urls and (self.fetched_at is None or now - self.fetched_at >= ONLINE_BLOCK_LIST_REFRESH_S):
            self.fetched_at = now
            for url in self.urls:
                try:
                    self.by_url[url] = parse_block_list(self.fetch(url))
                    log.info("matchmaking: online block list %s: %d bots", url, len(self.by_url[url]))
                except Exception as error:  # noqa: BLE001 - a list we cannot read must not stop matchmaking
                    log.warning("matchmaking: cannot fetch the online block list %s (%s); %s", url, error,
                                "keeping its last names" if url in self.by_url else "skipping it")
        return set().union(*self.by_url.values()) if self.by_url else set()


@dataclass
class Pending:
    challenge_id: str
    offer: Offer
    sent_at: float


class Matchmaker:
    """Challenges online bots when idle; one challenge in flight at a time."""

    def __init__(self, server: ChallengeServer, settings: Settings, account: Account, *,
                 monotonic: Callable[[], float] = time.monotonic, rng: random.Random | None = None,
                 fetch: Callable[[str], str] = fetch_text) -> None:
        self.server = server
        self.settings = settings.matchmaking
        self.incoming_block_list = settings.challenge.block_list
        self.online_block_list = OnlineBlockList(self.settings.online_block_list, fetch=fetch)
        self.account = account
        self.monotonic = monotonic
        self.rng = rng or random.Random()
        self.enabled = self.settings.enabled
        if self.enabled and (server.dialect is None or not server.dialect.challenges_bots):
            log.info("matchmaking is off: bots cannot create challenges on a %s server", server.dialect)
            self.enabled = False
        self.idle_since = monotonic()
        self.pending: Pending | None = None
        self.notes: list[DeclineNote] = []
        self.sent_at: deque[float] = deque()
        self.paused_until = 0.0
        self._limit_logged = False

    @property
    def waiting(self) -> int:
        """Challenges of ours that are waiting for an answer (0 or 1)."""
        return 1 if self.pending is not None else 0

    # ---- the loop ----

    def tick(self, busy: bool, stopping: bool) -> None:
        """Called often by the lobby. ``busy``: a game is running or about to start."""
        now = self.monotonic()
        if self.pending is not None:
            if now - self.pending.sent_at >= self.settings.challenge_timeout_s:
                self._cancel_unanswered(now)
            return
        if busy:
            self.idle_since = now
            return
        if not self.enabled or stopping or now - self.idle_since < self.settings.idle_s:
            return
        if now < self.paused_until:
            return
        while self.sent_at and now - self.sent_at[0] >= DAY_S:
            self.sent_at.popleft()
        if not under_daily_limit(self.sent_at, now, self.settings.daily_limit):
            self.paused_until = self.sent_at[0] + DAY_S
            if not self._limit_logged:
                log.info("matchmaking: daily limit of %d challenges reached; next one in %.0f min",
                         self.settings.daily_limit, (self.paused_until - now) / 60)
                self._limit_logged = True
            return
        self._limit_logged = False
        self._challenge_someone(now)

    def _challenge_someone(self, now: float) -> None:
        try:
            bots = self.server.online_bots()
        except TokenRejected:
            raise
        except RateLimited as error:
            self._pause(now, error.retry_after_s, "online bots are rate limited")
            return
        except ServerError as error:
            self._pause(now, self.settings.idle_s, f"cannot list online bots ({error})")
            return
        blocked = [*self.incoming_block_list, *sorted(self.online_block_list.names(now))]
        offer = choose_offer(bots, self.settings, self.notes, now, self.account, blocked, self.rng)
        if offer is None:
            self._pause(now, max(self.settings.idle_s, 60.0),
                        f"none of {len(bots)} online bots fits the rating range, block lists and declines")
            return
        control = offer.time_control
        try:
            challenge_id = self.server.create_challenge(
                offer.opponent, variant=LICHESS_VARIANT_KEYS.get(offer.variant, offer.variant),
                rated=offer.rated, base_s=control.base_s, increment_s=control.increment_s,
                days=control.days)
        except TokenRejected:
            raise
        except RateLimited as error:
            self._pause(now, error.retry_after_s, "challenges are rate limited (HTTP 429)")
            return
        except ServerError as error:
            if error.status == 403:
                log.warning("matchmaking is off: the server refused to let us challenge (%s)", error)
                self.enabled = False
                return
            self._remember(offer, "error", now)
            log.info("matchmaking: could not challenge %s (%s); avoiding them for %.0f min", offer.opponent,
                     error, self.settings.decline_cooldown_s / 60)
            return
        self.sent_at.append(now)
        self.pending = Pending(challenge_id, offer, now)
        log.info("matchmaking: challenged %s (%d) to %s (challenge %s)", offer.opponent, offer.rating,
                 offer.describe(), challenge_id)

    def _cancel_unanswered(self, now: float) -> None:
        assert self.pending is not None
        pending, self.pending = self.pending, None
        self.idle_since = now
        self._remember(pending.offer, "timeout", now)
        try:
            self.server.cancel_challenge(pending.challenge_id)
        except TokenRejected:
            raise
        except ServerError as error:
            log.info("matchmaking: could not cancel challenge %s (%s)", pending.challenge_id, error)
        log.info("matchmaking: %s did not answer challenge %s within %.0f s; cancelled", pending.offer.opponent,
                 pending.challenge_id, self.settings.challenge_timeout_s)

    def _pause(self, now: float, seconds: float, why: str) -> None:
        self.paused_until = now + seconds
        log.info("matchmaking: %s; next try in %.0f s", why, seconds)

    def _remember(self, offer: Offer, reason: str, now: float) -> None:
        cooldown = self.settings.decline_cooldown_s
        self.notes = [note for note in self.notes if now - note.at < cooldown]
        self.notes.append(DeclineNote(offer.opponent.lower(), reason, now, offer.variant, offer.time_control))

    def restore(self, sent_at: Iterable[float], notes: Iterable[DeclineNote]) -> None:
        """Take back what an earlier run remembered (times on our clock): challenges sent, declines."""
        self.sent_at = deque(sorted(sent_at))
        self.notes = list(notes)

    # ---- events from the lobby ----

    def owns(self, challenge_id: str) -> bool:
        return self.pending is not None and self.pending.challenge_id == challenge_id

    def on_challenge_gone(self, event: ChallengeGone) -> None:
        """``challengeDeclined`` / ``challengeCanceled`` for our challenge."""
        if not self.owns(event.challenge_id):
            return
        assert self.pending is not None
        pending, self.pending = self.pending, None
        now = self.monotonic()
        self.idle_since = now
        if event.declined:
            reason = event.reason or "generic"
            self._remember(pending.offer, reason, now)
            scope = ("for " + pending.offer.variant if reason in VARIANT_REASONS else
                     "for " + pending.offer.time_control.describe() if reason in TIME_CONTROL_REASONS else
                     "altogether")
            log.info("matchmaking: %s declined challenge %s (%s); avoiding them %s for %.0f min",
                     pending.offer.opponent, pending.challenge_id, reason, scope,
                     self.settings.decline_cooldown_s / 60)
        else:
            log.info("matchmaking: challenge %s to %s was cancelled", pending.challenge_id,
                     pending.offer.opponent)

    def on_game_start(self, game_id: str) -> None:
        """Our challenge was accepted: its game has started."""
        if self.owns(game_id):
            assert self.pending is not None
            log.info("matchmaking: %s accepted challenge %s", self.pending.offer.opponent, game_id)
            self.pending = None

    def cancel_pending(self) -> None:
        """The bot is stopping: withdraw the challenge in flight."""
        if self.pending is None:
            return
        pending, self.pending = self.pending, None
        try:
            self.server.cancel_challenge(pending.challenge_id)
            log.info("matchmaking: withdrew challenge %s to %s", pending.challenge_id, pending.offer.opponent)
        except ServerError as error:
            log.info("matchmaking: could not withdraw challenge %s (%s)", pending.challenge_id, error)
