"""The end of a game: how it ended (:func:`final_outcome`), its PGN, and what the lobby learns
(:class:`GameRecord`)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.engines import EngineReply
from bot.game.context import GameContext
from bot.records.pgn import clock_command, eval_command, game_pgn, standard_headers, write_pgn
from bot.records.results import UNKNOWN, GameOutcome, board_outcome, lichess_outcome, resignation, unknown
from bot.wire.events import GameEnd, GameFull, GameState
from engine import Board
from engine.variants import pgn_needs_start_fen

log = logging.getLogger("bot.game")


@dataclass(frozen=True)
class GameRecord:
    """What the lobby learns when a game worker is done. ``parked``: a correspondence game left for now;
    ``gave_up``: the worker stopped waiting for a game the server no longer told it about; ``remembered``: a
    game that was already over for us (see :class:`GameNote`), not one played now; ``ended_again``: such a
    game the server had live again, which our resignation (abort) sent again ended now: it counts as a game
    finished in this run."""

    game_id: str
    result: str
    reason: str
    opponent: str = "?"
    pgn_path: Path | None = None
    parked: bool = False
    termination: str = ""
    gave_up: bool = False
    remembered: bool = False
    ended_again: bool = False


#: what a :class:`GameNote` says the bot did: resigned, aborted, or saw the game end (with the result it wrote)
GAME_ACTIONS = ("resigned", "aborted", "ended")


@dataclass(frozen=True)
class GameNote:
    """What the bot did to one game, kept in the state file across restarts: ``action`` (one of
    :data:`GAME_ACTIONS`), the PGN ``result`` and ``termination`` it wrote (``*`` before the PGN), ``at``: when
    the note was written (the lobby's clock in memory, wall-clock seconds in the file), ``run``: the run of the
    bot that accepted and played the game (``""`` in files from before runs were named). A game with a note is
    over for the bot: when the server offers it again (pychess restores a game whose BOT resignation it did not
    store), the bot resigns or aborts again and plays nothing; but a game the bot accepts after the note was
    written is a new game that reuses the id (a server restarted with the same ids), and the note is dropped."""

    game_id: str
    action: str
    result: str
    termination: str
    at: float
    run: str = ""

    def shifted(self, offset: float) -> GameNote:
        """The same note with ``at`` moved to another clock (monotonic <-> wall clock)."""
        return dataclasses.replace(self, at=self.at + offset)

    def to_json(self) -> dict[str, Any]:
        """The note as the state file holds it (``game_id`` under the key ``id``)."""
        return {_NOTE_KEYS.get(item.name, item.name): getattr(self, item.name) for item in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameNote:
        """The note of :meth:`to_json`. Raises ValueError naming the field that is wrong (``games.action``)."""
        values: dict[str, Any] = {}
        for item in dataclasses.fields(cls):
            key = _NOTE_KEYS.get(item.name, item.name)
            value = data.get(key, _NOTE_DEFAULTS.get(item.name))
            if item.type == "float":
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise ValueError(f"games.{key} is not a number: {value!r:.40}")
                value = float(value)
            elif not isinstance(value, str) or (not value and item.name not in _NOTE_DEFAULTS):
                raise ValueError(f"games.{key} is not a non-empty string: {value!r:.40}")
            values[item.name] = value
        if values["action"] not in GAME_ACTIONS:
            raise ValueError(f"games.action is not one of {', '.join(GAME_ACTIONS)}: {values['action']!r:.40}")
        return cls(**values)


#: the state file's key of each :class:`GameNote` field named differently, and the fields older files lack
_NOTE_KEYS = {"game_id": "id"}
_NOTE_DEFAULTS = {"termination": "", "run": ""}


def final_outcome(known: GameOutcome | None, end: GameEnd | None, board: Board | None, we_are_white: bool | None,
                  we_resigned: bool) -> GameOutcome:
    """How the game ended, from what we know for sure, in this order: an outcome already settled (the game
    page, or our own resignation), the server's final word (Lichess ``status``/``winner``), the final
    position itself (mate, stalemate, a draw by rule). Anything else is ``*``: never a guess."""
    if known is not None:
        return known
    if end is not None and end.status:
        return lichess_outcome(end.status, end.winner)
    if we_resigned and we_are_white is not None:
        return resignation(we_are_white)
    if board is not None:
        on_board = board_outcome(board)
        if on_board is not None:
            return on_board
    if end is not None and end.winner is not None:
        return GameOutcome("1-0" if end.winner == "white" else "0-1", UNKNOWN, "game over")
    return unknown("the server did not say how the game ended")


def write_game_pgn(game: GameContext, outcome: GameOutcome) -> Path | None:
    """Write the game's PGN into ``pgn_directory``; None when there is no folder or nothing to write. A PGN
    problem is logged, never fatal."""
    directory = game.settings.pgn_directory
    if not directory or game.full is None or game.position is None:
        return None
    full, position = game.full, game.position
    try:
        headers = standard_headers(
            event=f"{'Rated' if full.rated else 'Casual'} {full.variant.config_name} game",
            site=f"{game.server.url}/{game.game_id}", white=full.white.name, black=full.black.name,
            variant=full.variant, clock=full.clock,
            started_at=full.created_at_ms / 1000 if full.created_at_ms else None,
        )
        headers.update(player_headers(full))
        headers["Termination"] = outcome.termination
        start = position.start
        sans = position.san_moves()
        # the FEN tag is the server's initial FEN as the server wrote it (pychess's S-chess960 castling
        # letters, Lichess's X-FEN), so the record pastes back into the server's analysis board; a later
        # gameFull (pychess after a restart: "None") does not change where the game started; a variant no
        # server hosts always carries its start FEN
        initial_fen = position.initial_fen
        if initial_fen is None and pgn_needs_start_fen(full.variant.name):
            initial_fen = position.start_fen
        text = game_pgn(headers, sans, outcome.result, start_fen=initial_fen,
                        white_to_move_first=bool(start.turn), first_move_number=start.fullmove_number,
                        comments=move_comments(game, len(sans), bool(start.turn)))
        return write_pgn(directory, game.game_id, text)
    except Exception as error:  # noqa: BLE001 - a PGN problem is logged, never fatal
        log.error("%s: could not write the PGN (%s)", game.label, error)
        return None


def player_headers(full: GameFull) -> dict[str, str]:
    """``WhiteElo``/``BlackElo`` and ``WhiteTitle``/``BlackTitle`` when the server gave them (Lichess's
    ``gameFull``; pychess's has names only: the opponent's come from the challenge)."""
    headers: dict[str, str] = {}
    for side, player in (("White", full.white), ("Black", full.black)):
        if player.rating is not None:
            headers[f"{side}Elo"] = str(player.rating)
        if player.title:
            headers[f"{side}Title"] = player.title
    return headers


STAND_IN_REASON_CHARS = 120


def reported_clock(game: GameContext, state: GameState) -> tuple[int, int] | None:
    """The clock of the side that made the last move, as this state reports it (for the PGN): (the move's
    index, ms); None before the first move."""
    if not state.moves or game.position is None:
        return None
    ply = len(state.moves) - 1
    white_moved = (ply % 2 == 0) == bool(game.position.start.turn)
    return ply, int(state.wtime_ms if white_moved else state.btime_ms)


def move_comments(game: GameContext, plies: int, white_first: bool) -> list[str | None]:
    """One PGN comment per ply: for our moves the evaluation and depth (``[%eval 0.42,7]``, White's point of
    view), ``book`` or ``stand-in move: why``; for every move the mover's clock after it (``[%clk 0:00:58]``)
    when the game has a clock and a state reported it."""
    timed = game.full is not None and game.full.clock.kind == "clock"
    comments: list[str | None] = []
    for ply in range(plies):
        parts: list[str] = []
        note = game.move_notes.get(ply)
        if note is not None:
            if note.kind == "book":
                parts.append("book")
            elif note.kind == "stand-in":
                reason = note.reason[:STAND_IN_REASON_CHARS] or "the engine gave no move"
                parts.append(f"stand-in move: {reason}")
            elif note.result is not None and note.result.score is not None:
                sign = 1 if (ply % 2 == 0) == white_first else -1  # White's point of view
                score = note.result.score
                command = eval_command(None if score.cp is None else sign * score.cp,
                                       None if score.mate is None else sign * score.mate, note.result.depth)
                if command is not None:
                    parts.append(command)
        if timed and ply in game.clocks:
            parts.append(clock_command(game.clocks[ply]))
        comments.append(" ".join(parts) or None)
    return comments


def describe_clock(full: GameFull) -> str:
    clock = full.clock
    if clock.kind == "clock":
        return f"{clock.limit_ms / 60000:g}+{clock.increment_ms / 1000:g}"
    if clock.kind == "correspondence":
        return f"{clock.days} days per move" if clock.days else "correspondence"
    return "unlimited"


def describe_search(result: EngineReply | None) -> str:
    if result is None:
        return "stand-in move"
    if result.book:
        return "book move"
    depth = f"depth {result.depth}" if result.depth is not None else "depth ?"
    text = f"eval {result.describe_score()} for us, {depth}, {result.elapsed_s:.1f} s"
    if result.pondered_s is not None:
        text += f", ponderhit: {result.pondered_s:.1f} s gained"
    return text
