"""The S-House drop-term fit (tools/tune/drops.py, ``python -m tools.tune drops``): its counts are the
engine's, and a fit moves the settings toward what the labels say."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from engine import Board
from engine import evaluate as ev
from tools.tune import drops
from tools.tune.__main__ import main


def shouse_positions(count: int, seed: int = 7) -> list[str]:
    """FENs of random S-House games that favour captures (full hands, open kings), from the 6th ply on."""
    rng = random.Random(seed)
    fens: list[str] = []
    while len(fens) < count:
        board = Board(variant="shouse")
        for ply in range(60):
            moves = list(board.legal_moves)
            if not moves or board.outcome() is not None:
                break
            captures = [m for m in moves if board.squares[m.to_square]]
            board.push(rng.choice(captures if captures and rng.random() < 0.7 else moves))
            if ply >= 5 and not board.is_check() and rng.random() < 0.3:
                fens.append(board.fen())
    return fens[:count]


def write_data(path: Path, fens: list[str], scores: list[int], results: list[float]) -> None:
    path.write_text("".join(f"{fen};{score};{result};{i}\n" for i, (fen, score, result)
                            in enumerate(zip(fens, scores, results, strict=True))), encoding="utf-8")


@pytest.fixture(scope="module")
def fens() -> list[str]:
    return shouse_positions(240)


def test_the_counts_and_the_current_settings_give_the_engines_evaluation(fens: list[str], tmp_path: Path) -> None:
    path = tmp_path / "shouse.txt"
    write_data(path, fens, [0] * len(fens), [0.5] * len(fens))
    data = drops.features([path])
    assert data["hand"].any() and data["white"][:, 0].any(), "the positions have pieces in hand and attacked kings"
    engine = np.array([ev.evaluate_position(Board(fen, variant="shouse")) * (1 if fen.split()[1] == "w" else -1)
                       for fen in fens])
    # The engine rounds each king's danger down to whole centipawns: at most 1 cp apart on each.
    assert np.abs(drops.evaluation(data, drops.current_params()) - engine).max() <= 2
    settings = drops.as_settings(drops.current_params(), ev.KD_DIVISOR)
    assert settings["KD_ATTACK"] == ev.KD_ATTACK and settings["DROP_HAND_VALUE[2]"] == ev.DROP_HAND_VALUE[2]
    assert settings["DROP_BOARD_VALUE[1]"] == ev.DROP_BOARD_VALUE[1] and settings["DROP_TEMPO"] == ev.DROP_TEMPO
    assert np.allclose(drops.from_settings(settings), drops.current_params())


def test_a_fit_moves_the_settings_toward_the_labels(fens: list[str], tmp_path: Path) -> None:
    """Labels made by settings with twice the king danger's weights and cheaper knights in hand: the fit,
    from the engine's settings, lowers the loss and moves both the right way."""
    path = tmp_path / "shouse.txt"
    write_data(path, fens, [0] * len(fens), [0.5] * len(fens))
    data = drops.features([path])
    start = drops.current_params()
    truth = start.copy()
    n_lin = drops.N_LINEAR
    truth[n_lin:n_lin + len(drops.KD)] *= 2
    knight = drops.HAND_TYPES.index(2)
    truth[knight] -= 150
    k = 400.0
    y = drops.sigmoid(drops.evaluation(data, truth), k)
    fitted = drops.fit(data, y, start, k, steps=600)
    assert drops.loss(data, y, fitted, k) < 0.5 * drops.loss(data, y, start, k)
    attack = n_lin + drops.KD.index("KD_ATTACK")
    assert fitted[attack] > start[attack] and fitted[knight] < start[knight]


def test_the_command_prints_the_settings_before_and_after(fens: list[str], tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "shouse.txt"
    rng = random.Random(3)
    scores = [rng.randint(-600, 600) for _ in fens]
    write_data(path, fens, scores, [1.0 if s > 0 else 0.0 for s in scores])
    assert main(["drops", str(path), "--steps", "50", "--divisor", "40"]) == 0
    out = capsys.readouterr().out
    assert f"{len(fens)} positions ({len(fens) - len(fens) // 10} to fit" in out
    assert f"KD_DIVISOR: {ev.KD_DIVISOR} -> 40" in out and f"KD_ATTACK: {ev.KD_ATTACK} -> " in out


def test_too_few_positions_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "shouse.txt"
    write_data(path, shouse_positions(5), [0] * 5, [0.5] * 5)
    with pytest.raises(SystemExit, match="only 5 positions"):
        main(["drops", str(path)])
