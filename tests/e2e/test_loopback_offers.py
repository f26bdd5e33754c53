"""``python -m bot.loopback --challenges N`` plays all N games with a bot of concurrency 1 in both dialects: a
challenge the bot declines for later (the key on Lichess, its free-text sentence on pychess.org) is offered
again, as docs/sandbox.md says."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import cast

from bot.config import ChallengeSettings
from bot.lobby.challenges import Decline, decline_message
from bot.loopback import LoopbackServer, Scripted
from bot.loopback.__main__ import offer_in_turn
from bot.loopback.model import ChallengeAnswer
from tests.e2e.conftest import REPO, TOKEN, BotThread, bot_config
from tests.reliability.conftest import ResignAfter
from tests.timing import GAME_S, PATIENCE_S, STARTUP_S

#: the bot's default decline sentence for pychess.org (config.yml's challenge.decline_message)
DEFAULT_DECLINE_MESSAGE = ChallengeSettings().decline_message


def test_a_decline_for_later_is_the_key_or_a_sentence_with_the_word_later() -> None:
    busy = decline_message(Decline("later"), ChallengeSettings())
    too_fast = decline_message(Decline("tooFast"), ChallengeSettings())
    assert "later" in busy and "later" not in too_fast
    assert ChallengeAnswer(False, "later", 0.0).asks_to_come_back
    assert ChallengeAnswer(False, busy, 0.0).asks_to_come_back
    assert not ChallengeAnswer(False, "tooFast", 0.0).asks_to_come_back
    assert not ChallengeAnswer(False, too_fast, 0.0).asks_to_come_back
    assert not ChallengeAnswer(False, "collateral", 0.0).asks_to_come_back, "a whole word only"
    assert not ChallengeAnswer(True, None, 0.0).asks_to_come_back


def test_a_challenge_declined_in_free_text_for_later_is_offered_again_on_pychess(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    server = pychess_server
    config = bot_config(server, tmp_path, challenge={"decline_message": DEFAULT_DECLINE_MESSAGE})
    busy = server.challenge(challenger="Bob", clock=(600, 5), opponent=Scripted([], then="wait"))
    bots.append(BotThread(config).start())
    assert server.wait_for_answer(busy, STARTUP_S).accepted
    server.wait_for_game_start(busy, STARTUP_S)

    offered: list[str] = []
    said: list[str] = []

    def offer(n: int) -> str:
        offered.append(server.challenge(clock=(60, 1), opponent=ResignAfter(4, seed=n)))
        return offered[-1]

    offering = threading.Thread(target=offer_in_turn, args=(server, 2, offer),
                                kwargs={"retry_after_s": 0.2, "say": said.append}, daemon=True)
    offering.start()
    server.wait_for(lambda: offered and server.answer(offered[0]), STARTUP_S, "the first offer's answer")
    first = server.answer(offered[0])
    assert first is not None and not first.accepted
    assert first.reason is not None and first.reason.startswith("I am busy right now, please try again later")
    server.opponent_resign(busy)
    offering.join(2 * GAME_S)
    assert not offering.is_alive(), f"the offers did not end: {said}"
    played = [game_id for game_id in offered if server.answer(game_id).accepted]  # type: ignore[union-attr]
    assert len(played) == 2, said
    assert all(server.game(game_id).over for game_id in played)
    assert any("declined for later" in line for line in said)


def test_the_loopback_command_plays_all_three_games_with_a_bot_of_concurrency_1_on_pychess(
    tmp_path: Path, bots: list[BotThread]
) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    command = [sys.executable, "-m", "bot.loopback", "--dialect", "pychess", "--challenges", "3", "--clock", "1+1",
               "--token", TOKEN]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env, cwd=REPO)
    watchdog = threading.Timer(3 * GAME_S, process.kill)  # a hung run ends the output, and so the loop below
    watchdog.start()
    lines: list[str] = []
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        url = re.search(r"on (http://\S+) as", banner)
        assert url, banner
        address = cast(LoopbackServer, SimpleNamespace(url=url.group(1), dialect="pychess"))
        config = bot_config(address, tmp_path, challenge={"concurrency": 1,
                                                          "decline_message": DEFAULT_DECLINE_MESSAGE})
        bots.append(BotThread(config).start())
        for line in iter(process.stdout.readline, ""):
            lines.append(line)
            if line.startswith("all challenges answered"):
                break
    finally:
        watchdog.cancel()
        process.kill()
        process.wait(PATIENCE_S)
    text = "".join(lines)
    assert "all challenges answered" in text, text[-3000:]
    assert len(re.findall(r"^game over: ", text, re.M)) == 3, text[-3000:]
