"""pychess's public game page ``GET {origin}/{gameId}``: the one place pychess tells a bot how a game ended.

pychess's BOT API ends every game with a bare ``{"type":"gameEnd"}`` (no final state, no result, and not the
move that ended it), and a BOT's resignation may never reach the other bot at all. The game page (HTML, no
token needed) carries the truth as HTML-escaped attributes of its ``<body>``: ``data-result`` (``1-0``...),
``data-status`` (an integer, see :data:`bot.results.PYCHESS_STATUSES`) and ``data-board``, a JSON object whose
``steps`` hold one entry per ply with the move in UCI. See ``docs/server-api.md``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

from bot.results import GameOutcome, pychess_outcome


class GamePageError(ValueError):
    """The page does not have the game attributes (not a pychess game page, or a game that does not exist)."""


@dataclass(frozen=True)
class GamePage:
    """What the game page says. ``moves``: every ply from the initial position, in UCI."""

    game_id: str
    status: int
    result: str
    moves: tuple[str, ...]
    variant: str = ""
    chess960: bool = False
    white: str = ""
    black: str = ""

    @property
    def outcome(self) -> GameOutcome:
        return pychess_outcome(self.status, self.result)

    @property
    def finished(self) -> bool:
        """Whether the server considers the game over (status 0 or more)."""
        return self.status >= 0


class _BodyAttributes(HTMLParser):
    """Collects the attributes of the first ``<body>`` that has ``data-status`` (HTML entities decoded)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.attributes: dict[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body" and self.attributes is None:
            found = {name: value or "" for name, value in attrs}
            if "data-status" in found:
                self.attributes = found


def parse_game_page(html: str) -> GamePage:
    """The game's facts from the page's HTML. Raises :class:`GamePageError` when they are missing or broken."""
    parser = _BodyAttributes()
    parser.feed(html)
    parser.close()
    attributes = parser.attributes
    if attributes is None:
        raise GamePageError("no game data on the page (no <body data-status=...>)")
    try:
        status = int(attributes["data-status"])
    except ValueError:
        raise GamePageError(f"data-status is not a number: {attributes['data-status']!r}") from None
    board = _board(attributes.get("data-board", ""))
    result = attributes.get("data-result") or str(board.get("result") or "*")
    return GamePage(
        game_id=attributes.get("data-gameid", "") or str(board.get("gameId") or ""),
        status=status,
        result=result,
        moves=_moves(board),
        variant=attributes.get("data-variant", ""),
        chess960=attributes.get("data-chess960", "").lower() == "true",
        white=attributes.get("data-wplayer", ""),
        black=attributes.get("data-bplayer", ""),
    )


def _board(text: str) -> dict[str, Any]:
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError as error:
        raise GamePageError(f"data-board is not JSON ({error})") from None
    if not isinstance(data, dict):
        raise GamePageError("data-board is not a JSON object")
    return data


def _moves(board: dict[str, Any]) -> tuple[str, ...]:
    """The UCI move of every step after the first (the first step is the initial position)."""
    steps = board.get("steps")
    if not isinstance(steps, list):
        return ()
    moves: list[str] = []
    for step in steps[1:]:
        move = step.get("move") if isinstance(step, dict) else None
        if not isinstance(move, str) or not move:
            raise GamePageError(f"data-board step {len(moves) + 1} has no move")
        moves.append(move)
    return tuple(moves)
