"""Time management: how long to think about one move, from the UCI ``go`` parameters.

``plan_time`` returns a soft budget (do not start another iteration past ~60% of it) and a hard cap (abort
the search there). The hard cap never goes past the time left minus the move overhead, so the engine does
not lose on time even on a slow machine; with very little time it still answers within a few milliseconds.
"""

from __future__ import annotations

from typing import Optional

MIN_THINK = 0.005  # seconds: always allow a depth-1 search


def plan_time(
    time_left_ms: Optional[int],
    increment_ms: int = 0,
    moves_to_go: Optional[int] = None,
    move_time_ms: Optional[int] = None,
    overhead_ms: int = 50,
    ply: int = 0,
) -> tuple[Optional[float], Optional[float]]:
    """(soft, hard) limits in seconds for one move, or (None, None) when there is no clock."""
    overhead = max(0, overhead_ms) / 1000.0
    if move_time_ms is not None:
        hard = max(MIN_THINK, move_time_ms / 1000.0 - overhead)
        return hard, hard
    if time_left_ms is None:
        return None, None
    left = max(0.0, time_left_ms / 1000.0)
    inc = max(0, increment_ms) / 1000.0
    usable = left - overhead
    if usable <= MIN_THINK:
        return MIN_THINK, MIN_THINK
    if moves_to_go:
        moves = min(max(moves_to_go, 1), 50)
        budget = usable / (moves + 1) + inc * 0.8
    else:
        # Expect a long game early on, fewer moves later.
        moves = 32 if ply < 40 else 24
        budget = usable / moves + inc * 0.8
    # Hard cap: a few budgets, but never more than a fraction of what is left.
    hard = min(budget * 4.0, usable * 0.4 if not moves_to_go or moves_to_go > 1 else usable * 0.85)
    hard = max(MIN_THINK, min(hard, usable))
    soft = max(MIN_THINK, min(budget, hard))
    return soft, hard
