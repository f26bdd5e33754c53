"""pychess's public game page ``GET {origin}/{gameId}``: the one place pychess tells a bot how a game ended.

pychess's BOT API ends every game with a bare ``{"type":"gameEnd"}`` (no final state, no result, and not the
move that ended it), and a BOT's resignation may never reach the other bot at all. The game page (HTML, no
token needed) carries the truth as HTML-escaped attributes of its ``<body>``: ``data-result`` (``1-0``...),
``data-status`` (an integer, see :data:`bot.records.results.PYCHESS_STATUSES`) and ``data-board``, a JSON object whose
``steps`` hold one entry per ply with the move in UCI. See ``docs/server-api.md``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

from bot.records.results import GameOutcome, pychess_outcome
from bot.wire.errors import GamePageError
from bot.wire.events import GameFull, GameState, Player, TimeControl
from bot.wire.normalise import parse_variant


@dataclass(frozen=True)
class GamePage:
    """What the game page says. ``moves``: every ply from the initial position, in UCI; ``clocks_ms``: (white,
    black) as the page shows them (the side to move's clock already counts the time since its turn began);
    ``base_min``/``increment_s``: the time control (``data-base``, ``data-inc``)."""

    game_id: str
    status: int
    result: str
    moves: tuple[str, ...]
    variant: str = ""
    chess960: bool = False
    white: str = ""
    black: str = ""
    initial_fen: str = ""
    clocks_ms: tuple[int, int] | None = None
    base_min: float | None = None
    increment_s: float | None = None

    @property
    def outcome(self) -> GameOutcome:
        return pychess_outcome(self.status, self.result)

    @property
    def finished(self) -> bool:
        """Whether the server considers the game over (status 0 or more)."""
        return self.status >= 0

    def state(self, increment_ms: int | None = None) -> GameState:
        """The page as a ``gameState`` (for a game whose stream has failed): its moves and clocks, the
        increment from the page or ``increment_ms``. Raises :class:`GamePageError` without clocks."""
        if self.clocks_ms is None:
            raise GamePageError("the page shows no clocks")
        increment = int(self.increment_s * 1000) if self.increment_s is not None else (increment_ms or 0)
        return GameState(moves=self.moves, wtime_ms=self.clocks_ms[0], btime_ms=self.clocks_ms[1],
                         winc_ms=increment, binc_ms=increment)

    def game_full(self) -> GameFull:
        """The page as a ``gameFull``, for a game whose stream never brought one (a bot started after a server
        restart that did not restore its game stream). Raises :class:`GamePageError` when a part is missing."""
        if not self.white or not self.black or not self.variant:
            raise GamePageError("the page does not name the players and the variant")
        if self.base_min is None:
            raise GamePageError("the page has no time control (data-base)")
        base_ms = int(self.base_min * 60_000)
        increment_ms = int((self.increment_s or 0) * 1000)
        clock = TimeControl("clock", base_ms, increment_ms) if base_ms or increment_ms else TimeControl("unlimited")
        fen = self.initial_fen if self.initial_fen not in ("", "None") else None
        return GameFull(game_id=self.game_id, variant=parse_variant(self.variant, self.chess960),
                        white=Player(self.white), black=Player(self.black), initial_fen=fen,
                        state=self.state(increment_ms), clock=clock)


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
        initial_fen=attributes.get("data-initialfen", ""),
        clocks_ms=_clocks(board.get("clocks")),
        base_min=_number(attributes.get("data-base")),
        increment_s=_number(attributes.get("data-inc")),
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


def _clocks(value: Any) -> tuple[int, int] | None:
    """``data-board``'s ``clocks``: [white ms, black ms]; None when absent or not two finite numbers."""
    if not isinstance(value, list) or len(value) != 2:
        return None
    if not all(isinstance(ms, (int, float)) and not isinstance(ms, bool) and 0 <= ms < 1e12 for ms in value):
        return None
    return int(value[0]), int(value[1])


def _number(text: str | None) -> float | None:
    try:
        value = float(text) if text else None
    except ValueError:
        return None
    return value if value is not None and 0 <= value < 1e9 else None


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
