"""The challenge decision table: accept, or decline with the reason the server shows."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.config import ChallengeSettings
from bot.lobby.challenges import (
    DAY_S,
    HOUR_S,
    Accept,
    AcceptedBotChallenge,
    Decline,
    LobbyState,
    decide_challenge,
    describe_time_control,
    our_rating,
    rating_category,
)
from bot.wire.events import Challenge, Player, TimeControl, Variant

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


def reason(decision: object) -> str:
    return decision.reason if isinstance(decision, Decline) else "accept"


# ---- the challenger's rating ----


@pytest.mark.parametrize(("rating", "ours", "expected"), [
    (1500, None, "accept"),
    (999, None, "generic"),    # below min_rating
    (2201, None, "generic"),   # above max_rating
    (1000, None, "accept"),    # the bounds are inclusive
    (2200, None, "accept"),
    (1500, 1800, "accept"),    # 300 from ours: just inside max_rating_diff
    (1499, 1800, "generic"),
    (2100, 1800, "accept"),
    (2101, 1800, "generic"),
    (None, 1800, "accept"),    # a challenger without a rating cannot be checked
])
def test_the_challenger_rating_range_is_absolute_and_relative_to_ours(rating, ours, expected):
    settings = replace(SETTINGS, min_rating=1000, max_rating=2200, max_rating_diff=300)
    decision = decide_challenge(challenge(challenger=Player("Alice", rating=rating)), settings,
                                LobbyState(our_rating=ours))
    assert reason(decision) == expected, decision


def test_without_our_rating_only_the_absolute_range_applies():
    """pychess.org tells us no rating of ours: max_rating_diff cannot be applied there."""
    settings = replace(SETTINGS, min_rating=1000, max_rating=2200, max_rating_diff=10)
    assert decide_challenge(challenge(challenger=Player("Alice", rating=2100)), settings, IDLE) == Accept()


def test_our_rating_is_dest_user_first_then_the_account_rating_of_the_game_category():
    ratings = {"blitz": 1700, "chess960": 1650, "rapid": 1900}
    blitz = challenge(variant=Variant("chess"))
    assert rating_category(blitz) == "blitz" and our_rating(blitz, ratings) == 1700
    fischer = challenge(variant=Variant("chess", True), speed="rapid")
    assert rating_category(fischer) == "chess960" and our_rating(fischer, ratings) == 1650
    assert our_rating(replace(blitz, dest=Player("SchessBot", rating=1811)), ratings) == 1811
    assert our_rating(challenge(), ratings) is None, "no seirawan rating on the account"
    assert our_rating(blitz, {}) is None, "pychess: no ratings at all"


# ---- bullet without increment, compat ----


@pytest.mark.parametrize(("clock_ms", "speed", "required", "expected"), [
    ((60_000, 0), "bullet", True, "tooFast"),
    ((120_000, 0), "bullet", True, "tooFast"),
    ((15_000, 0), "ultraBullet", True, "tooFast"),
    ((60_000, 1_000), "bullet", True, "accept"),
    ((180_000, 0), "blitz", True, "accept"),
    ((60_000, 0), "bullet", False, "accept"),
])
def test_bullet_requires_increment(clock_ms, speed, required, expected):
    settings = replace(SETTINGS, min_base_s=0, speeds=("ultraBullet", "bullet", "blitz"),
                       bullet_requires_increment=required)
    decision = decide_challenge(challenge(time_control=TimeControl("clock", *clock_ms), speed=speed), settings,
                                IDLE)
    assert reason(decision) == expected, decision


def test_a_challenge_lichess_marks_unplayable_by_bots_is_declined():
    settings = replace(SETTINGS, min_base_s=0, speeds=("ultraBullet", "bullet", "blitz"))
    ultra = challenge(time_control=TimeControl("clock", 15_000, 0), speed="ultraBullet", bot_compatible=False)
    assert reason(decide_challenge(ultra, settings, IDLE)) == "tooFast"
    assert reason(decide_challenge(challenge(bot_compatible=False), settings, IDLE)) == "generic"
    assert decide_challenge(challenge(bot_compatible=True), settings, IDLE) == Accept()
    assert decide_challenge(challenge(bot_compatible=None), settings, IDLE) == Accept(), "pychess: no compat"


# ---- games per user, challenges from bots, slots for humans ----


def test_max_games_per_user_counts_every_game_with_that_user():
    settings = replace(SETTINGS, concurrency=5, max_games_per_user=2)
    assert decide_challenge(challenge(), settings, LobbyState(opponents=("alice", "bob"))) == Accept()
    decision = decide_challenge(challenge(), settings, LobbyState(active_games=2, opponents=("alice", "alice")))
    assert reason(decision) == "later" and "max_games_per_user 2" in decision.detail  # type: ignore[union-attr]
    correspondence = challenge(time_control=TimeControl("correspondence", days=3), speed="correspondence")
    assert reason(decide_challenge(correspondence, settings, LobbyState(opponents=("alice", "alice")))) == "later"


def test_challenges_from_one_bot_per_hour_and_from_all_bots_per_day():
    settings = replace(SETTINGS, concurrency=5, max_challenges_per_bot_per_hour=2, max_bot_challenges_per_day=3)
    now = 100_000.0
    robot_twice = (AcceptedBotChallenge(now - 60, "robot"), AcceptedBotChallenge(now - HOUR_S + 1, "robot"))
    state = LobbyState(accepted_from_bots=robot_twice, now=now)
    decision = decide_challenge(challenge(challenger=ROBOT), settings, state)
    assert reason(decision) == "later" and "max_challenges_per_bot_per_hour" in decision.detail  # type: ignore
    assert decide_challenge(challenge(), settings, state) == Accept(), "humans are not counted"
    older = (AcceptedBotChallenge(now - 60, "robot"), AcceptedBotChallenge(now - HOUR_S, "robot"))
    assert decide_challenge(challenge(challenger=ROBOT), settings,
                            LobbyState(accepted_from_bots=older, now=now)) == Accept(), "an hour ago is over"
    others = robot_twice[:1] + (AcceptedBotChallenge(now - 2 * HOUR_S, "other"),
                                AcceptedBotChallenge(now - DAY_S + 1, "third"))
    decision = decide_challenge(challenge(challenger=ROBOT), settings,
                                LobbyState(accepted_from_bots=others, now=now))
    assert reason(decision) == "later" and "max_bot_challenges_per_day 3" in decision.detail  # type: ignore
    a_day_ago = robot_twice[:1] + (AcceptedBotChallenge(now - DAY_S, "other"),
                                   AcceptedBotChallenge(now - DAY_S - 5, "third"))
    assert decide_challenge(challenge(challenger=ROBOT), settings,
                            LobbyState(accepted_from_bots=a_day_ago, now=now)) == Accept()


def test_reserve_for_humans_keeps_real_time_slots_from_bots():
    settings = replace(SETTINGS, concurrency=3, reserve_for_humans=1)
    bot = challenge(challenger=ROBOT)
    assert decide_challenge(bot, settings, LobbyState(active_games=1, bot_games=1)) == Accept()
    assert reason(decide_challenge(bot, settings, LobbyState(active_games=2, bot_games=2))) == "later"
    assert decide_challenge(challenge(), settings, LobbyState(active_games=2, bot_games=2)) == Accept()
    assert reason(decide_challenge(challenge(), settings, LobbyState(active_games=3, bot_games=2))) == "later"
    correspondence = replace(bot, time_control=TimeControl("correspondence", days=3), speed="correspondence")
    assert decide_challenge(correspondence, settings, LobbyState(active_games=2, bot_games=2)) == Accept(), (
        "correspondence games have their own limit")
    none_for_bots = replace(settings, reserve_for_humans=3)
    assert reason(decide_challenge(bot, none_for_bots, IDLE)) == "later"


def test_a_lasting_reason_beats_the_passing_limits():
    settings = replace(SETTINGS, min_rating=1600, max_games_per_user=1)
    decision = decide_challenge(challenge(), settings, LobbyState(opponents=("alice",)))
    assert reason(decision) == "generic" and "min_rating" in decision.detail  # type: ignore[union-attr]
