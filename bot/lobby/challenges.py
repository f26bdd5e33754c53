"""Whether to accept a challenge: a pure function of the challenge, the settings and a snapshot of the
lobby's state (:class:`LobbyState`); the lobby does the I/O."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Union

from bot.config import ChallengeSettings
from bot.wire.events import DECLINE_REASONS, Challenge

__all__ = ["DECLINE_REASONS", "Accept", "AcceptedBotChallenge", "Decision", "Decline", "LobbyState",
           "decide_challenge", "describe_time_control", "our_rating", "rating_category"]

HOUR_S = 3600.0
DAY_S = 86400.0


@dataclass(frozen=True)
class Accept:
    pass


@dataclass(frozen=True)
class Decline:
    """``reason``: the server's decline key; ``detail``: for the log; ``busy``: only because every real-time
    slot is taken (such a challenge may wait in the queue)."""

    reason: str
    detail: str = ""
    busy: bool = False


Decision = Union[Accept, Decline]


@dataclass(frozen=True)
class AcceptedBotChallenge:
    """A challenge from a bot that we accepted: when (the lobby's clock) and from whom (lower case)."""

    at: float
    name: str


@dataclass(frozen=True)
class LobbyState:
    """What the decision needs to know about the bot right now."""

    active_games: int = 0  # real-time games running or about to start (correspondence ones are not counted)
    shutting_down: bool = False
    correspondence_games: int = 0  # correspondence games in progress (parked or being visited)
    bot_games: int = 0  # how many of active_games are against bots (our own matchmaking challenge counts)
    #: the opponent (lower case) of every game running, parked or about to start, once per game
    opponents: tuple[str, ...] = ()
    #: challenges from bots accepted in the last 24 hours, and the time now on the same clock
    accepted_from_bots: tuple[AcceptedBotChallenge, ...] = ()
    now: float = 0.0
    our_rating: int | None = None  # ours for this challenge's rating category; None when the server hides it
    #: real-time slots kept for the next pairing of a running tournament the bot is in (not in active_games)
    tournament_slots: int = 0


def rating_category(challenge: Challenge) -> str:
    """The Lichess rating category (perf) of the game: ``chess960``, ``seirawan``, else the speed (``blitz``)."""
    variant = challenge.variant
    if variant.name == "chess":
        return "chess960" if variant.chess960 else challenge.speed
    return variant.name


def our_rating(challenge: Challenge, account_ratings: Mapping[str, int]) -> int | None:
    """Our rating for this challenge: Lichess's ``destUser`` (that is us) or else our account's rating in the
    game's category. pychess.org gives neither: None."""
    if challenge.dest is not None and challenge.dest.rating:
        return challenge.dest.rating
    return account_ratings.get(rating_category(challenge))


def describe_time_control(challenge: Challenge) -> str:
    """``3+2``, ``2 days``, ``unlimited`` (minutes+seconds, as players write it)."""
    control = challenge.time_control
    if control.kind == "clock":
        minutes = control.limit_ms / 60000
        base = f"{minutes:g}" if minutes >= 1 or minutes == 0 else f"{control.limit_ms / 1000:g}s"
        return f"{base}+{control.increment_ms / 1000:g}"
    if control.kind == "correspondence":
        return f"{control.days} day" + ("s" if control.days != 1 else "")
    return "unlimited"


def _time_control_decision(challenge: Challenge, settings: ChallengeSettings) -> Decline | None:
    control = challenge.time_control
    speed = challenge.speed
    if control.kind != "clock":
        if "correspondence" not in settings.speeds:
            return Decline("timeControl", f"{describe_time_control(challenge)} games are not accepted")
        if control.kind == "correspondence" and control.days is not None:
            if control.days < settings.min_days:
                return Decline("tooFast", f"{control.days} days per move < min_days {settings.min_days}")
            if control.days > settings.max_days:
                return Decline("tooSlow", f"{control.days} days per move > max_days {settings.max_days}")
        return None
    if speed not in settings.speeds:
        clock_speeds = ["ultraBullet", "bullet", "blitz", "rapid", "classical"]
        allowed = [index for index, name in enumerate(clock_speeds) if name in settings.speeds]
        index = clock_speeds.index(speed) if speed in clock_speeds else -1
        if allowed and index >= 0:
            reason = ("tooFast" if index < min(allowed) else "tooSlow" if index > max(allowed)
                      else "timeControl")
        else:
            reason = "timeControl"
        return Decline(reason, f"{speed} is not in challenge.speeds")
    base_s = control.limit_ms / 1000
    increment_s = control.increment_ms / 1000
    if base_s < settings.min_base_s:
        return Decline("tooFast", f"base {base_s:g}s < min_base_s {settings.min_base_s}")
    if base_s > settings.max_base_s:
        return Decline("tooSlow", f"base {base_s:g}s > max_base_s {settings.max_base_s}")
    if increment_s < settings.min_increment_s:
        return Decline("tooFast", f"increment {increment_s:g}s < min_increment_s {settings.min_increment_s}")
    if increment_s > settings.max_increment_s:
        return Decline("tooSlow", f"increment {increment_s:g}s > max_increment_s {settings.max_increment_s}")
    if base_s == 0 and increment_s == 0:
        return Decline("tooFast", "a clock of 0+0")
    if settings.bullet_requires_increment and increment_s == 0 and speed in ("ultraBullet", "bullet"):
        return Decline("tooFast", f"{speed} without increment (bullet_requires_increment)")
    return None


def _compat_decision(challenge: Challenge) -> Decline | None:
    """Lichess's ``compat.bot``: false when a BOT cannot play the game. Lichess (lila) sets it false for
    speeds below bullet and when our account is not a BOT account; the first gets ``tooFast``."""
    if challenge.bot_compatible is not False:
        return None
    if challenge.speed == "ultraBullet":
        return Decline("tooFast", "bots cannot play ultraBullet (compat.bot false)")
    return Decline("generic", "the server says a bot cannot play this game (compat.bot false)")


def _rating_decision(challenge: Challenge, settings: ChallengeSettings, ours: int | None) -> Decline | None:
    """The challenger's rating within [min_rating, max_rating] and within max_rating_diff of ours. A
    challenger without a rating, or our own rating unknown (pychess.org), skips the check it needs."""
    rating = challenge.challenger.rating
    if rating is None:
        return None
    if rating < settings.min_rating:
        return Decline("generic", f"rating {rating} < min_rating {settings.min_rating}")
    if rating > settings.max_rating:
        return Decline("generic", f"rating {rating} > max_rating {settings.max_rating}")
    diff = settings.max_rating_diff
    if diff is not None and ours is not None and abs(rating - ours) > diff:
        return Decline("generic", f"rating {rating} is more than max_rating_diff {diff} from ours ({ours})")
    return None


def _room_decision(challenge: Challenge, settings: ChallengeSettings, state: LobbyState) -> Decline | None:
    """The passing limits, all answered with ``later``: games per user, challenges from bots per hour and
    day."""
    challenger = challenge.challenger
    name = challenger.name.lower()
    limit = settings.max_games_per_user
    if limit is not None:
        playing = state.opponents.count(name)
        if playing >= limit:
            return Decline("later", f"already playing {playing} game{'s' if playing != 1 else ''} with "
                                    f"{challenger.name} (max_games_per_user {limit})")
    if not challenger.is_bot:
        return None
    limit = settings.max_challenges_per_bot_per_hour
    if limit is not None:
        count = sum(1 for item in state.accepted_from_bots if item.name == name and state.now - item.at < HOUR_S)
        if count >= limit:
            return Decline("later", f"{count} challenges from {challenger.name} accepted in the last hour "
                                    f"(max_challenges_per_bot_per_hour {limit})")
    limit = settings.max_bot_challenges_per_day
    if limit is not None:
        count = sum(1 for item in state.accepted_from_bots if state.now - item.at < DAY_S)
        if count >= limit:
            return Decline("later", f"{count} challenges from bots accepted in the last 24 hours "
                                    f"(max_bot_challenges_per_day {limit})")
    return None


def decide_challenge(challenge: Challenge, settings: ChallengeSettings, state: LobbyState, *,
                     max_correspondence_games: int = 20) -> Decision:
    """Accept, or decline with the reason the server should show the challenger.

    Checks, in order: who (block list, allow list, bot/human), variant, time control, whether the server
    lets a bot play it (Lichess ``compat``), rated/casual, the challenger's rating; then the passing limits
    (shutting down, games per user, challenges from bots per hour and day, the slots reserved for humans)
    and whether we have room (``concurrency`` for real-time games, less the slots kept for tournament
    pairings; ``max_correspondence_games`` for games with days per move), so a challenger learns the lasting
    reason first.
    """
    challenger = challenge.challenger
    names = {challenger.name.lower(), (challenger.id or "").lower()} - {""}
    if names & set(settings.block_list):
        return Decline("generic", f"{challenger.name} is on the block list")
    if settings.allow_list and not names & set(settings.allow_list):
        return Decline("generic", f"{challenger.name} is not on the allow list")
    if challenger.is_bot and not settings.accept_bots:
        return Decline("noBot", "bots are not accepted")
    if not challenger.is_bot and settings.only_bots:
        return Decline("onlyBot", "only bots are accepted")
    variant = challenge.variant
    if not variant.supported or variant.config_name not in settings.variants:
        return Decline("variant", f"variant {variant.config_name} is not in challenge.variants")
    lasting = (_time_control_decision(challenge, settings) or _compat_decision(challenge)
               or _mode_decision(challenge, settings) or _rating_decision(challenge, settings, state.our_rating))
    if lasting is not None:
        return lasting
    if state.shutting_down:
        return Decline("later", "the bot is shutting down")
    passing = _room_decision(challenge, settings, state)
    if passing is not None:
        return passing
    if challenge.time_control.kind != "clock":
        if state.correspondence_games >= max_correspondence_games:
            return Decline("later", f"already playing {state.correspondence_games} of "
                                    f"{max_correspondence_games} correspondence games")
        return Accept()
    bot_slots = settings.concurrency - settings.reserve_for_humans
    if challenger.is_bot and state.bot_games >= bot_slots:
        return Decline("later", f"{state.bot_games} games against bots; {settings.reserve_for_humans} of "
                                f"{settings.concurrency} slots are reserved for humans (reserve_for_humans)")
    if state.active_games + state.tournament_slots >= settings.concurrency:
        kept = f" ({state.tournament_slots} kept for tournament pairings)" if state.tournament_slots else ""
        return Decline("later", f"already playing {state.active_games} of {settings.concurrency} games{kept}",
                       busy=True)
    return Accept()


def _mode_decision(challenge: Challenge, settings: ChallengeSettings) -> Decline | None:
    mode = "rated" if challenge.rated else "casual"
    if mode not in settings.modes:
        return Decline("casual" if challenge.rated else "rated", f"{mode} games are not accepted")
    return None


#: What each decline key tells a person, for ``{reason}`` in ``challenge.decline_message``.
REASON_TEXTS = {
    "generic": "I am not accepting this challenge",
    "later": "I am busy right now, please try again later",
    "tooFast": "This time control is too fast for me",
    "tooSlow": "This time control is too slow for me",
    "timeControl": "I do not play this time control",
    "rated": "Please send me a rated challenge instead",
    "casual": "Please send me a casual challenge instead",
    "standard": "I am not accepting variant challenges right now",
    "variant": "I do not play this variant",
    "noBot": "I am not accepting challenges from bots",
    "onlyBot": "I am only accepting challenges from bots",
}
#: Variant names for people.
VARIANT_TEXTS = {"seirawan": "S-chess", "seirawan960": "S-chess960", "shouse": "S-House", "chess": "chess",
                 "chess960": "Chess960",
                 "seirawan-placement": "S-chess placement", "seirawan-forced-entry": "S-chess forced entry"}
#: pychess.org shows at most this much of a decline reason.
MAX_DECLINE_CHARS = 300


def accepted_clock_text(settings: ChallengeSettings) -> str:
    """``3+2 or slower`` (the least base and increment), ``any time control``, ``correspondence only``..."""
    speeds = set(settings.speeds)
    if speeds == {"correspondence"}:
        return f"correspondence only ({settings.min_days}-{settings.max_days} days per move)"
    if settings.min_base_s or settings.min_increment_s:
        return f"{settings.min_base_s / 60:g}+{settings.min_increment_s} or slower"
    if "ultraBullet" in speeds and "correspondence" in speeds:
        return "any time control"
    fastest = next((speed for speed in SPEED_ORDER if speed in speeds), "bullet")
    return f"{fastest} or slower" if fastest != "ultraBullet" else "any time control"


SPEED_ORDER = ("ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence")


def decline_message(decision: Decline, settings: ChallengeSettings) -> str:
    """The free-text decline reason (pychess.org) from ``challenge.decline_message``: ``{reason}`` (what the
    key means to a person), ``{variants}`` and ``{clock}`` (what is accepted); at most 300 characters. An empty
    template gives the key itself."""
    template = settings.decline_message
    if not template:
        return decision.reason
    text = (template.replace("{reason}", REASON_TEXTS.get(decision.reason, REASON_TEXTS["generic"]))
            .replace("{variants}", ", ".join(VARIANT_TEXTS.get(name, name) for name in settings.variants))
            .replace("{clock}", accepted_clock_text(settings)))
    return text[:MAX_DECLINE_CHARS]
