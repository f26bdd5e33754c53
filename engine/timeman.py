"""Time management: how long to think about one move, from the UCI ``go`` parameters, and after each iteration
of the search whether to start another one.

:func:`plan_time` gives a soft budget (what a move should cost on average) and a hard cap (abort the search
there): the cap is at most :data:`HARD_FACTOR` times the budget, never past a share of the time left, and
never past the time left minus the move overhead, so the engine does not lose on time even on a slow machine;
with very little time it still answers within a few milliseconds. ``go movetime T`` gives soft = hard = T.

:func:`keep_searching` decides, after an iteration, whether the next one is worth starting: it is not once
the time used passes a share of the budget (more when the best move just changed or the score fell, less
when the best move has been stable or the score is decided), nor when the next iteration, predicted from
the last one's cost, could not finish before the hard cap (should the cap stop it anyway, the search plays
the best move the iteration had proved by then: ``engine.search.Searcher``). Both are pure functions of
the numbers they are given (no clock), so they are tested with injected numbers.
"""

from __future__ import annotations

from typing import Optional

MIN_THINK = 0.005  # seconds: always allow a depth-1 search
# Milliseconds kept back from every move for process and pipe latency: the UCI option Move Overhead, its
# default and bounds.
MOVE_OVERHEAD_MS = 50
MOVE_OVERHEAD_MAX_MS = 5000
HARD_FACTOR = 3.0  # the hard cap: at most this many budgets on one move
HARD_SHARE = 0.4  # ... and at most this share of the time left (movestogo > 1 or none)

# keep_searching: the share of the budget after which no iteration starts, and how it moves.
START_SHARE = 0.7
UNSTABLE_FACTOR = 1.3  # the best move changed in the last iteration
STABLE_FACTOR = 0.7  # ... unchanged for STABLE_ITERATIONS iterations
STABLE_ITERATIONS = 3
FALLING_MARGIN = 30  # cp: a root score that falls more than this between iterations earns more time
MAX_FACTOR = 2.0
DECIDED_SCORE = 500  # cp: beyond this the game is decided either way and a move needs less thought
DECIDED_FACTOR = 0.6
# The next iteration costs about this many times the last one (effective branching factor, measured on the
# bench positions: 1.6-2.5); it is not started when even that would not finish before the hard cap.
NEXT_ITERATION_RATIO = 1.5
# The search passes its cap as deadline - start, which float rounding can put a hair above the budget it was
# planned equal to (go movetime): a budget this close to the cap counts as the cap.
SAME_TIME = 0.001
# The opening's moves (the first OPENING_PLIES plies from the position the GUI gave) share the time left over
# OPENING_MOVES moves (SUDDEN_DEATH_OPENING_MOVES without increment) instead of 28 or 32: about twice the
# budget, as Fairy-Stockfish spends it (2.8 s a move in its first ten at 30+0.3, then little more than the
# increment). Their hard cap stays that of an ordinary move.
OPENING_PLIES = 20
OPENING_MOVES = 12
SUDDEN_DEATH_OPENING_MOVES = 16
# With an increment (and no movestogo), a move's budget is the time left over this many moves plus most of
# the increment: HORIZON_START at the start, one fewer every HORIZON_PLIES plies, never fewer than
# HORIZON_MIN. Over a game at 30+0.3 against Fairy-Stockfish that spent about 88% of the clock (the careful
# plan below: 82%; Fairy-Stockfish: 99%).
HORIZON_START = 28
HORIZON_PLIES = 4
HORIZON_MIN = 12
# The careful plan (a game without increment, and the hard cap of every move): LONG_HORIZON moves for the
# first 40 plies, then LATE_HORIZON.
LONG_HORIZON = 32
LATE_HORIZON = 24


def plan_time(
    time_left_ms: Optional[int],
    increment_ms: int = 0,
    moves_to_go: Optional[int] = None,
    move_time_ms: Optional[int] = None,
    overhead_ms: int = MOVE_OVERHEAD_MS,
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
    # The careful plan: the time left over 32 moves for the first 40 plies, then over 24. It is the budget
    # of a game without increment (the clock must last however long the game goes) and sets the hard cap.
    careful = min(usable / (LONG_HORIZON if ply < 40 else LATE_HORIZON) + inc * 0.8, usable)
    if moves_to_go:
        moves = min(max(moves_to_go, 1), 50)
        cap_budget = budget = min(usable / (moves + 1) + inc * 0.8, usable)
    elif inc:
        # With an increment, fewer moves to share the clock as the game goes on: it then lasts to about
        # the end instead of leaving a fifth of it unused, the opening's moves getting about twice as much.
        moves = max(HORIZON_MIN, HORIZON_START - ply // HORIZON_PLIES)
        budget = min(usable / (OPENING_MOVES if ply < OPENING_PLIES else moves) + inc * 0.8, usable)
        cap_budget = careful
    else:
        cap_budget = careful
        budget = min(usable / SUDDEN_DEATH_OPENING_MOVES, usable) if ply < OPENING_PLIES else careful
    # Hard cap: a few budgets, but never more than a share of what is left.
    share = usable * HARD_SHARE if not moves_to_go or moves_to_go > 1 else usable * 0.85
    hard = max(MIN_THINK, min(cap_budget * HARD_FACTOR, share, usable))
    soft = max(MIN_THINK, min(budget, hard))
    return soft, hard


def time_factor(stability: int, falling: int, score: int) -> float:
    """How much of the usual share of the budget the search may use before it starts no new iteration:
    more when the best move just changed (``stability`` 0: iterations in a row with the same best move) or
    the root score fell by ``falling`` cp since the last iteration, less when the move is settled or the
    score (side to move's view, cp) says the game is decided."""
    if stability == 0:
        factor = UNSTABLE_FACTOR
    elif stability < STABLE_ITERATIONS:
        factor = 1.0
    else:
        factor = STABLE_FACTOR
    if falling > FALLING_MARGIN:
        factor = min(MAX_FACTOR, factor * (1.0 + min(falling, 4 * FALLING_MARGIN) / (4 * FALLING_MARGIN)))
    elif abs(score) >= DECIDED_SCORE:
        factor *= DECIDED_FACTOR
    return factor


def keep_searching(elapsed: float, soft: float, hard: Optional[float], last_iteration: float, stability: int,
                   falling: int, score: int) -> bool:
    """Whether to start the next iteration, ``elapsed`` seconds into the move with budget ``soft`` and hard
    cap ``hard`` (seconds from the start; None: no cap), after an iteration that took ``last_iteration``
    seconds. With soft = hard (``go movetime``) the search goes on until the cap: the time was asked for
    ("search exactly x mseconds", the UCI protocol), and the iteration the cap stops is not wasted (the search
    plays and reports what it has already proved at that depth)."""
    if hard is not None and soft >= hard - SAME_TIME:
        return True
    if elapsed > soft * START_SHARE * time_factor(stability, falling, score):
        return False
    if hard is not None and elapsed + last_iteration * NEXT_ITERATION_RATIO > hard:
        return False
    return True
