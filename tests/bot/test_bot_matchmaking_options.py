"""lichess-bot's matchmaking options: rating_difference, per-variant overrides, online_block_list, and
allow_during_games (the lobby's idea of busy)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.config import ConfigError, settings_from_dict
from bot.lobby.matchmaking import Matchmaker, OnlineBlockList, choose_offer, parse_block_list
from bot.wire.events import Account
from tests.bot.fakes import FakeChallengeServer, online

RATED_ME = Account(id="schessbot", username="SchessBot", title="BOT", ratings={"blitz": 2000, "chess960": 1500})


def mm(**data: Any) -> Any:
    return settings_from_dict({"matchmaking": {"enabled": True, **data}}).matchmaking


def test_rating_difference_keeps_opponents_near_our_rating_for_the_category() -> None:
    bots = [online("Near", blitz=2250), online("Far", blitz=2400), online("Weak", blitz=1500)]
    settings = mm(rating_difference=300, time_controls=[{"base_s": 180, "increment_s": 2}])
    picks = {choose_offer(bots, settings, [], 0.0, RATED_ME, rng=random.Random(seed)).opponent  # type: ignore[union-attr]
             for seed in range(20)}
    assert picks == {"Near"}
    unrated_me = Account(id="schessbot", username="SchessBot", title="BOT")
    picks = {choose_offer(bots, settings, [], 0.0, unrated_me, rng=random.Random(seed)).opponent  # type: ignore[union-attr]
             for seed in range(40)}
    assert picks == {"Near", "Far", "Weak"}, "not applied when our own rating is unknown"


def test_a_variant_override_changes_time_controls_rated_and_ratings_for_that_variant_only() -> None:
    settings = mm(variants=["chess", "chess960"], time_controls=[{"base_s": 180, "increment_s": 2}],
                  overrides={"chess960": {"time_controls": [{"base_s": 600, "increment_s": 5}], "rated": True,
                                          "rating_difference": 100}})
    bots = [online("Partner", blitz=2000, chess960=1550), online("Strong960", blitz=2000, chess960=1800)]
    offers = {(o.variant, o.time_control.base_s, o.rated, o.opponent)
              for seed in range(60)
              if (o := choose_offer(bots, settings, [], 0.0, RATED_ME, rng=random.Random(seed))) is not None}
    assert offers == {("chess", 180, False, "Partner"), ("chess", 180, False, "Strong960"),
                      ("chess960", 600, True, "Partner")}


def test_overrides_are_validated_with_the_key_in_the_message() -> None:
    with pytest.raises(ConfigError, match=r"matchmaking.overrides must be variant names"):
        mm(overrides={"crazyhouse": {"rated": True}})
    with pytest.raises(ConfigError, match=r"unknown key matchmaking.overrides.chess960.idle_s"):
        mm(overrides={"chess960": {"idle_s": 3}})


def test_the_online_block_list_is_fetched_parsed_refreshed_and_kept_when_a_fetch_fails(
    caplog: pytest.LogCaptureFixture
) -> None:
    assert parse_block_list("BadBot\n\n# a comment\n  Other  # why\n") == {"badbot", "other"}
    answers = iter(["Spammy\n", OSError("connection refused")])
    fetched: list[str] = []

    def fetch(url: str) -> str:
        fetched.append(url)
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    block = OnlineBlockList(["example.com/blocklist"], fetch=fetch)
    assert block.names(0.0) == {"spammy"} and fetched == ["https://example.com/blocklist"]
    assert block.names(10.0) == {"spammy"} and len(fetched) == 1, "not fetched again within the hour"
    assert block.names(3600.0) == {"spammy"} and len(fetched) == 2, "a failed fetch keeps the last names"
    assert "cannot fetch the online block list https://example.com/blocklist" in caplog.text


def test_the_matchmaker_never_challenges_a_bot_on_the_online_block_list() -> None:
    settings = settings_from_dict({"matchmaking": {"enabled": True, "idle_s": 0,
                                                   "online_block_list": ["https://lists.example/bots.txt"]}})
    server = FakeChallengeServer()
    server.bots = [online("Partner", blitz=1800), online("Spammy", blitz=1800)]
    maker = Matchmaker(server, settings, RATED_ME, monotonic=lambda: 0.0, rng=random.Random(3),
                       fetch=lambda url: "spammy\n")
    for _ in range(5):
        maker.tick(busy=False, stopping=False)
        maker.pending = None
        maker.paused_until = 0.0
    assert server.created and {form["username"] for form in server.created} == {"Partner"}


def test_allow_during_games_lets_matchmaking_use_a_free_slot_while_a_game_runs() -> None:
    from bot.lobby.loop import Lobby
    from tests.bot.fakes import LobbyServer

    def lobby(allow: bool, concurrency: int) -> Any:
        settings = settings_from_dict({"pgn_directory": None, "challenge": {"concurrency": concurrency},
                                       "matchmaking": {"allow_during_games": allow}})
        made = Lobby(LobbyServer(), settings, RATED_ME, lambda label: None)  # type: ignore[arg-type]
        made.games.accepted["g1"] = 0.0  # one game about to start
        return made

    assert lobby(False, 2)._matchmaking_busy(), "by default any game makes matchmaking wait"
    assert not lobby(True, 2)._matchmaking_busy(), "a free slot is enough with allow_during_games"
    assert lobby(True, 1)._matchmaking_busy(), "but not without a free slot"
