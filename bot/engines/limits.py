"""Search limits in no protocol's words: one :class:`GoLimits` per search, which each engine client turns into
its own commands (UCI ``go``, XBoard ``level``/``st``/``sd``, a homemade engine's arguments).

:mod:`bot.game.timecontrol` computes them from the game's clock; :mod:`tools.match` from its time control.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GoLimits:
    """One ``go`` command plus the deadline after which the bot stops waiting for ``bestmove``."""

    wtime_ms: int | None = None
    btime_ms: int | None = None
    winc_ms: int | None = None
    binc_ms: int | None = None
    movetime_ms: int | None = None
    depth: int | None = None
    nodes: int | None = None
    deadline_ms: int = 10_000
    stop_grace_ms: int = 1_000

    def go_command(self, ponder: bool = False) -> str:
        parts = ["go"]
        if ponder:
            parts.append("ponder")
        for name, value in (("wtime", self.wtime_ms), ("btime", self.btime_ms), ("winc", self.winc_ms),
                            ("binc", self.binc_ms), ("movetime", self.movetime_ms), ("depth", self.depth),
                            ("nodes", self.nodes)):
            if value is not None:
                parts += [name, str(value)]
        return " ".join(parts)
