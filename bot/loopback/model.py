"""Plain data the loopback server keeps: players, time controls, challenges, clocks and what the bot sent."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

WHITE = True
BLACK = False

ColorName = Literal["white", "black"]
#: a decline reason that asks the challenger to come back: the key ``later`` or a sentence with the word
LATER_WORD = re.compile(r"\blater\b", re.IGNORECASE)


def color_name(color: bool) -> ColorName:
    """``True`` -> ``"white"``, ``False`` -> ``"black"``."""
    return "white" if color else "black"


@dataclass(frozen=True)
class User:
    """A user on the server: the bot itself, a challenger, or a bot listed as online."""

    name: str
    rating: int = 1500
    title: Optional[str] = None

    @property
    def id(self) -> str:
        """Lichess ids are lower-case user names."""
        return self.name.lower()


@dataclass(frozen=True)
class LoopbackTimeControl:
    """``limit_s``/``increment_s`` for a clock game, ``days`` for correspondence, neither for unlimited."""

    limit_s: Optional[int] = None
    increment_s: Optional[int] = None
    days: Optional[int] = None

    @property
    def limit_ms(self) -> int:
        return (self.limit_s or 0) * 1000

    @property
    def increment_ms(self) -> int:
        return (self.increment_s or 0) * 1000

    @property
    def kind(self) -> str:
        """``clock``, ``correspondence`` or ``unlimited``."""
        if self.limit_s is not None:
            return "clock"
        return "correspondence" if self.days is not None else "unlimited"

    @property
    def speed(self) -> str:
        """The speed category as Lichess computes it (estimated duration = base + 40 x increment)."""
        if self.limit_s is None:
            return "correspondence"
        estimate = self.limit_s + 40 * (self.increment_s or 0)
        if estimate < 30:
            return "ultraBullet"
        if estimate < 180:
            return "bullet"
        if estimate < 480:
            return "blitz"
        if estimate < 1500:
            return "rapid"
        return "classical"

    def show(self) -> str:
        """``"5+3"``, ``"1/2+0"`` style display string (minutes + seconds)."""
        if self.limit_s is None:
            return f"{self.days}d" if self.days else "-"
        minutes = self.limit_s / 60
        text = {0.25: "¼", 0.5: "½", 0.75: "¾"}.get(minutes, f"{minutes:g}")
        return f"{text}+{self.increment_s or 0}"


@dataclass
class ChallengeAnswer:
    """How the bot answered a challenge: accepted, or declined with the reason it sent."""

    accepted: bool
    reason: Optional[str]
    at: float

    @property
    def asks_to_come_back(self) -> bool:
        """Declined for later: the API's key ``later`` (Lichess), or a free-text reason that says "later"
        (pychess.org shows the bot's sentence, e.g. "I am busy right now, please try again later. ...")."""
        return not self.accepted and self.reason is not None and LATER_WORD.search(self.reason) is not None


@dataclass
class LoopbackChallenge:
    """A challenge, incoming (someone challenges the bot) or outgoing (the bot challenges an online bot)."""

    id: str
    challenger: User
    dest: User
    variant: str
    chess960: bool
    time_control: LoopbackTimeControl
    rated: bool
    color: str
    final_color: ColorName
    direction: Literal["in", "out"]
    initial_fen: Optional[str] = None
    status: str = "created"
    answer: Optional[ChallengeAnswer] = None
    created_at: float = field(default_factory=time.time)
    offered: bool = True
    #: a Lichess tournament's pairing rather than a challenge: ("arena" or "swiss", the tournament's id)
    pairing_of: Optional[tuple[str, str]] = None

    @property
    def bot_color(self) -> bool:
        """The colour the bot plays if the game starts."""
        challenger_white = self.final_color == "white"
        return not challenger_white if self.direction == "in" else challenger_white


@dataclass
class MoveRecord:
    """One half-move as the server saw it."""

    ply: int
    uci: str
    by: Literal["bot", "opponent"]
    at: float
    san: str = ""
    legal: bool = True
    remaining_ms: Optional[float] = None


@dataclass
class ChatRecord:
    """A chat line in a game (``by`` is ``"bot"`` or the opponent's name)."""

    room: str
    text: str
    by: str
    at: float


@dataclass
class RequestRecord:
    """One HTTP request the bot made and the status the server answered with.

    ``started_at`` is when it arrived, ``at`` when it was answered; ``in_flight`` counts the requests to the same
    endpoint being served at that moment, this one included (streams are not counted)."""

    at: float
    method: str
    path: str
    endpoint: str
    target: Optional[str]
    form: dict[str, str]
    json_body: Any
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    started_at: float = 0.0
    in_flight: int = 1


class Clock:
    """A real chess clock in milliseconds.

    The clock starts only once both sides have moved (``start_at_ply``, as on Lichess); after that the side to
    move loses time in real time and gains the increment when it moves.
    """

    def __init__(self, initial_ms: float, increment_ms: float, start_at_ply: int = 2) -> None:
        self.remaining = {WHITE: float(initial_ms), BLACK: float(initial_ms)}
        self.increment_ms = float(increment_ms)
        self.start_at_ply = start_at_ply
        self.running: Optional[bool] = None
        self.since = 0.0

    def remaining_ms(self, color: bool, now: Optional[float] = None) -> float:
        """Time left for ``color`` at ``now`` (never below zero)."""
        left = self.remaining[color]
        if self.running is color:
            left -= ((now if now is not None else time.monotonic()) - self.since) * 1000
        return max(0.0, left)

    def flagged(self, now: Optional[float] = None) -> Optional[bool]:
        """The colour whose time has run out, if any."""
        if self.running is None:
            return None
        return self.running if self.remaining_ms(self.running, now) <= 0 else None

    def moved(self, color: bool, ply_after: int, now: Optional[float] = None) -> None:
        """``color`` has just made the ``ply_after``-th half-move: charge its time, add the increment."""
        now = now if now is not None else time.monotonic()
        if self.running is color:
            self.remaining[color] = self.remaining_ms(color, now) + self.increment_ms
        self.running = None
        if ply_after >= self.start_at_ply:
            self.running = not color
            self.since = now

    def restart(self, to_move: bool, ply: int, now: Optional[float] = None) -> None:
        """After a takeback: run the clock of ``to_move`` (if the game has progressed far enough)."""
        self.stop(now)
        if ply >= self.start_at_ply:
            self.running = to_move
            self.since = now if now is not None else time.monotonic()

    def stop(self, now: Optional[float] = None) -> None:
        """Freeze both clocks (game over, or takeback in progress)."""
        if self.running is not None:
            self.remaining[self.running] = self.remaining_ms(self.running, now)
        self.running = None

    def set_remaining(self, color: bool, ms: float, now: Optional[float] = None) -> None:
        """Put ``ms`` on ``color``'s clock (for clock-pressure tests)."""
        self.remaining[color] = float(ms)
        if self.running is color:
            self.since = now if now is not None else time.monotonic()
