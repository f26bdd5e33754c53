"""What a game worker's parts decide and only the worker carries out: writing to the state file, resigning,
playing from the game page, giving the game up for a lost engine. The parts (:mod:`~bot.game.watch`,
:mod:`~bot.game.leaving`, :mod:`~bot.game.moves`, :mod:`~bot.game.talk`) return one of these and
:mod:`bot.game.worker` acts on it; the calls the parts make to one another are drawn in its docstring."""

from __future__ import annotations

from dataclasses import dataclass

from bot.records.results import GameOutcome
from bot.wire.gamepage import GamePage


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


Verdict = PlayFromPage | Remember | Resign | EngineLost
