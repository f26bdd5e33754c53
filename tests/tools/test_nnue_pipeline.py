"""The training pipeline of the learned evaluation end to end on a handful of positions: self-play data
(resumable), training (resumable), export, the check against the engine, and a search with the new net."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Board, nnue
from engine.search import Searcher, SearchLimits
from tools.nnue.__main__ import main
from tools.nnue.generate import games_done, read_openings
from tools.nnue.train import FloatNet, featurize

OPENINGS = Path(__file__).resolve().parents[2] / "engine" / "data" / "seirawan.epd"


def test_generate_train_export_and_load_a_tiny_net(tmp_path: Path) -> None:
    data = tmp_path / "selfplay.txt"
    assert main(["generate", "--out", str(data), "--games", "1", "--nodes", "300", "--openings", str(OPENINGS),
                 "--seed", "3"]) == 0
    assert games_done(data) == 1
    assert main(["generate", "--out", str(data), "--games", "3", "--nodes", "300", "--openings", str(OPENINGS),
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

    info = nnue.load(str(net_file))
    assert info.hidden == 8
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
