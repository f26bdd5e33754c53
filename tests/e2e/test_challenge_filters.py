"""Challenger filters and limits end to end: the rating range, games per user, slots reserved for humans,
Lichess's compat flag, and the daily bot-challenge count and matchmaking's declines surviving a restart."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from bot.lobby.state import STATE_FILE_NAME
from bot.loopback import LoopbackServer, Scripted
from tests.e2e.conftest import KEEPALIVE_S, BotProcess, BotThread, bot_config, refereed_server
from tests.e2e.test_matchmaking import NONE_FITS
from tests.e2e.test_reconcile import wait_for_text
from tests.timing import GAME_S, PATIENCE_S, STARTUP_S, wait_until


def wait_for_log(caplog: pytest.LogCaptureFixture, text: str, timeout: float = PATIENCE_S) -> None:
    """The bot logs its decision just after the server has it: wait for the line."""
    wait_until(lambda: text in caplog.text, f"the log line {text!r}", timeout)


def assert_declined(server: LoopbackServer, challenge_id: str, reason: str) -> None:
    answer = server.wait_for_answer(challenge_id, STARTUP_S)
    assert (answer.accepted, answer.reason) == (False, reason)
    assert server.wait_for_request("decline", challenge_id)[0].form == {"reason": reason}


def test_a_challenger_outside_the_rating_range_is_declined(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    low = server.challenge(challenger="Newcomer", rating=1100)
    high = server.challenge(challenger="Master", rating=2450)
    fitting = server.challenge(challenger="Club", rating=1800, opponent=Scripted(["resign"]), color="white")
    config = bot_config(server, tmp_path, challenge={"min_rating": 1200, "max_rating": 2400})
    bots.append(BotThread(config, max_games=1).start())
    assert_declined(server, low, "generic")
    assert_declined(server, high, "generic")
    assert server.wait_for_answer(fitting, STARTUP_S).accepted
    assert bots[0].join(GAME_S) == 0


def test_max_rating_diff_uses_our_rating_on_lichess_and_is_skipped_on_pychess(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    # the loopback's bot is rated 2000: Lichess shows it as destUser.rating; pychess tells a bot nothing
    far = server.challenge(challenger="Far", rating=1500, opponent=Scripted(["resign"]), color="white")
    bots.append(BotThread(bot_config(server, tmp_path, challenge={"max_rating_diff": 300}), max_games=1).start())
    answer = server.wait_for_answer(far, STARTUP_S)
    if server.dialect == "lichess":
        assert (answer.accepted, answer.reason) == (False, "generic")
        wait_for_log(caplog, "rating 1500 is more than max_rating_diff 300 from ours (2000)")
    else:
        assert answer.accepted
        wait_for_log(caplog, "challenge.max_rating_diff is not applied: the server does not tell our rating")
        assert bots[0].join(GAME_S) == 0


def test_max_games_per_user_declines_a_second_game_with_the_same_user(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    first = server.challenge(challenger="Alice", color="white", opponent=Scripted(["e2e4", "wait"]))
    config = bot_config(server, tmp_path, challenge={"concurrency": 3, "max_games_per_user": 1})
    bots.append(BotThread(config).start())
    server.wait_for_plies(first, 2, GAME_S)
    again = server.challenge(challenger="Alice")
    other = server.challenge(challenger="Bob", color="white", opponent=Scripted(["d2d4", "wait"]))
    assert_declined(server, again, "later")
    assert server.wait_for_answer(other, STARTUP_S).accepted, "another user may still play"


def test_reserve_for_humans_keeps_a_slot_that_bots_cannot_take(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    robot = server.challenge(challenger="RobotA", title="BOT", color="white", opponent=Scripted(["e2e4", "wait"]))
    config = bot_config(server, tmp_path, challenge={"concurrency": 2, "reserve_for_humans": 1})
    bots.append(BotThread(config).start())
    server.wait_for_plies(robot, 2, GAME_S)
    second_robot = server.challenge(challenger="RobotB", title="BOT")
    human = server.challenge(challenger="Carol", color="white", opponent=Scripted(["d2d4", "wait"]))
    assert_declined(server, second_robot, "later")
    assert server.wait_for_answer(human, STARTUP_S).accepted, "the reserved slot goes to a human"


def test_challenges_lichess_marks_unplayable_by_a_bot_are_declined(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    ultra = lichess_server.challenge(challenger="Speedy", clock=(15, 0))
    config = bot_config(lichess_server, tmp_path, challenge={"speeds": ["ultraBullet", "bullet", "blitz"]})
    bots.append(BotThread(config).start())
    assert_declined(lichess_server, ultra, "tooFast")
    wait_for_log(caplog, "bots cannot play ultraBullet (compat.bot false)")


def test_an_account_that_is_not_a_bot_declines_what_the_bot_api_cannot_play(
    tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    with refereed_server("lichess", keepalive_s=KEEPALIVE_S, bot_title=None) as lichess:
        blitz = lichess.challenge(challenger="Alice", clock=(300, 3))
        bots.append(BotThread(bot_config(lichess, tmp_path)).start())
        assert_declined(lichess, blitz, "generic")
        wait_for_log(caplog, "compat.bot false")
        bots.pop().stop()


def test_the_daily_count_of_bot_challenges_survives_a_restart(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    config = bot_config(server, tmp_path, challenge={"max_bot_challenges_per_day": 1})
    first = server.challenge(challenger="RobotA", title="BOT", color="white", opponent=Scripted(["resign"]))
    bots.append(BotThread(config, max_games=1).start())
    assert server.wait_for_answer(first, STARTUP_S).accepted
    assert bots[0].join(GAME_S) == 0
    saved = json.loads((tmp_path / STATE_FILE_NAME).read_text())
    assert [entry["name"] for entry in saved["accepted_from_bots"]] == ["robota"]

    bots.append(BotThread(config).start())  # the restart
    second = server.challenge(challenger="RobotB", title="BOT")
    human = server.challenge(challenger="Carol", color="white", opponent=Scripted(["resign"]))
    assert_declined(server, second, "later")
    assert server.wait_for_answer(human, STARTUP_S).accepted, "humans are not counted"


def test_matchmaking_declines_survive_a_crash_of_the_bot(lichess_server: LoopbackServer, tmp_path: Path) -> None:
    """The state file is written when a decline arrives, so even SIGKILL does not lose it."""
    lichess_server.add_online_bot("Grumpy", rating=1800, answer="decline", decline_reason="generic")
    config = bot_config(lichess_server, tmp_path / "games", matchmaking={
        "enabled": True, "idle_s": 0.2, "variants": ["chess"], "time_controls": [{"base_s": 60, "increment_s": 1}],
        "challenge_timeout_s": 5})
    bot = BotProcess(config, tmp_path)
    try:
        bot.start()
        lichess_server.wait_for_request("challenge_create", timeout=STARTUP_S)
        state = tmp_path / "games" / STATE_FILE_NAME
        wait_until(lambda: "grumpy" in (state.read_text() if state.exists() else ""), "the decline in the state file")
        bot.kill()
        saved = json.loads(state.read_text())
        assert [note["opponent"] for note in saved["matchmaking"]["declines"]] == ["grumpy"]
        assert len(saved["matchmaking"]["sent"]) == 1
        bot.start()
        # the restarted bot's matchmaking looks at the online bots and finds none to challenge: it had its
        # chance and sent nothing (a sleep would prove nothing on a slow machine)
        wait_for_text(lambda: (tmp_path / "bot-2.log").read_text(errors="replace"), NONE_FITS, STARTUP_S)
        assert len(lichess_server.requests_to("challenge_create")) == 1, "Grumpy is still avoided after a restart"
    finally:
        bot.stop()
    assert "state file" in bot.logs() and "1 declines remembered" in bot.logs()
