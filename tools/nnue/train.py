"""Training of the net (numpy only: dense 0/1 input rows times the first layer are fast enough for a net this
small, and CI runs it without PyTorch), its quantization and export, and the check against the engine.

The float net is the engine's net before rounding: ``acc = X @ W1 + b1`` for each perspective, the side to move's
first, ``h = clip(acc, 0, 1) ** 2``, ``out = h_us @ w2[:H] + h_them @ w2[H:] + b2`` in units of ``SCALE``
centipawns. The loss is the mean squared error between ``sigmoid(out)`` and the label
``lam * sigmoid(score / SCALE) + (1 - lam) * result`` (side to move's view). Export multiplies the first layer by
``QA`` and the output layer by ``QB`` (:mod:`engine.nnue`) and rounds.

Steps and their files (every step skips work already on disk):
``features``: ``DATA.features.npz``, the active features of every position (padded with ``N_FEATURES``).
``train``: ``OUT.ckpt.npz`` after every epoch (weights, Adam state, epoch, losses); a rerun continues.
``export``: the net file; ``check``: the engine's evaluation of the exported net against the float net's.
"""

from __future__ import annotations

import hashlib
import math
import time
from pathlib import Path
from typing import Any, Iterator, Optional

import numpy as np

from engine import Board, nnue

from . import dataset
from .progress import Progress

SCALE = nnue.SCALE
PAD = nnue.N_FEATURES  # the padding feature: a column that is dropped
MAX_ACTIVE = 80


def read_positions(path: Path) -> list[tuple[str, int, float, int]]:
    """(fen, score, result, game) of every kept position (white's view), marker lines skipped; of a data set
    (:mod:`tools.nnue.dataset`) or a text file."""
    if dataset.is_dataset(path):
        return dataset.positions(path)
    out = []
    with path.open(encoding="utf-8") as source:
        for line in source:
            fields = line.rstrip("\n").split(";")
            if len(fields) != 4 or not fields[0]:
                continue
            out.append((fields[0], int(fields[1]), float(fields[2]), int(fields[3])))
    return out


def featurize(path: Path, cache: Optional[Path] = None, variant: str = "seirawan") -> dict[str, np.ndarray]:
    """The training arrays of a data file: ``us``/``them`` (N x MAX_ACTIVE feature indices of the side to move
    and the other side, padded), ``score`` and ``result`` from the side to move's view, ``game``. Cached in
    ``cache`` (default ``DATA.features.npz``), reused while the data file has not grown."""
    cache = cache or path.with_name(path.name + ".features.npz")
    if dataset.is_dataset(path):
        return _featurize_dataset(path, cache)
    positions = read_positions(path)
    if cache.exists():
        arrays = dict(np.load(cache))
        if len(arrays["score"]) == len(positions):
            return arrays
        start = len(arrays["score"])  # the data grew: only the new positions
    else:
        arrays, start = {}, 0
    n = len(positions) - start
    us = np.full((n, MAX_ACTIVE), PAD, dtype=np.int16)
    them = np.full((n, MAX_ACTIVE), PAD, dtype=np.int16)
    score = np.zeros(n, dtype=np.float32)
    result = np.zeros(n, dtype=np.float32)
    game = np.zeros(n, dtype=np.int32)
    bar = Progress("features", n, "positions")
    for i, (fen, white_score, white_result, number) in enumerate(positions[start:]):
        board = Board(fen, variant=variant)
        side = board.side
        squares = list(board.squares)
        own = nnue.features(squares, board.hand, board.gates, side)
        other = nnue.features(squares, board.hand, board.gates, -side)
        us[i, :len(own)] = own
        them[i, :len(other)] = other
        score[i] = white_score * side
        result[i] = white_result if side == 1 else 1.0 - white_result
        game[i] = number
        bar.update()
    bar.close()
    new: dict[str, np.ndarray] = {"us": us, "them": them, "score": score, "result": result, "game": game}
    if arrays:
        new = {key: np.concatenate([arrays[key], new[key]]) for key in new}
    saved: dict[str, Any] = dict(new)
    np.savez(cache, **saved)
    return new


def _fingerprint(records: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(records).tobytes()).hexdigest()


def _featurize_dataset(path: Path, cache: Path, chunk: int = 20000) -> dict[str, np.ndarray]:
    """:func:`featurize` of a data set: the net's inputs straight from the records (no FEN, no Board). The cache
    holds a fingerprint of the records it describes, so it is reused, or extended by the new records only,
    while the file's first records are the ones it was made from (a merge that reorders them recomputes it)."""
    records = dataset.read(path).records
    arrays: dict[str, np.ndarray] = {}
    start = 0
    if cache.exists():
        saved = dict(np.load(cache))
        done = len(saved["score"])
        if ("fingerprint" in saved and done <= len(records)
                and str(saved["fingerprint"]) == _fingerprint(records[:done])):
            arrays = {key: value for key, value in saved.items() if key != "fingerprint"}
            if done == len(records):
                return arrays
            start = done
    n = len(records) - start
    us = np.full((n, MAX_ACTIVE), PAD, dtype=np.int16)
    them = np.full((n, MAX_ACTIVE), PAD, dtype=np.int16)
    bar = Progress("features", n, "positions")
    for first in range(start, len(records), chunk):
        part = dataset.decode(records[first:first + chunk])
        squares, hands = part["squares"].tolist(), part["hand"].tolist()
        gates, sides = part["gates"].tolist(), part["side"].tolist()
        for i in range(len(squares)):
            row = first - start + i
            own = nnue.features(squares[i], hands[i], gates[i], sides[i])
            other = nnue.features(squares[i], hands[i], gates[i], -sides[i])
            us[row, :len(own)] = own
            them[row, :len(other)] = other
        bar.update(len(squares))
    bar.close()
    new: dict[str, np.ndarray] = {
        "us": us, "them": them,
        "score": records["score"][start:].astype(np.float32),
        "result": (records["result"][start:] / dataset.RESULT_UNIT).astype(np.float32),
        "game": records["game"][start:].astype(np.int32),
    }
    if arrays:
        new = {key: np.concatenate([arrays[key], new[key]]) for key in new}
    saved_arrays: dict[str, Any] = dict(new)
    np.savez(cache, fingerprint=np.array(_fingerprint(records)), **saved_arrays)
    return new


def boards(path: Path, variant: str = "seirawan", count: Optional[int] = None) -> Iterator[Board]:
    """The positions of a data set (in their own variant) or a text file (in ``variant``), in order."""
    if dataset.is_dataset(path):
        for record in dataset.read(path).records[:count]:
            yield dataset.record_board(record.tobytes())
    else:
        for fen, _, _, _ in read_positions(path)[:count]:
            yield Board(fen, variant=variant)


def dense(rows: np.ndarray) -> np.ndarray:
    """0/1 input rows (B x N_FEATURES, float32) from padded feature indices."""
    x = np.zeros((rows.shape[0], PAD + 1), dtype=np.float32)
    x[np.arange(rows.shape[0])[:, None], rows.astype(np.int64)] = 1.0
    return x[:, :PAD]


def sigmoid(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-x))
    return out


class FloatNet:
    """The float net and its Adam state."""

    def __init__(self, hidden: int, seed: int = 1) -> None:
        rng = np.random.default_rng(seed)
        self.params = {
            "w1": rng.normal(0.0, 0.05, (nnue.N_FEATURES, hidden)).astype(np.float32),
            "b1": np.full(hidden, 0.25, dtype=np.float32),
            "w2": rng.normal(0.0, 0.3, 2 * hidden).astype(np.float32),
            "b2": np.zeros(1, dtype=np.float32),
        }
        self.m = {k: np.zeros_like(v) for k, v in self.params.items()}
        self.v = {k: np.zeros_like(v) for k, v in self.params.items()}
        self.steps = 0

    @property
    def hidden(self) -> int:
        return int(self.params["b1"].shape[0])

    def forward(self, x_us: np.ndarray, x_them: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        p = self.params
        h = self.hidden
        a_us = x_us @ p["w1"] + p["b1"]
        a_them = x_them @ p["w1"] + p["b1"]
        c_us = np.clip(a_us, 0.0, 1.0)
        c_them = np.clip(a_them, 0.0, 1.0)
        out = (c_us * c_us) @ p["w2"][:h] + (c_them * c_them) @ p["w2"][h:] + p["b2"][0]
        return out, (a_us, a_them, c_us, c_them)

    def step(self, x_us: np.ndarray, x_them: np.ndarray, target: np.ndarray, lr: float,
             offset: Optional[np.ndarray] = None) -> float:
        """One Adam step on a batch; the batch's loss before the step. ``offset``: added to the net's output
        (the hand-made evaluation over SCALE, for a net trained on the difference)."""
        p = self.params
        h = self.hidden
        out, (a_us, a_them, c_us, c_them) = self.forward(x_us, x_them)
        if offset is not None:
            out = out + offset
        pred = sigmoid(out)
        diff = pred - target
        loss = float(np.mean(diff * diff))
        d_out = (2.0 / len(target)) * diff * pred * (1.0 - pred)
        grads = {
            "w2": np.concatenate([(c_us * c_us).T @ d_out, (c_them * c_them).T @ d_out]),
            "b2": np.array([d_out.sum()], dtype=np.float32),
        }
        d_us = np.outer(d_out, p["w2"][:h]) * 2.0 * c_us * ((a_us > 0) & (a_us < 1))
        d_them = np.outer(d_out, p["w2"][h:]) * 2.0 * c_them * ((a_them > 0) & (a_them < 1))
        grads["w1"] = x_us.T @ d_us + x_them.T @ d_them
        grads["b1"] = d_us.sum(axis=0) + d_them.sum(axis=0)
        self.steps += 1
        b1, b2, eps = 0.9, 0.999, 1e-8
        for key, g in grads.items():
            g = g.astype(np.float32)
            self.m[key] = b1 * self.m[key] + (1 - b1) * g
            self.v[key] = b2 * self.v[key] + (1 - b2) * g * g
            m_hat = self.m[key] / (1 - b1 ** self.steps)
            v_hat = self.v[key] / (1 - b2 ** self.steps)
            p[key] -= (lr * m_hat / (np.sqrt(v_hat) + eps)).astype(np.float32)
        # Keep the weights inside what the quantized net can hold (int16 after x QA and x QB).
        np.clip(p["w1"], -127.0, 127.0, out=p["w1"])
        np.clip(p["w2"], -31.0, 31.0, out=p["w2"])
        return loss

    def save(self, path: Path, epoch: int, history: list[tuple[float, float]]) -> None:
        arrays: dict[str, Any] = {f"p_{k}": v for k, v in self.params.items()}
        arrays.update({f"m_{k}": v for k, v in self.m.items()})
        arrays.update({f"v_{k}": v for k, v in self.v.items()})
        arrays.update(steps=self.steps, epoch=epoch, history=np.array(history, dtype=np.float64).reshape(-1, 2))
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez(tmp, **arrays)
        tmp.replace(path)

    @classmethod
    def restore(cls, path: Path) -> tuple[FloatNet, int, list[tuple[float, float]]]:
        data = np.load(path)
        net = cls(int(data["p_b1"].shape[0]))
        for key in net.params:
            net.params[key] = data[f"p_{key}"]
            net.m[key] = data[f"m_{key}"]
            net.v[key] = data[f"v_{key}"]
        net.steps = int(data["steps"])
        history = [(float(a), float(b)) for a, b in data["history"]]
        return net, int(data["epoch"]), history


def targets(arrays: dict[str, np.ndarray], lam: float) -> np.ndarray:
    return (lam * sigmoid(arrays["score"] / SCALE) + (1.0 - lam) * arrays["result"]).astype(np.float32)


def split(arrays: dict[str, np.ndarray], every: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Training and validation rows: whole games, every ``every``-th game held out."""
    held = arrays["game"] % every == 0
    return np.flatnonzero(~held), np.flatnonzero(held)


def evaluate_loss(net: FloatNet, arrays: dict[str, np.ndarray], rows: np.ndarray, target: np.ndarray,
                  batch: int = 4096, offset: Optional[np.ndarray] = None) -> float:
    if len(rows) == 0:
        return float("nan")
    total = 0.0
    for start in range(0, len(rows), batch):
        idx = rows[start:start + batch]
        out, _ = net.forward(dense(arrays["us"][idx]), dense(arrays["them"][idx]))
        if offset is not None:
            out = out + offset[idx]
        diff = sigmoid(out) - target[idx]
        total += float(np.sum(diff * diff))
    return total / len(rows)


def train(arrays: dict[str, np.ndarray], checkpoint: Path, hidden: int = 128, epochs: int = 20,
          batch: int = 1024, lr: float = 1e-3, lam: float = 0.75, seed: int = 1,
          minutes: Optional[float] = None, init: Optional[Path] = None,
          hand_made: Optional[np.ndarray] = None) -> tuple[FloatNet, list[tuple[float, float]]]:
    """Train (or continue training from ``checkpoint``) to ``epochs`` epochs; the net and the (training,
    validation) loss of every epoch. The learning rate falls by a cosine to a tenth over the epochs. ``init``:
    start from the weights of another run's checkpoint (a net trained on other data), with a fresh optimizer.
    ``hand_made``: the hand-made evaluation of every position (side to move's centipawns): the net learns the
    difference from it (its output is added to it; a new net's output layer starts at zero)."""
    if checkpoint.exists():
        net, done, history = FloatNet.restore(checkpoint)
    elif init is not None:
        initial, _, _ = FloatNet.restore(init)
        net, done, history = FloatNet(initial.hidden, seed), 0, []
        net.params = initial.params
    else:
        net, done, history = FloatNet(hidden, seed), 0, []
        if hand_made is not None:
            net.params["w2"][:] = 0.0
    offset = None if hand_made is None else (hand_made / SCALE).astype(np.float32)
    target = targets(arrays, lam)
    train_rows, valid_rows = split(arrays)
    deadline = time.time() + minutes * 60 if minutes else float("inf")
    for epoch in range(done, epochs):
        if time.time() >= deadline:
            break
        rate = lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * epoch / max(epochs, 1))))
        order = np.random.default_rng(seed * 7919 + epoch).permutation(train_rows)
        bar = Progress(f"epoch {epoch + 1}/{epochs}", len(order), "positions")
        total = 0.0
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            total += net.step(dense(arrays["us"][idx]), dense(arrays["them"][idx]), target[idx], rate,
                              None if offset is None else offset[idx]) * len(idx)
            bar.update(len(idx), f"loss {total / (start + len(idx)):.5f}")
        bar.close()
        history.append((total / max(len(order), 1), evaluate_loss(net, arrays, valid_rows, target, offset=offset)))
        print(f"epoch {epoch + 1}: training loss {history[-1][0]:.5f}, validation loss {history[-1][1]:.5f}",
              flush=True)
        net.save(checkpoint, epoch + 1, history)
    return net, history


def quantize(net: FloatNet, version: int = nnue.VERSION) -> bytes:
    """The net file of the float net (engine.nnue's format; ``nnue.VERSION_ADDED`` for a net trained on the
    difference from the hand-made evaluation)."""
    p = net.params
    w1 = np.clip(np.rint(p["w1"] * nnue.QA), -32767, 32767).astype(np.int64)
    b1 = np.clip(np.rint(p["b1"] * nnue.QA), -32767, 32767).astype(np.int64)
    w2 = np.clip(np.rint(p["w2"] * nnue.QB), -32767, 32767).astype(np.int64)
    b2 = int(np.rint(p["b2"][0] * nnue.QA * nnue.QB))
    return nnue.serialize(net.hidden, w1.ravel().tolist(), b1.tolist(), w2.tolist(), b2, version)


def float_centipawns(net: FloatNet, us: np.ndarray, them: np.ndarray) -> np.ndarray:
    out, _ = net.forward(dense(us), dense(them))
    return out * SCALE


def check(net: FloatNet, net_file: Path, data: Path, count: int = 200, variant: str = "seirawan",
          tolerance_cp: float = 20.0) -> tuple[float, float]:
    """Load ``net_file`` in the engine and evaluate ``count`` positions of ``data`` with it and with the float
    net: (mean, max) absolute difference in centipawns. Raises AssertionError when the mean passes
    ``tolerance_cp`` (quantization costs a few centipawns; a wrong export or feature order costs hundreds)."""
    nnue.load(str(net_file))
    diffs = []
    for board in boards(data, variant, count):
        engine_cp = nnue.evaluate_from_scratch(board)
        squares = list(board.squares)
        us = np.full((1, MAX_ACTIVE), PAD, dtype=np.int16)
        them = np.full((1, MAX_ACTIVE), PAD, dtype=np.int16)
        own = nnue.features(squares, board.hand, board.gates, board.side)
        other = nnue.features(squares, board.hand, board.gates, -board.side)
        us[0, :len(own)] = own
        them[0, :len(other)] = other
        expected = float(np.clip(float_centipawns(net, us, them)[0], -nnue.EVAL_LIMIT, nnue.EVAL_LIMIT))
        diffs.append(abs(engine_cp - expected))
    mean = float(np.mean(diffs)) if diffs else 0.0
    worst = float(np.max(diffs)) if diffs else 0.0
    assert mean <= tolerance_cp, f"the engine's evaluation differs from the trained net by {mean:.1f} cp on average"
    return mean, worst


def hand_made_scores(path: Path, variant: str = "seirawan") -> np.ndarray:
    """The hand-made evaluation of every position of a data file (side to move's centipawns), cached in
    ``DATA.handmade.npy`` while the file has not changed length."""
    from engine.evaluate import evaluate_position

    cache = path.with_name(path.name + ".handmade.npy")
    count = len(dataset.read(path).records) if dataset.is_dataset(path) else len(read_positions(path))
    if cache.exists():
        scores: np.ndarray = np.load(cache)
        if len(scores) == count:
            return scores
    bar = Progress("hand-made", count, "positions")
    out = np.zeros(count, dtype=np.float32)
    for i, board in enumerate(boards(path, variant)):
        out[i] = evaluate_position(board)
        bar.update()
    bar.close()
    np.save(cache, out)
    return out


def hand_made_loss(data: Path, arrays: dict[str, np.ndarray], lam: float, variant: str = "seirawan") -> float:
    """The validation loss of the hand-made evaluation (engine.evaluate) on the same labels: the baseline the
    net's validation loss is read against."""
    from engine.evaluate import evaluate_position

    _, valid_rows = split(arrays)
    if dataset.is_dataset(data):
        records = dataset.read(data).records

        def board_at(row: int) -> Board:
            return dataset.record_board(records[row].tobytes())
    else:
        positions = read_positions(data)

        def board_at(row: int) -> Board:
            return Board(positions[row][0], variant=variant)
    target = targets(arrays, lam)
    total = 0.0
    for row in valid_rows:
        board = board_at(row)
        diff = sigmoid(np.array(evaluate_position(board) / SCALE)) - target[row]
        total += float(diff * diff)
    return total / max(len(valid_rows), 1)
