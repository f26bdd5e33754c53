"""The challenge decision table: accept, or decline with the reason the server shows."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.challenges import Accept, Decline, LobbyState, decide_challenge, describe_time_control
from bot.config import ChallengeSettings
from bot.events import Challenge, Player, TimeControl, Variant

ALICE = Player(name="Alice", rating=1500)
ROBOT = Player(name="Robot", id="robot", title="BOT")


def challenge(**changes: object) -> Challenge:
    base = Challenge(id="c1", challenger=ALICE, variant=Variant("seirawan"),
                     time_control=TimeControl("clock", 300_000, 3_000), rated=False, speed="blitz")
    return replace(base, **changes)  # type: ignore[arg-type]


SETTINGS = ChallengeSettings(min_base_s=60, max_base_s=1800, min_increment_s=0, max_increment_s=30)
IDLE = LobbyState()


def test_a_plain_seirawan_blitz_challenge_is_accepted():
    assert decide_challenge(challenge(), SETTINGS, IDLE) == Accept()


@pytest.mark.parametrize(("changes", "settings_changes", "reason"), [
    ({"variant": Variant("shouse")}, {}, "variant"),
    ({"variant": Variant("seirawan", True)}, {"variants": ("seirawan",)}, "variant"),
    ({"variant": Variant("chess", True)}, {}, "variant"),  # chess960 is not in the default list
    ({"time_control": TimeControl("clock", 30_000, 0), "speed": "bullet"}, {}, "tooFast"),
    ({"time_control": TimeControl("clock", 3_600_000, 0), "speed": "classical"}, {}, "tooSlow"),
    ({"time_control": TimeControl("clock", 300_000, 60_000), "speed": "rapid"}, {}, "tooSlow"),
    ({"time_control": TimeControl("clock", 120_000, 1_000), "speed": "bullet"},
     {"speeds": ("blitz", "rapid")}, "tooFast"),
    ({"time_control": TimeControl("clock", 1_200_000, 10_000), "speed": "classical"},
     {"speeds": ("blitz", "rapid")}, "tooSlow"),
    ({"time_control": TimeControl("correspondence", days=3), "speed": "correspondence"},
     {"speeds": ("blitz",)}, "timeControl"),
    ({"time_control": TimeControl("correspondence", days=30), "speed": "correspondence"}, {}, "tooSlow"),
    ({"time_control": TimeControl("unlimited"), "speed": "correspondence"}, {"speeds": ("blitz",)},
     "timeControl"),
    ({"rated": True}, {"modes": ("casual",)}, "casual"),
    ({}, {"modes": ("rated",)}, "rated"),
    ({"challenger": ROBOT}, {"accept_bots": False}, "noBot"),
    ({}, {"only_bots": True}, "onlyBot"),
    ({}, {"block_list": ("alice",)}, "generic"),
    ({}, {"allow_list": ("bob",)}, "generic"),
])
def test_declines_with_the_matching_reason(changes, settings_changes, reason):
    decision = decide_challenge(challenge(**changes), replace(SETTINGS, **settings_changes), IDLE)
    assert isinstance(decision, Decline) and decision.reason == reason, decision


def test_allow_list_admits_listed_players_by_id_or_name():
    settings = replace(SETTINGS, allow_list=("robot",), accept_bots=True)
    assert decide_challenge(challenge(challenger=ROBOT), settings, IDLE) == Accept()


def test_full_concurrency_declines_with_later_and_a_free_slot_accepts():
    settings = replace(SETTINGS, concurrency=2)
    assert decide_challenge(challenge(), settings, LobbyState(active_games=1)) == Accept()
    decision = decide_challenge(challenge(), settings, LobbyState(active_games=2))
    assert isinstance(decision, Decline) and decision.reason == "later"


def test_a_lasting_reason_beats_later():
    decision = decide_challenge(challenge(variant=Variant("shouse")), SETTINGS, LobbyState(active_games=5))
    assert isinstance(decision, Decline) and decision.reason == "variant"


def test_shutting_down_declines_with_later():
    decision = decide_challenge(challenge(), SETTINGS, LobbyState(shutting_down=True))
    assert isinstance(decision, Decline) and decision.reason == "later"


def test_seirawan960_and_correspondence_are_accepted_by_default():
    corr = challenge(variant=Variant("seirawan", True), time_control=TimeControl("correspondence", days=2),
                     speed="correspondence")
    assert decide_challenge(corr, ChallengeSettings(), IDLE) == Accept()


def test_time_controls_are_described_like_players_write_them():
    assert describe_time_control(challenge()) == "5+3"
    assert describe_time_control(challenge(time_control=TimeControl("clock", 30_000, 0))) == "30s+0"
    assert describe_time_control(challenge(time_control=TimeControl("correspondence", days=1))) == "1 day"
