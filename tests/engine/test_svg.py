"""engine.svg: diagrams parse as SVG and show what the position holds (pieces, hands, gates, last move, check,
orientation); ``python -m engine svg`` writes them and rejects a bad FEN with exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from engine import BLACK, Board, Move, svg
from engine.tables import SQUARE_NAMES
from tests.timing import STARTUP_S
from tools.diagrams import CHESS960_START, DEFAULT_DIR, EXAMPLES, GATED_MATE, played

REPO = Path(__file__).resolve().parents[2]
NS = "{http://www.w3.org/2000/svg}"


def parse(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == NS + "svg"
    return root


def with_class(root: ET.Element, *names: str) -> list[ET.Element]:
    """Every element whose class attribute holds all the given names."""
    return [el for el in root.iter() if set(names) <= set(el.get("class", "").split())]


def board_pieces(root: ET.Element) -> dict[str, str]:
    """Square name -> "white hawk" etc., for the pieces on the board (the hand's pieces have no square)."""
    out = {}
    for el in with_class(root, "piece"):
        classes = el.get("class", "").split()
        squares = [c for c in classes if c in SQUARE_NAMES]
        if squares:
            out[squares[0]] = f"{classes[1]} {classes[2]}"
    return out


def hand(root: ET.Element, colour: str) -> dict[str, int]:
    """Piece name -> count shown in one side's tray."""
    (tray,) = with_class(root, "hand", colour)
    names = [el.get("class", "").split()[2] for el in with_class(tray, "piece")]
    counts = [int(el.get("data-count", "")) for el in with_class(tray, "count")]
    assert [el.text for el in with_class(tray, "count")] == [str(c) for c in counts]
    return dict(zip(names, counts, strict=True))


def squares_marked(root: ET.Element, kind: str) -> set[str]:
    return {c for el in with_class(root, kind) for c in el.get("class", "").split() if c in SQUARE_NAMES}


def square_origin(root: ET.Element, name: str) -> tuple[float, float]:
    (rect,) = with_class(root, "square", name)
    return float(rect.get("x", "")), float(rect.get("y", ""))


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_docs_examples_are_valid_svg_and_up_to_date(name: str) -> None:
    text = EXAMPLES[name]()
    root = parse(text)
    assert len(with_class(root, "square")) == 64
    assert (DEFAULT_DIR / name).read_text(encoding="utf-8") == text, "run python -m tools.diagrams"


def test_start_position_has_32_pieces_full_hands_and_16_gates() -> None:
    root = parse(svg.board(Board()))
    pieces = board_pieces(root)
    assert len(pieces) == 32
    assert pieces["e1"] == "white king" and pieces["d8"] == "black queen" and pieces["g1"] == "white knight"
    assert hand(root, "white") == {"elephant": 1, "hawk": 1}
    assert hand(root, "black") == {"elephant": 1, "hawk": 1}
    assert squares_marked(root, "gate") == {f + r for f in "abcdefgh" for r in "18"}
    assert not with_class(root, "check") and not with_class(root, "lastmove")


def test_hand_counts_follow_the_fen() -> None:
    board = Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HHe] w KQBCDFGkqbcdfg - 0 1")
    root = parse(svg.board(board))
    assert hand(root, "white") == {"hawk": 2}
    assert hand(root, "black") == {"elephant": 1}


def test_gated_pieces_stand_on_the_board_and_leave_the_hand() -> None:
    board = played("g1f3h g8f6e")
    root = parse(svg.board(board))
    pieces = board_pieces(root)
    assert pieces["g1"] == "white hawk" and pieces["g8"] == "black elephant"
    assert hand(root, "white") == {"elephant": 1}
    assert hand(root, "black") == {"hawk": 1}


def test_gates_are_marked_exactly_on_the_open_gates() -> None:
    board = played(GATED_MATE)
    assert board.fen().endswith("[Hh] b KQCFkqcf - 0 8")
    root = parse(svg.board(board))
    expected = {"a1", "c1", "e1", "f1", "h1", "a8", "c8", "e8", "f8", "h8"}
    assert squares_marked(root, "gate") == expected
    assert {SQUARE_NAMES[sq] for sq in svg.gate_squares(board)} == expected
    assert hand(root, "white") == {"hawk": 1} and hand(root, "black") == {"hawk": 1}


def test_a_side_with_an_empty_hand_has_no_gates() -> None:
    board = Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[he] w KQkqbcdfg - 0 1")
    root = parse(svg.board(board))
    assert squares_marked(root, "gate") == {f + "8" for f in "abcdefgh"}
    assert hand(root, "white") == {}


def test_chess960_gates_follow_the_pieces_that_moved() -> None:
    board = played("g2g3 g7g6 e1d3h d7d5 f2f4 e8g7e", CHESS960_START, chess960=True)
    root = parse(svg.board(board, lastmove=board.peek()))
    assert board_pieces(root)["e1"] == "white hawk" and board_pieces(root)["e8"] == "black elephant"
    gates = {f + r for f in "abcdefgh" for r in "18"} - {"e1", "e8"}
    assert squares_marked(root, "gate") == gates
    assert squares_marked(root, "lastmove") == {"e8", "g7"}


def test_standard_chess_has_no_hand_and_no_gates() -> None:
    board = Board(variant="chess")
    root = parse(svg.board(board))
    assert len(board_pieces(root)) == 32
    assert not with_class(root, "hand") and not with_class(root, "gate")
    assert not [el for el in with_class(root, "piece") if el.get("class", "").split()[2] in ("hawk", "elephant")]
    # The diagram is square without the hand column.
    x0, y0, width, height = (float(v) for v in root.get("viewBox", "").split())
    assert width == height


def test_lastmove_highlights_its_two_squares() -> None:
    board = played("e2e4")
    root = parse(svg.board(board, lastmove=board.peek()))
    assert squares_marked(root, "lastmove") == {"e2", "e4"}
    root = parse(svg.board(board, lastmove=Move.from_uci("h1e1h")))  # a rook-square gate castling
    assert squares_marked(root, "lastmove") == {"h1", "e1"}


def test_check_marks_the_king_in_check() -> None:
    board = played(GATED_MATE)
    assert svg.check_square(board) == 60  # e8
    root = parse(svg.board(board, check=svg.check_square(board)))
    assert squares_marked(root, "check") == {"e8"}
    assert svg.check_square(Board()) is None


@pytest.mark.parametrize("options", [{"orientation": BLACK}, {"flipped": True}])
def test_flipping_puts_a1_at_the_top_right(options: dict[str, bool]) -> None:
    root = parse(svg.board(Board(), **options))  # type: ignore[arg-type]
    origins = {name: square_origin(root, name) for name in SQUARE_NAMES}
    xs, ys = [x for x, _ in origins.values()], [y for _, y in origins.values()]
    assert origins["a1"] == (max(xs), min(ys))
    assert origins["h8"] == (min(xs), max(ys))
    # Black's tray is then at the bottom, below White's.
    (white_tray,) = with_class(with_class(root, "hand", "white")[0], "tray")
    (black_tray,) = with_class(with_class(root, "hand", "black")[0], "tray")
    assert float(black_tray.get("y", "")) > float(white_tray.get("y", ""))


def test_white_at_the_bottom_by_default_and_flipped_black_turns_back() -> None:
    for root in (parse(svg.board(Board())), parse(svg.board(Board(), orientation=BLACK, flipped=True))):
        origins = {name: square_origin(root, name) for name in SQUARE_NAMES}
        xs, ys = [x for x, _ in origins.values()], [y for _, y in origins.values()]
        assert origins["a1"] == (min(xs), max(ys))


def test_coordinates_and_size_are_optional() -> None:
    with_coords = parse(svg.board(Board(), size=400))
    labels = sorted(el.text or "" for el in with_class(with_coords, "coord"))
    assert labels == sorted("abcdefgh12345678")
    assert with_coords.get("width") == "400"
    bare = parse(svg.board(Board(), coordinates=False))
    assert not with_class(bare, "coord") and bare.get("width") is None


def test_colors_replace_the_defaults() -> None:
    board = played("e2e4")
    root = parse(svg.board(board, lastmove=board.peek(), colors={"square dark": "#123456", "gate": "#abcdef"}))
    dark = [rect for rect in with_class(root, "square", "dark") if "lastmove" not in rect.get("class", "")]
    assert {rect.get("fill") for rect in dark} == {"#123456"}
    assert {rect.get("fill") for rect in with_class(root, "gate")} == {"#abcdef"}
    (e4,) = with_class(root, "square", "e4")
    assert e4.get("fill") == svg.COLORS["square light lastmove"]


def test_every_piece_draws_alone() -> None:
    for symbol in "PNBRQKHEpnbrqkhe":
        root = parse(svg.piece(symbol, size=90))
        (group,) = with_class(root, "piece")
        assert group.get("class", "").split()[1] == ("white" if symbol.isupper() else "black")
        assert root.get("width") == "90"


# ---------------------------------------------------------------- command line


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "engine", "svg", *args], cwd=REPO, env=env, text=True,
                          capture_output=True, timeout=STARTUP_S)


def test_cli_writes_the_diagram_flipped_with_the_last_move_and_check() -> None:
    board = played(GATED_MATE)
    result = run_cli(board.fen(), "--flip", "--lastmove", "d1d8e")
    assert result.returncode == 0, result.stderr
    root = parse(result.stdout)
    assert squares_marked(root, "lastmove") == {"d1", "d8"}
    assert squares_marked(root, "check") == {"e8"}
    origins = {name: square_origin(root, name) for name in SQUARE_NAMES}
    assert origins["a1"] == (max(x for x, _ in origins.values()), min(y for _, y in origins.values()))


def test_cli_draws_chess_and_chess960(tmp_path: Path) -> None:
    out = tmp_path / "x.svg"
    result = run_cli("--variant", "chess", "-o", str(out))
    assert result.returncode == 0 and result.stdout == ""
    assert not with_class(parse(out.read_text(encoding="utf-8")), "hand")
    result = run_cli(CHESS960_START, "--chess960")
    assert result.returncode == 0, result.stderr
    assert len(squares_marked(parse(result.stdout), "gate")) == 16


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP[HEhe] w KQkq - 0 1"], "invalid FEN"),
        (["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] x KQkq - 0 1"], "invalid FEN"),
        (["--lastmove", "e9e4"], "invalid uci"),
    ],
)
def test_cli_rejects_bad_input_with_exit_code_2_and_one_line(args: list[str], message: str) -> None:
    result = run_cli(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


def test_cli_help() -> None:
    result = run_cli("--help")
    assert result.returncode == 0 and "--lastmove" in result.stdout and "--flip" in result.stdout
