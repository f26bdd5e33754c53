"""Matchmaking: the pure choices (opponent, avoidance by decline reason, daily limit, rating category) and the
Matchmaker's state machine against a fake server and a fake clock."""

from __future__ import annotations

import json
import logging
import random
import re
from typing import Any

import pytest

from bot.config import MatchmakingSettings, MatchmakingTimeControl, settings_from_dict
from bot.lobby.matchmaking import (
    DAY_S,
    DeclineNote,
    Matchmaker,
    choose_offer,
    is_avoided,
    perf_for,
    under_daily_limit,
)
from bot.wire.dialect import PYCHESS
from bot.wire.errors import RateLimited, ServerError
from bot.wire.events import Account, ChallengeGone
from bot.wire.normalise import normalise_lobby_line
from tests.bot.fakes import FakeChallengeServer, online

ME = Account(id="schessbot", username="SchessBot", title="BOT")
BLITZ = MatchmakingTimeControl(base_s=180, increment_s=2)
BULLET = MatchmakingTimeControl(base_s=60, increment_s=0)
DAYS = MatchmakingTimeControl(days=3)


def test_rating_categories() -> None:
    assert perf_for("chess", BULLET) == "bullet"
    assert perf_for("chess", BLITZ) == "blitz"
    assert perf_for("chess", MatchmakingTimeControl(base_s=900, increment_s=10)) == "rapid"
    assert perf_for("chess", DAYS) == "correspondence"
    assert perf_for("chess960", BLITZ) == "chess960"


def test_a_decline_reason_decides_what_is_avoided() -> None:
    notes = [DeclineNote("picky", "tooFast", 100.0, "chess", BULLET),
             DeclineNote("purist", "variant", 100.0, "chess960", BLITZ),
             DeclineNote("grumpy", "later", 100.0, "chess", BLITZ)]
    assert is_avoided(notes, "Picky", "chess", BULLET, 200.0, 3600)
    assert not is_avoided(notes, "Picky", "chess", BLITZ, 200.0, 3600), "only that time control"
    assert is_avoided(notes, "Purist", "chess960", BULLET, 200.0, 3600)
    assert not is_avoided(notes, "Purist", "chess", BLITZ, 200.0, 3600), "only that variant"
    assert is_avoided(notes, "Grumpy", "chess960", DAYS, 200.0, 3600), "any other reason: the bot altogether"
    assert not is_avoided(notes, "Grumpy", "chess", BLITZ, 100.0 + 3600, 3600), "the cooldown ends"


def test_daily_limit_counts_the_last_24_hours() -> None:
    assert under_daily_limit([0.0, 1.0], 10.0, 3)
    assert not under_daily_limit([0.0, 1.0, 2.0], 10.0, 3)
    assert under_daily_limit([0.0, 1.0, 2.0], DAY_S + 0.5, 3), "the first one is more than a day old"


def test_the_opponent_fits_the_rating_range_and_block_lists() -> None:
    settings = MatchmakingSettings(enabled=True, time_controls=(BLITZ,), min_rating=1500, max_rating=2000,
                                   block_list=("blocked",))
    bots = [online("Weak", blitz=1200), online("Strong", blitz=2500), online("Blocked", blitz=1800),
            online("SchessBot", blitz=1800), online("Unrated"), online("NotIncoming", blitz=1700),
            online("Fine", blitz=1800)]
    offers = [choose_offer(bots, settings, [], 0.0, ME, ("notincoming",), random.Random(seed))
              for seed in range(20)]
    picks = {offer.opponent if offer is not None else None for offer in offers}
    assert picks == {"Fine"}
    assert choose_offer(bots[:4], settings, [], 0.0, ME) is None


def test_a_missing_category_falls_back_to_another_standard_rating() -> None:
    settings = MatchmakingSettings(enabled=True, time_controls=(BULLET,), min_rating=1500, max_rating=2000)
    offer = choose_offer([online("OnlyBlitz", blitz=1600, rapid=2600)], settings, [], 0.0, ME)
    assert offer is not None and offer.rating == 1600


def matchmaker(**overrides: Any) -> tuple[Matchmaker, FakeChallengeServer, list[float]]:
    now = [1000.0]
    data = {"enabled": True, "idle_s": 10, "time_controls": [{"base_s": 180, "increment_s": 2}]}
    data.update(overrides)
    settings = settings_from_dict({"matchmaking": data})
    server = FakeChallengeServer()
    return Matchmaker(server, settings, ME, monotonic=lambda: now[0], rng=random.Random(1)), server, now


def test_challenges_only_after_the_idle_time_and_one_at_a_time() -> None:
    maker, server, now = matchmaker()
    maker.tick(busy=False, stopping=False)
    now[0] += 9
    maker.tick(busy=False, stopping=False)
    assert server.created == []
    now[0] += 2
    maker.tick(busy=False, stopping=False)
    assert server.created == [{"username": "Partner", "variant": "standard", "rated": False, "base_s": 180,
                               "increment_s": 2, "days": None}]
    maker.tick(busy=False, stopping=False)
    assert len(server.created) == 1 and maker.waiting == 1


def test_a_running_game_resets_the_idle_time_and_stopping_prevents_challenges() -> None:
    maker, server, now = matchmaker()
    now[0] += 8
    maker.tick(busy=True, stopping=False)
    now[0] += 8
    maker.tick(busy=False, stopping=False)
    assert server.created == []
    now[0] += 100
    maker.tick(busy=False, stopping=True)
    assert server.created == []


def test_unanswered_challenges_are_cancelled_and_remembered() -> None:
    maker, server, now = matchmaker(challenge_timeout_s=30)  # a config value, on the fake clock
    now[0] += 11
    maker.tick(busy=False, stopping=False)
    now[0] += 31
    maker.tick(busy=False, stopping=False)
    assert server.cancelled == ["c1"] and maker.pending is None
    now[0] += 11
    maker.tick(busy=False, stopping=False)
    assert len(server.created) == 1, "Partner (the only bot) is avoided after ignoring us"


def test_declines_are_remembered_from_the_event_stream_line() -> None:
    maker, server, now = matchmaker(decline_cooldown_s=100)
    now[0] += 11
    maker.tick(busy=False, stopping=False)
    line = json.dumps({"type": "challengeDeclined", "challenge": {
        "id": "c1", "challenger": {"id": "schessbot", "name": "SchessBot"},
        "destUser": {"id": "partner", "name": "Partner"}, "declineReason": "I'm not accepting challenges "
        "at the moment.", "declineReasonKey": "later"}})
    event = normalise_lobby_line(line)
    assert event == ChallengeGone("c1", declined=True, reason="later", challenger="SchessBot", dest="Partner")
    assert isinstance(event, ChallengeGone)
    maker.on_challenge_gone(event)
    assert maker.pending is None
    now[0] += 50
    maker.tick(busy=False, stopping=False)
    assert len(server.created) == 1
    now[0] += 60
    maker.tick(busy=False, stopping=False)
    assert len(server.created) == 2, "after the cooldown Partner is challenged again"


def test_accepted_challenge_clears_the_pending_slot() -> None:
    maker, server, now = matchmaker()
    now[0] += 11
    maker.tick(busy=False, stopping=False)
    maker.on_game_start("other")
    assert maker.waiting == 1
    maker.on_game_start("c1")
    assert maker.waiting == 0


def test_daily_limit_and_429_pause(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    maker, server, now = matchmaker(daily_limit=2, decline_cooldown_s=0)
    for _ in range(4):
        now[0] += 11
        maker.tick(busy=False, stopping=False)
        maker.on_challenge_gone(ChallengeGone(maker.pending.challenge_id if maker.pending else "x",
                                              declined=True, reason="later"))
    assert len(server.created) == 2
    assert "daily limit of 2 challenges reached" in caplog.text
    now[0] += DAY_S
    server.fail = RateLimited("challenge: HTTP 429", 120)
    maker.tick(busy=False, stopping=False)
    server.fail = None
    now[0] += 100
    maker.tick(busy=False, stopping=False)
    assert len(server.created) == 2, "paused for the 120 s the server asked for"
    now[0] += 21
    maker.tick(busy=False, stopping=False)
    assert len(server.created) == 3


def test_a_403_switches_matchmaking_off_and_pychess_never_starts_it(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    maker, server, now = matchmaker()
    server.fail = ServerError("challenge: HTTP 403", 403)
    now[0] += 11
    maker.tick(busy=False, stopping=False)
    assert not maker.enabled
    pychess = FakeChallengeServer()
    pychess.dialect = PYCHESS  # type: ignore[assignment]
    settings = settings_from_dict({"matchmaking": {"enabled": True}})
    assert not Matchmaker(pychess, settings, ME).enabled
    assert "matchmaking is off: bots cannot create challenges on a pychess server" in caplog.text


def test_matchmaking_config_errors_name_the_key() -> None:
    from bot.config import ConfigError

    cases = {
        "matchmaking.time_controls[1] must have either base_s (with increment_s) or days":
            {"time_controls": [{"base_s": 60}, {"base_s": 60, "days": 1}]},
        "matchmaking.time_controls[0].increment_s must be a non-negative integer":
            {"time_controls": [{"base_s": 60, "increment_s": -1}]},
        "matchmaking.time_controls[0] must not be a clock of 0+0": {"time_controls": [{"base_s": 0}]},
        "unknown key matchmaking.time_controls[0].minutes": {"time_controls": [{"minutes": 3}]},
        "matchmaking.variants must be a list of": {"variants": ["crazyhouse"]},
        "matchmaking.min_rating must be at most matchmaking.max_rating": {"min_rating": 2000, "max_rating": 100},
        "matchmaking.daily_limit must be a positive integer": {"daily_limit": 0},
        "unknown key matchmaking.idle": {"idle": 3},
    }
    for message, data in cases.items():
        with pytest.raises(ConfigError, match=re.escape(message)):
            settings_from_dict({"matchmaking": data})
    settings = settings_from_dict({"matchmaking": {"time_controls": [{"days": 2}, {"base_s": 300}]}})
    assert settings.matchmaking.time_controls == (MatchmakingTimeControl(days=2),
                                                  MatchmakingTimeControl(base_s=300, increment_s=0))


def test_a_lower_case_time_control_decline_from_lichess_avoids_only_that_time_control() -> None:
    """Lichess writes declineReasonKey as ``toofast``; read as tooFast, it must not avoid the bot altogether."""
    maker, server, now = matchmaker(time_controls=[{"base_s": 60, "increment_s": 0},
                                                   {"base_s": 300, "increment_s": 3}])
    now[0] += 11
    maker.tick(busy=False, stopping=False)
    first = (server.created[0]["base_s"], server.created[0]["increment_s"])
    line = json.dumps({"type": "challengeDeclined", "challenge": {
        "id": "c1", "declineReason": "This time control is too fast for me.", "declineReasonKey": "toofast"}})
    event = normalise_lobby_line(line)
    assert isinstance(event, ChallengeGone) and event.reason == "tooFast"
    maker.on_challenge_gone(event)
    now[0] += 11
    maker.tick(busy=False, stopping=False)
    assert len(server.created) == 2, "Partner is challenged again, to the other time control"
    assert (server.created[1]["base_s"], server.created[1]["increment_s"]) != first


def test_restore_takes_back_what_an_earlier_run_remembered() -> None:
    maker, server, now = matchmaker(daily_limit=2)
    maker.restore([now[0] - 100, now[0] - 200], [])
    now[0] += 11
    maker.tick(busy=False, stopping=False)
    assert server.created == [], "two challenges sent in the last 24 hours already"
    maker, server, now = matchmaker()
    maker.restore([], [DeclineNote("partner", "later", now[0] - 10, "chess", BLITZ)])
    now[0] += 11
    maker.tick(busy=False, stopping=False)
    assert server.created == [], "Partner declined a moment ago"
