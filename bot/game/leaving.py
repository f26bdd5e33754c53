"""Leaving a game early: aborting it (while it can still be aborted) or resigning it, when the opponent never
moves, the engine is lost for good, the position cannot be set up, or the bot shuts down; and a game our
state file says is over (we resigned, aborted or saw it end in an earlier run), which gets its resignation
(abort) sent again and nothing played."""

from __future__ import annotations

import logging

from bot.game.context import GameContext
from bot.game.ponder import Ponderer
from bot.game.record import GameNote
from bot.game.verdicts import Remember
from bot.game.watch import ServerWatch
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
    for us (``remembered``). What the state file should be told comes back as a :class:`Remember` verdict,
    for the worker to pass on."""

    def __init__(self, game: GameContext, watch: ServerWatch, ponderer: Ponderer, *,
                 remembered: GameNote | None) -> None:
        self.game = game
        self.label = game.label
        self.watch = watch
        self.ponderer = ponderer
        self.remembered = remembered
        self._resend_from = game.monotonic() if remembered is not None else None

    def deadlines(self) -> list[float]:
        """When :meth:`maybe_abort_unstarted` or :meth:`resend_if_due` next has something to decide."""
        game = self.game
        times = [game.position_changed_at + game.settings.time.abort_unstarted_after_s]
        if self.remembered is not None and self._resend_from is not None:
            wait = game.settings.server.stream_timeout_s if game.full is None else 0.0
            times.append(self._resend_from + wait)
        return times

    def maybe_abort_unstarted(self, now: float) -> Remember | None:
        """Abort when the opponent has not made their first move in time."""
        game = self.game
        if game.position is None or game.over or game.we_are_white is None or self.remembered is not None:
            return None
        opponent_moved = game.position.ply >= (1 if game.we_are_white is False else 2)
        if opponent_moved or game.our_turn() or game.correspondence:
            return None  # Lichess aborts unstarted correspondence games itself, days later
        if now - self.game.position_changed_at >= game.settings.time.abort_unstarted_after_s:
            log.info("%s: the opponent never moved; aborting", self.label)
            return self.abort_or_resign("opponent never moved", resign=False)
        return None

    def abort_or_resign(self, reason: str, *, resign: bool = True) -> Remember | None:
        """Abort a game that can still be aborted (before both sides have moved), else resign it (when
        ``resign``). pychess answers an abort of a game with moves with 200 and plays on, so it is never sent."""
        game = self.game
        if self.watch.already_over_on_server():
            return None
        if game.position is not None and game.position.ply >= 2:
            if not resign:
                return None
            log.info("%s: too late to abort (%d plies on the board); resigning (%s)", self.label, game.position.ply,
                     reason)
            verdict = self.resign(check_server=False)
            game.end_game(f"resigned: {reason}")
            return verdict
        try:
            game.server.abort_game(self.game.game_id)
        except ServerError as error:
            if not resign:
                log.warning("%s: could not abort (%s)", self.label, error)
                self.game.position_changed_at = self.game.monotonic()  # try again later
                return None
            log.info("%s: cannot abort (%s); resigning", self.label, error)
            verdict = self.resign(check_server=False)
            if game.we_resigned:  # else the game goes on (or already ended: its final state says how)
                game.end_game(f"resigned: {reason}")
            return verdict
        log.info("%s: aborted (%s)", self.label, reason)
        game.outcome = GameOutcome("*", ABANDONED, "aborted")
        game.end_game(f"aborted: {reason}")
        return Remember("aborted", game.outcome)

    def engine_lost(self, reason: str) -> Remember | None:
        """The engine failed on two moves in a row: end the game (abort while the game allows it, else
        resign) rather than play it on stand-in moves (the worker tells the lobby)."""
        game = self.game
        can_abort = game.position is not None and game.position.ply < 2
        log.error("%s: the engine gave no move on two moves in a row (%s); %s the game", self.label, reason,
                  "aborting" if can_abort else "resigning")
        self.ponderer.stop()
        if can_abort:
            return self.abort_or_resign("the engine cannot play")
        verdict = self.resign()
        if game.over:
            game.end_game("resigned: the engine cannot play")
        return verdict

    def resign(self, *, check_server: bool = True) -> Remember | None:
        game = self.game
        if game.over or (check_server and self.watch.already_over_on_server()):
            return None
        try:
            game.server.resign_game(self.game.game_id)
            game.we_resigned = True
        except ServerError as error:
            log.error("%s: could not resign (%s)", self.label, error)
            return None
        game.end_game(game.end_reason or "resigned")  # pychess sends no end event after a resignation
        if game.we_are_white is None:
            return None
        return Remember("resigned", resignation(game.we_are_white))

    def resend_if_due(self, now: float, *, stopping: bool = False) -> None:
        """Resign (or abort) again a game we resigned (aborted) before, once its ``gameFull`` is here (to have
        the moves for the PGN) or the stream has not brought it for ``stream_timeout_s``. Nothing is sent when
        the server already has the game over (game page or export). A game that simply ended is only looked
        up (every ``timing.quiet_page_check_s``): over on the server too, the worker is done; until then it
        watches, playing nothing. ``stopping``: the bot is stopping: send now what is still to send, without
        waiting for the ``gameFull`` or a retry (the caller then leaves the game either way)."""
        game, note = self.game, self.remembered
        if note is None or self._resend_from is None or (now < self._resend_from and not stopping):
            return
        waited = now - self._resend_from
        if game.full is None and waited < game.settings.server.stream_timeout_s and not stopping:
            return
        if note.action == "ended" and stopping:
            return  # nothing to send; the next run looks the game up
        if note.action == "ended":  # nothing to send: is the game over on the server too? (ask every minute:
            # a BOT's resignation never reaches us, and we do not move)
            self._resend_from = now + self.watch.timing.quiet_page_check_s
            if self.watch.settle_from_server():
                game.end_game("over on the server")
            return
        if self.watch.already_over_on_server():
            return
        abort = note.action == "aborted" and (game.position is None or game.position.ply < 2)
        try:
            if abort:
                game.server.abort_game(self.game.game_id)
            else:
                game.server.resign_game(self.game.game_id)
        except ServerError as error:
            log.warning("%s: could not %s again (%s); trying again in %.0f s", self.label,
                        "abort" if abort else "resign", error, RESEND_RETRY_S)
            self._resend_from = now + RESEND_RETRY_S
            return
        self._resend_from = None
        game.we_resigned = not abort
        game.ended_again = True
        log.info("%s: our record says we %s this game; %s again and played nothing", self.label, note.action,
                 "aborted it" if abort else "resigned")
        if self.watch.settle_from_server() is None:
            log.info("%s: the server has no record of the end for us; keeping our result %s", self.label, note.result)
        game.end_game(f"over for us since an earlier run ({note.action})")
