"""How long a test may wait for what takes well under a second, or a few seconds, on an idle machine.

Tests assert order and outcome. Where one must bound a wall-clock wait (an engine killed after its grace, a
``stop`` answered, a dropped stream reopened), it allows :data:`PATIENCE_S`: long enough for a machine whose
cores are all busy with other work, and far shorter than the hang or the unlimited search the bound rules out.
Waiting for programs to start (a Python process importing the bot or pyffish, several of them one after the
other) allows :data:`STARTUP_S`, and waiting for the bot to play (a reply, a whole game) :data:`GAME_S`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

PATIENCE_S = 10.0
#: a few Python processes started one after another: about 2 s idle, 10 s measured beside two CPU burners
#: and five other test processes
STARTUP_S = 60.0
#: the bot playing on the loopback server with its depth-1 engine: a reply, a whole game (a random opponent's
#: game to mate or a draw is the longest), the bot's stop after it. Seconds on an idle machine; the tests
#: allowed 15 to 90 s for these waits before they took this bound, and a passing run never waits it out
GAME_S = 120.0
#: ``schess-bot --sandbox`` from start to exit: the start-up checks, a 1+1 game on the loopback server against
#: the bundled engine and the PGN; the game's own clocks allow about 2 minutes, so a run that ends at all ends
#: well within this
SANDBOX_S = 200.0
#: pip building the project's wheel in an isolated environment (it fetches and installs the build
#: requirements first): about 20 s idle
BUILD_S = 300.0


def wait_until(condition: Callable[[], T], what: str | Callable[[], str], timeout_s: float = PATIENCE_S, *,
               poll_s: float = 0.05, clock: Callable[[], float] = time.monotonic,
               sleep: Callable[[float], object] = time.sleep) -> T:
    """Poll ``condition`` until it returns a true value, and return that value; once ``timeout_s`` has passed
    without one, raise AssertionError naming ``what`` (a callable is asked then, so the message can say what
    was seen instead: the log's tail, the items read so far).

    The suite's one wait for a state: a test that must reach one before it acts (a game known to be
    correspondence, a worker waiting, a request the server has seen) waits for the state itself instead of
    sleeping a guess, which holds however busy the machine is, and fails loudly, never by returning as if
    the state had come. ``clock`` and ``sleep``: injected by the helper's own test."""
    deadline = clock() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if clock() >= deadline:
            described = what() if callable(what) else what
            raise AssertionError(f"timed out after {timeout_s:g} s waiting for {described}")
        sleep(poll_s)
