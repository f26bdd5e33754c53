"""The bot's fixed waits: how long it pauses, backs off and waits for a silent server.

They are not config keys (an operator has no reason to change them, and a wrong one would break the bot's
promises to the server), but one frozen :class:`Timing` that :func:`bot.app.run.run_bot` hands to the parts
that wait: the :class:`~bot.wire.server.Server` (429 pauses, retries, the streams' reconnects, the start-up
window), the lobby (the engine probe, the reconciler) and each game worker (its bounded waits). The defaults
are production's; the tests pass one with seconds shortened to fractions (``tests/timing.py``), so that no
test changes a module's constant and no code reads one at call time.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Timing:
    """Every wait in seconds; the defaults are production's."""

    # ---- the server connection (bot.wire) ----
    #: an HTTP 429 pauses its endpoint this long (or ``Retry-After``, when that is longer)
    rate_limit_pause_s: float = 60.0
    #: the first retry delay of a failed request, doubled per attempt (a move's retries start at a quarter)
    retry_base_s: float = 1.0
    #: the first delay before a lost stream is opened again, doubled per attempt
    reconnect_base_s: float = 1.0
    #: at start-up, how long the account is asked for from a server that cannot be reached (refused, 5xx)
    startup_retry_s: float = 300.0
    #: the longest pause between two start-up attempts
    startup_max_delay_s: float = 15.0

    # ---- the lobby (bot.lobby) ----
    #: after a game lost its engine for good, how often an engine start is tried again
    engine_probe_s: float = 30.0
    #: the reconciler: between two reads of the server (a start-up with many games must not flood it)
    check_spacing_s: float = 1.0
    #: the reconciler: after resigning (aborting) a game again, look again this soon for the server's result
    resent_recheck_s: float = 5.0
    #: the reconciler: a game the server has live that we can do nothing about is looked at this often
    live_recheck_s: float = 60.0
    #: the reconciler: a read of the server that failed is tried again after this long
    failed_recheck_s: float = 60.0

    # ---- a game (bot.game) ----
    #: after the lobby hears ``gameFinish``, how long the worker waits for the game stream's own end signal
    finish_grace_s: float = 10.0
    #: how often a stalled game (stream failing, opponent's clock long gone) is looked up on the game page
    page_check_interval_s: float = 20.0
    #: pychess: while the opponent is to move and only pings come, the game page is read (a BOT's resignation
    #: never reaches us as an event) first after this long without news ...
    quiet_first_check_s: float = 10.0
    #: ... then at intervals that double up to this
    quiet_page_check_s: float = 60.0
    #: an opponent whose clock ran out this long ago, with no news, means the stream has stopped telling us
    flag_grace_s: float = 10.0
    #: pychess: a game stream failing this long (or ``server.stream_timeout_s`` if shorter) is replaced by the
    #: game page, which is played from and read every ``page_poll_s`` until the stream is back
    stream_trouble_s: float = 5.0
    page_poll_s: float = 2.0
    #: the server flags a player some time after the clock runs out (pychess.org: about 20 s); a game is never
    #: given up before the longer clock plus this could have run out
    server_flag_delay_s: float = 30.0

    def __post_init__(self) -> None:
        negative = [f.name for f in fields(self) if getattr(self, f.name) < 0]
        if negative:
            raise ValueError(f"Timing: {', '.join(negative)} must not be negative")
        if self.quiet_first_check_s > self.quiet_page_check_s:
            raise ValueError("Timing: quiet_first_check_s must not exceed quiet_page_check_s")


#: the waits the bot runs with: every part that waits takes this unless it is handed another
PRODUCTION_TIMING = Timing()

__all__ = ["PRODUCTION_TIMING", "Timing"]
