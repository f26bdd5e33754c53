"""Fault 4: the engine is killed mid-search, hangs (never answers ``bestmove``, ignores ``stop``) or answers an
illegal move -> the game worker restarts it or plays a legal fallback move, and still moves before its clock
runs out. The faults come from ``faulty_uci.py`` on chosen searches."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pytest

from bot.loopback import LoopbackServer
from tests.reliability.conftest import (
    SHORT_WAITS,
    BotThread,
    ResignAfter,
    assert_clean_game,
    bot_config,
    faulty_engine,
)
from tests.timing import GAME_S, STARTUP_S, wait_until

CLOCK_S = 10
#: Lichess does not let a BOT play ultraBullet (its challenge says ``compat.bot: false`` and the bot declines),
#: so there the clock is the fastest bullet one: 30+0.
LICHESS_CLOCK_S = 30


@pytest.mark.parametrize(("fault", "log_line"), [
    ("die_on", "engine crashed: engine process exited (code -9)"),
    ("hang_on", "engine timed out"),
    ("illegal_on", "engine move 'a1a1' is illegal"),
])
def test_an_engine_fault_costs_one_move_not_the_game(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture,
    fault: str, log_line: str
) -> None:
    caplog.set_level(logging.INFO)
    counter = tmp_path / "searches"
    command = faulty_engine(tmp_path, counter=counter, **{fault: 3})  # the bot's 3rd search
    clock_s = CLOCK_S if server.dialect == "pychess" else LICHESS_CLOCK_S
    game_id = server.challenge(color="white", clock=(clock_s, 0), opponent=ResignAfter(8, seed=5))
    config = bot_config(server, tmp_path, engine={"command": command, "limits": {"depth": None}},
                        challenge={"speeds": ["ultraBullet", "bullet"]})
    bots.append(BotThread(config, max_games=1).start())
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert game.status == "resign", f"the bot lost: {game.status} ({game.termination})"
    assert len(game.bot_moves()) >= 8, "the bot played every move after the fault"
    assert int(counter.read_text()) >= 8
    assert log_line in caplog.text
    bot_times = [r for r in game.move_log if r.by == "bot"]
    assert all(r.remaining_ms is None or r.remaining_ms > 0 for r in bot_times), "never out of time"
    assert bots[0].join(GAME_S) == 0


def test_an_engine_gone_for_good_ends_the_game_stops_challenges_and_fails_the_health_check(
    server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    """The engine dies on the bot's 3rd search and cannot be restarted: one stand-in move saves the clock,
    the next move resigns the game instead; challenges are declined and the health check fails until the
    engine starts again, then the bot accepts again."""
    from bot.app import health

    caplog.set_level(logging.INFO)
    counter = tmp_path / "searches"
    heartbeat = tmp_path / "heartbeat"
    command = faulty_engine(tmp_path, counter=counter, dead_from=3)
    game_id = server.challenge(color="black", clock=(LICHESS_CLOCK_S, 0), opponent=ResignAfter(30, seed=3))
    config = bot_config(server, tmp_path, engine={"command": command, "limits": {"depth": None}},
                        challenge={"speeds": ["ultraBullet", "bullet"]}, heartbeat_file=str(heartbeat))
    bots.append(BotThread(config, timing=replace(SHORT_WAITS, engine_probe_s=0.5)).start())
    game = server.wait_for_game_end(game_id, GAME_S)
    assert_clean_game(game)
    assert game.status == "resign" and game.winner is False, game.describe()  # the bot (white) resigned
    assert len(game.bot_moves()) == 3, "two engine moves, one stand-in, then the resignation"
    assert "stand-in move (fallback" in caplog.text
    assert "the engine gave no move on two moves in a row" in caplog.text
    assert [r for r in caplog.records if r.levelno == logging.ERROR and "failed for good" in r.getMessage()]

    refused = server.challenge(clock=(LICHESS_CLOCK_S, 0))
    answer = server.wait_for_answer(refused, STARTUP_S)
    assert not answer.accepted and answer.reason == "later"
    assert heartbeat.read_text().startswith("unhealthy: the engine failed for good")
    assert health.main([str(heartbeat)]) == 1

    Path(f"{counter}.dead").unlink()  # the engine can start again
    wait_until(lambda: heartbeat.read_text().strip() == "ok", "the health check to pass again", 20)
    assert health.main([str(heartbeat)]) == 0
    accepted = server.challenge(clock=(LICHESS_CLOCK_S, 0), opponent=ResignAfter(1, seed=4))
    assert server.wait_for_answer(accepted, STARTUP_S).accepted
