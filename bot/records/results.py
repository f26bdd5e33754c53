"""How a game ended, in one shape for both servers: the PGN result, the PGN ``Termination`` tag and a few
words for the log.

Lichess says it in the final ``gameState`` (``status`` and ``winner``); pychess says it only on the game's
public page (``data-status`` as a number and ``data-result``; see :mod:`bot.wire.gamepage`). The ``Termination``
values are the ones Lichess writes in its PGN exports: ``Normal``, ``Time forfeit``, ``Abandoned``,
``Rules infraction``, ``Unterminated``, ``Unknown``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

NORMAL = "Normal"
TIME_FORFEIT = "Time forfeit"
ABANDONED = "Abandoned"
RULES_INFRACTION = "Rules infraction"
UNTERMINATED = "Unterminated"
UNKNOWN = "Unknown"

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


@dataclass(frozen=True)
class GameOutcome:
    """``result``: ``1-0``, ``0-1``, ``1/2-1/2`` or ``*``; ``termination``: the PGN tag; ``reason``: for the
    log (``mate``, ``resignation``, ``white ran out of time``...)."""

    result: str
    termination: str
    reason: str

    @property
    def finished(self) -> bool:
        return self.termination != UNTERMINATED


#: Lichess game statuses (lichess-org/api ``GameStatusName``): termination tag, log words, and whether a
#: game without a winner is a draw (True) or has no result at all (False).
LICHESS_STATUSES: dict[str, tuple[str, str, bool]] = {
    "created": (UNTERMINATED, "not started", False),
    "started": (UNTERMINATED, "still running", False),
    "aborted": (ABANDONED, "aborted", False),
    "noStart": (ABANDONED, "never started", False),
    "mate": (NORMAL, "mate", True),
    "resign": (NORMAL, "resignation", True),
    "stalemate": (NORMAL, "stalemate", True),
    "draw": (NORMAL, "draw", True),
    "timeout": (TIME_FORFEIT, "opponent left, win claimed", True),
    "outoftime": (TIME_FORFEIT, "out of time", True),
    "cheat": (RULES_INFRACTION, "cheat detected", False),
    "variantEnd": (NORMAL, "variant end", True),
    "insufficientMaterialClaim": (NORMAL, "insufficient material, claimed", True),
    "unknownFinish": (UNKNOWN, "unknown finish", False),
}

#: pychess game statuses (``data-status`` of the game page, pychess-variants ``const.py``).
PYCHESS_STATUSES: dict[int, tuple[str, str]] = {
    -2: (UNTERMINATED, "not started"),
    -1: (UNTERMINATED, "still running"),
    0: (ABANDONED, "aborted"),
    1: (NORMAL, "mate"),
    2: (NORMAL, "resignation"),
    3: (NORMAL, "stalemate"),
    4: (TIME_FORFEIT, "timeout"),
    5: (NORMAL, "draw"),
    6: (TIME_FORFEIT, "flag"),
    7: (ABANDONED, "abandoned"),
    8: (RULES_INFRACTION, "cheat"),
    9: (NORMAL, "bye"),
    10: (RULES_INFRACTION, "invalid move"),
    11: (UNKNOWN, "unknown finish"),
    12: (NORMAL, "variant end"),
    13: (NORMAL, "claim"),
}


def lichess_outcome(status: str, winner: str | None) -> GameOutcome:
    """A final Lichess ``gameState`` (``status``, ``winner``) -> its outcome. Every status of the API
    specification is known; an unknown one is ``Unknown`` with the winner's result (or ``*``)."""
    termination, reason, draw_without_winner = LICHESS_STATUSES.get(status, (UNKNOWN, status or "unknown", False))
    if winner in ("white", "black"):
        result = "1-0" if winner == "white" else "0-1"
    elif termination == UNTERMINATED or not draw_without_winner:
        result = "*"
    else:
        result = "1/2-1/2"  # e.g. out of time against a lone king, or a draw claim
    return GameOutcome(result, termination, reason)


def pychess_outcome(status: int, result: str) -> GameOutcome:
    """The game page's ``data-status`` and ``data-result`` -> the outcome."""
    termination, reason = PYCHESS_STATUSES.get(status, (UNKNOWN, f"status {status}"))
    if result not in RESULTS:
        result = "*"
    if termination == UNTERMINATED:
        result = "*"
    return GameOutcome(result, termination, reason)


def board_outcome(board: Any) -> GameOutcome | None:
    """The outcome the final position itself shows (mate, stalemate, a draw by rule), or None."""
    outcome = board.outcome(claim_draw=True)
    if outcome is None:
        return None
    name = getattr(outcome.termination, "name", str(outcome.termination)).lower().replace("_", " ")
    reason = "mate" if name == "checkmate" else name
    return GameOutcome(str(outcome.result()), NORMAL, reason)


def resignation(we_are_white: bool) -> GameOutcome:
    """We resigned."""
    return GameOutcome("0-1" if we_are_white else "1-0", NORMAL, "we resigned")


def unknown(reason: str) -> GameOutcome:
    """The game is over (or we left it) but nobody told us how: ``*``, never a guess."""
    return GameOutcome("*", UNKNOWN, reason)
