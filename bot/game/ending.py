"""The end of one game's worker: the result it settles on, the PGN, the state-file note, the engine closed, and
the :class:`~bot.game.record.GameRecord` the lobby gets. What the game still lacks when its loop is over (the
server's record, our move in flight) and the goodbye are the worker's to fetch and say before :meth:`Ending.finish`
(:meth:`GameWorker._finish <bot.game.worker.GameWorker._finish>`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from bot import metrics
from bot.game.context import GameContext
from bot.game.protocols import Engine
from bot.game.record import GameNote, GameRecord, final_outcome, write_game_pgn
from bot.records.pgn import safe_file_id
from bot.records.results import ABANDONED, GameOutcome, lichess_outcome

log = logging.getLogger("bot.game")


class Ending:
    """Ends one game once its worker's loop is over, and keeps the state file told what we did to the game
    (``action``: resigned, aborted or ended)."""

    def __init__(self, game: GameContext, engine: Engine, *, revisit: bool, remembered: GameNote | None,
                 on_done: Callable[[GameRecord], None] | None, on_note: Callable[[GameNote], None] | None) -> None:
        self.game = game
        self.label = game.label
        self.engine = engine
        self.revisit = revisit
        self.remembered = remembered
        self.on_done = on_done
        self.on_note = on_note
        self.action = remembered.action if remembered is not None else "ended"  # what we did to the game
        self.record: GameRecord | None = None

    def note(self, action: str, outcome: GameOutcome) -> None:
        """Tell the lobby (the state file) what we did to the game and the result we write."""
        if action != "ended":
            self.action = action
        if self.on_note is not None:
            try:
                self.on_note(GameNote(self.game.game_id, self.action, outcome.result, outcome.termination,
                                      self.game.monotonic()))
            except Exception:  # noqa: BLE001 - a state-file problem must not cost the game its end
                log.exception("%s: could not remember the game", self.label)

    def report_failure(self) -> None:
        """Something went wrong while ending the game: the lobby still gets a record. Without one it keeps the
        game's slot taken and a stop waits for the game for ever (seen on the real server when a game resigned
        again after a restart raised in its metrics line)."""
        if self.record is None:
            self._close_engine()
            game = self.game
            self._report(GameRecord(game.game_id, "*", game.end_reason or "internal error", game.opponent_name))

    def parked(self, *, moved: bool) -> None:
        """A correspondence visit is over (``moved``: it made a move); the game goes on without us for now."""
        game = self.game
        self._close_engine()
        # a check that found nothing to do is not worth an INFO line (there is one per game and interval)
        level = logging.INFO if moved or not self.revisit else logging.DEBUG
        log.log(level, "%s: %s to move; parked until the next check (correspondence)", self.label,
                game.opponent_name)
        self._report(GameRecord(game.game_id, "*", "parked", game.opponent_name, parked=True))

    def outcome(self) -> GameOutcome:
        """How the game ended, from what the worker knows now (:func:`~bot.game.record.final_outcome`)."""
        game = self.game
        board = game.position.board if game.position is not None else None
        return final_outcome(game.outcome, game.end, board, game.we_are_white, game.we_resigned)

    def wants_server_record(self) -> bool:
        """The stream ended without saying how (or we stopped reading it after our resignation): the server's
        own record (game page, game export) decides, and has any plies we missed."""
        game = self.game
        return game.position is not None and game.we_are_white is not None and self.server_outcome() is None \
            and (self.outcome().result == "*" or game.we_resigned)

    def goodbye_due(self, outcome: GameOutcome, *, gave_up: bool) -> bool:
        """The game had moves (or a result) and was neither aborted nor given up: the goodbye is said."""
        return self._has_record(outcome) and outcome.termination != ABANDONED and not gave_up

    def _has_record(self, outcome: GameOutcome) -> bool:
        """A game that ended before its first move (a resignation, a flag) is still a game with a result."""
        game = self.game
        return game.full is not None and game.position is not None and (game.position.ply > 0 or outcome.result != "*")

    def finish(self, outcome: GameOutcome, *, gave_up: bool, sent: tuple[tuple[str, ...], str] | None) -> None:
        """The game ended with ``outcome`` (``gave_up``: the worker stopped waiting for it; ``sent``: our last
        move sent, as :attr:`MoveMaker.sent <bot.game.moves.MoveMaker.sent>`)."""
        game = self.game
        plies = game.position.ply if game.position is not None else 0
        if not gave_up and sent is not None and game.position is not None and self.server_outcome() is not None \
                and tuple(game.position.server_moves) == sent[0]:
            log.info("%s: our move %s did not count: the game had ended on the server before it arrived",
                     self.label, sent[1])
        pgn_path = write_game_pgn(game, outcome) if self._has_record(outcome) else None
        if not gave_up and (self.action != "ended" or outcome.result != "*"):
            self.note("ended", outcome)
        if game.full is not None:
            result = metrics.our_result(outcome.result, game.we_are_white, outcome.termination)
            metrics.GAMES_FINISHED.labels(variant=game.full.variant.config_name, result=result).inc()
        self._close_engine()
        log.info("%s: finished %s (%s; %s, %d pl%s) vs %s%s", self.label, outcome.result, outcome.reason,
                 outcome.termination, plies, "y" if plies == 1 else "ies", game.opponent_name,
                 f", PGN {pgn_path}" if pgn_path else "")
        self._report(GameRecord(game.game_id, outcome.result, game.end_reason or outcome.reason, game.opponent_name,
                                pgn_path, termination=outcome.termination, gave_up=gave_up))

    def server_outcome(self) -> GameOutcome | None:
        """How the server says the game ended (its game page or export, or Lichess's final status), if it said."""
        game = self.game
        if game.outcome is not None:
            return game.outcome
        if game.end is not None and game.end.status:
            return lichess_outcome(game.end.status, game.end.winner)
        return None

    def finish_remembered(self, note: GameNote) -> None:
        """The end of a game that was already over for us: keep the PGN we wrote, unless the server's result
        differs (then the PGN says the server's, and the log says why), or there is none yet."""
        game = self.game
        self._close_engine()
        server = self.server_outcome()
        directory = game.settings.pgn_directory
        pgn_file = Path(directory) / f"{safe_file_id(game.game_id)}.pgn" if directory else None
        can_write = game.full is not None and game.position is not None
        outcome = GameOutcome(note.result, note.termination, f"we {note.action}" if note.action != "ended" else "ended")
        pgn_path = pgn_file if pgn_file is not None and pgn_file.exists() else None
        if server is not None and server.result != "*" and server.result != note.result and can_write:
            log.warning("%s: the server's result %s (%s, %s) differs from the %s we wrote earlier (we %s); the PGN "
                        "now says the server's", self.label, server.result, server.reason, server.termination,
                        note.result, note.action)
            outcome = server
            pgn_path = write_game_pgn(game, outcome)
            self.note(note.action, outcome)
        elif pgn_path is None and can_write:
            if server is None:
                board = game.position.board if game.position is not None else None
                server = final_outcome(None, game.end, board, game.we_are_white, game.we_resigned)
            outcome = server if server.result != "*" or note.result == "*" else outcome
            pgn_path = write_game_pgn(game, outcome)
            self.note(note.action, outcome)
        elif game.ended_again:
            log.info("%s: finished %s again (we %s it again; over for us since an earlier run) vs %s; the PGN "
                     "stays", self.label, note.result, note.action, game.opponent_name)
        else:
            log.info("%s: over for us since an earlier run (we %s, %s); the PGN stays", self.label, note.action,
                     note.result)
        if game.ended_again and game.full is not None:  # a game that finished in this run, as any other
            metrics.GAMES_FINISHED.labels(variant=game.full.variant.config_name,
                                          result=metrics.our_result(outcome.result, game.we_are_white,
                                                                    outcome.termination)).inc()
        self._report(GameRecord(game.game_id, outcome.result, game.end_reason or outcome.reason, game.opponent_name,
                                pgn_path, termination=outcome.termination, remembered=True,
                                ended_again=game.ended_again))

    def _report(self, record: GameRecord) -> None:
        self.record = record
        if self.on_done is not None:
            self.on_done(record)

    def _close_engine(self) -> None:
        try:
            self.engine.close()
        except Exception:  # noqa: BLE001 - closing a broken engine must not hide the result
            log.debug("%s: engine close failed", self.label, exc_info=True)
