"""Fault 4: the engine is killed mid-search, hangs (never answers ``bestmove``, ignores ``stop``) or answers an
illegal move -> the game worker restarts it or plays a legal fallback move, and still moves before its clock
runs out. The faults come from ``faulty_uci.py`` on chosen searches."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.loopback import LoopbackServer
from tests.reliability.conftest import BotThread, ResignAfter, assert_clean_game, bot_config, faulty_engine

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
    game = server.wait_for_game_end(game_id, 60)
    assert_clean_game(game)
    assert game.status == "resign", f"the bot lost: {game.status} ({game.termination})"
    assert len(game.bot_moves()) >= 8, "the bot played every move after the fault"
    assert int(counter.read_text()) >= 8
    assert log_line in caplog.text
    bot_times = [r for r in game.move_log if r.by == "bot"]
    assert all(r.remaining_ms is None or r.remaining_ms > 0 for r in bot_times), "never out of time"
    assert bots[0].join(20) == 0
