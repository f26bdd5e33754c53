"""Whether to accept a challenge: a pure function of the challenge, the settings and the lobby's state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from bot.config import ChallengeSettings
from bot.events import Challenge

#: The reasons the servers understand (``POST /api/challenge/{id}/decline`` form field ``reason``).
DECLINE_REASONS = ("generic", "later", "tooFast", "tooSlow", "timeControl", "rated", "casual", "standard",
                   "variant", "noBot", "onlyBot")


@dataclass(frozen=True)
class Accept:
    pass


@dataclass(frozen=True)
class Decline:
    reason: str
    detail: str = ""


Decision = Union[Accept, Decline]


@dataclass(frozen=True)
class LobbyState:
    """What the decision needs to know about the bot right now."""

    active_games: int = 0  # real-time games running or about to start (correspondence ones are not counted)
    shutting_down: bool = False
    correspondence_games: int = 0  # correspondence games in progress (parked or being visited)


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
    return None


def decide_challenge(challenge: Challenge, settings: ChallengeSettings, state: LobbyState, *,
                     max_correspondence_games: int = 20) -> Decision:
    """Accept, or decline with the reason the server should show the challenger.

    Checks, in order: who (block list, allow list, bot/human), variant, time control, rated/casual,
    then whether we have room (``concurrency`` for real-time games, ``max_correspondence_games`` for games
    with days per move), so a challenger learns the lasting reason first.
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
    time_decline = _time_control_decision(challenge, settings)
    if time_decline is not None:
        return time_decline
    mode = "rated" if challenge.rated else "casual"
    if mode not in settings.modes:
        return Decline("casual" if challenge.rated else "rated", f"{mode} games are not accepted")
    if state.shutting_down:
        return Decline("later", "the bot is shutting down")
    if challenge.time_control.kind != "clock":
        if state.correspondence_games >= max_correspondence_games:
            return Decline("later", f"already playing {state.correspondence_games} of "
                                    f"{max_correspondence_games} correspondence games")
        return Accept()
    if state.active_games >= settings.concurrency:
        return Decline("later", f"already playing {state.active_games} of {settings.concurrency} games")
    return Accept()
