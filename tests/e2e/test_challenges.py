"""Challenge handling end to end: the reasons declines carry, and two games at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.loopback import LoopbackServer, RandomMoves, Scripted
from tests.e2e.conftest import BotThread, assert_clean_game, bot_config
from tests.timing import GAME_S, STARTUP_S

# (challenge arguments, config overrides, expected reason); every case is declined for one reason only
DECLINES: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    ("rated", {"rated": True}, {"challenge": {"modes": ["casual"]}}, "casual"),
    ("slow", {"clock": (1800, 0)}, {"challenge": {"max_base_s": 600}}, "tooSlow"),
    ("bullet", {"clock": (60, 0)}, {"challenge": {"speeds": ["blitz", "rapid"]}}, "tooFast"),
    ("blocked", {"challenger": "Troll"}, {"challenge": {"block_list": ["troll"]}}, "generic"),
    ("bot", {"title": "BOT"}, {"challenge": {"accept_bots": False}}, "noBot"),
    ("960", {"chess960": True}, {"challenge": {"variants": ["seirawan"]}}, "variant"),
    ("no-increment", {"clock": (60, 0)}, {"challenge": {"bullet_requires_increment": True}}, "tooFast"),
    ("low-rating", {"rating": 1100}, {"challenge": {"min_rating": 1200}}, "generic"),
]


@pytest.mark.parametrize(("case", "challenge", "overrides", "reason"), DECLINES, ids=[d[0] for d in DECLINES])
def test_declines_with_the_matching_reason(
    server: LoopbackServer,
    tmp_path: Path,
    bots: list[BotThread],
    case: str,
    challenge: dict[str, Any],
    overrides: dict[str, Any],
    reason: str,
) -> None:
    if case == "960" and server.dialect == "pychess":
        # pychess never offers a variant missing from the capabilities header: the bot cannot see it
        overrides = {"challenge": {"variants": ["seirawan", "seirawan960"], "modes": ["casual"]}}
        challenge, reason = {"chess960": True, "rated": True}, "casual"
    declined_id = server.challenge(**challenge)
    accepted_id = server.challenge(challenger="Welcome", opponent=RandomMoves(seed=1))
    bots.append(BotThread(bot_config(server, tmp_path, **overrides)).start())
    answer = server.wait_for_answer(declined_id, STARTUP_S)
    assert (answer.accepted, answer.reason) == (False, reason)
    # the answer is stored while the request is served; the request record follows the reply
    decline = server.wait_for_request("decline", declined_id)[0]
    assert decline.form == {"reason": reason} and decline.json_body is None, "form body, as pychess needs"
    assert server.wait_for_answer(accepted_id, STARTUP_S).accepted, "the same bot accepts a suitable challenge"


def test_two_games_at_once_and_a_third_is_declined_later(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread]
) -> None:
    # the opponents (white) play one move and then wait, so both games are surely running at once
    first = server.challenge(challenger="Alice", color="white", opponent=Scripted(["e2e4", "wait"]))
    second = server.challenge(challenger="Bob", color="white", opponent=Scripted(["d2d4", "wait"]))
    bots.append(BotThread(bot_config(server, tmp_path, challenge={"concurrency": 2}), max_games=2).start())
    server.wait_for_plies(first, 2, GAME_S)
    server.wait_for_plies(second, 2, GAME_S)
    third = server.challenge(challenger="Carol")
    answer = server.wait_for_answer(third, STARTUP_S)
    assert (answer.accepted, answer.reason) == (False, "later")
    server.set_opponent(first, RandomMoves(seed=5))
    server.set_opponent(second, RandomMoves(seed=6))
    games = [server.wait_for_game_end(game_id, GAME_S) for game_id in (first, second)]
    for game in games:
        assert_clean_game(game)
        assert game.status in ("mate", "draw", "stalemate"), game.describe()
    ends = [game.ended_at or 0.0 for game in games]
    assert games[0].created_at < ends[1] and games[1].created_at < ends[0], "the games overlapped"
    assert bots[0].join(GAME_S) == 0
