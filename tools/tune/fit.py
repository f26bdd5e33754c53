"""Coordinate-descent fit of evaluation parameters (Texel's method) on labelled positions."""

from __future__ import annotations

import math
from typing import Callable, Optional

from engine import Board
from engine import evaluate as ev

from .data import Sample

# Tunable module-level names of engine.evaluate: ints, or tuples of ints with the indices to tune.
# New terms are tunable once they are listed here (module-level ints or tuples of ints, read at call time).
TUPLE_INDICES: dict[str, tuple[int, ...]] = {
    "VALUE_MG": (1, 2, 3, 4, 5, 7, 8),
    "VALUE_EG": (1, 2, 3, 4, 5, 7, 8),
    "GATE_SHORTAGE_PENALTY": (0, 1, 2),
}
SCALARS = ("TEMPO", "HAND_BONUS", "SHIELD_NEAR", "SHIELD_FAR", "OPEN_KING_FILE", "CENTRAL_KING")
GROUPS = {
    "king": ("SHIELD_NEAR", "SHIELD_FAR", "OPEN_KING_FILE", "CENTRAL_KING"),
    "hand": ("HAND_BONUS", "GATE_SHORTAGE_PENALTY"),
    "material": ("VALUE_MG", "VALUE_EG"),
}

Param = tuple[str, Optional[int]]  # (name, index in the tuple or None for a scalar)


def expand(names: list[str]) -> list[Param]:
    """The individual parameters for names of groups, tuples or scalars."""
    params: list[Param] = []
    for name in names:
        for member in GROUPS.get(name, (name,)):
            if member in TUPLE_INDICES:
                params.extend((member, i) for i in TUPLE_INDICES[member])
            elif member in SCALARS:
                params.append((member, None))
            else:
                raise ValueError(f"unknown parameter {member!r}")
    return params


def get(param: Param) -> int:
    name, index = param
    value = getattr(ev, name)
    return int(value if index is None else value[index])


def set_value(param: Param, value: int) -> None:
    """Set one parameter in engine.evaluate and refresh what depends on it (tables, caches)."""
    name, index = param
    if index is None:
        setattr(ev, name, value)
    else:
        values = list(getattr(ev, name))
        values[index] = value
        setattr(ev, name, tuple(values))
    if name.startswith("VALUE_"):
        ev.PST_MG, ev.PST_EG = ev._signed_tables()
    ev._hand_cache.clear()


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, -x))


class Fitter:
    """Holds the positions as boards and the labels; ``loss`` evaluates them with the current parameters."""

    def __init__(self, samples: list[Sample], target: str = "result") -> None:
        self.boards = [Board(s.fen, variant=s.variant) for s in samples]
        self.white = [b.side == 1 for b in self.boards]
        if target == "result":
            self.labels = [s.result for s in samples]
        elif target == "score":
            if any(s.score is None for s in samples):
                raise ValueError("--target score needs labelled positions (python -m tools.tune label)")
            # An engine score of +100 cp is an expected result of about 0.64.
            self.labels = [sigmoid((s.score or 0) / 400.0) for s in samples]
        else:
            raise ValueError(f"unknown target {target!r}")
        self.k = 1.0

    def evals(self) -> list[int]:
        out = []
        for board, white in zip(self.boards, self.white):
            score = ev.evaluate_position(board)
            out.append(score if white else -score)
        return out

    def loss(self, k: Optional[float] = None) -> float:
        k = self.k if k is None else k
        total = 0.0
        for e, label in zip(self.evals(), self.labels):
            diff = label - sigmoid(k * e / 400.0)
            total += diff * diff
        return total / len(self.labels)

    def fit_k(self) -> float:
        """The scale K that best maps the current evaluation to the labels (golden-section search)."""
        evals = self.evals()

        def loss_k(k: float) -> float:
            return sum((lab - sigmoid(k * e / 400.0)) ** 2 for e, lab in zip(evals, self.labels)) / len(evals)

        low, high = 0.05, 3.0
        ratio = (math.sqrt(5) - 1) / 2
        for _ in range(40):
            a = high - ratio * (high - low)
            b = low + ratio * (high - low)
            if loss_k(a) < loss_k(b):
                high = b
            else:
                low = a
        self.k = (low + high) / 2
        return self.k

    def descend(self, params: list[Param], steps: tuple[int, ...] = (8, 4, 2),
                log: Callable[[str], None] = print) -> float:
        """Coordinate descent: move each parameter by +-step while the loss falls; smaller steps after."""
        best = self.loss()
        log(f"start loss {best:.6f} (K {self.k:.3f}, {len(self.labels)} positions)")
        for step in steps:
            improved = True
            rounds = 0
            while improved and rounds < 6:
                improved = False
                rounds += 1
                for param in params:
                    value = get(param)
                    for delta in (step, -step):
                        set_value(param, value + delta)
                        trial = self.loss()
                        if trial < best:
                            best = trial
                            value += delta
                            improved = True
                            log(f"  {param[0]}{'' if param[1] is None else [param[1]]} = {value}  loss {best:.6f}")
                            break
                        set_value(param, value)
        return best


def report(params: list[Param]) -> list[str]:
    """Python lines with the fitted values, for pasting into engine/evaluate.py."""
    names = []
    for name, _ in params:
        if name not in names:
            names.append(name)
    return [f"{name} = {getattr(ev, name)!r}" for name in names]
