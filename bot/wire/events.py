"""The bot's event model: what the servers' lines mean, in one shape for both dialects.

Everything after :mod:`bot.wire.normalise` sees this model only: dataclasses, times in milliseconds, variants as
(``"seirawan"`` | ``"chess"`` | the server's own name for anything else, ``chess960`` flag), the start
position as ``None``. :mod:`bot.wire.normalise` turns server lines into it; :mod:`bot.wire.server` only moves bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Union

from engine.variants import VARIANTS, variant_name

SUPPORTED_VARIANTS = VARIANTS
FINAL_STATUSES_NOT = ("created", "started")



#: The decline reasons of the BOT API, as ``POST /api/challenge/{id}/decline`` takes them (form field ``reason``).
DECLINE_REASONS = ("generic", "later", "tooFast", "tooSlow", "timeControl", "rated", "casual", "standard",
                   "variant", "noBot", "onlyBot")
#: Lichess reports a decline (``challengeDeclined.declineReasonKey``) in lower case (``toofast``), as its API
#: spec says; pychess and older servers use the names above. Both read as the names above.
_DECLINE_REASON_BY_KEY = {reason.lower(): reason for reason in DECLINE_REASONS}


def decline_reason_from_key(key: str) -> str:
    """``toofast`` / ``tooFast`` -> ``tooFast``; an unknown key is kept as the server wrote it."""
    return _DECLINE_REASON_BY_KEY.get(key.strip().lower(), key)


@dataclass(frozen=True)
class Variant:
    """A game variant: ``name`` is ``seirawan`` or ``chess`` when supported, else the server's name."""

    name: str
    chess960: bool = False

    @property
    def supported(self) -> bool:
        return self.name in SUPPORTED_VARIANTS

    @property
    def config_name(self) -> str:
        """The name in ``challenge.variants``: seirawan, seirawan960, chess, chess960 (or the raw name)."""
        return variant_name(self.name, self.chess960) if self.supported else self.name


class Titled:
    """A user with a Lichess title (``BOT``, ``GM``...): players and our own account."""

    title: str | None

    @property
    def is_bot(self) -> bool:
        return (self.title or "").upper() == "BOT"


@dataclass(frozen=True)
class Player(Titled):
    name: str
    id: str | None = None
    title: str | None = None
    rating: int | None = None

    def is_user(self, user_id: str, username: str) -> bool:
        """Whether this player is the given account: lichess names players by id, pychess by name only."""
        wanted = {user_id.lower(), username.lower()}
        return (self.id or "").lower() in wanted or self.name.lower() in wanted


@dataclass(frozen=True)
class TimeControl:
    """``kind`` is clock | correspondence | unlimited; clock values in ms, ``days`` for correspondence."""

    kind: Literal["clock", "correspondence", "unlimited"]
    limit_ms: int = 0
    increment_ms: int = 0
    days: int | None = None


@dataclass(frozen=True)
class Challenge:
    id: str
    challenger: Player
    variant: Variant
    time_control: TimeControl
    rated: bool
    speed: str
    color: str = "random"
    initial_fen: str | None = None
    dest: Player | None = None  # Lichess ``destUser``: us, with our rating for this game's category
    #: Lichess ``compat.bot``: whether the server lets a BOT play this game (None: the server did not say)
    bot_compatible: bool | None = None


# ---- events from /api/stream/event ----------------------------------------------------------------------


@dataclass(frozen=True)
class ChallengeEvent:
    challenge: Challenge


@dataclass(frozen=True)
class ChallengeGone:
    """A challenge that was canceled (by the challenger) or declined (``declined``, with the reason key)."""

    challenge_id: str
    declined: bool = False
    reason: str | None = None
    challenger: str | None = None
    dest: str | None = None


@dataclass(frozen=True)
class GameStart:
    game_id: str
    color: str | None = None  # lichess tells it here; pychess only in gameFull (by name)
    chess960: bool = False  # pychess says it only here: its gameFull has no chess960 flag
    opponent: str | None = None  # lichess ``opponent.username``; pychess does not say
    #: the arena (``tournamentId``) or Swiss (``swissId``) the game is a pairing of (Lichess); None otherwise
    tournament_id: str | None = None


@dataclass(frozen=True)
class GameFinish:
    game_id: str


@dataclass(frozen=True)
class KeepAlive:
    """A lichess empty line or a pychess ``{"type":"ping"}``."""


@dataclass(frozen=True)
class ServerTerminated:
    """pychess announces a server shutdown; the stream is about to close."""


@dataclass(frozen=True)
class UnknownEvent:
    type: str


LobbyEvent = Union[ChallengeEvent, ChallengeGone, GameStart, GameFinish, KeepAlive, ServerTerminated,
                   UnknownEvent]

# ---- events from /api/bot/game/stream/{id} --------------------------------------------------------------


@dataclass(frozen=True)
class GameState:
    moves: tuple[str, ...]
    wtime_ms: int
    btime_ms: int
    winc_ms: int
    binc_ms: int
    status: str = "started"
    winner: str | None = None
    wdraw: bool = False
    bdraw: bool = False
    wtakeback: bool = False
    btakeback: bool = False

    @property
    def is_final(self) -> bool:
        return self.status not in FINAL_STATUSES_NOT


@dataclass(frozen=True)
class GameFull:
    game_id: str
    variant: Variant
    white: Player
    black: Player
    initial_fen: str | None  # None = the variant's start position
    state: GameState
    clock: TimeControl
    created_at_ms: int | None = None
    rated: bool = False
    speed: str = ""


@dataclass(frozen=True)
class GameEnd:
    """The game is over. ``status``/``winner`` when the server said (lichess; pychess usually does not)."""

    status: str | None = None
    winner: str | None = None


@dataclass(frozen=True)
class ChatLine:
    room: str
    username: str
    text: str


@dataclass(frozen=True)
class OpponentGone:
    gone: bool
    claim_win_in_s: int | None = None


GameEvent = Union[GameFull, GameState, GameEnd, ChatLine, OpponentGone, KeepAlive, UnknownEvent]


@dataclass(frozen=True)
class OnlineBot:
    """One bot of Lichess ``GET /api/bot/online``: its ratings per perf (``blitz``, ``chess960``...)."""

    name: str
    id: str
    ratings: dict[str, int] = field(default_factory=dict)


@dataclass
class Account(Titled):
    """Our account. ``ratings``: per category (``blitz``, ``chess960``...) from Lichess's ``perfs``; pychess
    gives none."""

    id: str
    username: str
    title: str | None = None
    ratings: dict[str, int] = field(default_factory=dict)
