"""Opening books through the bot: a Polyglot book for chess (the format lichess-bot reads) and the S-chess
book shipped with the engine, each chosen per variant in ``engine.polyglot``."""

from __future__ import annotations

import logging
import struct
from pathlib import Path

import chess
import chess.polyglot
import pytest

from bot.loopback import LoopbackServer, Scripted
from engine import Board
from engine.book import DEFAULT_BOOK, open_book
from tests.e2e.conftest import BotThread, assert_clean_game, bot_config
from tests.timing import GAME_S


def polyglot_book(path: Path, lines: list[list[str]]) -> Path:
    """A Polyglot book with weight 1 for each move of each line (UCI), as the Polyglot format stores it."""
    rows = []
    for line in lines:
        board = chess.Board()
        for uci in line:
            move = chess.Move.from_uci(uci)
            to_square = move.to_square
            if board.is_castling(move):  # Polyglot stores castling as king takes rook
                to_square = chess.square(7 if chess.square_file(to_square) > 4 else 0, chess.square_rank(to_square))
            raw = to_square | move.from_square << 6
            rows.append((chess.polyglot.zobrist_hash(board), raw, 1, 0))
            board.push(move)
    path.write_bytes(b"".join(struct.pack(">QHHI", *row) for row in sorted(rows)))
    return path


def test_chess_opening_moves_come_from_a_polyglot_book(
    lichess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    book = polyglot_book(tmp_path / "book.bin", [["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]])
    game_id = lichess_server.challenge(variant="chess", color="black",
                                       opponent=Scripted(["e7e5", "b8c6", "resign"]))
    config = bot_config(lichess_server, tmp_path, challenge={"variants": ["chess"]},
                        engine={"polyglot": {"enabled": True, "book": {"standard": str(book)},
                                             "selection": "best_move"}})
    bots.append(BotThread(config, max_games=1).start())
    game = lichess_server.wait_for_game_end(game_id, GAME_S)
    assert bots[0].join(GAME_S) == 0
    assert_clean_game(game)
    assert game.bot_moves() == ["e2e4", "g1f3", "f1b5"], "every move the book has, in book order"
    book_lines = [r.getMessage() for r in caplog.records if "(book move)" in r.getMessage()]
    assert len(book_lines) == 3, book_lines


def test_s_chess_starts_from_the_shipped_book_until_max_depth(
    pychess_server: LoopbackServer, tmp_path: Path, bots: list[BotThread], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    game_id = pychess_server.challenge(color="black", opponent=Scripted(["e7e5", "resign"]))
    config = bot_config(pychess_server, tmp_path,
                        engine={"polyglot": {"enabled": True, "max_depth": 1, "selection": "best_move"}})
    bots.append(BotThread(config, max_games=1).start())
    game = pychess_server.wait_for_game_end(game_id, GAME_S)
    assert bots[0].join(GAME_S) == 0
    assert_clean_game(game)
    first = game.bot_moves()[0]
    with open_book(DEFAULT_BOOK) as book:
        entries = book.find_all(Board())
    assert first == max(entries, key=lambda entry: entry.weight).move
    book_lines = [r.getMessage() for r in caplog.records if "(book move)" in r.getMessage()]
    assert len(book_lines) == 1, "max_depth 1: only the first move comes from the book"
