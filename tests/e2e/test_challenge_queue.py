"""Challengers: a queue of still-open challenges while every slot is busy, accepted when a game ends; the
decline reason as free text for the person on pychess.org."""

from __future__ import annotations

from pathlib import Path

from bot.config import ChallengeSettings
from bot.lobby.challenges import Decline, accepted_clock_text, decline_message
from bot.loopback import LoopbackServer
from tests.e2e.conftest import BotThread, bot_config
from tests.reliability.conftest import ResignAfter
from tests.timing import GAME_S, STARTUP_S, wait_until


def test_the_decline_message_says_why_and_what_is_accepted_in_at_most_300_characters() -> None:
    settings = ChallengeSettings(variants=("seirawan", "seirawan960"), min_base_s=180, min_increment_s=2)
    assert decline_message(Decline("tooFast"), settings) == (
        "This time control is too fast for me. I accept S-chess, S-chess960, 3+2 or slower.")
    mine = ChallengeSettings(decline_message="S-chess only, {clock}. ({reason})", min_base_s=180,
                             min_increment_s=2)
    assert decline_message(Decline("variant"), mine) == "S-chess only, 3+2 or slower. (I do not play this variant)"
    assert len(decline_message(Decline("later"), ChallengeSettings(decline_message="x" * 400))) == 300
    assert decline_message(Decline("rated"), ChallengeSettings(decline_message="")) == "rated"
    assert accepted_clock_text(ChallengeSettings()) == "bullet or slower"


def test_pychess_gets_the_decline_reason_as_text_and_lichess_the_key(server: LoopbackServer, tmp_path: Path,
                                                                       bots: list[BotThread]) -> None:
    config = bot_config(server, tmp_path, challenge={"variants": ["seirawan"], "min_base_s": 180,
                                                     "min_increment_s": 2,
                                                     "decline_message": "S-chess only, {clock}."})
    bots.append(BotThread(config).start())
    fast = server.challenge(clock=(60, 0))
    reason = server.wait_for_answer(fast, STARTUP_S).reason
    assert reason == ("S-chess only, 3+2 or slower." if server.dialect == "pychess" else "tooFast")


def test_challenges_wait_in_the_queue_while_the_slot_is_busy_and_are_accepted_when_the_game_ends(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    server = lichess_server
    config = bot_config(server, tmp_path, challenge={"queue_size": 2, "speeds": ["bullet", "blitz"]})
    first = server.challenge(clock=(60, 0), color="white", opponent=ResignAfter(6, seed=1))
    bot = BotThread(config)
    bots.append(bot.start())
    assert server.wait_for_answer(first, STARTUP_S).accepted
    server.wait_for_plies(first, 2, GAME_S)
    waiting = server.challenge(clock=(60, 0), opponent=ResignAfter(2, seed=2))
    withdrawn = server.challenge(clock=(60, 0))
    wait_until(lambda: bot.lobby is not None and len(bot.lobby.answers.queued) == 2, "two queued challenges",
               STARTUP_S)
    assert server.answer(waiting) is None and server.answer(withdrawn) is None, "queued, not declined"
    assert bot.lobby.challenges_waiting() == 2  # what !queue says
    server.cancel_challenge(withdrawn)
    wait_until(lambda: len(bot.lobby.answers.queued) == 1, "the withdrawn challenge to leave the queue", STARTUP_S)
    third = server.challenge(clock=(60, 0))
    fourth = server.challenge(clock=(60, 0))
    declined = server.wait_for_answer(fourth, STARTUP_S)
    assert not declined.accepted and declined.reason == "later", "the queue holds two at most"
    assert server.answer(third) is None
    server.wait_for_game_end(first, GAME_S)
    assert server.wait_for_answer(waiting, STARTUP_S).accepted, "the oldest queued challenge gets the free slot"
    assert server.answer(withdrawn) is None
