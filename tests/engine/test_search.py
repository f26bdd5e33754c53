"""Search tests: mates in S-chess (gated pieces, mates that need gating) and standard chess, legal best moves
everywhere, draws in the tree, the incremental evaluation and the quiescence capture generator."""

from __future__ import annotations

import random
from array import array
from typing import Any, Optional

import pytest

from engine import Board
from engine.attacks import captures, gives_check_quiet, see
from engine.evaluate import TEMPO, evaluate, evaluate_position, initial_scores, move_delta
from engine.movecodes import EN_PASSANT, PROMOTION, is_simple_move, keyed_move, move_kind, move_piece, move_to
from engine.search import MATE_BOUND, SearchAborted, Searcher, SearchLimits, mate_in
from engine.tables import QUEEN


def search(fen: str | None, depth: int, variant: str = "seirawan", moves: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    board = Board(fen, variant=variant)
    for text in moves:
        board.push_uci(text)
    before = board.fen()
    result = Searcher().search(board, SearchLimits(depth=depth))
    assert board.fen() == before, "the search must leave the position as it found it"
    return board, result


def play_line_is_mate(board: Board, first: int) -> bool:
    board.push(board.move_of(first))
    try:
        return board.is_checkmate()
    finally:
        board.pop()


# ---------------------------------------------------------------- S-chess mates


def test_mate_in_one_delivered_by_a_gated_elephant() -> None:
    # The bishop leaves f1 and the Elephant gated on f1 mates along the open f-file.
    board, result = search("4rkr1/4p1p1/8/8/8/8/8/4KB2[E] w F - 0 1", 3)
    move = board.move_of(result.best)
    assert move.gate is not None and move.from_square == 5
    assert play_line_is_mate(board, result.best)
    assert mate_in(result.score) == 1


def test_finds_qxd8_with_elephant_gate_from_a_real_game() -> None:
    game = "e2e4 d7d5 e4d5 d8d5e b1c3 d5f5 d2d4 g8f6 g1f3 b8c6 d4d5 f6e4 d5c6 e4c5".split()
    board, result = search(None, 3, moves=tuple(game))
    assert board.move_of(result.best).uci() == "d1d8e"
    assert mate_in(result.score) == 1


def test_mate_in_two_that_needs_gating() -> None:
    # King and knight alone cannot mate: the Elephant must come in through the b1 gate.
    board, result = search("7k/8/6K1/8/8/8/8/1N6[E] w B - 0 1", 5)
    assert mate_in(result.score) == 2
    assert board.move_of(result.best).gate is not None


def test_mate_in_three_that_needs_gating() -> None:
    board, result = search("3k4/8/3K4/8/8/8/8/5B2[E] w F - 0 1", 7)
    assert mate_in(result.score) == 3
    assert board.move_of(result.best).gate is not None


def test_mate_in_two_with_rook_in_s_chess() -> None:
    _, result = search("k7/8/2K5/8/8/8/8/7R[] w - - 0 1", 5)
    assert mate_in(result.score) == 2


def test_being_mated_is_reported_as_negative_mate() -> None:
    _, result = search("k7/8/1K6/8/8/8/8/6R1[] b - - 0 1", 4)
    assert mate_in(result.score) == -1


# ---------------------------------------------------------------- standard chess mates


@pytest.mark.parametrize(
    "fen, depth, mate, first",
    [
        ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 3, 1, "a1a8"),
        ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 3, 1, "h5f7"),
        ("r6k/6pp/7N/8/8/1Q6/8/7K w - - 0 1", 4, 2, "b3g8"),
        ("5rk1/5Npp/8/8/8/1Q6/8/7K w - - 0 1", 6, 3, "f7h6"),
    ],
)
def test_standard_chess_mates(fen: str, depth: int, mate: int, first: str) -> None:
    board, result = search(fen, depth, variant="chess")
    assert mate_in(result.score) == mate
    assert board.move_of(result.best).uci() == first


# ---------------------------------------------------------------- always a legal move


def random_positions(count: int, seed: int, variant: str = "seirawan") -> list[Board]:
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = Board(variant=variant)
        for _ in range(rng.randint(0, 60)):
            codes = board.generate_legal()
            if not codes:
                break
            board.push(board.move_of(rng.choice(codes)))
        boards.append(board)
    return boards


@pytest.mark.parametrize("variant", ["seirawan", "chess"])
def test_best_move_is_always_legal_at_tiny_limits(variant: str) -> None:
    searcher = Searcher(1)
    for index, board in enumerate(random_positions(60, 11 if variant == "seirawan" else 12, variant)):
        legal = board.generate_legal()
        before = board.fen()
        limits = SearchLimits(nodes=20 + index * 5) if index % 2 else SearchLimits(depth=1 + index % 3)
        result = searcher.search(board, limits)
        assert board.fen() == before
        if legal:
            assert result.best in legal, board.fen()
            if result.ponder:
                board.make(result.best)
                assert result.ponder in board.generate_legal()
                board.unmake()
        else:
            assert result.best == 0


def test_tiny_time_limit_still_returns_a_legal_move() -> None:
    board = Board("reb1k2r/ppppqppp/2nb1n2/4p3/4P3/N1P2N2/PB1PQPPP/RE2KBHR[h] b KQkqc - 3 7")
    result = Searcher().search(board, SearchLimits(soft_time=0.001, hard_time=0.001))
    assert result.best in board.generate_legal()


def test_no_legal_move_gives_none() -> None:
    board = Board("r1bqkbn1/pppppp2/8/6p1/Q2nP3/PBP5/1P1P1PP1/RNB1K2r[EHeh] w cdfgBCQq - 1 10")
    result = Searcher().search(board, SearchLimits(depth=3))
    assert result.best == 0 and result.score < -MATE_BOUND


class _StoppedAtDepthThree(Searcher):
    """A searcher whose third iteration is stopped (as by the clock) after the root move at ``proved_index``
    (None for none) was proved better than the moves before it, with an exact score or (``exact`` False) a
    lower bound."""

    def __init__(self, proved_index: Optional[int], exact: bool = False) -> None:
        super().__init__()
        self.proved_index = proved_index
        self.exact = exact

    def _root(self, depth, alpha, beta, root_moves, mg, eg, phase):  # type: ignore[no-untyped-def]
        if depth < 3:
            return super()._root(depth, alpha, beta, root_moves, mg, eg, phase)
        if self.proved_index is not None:
            self.partial_move = root_moves[self.proved_index]
            self.partial_score = 77
            self.partial_exact = self.exact
        raise SearchAborted


def test_a_stopped_iteration_plays_the_move_it_already_proved_better() -> None:
    board = Board()
    last = Searcher().search(board, SearchLimits(depth=2))
    stopped = _StoppedAtDepthThree(proved_index=5)
    result = stopped.search(board, SearchLimits(depth=6))
    assert result.depth == 2  # the last finished iteration
    assert result.best == stopped.partial_move != last.best
    assert result.score == 77
    assert result.pv[0] == result.best and board.move_of(result.best) in board.legal_moves


def test_a_stopped_iteration_without_a_proof_keeps_the_last_best_move() -> None:
    board = Board()
    last = Searcher().search(board, SearchLimits(depth=2))
    infos: list[dict[str, Any]] = []
    result = _StoppedAtDepthThree(proved_index=None).search(board, SearchLimits(depth=6), infos.append)
    assert (result.depth, result.best, result.score) == (2, last.best, last.score)
    assert [info["depth"] for info in infos] == [1, 2]  # nothing to report of the cut iteration


def test_a_stopped_iteration_reports_the_depth_it_scored_the_best_move_at() -> None:
    # The clock stops the third iteration after the last best move (searched first) got an exact score:
    # the engine reports depth 3 with that score, as Stockfish does; a lower bound is not reported.
    board = Board()
    last = Searcher().search(board, SearchLimits(depth=2))
    infos: list[dict[str, Any]] = []
    result = _StoppedAtDepthThree(proved_index=0, exact=True).search(board, SearchLimits(depth=6), infos.append)
    assert (result.depth, result.best, result.score) == (2, last.best, 77)
    assert [info["depth"] for info in infos] == [1, 2, 3]
    assert infos[-1]["score"] == 77 and infos[-1]["pv"][0] == last.best == result.pv[0]
    infos.clear()
    result = _StoppedAtDepthThree(proved_index=0).search(board, SearchLimits(depth=6), infos.append)
    assert (result.best, result.score) == (last.best, last.score)  # a lower bound for the same move: kept
    assert [info["depth"] for info in infos] == [1, 2]


# ---------------------------------------------------------------- draws


def test_repetition_is_a_draw_inside_the_tree() -> None:
    board = Board()
    searcher = Searcher()
    for text in "g1f3 g8f6 f3g1".split():
        board.push_uci(text)
        assert not searcher.tree.is_draw(board)
    board.push_uci("f6g8")  # the start position again (gates are ignored, as on the server)
    assert searcher.tree.is_draw(board)


def test_stalemate_scores_zero() -> None:
    _, result = search("7k/5Q2/6K1/8/8/8/8/8[] b - - 0 1", 3)
    assert result.best == 0 and result.score == 0


def test_side_ahead_avoids_a_repetition_draw() -> None:
    # White is a queen up; after Qd1-d2 Kh7-h8 Qd2-d1 Kh8-h7 a return to d2 would repeat the position.
    board = Board("8/7k/8/8/8/8/8/3QK3[] w - - 0 1")
    for text in "d1d2 h7h8 d2d1 h8h7".split():
        board.push_uci(text)
    result = Searcher().search(board, SearchLimits(depth=4))
    assert result.score > 300


# ---------------------------------------------------------------- evaluation


def test_start_position_is_balanced() -> None:
    assert evaluate_position(Board()) == TEMPO
    assert evaluate_position(Board(variant="chess")) == TEMPO


def test_evaluation_is_colour_symmetric() -> None:
    fen = "reb1k2r/ppppqppp/2nb1n2/4p3/4P3/N1P2N2/PB1PQPPP/RE2KBHR[h] b KQkqc - 3 7"
    mirrored = "re2kbhr/pb1pqppp/n1p2n2/4p3/4P3/2NB1N2/PPPPQPPP/REB1K2R[H] w KQkqC - 3 7"
    assert evaluate_position(Board(fen)) == evaluate_position(Board(mirrored))


def test_pieces_in_hand_are_worthless_without_gates() -> None:
    with_gate = Board("4k3/8/8/8/8/8/8/4K1N1[E] w G - 0 1")
    without_gate = Board("4k3/8/8/8/8/8/8/4K1N1[E] w - - 0 1")
    assert evaluate_position(with_gate) - evaluate_position(without_gate) > 600


@pytest.mark.parametrize("seed", range(5))
def test_incremental_scores_match_a_fresh_count(seed: int) -> None:
    rng = random.Random(seed)
    for variant in ("seirawan", "chess", "shouse"):
        board = Board(variant=variant)
        mg, eg, phase = initial_scores(board)
        for _ in range(120):
            codes = board.generate_legal()
            if not codes:
                break
            code = rng.choice(codes)
            dmg, deg, dph = move_delta(board, code)
            board.make(code)
            mg, eg, phase = mg + dmg, eg + deg, phase + dph
            assert (mg, eg, phase) == initial_scores(board), board.fen()
            assert evaluate(board, mg, eg, phase) == evaluate_position(board)


def test_the_activity_terms_from_square_masks_equal_the_reference_counts() -> None:
    # positional (square masks and bit scans: C functions in the compiled build) against activity(), the
    # tuner's square-by-square reference, times the built-in weights, over random games of every board variant
    # and a few positions with pawns about to promote, kings in the corners and rays along the edges.
    from engine import evaluate as ev

    def weighted(board: Board) -> tuple[int, int]:
        counts = ev.activity(board)
        return (sum(w * c for w, c in zip(ev.ACTIVITY_MG, counts, strict=True)),
                sum(w * c for w, c in zip(ev.ACTIVITY_EG, counts, strict=True)))

    rng = random.Random(11)
    checked = 0
    for variant, chess960 in (("seirawan", False), ("chess", False), ("shouse", False), ("seirawan", True)):
        for _ in range(6):
            board = Board(variant=variant, chess960=chess960)
            for _ply in range(80):
                codes = board.generate_legal()
                if not codes:
                    break
                board.make(rng.choice(codes))
                assert ev.positional(board) == weighted(board), board.fen()
                checked += 1
    for fen in ("7k/P7/8/8/8/8/7p/K7[] w - - 0 1", "K6E/8/8/3p4/4P3/8/8/h6k[] b - - 0 1",
                "r3k2r/pP4Pp/8/2H2e2/8/8/Pp4pP/R3K2R[HEhe] w KQkq - 0 1"):
        board = Board(fen)
        assert ev.positional(board) == weighted(board), fen
    assert checked > 1000


@pytest.mark.parametrize(
    "fen, uci, expected",
    [
        ("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", 100),  # undefended pawn
        # The classic x-ray example: N takes a pawn defended by N and B (+ Q behind B) with R and Q behind.
        ("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5", 100 - 320),
        ("4k3/8/3p4/4p3/3P4/8/8/4K3 w - - 0 1", "d4e5", 0),  # pawn for pawn
        ("4k3/3q4/8/4p3/8/8/4R3/4R1K1 w - - 0 1", "e2e5", 100),  # the queen does not recapture
        ("4k3/8/8/4r3/3P4/8/8/4K2R w - - 0 1", "d4e5", 500),
        ("4k3/8/8/3q4/8/4N3/8/4K3 w - - 0 1", "e3d5", 900),
        ("4k3/8/2p5/3n4/8/8/8/3RK3 w - - 0 1", "d1d5", 320 - 500),
        # S-chess: a Hawk defends with its knight leap.
        ("4k3/8/5h2/3p4/8/8/8/3RK3[] w - - 0 1", "d1d5", 100 - 500),
    ],
)
def test_static_exchange_evaluation(fen: str, uci: str, expected: int) -> None:
    variant = "seirawan" if "[" in fen else "chess"
    board = Board(fen, variant=variant)
    code = next(c for c in board.generate_legal() if board.move_of(c).uci() == uci)
    before = board.fen(), list(board.squares)
    assert see(board, code) == expected
    assert (board.fen(), list(board.squares)) == before


def test_quiescence_captures_match_the_legal_move_generator() -> None:
    for board in random_positions(80, 3):
        if board.in_check():
            continue
        squares, side = board.squares, board.side
        expected = {
            m for m in board.generate_legal()
            if (squares[move_to(m)] * side < 0 and move_kind(m) != PROMOTION)
            or move_kind(m) == EN_PASSANT
            or (move_kind(m) == PROMOTION and move_piece(m) == QUEEN)
        }
        got = [keyed_move(k) for k in captures(board)]
        assert len(got) == len(set(got))
        assert set(got) == expected, board.fen()


def test_gives_check_quiet_agrees_with_playing_the_move() -> None:
    checks = 0
    for board in random_positions(150, 9) + random_positions(40, 10, "chess"):
        for m in board.generate_legal():
            if not is_simple_move(m):
                continue
            board.make(m)
            expected = board.in_check()
            board.unmake()
            checks += expected
            assert gives_check_quiet(board, m) == expected, (board.fen(), board.move_of(m).uci())
    assert checks > 20


def test_a_full_move_buffer_is_an_error_not_an_overwrite() -> None:
    # order_into writes past nothing: a buffer one word short of the moves raises, in both builds' versions.
    from engine import ordering
    from engine.attacks import ATTACKER_RANK, MVV

    board = Board()
    moves = board.generate_legal()
    versions = [ordering]
    try:
        from engine import _ordering  # type: ignore[attr-defined]
        versions.append(_ordering)
    except ImportError:  # a pure-Python build has no C twin
        pass
    for version in versions:
        out = array("q", bytes(8 * (len(moves) + 4)))
        with pytest.raises(IndexError, match="move buffer full"):
            version.order_into(list(moves), board, ordering.capture_order(MVV, ATTACKER_RANK),
                               array("h", bytes(2 * 8192)), 0, 0, 0, 0,
                               array("h", bytes(2 * (ordering.CONT_NONE + ordering.PIECE_TO))), ordering.CONT_NONE,
                               ordering.CONT_NONE, ordering.CONT_NONE, out, 5, True,
                               array("h", bytes(2 * ordering.CAPTURE_HISTORY_SIZE)))
        assert not any(out)


def test_a_cut_off_teaches_the_ordering_under_the_move_before_it() -> None:
    """The continuation history: a quiet reply that cut off after 1. e4 is ordered first among the quiet moves
    the next time 1. e4 comes before it, and not after 1. d4; the moves tried before it drop below the rest,
    and the "no move" row stays zero (in the compiled build the orderer writes its 16-bit tables from C)."""
    from engine.ordering import CONT_NONE, PIECE_TO, piece_to
    from engine.search import MoveOrderer

    board = Board()
    e4 = board.parse_uci("e2e4")._code
    d4 = board.parse_uci("d2d4")._code
    row_e4 = piece_to(board, e4) * PIECE_TO
    row_d4 = piece_to(board, d4) * PIECE_TO
    board.push_uci("e2e4")
    moves = board.generate_legal()
    orderer = MoveOrderer()

    def quiet_order(row: int) -> list[int]:
        out = array("q", bytes(8 * len(moves)))
        n = orderer.order_into(board, list(moves), 0, 3, 0, row, CONT_NONE, CONT_NONE, out, 0)
        return [keyed_move(k) for k in out[:n]]

    before = quiet_order(row_e4)
    assert before == quiet_order(row_d4)
    cutter, tried = before[-1], before[:2]
    quiets = array("q", [*tried, cutter])
    orderer.record_cutoff(board, cutter, 1, 8, -1, row_e4, CONT_NONE, CONT_NONE, quiets, 0, 3)
    orderer.history_table[:] = array("h", bytes(2 * len(orderer.history_table)))  # the continuation part alone
    after_e4 = quiet_order(row_e4)
    # The history is by piece and destination: a gated twin shares its plain move's entries.
    assert piece_to(board, after_e4[0]) == piece_to(board, cutter)
    punished = {piece_to(board, q) for q in tried}
    tail = [m for m in moves if piece_to(board, m) in punished]
    assert len(tail) < len(moves) // 2 and set(after_e4[-len(tail):]) == set(tail)
    assert quiet_order(row_d4) == before
    cont = orderer.cont_table
    assert cont[row_e4 + piece_to(board, cutter)] > 0
    assert all(cont[row_e4 + piece_to(board, q)] < 0 for q in tried)
    assert not any(cont[CONT_NONE:CONT_NONE + PIECE_TO])


def test_a_capture_that_loses_material_is_tried_after_the_quiet_moves() -> None:
    """Stockfish's bad captures last: the queen's capture of a defended pawn (it loses the queen for a pawn) is
    ordered after every quiet move, and the search tries it last too (it defers the capture when it reaches it
    in its own buffer, where captures come first); a capture that wins material stays first."""
    from engine import nnue
    from engine.nnue import Accumulator
    from engine.search import MoveOrderer

    board = Board("4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1", variant="chess")
    moves = board.generate_legal()
    qxd5 = board.parse_uci("d1d5")._code
    assert see(board, qxd5) < 0
    ordered = MoveOrderer().order(board, list(moves), 0, 0)
    assert ordered[-1] == qxd5 and len(ordered) == len(moves) > 10
    winning = Board("4k3/8/8/3p4/8/8/8/3QK3 w - - 0 1", variant="chess")  # the pawn undefended
    assert MoveOrderer().order(winning, winning.generate_legal(), 0, 0)[0] == winning.parse_uci("d1d5")._code

    # The order the search makes the root's moves in, seen by an accumulator that notes each move one ply down.
    class Recorder(Accumulator):
        def __init__(self) -> None:
            super().__init__()
            self.made: list[int] = []

        def push(self, pos: Any) -> None:
            if pos.undo_len == root_len + 1:
                self.made.append(pos.hash)
            super().push(pos)

    after = {}
    for m in moves:
        board.make(m)
        after[board.hash] = m
        board.unmake()
    root_len = board.undo_len
    nnue.load()
    recorder = Recorder()
    board.accumulator = recorder
    recorder.refresh(board)
    searcher = Searcher()
    searcher.control.start(SearchLimits(), None)
    searcher.tree.set_position(board)
    mg, eg, phase = initial_scores(board)
    infinite = 32000  # engine.search.INFINITE, a C constant in the compiled build
    searcher.tree.pvs(1, -infinite, infinite, 0, mg, eg, phase, False, False)
    board.accumulator = None
    first_made = list(dict.fromkeys(after[h] for h in recorder.made))
    assert sorted(first_made) == sorted(moves)  # a PV node: every move searched
    assert first_made[-1] == qxd5


def test_a_capture_that_cut_off_is_tried_before_one_of_like_value() -> None:
    """The capture history (Stockfish's captureHistory): of two captures with the same victim and attacker, the
    one that cut off is ordered first the next time, and the capture tried before it drops behind; a capture
    of a more valuable piece stays ahead of both (the history moves captures within their victim's rank)."""
    from engine.search import MoveOrderer

    # The knight on d4 takes the pawn on c6 or e6; the bishop on b1 takes the rook on h7.
    board = Board("4k3/7r/2p1p3/8/3N4/8/8/1B2K3 w - - 0 1", variant="chess")
    moves = board.generate_legal()
    nxc6, nxe6, bxh7 = (board.parse_uci(u)._code for u in ("d4c6", "d4e6", "b1h7"))
    orderer = MoveOrderer()
    before = orderer.order(board, list(moves), 0, 0)
    assert before[0] == bxh7 and {before[1], before[2]} == {nxc6, nxe6}
    first, second = before[1], before[2]
    buffer = array("q", [first, second])
    orderer.record_captures(board, second, 8, buffer, 0, 2)
    after = orderer.order(board, list(moves), 0, 0)
    assert after[:3] == [bxh7, second, first]
    assert orderer.capture_table[piece_to_of(board, second)] > 0 > orderer.capture_table[piece_to_of(board, first)]
    orderer.new_game()
    assert orderer.order(board, list(moves), 0, 0) == before


def piece_to_of(board: Board, m: int) -> int:
    """The capture history's slot of the capture ``m``: its piece-to and the type it takes."""
    from engine.ordering import piece_to

    return piece_to(board, m) * 8 + abs(board.squares[move_to(m)]) - 1


def test_compiled_move_ordering_matches_the_python_one() -> None:
    """The compiled build orders moves with engine/_ordering.pyx, a C twin of engine/ordering.py: both must give
    the same order for every move list, history, continuation history, killers, countermove and hash move
    (CI's compiled step runs this; a pure install has no twin to compare)."""
    compiled = pytest.importorskip("engine._ordering", reason="pure-Python build: no compiled move ordering")
    from engine import ordering
    from engine.attacks import ATTACKER_RANK, MVV

    keys = ordering.capture_order(MVV, ATTACKER_RANK)
    rng = random.Random(17)
    compared = 0
    for board in random_positions(60, seed=5):
        moves = board.generate_legal()
        if not moves:
            continue
        history = array("h", [rng.choice((0, rng.randint(-10692, 10692))) for _ in range(8192)])
        picks = [rng.choice(moves) if rng.random() < 0.8 else 0 for _ in range(4)]
        # Continuation histories, random where this position's moves read them (the "no move" row stays zero).
        cont = array("h", bytes(2 * (ordering.CONT_NONE + ordering.PIECE_TO)))
        rows = [rng.choice((ordering.CONT_NONE, rng.randrange(ordering.PIECE_TO) * ordering.PIECE_TO))
                for _ in range(3)]
        for m in moves:
            for row in rows:
                if row != ordering.CONT_NONE:
                    cont[row + ordering.piece_to(board, m)] = rng.randint(-29952, 29952)
        assert compiled.piece_to(board, moves[0]) == ordering.piece_to(board, moves[0])
        args = (board, keys, history, *picks, cont, *rows)
        capture_history = array("h", [rng.choice((0, rng.randint(-10692, 10692)))
                                      for _ in range(ordering.CAPTURE_HISTORY_SIZE)])
        for bad_last in (True, False):  # captures that lose material last, or among the captures
            best_first = ordering.order_moves(list(moves), *args, bad_last, capture_history)
            assert compiled.order_moves(list(moves), *args, bad_last, capture_history) == best_first
            # The search's form: the keyed moves written into its move buffer after 7 words of other plies.
            pure_buffer = array("q", bytes(8 * (7 + len(moves) + 3)))
            twin_buffer = array("q", pure_buffer)
            assert ordering.order_into(list(moves), *args, pure_buffer, 7, bad_last, capture_history) == len(moves)
            assert compiled.order_into(list(moves), *args, twin_buffer, 7, bad_last, capture_history) == len(moves)
            assert twin_buffer == pure_buffer
            assert [keyed_move(k) for k in pure_buffer[7:7 + len(moves)]] == best_first
            assert not any(pure_buffer[:7]) and not any(pure_buffer[7 + len(moves):])
        keyed = [rng.randint(0, 1 << 40) << 20 | m for m in moves]
        words = array("q", [rng.randint(0, 1 << 40) for _ in range(5)] + keyed)  # sorted from index 5 on
        twin = array("q", words)
        compiled.sort_desc_range(twin, 5, len(keyed))
        ordering.sort_desc_range(words, 5, len(keyed))
        assert twin == words and list(words[5:]) == sorted(keyed, reverse=True)
        compared += 1
    assert compared > 50


def test_the_named_fields_read_what_pack_writes() -> None:
    """The search reads what a table slot stored through named fields (engine/search.py): each gives back what
    ``engine.tt.pack`` put in. In the compiled build they are C functions, not importable; the pure build checks
    the definitions both builds compile from. (A move's fields: tests/engine/test_movecodes.py.)"""
    from engine import search
    from engine.tt import EXACT, LOWER, UPPER, pack

    if not hasattr(search, "stored_move"):
        pytest.skip("compiled build: the fields are C functions")
    for depth, bound, score, move in [(0, EXACT, 0, 0), (127, UPPER, 31000, 0xFFFFF), (9, LOWER, -30990, 0x5ABCD)]:
        data = pack(depth, bound, score, move, 63)
        assert (search.stored_depth(data), search.stored_bound(data), search.stored_score(data),
                search.stored_move(data)) == (depth, bound, score, move)
    # Mate scores are stored counted from the node and read back counted from the root.
    for score in (search.MATE - 3, -search.MATE + 8, 250, -MATE_BOUND):
        assert search.score_from_table(search.score_to_table(score, 7), 7) == score
    assert search.score_to_table(search.MATE - 10, 4) == search.MATE - 6
    assert search.bound_cuts(EXACT, 0, -5, 5) and search.bound_cuts(LOWER, 5, -5, 5)
    assert search.bound_cuts(UPPER, -5, -5, 5) and not search.bound_cuts(LOWER, 4, -5, 5)
    assert not search.bound_cuts(UPPER, -4, -5, 5)


def test_the_quiescence_search_keeps_its_results_in_the_table() -> None:
    """A quiescence search stores its result at depth 0 (an exact score with the capture that earned it), and
    the same zero-window question asked again is answered from the table: one node, the same score."""
    from engine.tt import EXACT, LOWER, tt_key

    infinite = 32000  # engine.search.INFINITE, a C constant in the compiled build

    board = Board("4k3/8/8/3r4/8/8/3Q4/4K3 w - - 0 1", variant="chess")  # the queen takes the loose rook
    searcher = Searcher()
    searcher.control.start(SearchLimits(), None)
    tree = searcher.tree
    tree.set_position(board)
    mg, eg, phase = initial_scores(board)
    key = tt_key(board.hash, board.gates)

    score = tree.quiescence.qsearch(-infinite, infinite, 0, mg, eg, phase, False)
    stored = searcher.tt.stored(key)
    assert stored is not None
    depth, bound, stored_score, move = stored
    assert (depth, bound, stored_score) == (0, EXACT, score)
    assert board.move_of(move).uci() == "d2d5"
    assert score > 300  # a rook up

    # A zero-window question the stored exact score settles: answered without searching a capture.
    nodes = searcher.control.nodes
    assert tree.quiescence.qsearch(score - 1, score, 0, mg, eg, phase, False) == score
    assert searcher.control.nodes == nodes + 1
    # From an empty table, a window above the stand pat is searched (the capture too) and leaves a lower bound,
    # which answers the same question the next time.
    searcher.tt.clear()
    nodes = searcher.control.nodes
    assert tree.quiescence.qsearch(600, 601, 0, mg, eg, phase, False) == score
    assert searcher.control.nodes == nodes + 2
    assert searcher.tt.stored(key)[:3] == (0, LOWER, score)  # type: ignore[index]
    assert tree.quiescence.qsearch(600, 601, 0, mg, eg, phase, False) == score
    assert searcher.control.nodes == nodes + 3


def test_probcut_settles_a_node_where_a_capture_wins_far_above_beta() -> None:
    """ProbCut: at a zero-window node nine plies deep whose static evaluation is below beta (no null move, no
    reverse futility), the pawn's capture of a loose knight wins enough to pass beta by the ProbCut margin: its
    quiescence search and a search four plies shallower settle the node, in a fraction of the nodes of a
    search of the capture to full depth. With beta raised past what the capture can win, the node is searched
    in full."""
    infinite = 32000  # engine.search.INFINITE, a C constant in the compiled build
    fen = "r1bqkb1r/pppp1ppp/2n5/4p3/4n3/3P1N2/PPP2PPP/RNBQKB1R w KQkq - 0 1"  # d3xe4 wins the knight

    def zero_window(beta: int) -> tuple[int, int]:
        board = Board(fen, variant="chess")
        searcher = Searcher()
        searcher.control.start(SearchLimits(), None)
        searcher.tree.set_position(board)
        mg, eg, phase = initial_scores(board)
        assert -infinite < evaluate(board, mg, eg, phase) < 0
        score = searcher.tree.pvs(9, beta - 1, beta, 2, mg, eg, phase, True, False)
        return score, searcher.control.nodes

    score, probcut_nodes = zero_window(0)
    assert score >= 0 and probcut_nodes < 30
    score, full_nodes = zero_window(100)  # the capture's 320 cp no longer reach 100 cp past beta
    assert score >= 100 and full_nodes > 2 * probcut_nodes


def test_null_move_depth_and_margin_follow_stockfish() -> None:
    """The null move (Stockfish 11's rule): the search after it is ``(854 + 68 x depth) / 258`` plies shallower
    than the node, a ply more per 192 cp of static evaluation above beta, and near the leaves it is tried only
    when that evaluation is well above beta (292 - 32 x depth cp, 30 less when improving). The table keeps the
    depth at which the position after the null move was searched: here nothing else reaches it (white's king
    is walled in behind its knight, so no line of five plies brings the same board back with black to move)."""
    from engine.tables import ZOBRIST_SIDE
    from engine.tt import tt_key

    fen = "4k3/8/8/8/8/pp6/PP6/KN6 w - - 0 1"

    def null_child(depth: int, above_beta: int) -> Optional[int]:
        board = Board(fen, variant="chess")
        searcher = Searcher()
        searcher.control.start(SearchLimits(), None)
        tree = searcher.tree
        tree.set_position(board)
        mg, eg, phase = initial_scores(board)
        beta = evaluate(board, mg, eg, phase) - above_beta
        tree.pvs(depth, beta - 1, beta, 2, mg, eg, phase, True, False)
        slot = searcher.tt.stored(tt_key(board.hash ^ ZOBRIST_SIDE, board.gates))
        return None if slot is None else slot[0]

    # Depth 12, 400 cp above beta: (854 + 816) // 258 + 400 // 192 = 8 plies shallower.
    assert null_child(12, 400) == 4
    # Depth 6, 50 cp above beta: below the margin of 100 cp (70 when improving), so no null move.
    assert null_child(6, 50) is None


def test_the_static_evaluation_learns_its_error_by_pawn_structure() -> None:
    """Correction history: a search that finds the static evaluation wrong (here a knight up, but black's pawn
    queens next move whatever white does) corrects the evaluation of every position with the same pawns and the
    same side to move, by a bounded amount (at most 64 cp: the square of its 16-bit word over 16,384), until a
    new game forgets it. The quiescence search of a position without captures returns that corrected evaluation
    (its stand pat)."""
    fen = "7K/8/8/8/8/k7/1p6/7N w - - 0 1"
    same_pawns = "6K1/8/8/8/8/k7/1p6/7N w - - 0 1"
    board = Board(fen, variant="chess")
    searcher = Searcher()
    searcher.control.start(SearchLimits(), None)
    tree = searcher.tree

    def stand_pat(b: Board) -> tuple[int, int]:
        """(the corrected static evaluation, the evaluation) of ``b``, white to move, no capture on the board."""
        searcher.tt.clear()  # the table's score would stand in for the evaluation
        tree.set_position(b)
        mg, eg, phase = initial_scores(b)
        return tree.quiescence.qsearch(-20000, 20000, 2, mg, eg, phase, False), evaluate(b, mg, eg, phase)

    corrected, raw = stand_pat(board)
    assert corrected == raw
    tree.set_position(board)
    mg, eg, phase = initial_scores(board)
    score = tree.pvs(5, -20000, 20000, 2, mg, eg, phase, True, False)
    assert score < raw - 300  # the search sees the queen coming
    corrected, raw = stand_pat(board)
    assert raw - 64 <= corrected < raw
    other_corrected, other_raw = stand_pat(Board(same_pawns, variant="chess"))
    assert other_raw - other_corrected == raw - corrected
    searcher.new_game()
    searcher.control.start(SearchLimits(), None)
    corrected, raw = stand_pat(board)
    assert corrected == raw


def test_a_table_cut_off_teaches_the_histories_its_quiet_move() -> None:
    """A node the table settles before any move is searched (Stockfish's rule): when the stored score is at or
    above beta and the stored move is quiet, that move becomes the ply's killer and gains in the side's
    history, as if it had made the cut-off; when the score is below alpha, the move loses in the history."""
    from engine.movecodes import from_to
    from engine.tt import LOWER, UPPER, tt_key

    fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"

    def after_table_cut(bound: int, score_above_beta: int) -> tuple[int, int, int]:
        board = Board(fen, variant="chess")
        searcher = Searcher()
        searcher.control.start(SearchLimits(), None)
        tree = searcher.tree
        tree.set_position(board)
        mg, eg, phase = initial_scores(board)
        beta = 0
        rook_up = next(m for m in board.generate_legal() if board.move_of(m).uci() == "a1a7")
        searcher.tt.store(tt_key(board.hash, board.gates), 5, bound, beta + score_above_beta, rook_up)
        score = tree.pvs(4, beta - 1, beta, 2, mg, eg, phase, True, False)
        assert score == beta + score_above_beta  # the table's score: no move searched
        orderer = tree.orderer
        return orderer.killers[2][0], orderer.history_table[from_to(rook_up)], rook_up  # white's history

    killer, history, rook_up = after_table_cut(LOWER, 50)
    assert killer == rook_up and history > 0
    killer, history, rook_up = after_table_cut(UPPER, -51)
    assert killer == 0 and history < 0


def test_multi_cut_ends_a_node_where_a_second_move_also_beats_the_table_score() -> None:
    """Singular extensions with multi-cut: the table holds a lower bound from 5 plies for the bishop's capture
    of a loose rook, 50 cp above beta. At a zero-window node 6 plies deep the other moves are searched without
    it, 3 plies deep against that score less 2 cp a ply: the knight's capture of the other loose rook reaches
    it, so the node is not singular and, that score being above beta, it ends there with exactly that score
    (no move searched to full depth). With the same slot an upper bound there is no such test, and the search
    finds the capture's real worth."""
    from engine.tt import LOWER, UPPER, tt_key

    fen = "4k3/8/8/3r4/7r/1B3N2/8/4K3 w - - 0 1"  # Bxd5 and Nxh4 each win a loose rook

    def node(bound: int) -> int:
        board = Board(fen, variant="chess")
        searcher = Searcher()
        searcher.control.start(SearchLimits(), None)
        tree = searcher.tree
        tree.set_position(board)
        mg, eg, phase = initial_scores(board)
        static = evaluate(board, mg, eg, phase)
        beta = static + 100  # above the evaluation: no null move, no reverse futility
        bishop_takes = next(m for m in board.generate_legal() if board.move_of(m).uci() == "b3d5")
        # The slot's score is below ProbCut's raised beta from depth 5 >= 6 - 3: no ProbCut.
        searcher.tt.store(tt_key(board.hash, board.gates), 5, bound, beta + 50, bishop_takes)
        score = tree.pvs(6, beta - 1, beta, 2, mg, eg, phase, True, False)
        return score - beta

    assert node(LOWER) == 50 - 2 * 6
    assert node(UPPER) > 200  # a rook won: far above beta


def test_a_singular_hash_move_is_searched_a_ply_deeper() -> None:
    """Singular extension: the table holds a lower bound from 5 plies for the bishop's capture of a loose rook,
    the only move that wins anything. The other moves, searched without it, stay far below its score, so at a
    zero-window node 6 plies deep the capture is searched 6 plies deep instead of 5 (the depth the table keeps
    for the position after it); with the same slot an upper bound it is searched to the usual depth."""
    from engine.tt import LOWER, UPPER, tt_key

    fen = "4k3/8/8/3r4/7r/1B6/8/4K3 w - - 0 1"  # Bxd5 wins a rook; nothing else does

    def child_depth(bound: int) -> int:
        board = Board(fen, variant="chess")
        searcher = Searcher()
        searcher.control.start(SearchLimits(), None)
        tree = searcher.tree
        tree.set_position(board)
        mg, eg, phase = initial_scores(board)
        beta = evaluate(board, mg, eg, phase) + 100  # above the evaluation: no null move, no reverse futility
        bishop_takes = next(m for m in board.generate_legal() if board.move_of(m).uci() == "b3d5")
        # The slot's score is below ProbCut's raised beta from depth 5 >= 6 - 3: no ProbCut.
        searcher.tt.store(tt_key(board.hash, board.gates), 5, bound, beta + 50, bishop_takes)
        assert tree.pvs(6, beta - 1, beta, 2, mg, eg, phase, True, False) >= beta
        board.push(board.move_of(bishop_takes))
        return searcher.tt.stored(tt_key(board.hash, board.gates))[0]  # type: ignore[index]

    assert child_depth(LOWER) == child_depth(UPPER) + 1
