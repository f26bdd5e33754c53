"""What a game worker's parts decide and only the worker carries out. The parts (:mod:`~bot.game.watch`,
:mod:`~bot.game.leaving`, :mod:`~bot.game.moves`, :mod:`~bot.game.talk`, ...) read the
:class:`~bot.game.context.GameContext` and return these; :mod:`bot.game.worker` alone writes the context, the
state file, and calls one part on another's behalf (``tests/test_house.py`` fails on a part that writes the
context or holds a sibling)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.game.context import MoveNote, Phase
from bot.records.results import GameOutcome
from bot.wire.gamepage import GamePage


@dataclass(frozen=True)
class End:
    """Leave the loop: the game ended (or was parked, or given up: ``phase``) for ``reason`` (``""``: the
    reason already given stands)."""

    reason: str
    phase: Phase = Phase.ENDED


@dataclass(frozen=True)
class ServerEnded:
    """The server's own record (``source``: ``game page`` or ``game export``) has the game over: its
    ``outcome``, and ``moves``, the whole move list, where it may have plies the stream never brought
    (``last``: the last ply as the record writes it)."""

    source: str
    outcome: GameOutcome
    moves: tuple[str, ...] | None = None
    last: str = ""


@dataclass(frozen=True)
class KnownOutcome:
    """How the game ended, known for sure without the server's record (our abort)."""

    outcome: GameOutcome


@dataclass(frozen=True)
class Resigned:
    """The server took our resignation."""


@dataclass(frozen=True)
class SentAgain:
    """A game over for us since an earlier run had our resignation (``resigned``; else our abort) sent again,
    and the server took it: the game ended now."""

    resigned: bool


@dataclass(frozen=True)
class Scored:
    """The engine's evaluation of the move we chose (None: a stand-in move), for the draw and resign rules."""

    score: int | None


@dataclass(frozen=True)
class Moved:
    """Our move went out after ``ply`` plies: how it was chosen and our clock as it leaves it (for the PGN)."""

    ply: int
    note: MoveNote
    clock_ms: int


@dataclass(frozen=True)
class PlayFromPage:
    """The game stream is failing and the game page shows the game running: play from the page's position."""

    page: GamePage


@dataclass(frozen=True)
class Remember:
    """Tell the state file what we did to the game (``resigned``, ``aborted``) and the result that follows."""

    action: str
    outcome: GameOutcome


@dataclass(frozen=True)
class Resign:
    """Our evaluation says the game is lost: resign it."""


@dataclass(frozen=True)
class EngineLost:
    """The engine gave no move on two moves in a row: end the game and tell the lobby."""

    reason: str


Verdict = (End | ServerEnded | KnownOutcome | Resigned | SentAgain | Scored | Moved | PlayFromPage | Remember
           | Resign | EngineLost)
#: what one call of a part decided, in the order the worker carries it out (empty: nothing)
Verdicts = tuple[Verdict, ...]
