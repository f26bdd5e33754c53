"""The learned evaluation (engine.nnue): the accumulator kept by make/unmake equals one built from scratch,
the features describe pieces, hands and gates, net files are read or refused with a clear message, and the
UCI options switch the evaluation and fall back when a net cannot be read."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Optional

import pytest

from engine import Board, nnue
from engine.buildinfo import BuildKind, build_kind
from engine.movecodes import PROMOTION, move_kind, move_piece, move_to
from engine.search import Searcher, SearchLimits
from engine.uci import UciFrontEnd
from tests.engine.test_uci import run_commands


def random_net(path: Path, hidden: int = 16, seed: int = 3) -> Path:
    rng = random.Random(seed)
    w1 = [rng.randint(-60, 60) for _ in range(nnue.N_FEATURES * hidden)]
    b1 = [rng.randint(0, 90) for _ in range(hidden)]
    w2 = [rng.randint(-80, 80) for _ in range(2 * hidden)]
    path.write_bytes(nnue.serialize(hidden, w1, b1, w2, -700))
    return path


@pytest.fixture()
def net(tmp_path: Path) -> Path:
    path = random_net(tmp_path / "random.nnue")
    nnue.load(str(path))
    return path


def fresh_eval(board: Board) -> int:
    kept, board.accumulator = board.accumulator, None
    try:
        return nnue.evaluate_from_scratch(board)
    finally:
        board.accumulator = kept


def test_accumulator_follows_make_and_unmake_as_a_fresh_one_would(net: Path) -> None:
    rng = random.Random(11)
    accumulator = nnue.Accumulator()
    # Every variant's moves: gatings, castling with a gate on either square, drops and captures into the hand
    # (S-House), placements behind a piece and their forfeits (placement S-chess).
    for variant in ("seirawan", "seirawan", "chess", "shouse", "seirawan-placement", "seirawan-forced-entry"):
        board = Board(variant=variant)
        board.accumulator = accumulator
        accumulator.refresh(board)
        made = 0
        for _ in range(90):
            moves = board.legal_moves_codes()
            if not moves:
                break
            gated = [m for m in moves if move_piece(m) and move_kind(m) != PROMOTION]  # gating moves, if any
            board.make(rng.choice(gated if gated and rng.random() < 0.5 else moves))
            made += 1
            assert accumulator.evaluate(board) == fresh_eval(board), board.fen()
            if made and rng.random() < 0.3:
                board.unmake()
                made -= 1
                assert accumulator.evaluate(board) == fresh_eval(board), board.fen()


def _evaluations_of_random_games(seed: int) -> list[int]:
    """The accumulator's evaluation after each move of three random S-chess and S-House games (gatings, drops)."""
    rng = random.Random(seed)
    accumulator = nnue.Accumulator()
    scores = []
    for variant in ("seirawan", "shouse", "seirawan"):
        board = Board(variant=variant)
        board.accumulator = accumulator
        accumulator.refresh(board)
        for _ in range(80):
            moves = board.legal_moves_codes()
            if not moves:
                break
            board.make(rng.choice(moves))
            scores.append(accumulator.evaluate(board))
            if rng.random() < 0.2:
                board.unmake()
                scores.append(accumulator.evaluate(board))
    return scores


def _processor_has_avx2() -> Optional[bool]:
    """Whether the processor has AVX2, from Linux's /proc/cpuinfo; None where that cannot be read."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            return any(line.startswith("flags") and " avx2" in line for line in cpuinfo)
    except OSError:
        return None


@pytest.mark.parametrize("hidden", [0, 20])  # 0: the built-in net (128 wide); 20: not a multiple of a lane
def test_every_kernel_level_gives_the_same_evaluations_and_tree(tmp_path: Path, hidden: int) -> None:
    """The compiled build runs the net's loops with AVX2 where the processor has it, else at the compiler's
    default instruction set (engine/nnue_kernels.h), chosen when the engine starts: both give the same
    evaluations bit for bit and the search the same tree, whatever machine a wheel or image runs on."""
    if build_kind() is not BuildKind.COMPILED:
        pytest.skip("pure-Python build: one level of the net's loops (python)")
    nnue.load(str(random_net(tmp_path / "wide.nnue", hidden)) if hidden else None)
    best = nnue.kernels()
    has_avx2 = _processor_has_avx2()
    if has_avx2 is not None:  # the processor's best, chosen by default
        assert best == ("avx2" if has_avx2 else "portable")
    try:
        found = {}
        for name in ("portable", best):
            assert nnue.select_kernels(name) == name
            board = Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R[EHeh] w KQBCDkqbcdf - 4 4")
            searcher = Searcher(1)
            searcher.use_net(True)
            nodes = searcher.search(board, SearchLimits(depth=5)).nodes
            found[name] = (_evaluations_of_random_games(5), nodes)
        assert found["portable"] == found[best]
        assert len(found[best][0]) > 200
    finally:
        nnue.select_kernels(best)
        nnue.load(None)


def test_the_net_names_its_loops_and_refuses_unknown_ones() -> None:
    """``nnue.kernels()`` says which loops run (bench prints it): plain Python in the pure build, the C loops
    in the compiled one; asking for an unknown set is an error that names it, and asking for more than the build
    or processor has gives the best it has."""
    expected = {BuildKind.PURE: {"python"}, BuildKind.COMPILED: {"portable", "avx2"}}[build_kind()]
    assert nnue.kernels() in expected
    with pytest.raises(ValueError, match="unknown kernels 'sse9': expected one of python, portable, avx2"):
        nnue.select_kernels("sse9")
    best = nnue.kernels()
    assert nnue.select_kernels("avx2") == best
    assert nnue.select_kernels("python") == ("python" if best == "python" else "portable")
    nnue.select_kernels(best)


def test_accumulator_filled_lazily_from_an_older_slot_equals_a_fresh_one(net: Path) -> None:
    # The search evaluates some nodes only: a slot left empty by push is filled from the nearest filled one
    # below it, across several moves, captures, gatings and takebacks.
    rng = random.Random(5)
    accumulator = nnue.Accumulator()
    evaluated = 0
    for variant in ("seirawan", "shouse"):
        board = Board(variant=variant)
        board.accumulator = accumulator
        accumulator.refresh(board)
        made = 0
        for _ in range(150):
            moves = board.legal_moves_codes()
            if not moves:
                break
            board.make(rng.choice(moves))
            made += 1
            if made and rng.random() < 0.35:
                board.unmake()
                made -= 1
            if rng.random() < 0.25:
                assert accumulator.evaluate(board) == fresh_eval(board), board.fen()
                evaluated += 1
    assert evaluated > 40


def test_accumulator_stays_right_past_its_last_slot_and_below_its_first(net: Path) -> None:
    board = Board("n3k3/8/8/8/8/8/8/4K2N w - - 0 1")
    accumulator = nnue.Accumulator()
    board.accumulator = accumulator
    accumulator.refresh(board)
    rng = random.Random(2)
    made = 0
    while made < nnue.STACK_PLIES + 20:  # a line longer than the slots, without captures
        moves = [m for m in board.legal_moves_codes() if not board.squares[move_to(m)]]
        board.make(rng.choice(moves))
        made += 1
    assert accumulator.overflow > 0
    assert accumulator.evaluate(board) == fresh_eval(board)
    for _ in range(made):
        board.unmake()
        assert accumulator.evaluate(board) == fresh_eval(board)
    board.accumulator = None
    board.make(board.legal_moves_codes()[0])
    board.accumulator = accumulator
    accumulator.refresh(board)
    board.unmake()  # a takeback past the position the accumulator started from
    assert accumulator.evaluate(board) == fresh_eval(board)


def test_a_net_whose_sums_could_leave_16_bits_is_refused(tmp_path: Path) -> None:
    # The accumulator's sums are C shorts in the compiled build: a net is loaded only when no position can
    # take a sum past 32767 (then both builds compute the same numbers).
    hidden = 4
    w1 = [200] * (nnue.N_FEATURES * hidden)  # 64 squares + 144 hand and gate features at 200: 41,600
    path = tmp_path / "wide.nnue"
    path.write_bytes(nnue.serialize(hidden, w1, [0] * hidden, [1] * (2 * hidden), 0))
    with pytest.raises(nnue.NetError, match=r"wide.nnue: its first layer can sum to 41600 .*16-bit"):
        nnue.load(str(path))
    w1 = [150] * (nnue.N_FEATURES * hidden)  # 31,200 at most: loads
    path.write_bytes(nnue.serialize(hidden, w1, [0] * hidden, [1] * (2 * hidden), 0))
    assert nnue.load(str(path)).hidden == hidden


@pytest.mark.parametrize("w2_limit", [80, 30000])  # the output layer's sums in 32 bits, and in 64
def test_the_net_computes_its_documented_formula(tmp_path: Path, w2_limit: int) -> None:
    hidden = 16
    rng = random.Random(w2_limit)
    w1 = [rng.randint(-60, 60) for _ in range(nnue.N_FEATURES * hidden)]
    b1 = [rng.randint(0, 90) for _ in range(hidden)]
    w2 = [rng.randint(-w2_limit, w2_limit) for _ in range(2 * hidden)]
    path = tmp_path / "formula.nnue"
    path.write_bytes(nnue.serialize(hidden, w1, b1, w2, -700))
    nnue.load(str(path))
    board = Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R[EHeh] b KQBCDkqbcdf - 4 4")

    def half(perspective: int, weights: list[int]) -> int:
        active = nnue.features(list(board.squares), board.hand, board.gates, perspective)
        sums = [b1[i] + sum(w1[f * hidden + i] for f in active) for i in range(hidden)]
        return sum(min(max(v, 0), nnue.QA) ** 2 * w for v, w in zip(sums, weights, strict=True))

    total = (half(board.side, w2[:hidden]) + half(-board.side, w2[hidden:])) // nnue.QA - 700
    expected = max(-nnue.EVAL_LIMIT, min(nnue.EVAL_LIMIT, total * nnue.SCALE // (nnue.QA * nnue.QB)))
    assert nnue.evaluate_from_scratch(board) == expected


def test_features_of_the_start_position_count_pieces_hands_and_gates() -> None:
    board = Board()
    for perspective in (1, -1):
        active = nnue.features(list(board.squares), board.hand, board.gates, perspective)
        assert len(active) == len(set(active))
        pieces = [f for f in active if f < nnue.HAND_BASE]
        hands = [f for f in active if nnue.HAND_BASE <= f < nnue.GATE_BASE]
        gates = [f for f in active if f >= nnue.GATE_BASE]
        assert len(pieces) == 32 and len(hands) == 4 and len(gates) == 16
    # The two perspectives mirror each other: white's view of a position is black's of its colour flip.
    white = Board("4k3/8/8/8/8/8/4P3/4K3[H] w - - 0 1")
    black = Board("4k3/4p3/8/8/8/8/8/4K3[h] b - - 0 1")
    assert sorted(nnue.features(list(white.squares), white.hand, white.gates, 1)) == sorted(
        nnue.features(list(black.squares), black.hand, black.gates, -1))


def test_a_net_file_reads_back_and_bad_files_are_named(tmp_path: Path) -> None:
    path = random_net(tmp_path / "a.nnue", hidden=8)
    info = nnue.load(str(path))
    assert info.hidden == 8 and len(info.sha256) == 64
    assert nnue.loaded_hidden() == 8
    bad = tmp_path / "bad.nnue"
    bad.write_bytes(b"hello")
    with pytest.raises(nnue.NetError, match="too short"):
        nnue.load(str(bad))
    bad.write_bytes(path.read_bytes()[:-6])
    with pytest.raises(nnue.NetError, match="bytes, expected"):
        nnue.load(str(bad))
    with pytest.raises(nnue.NetError, match="cannot be read"):
        nnue.load(str(tmp_path / "missing.nnue"))
    assert nnue.loaded_hidden() == 8  # a refused file leaves the net in use


def test_a_net_of_the_added_version_is_added_to_the_hand_made_evaluation(tmp_path: Path) -> None:
    from engine.evaluate import evaluate, evaluate_position, initial_scores

    hidden = 8
    path = tmp_path / "added.nnue"
    bias = 25 * nnue.QA * nnue.QB // nnue.SCALE  # a net that says +25 cp everywhere
    path.write_bytes(nnue.serialize(hidden, [0] * (nnue.N_FEATURES * hidden), [0] * hidden, [0] * (2 * hidden), bias,
                                    nnue.VERSION_ADDED))
    nnue.load(str(path))
    assert nnue.loaded_adds_hand_made()
    board = Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R[EHeh] w KQBCDkqbcdf - 4 4")
    hand_made = evaluate_position(board)
    board.accumulator = nnue.Accumulator()
    board.accumulator.refresh(board)
    assert evaluate(board, *initial_scores(board)) == hand_made + 25
    board.accumulator = None
    searcher = Searcher(1)
    searcher.use_net(True)
    assert searcher.search(board, SearchLimits(depth=2)).best in board.legal_moves_codes()
    random_net(tmp_path / "plain.nnue")
    nnue.load(str(tmp_path / "plain.nnue"))
    assert not nnue.loaded_adds_hand_made()  # a version 1 net is the evaluation again


def test_search_with_the_net_plays_a_legal_move_and_leaves_the_board_alone(net: Path) -> None:
    board = Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R[EHeh] w KQBCDkqbcdf - 4 4")
    fen = board.fen()
    searcher = Searcher(1)
    searcher.use_net(True)
    result = searcher.search(board, SearchLimits(depth=3))
    assert result.best in board.legal_moves_codes()
    assert board.fen() == fen and board.accumulator is None


def test_uci_evalfile_that_cannot_be_read_is_reported_and_replaced(tmp_path: Path, net: Path) -> None:
    out = run_commands(f"setoption name EvalFile value {net}", "setoption name Use NNUE value true",
                       "position startpos", "go depth 2")
    assert any(line.startswith("info string NNUE evaluation using") for line in out)
    assert any(line.startswith("bestmove") for line in out)
    missing = tmp_path / "missing.nnue"
    out = run_commands("setoption name Use NNUE value true", f"setoption name EvalFile value {missing}",
                       "position startpos", "go depth 2")
    errors = [line for line in out if line.startswith("info string error")]
    assert any(str(missing) in line and "cannot be read" in line for line in errors)
    assert any(line.startswith("bestmove") for line in out)


def test_an_unreadable_evalfile_falls_back_to_the_built_in_net_of_the_variant_being_played(tmp_path: Path) -> None:
    out: list[str] = []
    engine = UciFrontEnd(out.append)
    engine.handle("setoption name Use NNUE value true")
    engine.handle(f"setoption name EvalFile value {tmp_path / 'missing.nnue'}")
    assert _evaluation(engine) == "schess-nnue.bin"
    engine.handle("setoption name UCI_Variant value shouse")
    assert _evaluation(engine) == "shouse-nnue.bin"  # the stand-in follows the variant
    errors = [line for line in out if line.startswith("info string error")]
    assert len(errors) == 2 and "using the built-in net shouse-nnue.bin" in errors[-1]
    engine.handle("setoption name Use NNUE value true")  # same variant, same file: nothing is read again
    assert len([line for line in out if line.startswith("info string error")]) == 2
    engine.stop_search()


@pytest.mark.parametrize("variant", ["seirawan", "shouse"])
def test_the_built_in_nets_ship_and_load(variant: str) -> None:
    info = nnue.load(None, variant)
    assert info.hidden >= 1 and info.path.endswith(nnue.builtin_net(variant))
    readme = (Path(nnue.__file__).resolve().parent / "data" / "README.md").read_text(encoding="utf-8")
    assert info.sha256 in readme  # the hash the docs give is the file's


def _evaluation(engine: UciFrontEnd) -> str:
    """The file name of the net the engine's search evaluates with, or "hand-made"."""
    if engine.searcher.accumulator is None:
        return "hand-made"
    assert engine.net is not None
    return Path(engine.net.path).name


def test_use_nnue_auto_evaluates_with_the_net_only_where_it_is_the_default(tmp_path: Path) -> None:
    out: list[str] = []
    engine = UciFrontEnd(out.append)
    assert any("option name Use NNUE type combo default auto" in line for line in _declarations(engine))
    # S-chess: the net in the compiled build, the hand-made evaluation in the pure one (a third of the speed there)
    schess_default = "schess-nnue.bin" if build_kind() is BuildKind.COMPILED else "hand-made"
    assert _evaluation(engine) == schess_default
    assert out == []  # the default net loads silently: nothing may come before the answer to uci
    engine.handle("uci")
    named = [line for line in out if line.startswith("info string NNUE evaluation using ")]
    assert [Path(line.split()[5]).name for line in named] == ([] if schess_default == "hand-made" else [schess_default])
    assert out[-1] == "uciok" and out[0].startswith("id name ")
    out.clear()
    engine.handle("setoption name UCI_Chess960 value true")
    assert _evaluation(engine) == schess_default  # S-chess960 is S-chess
    engine.handle("setoption name UCI_Variant value chess")
    assert _evaluation(engine) == schess_default  # chess: the S-chess net, as in S-chess
    engine.handle("setoption name UCI_Variant value shouse")
    assert _evaluation(engine) == "shouse-nnue.bin"  # S-House: its built-in net in both builds
    engine.handle("setoption name Use NNUE value false")
    assert _evaluation(engine) == "hand-made"
    engine.handle("setoption name Use NNUE value true")
    assert _evaluation(engine) == "shouse-nnue.bin"
    engine.handle("setoption name UCI_Variant value seirawan")
    assert _evaluation(engine) == "schess-nnue.bin"  # true: each variant's own built-in net
    engine.handle("setoption name UCI_Variant value chess")
    assert _evaluation(engine) == "schess-nnue.bin"  # chess has none of its own
    engine.handle("setoption name Use NNUE value auto")
    assert _evaluation(engine) == schess_default
    engine.handle("setoption name UCI_Variant value seirawan")
    assert _evaluation(engine) == schess_default
    # An EvalFile is the net of every variant that uses one.
    other = random_net(tmp_path / "other.nnue")
    engine.handle(f"setoption name EvalFile value {other}")
    engine.handle("setoption name UCI_Variant value shouse")
    assert _evaluation(engine) == "other.nnue"
    engine.handle("setoption name EvalFile value <built-in>")
    assert _evaluation(engine) == "shouse-nnue.bin"
    engine.handle("setoption name Use NNUE value maybe")
    assert any("Use NNUE: expected auto, true or false" in line for line in out)
    assert _evaluation(engine) == "shouse-nnue.bin"  # the refused value changed nothing
    # bench searches S-chess and chess positions with the S-chess net under auto in both builds (one node
    # count for both), with the hand-made evaluation when asked or under false.
    for command, evaluation in (("bench 1", "NNUE"), ("bench 1 classical", "hand-made"),
                                ("setoption name Use NNUE value false", None), ("bench 1", "hand-made"),
                                ("bench 1 nnue", "NNUE")):
        out.clear()
        engine.handle(command)
        if evaluation:
            assert [line for line in out if line.startswith("Evaluation:")] == [f"Evaluation: {evaluation}"]
    assert _evaluation(engine) == "hand-made"  # back to the variant being played, as Use NNUE says
    engine.stop_search()


def _declarations(engine: UciFrontEnd) -> list[str]:
    out: list[str] = []
    UciFrontEnd(out.append).handle("uci")
    return out
