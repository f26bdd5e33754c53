"""Opening books for the bot's games (the ``engine.polyglot`` settings): the S-chess book format and Polyglot
books, read with :mod:`engine.book`. Each file is opened once per process and shared by the games (reading
a book never changes it)."""

from __future__ import annotations

import functools
import logging
import random

from bot.config import BUILTIN_BOOK, BookSettings
from engine import Board
from engine.book import DEFAULT_BOOK, Book, BookError, open_book

log = logging.getLogger(__name__)


@functools.cache
def _book(path: str) -> Book:
    return open_book(DEFAULT_BOOK if path == BUILTIN_BOOK else path)


def check_books(settings: BookSettings) -> None:
    """Open every configured book (at start-up). Raises :class:`engine.book.BookError` naming the file."""
    if settings.enabled:
        for paths in settings.books.values():
            for path in paths:
                _book(path)


def book_move(settings: BookSettings, variant_name: str, board: Board,
              rng: random.Random | None = None) -> str | None:
    """A move from the first book of this variant that has the position, as UCI legal on ``board``; None
    when the books are off, past ``max_depth``, or none has the position."""
    if not settings.enabled:
        return None
    for path in settings.books.get(variant_name, ()):
        try:
            move = _book(path).choose(board, selection=settings.selection,
                                      min_weight=settings.min_weight, max_depth=settings.max_depth, rng=rng)
        except BookError as error:
            log.warning("opening book %s cannot be read (%s); playing without it", path, error)
            continue
        if move is not None:
            return move
    return None
