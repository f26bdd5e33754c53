"""Matchmaking against the loopback Lichess server: the bot challenges online bots when idle, within the rating
range and block lists, cancels unanswered challenges, avoids those who declined, honours the daily limit and
429s, and switches itself off on pychess."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from bot.loopback import LoopbackServer, Scripted
from tests.e2e.conftest import BotThread, assert_clean_game, bot_config
from tests.timing import GAME_S, PATIENCE_S, STARTUP_S, wait_until

#: what matchmaking logs when it looked at the online bots and found none to challenge: the event that proves it
#: had its chance and sent nothing (a sleep would prove nothing on a slow machine)
NONE_FITS = "online bots fits the rating range, block lists and declines"


def matchmaking_config(server: LoopbackServer, tmp_path: Path, **overrides: Any) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "enabled": True,
        "idle_s": 0.2,
        "variants": ["chess"],
        "time_controls": [{"base_s": 60, "increment_s": 1}],
        "challenge_timeout_s": 5,
    }
    settings.update(overrides)
    return bot_config(server, tmp_path, matchmaking=settings)


def created(server: LoopbackServer) -> list[Any]:
    return server.requests_to("challenge_create")


def test_idle_bot_challenges_an_online_bot_in_range_and_plays_the_game(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    lichess_server.add_online_bot("TooWeak", rating=1100)
    lichess_server.add_online_bot("TooStrong", rating=2600)
    lichess_server.add_online_bot("Blocked", rating=1800)
    lichess_server.add_online_bot("Partner", rating=1800, opponent=lambda: Scripted(["resign"]))
    config = matchmaking_config(lichess_server, tmp_path, min_rating=1500, max_rating=2000,
                                block_list=["blocked"], rated=True)
    bots.append(BotThread(config, max_games=1).start())
    request = lichess_server.wait_for_request("challenge_create", timeout=STARTUP_S)[0]
    assert request.target == "Partner"
    assert request.form == {"rated": "true", "color": "random", "variant": "standard",
                            "clock.limit": "60", "clock.increment": "1"}
    challenge_id = next(c.id for c in lichess_server.challenges.values() if c.direction == "out")
    game = lichess_server.wait_for_game_end(challenge_id, GAME_S)
    assert_clean_game(game)
    assert game.status == "resign" and game.opponent_player.name == "Partner"
    assert bots[0].join(GAME_S) == 0
    assert not lichess_server.requests_to("accept") and not lichess_server.requests_to("decline"), (
        "the echo of our own challenge on the event stream is not answered")
    assert [r.target for r in created(lichess_server)] == ["Partner"]


def test_an_unanswered_challenge_is_cancelled_and_that_bot_is_avoided(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    lichess_server.add_online_bot("Sleepy", rating=1800, answer="ignore")
    bots.append(BotThread(matchmaking_config(lichess_server, tmp_path, challenge_timeout_s=1)).start())  # to expire
    lichess_server.wait_for_request("challenge_create", timeout=STARTUP_S)
    cancel = lichess_server.wait_for_request("challenge_cancel", timeout=PATIENCE_S)[0]
    assert lichess_server.challenges[str(cancel.target)].status == "canceled"
    wait_until(lambda: NONE_FITS in caplog.text, "matchmaking's next look at the online bots")
    assert len(created(lichess_server)) == 1, "Sleepy is not challenged again during the cooldown"
    assert "Sleepy did not answer" in caplog.text


def test_a_decline_for_the_time_control_only_rules_out_that_time_control(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    lichess_server.add_online_bot("Picky", rating=1800, answer="decline", decline_reason="tooFast")
    config = matchmaking_config(
        lichess_server, tmp_path,
        time_controls=[{"base_s": 60, "increment_s": 0}, {"base_s": 600, "increment_s": 5}])
    bots.append(BotThread(config).start())
    first, second = lichess_server.wait_for_request("challenge_create", count=2, timeout=STARTUP_S)
    controls = {(r.form["clock.limit"], r.form["clock.increment"]) for r in (first, second)}
    assert controls == {("60", "0"), ("600", "5")}, "after a tooFast decline the other time control is tried"
    wait_until(lambda: NONE_FITS in caplog.text, "matchmaking's look at the online bots after both declines")
    assert len(created(lichess_server)) == 2, "both time controls declined: Picky is left alone"
    assert "Picky declined" in caplog.text and "(tooFast)" in caplog.text


def test_a_generic_decline_avoids_the_bot_altogether(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    lichess_server.add_online_bot("Grumpy", rating=1800, answer="decline", decline_reason="later")
    config = matchmaking_config(lichess_server, tmp_path, variants=["chess", "chess960"],
                                time_controls=[{"base_s": 60, "increment_s": 0}, {"days": 2}])
    bots.append(BotThread(config).start())
    lichess_server.wait_for_request("challenge_create", timeout=STARTUP_S)
    wait_until(lambda: NONE_FITS in caplog.text, "matchmaking's look at the online bots after the decline")
    assert len(created(lichess_server)) == 1, "no other variant or time control is offered to Grumpy"


def test_the_daily_limit_is_honoured(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    lichess_server.add_online_bot("Busy", rating=1800, answer="decline", decline_reason="later")
    config = matchmaking_config(lichess_server, tmp_path, decline_cooldown_s=0, daily_limit=3)
    bots.append(BotThread(config).start())
    lichess_server.wait_for_request("challenge_create", count=3, timeout=STARTUP_S)
    wait_until(lambda: "daily limit of 3 challenges reached" in caplog.text, "the daily limit's pause")
    assert len(created(lichess_server)) == 3


def test_http_429_pauses_matchmaking(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    lichess_server.add_online_bot("Partner", rating=1800, answer="decline")
    lichess_server.faults.fail("challenge_create", 429, times=None, retry_after_s=120)
    config = matchmaking_config(lichess_server, tmp_path, decline_cooldown_s=0)
    bots.append(BotThread(config).start())
    lichess_server.wait_for_request("challenge_create", timeout=STARTUP_S)
    wait_until(lambda: "challenges are rate limited (HTTP 429); next try in 120 s" in caplog.text, "the 429 pause")
    assert len(created(lichess_server)) == 1, "no second challenge while the 429 pause lasts"


def test_matchmaking_switches_itself_off_on_pychess(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    bots.append(BotThread(matchmaking_config(pychess_server, tmp_path)).start())
    pychess_server.wait_for_request("stream_event", timeout=STARTUP_S)
    wait_until(lambda: "matchmaking is off" in caplog.text, "matchmaking switching itself off")
    assert not created(pychess_server) and not pychess_server.requests_to("online")
    lines = [r.getMessage() for r in caplog.records if r.name == "bot.lobby.matchmaking"]
    assert lines == ["matchmaking is off: bots cannot create challenges on a pychess server"]


def test_allow_during_games_challenges_a_bot_while_a_human_game_runs_in_another_slot(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    """lichess-bot's allow_during_games: a free slot is enough; the per-variant override sets the clock."""
    from bot.loopback import Manual

    lichess_server.add_online_bot("Partner", rating=1800, opponent=lambda: Scripted(["resign"]))
    config = matchmaking_config(lichess_server, tmp_path, allow_during_games=True,
                                overrides={"chess": {"time_controls": [{"base_s": 120, "increment_s": 2}]}})
    config["challenge"]["concurrency"] = 2
    human = lichess_server.challenge(challenger="Alice", variant="chess", clock=(300, 3), color="black",
                                     opponent=Manual())
    bots.append(BotThread(config).start())
    assert lichess_server.wait_for_answer(human, STARTUP_S).accepted
    lichess_server.wait_for_plies(human, 1, GAME_S)
    request = lichess_server.wait_for_request("challenge_create", timeout=PATIENCE_S)[0]
    assert request.target == "Partner" and request.form["clock.limit"] == "120"
    assert not lichess_server.game(human).over, "the human game was still running"
