"""Clock -> engine limits: units, overhead, deadlines that leave time for a fallback move."""

from __future__ import annotations

from bot.config import EngineLimits, TimeSettings
from bot.game.timecontrol import search_limits, usable_time_ms
from bot.wire.events import GameState, TimeControl

CLOCK = TimeControl("clock", 300_000, 3_000)


def state(wtime: int, btime: int, inc: int = 3000) -> GameState:
    return GameState(moves=(), wtime_ms=wtime, btime_ms=btime, winc_ms=inc, binc_ms=inc)


def test_our_clock_loses_the_overhead_and_theirs_is_passed_as_is():
    limits = search_limits(state(300_000, 200_000), True, CLOCK, TimeSettings(move_overhead_ms=300),
                           EngineLimits())
    assert limits.wtime_ms == 299_700 and limits.btime_ms == 200_000 and limits.winc_ms == 3000
    assert limits.go_command() == "go wtime 299700 btime 200000 winc 3000 binc 3000"
    black = search_limits(state(300_000, 200_000), False, CLOCK, TimeSettings(), EngineLimits())
    assert black.btime_ms == 199_700 and black.wtime_ms == 300_000


def test_deadline_leaves_most_of_a_short_clock_for_a_fallback():
    limits = search_limits(state(1000, 1000, inc=0), True, CLOCK, TimeSettings(), EngineLimits())
    assert limits.wtime_ms == 700
    assert limits.deadline_ms + limits.stop_grace_ms < 700


def test_less_time_than_the_overhead_still_gives_the_engine_something():
    assert usable_time_ms(200, 300) == 40
    assert usable_time_ms(0, 300) >= 1


def test_fixed_movetime_is_capped_by_what_the_clock_affords():
    limits = search_limits(state(5_000, 5_000, inc=0), True, CLOCK, TimeSettings(),
                           EngineLimits(movetime_ms=10_000, depth=8))
    assert limits.movetime_ms is not None and limits.movetime_ms <= 470
    assert "depth 8" in limits.go_command()


def test_correspondence_gets_the_fixed_budget():
    limits = search_limits(state(0, 0, inc=0), True, TimeControl("correspondence", days=2),
                           TimeSettings(correspondence_move_s=45), EngineLimits())
    assert limits.go_command() == "go movetime 45000"
    assert limits.deadline_ms > 45_000
