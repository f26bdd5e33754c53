"""Settings of a match: the engines, the time control, adjudication and the schedule.

Plain dataclasses built by the command line (``tools.match.cli``) or by tests; nothing here does I/O.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Optional, Tuple

from engine import Board
from engine.variants import START_FENS, VARIANTS
from tools.match.sprt import Sprt


@functools.lru_cache(maxsize=256)
def _position(fen: str, variant: str) -> Optional[str]:
    """The FEN as ``engine.Board`` writes it (one order of the pieces in hand), or None when it is invalid."""
    try:
        return Board(fen, variant=variant).fen()
    except ValueError:
        return None


def is_start_position(fen: str, variant: str) -> bool:
    """True when ``fen`` is the variant's standard start position (in any hand order)."""
    start = START_FENS.get(variant)
    position = _position(fen, variant)
    return start is not None and position is not None and position == _position(start, variant)


@dataclass(frozen=True)
class EngineSpec:
    """How to start one UCI engine and how to configure it.

    ``command`` is the argument vector (``["/usr/games/fairy-stockfish"]``, ``["python", "-m", "engine"]``).
    ``options`` are sent with ``setoption`` after the handshake, in the given order.
    ``name`` overrides the engine's ``id name`` in the table and the PGN when not empty.
    """

    command: Tuple[str, ...]
    options: Tuple[Tuple[str, str], ...] = ()
    name: str = ""
    working_directory: Optional[str] = None


@dataclass(frozen=True)
class SearchBudget:
    """The limits an engine searches under; at least one must be set.

    A clock (``base_ms`` with ``increment_ms``) and a fixed time per move (``movetime_ms``) exclude each
    other; ``depth`` and ``nodes`` may be combined with either, or used alone.
    """

    base_ms: Optional[int] = None
    increment_ms: int = 0
    movetime_ms: Optional[int] = None
    depth: Optional[int] = None
    nodes: Optional[int] = None

    def __post_init__(self) -> None:
        if self.base_ms is None and self.movetime_ms is None and self.depth is None and self.nodes is None:
            raise ValueError("a time control needs a clock, a move time, a depth or a node limit")
        if self.base_ms is not None and self.movetime_ms is not None:
            raise ValueError("a clock (--tc) and a fixed move time (--movetime) exclude each other")
        for label, value in (
            ("base time", self.base_ms),
            ("move time", self.movetime_ms),
            ("depth", self.depth),
            ("nodes", self.nodes),
        ):
            if value is not None and value <= 0:
                raise ValueError(f"the {label} must be positive, not {value}")
        if self.increment_ms < 0:
            raise ValueError(f"the increment must not be negative, not {self.increment_ms}")

    @property
    def has_clock(self) -> bool:
        """True when the engines play on a running clock (base + increment)."""
        return self.base_ms is not None

    def pgn_tag(self) -> str:
        """The PGN ``SearchBudget`` tag value: ``30+0.3`` (seconds), ``movetime 500ms``, ``depth 3``."""
        parts = []
        if self.base_ms is not None:
            parts.append(f"{_seconds_text(self.base_ms)}+{_seconds_text(self.increment_ms)}")
        if self.movetime_ms is not None:
            parts.append(f"{_seconds_text(self.movetime_ms)}/move")
        if self.depth is not None:
            parts.append(f"depth {self.depth}")
        if self.nodes is not None:
            parts.append(f"nodes {self.nodes}")
        return ", ".join(parts)


def _seconds_text(milliseconds: int) -> str:
    """Milliseconds as seconds without trailing zeros: 30000 -> '30', 300 -> '0.3'."""
    text = f"{milliseconds / 1000:.3f}".rstrip("0").rstrip(".")
    return text or "0"


_TC_PATTERN = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(?:\+\s*(\d+(?:\.\d*)?|\.\d+))?\s*$")


def parse_clock(text: str) -> Tuple[int, int]:
    """Parse a clock given as ``base+increment`` in seconds into milliseconds.

    ``"30+0.3"`` -> ``(30000, 300)``; ``"60"`` -> ``(60000, 0)``. Raises ValueError on anything else.
    """
    found = _TC_PATTERN.match(text)
    if not found:
        raise ValueError(f"bad time control {text!r}: expected seconds+increment such as 30+0.3 or 60")
    base_ms = round(float(found.group(1)) * 1000)
    increment_ms = round(float(found.group(2)) * 1000) if found.group(2) else 0
    if base_ms <= 0:
        raise ValueError(f"bad time control {text!r}: the base time must be positive")
    return base_ms, increment_ms


def parse_option(text: str) -> Tuple[str, str]:
    """Parse a UCI option given as ``Name=Value`` (the name may contain spaces: ``Skill Level=3``)."""
    name, separator, value = text.partition("=")
    if not separator or not name.strip():
        raise ValueError(f"bad engine option {text!r}: expected Name=Value such as 'Skill Level=3'")
    return name.strip(), value.strip()


@dataclass(frozen=True)
class Adjudication:
    """When the runner ends a game before the rules do.

    Score adjudication is off unless its threshold is set. Scores are the engines' own, in centipawns from
    the side to move; both engines must agree for ``*_moves`` consecutive moves each.

    - resign: the side to move reports ``<= -resign_score`` and its opponent ``>= resign_score``.
    - draw: after ``draw_after_move`` full moves, both report ``abs(score) <= draw_score``.
    - ``max_plies``: the game is a draw after this many plies (0 = no cap).
    """

    resign_score: Optional[int] = None
    resign_moves: int = 3
    draw_score: Optional[int] = None
    draw_moves: int = 8
    draw_after_move: int = 40
    max_plies: int = 0


@dataclass(frozen=True)
class MatchSettings:
    """Everything a match needs. ``games`` are played in colour-swapped pairs over the openings."""

    engine1: EngineSpec
    engine2: EngineSpec
    time_control: SearchBudget
    games: int = 2
    variant: str = "seirawan"
    chess960: bool = False
    openings_file: Optional[str] = None
    shuffle_openings: bool = False
    seed: Optional[int] = None
    concurrency: int = 1
    pgn_file: Optional[str] = None
    event: str = "Engine match"
    adjudication: Adjudication = field(default_factory=Adjudication)
    time_margin_ms: int = 100
    hang_timeout_s: float = 60.0
    stop_grace_s: float = 1.0
    startup_timeout_s: float = 15.0
    debug: bool = False
    quiet: bool = False
    # stop when this test reaches a verdict (``games`` is then the cap); None: play all ``games``
    sprt: Optional[Sprt] = None
    # the file of finished games that lets a stopped match resume (tools.match.state)
    state_file: Optional[str] = None

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r}: expected one of {', '.join(VARIANTS)}")
        if self.games < 1:
            raise ValueError(f"the number of games must be at least 1, not {self.games}")
        if self.concurrency < 1:
            raise ValueError(f"the concurrency must be at least 1, not {self.concurrency}")
        if self.time_margin_ms < 0:
            raise ValueError(f"the time margin must not be negative, not {self.time_margin_ms}")
