"""A move whose answer never came: did it land, and is it sent again? Pure decisions on the evidence.

A move request that failed with a 5xx, or whose connection dropped after the request went out, may have
taken effect. Sent again after the opponent's reply it lands in the new position (pychess takes an illegal
move as a lost game); never sent again it costs the game on time. The evidence, freshest first:

1. the game stream's latest state (:class:`SeenState`, kept per game by :class:`StreamStates` as the
   stream's reader thread brings it): past the move's position, the move landed; before it, a takeback made
   the move moot; at the position and arrived after the failed attempt, the move did not land, where the
   stream sends no old states after a reconnect (Lichess; pychess replays the game from long ago);
2. the server's record of the game, only where the server keeps it current while the game runs
   (``Dialect.live_record``: pychess's game page; Lichess delays its export of an ongoing game by 3 to 60 s,
   so its record is older than the move it is asked about);
3. nothing more: :func:`decide_resend` lets the dialect decide. Where a move out of turn is refused without
   harm (``Dialect.refuses_moves_out_of_turn``: Lichess answers HTTP 400), the move is sent again at once;
   elsewhere (pychess) the bot waits for news until ``send_by`` (a share of its clock, set by the game) and
   then sends it all the same rather than lose on time.
"""

from __future__ import annotations

import enum
import threading
from dataclasses import dataclass


class Fate(enum.Enum):
    """What the evidence says about the move: it ``LANDED``; it is ``MOOT`` (the game is over, or a takeback
    left its position); it is ``NOT_LANDED``; or nothing says (``UNKNOWN``)."""

    LANDED = "landed"
    MOOT = "moot"
    NOT_LANDED = "not landed"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Evidence:
    """A fate and what says so, as the log words it (``the game stream is at ply 5``)."""

    fate: Fate
    why: str


@dataclass(frozen=True)
class SeenState:
    """The latest ``gameFull``/``gameState`` of a game stream: its number of plies and when it arrived
    (the server's monotonic clock)."""

    plies: int
    at: float


class StreamStates:
    """The latest state each game's stream brought: written by the streams' reader threads, read by the game
    workers' threads while a move is in doubt (their own inboxes wait until the move call returns)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: dict[str, SeenState] = {}

    def saw(self, game_id: str, plies: int, at: float) -> None:
        with self._lock:
            self._seen[game_id] = SeenState(plies, at)

    def forget(self, game_id: str) -> None:
        with self._lock:
            self._seen.pop(game_id, None)

    def latest(self, game_id: str) -> SeenState | None:
        with self._lock:
            return self._seen.get(game_id)


def stream_evidence(seen: SeenState | None, plies: int, unsure_since: float, *, trusts_turn: bool) -> Evidence:
    """What the game stream says about a move sent into the position after ``plies`` plies, whose last
    attempt that may have landed ended at ``unsure_since``. ``trusts_turn``: a state at the move's position
    that arrived after that attempt means the move did not land (a stream that replays old states after a
    reconnect, pychess's, cannot say so)."""
    if seen is None:
        return Evidence(Fate.UNKNOWN, "no state on the game stream")
    if seen.plies > plies:
        return Evidence(Fate.LANDED, f"the game stream is at ply {seen.plies}")
    if seen.plies < plies:
        return Evidence(Fate.MOOT, f"the game stream is at ply {seen.plies}, before this move's position "
                                   f"(ply {plies}): a takeback")
    if seen.at > unsure_since and trusts_turn:
        return Evidence(Fate.NOT_LANDED, f"the game stream is still at ply {plies} after the failed attempt")
    return Evidence(Fate.UNKNOWN, "no news on the game stream since the failed attempt")


def record_evidence(on_record: int, finished: bool, plies: int, record: str) -> Evidence:
    """What the server's current ``record`` (``game page``) says: it has ``on_record`` plies, the game is
    ``finished`` or not."""
    if finished:
        return Evidence(Fate.MOOT, f"the {record} has the game over")
    if on_record > plies:
        return Evidence(Fate.LANDED, f"the {record} is at ply {on_record}")
    if on_record < plies:
        return Evidence(Fate.MOOT, f"the {record} is at ply {on_record}, before this move's position "
                                   f"(ply {plies}): a takeback")
    return Evidence(Fate.NOT_LANDED, f"the {record} is still at ply {plies}")


class Resend(enum.Enum):
    """What to do with the move: ``SEND`` it again, ``SKIP`` it (it landed, or is moot), or ``WAIT`` for news
    (this attempt is not sent)."""

    SEND = "send"
    SKIP = "skip"
    WAIT = "wait"


@dataclass(frozen=True)
class ResendVerdict:
    """The decision and its reason, for the one log line that says both."""

    action: Resend
    why: str


def decide_resend(evidence: Evidence, *, refuses_out_of_turn: bool, now: float,
                  send_by: float | None) -> ResendVerdict:
    """The move's fate as the evidence has it -> what to do.

    ``refuses_out_of_turn``: the server refuses a move out of turn without harm (Lichess), so a move of
    unknown fate is sent again at once. Elsewhere it waits for news until ``send_by`` (None: no clock to
    lose on), and is sent then: a move that may land twice is a risk, a flag that surely falls is a loss."""
    if evidence.fate in (Fate.LANDED, Fate.MOOT):
        return ResendVerdict(Resend.SKIP, evidence.why)
    if evidence.fate is Fate.NOT_LANDED:
        return ResendVerdict(Resend.SEND, evidence.why)
    if refuses_out_of_turn:
        return ResendVerdict(Resend.SEND, f"{evidence.why}; the server refuses a move out of turn without harm")
    if send_by is not None and now >= send_by:
        return ResendVerdict(Resend.SEND, f"{evidence.why}; waiting longer would lose the game on time")
    if send_by is None:
        return ResendVerdict(Resend.WAIT, evidence.why)
    return ResendVerdict(Resend.WAIT, f"{evidence.why}; waiting up to {send_by - now:.1f} s for news before "
                                      "sending it again")
