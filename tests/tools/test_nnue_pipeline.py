"""The training pipeline of the learned evaluation end to end on a handful of positions: self-play data
(resumable), training (resumable), export, the check against the engine, and a search with the new net."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine import Board, nnue
from engine.evaluate import evaluate_position
from engine.search import Searcher, SearchLimits
from tools.nnue.__main__ import main
from tools.nnue.generate import games_done, read_openings
from tools.nnue.train import FloatNet, featurize

OPENINGS = Path(__file__).resolve().parents[2] / "engine" / "data" / "seirawan.epd"


def test_generate_train_export_and_load_a_tiny_net(tmp_path: Path) -> None:
    data = tmp_path / "selfplay.txt"
    assert main(["generate", "--out", str(data), "--games", "1", "--nodes", "100", "--openings", str(OPENINGS),
                 "--seed", "3"]) == 0
    assert games_done(data) == 1
    assert main(["generate", "--out", str(data), "--games", "3", "--nodes", "100", "--openings", str(OPENINGS),
                 "--seed", "3"]) == 0  # resumes after game 0
    assert games_done(data) == 3
    games = {line.rsplit(";", 1)[1] for line in data.read_text().splitlines()}
    assert games == {"0", "1", "2"}
    arrays = featurize(data)
    assert len(arrays["score"]) > 0 and arrays["us"].shape == arrays["them"].shape

    walks = tmp_path / "walks.txt"
    assert main(["expand", str(data), "--out", str(walks), "--per-position", "1"]) == 0
    walk_games = {line.rsplit(";", 1)[1] for line in walks.read_text().splitlines()}
    assert walk_games and walk_games <= games  # a walk keeps its game's number (the validation split)

    net_file = tmp_path / "tiny.nnue"
    args = ["train", str(walks), str(data), "--out", str(net_file), "--hidden", "8", "--epochs", "1", "--batch",
            "64"]
    assert main(args) == 0
    assert main(args[:-4] + ["--epochs", "2", "--batch", "64"]) == 0  # one more epoch from the checkpoint
    _, epoch, history = FloatNet.restore(net_file.with_name(net_file.name + ".ckpt.npz"))
    assert epoch == 2 and len(history) == 2

    added = tmp_path / "added.nnue"  # a net trained on the difference from the hand-made evaluation
    assert main(["train", str(data), "--out", str(added), "--hidden", "8", "--epochs", "1", "--batch", "64",
                 "--residual"]) == 0
    nnue.load(str(added))
    assert nnue.loaded_adds_hand_made()

    info = nnue.load(str(net_file))
    assert info.hidden == 8 and not nnue.loaded_adds_hand_made()
    board = Board(read_openings(OPENINGS)[0])
    searcher = Searcher(1)
    searcher.use_net(True)
    result = searcher.search(board, SearchLimits(depth=2))
    assert result.best in board.legal_moves_codes()


FAIRY_STOCKFISH = "/usr/games/fairy-stockfish"


@pytest.mark.skipif(not Path(FAIRY_STOCKFISH).exists(), reason="Fairy-Stockfish is not installed")
def test_label_scores_positions_again_with_another_engine(tmp_path: Path) -> None:
    source = tmp_path / "selfplay.txt"
    fens = read_openings(OPENINGS)[:3]
    source.write_text("".join(f"{fen};0;0.5;{game}\n" for game, fen in enumerate(fens)))
    out = tmp_path / "labelled.txt"
    assert main(["label", str(source), "--out", str(out), "--engine", FAIRY_STOCKFISH, "--nodes", "500"]) == 0
    rows = [line.split(";") for line in out.read_text().splitlines()]
    assert [row[0] for row in rows] == fens and [row[3] for row in rows] == ["0", "1", "2"]
    assert all(row[2] == "0.5" for row in rows) and any(row[1] != "0" for row in rows)


@pytest.mark.skipif(not Path(FAIRY_STOCKFISH).exists(), reason="Fairy-Stockfish is not installed")
def test_fsfplay_writes_quiet_positions_of_another_engines_games_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "fsf.txt"
    args = ["fsfplay", "--out", str(out), "--nodes", "300", "--openings", str(OPENINGS), "--seed", "5",
            "--engine", FAIRY_STOCKFISH]
    assert main(args + ["--games", "1"]) == 0
    assert games_done(out) == 1
    assert main(args + ["--games", "2"]) == 0  # resumes after game 0
    assert games_done(out) == 2
    rows = [line.split(";") for line in out.read_text().splitlines() if not line.startswith(";")]
    assert rows and {row[3] for row in rows} <= {"0", "1"}
    for fen, score, result, _ in rows:
        board = Board(fen)
        assert not board.in_check() and abs(int(score)) < 100_000 and result in ("0.0", "0.5", "1.0")
    assert len(featurize(out)["score"]) == len(rows)  # the trainer reads the file as it reads generate's
    assert main(["fitk", str(out)]) == 0  # its scale beside the hand-made evaluation's on the same positions


def test_fsfplay_plays_s_house_games_when_asked(tmp_path: Path) -> None:
    """``--variant shouse``: Fairy-Stockfish plays S-House (captured pieces go to hand) from the S-chess
    openings; the positions read back as S-House and ``fitk`` reads them in it."""
    out = tmp_path / "shouse.txt"
    assert main(["fsfplay", "--out", str(out), "--nodes", "300", "--openings", str(OPENINGS), "--seed", "5",
                 "--engine", FAIRY_STOCKFISH, "--games", "2", "--variant", "shouse"]) == 0
    rows = [line.split(";") for line in out.read_text().splitlines() if not line.startswith(";")]
    assert rows
    boards = [Board(fen, variant="shouse") for fen, *_ in rows]
    assert all(not board.in_check() for board in boards)
    # A capture put a piece other than a Hawk or an Elephant in a hand: only S-House does that.
    assert any(board.hand[t] or board.hand[-t] for board in boards for t in (1, 2, 3, 4, 5))
    assert main(["fitk", str(out), "--variant", "shouse"]) == 0
    # A net for S-House learns the difference from S-House's hand-made evaluation (its drop terms).
    net_file = tmp_path / "shouse.nnue"
    assert main(["train", str(out), "--variant", "shouse", "--residual", "--out", str(net_file), "--hidden", "8",
                 "--epochs", "1", "--batch", "64"]) == 0
    hand_made = np.load(out.with_name(out.name + ".handmade.npy"))
    assert list(hand_made) == [evaluate_position(board) for board in boards]
    assert nnue.load(str(net_file)).hidden == 8


def test_fit_k_finds_the_scale_of_scores_and_rescale_converts_them(tmp_path: Path) -> None:
    import math
    import random

    from tools.nnue.fsfplay import fit_k

    rng = random.Random(1)
    scores = [rng.uniform(-1500, 1500) for _ in range(4000)]
    results = [1.0 if rng.random() < 1 / (1 + math.exp(-s / 300)) else 0.0 for s in scores]
    assert 250 < fit_k(scores, results) < 360
    source = tmp_path / "a.txt"
    source.write_text("8/8/8/8/8/8/8/K6k w - - 0 1;301;0.5;0\n;;;1\n")
    out = tmp_path / "b.txt"
    assert main(["rescale", str(source), "--out", str(out), "--factor", "0.5"]) == 0
    assert out.read_text() == "8/8/8/8/8/8/8/K6k w - - 0 1;150;0.5;0\n;;;1\n"
