"""Your own engine in Python (``engine.protocol: homemade``, ``engine.command: package.module:ClassName``).

Write a subclass of :class:`HomemadeEngine` and implement :meth:`~HomemadeEngine.choose_move`: it gets an
:class:`engine.Board` (exact S-chess rules: gating, castling with a gate, every draw rule; also chess and the
960 variants) of the position to play, and the :class:`Clocks`, and returns a move. That is all::

    import random
    from bot.engines.homemade import Clocks, HomemadeEngine
    from engine import Board, Move

    class RandomMover(HomemadeEngine):
        name = "Random mover 1.0"

        def choose_move(self, board: Board, clocks: Clocks) -> Move:
            return random.choice(list(board.legal_moves))

A complete example that looks one move ahead is :class:`bot.engines.homemade_example.MaterialGreedy`
(``engine.command: bot.engines.homemade_example:MaterialGreedy``).

The bot treats it like any engine: its move is checked with the board before it is sent (an illegal or
unreadable move is asked for again, then replaced by a stand-in), an exception counts as a crash (a new
instance is made for the next attempt), an answer later than the bot's deadline (``clocks.deadline_ms``)
counts as a hang (the thread is abandoned, a new instance made), and the failure policy ends the game when
it fails on two moves in a row. ``choose_move`` runs in a thread of its own, in the bot's process.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot import metrics
from bot.engines.limits import GoLimits
from bot.engines.process import EngineCrashed, EngineStartError, EngineTimeout
from bot.engines.result import EngineReply, Score
from engine import Board, Move

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Clocks:
    """The clocks for a move, in milliseconds. ``white_ms``/``black_ms`` (None in correspondence games and
    with a fixed move time), the increments, ``movetime_ms`` when the operator fixed the time per move
    (``engine.limits``), ``depth`` when they capped the depth, and ``deadline_ms``: answer within this
    (counted from the call), or the bot plays a stand-in move."""

    white_ms: int | None
    black_ms: int | None
    white_increment_ms: int
    black_increment_ms: int
    movetime_ms: int | None
    depth: int | None
    deadline_ms: int

    def ours(self, white: bool) -> int | None:
        """The clock of the side to move (``white``: ``board.turn``)."""
        return self.white_ms if white else self.black_ms


@dataclass(frozen=True)
class Evaluated:
    """A move with what the engine thinks of it (shown in the log, the PGN and ``!eval``): ``score_cp``
    centipawns from the mover's point of view, or ``mate`` in that many moves; ``depth`` if it searched."""

    move: Move | str
    score_cp: int | None = None
    mate: int | None = None
    depth: int | None = None


class HomemadeEngine:
    """The base class of an engine written in Python. Override :meth:`choose_move`; optionally set
    :attr:`name` (shown by ``!name`` and in the logs) and override :meth:`new_game`."""

    #: the engine's name, as a UCI engine's ``id name``
    name: str = "homemade engine"

    def new_game(self, variant: str, chess960: bool) -> None:
        """A new game starts (``variant`` ``seirawan`` or ``chess``); forget what belonged to the last one."""

    def choose_move(self, board: Board, clocks: Clocks) -> Move | str | Evaluated:
        """The move to play in ``board`` (a copy: push and pop freely): a :class:`engine.Move` of
        ``board.legal_moves``, its UCI text (``g1f3h``), or an :class:`Evaluated` with a score."""
        raise NotImplementedError


def load_engine_class(spec: str) -> type[HomemadeEngine]:
    """``package.module:ClassName`` -> the class, importable as installed, on PYTHONPATH or from the folder the
    bot was started in. Raises :class:`EngineStartError` naming what is wrong."""
    module_name, separator, class_name = spec.partition(":")
    if not separator or not module_name or not class_name:
        raise EngineStartError(f"engine.command {spec!r} must name a class as package.module:ClassName")
    if os.getcwd() not in sys.path:  # the folder the bot is started from, as ``python -m bot`` has it
        sys.path.append(os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # noqa: BLE001 - any import problem is the operator's to fix
        raise EngineStartError(f"cannot import {module_name!r} ({type(error).__name__}: {error})") from None
    found = getattr(module, class_name, None)
    if found is None:
        engines = sorted(name for name, value in vars(module).items() if isinstance(value, type)
                         and issubclass(value, HomemadeEngine) and value is not HomemadeEngine)
        raise EngineStartError(f"module {module_name!r} has no {class_name!r}; its engine classes: "
                               f"{', '.join(engines) or 'none'}")
    if not isinstance(found, type) or not issubclass(found, HomemadeEngine):
        raise EngineStartError(f"{spec!r} is not a subclass of bot.engines.homemade.HomemadeEngine")
    return found


class HomemadeClient:
    """A :class:`HomemadeEngine` behind the bot's engine interface (``set_variant``, ``new_game``,
    ``search``, ``close``), with the same deadlines as an engine process."""

    def __init__(self, spec: str, *, label: str = "engine") -> None:
        self.spec = spec
        self.label = label
        self.engine_class = load_engine_class(spec)
        self.id_name = str(self.engine_class.name)
        self.variant, self.chess960 = "chess", False
        self.restarts = 0
        self._instance: HomemadeEngine | None = None

    def _engine(self) -> HomemadeEngine:
        if self._instance is None:
            try:
                self._instance = self.engine_class()
                self._instance.new_game(self.variant, self.chess960)
            except Exception as error:  # noqa: BLE001 - the operator's code: any failure is a start failure
                self._instance = None
                raise EngineStartError(f"{self.spec}: could not be started ({type(error).__name__}: {error})") \
                    from None
        return self._instance

    def start(self) -> None:
        """Make an instance (the start-up check)."""
        self._engine()

    def set_variant(self, variant: str, chess960: bool) -> None:
        self.variant, self.chess960 = variant, chess960

    def new_game(self) -> None:
        engine = self._engine()
        try:
            engine.new_game(self.variant, self.chess960)
        except Exception as error:  # noqa: BLE001
            self._instance = None
            raise EngineCrashed(f"{self.spec}.new_game raised {type(error).__name__}: {error}") from None

    def search(self, fen: str, moves: Sequence[str], limits: GoLimits) -> EngineReply:
        """Ask :meth:`HomemadeEngine.choose_move` within ``limits.deadline_ms``; the answer's move as UCI text
        (checked by the game worker like any engine's)."""
        board = Board(fen, variant=self.variant, chess960=self.chess960)
        for uci in moves:
            board.push_uci(uci)
        clocks = Clocks(limits.wtime_ms, limits.btime_ms, limits.winc_ms or 0, limits.binc_ms or 0,
                        limits.movetime_ms, limits.depth, limits.deadline_ms)
        engine = self._engine()
        answer: list[Move | str | Evaluated] = []
        failure: list[BaseException] = []

        def think() -> None:
            try:
                answer.append(engine.choose_move(board, clocks))
            except BaseException as error:  # noqa: BLE001 - reported to the caller as a crash
                failure.append(error)

        started = time.monotonic()
        thread = threading.Thread(target=think, name=f"{self.label}-homemade", daemon=True)
        thread.start()
        thread.join(limits.deadline_ms / 1000)
        elapsed = time.monotonic() - started
        if thread.is_alive():
            self._replace()
            raise EngineTimeout(f"{self.id_name} did not answer within {limits.deadline_ms} ms")
        if failure:
            self._replace()
            error = failure[0]
            raise EngineCrashed(f"{self.id_name}.choose_move raised {type(error).__name__}: {error}")
        return reply_of(answer[0], elapsed)

    def _replace(self) -> None:
        """The next call gets a fresh instance (as a crashed engine process is restarted)."""
        self._instance = None
        self.restarts += 1
        metrics.ENGINE_RESTARTS.inc()

    def close(self) -> None:
        self._instance = None


def reply_of(answer: Move | str | Evaluated, elapsed_s: float) -> EngineReply:
    """What :meth:`HomemadeEngine.choose_move` returned -> an :class:`EngineReply` (move as UCI text)."""
    if isinstance(answer, Evaluated):
        score = None
        if answer.mate is not None:
            score = Score(mate=answer.mate)
        elif answer.score_cp is not None:
            score = Score(cp=answer.score_cp)
        return EngineReply(bestmove=text_of(answer.move), score=score, depth=answer.depth, elapsed_s=elapsed_s)
    return EngineReply(bestmove=text_of(answer), elapsed_s=elapsed_s)


def text_of(move: object) -> str | None:
    if isinstance(move, Move):
        return move.uci()
    if isinstance(move, str):
        return move.strip() or None
    return None


def homemade_factory(spec: str) -> Callable[[str], HomemadeClient]:
    """Engines for the games: one :class:`HomemadeClient` per game (each raises
    :class:`~bot.engines.process.EngineStartError` when the class cannot be loaded)."""

    def make(label: str) -> HomemadeClient:
        return HomemadeClient(spec, label=label)

    return make


__all__ = ["Clocks", "Evaluated", "HomemadeClient", "HomemadeEngine", "homemade_factory", "load_engine_class"]
