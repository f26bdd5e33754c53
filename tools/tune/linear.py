"""Texel fit of every evaluation weight at once: the evaluation is linear in its weights, so each position
becomes a feature vector and the whole table set is fitted by gradient descent (numpy).

Weights (white's point of view; black uses the mirrored square with the opposite sign):

- ``PST_MG``/``PST_EG``: value of each piece type on each square, material included (8 x 64 x 2);
- ``TEMPO``; the king shield terms (middlegame, as ``evaluate.king_safety``);
- the hand terms: ``HAND_VALUE`` (Hawk, Elephant in hand with a gate for them) and
  ``GATE_SHORTAGE_PENALTY``;
- ``ACTIVITY_MG``/``ACTIVITY_EG``: the activity terms of ``evaluate.activity`` (mobility and king attack per
  piece type, passed pawns per rank, threats on each type of piece, pieces on open and half-open files),
  middlegame and endgame, grouped by ``TERMS``.

The fit minimises the mean squared difference between the label and ``1 / (1 + 10^(-K * eval / 400))``,
plus an L2 pull towards the current weights (``--l2``) so that rarely seen squares stay where they were. The
label blends the game result and the search score of the self-play data (``--lam`` is the result's share).
A tenth of the positions is held out: the report gives both losses before and after, so over-fitting shows.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterator

import numpy as np

from engine import Board
from engine import evaluate as ev
from engine.position import Position
from engine.tables import ELEPHANT, HAWK

PST = 8 * 64  # one block per phase: (piece type - 1) * 64 + square
TEMPO_I = 2 * PST
SHIELD_I = TEMPO_I + 1  # near, far, open file, central king
HAND_I = SHIELD_I + 4  # Hawk, Elephant in hand (usable)
SHORTAGE_I = HAND_I + 2  # spare gates 0, 1, 2 (per piece in hand)
ACTIVITY_I = SHORTAGE_I + 3  # ev.N_ACTIVITY middlegame weights, then as many endgame weights
N_FEATURES = ACTIVITY_I + 2 * ev.N_ACTIVITY
# The activity terms a fit can include (``--terms``): their slices of the activity layout.
TERMS = {
    "mobility": slice(ev.MOBILITY, ev.KING_ATTACK),
    "king-attack": slice(ev.KING_ATTACK, ev.PASSED),
    "passed": slice(ev.PASSED, ev.PAWN_THREAT),
    "threats": slice(ev.PAWN_THREAT, ev.OPEN_FILE),
    "files": slice(ev.OPEN_FILE, ev.N_ACTIVITY),
}
LN10 = math.log(10.0)


def current_weights() -> np.ndarray:
    """The engine's weights as a vector in the feature layout."""
    w = np.zeros(N_FEATURES)
    for t in range(1, 9):
        for sq in range(64):
            w[(t - 1) * 64 + sq] = ev.PST_MG[t][sq]
            w[PST + (t - 1) * 64 + sq] = ev.PST_EG[t][sq]
    w[TEMPO_I] = ev.TEMPO
    w[SHIELD_I:SHIELD_I + 4] = (ev.SHIELD_NEAR, ev.SHIELD_FAR, -ev.OPEN_KING_FILE, -ev.CENTRAL_KING)
    w[HAND_I:HAND_I + 2] = (ev.HAND_VALUE[0], ev.HAND_VALUE[1])
    w[SHORTAGE_I:SHORTAGE_I + 3] = [-p for p in ev.GATE_SHORTAGE_PENALTY]
    w[ACTIVITY_I:ACTIVITY_I + ev.N_ACTIVITY] = ev.ACTIVITY_MG
    w[ACTIVITY_I + ev.N_ACTIVITY:N_FEATURES] = ev.ACTIVITY_EG
    return w


def term_columns(terms: list[str]) -> np.ndarray:
    """The feature indices (middlegame and endgame) of the named activity terms."""
    columns: list[int] = []
    for name in terms:
        if name not in TERMS:
            raise ValueError(f"unknown term {name!r}: expected one of {', '.join(TERMS)}")
        part = TERMS[name]
        for i in range(part.start, part.stop):
            columns += [ACTIVITY_I + i, ACTIVITY_I + ev.N_ACTIVITY + i]
    return np.array(sorted(columns), dtype=int)


def _shield_counts(squares: list[int], king: int, sign: int) -> tuple[int, int, int, int]:
    f = king & 7
    if 2 < f < 5:
        return 0, 0, 0, 1
    r = king >> 3
    near = far = open_ = 0
    for ff in (f - 1, f, f + 1):
        if ff < 0 or ff > 7:
            continue
        rn, rf = r + sign, r + 2 * sign
        if 0 <= rn <= 7 and squares[rn * 8 + ff] == sign:
            near += 1
        elif 0 <= rf <= 7 and squares[rf * 8 + ff] == sign:
            far += 1
        else:
            open_ += 1
    return near, far, open_, 0


def features(pos: Position) -> np.ndarray:
    """The feature vector of a position: ``features @ weights`` is ``evaluate`` from white's view, up to
    rounding. The shield and hand counts mirror ``evaluate._shield`` and ``evaluate.hand_score``; a test
    checks that they agree."""
    x = np.zeros(N_FEATURES)
    _, _, phase = ev.initial_scores(pos)
    p = min(phase, ev.PHASE_MAX)
    wm = p / ev.PHASE_MAX
    we = 1.0 - wm
    for sq, piece in enumerate(pos.squares):
        if piece > 0:
            base = (piece - 1) * 64 + sq
            x[base] += wm
            x[PST + base] += we
        elif piece < 0:
            base = (-piece - 1) * 64 + (sq ^ 56)
            x[base] -= wm
            x[PST + base] -= we
    x[TEMPO_I] = 1.0 if pos.side == 1 else -1.0
    counts = np.array(ev.activity(pos), dtype=float)
    x[ACTIVITY_I:ACTIVITY_I + ev.N_ACTIVITY] = counts * wm
    x[ACTIVITY_I + ev.N_ACTIVITY:N_FEATURES] = counts * we
    if p > 6:
        white = _shield_counts(pos.squares, pos.king_sq[0], 1)
        black = _shield_counts(pos.squares, pos.king_sq[1], -1)
        for i in range(4):
            x[SHIELD_I + i] = (white[i] - black[i]) * wm
    if pos.gates:
        for color, sign in ((0, 1), (1, -1)):
            hawks, elephants = pos.hand[HAWK * sign], pos.hand[ELEPHANT * sign]
            count = hawks + elephants
            if not count:
                continue
            own = pos.gates & ev.BACK_RANK[color]
            gate_count = bin(own).count("1")
            usable = min(count, gate_count)
            take_e = min(elephants, usable)
            take_h = min(hawks, usable - take_e)
            x[HAND_I] += sign * take_h
            x[HAND_I + 1] += sign * take_e
            spare = gate_count - count
            if 0 <= spare < 3:
                x[SHORTAGE_I + spare] += sign * count
    return x


def read_rows(path: Path) -> Iterator[tuple[str, str, float, int, str]]:
    """(fen, variant, result, score, best move) from a ``python -m tools.tune selfplay`` file, or from a
    ``label`` file (no best move: its positions were filtered for quietness when extracted)."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split(";")
        if len(fields) < 4 or not fields[3]:
            raise ValueError(f"{path}:{number}: expected fen;variant;result;score[;best move], got {line!r}")
        yield fields[0], fields[1], float(fields[2]), int(fields[3]), fields[4] if len(fields) > 4 else ""


def quiet_features(path: Path, max_score: int = 1500) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, results and scores (white's view) of the quiet positions of a self-play file: not in check,
    the searched best move is neither a capture nor a promotion, the score is not a mate."""
    rows, results, scores = [], [], []
    for fen, variant, result, score, best in read_rows(path):
        if abs(score) >= max_score:
            continue
        board = Board(fen, variant=variant)
        if board.is_check():
            continue
        if best:
            move = board.parse_uci(best)
            target = board.squares[move.to_square]
            en_passant = abs(board.squares[move.from_square]) == 1 and (move.from_square - move.to_square) % 8
            if target or en_passant or move.promotion:
                continue
        rows.append(features(board))
        results.append(result)
        scores.append(score)
    return np.array(rows), np.array(results), np.array(scores, dtype=float)


def sigmoid(e: np.ndarray, k: float) -> np.ndarray:
    return 1.0 / (1.0 + np.power(10.0, -k * e / 400.0))


def fit_k(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """The scale K that best maps ``x @ w`` to the labels (golden-section search)."""
    e = x @ w
    low, high = 0.05, 3.0
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(50):
        a = high - ratio * (high - low)
        b = low + ratio * (high - low)
        if np.mean((sigmoid(e, a) - y) ** 2) < np.mean((sigmoid(e, b) - y) ** 2):
            high = b
        else:
            low = a
    return (low + high) / 2


def loss(x: np.ndarray, y: np.ndarray, w: np.ndarray, k: float) -> float:
    return float(np.mean((sigmoid(x @ w, k) - y) ** 2))


# For each weight, the index of the same table's weight on the square mirrored a <-> h.
MIRROR = np.array([(i & ~7) | (7 - (i & 7)) if i < 2 * PST else i for i in range(N_FEATURES)])


def fit(x: np.ndarray, y: np.ndarray, w0: np.ndarray, k: float, l2: float, steps: int = 3000,
        rate: float = 2.0, log_every: int = 500, mirror: bool = True,
        free: np.ndarray | None = None) -> np.ndarray:
    """Adam on the Texel loss with an L2 pull towards ``w0``; returns the fitted weights. With ``mirror`` a
    square and its a <-> h mirror move together (half the free weights, so less over-fitting). With
    ``free`` (feature indices) only those weights move; the others keep their value."""
    w: np.ndarray = np.array(w0, dtype=float)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    b1, b2, eps = 0.9, 0.999, 1e-12
    n = len(y)
    mask = np.zeros_like(w)
    if free is not None:
        mask[free] = 1.0
    for step in range(1, steps + 1):
        s = sigmoid(x @ w, k)
        g = x.T @ ((s - y) * s * (1 - s)) * (2 * LN10 * k / 400.0 / n) + 2 * l2 * (w - w0)
        if mirror:
            g = (g + g[MIRROR]) / 2
        if free is not None:
            g = g * mask
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        w -= rate * (m / (1 - b1 ** step)) / (np.sqrt(v / (1 - b2 ** step)) + eps)
        if log_every and step % log_every == 0:
            print(f"  step {step}: loss {loss(x, y, w, k):.6f}")
    return w


def write_module(w: np.ndarray, path: Path, source: str) -> None:
    """Write the weights as a module like ``engine/eval_weights.py`` (integers, white's view)."""
    r = np.rint(w).astype(int)

    def table(offset: int) -> str:
        rows = ["    (0,) * 64,  # no piece"]
        names = ("pawn", "knight", "bishop", "rook", "queen", "king", "hawk", "elephant")
        for t in range(8):
            values = [int(v) for v in r[offset + t * 64: offset + t * 64 + 64]]
            lines = [", ".join(f"{v:4d}" for v in values[i:i + 8]) for i in range(0, 64, 8)]
            body = ",\n     ".join(lines)
            rows.append(f"    # {names[t]}, a1..h1 first\n    ({body}),")
        return "(\n" + "\n".join(rows) + "\n)"

    def activity(offset: int) -> str:
        values = [int(v) for v in r[offset:offset + ev.N_ACTIVITY]]
        blocks = [(ev.MOBILITY, "mobility"), (ev.KING_ATTACK, "king attack"), (ev.PASSED, "passed pawns"),
                  (ev.PAWN_THREAT, "threats by pawns"), (ev.PIECE_THREAT, "threats by lesser pieces"),
                  (ev.OPEN_FILE, "open files"), (ev.HALF_OPEN_FILE, "half-open files"), (ev.N_ACTIVITY, "")]
        lines = [f"    {', '.join(str(v) for v in values[start:end])},  # {name}"
                 for (start, name), (end, _) in zip(blocks, blocks[1:], strict=False)]
        return "(\n" + "\n".join(lines) + "\n)"

    text = f'''"""Evaluation weights fitted by ``python -m tools.tune fit``
({source}).

Generated file: edit the tuner, not these numbers. Values are centipawns from white's point of view, material
included; index ``[piece type][square]`` with a1 = 0 (black pieces use the mirrored square).
"""

PST_MG = {table(0)}

PST_EG = {table(PST)}

TEMPO = {r[TEMPO_I]}
SHIELD_NEAR = {r[SHIELD_I]}
SHIELD_FAR = {r[SHIELD_I + 1]}
OPEN_KING_FILE = {-r[SHIELD_I + 2]}
CENTRAL_KING = {-r[SHIELD_I + 3]}
HAND_VALUE = ({r[HAND_I]}, {r[HAND_I + 1]})  # Hawk, Elephant in hand with a gate for them
GATE_SHORTAGE_PENALTY = ({-r[SHORTAGE_I]}, {-r[SHORTAGE_I + 1]}, {-r[SHORTAGE_I + 2]})
# The activity terms of evaluate.activity: mobility, king attack by piece type; passed pawns by rank; threats
# by the attacked piece's type; open and half-open files by piece type
ACTIVITY_MG = {activity(ACTIVITY_I)}
ACTIVITY_EG = {activity(ACTIVITY_I + ev.N_ACTIVITY)}
'''
    path.write_text(text, encoding="utf-8")
