"""Who plays the other side of a loopback game: scripted moves, random legal moves, or a UCI engine.

An opponent is asked for an action whenever it is its turn. An action is a UCI move, or one of the words
``"resign"``, ``"offer-draw"`` (offer a draw, then be asked again), ``"abort"``; ``None`` means "not now"
(the opponent is asked again after the next change to the game, or when a test plays for it).
"""

from __future__ import annotations

import random
import sys
import threading
from dataclasses import dataclass
from typing import Any, Optional, Protocol, Sequence

from bot.engines import EngineError, UciEngine, position_command

SPECIAL_ACTIONS = ("resign", "offer-draw", "abort")


@dataclass(frozen=True)
class OpponentView:
    """What an opponent sees: the game so far and a private copy of the board."""

    game_id: str
    variant: str
    chess960: bool
    initial_fen: str
    moves: tuple[str, ...]
    color: bool
    board: Any
    own_moves: int = 0
    remaining_ms: Optional[float] = None

    def legal_ucis(self) -> list[str]:
        """The legal moves as UCI strings, sorted (so a seeded choice is reproducible)."""
        return sorted(str(move) for move in self.board.legal_moves)


class Opponent(Protocol):
    """The interface every opponent implements."""

    def choose(self, position: OpponentView) -> Optional[str]:
        """The action to take in ``position`` (see the module docstring)."""

    def accepts_draw(self, position: OpponentView) -> bool:
        """Whether a draw offered by the bot is accepted."""

    def accepts_takeback(self, position: OpponentView) -> bool:
        """Whether a takeback asked for by the bot is granted."""

    def close(self) -> None:
        """Release resources (engine processes)."""


class _Base:
    """Default answers: decline draws and takebacks, nothing to close."""

    draws: bool = False
    takebacks: bool = False

    def accepts_draw(self, position: OpponentView) -> bool:
        """Accept a draw offer only if configured to."""
        return self.draws

    def accepts_takeback(self, position: OpponentView) -> bool:
        """Grant a takeback only if configured to."""
        return self.takebacks

    def close(self) -> None:
        """Nothing to release."""


class RandomMoves(_Base):
    """Plays a random legal move, reproducibly: the choice depends only on the seed and the move list."""

    def __init__(self, seed: int = 0, accept_draws: bool = False, accept_takebacks: bool = False) -> None:
        self.seed = seed
        self.draws = accept_draws
        self.takebacks = accept_takebacks

    def choose(self, position: OpponentView) -> Optional[str]:
        """A random legal move, or ``"resign"`` when there is none (the game should be over already)."""
        legal = position.legal_ucis()
        if not legal:
            return "resign"
        rng = random.Random(f"{self.seed}:{position.initial_fen}:{' '.join(position.moves)}")
        return rng.choice(legal)


class Manual(_Base):
    """Never moves on its own: the test plays for it with ``LoopbackServer.play_opponent_move``."""

    def __init__(self, accept_draws: bool = False, accept_takebacks: bool = False) -> None:
        self.draws = accept_draws
        self.takebacks = accept_takebacks

    def choose(self, position: OpponentView) -> Optional[str]:
        """Always wait."""
        return None


class Scripted(_Base):
    """Plays a fixed list of actions for its own side, in order.

    The n-th action is used for the opponent's n-th move of the current move list, so after a takeback the
    script replays from the right place. Items are UCI moves or special actions (``"resign"``,
    ``"offer-draw"``, ``"abort"``, ``"wait"``). When the script runs out, or its move is illegal in the actual
    position, ``then`` decides: ``"random"`` (random legal moves), ``"resign"``, or ``"wait"``.
    """

    def __init__(
        self,
        actions: Sequence[str],
        then: str = "random",
        seed: int = 0,
        accept_draws: bool = False,
        accept_takebacks: bool = False,
    ) -> None:
        self.slots: list[tuple[bool, str]] = []
        offer_first = False
        for action in (a.strip() for a in actions):
            if action == "offer-draw":
                offer_first = True
                continue
            self.slots.append((offer_first, action))
            offer_first = False
        self.then = then
        self.fallback = RandomMoves(seed)
        self.draws = accept_draws
        self.takebacks = accept_takebacks
        self._offered: set[int] = set()

    def choose(self, position: OpponentView) -> Optional[str]:
        """The next scripted action for this position."""
        index = position.own_moves
        if index < len(self.slots):
            offer_first, action = self.slots[index]
            if offer_first and index not in self._offered:
                self._offered.add(index)
                return "offer-draw"
            if action == "wait":
                return None
            if action in SPECIAL_ACTIONS or action in position.legal_ucis():
                return action
        if self.then == "random":
            return self.fallback.choose(position)
        return "resign" if self.then == "resign" else None


class EngineOpponent(_Base):
    """Any UCI engine (Fairy-Stockfish, or the bundled one with ``python -m engine``) as the opponent, driven
    by the bot's own UCI client (:class:`bot.engines.UciEngine`).

    One process per opponent instance, started lazily; ``UCI_Variant`` and ``UCI_Chess960`` are set for each
    game. Limits: ``movetime_ms``, ``depth`` or ``nodes`` (the first one given is used). If the engine dies or
    answers an illegal move, a random legal move is played instead and ``fallbacks`` counts it.
    """

    def __init__(
        self,
        command: Optional[Sequence[str]] = None,
        movetime_ms: Optional[int] = 50,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        options: Optional[dict[str, Any]] = None,
        accept_draws: bool = False,
    ) -> None:
        self.command = list(command) if command else [sys.executable, "-m", "engine"]
        if movetime_ms is not None:
            self.go = f"go movetime {movetime_ms}"
        elif depth is not None:
            self.go = f"go depth {depth}"
        else:
            self.go = f"go nodes {nodes or 1000}"
        self.draws = accept_draws
        self.engine = UciEngine(self.command, options, label="loopback opponent")
        self._lock = threading.Lock()
        self._fallback = RandomMoves()
        self.fallbacks = 0

    def choose(self, position: OpponentView) -> Optional[str]:
        """Ask the engine; fall back to a random legal move if it dies or answers nonsense."""
        with self._lock:
            try:
                if (self.engine.variant, self.engine.chess960) != (position.variant, position.chess960):
                    self.engine.set_variant(position.variant, position.chess960)
                self.engine.ensure_running()
                self.engine.ping(self.engine.startup_timeout_s)
                result = self.engine.go(position_command(position.initial_fen, position.moves), self.go,
                                        deadline_s=30.0, stop_grace_s=2.0)
            except EngineError:
                self.engine.kill()
                self.fallbacks += 1
                return self._fallback.choose(position)
        if result.bestmove in position.legal_ucis():
            return result.bestmove
        self.fallbacks += 1
        return self._fallback.choose(position)

    def close(self) -> None:
        """Quit the engine process."""
        with self._lock:
            self.engine.close()
