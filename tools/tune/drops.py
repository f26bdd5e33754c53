"""Texel fit of S-House's drop terms: the value of each piece type in hand and on the board, the tempo and
the king-danger weights.

The rest of the evaluation is the same function in S-chess and S-House; what only a drop game has is
``evaluate.drop_score``: ``DROP_HAND_VALUE`` per piece in hand, ``DROP_BOARD_VALUE`` added to each piece on
the board, ``DROP_TEMPO`` for the side to move, and each king's danger, ``units^2 /
KD_DIVISOR`` centipawns (capped at ``KD_CAP``), where ``units`` is a weighted count of eight things (``KD``
below: attackers next to the king, weak squares, squares to drop on, checks a piece in hand could give,
pieces in hand, missing shelter pawns). The fit reads positions of S-House games (``python -m tools.nnue
fsfplay --variant shouse``: ``fen;score;result;game``, white's view) and minimises the squared difference
between ``sigmoid(eval / K)`` and a label blended from the game's result and the score of the engine that
played it (``lam`` is the result's share; that engine's score is read through its own K, fitted on the
same games), over the 7 hand values, the 7 board values, the tempo, the 8 weights and the cap; K of the
evaluation is fitted first, on the current weights. The counts are the engine's own: each position's eight
counts per king are read off ``evaluate._king_danger`` with one weight set to 1 at a time, so the
pure-Python build is needed (the compiled one keeps its weights in C).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, Iterator, Optional

import numpy as np

from engine import Board
from engine import evaluate as ev
from engine.buildinfo import compiled_modules
from engine.tables import BISHOP, ELEPHANT, HAWK, KING, KNIGHT, PAWN, QUEEN, ROOK

#: The king-danger weights in the order of the fit's columns.
KD = ("KD_ATTACK", "KD_WEAK", "KD_DROP_SQUARE", "KD_KNIGHT_CHECK", "KD_SLIDER_CHECK", "KD_HAND_PIECE",
      "KD_HAND_QUEEN", "KD_SHELTER")
#: The piece types a hand can hold, in the order of the fit's columns.
HAND_TYPES = tuple(t for t in range(PAWN, ELEPHANT + 1) if t != KING)
#: The terms linear in their settings, the fit's first columns: hand values, board values, tempo.
N_LINEAR = 2 * len(HAND_TYPES) + 1


def require_pure_build() -> None:
    """The counts come from the pure-Python evaluation's module settings: refuse a compiled one."""
    if "evaluate" in compiled_modules():
        raise SystemExit("the drop-term fit needs the pure-Python build of engine.evaluate (its settings are C "
                         "values in the compiled one): run it from a checkout without engine/*.so")


def danger_counts(pos: Board) -> tuple[list[int], list[int]]:
    """The eight counts (``KD`` order) of the danger to the white king and to the black king."""
    hand = pos.hand
    squares = pos.squares
    white = [0] * 64
    black = [0] * 64
    ev._attack_counts(squares, white, black)
    saved = {name: getattr(ev, "_" + name) for name in KD + ("KD_DIVISOR", "KD_CAP")}
    out: tuple[list[int], list[int]] = ([], [])
    try:
        ev._KD_DIVISOR = 1
        ev._KD_CAP = 1 << 40
        for name in KD:
            for other in KD:
                setattr(ev, "_" + other, 1 if other == name else 0)
            # Each king against the other side's attackers and hand (s: the sign of the enemy's pieces).
            for color, (king, side, s) in enumerate(((pos.king_sq[0], 1, -1), (pos.king_sq[1], -1, 1))):
                attacks, own = (black, white) if side == 1 else (white, black)
                units2 = ev._king_danger(squares, king, side, hand[PAWN * s], hand[KNIGHT * s], hand[BISHOP * s],
                                         hand[ROOK * s], hand[QUEEN * s], hand[HAWK * s], hand[ELEPHANT * s],
                                         attacks, own)
                out[color].append(math.isqrt(units2))
    finally:
        for name, value in saved.items():
            setattr(ev, "_" + name, value)
    return out


def read_rows(path: Path) -> Iterator[tuple[str, int, float]]:
    """(fen, score, result), white's view, of a ``fen;score;result;game`` file (marker lines skipped; the
    format of ``tools.nnue``'s data files, which one tool does not import from another)."""
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            fields = line.rstrip("\n").split(";")
            if len(fields) == 4 and fields[0]:
                yield fields[0], int(fields[1]), float(fields[2])


def features(paths: list[Path], every: int = 1,
             progress: Optional[Callable[[int], None]] = None) -> dict[str, np.ndarray]:
    """Per position (white's view): ``base`` (the evaluation without its drop terms), ``hand`` (white's minus
    black's count of each type in hand), ``linear`` (``hand``, the same counts on the board, and 1 or -1 for
    the side to move), ``white``/``black`` (each king's danger counts), ``score``, ``result``: every
    ``every``-th position of the files; ``progress(n)`` hears of each thousand."""
    require_pure_build()
    rows = [row for path in paths for row in read_rows(path)][::every]
    base, hands, linear, whites, blacks, scores, results = [], [], [], [], [], [], []
    for fen, score, result in rows:
        pos = Board(fen, variant="shouse")
        side = 1 if fen.split()[1] == "w" else -1
        base.append(ev.evaluate_position(pos) * side - ev.drop_score(pos))
        hands.append([pos.hand[t] - pos.hand[-t] for t in HAND_TYPES])
        board = [pos.squares.count(t) - pos.squares.count(-t) for t in HAND_TYPES]
        linear.append(hands[-1] + board + [side])
        w, b = danger_counts(pos)
        whites.append(w)
        blacks.append(b)
        scores.append(score)
        results.append(result)
        if progress and len(base) % 1000 == 0:
            progress(len(base))
    return {"base": np.array(base, dtype=float), "hand": np.array(hands, dtype=float),
            "linear": np.array(linear, dtype=float),
            "white": np.array(whites, dtype=float), "black": np.array(blacks, dtype=float),
            "score": np.array(scores, dtype=float), "result": np.array(results, dtype=float)}


def current_params() -> np.ndarray:
    """The engine's drop terms as the fit's vector: hand values, board values, tempo, king-danger weights
    scaled to a divisor of 1 (``w / sqrt(KD_DIVISOR)``), the cap."""
    hand = [ev.DROP_HAND_VALUE[t] for t in HAND_TYPES]
    board = [ev.DROP_BOARD_VALUE[t] for t in HAND_TYPES]
    scale = math.sqrt(ev.KD_DIVISOR)
    return np.array(hand + board + [ev.DROP_TEMPO] + [getattr(ev, name) / scale for name in KD] + [ev.KD_CAP],
                    dtype=float)


def _danger(counts: np.ndarray, weights: np.ndarray, cap: float) -> tuple[np.ndarray, np.ndarray]:
    """Each position's danger (units^2, capped) and its slope in the units."""
    units = counts @ weights
    danger = units * units
    slope = np.where(danger < cap, 2 * units, 0.0)
    return np.minimum(danger, cap), slope


Parts = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _evaluate(data: dict[str, np.ndarray], params: np.ndarray) -> Parts:
    """The evaluation of every position (white's view) under ``params``, then each king's danger and its
    slope (black's, then white's)."""
    linear, weights, cap = params[:N_LINEAR], params[N_LINEAR:N_LINEAR + len(KD)], params[-1]
    black, black_slope = _danger(data["black"], weights, cap)
    white, white_slope = _danger(data["white"], weights, cap)
    return data["base"] + data["linear"] @ linear + black - white, black, black_slope, white, white_slope


def evaluation(data: dict[str, np.ndarray], params: np.ndarray) -> np.ndarray:
    """The evaluation of every position (white's view) under ``params``."""
    return _evaluate(data, params)[0]


def sigmoid(e: np.ndarray, k: float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(e / k, -50, 50)))


def fit_k(e: np.ndarray, y: np.ndarray) -> float:
    """The K of ``sigmoid(e / K)`` that best predicts ``y`` (golden-section search over 20-5000, on arrays:
    ``tools.nnue.fsfplay.fit_k`` does the same on lists, in the tool this one does not import)."""
    lo, hi = math.log(20.0), math.log(5000.0)
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if np.mean((sigmoid(e, math.exp(a)) - y) ** 2) < np.mean((sigmoid(e, math.exp(b)) - y) ** 2):
            hi = b
        else:
            lo = a
    return math.exp((lo + hi) / 2)


def loss(data: dict[str, np.ndarray], y: np.ndarray, params: np.ndarray, k: float) -> float:
    return float(np.mean((sigmoid(evaluation(data, params), k) - y) ** 2))


def fit(data: dict[str, np.ndarray], y: np.ndarray, params: np.ndarray, k: float, steps: int = 2000,
        rate: float = 2.0) -> np.ndarray:
    """Adam on the squared error, from ``params``; the king-danger weights stay >= 0, the cap >= 100."""
    p = params.copy()
    n_lin = N_LINEAR
    # Steps in comparable units: centipawns for the values and the cap, a tenth of that for the weights.
    step_scale = np.ones_like(p)
    step_scale[n_lin:n_lin + len(KD)] = 0.05
    step_scale[-1] = 10.0
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    beta1, beta2 = 0.9, 0.999
    for t in range(1, steps + 1):
        e, black, black_slope, white, white_slope = _evaluate(data, p)
        cap = p[-1]
        s = sigmoid(e, k)
        de = 2 * (s - y) * s * (1 - s) / k / len(y)  # d loss / d eval of each position
        grad = np.zeros_like(p)
        grad[:n_lin] = data["linear"].T @ de
        grad[n_lin:n_lin + len(KD)] = (data["black"] * black_slope[:, None]).T @ de - (
            data["white"] * white_slope[:, None]).T @ de
        grad[-1] = np.sum(de * ((black >= cap).astype(float) - (white >= cap).astype(float)))
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad * grad
        p -= rate * step_scale * (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + 1e-12)
        p[n_lin:n_lin + len(KD)] = np.maximum(p[n_lin:n_lin + len(KD)], 0.0)
        p[-1] = max(p[-1], 100.0)
    return np.asarray(p)


def as_settings(params: np.ndarray, divisor: int) -> dict[str, int]:
    """The fitted vector as the engine's integer settings, king-danger weights for ``divisor``."""
    n_hand = len(HAND_TYPES)
    scale = math.sqrt(divisor)
    out = {f"DROP_HAND_VALUE[{t}]": round(params[i]) for i, t in enumerate(HAND_TYPES)}
    out.update({f"DROP_BOARD_VALUE[{t}]": round(params[n_hand + i]) for i, t in enumerate(HAND_TYPES)})
    out["DROP_TEMPO"] = round(params[2 * n_hand])
    out.update({name: round(params[N_LINEAR + i] * scale) for i, name in enumerate(KD)})
    out["KD_DIVISOR"] = divisor
    out["KD_CAP"] = round(params[-1])
    return out


def from_settings(settings: dict[str, int]) -> np.ndarray:
    """The fit's vector of integer settings (what the engine computes once they are written in)."""
    n_hand = len(HAND_TYPES)
    p = np.zeros(N_LINEAR + len(KD) + 1)
    for i, t in enumerate(HAND_TYPES):
        p[i] = settings[f"DROP_HAND_VALUE[{t}]"]
        p[n_hand + i] = settings[f"DROP_BOARD_VALUE[{t}]"]
    p[2 * n_hand] = settings["DROP_TEMPO"]
    scale = math.sqrt(settings["KD_DIVISOR"])
    for i, name in enumerate(KD):
        p[N_LINEAR + i] = settings[name] / scale
    p[-1] = settings["KD_CAP"]
    return p
