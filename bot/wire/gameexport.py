"""Lichess's game export ``GET /game/export/{gameId}`` (JSON with ``Accept: application/json``): how a game
ended when its game stream stopped before saying so, as pychess's game page (:mod:`bot.wire.gamepage`) tells it
there.

The answer (Lichess API, "Export one game") is one object: ``id``, ``rated``, ``variant``, ``speed``,
``createdAt``, ``lastMoveAt``, ``status`` (the game status name: ``started``, ``mate``, ``resign``,
``outoftime``, ``aborted`` ...), ``winner`` (``white``/``black``, absent for a draw or a running game),
``players``, ``moves`` (every move in SAN, space-separated), ``initialFen`` (for games from a position) and
``clock``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bot.records.results import GameOutcome, lichess_outcome
from bot.wire.errors import GameExportError

#: the export's status names of a game that is not over
RUNNING_STATUSES = ("created", "started")


@dataclass(frozen=True)
class GameExport:
    """What the export says. ``sans``: every move from the initial position, in SAN."""

    game_id: str
    status: str
    winner: str | None
    sans: tuple[str, ...]

    @property
    def finished(self) -> bool:
        return self.status not in RUNNING_STATUSES

    @property
    def outcome(self) -> GameOutcome:
        return lichess_outcome(self.status, self.winner)


def parse_game_export(text: str) -> GameExport:
    """The export's JSON text -> :class:`GameExport`. Raises :class:`GameExportError` saying what is wrong."""
    try:
        data: Any = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise GameExportError(f"not JSON ({error})") from None
    if not isinstance(data, dict):
        raise GameExportError("not a JSON object")
    status = data.get("status")
    if isinstance(status, dict):  # some versions give {"id": 25, "name": "mate"}
        status = status.get("name")
    if not isinstance(status, str) or not status:
        raise GameExportError("no status")
    winner = data.get("winner")
    if winner not in ("white", "black"):
        winner = None
    moves = data.get("moves", "")
    if not isinstance(moves, str):
        raise GameExportError("moves is not a string")
    game_id = data.get("id")
    return GameExport(game_id if isinstance(game_id, str) else "", status, winner, tuple(moves.split()))
