"""Clock + settings -> what the engine is told (``go ...``) and how long we wait for its answer.

Pure functions: the game worker passes the latest normalised :class:`~bot.wire.events.GameState` (all times in
ms) and gets back :class:`GoLimits`.
"""

from __future__ import annotations

from bot.config import EngineLimits, TimeSettings
from bot.engines.limits import GoLimits
from bot.wire.events import GameState, TimeControl

#: Never tell the engine less than this (ms): an engine told 0 may answer with nothing at all.
MIN_ENGINE_TIME_MS = 10
#: The longest a move whose first send may have landed waits for news before it is sent again anyway (ms).
MAX_UNSURE_MOVE_WAIT_MS = 10_000


def usable_time_ms(remaining_ms: int, overhead_ms: int) -> int:
    """Our clock minus the network/lag margin; with less than the margin left, a fifth of what is left."""
    remaining_ms = max(0, remaining_ms)
    return max(remaining_ms - overhead_ms, remaining_ms // 5, MIN_ENGINE_TIME_MS)


def unsure_move_wait_ms(remaining_ms: int, overhead_ms: int) -> int:
    """How long a move whose first send may or may not have landed waits for the game stream or the game
    page to say, where sending it twice can lose (pychess), before it is sent again all the same: a quarter
    of what our clock has beyond the overhead, at most MAX_UNSURE_MOVE_WAIT_MS. Waiting longer risks the
    flag, which surely loses; the rest of the clock is left for the moves after it."""
    return max(0, min((remaining_ms - overhead_ms) // 4, MAX_UNSURE_MOVE_WAIT_MS))


def reply_deadline_ms(usable_ms: int, increment_ms: int) -> int:
    """How long a sane engine may take on a clock: a quarter of the usable time plus the increment,
    but never more than 80% of it, so a hung engine still leaves time for a fallback move."""
    return max(MIN_ENGINE_TIME_MS, min(usable_ms // 4 + increment_ms, usable_ms * 4 // 5))


def search_limits(state: GameState, we_are_white: bool, clock: TimeControl, time: TimeSettings,
                  limits: EngineLimits) -> GoLimits:
    """The search limits for our move in this state."""
    movetime: int | None
    if clock.kind != "clock":
        movetime = time.correspondence_move_s * 1000
        if limits.movetime_ms is not None:
            movetime = min(movetime, limits.movetime_ms)
        return GoLimits(movetime_ms=movetime, depth=limits.depth, nodes=limits.nodes,
                            deadline_ms=movetime + max(2000, movetime // 10), stop_grace_ms=2000)
    ours, theirs = (state.wtime_ms, state.btime_ms) if we_are_white else (state.btime_ms, state.wtime_ms)
    increment = state.winc_ms if we_are_white else state.binc_ms
    usable = usable_time_ms(ours, time.move_overhead_ms)
    deadline = reply_deadline_ms(usable, increment)
    movetime = None
    if limits.movetime_ms is not None:
        # a fixed effort must not flag us: at most what the clock can afford for one move
        movetime = max(MIN_ENGINE_TIME_MS, min(limits.movetime_ms, usable // 10 + increment * 3 // 4))
        deadline = max(deadline, min(movetime * 2, usable * 4 // 5))
    white_time, black_time = (usable, max(theirs, 0)) if we_are_white else (max(theirs, 0), usable)
    return GoLimits(
        wtime_ms=white_time, btime_ms=black_time,
        winc_ms=max(state.winc_ms, 0), binc_ms=max(state.binc_ms, 0),
        movetime_ms=movetime, depth=limits.depth, nodes=limits.nodes, deadline_ms=deadline,
        stop_grace_ms=max(MIN_ENGINE_TIME_MS, min(1000, usable // 10)),
    )
