"""The ``engine.polyglot`` settings: validation with the key named, and the move the bot takes from a book."""

from __future__ import annotations

import random

import pytest

from bot.config import ConfigError, settings_from_dict
from bot.game.books import book_move
from engine import Board


def polyglot(**section: object) -> dict[str, object]:
    return {"engine": {"polyglot": section}}


def test_books_are_off_by_default_and_the_shipped_one_is_named_for_s_chess():
    settings = settings_from_dict({}).engine.polyglot
    assert not settings.enabled and settings.books == {"seirawan": ("builtin",)}
    assert book_move(settings, "seirawan", Board()) is None


@pytest.mark.parametrize(("section", "message"), [
    ({"selection": "sometimes"}, "engine.polyglot.selection"),
    ({"max_depth": 0}, "engine.polyglot.max_depth"),
    ({"book": {"shogi": "x.bin"}}, "engine.polyglot.book"),
    ({"book": {"chess": "/no/such/book.bin"}}, "no such book file"),
    ({"book": {"chess": 3}}, "engine.polyglot.book.chess"),
    ({"colour": "red"}, "engine.polyglot.colour"),
])
def test_bad_book_settings_name_the_key(section, message):
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        settings_from_dict(polyglot(**section))


def test_the_shipped_s_chess_book_gives_a_legal_move_and_stops_at_max_depth():
    settings = settings_from_dict(polyglot(enabled=True, max_depth=2)).engine.polyglot
    board = Board()
    first = book_move(settings, "seirawan", board, random.Random(1))
    assert first is not None and first in {move.uci() for move in board.legal_moves}
    board.push_uci(first)
    reply = book_move(settings, "seirawan", board, random.Random(1))
    if reply is not None:
        board.push_uci(reply)
        assert book_move(settings, "seirawan", board) is None, "two plies played: past max_depth"
    assert book_move(settings, "chess", Board(variant="chess")) is None, "no book for chess"
