"""The facts of one game that every part of its worker reads: who we are, the game's set-up, the latest state,
the position, and the game's phase. Only :mod:`bot.game.worker` writes them; the parts return what they decided
(:mod:`bot.game.verdicts`)."""

from __future__ import annotations

import enum
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from bot.config import Settings
from bot.engines import EngineReply
from bot.engines.limits import GoLimits
from bot.game.position import GameBoard
from bot.game.protocols import GameServer
from bot.game.timecontrol import search_limits
from bot.records.results import GameOutcome
from bot.wire.dialect import Dialect
from bot.wire.events import Account, GameEnd, GameFull, GameState, Player


class Phase(enum.Enum):
    """Where a game worker is. STARTING: waiting for ``gameFull``; PLAYING: the game runs (our turn or theirs is
    read off the board); ENDED: the game is over; PARKED: a correspondence visit ended, the game goes on without
    us for now; GAVE_UP: the server stopped telling us about the game and we stopped waiting."""

    STARTING = "starting"
    PLAYING = "playing"
    ENDED = "ended"
    PARKED = "parked"
    GAVE_UP = "gave up"

    @property
    def done(self) -> bool:
        """The worker's loop ends in these phases."""
        return self in (Phase.ENDED, Phase.PARKED, Phase.GAVE_UP)


@dataclass(frozen=True)
class MoveNote:
    """How one of our moves was chosen, for the PGN: ``engine`` (its search ``result``), ``book``, or
    ``stand-in`` (the engine gave no usable move; ``reason`` says why)."""

    kind: str
    result: EngineReply | None = None
    reason: str = ""


@dataclass
class GameContext:
    """One game's shared facts, written by its worker alone. ``state_received_at``: when the latest state
    arrived (our clock runs from then); ``position_changed_at``: when the moves last changed (the worker sets it
    at its start; an opponent who never starts the game is timed from it); ``end``: the server's end event;
    ``outcome``: how the game ended, once known for sure; ``move_notes``: how each of our moves was chosen, by
    its index in the move list; ``clocks``: the mover's clock (ms) after each ply, by its index, as the states
    reported it; ``ended_again``: a game over for us since an earlier run, ended now by our resignation (abort)
    sent again; ``opponent_hint``: the opponent as the challenge described them (pychess's ``gameFull`` has
    names only)."""

    game_id: str
    server: GameServer
    settings: Settings
    account: Account
    monotonic: Callable[[], float] = time.monotonic
    phase: Phase = Phase.STARTING
    full: GameFull | None = None
    position: GameBoard | None = None
    we_are_white: bool | None = None
    state: GameState | None = None
    state_received_at: float = 0.0
    position_changed_at: float = 0.0
    end: GameEnd | None = None
    end_reason: str = ""
    outcome: GameOutcome | None = None
    we_resigned: bool = False
    scores: list[int | None] = field(default_factory=list)
    last_result: EngineReply | None = None
    move_notes: dict[int, MoveNote] = field(default_factory=dict)
    clocks: dict[int, int] = field(default_factory=dict)
    ended_again: bool = False
    opponent_hint: Player | None = None

    @property
    def dialect(self) -> Dialect:
        """What the server can do (known from the account, before any game starts)."""
        dialect = self.server.dialect
        if dialect is None:
            raise RuntimeError(f"game {self.game_id}: the server's dialect is not known yet")
        return dialect

    @property
    def label(self) -> str:
        return f"game {self.game_id}"

    @property
    def over(self) -> bool:
        return self.phase.done

    @property
    def opponent_name(self) -> str:
        if self.full is None or self.we_are_white is None:
            return "?"
        return (self.full.black if self.we_are_white else self.full.white).name

    @property
    def correspondence(self) -> bool:
        """Days per move (or no clock at all): played in visits, never pondered."""
        return self.full is not None and self.full.clock.kind != "clock"

    def our_turn(self) -> bool:
        """Our side is to move in a position that is not over."""
        if self.position is None:
            return False
        board = self.position.board
        return bool(board.turn == self.we_are_white) and not board.is_game_over(claim_draw=True)

    def our_clock_ran_out(self) -> bool:
        """pychess: our clock, counted down since the latest state, is empty (the bot was frozen or cut off):
        the server may have flagged us, and it answers a move into a finished game with 200 and ignores it."""
        if not self.dialect.flags_silently or self.state is None or self.full is None \
                or self.full.clock.kind != "clock" or self.position is None or self.position.ply < 2:
            return False
        ours_ms = self.state.wtime_ms if self.we_are_white else self.state.btime_ms
        return (self.monotonic() - self.state_received_at) * 1000 >= ours_ms

    def our_clock_ms(self) -> int:
        """Our clock now: the latest state's figure less the time since it arrived."""
        assert self.state is not None
        elapsed_ms = int((self.monotonic() - self.state_received_at) * 1000)
        ours_ms = self.state.wtime_ms if self.we_are_white else self.state.btime_ms
        return max(0, ours_ms - elapsed_ms)

    def our_clock_after_move_ms(self) -> int:
        """Our clock as our move leaves it, from the latest state: the time since it arrived taken off, the
        increment added (for the PGN until the server's own figure arrives with the move's echo)."""
        assert self.state is not None
        increment_ms = self.state.winc_ms if self.we_are_white else self.state.binc_ms
        return self.our_clock_ms() + increment_ms

    def limits_now(self, *, after_our_move: bool = False) -> GoLimits:
        """Search limits with the time since the state arrived taken off our clock. ``after_our_move``: for
        the search on the opponent's time after our move (our clock then also has the increment)."""
        assert self.state is not None and self.full is not None
        we_are_white = self.we_are_white is True
        elapsed_ms = int((self.monotonic() - self.state_received_at) * 1000)
        state = minus_elapsed(self.state, we_are_white, elapsed_ms)
        if after_our_move:
            if we_are_white:
                state = replace(state, wtime_ms=state.wtime_ms + state.winc_ms)
            else:
                state = replace(state, btime_ms=state.btime_ms + state.binc_ms)
        return search_limits(state, we_are_white, self.full.clock, self.settings.time, self.settings.engine.limits)


def minus_elapsed(state: GameState, we_are_white: bool, elapsed_ms: int) -> GameState:
    """The state with our clock reduced by the time since it arrived (a retry thinks with what is left)."""
    if elapsed_ms <= 0:
        return state
    if we_are_white:
        return replace(state, wtime_ms=max(0, state.wtime_ms - elapsed_ms))
    return replace(state, btime_ms=max(0, state.btime_ms - elapsed_ms))
