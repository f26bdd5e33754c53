"""The Texel tuning tool (tools/tune): PGN reading, quiet-position filter, and one fitting pass."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from engine import Board
from engine import eval_weights as W
from engine import evaluate as ev
from engine.tables import ELEPHANT, HAWK, KNIGHT, PAWN, QUEEN, ROOK
from tools.tune import data, linear, selfplay
from tools.tune.__main__ import main
from tools.tune.data import RESULTS, quiet_positions, read_games, read_samples, write_samples

PGN = """[Event "Engine match"]
[White "a"]
[Black "b"]
[Result "1-0"]
[Variant "Seirawan"]

1. e4 {+0.20/5 0.1s} e5 {-0.20/5 0.1s} 2. Nf3/H {+0.30/5 0.1s} Nc6 3. Bc4 Nf6 4. Ng5 d5 5. exd5 Nxd5
6. Nxf7 Kxf7 7. Qf3+ Ke6 8. Nc3 Nb4 9. Qe4 c6 10. a3 Na6 11. d4 Nc7 12. Bf4 Kf7 13. Bxe5 1-0

[Event "Engine match"]
[White "b"]
[Black "a"]
[Result "1/2-1/2"]
[FEN "rnbqkbnr/pppp1ppp/4p3/8/8/1P6/PBPPPPPP/RNEQKBNR[Heh] b KQBDFGkqbcdfg - 0 1"]
[Variant "Seirawan"]

1... Ne7 2. Nf3 Nbc6 3. Nc3 d5 4. d4 f5 5. e3 Kf7 6. Bd3 Kg8 7. O-O a5 8. a3 b6 1/2-1/2
"""


def test_extract_and_round_trip(tmp_path: Path) -> None:
    games = list(read_games(_pgn(tmp_path)))
    assert [g.tags["Result"] for g in games] == ["1-0", "1/2-1/2"]
    assert games[0].moves[:3] == ["e4", "e5", "Nf3/H"]
    samples = [s for g in games for s in quiet_positions(g, skip_plies=4)]
    assert samples and {s.result for s in samples} == {1.0, 0.5}
    out = tmp_path / "positions.txt"
    write_samples(samples, out)
    assert [(s.fen, s.result) for s in read_samples(out)] == [(s.fen, s.result) for s in samples]


def _selfplay_file(tmp_path: Path) -> Path:
    """Positions in the selfplay format (fen;variant;result;score;best move)."""
    rows = []
    for game in read_games(_pgn(tmp_path)):
        board = Board(game.tags.get("FEN"), variant="seirawan")
        for san in game.moves:
            move = board.parse_san(san)
            rows.append(f"{board.fen()};seirawan;{RESULTS[game.tags['Result']]};{len(rows) * 3};{move.uci()}")
            board.push(move)
    path = tmp_path / "selfplay.txt"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _pgn(tmp_path: Path) -> Path:
    pgn = tmp_path / "games.pgn"
    pgn.write_text(PGN, encoding="utf-8")
    return pgn


def test_features_times_weights_is_the_evaluation(tmp_path: Path) -> None:
    weights = linear.current_weights()
    boards = [Board(fen, variant=variant) for fen, variant, *_ in linear.read_rows(_selfplay_file(tmp_path))]
    boards.append(Board("r3k2r/ppp2ppp/8/8/8/8/PPP2PPP/R3K2R[HEhe] w KQBCDFGkqbcdfg - 0 1"))
    for board in boards:
        x = linear.features(board)
        white_view = ev.evaluate_position(board) * (1 if board.side == 1 else -1)
        assert abs(float(x @ weights) - white_view) < 1.0, board.fen()


def _use_activity_weights(monkeypatch: pytest.MonkeyPatch, mg: tuple[int, ...], eg: tuple[int, ...]) -> None:
    """Evaluate with these activity weights (the pure build's module globals, as evaluate derives them)."""
    for name, value in (("ACTIVITY_MG", mg), ("ACTIVITY_EG", eg), ("_W_MG", list(mg)), ("_W_EG", list(eg)),
                        ("_ATTACK_ON", True), ("_PASSED_ON", True), ("_PAWN_THREAT_ON", True),
                        ("_PIECE_THREAT_ON", True), ("_FILES_ON", True), ("_WALK_ON", True),
                        ("_POSITIONAL_ON", True)):
        monkeypatch.setattr(ev, name, value)


def test_features_times_weights_is_the_evaluation_with_activity_terms(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    mg = tuple(int(v) for v in rng.integers(-20, 20, ev.N_ACTIVITY))
    eg = tuple(int(v) for v in rng.integers(-20, 20, ev.N_ACTIVITY))
    _use_activity_weights(monkeypatch, mg, eg)
    weights = linear.current_weights()
    boards = [Board(fen, variant=variant) for fen, variant, *_ in linear.read_rows(_selfplay_file(tmp_path))]
    boards.append(Board("4k3/1p6/8/2P5/8/8/6p1/E3K1H1[] b - - 0 1"))
    for board in boards:
        white_view = ev.evaluate_position(board) * (1 if board.side == 1 else -1)
        assert abs(float(linear.features(board) @ weights) - white_view) < 1.0, board.fen()


def test_positional_walk_equals_the_weighted_activity_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    # evaluate's own walk (the flat tables, every term weighted as it goes) against activity()'s counts times
    # the same weights, on positions of random games with pieces of every type, gated ones included.
    rng = np.random.default_rng(9)
    mg = tuple(int(v) for v in rng.integers(-20, 20, ev.N_ACTIVITY))
    eg = tuple(int(v) for v in rng.integers(-20, 20, ev.N_ACTIVITY))
    _use_activity_weights(monkeypatch, mg, eg)
    moves = random.Random(3)
    checked = 0
    seen = np.zeros(ev.N_ACTIVITY, dtype=bool)
    for _ in range(12):
        board = Board()
        for _ply in range(60):
            legal = board.generate_legal()
            if not legal:
                break
            board.make(moves.choice(legal))
            counts = ev.activity(board)
            seen |= np.array(counts) != 0
            want_mg = sum(w * c for w, c in zip(mg, counts, strict=False))
            want_eg = sum(w * c for w, c in zip(eg, counts, strict=False))
            assert ev.positional(board) == (want_mg, want_eg), board.fen()
            checked += 1
    assert checked > 300
    # Every block of the layout was exercised.
    for start in (ev.MOBILITY, ev.KING_ATTACK, ev.PASSED, ev.PAWN_THREAT, ev.PIECE_THREAT, ev.OPEN_FILE,
                  ev.HALF_OPEN_FILE):
        assert seen[start:start + 8].any(), start


def test_activity_counts_mobility_king_attack_and_passed_pawns() -> None:
    # White: Elephant a1 (rook + knight moves), Hawk g1 (bishop + knight moves), pawn c5; black: pawns b7, g2.
    counts = ev.activity(Board("4k3/1p6/8/2P5/8/8/6p1/E3K1H1[] w - - 0 1"))
    elephant_moves = 7 + 3 + 2  # a2..a8, b1..d1 (stops at the own king), b3 and c2
    hawk_moves = 1 + 3 + 3  # h2; f2, e3, d4 (the own pawn on c5 stops the diagonal); e2, f3, h3
    assert counts[ev.MOBILITY + ELEPHANT] == elephant_moves
    assert counts[ev.MOBILITY + HAWK] == hawk_moves
    assert counts[ev.KING_ATTACK + HAWK] == counts[ev.KING_ATTACK + ELEPHANT] == 0  # nothing near e8
    # c5 is not passed (b7 is ahead on the next file); g2 is passed, on black's rank 7 (index 6).
    assert counts[ev.PASSED + 4] == 0 and counts[ev.PASSED + 6] == -1
    # A black rook on e3 attacks e2 and the king on e1 (its zone: the king's square and its neighbours),
    # and moves to e2, e1 (the capture), e4-e7 (the own king on e8 stops it), a3-d3 and f3-h3.
    counts = ev.activity(Board("4k3/8/8/8/8/4r3/8/4K3[] w - - 0 1"))
    assert counts[ev.KING_ATTACK + ROOK] == -2
    assert counts[ev.MOBILITY + ROOK] == -(2 + 4 + 4 + 3)
    # A white Hawk on d5 attacks f7 (bishop line) and e7, c7? (knight leaps): e7 and f7 are in e8's zone.
    counts = ev.activity(Board("4k3/8/8/3H4/8/8/8/4K3[] w - - 0 1"))
    assert counts[ev.KING_ATTACK + HAWK] == 2


def test_activity_counts_threats_and_open_files() -> None:
    # White pawn d4 attacks the black knight on e5 and the black pawn on c5 (pawns are not counted); the white
    # rook on a1 attacks the black Elephant on a7 (a lesser piece on a greater one) and stands on an open
    # file; the black Elephant attacks the rook (not lesser: no threat) and stands on the a-file too; the
    # black queen on h5 is attacked by nothing; the black rook on e8 stands on a half-open file (a white
    # pawn on e2, no black pawn on e).
    counts = ev.activity(Board("4r1k1/e7/8/2p1n2q/3P4/8/4P3/R5K1[] w - - 0 1"))
    assert counts[ev.PAWN_THREAT + KNIGHT] == 1
    assert counts[ev.PAWN_THREAT + PAWN] == 0
    assert counts[ev.PIECE_THREAT + ELEPHANT] == 1
    assert counts[ev.PIECE_THREAT + ROOK] == 0
    assert counts[ev.PIECE_THREAT + QUEEN] == 0
    assert counts[ev.OPEN_FILE + ROOK] == 1 and counts[ev.OPEN_FILE + ELEPHANT] == -1
    assert counts[ev.HALF_OPEN_FILE + ROOK] == -1
    # A black knight on b3 attacks the rook on a1: a lesser piece on a rook.
    counts = ev.activity(Board("6k1/8/8/8/8/1n6/8/R5K1[] w - - 0 1"))
    assert counts[ev.PIECE_THREAT + ROOK] == -1


def test_fit_without_a_term_leaves_its_weights_at_zero(tmp_path: Path) -> None:
    out = tmp_path / "weights.py"
    assert main(["fit", str(_selfplay_file(tmp_path)), "--steps", "20", "--terms", "mobility",
                 "--write", str(out)]) == 0
    namespace: dict[str, object] = {}
    exec(out.read_text(encoding="utf-8"), namespace)
    mg = namespace["ACTIVITY_MG"]
    assert isinstance(mg, tuple) and len(mg) == ev.N_ACTIVITY
    assert any(mg[ev.MOBILITY:ev.KING_ATTACK]) and not any(mg[ev.KING_ATTACK:])


def test_quiet_filter_drops_checks_and_captures(tmp_path: Path) -> None:
    path = _selfplay_file(tmp_path)
    x, results, scores = linear.quiet_features(path)
    rows = list(linear.read_rows(path))
    assert 0 < len(results) < len(rows)
    # Every row has its own score, so the kept scores name the kept rows.
    quiet = set()
    for fen, _, _, score, best in rows:
        board = Board(fen, variant="seirawan")
        san = board.san(board.parse_uci(best))
        if not board.is_check() and "x" not in san and "=" not in san:
            quiet.add(score)
    assert {int(s) for s in scores} == quiet
    assert len(x) == len(results) == len(quiet)

def test_fit_raises_the_queen_when_the_side_with_it_wins() -> None:
    fen = "4k3/8/8/8/8/8/8/3QK3[] w - - 0 1"
    board = Board(fen)
    x = np.array([linear.features(board)] * 20)
    y = np.full(20, 1.0)  # always won: a queen is worth more than the current evaluation says
    w0 = linear.current_weights()
    queen_eg = linear.PST + 4 * 64 + 3  # queen on d1, endgame table
    w = linear.fit(x, y, w0, k=0.3, l2=0.0, steps=200, rate=5.0, log_every=0)
    # The queen's table value and its mobility share the gain.
    assert x[0] @ w > x[0] @ w0 + 100
    assert w[queen_eg] > w0[queen_eg] + 50
    assert linear.loss(x, y, w, 0.3) < linear.loss(x, y, w0, 0.3)
    untouched = linear.PST + 1 * 64 + 1  # a knight on b1 is not in the position
    assert w[untouched] == w0[untouched]


def test_written_module_reproduces_the_weights(tmp_path: Path) -> None:
    weights = linear.current_weights()
    out = tmp_path / "weights.py"
    linear.write_module(weights, out, "test")
    namespace: dict[str, object] = {}
    exec(out.read_text(encoding="utf-8"), namespace)
    assert namespace["PST_MG"] == W.PST_MG and namespace["PST_EG"] == W.PST_EG
    assert namespace["HAND_VALUE"] == W.HAND_VALUE
    assert namespace["GATE_SHORTAGE_PENALTY"] == W.GATE_SHORTAGE_PENALTY
    assert namespace["ACTIVITY_MG"] == W.ACTIVITY_MG and namespace["ACTIVITY_EG"] == W.ACTIVITY_EG
    for name in ("TEMPO", "SHIELD_NEAR", "SHIELD_FAR", "OPEN_KING_FILE", "CENTRAL_KING"):
        assert namespace[name] == getattr(W, name), name


FAIRY = "/usr/games/fairy-stockfish"


@pytest.mark.skipif(shutil.which(FAIRY) is None, reason="Fairy-Stockfish not installed (CI installs it)")
def test_selfplay_labels_positions_from_whites_view_with_the_result() -> None:
    # White has an extra queen: Fairy-Stockfish wins it, and every score is from white's point of view.
    fsf = selfplay.Fsf(FAIRY, nodes=300)
    try:
        lines = selfplay.play_game(fsf, "seirawan", "4k3/8/8/8/8/8/3P4/3QK3[] b - - 0 1")
    finally:
        fsf.close()
    rows = [line.split(";") for line in lines]
    assert rows and all(row[1] == "seirawan" and row[2] == "1.0" for row in rows)
    assert rows[0][0].split()[1] == "b"
    assert all(int(row[3]) > 300 for row in rows)
    board = Board(rows[0][0])
    for row in rows:
        assert Board(row[0]).fen() == board.fen()
        board.push_uci(row[4])  # each row's best move is the move played next


@pytest.mark.skipif(shutil.which(FAIRY) is None, reason="Fairy-Stockfish not installed (CI installs it)")
def test_label_scores_each_position_from_whites_view_in_its_variant() -> None:
    # White is a queen up in every position, whoever is to move and in either variant.
    samples = [data.Sample("4k3/8/8/8/8/8/3P4/3QK3[] w - - 0 1", "seirawan", 1.0),
               data.Sample("4k3/8/8/8/8/8/3P4/3QK3[] b - - 0 1", "seirawan", 1.0),
               data.Sample("4k3/8/8/8/8/8/3P4/3QK3 b - - 0 1", "chess", 1.0)]
    data.label_with_engine(samples, FAIRY, depth=4)
    assert all(sample.score is not None and sample.score > 500 for sample in samples), samples


@pytest.mark.skipif(shutil.which(FAIRY) is None, reason="Fairy-Stockfish not installed (CI installs it)")
def test_selfplay_command_writes_labelled_positions(tmp_path: Path) -> None:
    out = tmp_path / "fsf.txt"
    assert main(["selfplay", "--out", str(out), "--games", "1", "--workers", "1", "--nodes", "200",
                 "--chess-share", "0", "--seed", "3"]) == 0
    rows = list(linear.read_rows(out))
    assert rows and {variant for _, variant, *_ in rows} == {"seirawan"}
    assert len({result for _, _, result, _, _ in rows}) == 1


@pytest.mark.skipif(shutil.which(FAIRY) is None, reason="Fairy-Stockfish not installed (CI installs it)")
def test_selfplay_starts_no_game_after_its_minutes(tmp_path: Path) -> None:
    # With no time left no game starts: the output exists, empty, and the workers' part files are gone.
    out = tmp_path / "fsf.txt"
    assert main(["selfplay", "--out", str(out), "--games", "50", "--workers", "1", "--nodes", "200",
                 "--minutes", "0"]) == 0
    assert out.read_text(encoding="utf-8") == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fsf.txt"]


def test_fit_with_free_weights_moves_only_those() -> None:
    board = Board("4k3/8/8/8/8/8/8/3QK3[] w - - 0 1")
    x = np.array([linear.features(board)] * 20)
    w0 = linear.current_weights()
    free = linear.term_columns(["mobility"])
    w = linear.fit(x, np.full(20, 1.0), w0, k=0.3, l2=0.0, steps=100, rate=5.0, log_every=0, free=free)
    moved = np.flatnonzero(w != w0)
    assert len(moved) and set(moved) <= set(free.tolist())
    queen_mobility_mg = linear.ACTIVITY_I + ev.MOBILITY + 5
    assert queen_mobility_mg in moved
