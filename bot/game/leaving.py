"""Leaving a game early: aborting it (while it can still be aborted) or resigning it, when the opponent never
moves, the engine is lost for good, the position cannot be set up, or the bot shuts down; and a game our
state file says is over (we resigned, aborted or saw it end in an earlier run), which gets its resignation
(abort) sent again and nothing played. Whether the server has the game over already is the worker's to ask
first (:meth:`ServerWatch.already_over_on_server <bot.game.watch.ServerWatch.already_over_on_server>`): nothing
is sent into a game that ended."""

from __future__ import annotations

import logging

from bot.config import PRODUCTION_TIMING, Timing
from bot.game.context import GameContext
from bot.game.record import GameNote
from bot.game.verdicts import End, KnownOutcome, Remember, Resigned, SentAgain, Verdicts
from bot.records.results import ABANDONED, GameOutcome, resignation
from bot.wire.errors import ServerError

log = logging.getLogger("bot.game")

#: A game our record says is over: how often a resignation (or abort) that the server refused is sent again.
RESEND_RETRY_S = 5.0


def stop_plan(mode: str, *, ply: int, correspondence: bool, over_for_us: bool) -> str:
    """What stopping the bot in ``mode`` (``finish`` or ``abort``) will do to a game at ``ply``, in the words
    of the shutdown line: the same rules as :meth:`Leaving.abort_or_resign` and the worker's stop."""
    if over_for_us:
        return "is over for us (resigned again if the server has it live; no move)"
    if correspondence:
        return "will be left parked (correspondence)"
    if mode != "abort":
        return "will be finished"
    if ply >= 2:
        return f"will be resigned (too late to abort: {ply} plies on the board)"
    return "will be aborted"


class Leaving:
    """Aborts or resigns one game, and sends again the resignation (abort) of a game that is already over
    for us (``remembered``). What follows (the game's end, its outcome, what the state file should be told)
    comes back as verdicts for the worker to carry out; ``timing``: how long it waits for what."""

    def __init__(self, game: GameContext, timing: Timing = PRODUCTION_TIMING, *,
                 remembered: GameNote | None) -> None:
        self.game = game
        self.label = game.label
        self.timing = timing
        self.remembered = remembered
        self._resend_from = game.monotonic() if remembered is not None else None
        self._abort_failed_at: float | None = None  # an abort of an unstarted game failed: tried again later

    def _unstarted_since(self) -> float:
        """Since when the opponent has not started the game, as an abort counts it (a failed abort restarts it)."""
        changed = self.game.position_changed_at
        return changed if self._abort_failed_at is None else max(changed, self._abort_failed_at)

    def deadlines(self) -> list[float]:
        """When :meth:`abort_unstarted_due` or :meth:`resend_due` next has something to decide."""
        game = self.game
        times = [self._unstarted_since() + game.settings.time.abort_unstarted_after_s]
        if self.remembered is not None and self._resend_from is not None:
            wait = game.settings.server.stream_timeout_s if game.full is None else 0.0
            times.append(self._resend_from + wait)
        return times

    def abort_unstarted_due(self, now: float) -> bool:
        """The opponent has not made their first move in time: the game is to be aborted (never resigned)."""
        game = self.game
        if game.position is None or game.over or game.we_are_white is None or self.remembered is not None:
            return False
        opponent_moved = game.position.ply >= (1 if game.we_are_white is False else 2)
        if opponent_moved or game.our_turn() or game.correspondence:
            return False  # Lichess aborts unstarted correspondence games itself, days later
        if now - self._unstarted_since() >= game.settings.time.abort_unstarted_after_s:
            log.info("%s: the opponent never moved; aborting", self.label)
            return True
        return False

    def abort_or_resign(self, reason: str, *, resign: bool = True) -> Verdicts:
        """Abort a game that can still be aborted (before both sides have moved), else resign it (when
        ``resign``). pychess answers an abort of a game with moves with 200 and plays on, so it is never sent."""
        game = self.game
        if game.position is not None and game.position.ply >= 2:
            if not resign:
                return ()
            log.info("%s: too late to abort (%d plies on the board); resigning (%s)", self.label, game.position.ply,
                     reason)
            return *self.resign(), End(f"resigned: {reason}")
        try:
            game.server.abort_game(game.game_id)
        except ServerError as error:
            if not resign:
                log.warning("%s: could not abort (%s)", self.label, error)
                self._abort_failed_at = game.monotonic()  # try again later
                return ()
            log.info("%s: cannot abort (%s); resigning", self.label, error)
            resigned = self.resign()
            # not resigned: the game goes on (or already ended: its final state says how)
            return (*resigned, End(f"resigned: {reason}")) if resigned else ()
        log.info("%s: aborted (%s)", self.label, reason)
        outcome = GameOutcome("*", ABANDONED, "aborted")
        return KnownOutcome(outcome), End(f"aborted: {reason}"), Remember("aborted", outcome)

    def engine_lost(self, reason: str) -> bool:
        """The engine failed on two moves in a row: the game is ended (aborted while the game allows it, else
        resigned) rather than played on stand-in moves. True when it can still be aborted."""
        game = self.game
        can_abort = game.position is not None and game.position.ply < 2
        log.error("%s: the engine gave no move on two moves in a row (%s); %s the game", self.label, reason,
                  "aborting" if can_abort else "resigning")
        return can_abort

    def resign(self) -> Verdicts:
        """Resign the game: nothing when it is over or the server refuses."""
        game = self.game
        if game.over:
            return ()
        try:
            game.server.resign_game(game.game_id)
        except ServerError as error:
            log.error("%s: could not resign (%s)", self.label, error)
            return ()
        resigned: Verdicts = (Resigned(), End("resigned"))  # pychess sends no end event after a resignation
        if game.we_are_white is None:
            return resigned
        return *resigned, Remember("resigned", resignation(game.we_are_white))

    def resend_due(self, now: float, *, stopping: bool = False) -> str | None:
        """What a game we resigned (aborted) before is due, once its ``gameFull`` is here (to have the moves for
        the PGN) or the stream has not brought it for ``stream_timeout_s``: ``send`` our resignation (abort)
        again (:meth:`resend`; nothing is to be sent when the server already has the game over, game page or
        export), or ``look up`` a game that simply ended (every ``timing.quiet_page_check_s``: over on the
        server too, the worker is done; until then it watches, playing nothing); None: nothing yet.
        ``stopping``: the bot is stopping: send now what is still to send, without waiting for the ``gameFull``
        or a retry (the caller then leaves the game either way)."""
        game, note = self.game, self.remembered
        if note is None or self._resend_from is None or (now < self._resend_from and not stopping):
            return None
        waited = now - self._resend_from
        if game.full is None and waited < game.settings.server.stream_timeout_s and not stopping:
            return None
        if note.action == "ended" and stopping:
            return None  # nothing to send; the next run looks the game up
        if note.action == "ended":  # nothing to send: is the game over on the server too? (ask every minute:
            # a BOT's resignation never reaches us, and we do not move)
            self._resend_from = now + self.timing.quiet_page_check_s
            return "look up"
        return "send"

    def resend(self, now: float) -> Verdicts:
        """Send our resignation (abort) again (:meth:`resend_due` said ``send``); :class:`SentAgain` when the
        server took it, nothing when it refused (tried again in ``RESEND_RETRY_S``)."""
        game, note = self.game, self.remembered
        assert note is not None
        abort = note.action == "aborted" and (game.position is None or game.position.ply < 2)
        try:
            if abort:
                game.server.abort_game(game.game_id)
            else:
                game.server.resign_game(game.game_id)
        except ServerError as error:
            log.warning("%s: could not %s again (%s); trying again in %.0f s", self.label,
                        "abort" if abort else "resign", error, RESEND_RETRY_S)
            self._resend_from = now + RESEND_RETRY_S
            return ()
        self._resend_from = None
        log.info("%s: our record says we %s this game; %s again and played nothing", self.label, note.action,
                 "aborted it" if abort else "resigned")
        return (SentAgain(resigned=not abort),)
