"""Opening books: the S-chess book format (round trip, damaged files, stable keys), Polyglot books checked
against python-chess (keys on random chess and Chess960 positions, moves incl. castling and promotion),
the selection rules, the shipped book, the builder and the UCI ``OwnBook`` path."""

from __future__ import annotations

import collections
import os
import random
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

import chess
import chess.polyglot
import pytest

from engine import Board
from engine.book import (
    DEFAULT_BOOK,
    HEADER_STRUCT,
    BookError,
    Entry,
    PolyglotBook,
    SchessBook,
    decode_move,
    encode_move,
    open_book,
    position_key,
    write_book,
    zobrist_fingerprint,
    zobrist_hash,
)
from engine.polyglot_random import POLYGLOT_RANDOM_ARRAY
from engine.uci import UciFrontEnd
from tests.timing import STARTUP_S
from tools.book.__main__ import main as book_main
from tools.book.build import BookMoves, PvLine, add_games, best_complete_iteration, read_pgn_games, read_uci_games

REPO = Path(__file__).resolve().parents[2]
START = Board()


def _key_after(moves: str, variant: str = "seirawan") -> int:
    board = Board(variant=variant)
    for move in moves.split():
        board.push_uci(move)
    return position_key(board)


# ---------------------------------------------------------------------------------------------- format


def test_book_round_trip_keeps_every_entry_sorted_by_key_then_weight(tmp_path: Path) -> None:
    entries = [
        Entry(position_key(START), "g1f3h", 700, score=35),
        Entry(position_key(START), "e2e4", 900, score=-12),
        Entry(position_key(START), "b1c3e", 5),  # no score
        Entry(_key_after("g1f3h g8f6 e2e3 e7e6 f1e2 f8e7"), "h1e1h", 3, score=0),  # castling, rook-square gate
        Entry(_key_after("g1f3h g8f6 e2e3 e7e6 f1e2 f8e7"), "e1g1e", 65535, score=-(2**31) + 1),
        Entry(12345, "a7a8h", 0, score=2**31 - 1),  # a promotion to Hawk under an arbitrary key
    ]
    path = tmp_path / "round.book"
    assert write_book(path, entries) == len(entries)
    with open_book(path) as book:
        assert isinstance(book, SchessBook)
        assert (book.variant, book.chess960, len(book)) == ("seirawan", False, len(entries))
        stored = list(book)
    expected = sorted(entries, key=lambda entry: (entry.key, -entry.weight, entry.move))
    assert stored == expected
    assert path.stat().st_size == 32 + 16 * len(entries)


def test_move_encoding_is_16_bits_and_round_trips_every_suffix() -> None:
    for text in ("e2e4", "g1f3h", "d1d8e", "h1e1h", "a1e1e", "e1g1", "e7e8q", "b7a8n", "a2a1h", "h7h8e"):
        raw = encode_move(text)
        assert 0 <= raw < 1 << 16
        assert decode_move(raw) == text
    for bad in ("e2e9", "e2", "e2e4x", "E2E4", 42):
        with pytest.raises(ValueError):
            encode_move(bad)  # type: ignore[arg-type]


def test_writer_rejects_duplicates_and_out_of_range_values(tmp_path: Path) -> None:
    key = position_key(START)
    with pytest.raises(ValueError, match="duplicate"):
        write_book(tmp_path / "a.book", [Entry(key, "e2e4", 1), Entry(key, "e2e4", 2)])
    with pytest.raises(ValueError, match="weight"):
        write_book(tmp_path / "b.book", [Entry(key, "e2e4", 70000)])
    with pytest.raises(ValueError, match="score"):
        write_book(tmp_path / "c.book", [Entry(key, "e2e4", 1, score=2**31)])
    with pytest.raises(ValueError, match="invalid UCI"):
        write_book(tmp_path / "d.book", [Entry(key, "e2-e4", 1)])


def test_a_chess960_book_is_only_used_on_chess960_boards(tmp_path: Path) -> None:
    fen = "qbbrnkrn/pppppppp/8/8/8/8/PPPPPPPP/QBBRNKRN[HEhe] w ABCDEFGHabcdefgh - 0 1"
    board960 = Board(fen, chess960=True)
    path = tmp_path / "960.book"
    write_book(path, [Entry(position_key(board960), "e1f3h", 10)], chess960=True)
    with open_book(path) as book:
        assert book.choose(board960) == "e1f3h"
        assert book.choose(Board(fen)) is None  # same pieces, but standard castling rules


# ---------------------------------------------------------------------------------------------- bad files


def test_missing_file_raises_book_error_naming_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.book"
    with pytest.raises(BookError, match="nowhere.book"):
        open_book(missing)


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("text.book", b"this is not a book at all", "not an S-chess book"),
        ("short.book", b"SCHESSBK\x00\x01", "truncated"),
        ("odd.bin", b"\x00" * 17, "not a Polyglot book"),
        ("odd", b"hello", "not a Polyglot book"),
        ("unsorted.bin", struct.pack(">QHHI", 9, 0, 1, 0) + struct.pack(">QHHI", 3, 0, 1, 0), "not sorted"),
    ],
)
def test_bad_content_raises_book_error_naming_the_file(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(BookError, match=message) as caught:
        open_book(path)
    assert name in str(caught.value)


def _good_book_bytes(tmp_path: Path) -> bytes:
    path = tmp_path / "good.book"
    write_book(path, [Entry(1, "e2e4", 1), Entry(2, "d2d4", 1)])
    return path.read_bytes()


def test_truncated_or_padded_book_is_refused(tmp_path: Path) -> None:
    data = _good_book_bytes(tmp_path)
    for broken in (data[:-3], data + b"\0" * 16):
        path = tmp_path / "broken.book"
        path.write_bytes(broken)
        with pytest.raises(BookError, match="damaged"):
            open_book(path)


def test_book_written_with_other_zobrist_keys_is_refused(tmp_path: Path) -> None:
    data = bytearray(_good_book_bytes(tmp_path))
    magic, version, flags, variant, fingerprint, count = HEADER_STRUCT.unpack_from(data)
    HEADER_STRUCT.pack_into(data, 0, magic, version, flags, variant, fingerprint ^ 1, count)
    path = tmp_path / "other-keys.book"
    path.write_bytes(bytes(data))
    with pytest.raises(BookError, match="other Zobrist keys"):
        open_book(path)


def test_unsorted_or_newer_book_is_refused(tmp_path: Path) -> None:
    data = bytearray(_good_book_bytes(tmp_path))
    first, second = data[32:48], data[48:64]
    path = tmp_path / "swapped.book"
    path.write_bytes(bytes(data[:32] + second + first))
    with pytest.raises(BookError, match="not sorted"):
        open_book(path)
    struct.pack_into(">H", data, 8, 2)
    path.write_bytes(bytes(data))
    with pytest.raises(BookError, match="version 2"):
        open_book(path)


# ---------------------------------------------------------------------------------------------- stable keys

_KEY_SCRIPT = (
    "from engine import Board\n"
    "from engine.book import position_key, zobrist_fingerprint\n"
    "b = Board()\n"
    "keys = [position_key(b)]\n"
    "for m in 'g1f3h g8f6e e2e4 d7d5 e4d5 f6d5'.split():\n"
    "    b.push_uci(m); keys.append(position_key(b))\n"
    "print(zobrist_fingerprint(), *keys)\n"
)


def _keys_here() -> str:
    board = Board()
    keys = [position_key(board)]
    for move in "g1f3h g8f6e e2e4 d7d5 e4d5 f6d5".split():
        board.push_uci(move)
        keys.append(position_key(board))
    return " ".join(str(number) for number in [zobrist_fingerprint(), *keys])


@pytest.mark.parametrize("interpreter", [sys.executable, "pypy3"])
def test_book_keys_are_the_same_in_another_process_and_interpreter(interpreter: str) -> None:
    if shutil.which(interpreter) is None:
        pytest.skip(f"{interpreter} is not installed")
    env = dict(os.environ, PYTHONHASHSEED="12345", PYTHONPATH=str(REPO))
    out = subprocess.run([interpreter, "-c", _KEY_SCRIPT], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=2 * STARTUP_S, check=True).stdout.strip()  # PyPy starts slower than CPython
    assert out == _keys_here()
    assert len(set(out.split()[1:])) == 7  # every position has its own key


def test_gates_are_part_of_the_key() -> None:
    moved_and_back = Board()
    for move in "g1f3 g8f6 f3g1 f6g8".split():
        moved_and_back.push_uci(move)
    assert moved_and_back.fen().split()[0] == START.fen().split()[0]  # same pieces and hands ...
    assert position_key(moved_and_back) != position_key(START)  # ... but the knights' gates are gone


# ---------------------------------------------------------------------------------------------- Polyglot keys

# Published in the Polyglot book format specification (and used by python-chess's own tests).
SPEC_VECTORS = [
    ("", 0x463B96181691FC9C),
    ("e2e4", 0x823C9B50FD114196),
    ("e2e4 d7d5", 0x0756B94461C50FB0),
    ("e2e4 d7d5 e4e5", 0x662FAFB965DB29D4),
    ("e2e4 d7d5 e4e5 f7f5", 0x22A48B5A8E47FF78),
    ("e2e4 d7d5 e4e5 f7f5 e1e2", 0x652A607CA3F242C1),
    ("e2e4 d7d5 e4e5 f7f5 e1e2 e8f7", 0x00FDD303C946BDD9),
    ("a2a4 b7b5 h2h4 b5b4 c2c4", 0x3C8123EA7B067637),
    ("a2a4 b7b5 h2h4 b5b4 c2c4 b4c3 a1a3", 0x5C3F9B829B279560),
]


def test_polyglot_random_table_is_the_one_python_chess_uses() -> None:
    assert list(POLYGLOT_RANDOM_ARRAY) == list(chess.polyglot.POLYGLOT_RANDOM_ARRAY)
    assert len(POLYGLOT_RANDOM_ARRAY) == 781


@pytest.mark.parametrize("moves, expected", SPEC_VECTORS)
def test_polyglot_key_matches_the_spec_test_vectors(moves: str, expected: int) -> None:
    board = Board(variant="chess")
    for move in moves.split():
        board.push_uci(move)
    assert zobrist_hash(board) == expected


def _chess960_start(rng: random.Random) -> Tuple[Board, chess.Board]:
    reference = chess.Board.from_chess960_pos(rng.randrange(960))
    return Board(reference.shredder_fen(), variant="chess", chess960=True), reference


def _random_game_pairs(seed: int, games: int, plies: int, chess960: bool) -> List[Tuple[Board, chess.Board]]:
    """Positions of random games played in step on engine.Board and python-chess, with captures and pawn
    pushes preferred now and then so that en passant and lost castling rights come up."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        if chess960:
            board, reference = _chess960_start(rng)
        else:
            board, reference = Board(variant="chess"), chess.Board()
        for _ in range(plies):
            moves = list(reference.legal_moves)
            if not moves:
                break
            pawn_moves = [m for m in moves if reference.piece_type_at(m.from_square) == chess.PAWN]
            move = rng.choice(pawn_moves if pawn_moves and rng.random() < 0.5 else moves)
            board.push_uci(move.uci())
            reference.push(move)
            out.append((board.copy(), reference.copy()))
    return out


@pytest.mark.parametrize("chess960", [False, True])
def test_polyglot_keys_match_python_chess_on_random_positions(chess960: bool) -> None:
    pairs = _random_game_pairs(7 + chess960, games=20, plies=50, chess960=chess960)
    with_ep = with_castling = 0
    for board, reference in pairs:
        assert zobrist_hash(board) == chess.polyglot.zobrist_hash(reference), reference.fen()
        with_ep += reference.has_legal_en_passant() or bool(reference.ep_square and board.ep >= 0)
        with_castling += bool(reference.castling_rights)
    assert with_ep >= 10 and with_castling >= 100  # the cases the key treats specially did come up


def test_polyglot_en_passant_key_only_when_a_pawn_can_take() -> None:
    quiet = Board("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", variant="chess")
    lonely = Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", variant="chess")
    for board in (quiet, lonely):
        reference = chess.Board(board.fen())
        assert zobrist_hash(board) == chess.polyglot.zobrist_hash(reference)
    assert zobrist_hash(quiet) ^ zobrist_hash(Board(quiet.fen().replace(" e3 ", " - "), variant="chess")) == \
        POLYGLOT_RANDOM_ARRAY[772 + 4]
    assert zobrist_hash(lonely) == zobrist_hash(Board(lonely.fen().replace(" e3 ", " - "), variant="chess"))


# ---------------------------------------------------------------------------------------------- Polyglot moves


def _polyglot_raw(reference: chess.Board, move: chess.Move) -> int:
    """The Polyglot encoding of a python-chess move: castling as king takes rook, promotion piece - 1."""
    to_square = move.to_square
    if reference.is_castling(move) and not reference.chess960:
        rank = chess.square_rank(move.from_square) * 8
        to_square = rank + (7 if chess.square_file(move.to_square) > chess.square_file(move.from_square) else 0)
    promotion = move.promotion - 1 if move.promotion else 0
    return to_square | move.from_square << 6 | promotion << 12


def _write_polyglot(path: Path, rows: List[Tuple[int, int, int, int]]) -> None:
    """A Polyglot file: sorted by key (a stable sort: the entries of a key keep their order)."""
    path.write_bytes(b"".join(struct.pack(">QHHI", *row) for row in sorted(rows, key=lambda row: row[0])))


@pytest.mark.parametrize("chess960", [False, True])
def test_polyglot_moves_match_python_chess_incl_castling_promotion_and_illegal_entries(
    tmp_path: Path, chess960: bool
) -> None:
    rng = random.Random(11 + chess960)
    pairs = _random_game_pairs(3 + chess960, games=8, plies=40, chess960=chess960)
    # Positions where castling and promotion are legal, so that their encodings are exercised for sure.
    extra = ["r3k2r/pPppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
             "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PpPBBPPP/R3K2R b KQkq - 0 1"]
    for fen in extra:
        reference = chess.Board(fen, chess960=chess960)
        pairs.append((Board(reference.shredder_fen() if chess960 else fen, variant="chess", chess960=chess960),
                      reference))
    rows: Dict[Tuple[int, int], Tuple[int, int, int, int]] = {}
    for _, reference in pairs:
        key = chess.polyglot.zobrist_hash(reference)
        for move in reference.legal_moves:
            raw = _polyglot_raw(reference, move)
            rows[(key, raw)] = (key, raw, rng.randrange(0, 4), rng.randrange(1 << 32))
        for _ in range(3):  # entries that are not legal here: both readers must skip them
            raw = rng.randrange(1 << 15)
            rows.setdefault((key, raw), (key, raw, 1, 0))
    path = tmp_path / "random.bin"
    _write_polyglot(path, list(rows.values()))
    castles = promotions = 0
    with open_book(path) as book, chess.polyglot.open_reader(path) as reference_book:
        assert isinstance(book, PolyglotBook)
        for board, reference in pairs:
            for min_weight in (0, 2):
                ours = [entry.move for entry in book.find_all(board, min_weight=min_weight)]
                theirs = [entry.move.uci() for entry in reference_book.find_all(reference, minimum_weight=min_weight)]
                assert ours == theirs, reference.fen()
            for move in ours:
                parsed = reference.parse_uci(move)
                castles += reference.is_castling(parsed)
                promotions += parsed.promotion is not None
    assert castles >= 4 and promotions >= 8


def test_polyglot_castling_is_translated_to_the_boards_notation(tmp_path: Path) -> None:
    fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
    e1h1, e1a1 = encode_polyglot_raw("e1h1"), encode_polyglot_raw("e1a1")
    key = chess.polyglot.zobrist_hash(chess.Board(fen))
    path = tmp_path / "castle.bin"
    _write_polyglot(path, [(key, e1h1, 10, 0), (key, e1a1, 5, 0)])
    with open_book(path) as book:
        assert [entry.move for entry in book.find_all(Board(fen, variant="chess"))] == ["e1g1", "e1c1"]
        shredder = Board(fen.replace("KQkq", "HAha"), variant="chess", chess960=True)
        assert zobrist_hash(shredder) == key
        assert [entry.move for entry in book.find_all(shredder)] == ["e1h1", "e1a1"]
        assert book.choose(Board(), selection="best_move") is None  # an S-chess board: Polyglot has no keys


def encode_polyglot_raw(uci: str) -> int:
    move = chess.Move.from_uci(uci)
    return move.to_square | move.from_square << 6


# ---------------------------------------------------------------------------------------------- selection


@pytest.fixture
def start_book(tmp_path: Path) -> SchessBook:
    key = position_key(START)
    after_e4 = _key_after("e2e4")
    path = tmp_path / "select.book"
    write_book(path, [
        Entry(key, "e2e4", 60), Entry(key, "g1f3h", 30), Entry(key, "d2d4", 10), Entry(key, "b2b3", 0),
        Entry(key, "e2e5", 500),  # illegal: never returned, whatever its weight
        Entry(key, "h1h3", 400),  # illegal too (the rook is blocked)
        Entry(after_e4, "e7e5", 5),
    ])
    book = open_book(path)
    assert isinstance(book, SchessBook)
    return book


def test_find_all_returns_only_legal_moves_with_enough_weight(start_book: SchessBook) -> None:
    assert [e.move for e in start_book.find_all(START)] == ["e2e4", "g1f3h", "d2d4"]
    assert [e.move for e in start_book.find_all(START, min_weight=0)] == ["e2e4", "g1f3h", "d2d4", "b2b3"]
    assert [e.move for e in start_book.find_all(START, min_weight=30)] == ["e2e4", "g1f3h"]


def test_best_move_takes_the_heaviest_legal_entry(start_book: SchessBook) -> None:
    assert start_book.choose(START, selection="best_move") == "e2e4"


def test_weighted_random_follows_the_weights(start_book: SchessBook) -> None:
    rng = random.Random(5)
    counts = collections.Counter(start_book.choose(START, rng=rng) for _ in range(3000))
    assert set(counts) == {"e2e4", "g1f3h", "d2d4"}
    assert counts["e2e4"] > counts["g1f3h"] > counts["d2d4"] > 150
    assert 0.55 < counts["e2e4"] / 3000 < 0.65


def test_uniform_random_ignores_the_weights_above_min_weight(start_book: SchessBook) -> None:
    rng = random.Random(9)
    counts = collections.Counter(start_book.choose(START, selection="uniform_random", rng=rng) for _ in range(3000))
    assert set(counts) == {"e2e4", "g1f3h", "d2d4"}
    assert min(counts.values()) > 850
    only_zero = collections.Counter(
        start_book.choose(START, selection="weighted_random", min_weight=0, rng=rng) for _ in range(2000))
    assert "b2b3" not in only_zero  # weight 0 is never drawn by weight when others weigh more


def test_max_depth_counts_plies_from_the_start_of_the_game(start_book: SchessBook) -> None:
    board = Board()
    assert start_book.choose(board, max_depth=0) is None
    assert start_book.choose(board, max_depth=1) is not None
    board.push_uci("e2e4")
    assert start_book.choose(board, max_depth=1) is None
    assert start_book.choose(board, max_depth=2) == "e7e5"
    # A game set up from a FEN counts from that FEN: no move played yet.
    from_fen = Board(board.fen())
    assert start_book.choose(from_fen, max_depth=1) == "e7e5"


def test_out_of_book_positions_and_other_variants_get_none(start_book: SchessBook) -> None:
    board = Board()
    board.push_uci("a2a3")
    assert start_book.choose(board) is None
    assert start_book.choose(Board(variant="chess")) is None
    with pytest.raises(ValueError, match="selection"):
        start_book.choose(START, selection="best")


def test_a_position_with_only_illegal_book_moves_is_out_of_book(tmp_path: Path) -> None:
    board = Board()
    for move in "g1f3h g8f6h".split():  # both Hawks gated: no more Hawk gating
        board.push_uci(move)
    path = tmp_path / "stale.book"
    write_book(path, [Entry(position_key(board), "b1c3h", 100), Entry(position_key(board), "f3e5h", 100)])
    with open_book(path) as book:
        assert book.find_all(board, min_weight=0) == []
        assert book.choose(board, selection="best_move") is None


# ---------------------------------------------------------------------------------------------- the shipped book


def test_shipped_book_is_small_and_every_move_reached_from_the_start_is_legal() -> None:
    assert os.path.getsize(DEFAULT_BOOK) < 64 * 1024
    with open_book(DEFAULT_BOOK) as book:
        assert isinstance(book, SchessBook) and book.variant == "seirawan" and not book.chess960
        stored_keys = {entry.key for entry in book}
        seen = set()
        frontier = [Board()]
        while frontier:
            board = frontier.pop()
            key = position_key(board)
            if key in seen:
                continue
            seen.add(key)
            stored = book.entries_for_key(key)
            legal = book.find_all(board, min_weight=0)
            assert [e.move for e in legal] == [e.move for e in stored]  # nothing stale or illegal
            for entry in legal:
                child = board.copy()
                child.push_uci(entry.move)
                frontier.append(child)
        assert seen >= stored_keys  # every stored position lies on a book line
        assert len(seen) > 20 and book.choose(Board(), selection="best_move") is not None


# ---------------------------------------------------------------------------------------------- the builder

PGN = """[Event "pychess.org"]
[White "a"]
[Black "b"]
[Result "1-0"]
[Variant "Seirawan"]

1. e4 d5 2. exd5 Qxd5/E 3. Nc3 Qf5 {a comment} 4. d4 (4. Nf3 Nf6) Nf6 5. Nf3 $1 Nc6 6. d5 Ne4
7. dxc6 Nc5 8. Qxd8/E# 1-0

[Event "second"]
[Result "1/2-1/2"]
[Variant "Seirawan"]

1. Nf3/H Nf6/E 1/2-1/2
"""


def test_pgn_games_are_read_with_gating_san_and_weighted_by_result() -> None:
    games = list(read_pgn_games(PGN))
    assert [game.result for game in games] == ["1-0", "1/2-1/2"]
    assert games[0].moves[:4] == ["e2e4", "d7d5", "e4d5", "d8d5e"] and games[0].moves[-1] == "d1d8e"
    assert len(games[0].moves) == 15
    book = BookMoves()
    assert add_games(book, games, max_plies=4) == 2
    start = book.positions[position_key(START)]
    assert (start["e2e4"].weight, start["g1f3h"].weight) == (2, 1)  # a win for white, a draw
    assert book.positions[_key_after("e2e4")]["d7d5"].weight == 0  # black lost that game


def test_pgn_with_an_illegal_move_names_the_game() -> None:
    with pytest.raises(ValueError, match="game 1"):
        list(read_pgn_games('[Variant "Seirawan"]\n\n1. e4 e5 2. Ke3 *\n'))


def test_build_from_uci_games_then_dump(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "games.txt"
    games.write_text("# two games\ng1f3h g8f6e e2e4 1-0\ng1f3h d7d5 0-1\n\ne2e4 e7e5\n")
    assert len(list(read_uci_games(games.read_text()))) == 3
    out = tmp_path / "games.book"
    assert book_main(["build", "-o", str(out), "--uci", str(games), "--max-plies", "2"]) == 0
    with open_book(out) as book:
        assert book.choose(Board(), selection="best_move") == "g1f3h"  # 2 (win) + 0 (loss) vs 1 (draw)
    capsys.readouterr()
    assert book_main(["dump", str(out)]) == 0
    dumped = capsys.readouterr().out
    assert "g1f3h" in dumped and "Nf3/H" in dumped and "(start)" in dumped


def test_deepest_complete_multipv_iteration_is_used() -> None:
    by_depth = {
        11: {1: PvLine("d2d4", 115), 2: PvLine("c2c4", 97), 3: PvLine("g1f3", 76)},
        12: {1: PvLine("d2d4", 81)},  # stopped by the node limit half way
    }
    assert best_complete_iteration(by_depth) == [PvLine("d2d4", 115), PvLine("c2c4", 97), PvLine("g1f3", 76)]
    shuffled = {5: {1: PvLine("e2e4", 10), 2: PvLine("e2e4", 30), 3: PvLine("d2d4", 20)}}
    assert best_complete_iteration(shuffled) == [PvLine("e2e4", 30), PvLine("d2d4", 20)]


# ---------------------------------------------------------------------------------------------- UCI OwnBook


class Recorder:
    def __init__(self) -> None:
        self.lines: List[str] = []

    def __call__(self, line: str) -> None:
        self.lines.append(line)


def _go(engine: UciFrontEnd, recorder: Recorder, position: str) -> str:
    recorder.lines.clear()
    engine.handle(position)
    engine.handle("go depth 1")
    engine.wait()
    return [line for line in recorder.lines if line.startswith("bestmove")][-1].split()[1]


def test_uci_plays_book_moves_only_with_own_book_on(tmp_path: Path) -> None:
    path = tmp_path / "uci.book"
    write_book(path, [Entry(position_key(START), "b1a3e", 7), Entry(_key_after("b1a3e"), "h7h6", 3)])
    recorder = Recorder()
    engine = UciFrontEnd(recorder)
    engine.handle("uci")
    assert "option name OwnBook type check default false" in recorder.lines
    assert f"option name BookFile type string default {DEFAULT_BOOK}" in recorder.lines
    engine.handle(f"setoption name BookFile value {path}")
    assert _go(engine, recorder, "position startpos") != "b1a3e"  # OwnBook is off by default
    assert not any("book move" in line for line in recorder.lines)
    engine.handle("setoption name OwnBook value true")
    assert _go(engine, recorder, "position startpos") == "b1a3e"
    assert "info string book move b1a3e" in recorder.lines
    assert _go(engine, recorder, "position startpos moves b1a3e") == "h7h6"
    assert _go(engine, recorder, "position startpos moves b1a3e h7h6") != ""  # out of book: a search
    assert not any("book move" in line for line in recorder.lines)
    assert any(line.startswith("info depth 1") for line in recorder.lines)


def test_uci_bad_book_file_is_reported_and_the_engine_searches(tmp_path: Path) -> None:
    bad = tmp_path / "bad.book"
    bad.write_bytes(b"garbage")
    recorder = Recorder()
    engine = UciFrontEnd(recorder)
    engine.handle("setoption name OwnBook value true")
    engine.handle(f"setoption name BookFile value {bad}")
    move = _go(engine, recorder, "position startpos")
    assert move in {m.uci() for m in Board().legal_moves}
    errors = [line for line in recorder.lines if line.startswith("info string error")]
    assert len(errors) == 1 and "bad.book" in errors[0]


def test_uci_default_book_answers_the_start_position() -> None:
    recorder = Recorder()
    engine = UciFrontEnd(recorder)
    engine.handle("setoption name OwnBook value true")
    move = _go(engine, recorder, "position startpos")
    with open_book(DEFAULT_BOOK) as book:
        assert move in {entry.move for entry in book.find_all(Board())}
    assert f"info string book move {move}" in recorder.lines
