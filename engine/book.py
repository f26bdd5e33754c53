"""Opening books: the engine's own S-chess book format and Polyglot ``.bin`` books, behind one API.

>>> from engine import Board
>>> from engine.book import open_book, DEFAULT_BOOK
>>> with open_book(DEFAULT_BOOK) as book:
...     book.choose(Board(), selection="best_move") in {move.uci() for move in Board().legal_moves}
True

- **S-chess books** (``*.book``, format in ``docs/book.md``): a 32-byte header and 16-byte entries keyed by the
  engine's own Zobrist key (:func:`position_key`: ``Position.hash`` with the gates mixed in, like the
  transposition table), so they hold gating moves (``g1f3h``, ``h1e1h``) and pieces in hand. The header
  carries a fingerprint of the engine's Zobrist tables: a book written with other keys is refused instead of
  silently missing every position.
- **Polyglot books** (``*.bin``) for standard chess and Chess960, read the way python-chess (and so
  lichess-bot) reads them: Polyglot Zobrist keys (:func:`zobrist_hash`), castling stored as king takes rook
  and translated to the board's notation, promotions, weights.

Whatever the file says, :meth:`Book.find_all` and :meth:`Book.choose` only return moves that are legal on the
board they are given (checked against its legal moves), written in that board's UCI notation.
"""

from __future__ import annotations

import mmap
import os
import random
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Iterable, Iterator, List, Literal, Optional, Set, Type, Union

from .board import Board, IllegalMoveError
from .polyglot_random import POLYGLOT_RANDOM_ARRAY
from .position import Position
from .tables import (
    KING,
    PIECE_SYMBOLS,
    SQUARE_NAMES,
    SYMBOL_TO_TYPE,
    ZOBRIST_CASTLING,
    ZOBRIST_EP,
    ZOBRIST_HAND,
    ZOBRIST_PIECE,
    ZOBRIST_SIDE,
    parse_square,
    squares_of,
)

PathLike = Union[str, "os.PathLike[str]"]

#: The S-chess book shipped with the engine (the S-chess start position, a few plies deep).
DEFAULT_BOOK = str(Path(__file__).resolve().parent / "data" / "seirawan.book")

#: Ways :meth:`Book.choose` picks among the book moves of a position (lichess-bot's names).
Selection = Literal["weighted_random", "best_move", "uniform_random"]
SELECTIONS: tuple[Selection, ...] = ("weighted_random", "best_move", "uniform_random")

BOOK_MAGIC = b"SCHESSBK"
BOOK_VERSION = 1
FLAG_CHESS960 = 1
# magic, version, flags, variant (ASCII, NUL-padded), Zobrist fingerprint, entry count: 32 bytes.
HEADER_STRUCT = struct.Struct(">8sHH8sQI")
# key, move, weight, score (centipawns from the mover's side, NO_SCORE when unknown): 16 bytes.
BOOK_ENTRY_STRUCT = struct.Struct(">QHHi")
NO_SCORE = -(2**31)
# key, move, weight, learn: the Polyglot entry, 16 bytes.
POLYGLOT_ENTRY_STRUCT = struct.Struct(">QHHI")
MAX_WEIGHT = 0xFFFF

_UCI_RE = re.compile(r"[a-h][1-8][a-h][1-8][pnbrqkhe]?")
_MASK64 = (1 << 64) - 1


class BookError(ValueError):
    """A book file that cannot be used: missing, unreadable, of an unknown format or damaged. The message
    names the file."""


@dataclass(frozen=True)
class Entry:
    """One book entry.

    ``key``: the position key (:func:`position_key` for S-chess books, :func:`zobrist_hash` for Polyglot).
    ``move``: UCI text; from :meth:`Book.find_all` it is the legal move in the board's own notation, from
    iterating over a book it is the text as stored (Polyglot castling as king takes rook, ``e1h1``).
    ``weight``: 0..65535, higher is better. ``learn``: Polyglot's learn field (0 in S-chess books).
    ``score``: the evaluation in centipawns from the mover's side that the book builder recorded, or None.
    """

    key: int
    move: str
    weight: int
    learn: int = 0
    score: Optional[int] = None


# ---------------------------------------------------------------------------------------------- keys


#: How gates enter a book key. Books keep their own mixing, fixed by the file format, so that changes to the
#: search's transposition-table key never invalidate a book.
GATE_MIX = 0x9E3779B97F4A7C15
_MASK63 = (1 << 63) - 1


def position_key(board: Position) -> int:
    """The S-chess book key of a position: the engine's Zobrist key (pieces, side to move, castling rights,
    en passant square when a capture is possible, pieces in hand) with the gates mixed in.

    The Zobrist numbers come from ``random.Random(0x5C4E55)`` in :mod:`engine.tables`: the Mersenne Twister
    with an integer seed gives the same numbers in every process, on CPython and PyPy alike (checked by the
    tests), and :func:`zobrist_fingerprint` lets a reader notice if they ever change.
    """
    return board.hash ^ (board.gates * GATE_MIX & _MASK63)


def zobrist_fingerprint() -> int:
    """A 64-bit digest (FNV-1a over the numbers) of every Zobrist number :func:`position_key` uses; stored in
    each S-chess book so that a book and an engine with different keys refuse to work together."""
    numbers: list[int] = []
    for code in list(range(1, 9)) + list(range(-8, 0)):
        numbers += ZOBRIST_PIECE[code]
    numbers.append(ZOBRIST_SIDE)
    numbers += ZOBRIST_CASTLING
    numbers += ZOBRIST_EP
    for code in (7, 8, -7, -8):
        numbers += ZOBRIST_HAND[code]
    numbers.append(GATE_MIX)
    digest = 0xCBF29CE484222325
    for number in numbers:
        for byte in number.to_bytes(8, "big"):
            digest = ((digest ^ byte) * 0x100000001B3) & _MASK64
    return digest


def zobrist_hash(board: Position) -> int:
    """The Polyglot key of a standard chess (or Chess960) position, as ``chess.polyglot.zobrist_hash``
    computes it: pieces, castling rights (short/long per side, as python-chess reads them in Chess960 too),
    the en passant file only when a pawn of the side to move stands ready to take (legality aside), and the
    side to move. Pieces in hand and Hawk/Elephant have no Polyglot key: use it for ``variant="chess"``."""
    randoms = POLYGLOT_RANDOM_ARRAY
    key = 0
    for sq, piece in enumerate(board.squares):
        if piece:
            kind = 2 * (abs(piece) - 1) + (1 if piece > 0 else 0)
            if kind >= 12:
                raise ValueError(f"no Polyglot key for the piece on {SQUARE_NAMES[sq]} in {board.fen()}")
            key ^= randoms[64 * kind + sq]
    castling_slots = set()
    for rook_sq in squares_of(board.castling):
        colour = 0 if rook_sq < 8 else 1
        king_sq = board.king_sq[colour]
        castling_slots.add(768 + 2 * colour + (0 if (rook_sq & 7) > (king_sq & 7) else 1))
    for slot in castling_slots:
        key ^= randoms[slot]
    if board.ep >= 0:  # the engine keeps an en passant square only when a pawn of the side to move can take
        key ^= randoms[772 + (board.ep & 7)]
    if board.side == 1:
        key ^= randoms[780]
    return key


# ---------------------------------------------------------------------------------------------- moves


def encode_move(uci: str) -> int:
    """The 16-bit move of an S-chess book entry: to square (bits 0-5), from square (6-11), and the
    promotion or gate piece (12-15: 0 none, else the piece type 1..8 of ``p n b r q k h e``)."""
    if not isinstance(uci, str) or not _UCI_RE.fullmatch(uci):
        raise ValueError(f"invalid UCI move for a book: {uci!r}")
    suffix = SYMBOL_TO_TYPE[uci[4]] if len(uci) == 5 else 0
    return parse_square(uci[2:4]) | parse_square(uci[:2]) << 6 | suffix << 12


def decode_move(raw: int) -> str:
    """The UCI text of a 16-bit S-chess book move (inverse of :func:`encode_move`)."""
    suffix = raw >> 12 & 15
    return SQUARE_NAMES[raw >> 6 & 63] + SQUARE_NAMES[raw & 63] + (PIECE_SYMBOLS[suffix] if suffix else "")


def decode_polyglot_move(raw: int) -> str:
    """The UCI text of a Polyglot move as stored (castling stays king takes rook, ``e1h1``): to square in bits
    0-5, from square in bits 6-11, promotion in bits 12-14 (1 knight, 2 bishop, 3 rook, 4 queen). Encodings
    no chess move has (drops, other promotion codes) read as the null move ``0000``."""
    promotion = raw >> 12 & 7
    frm, to = raw >> 6 & 63, raw & 63
    if promotion > 4 or frm == to:
        return "0000"
    return SQUARE_NAMES[frm] + SQUARE_NAMES[to] + ("nbrq"[promotion - 1] if promotion else "")


def _legal_uci(board: Board, uci: str, legal: Optional[Set[str]] = None) -> Optional[str]:
    """The move in ``board``'s own notation when it is legal there, else None. ``legal``: the UCI texts of the
    board's legal moves, when the caller already has them (only a king move can then need a second look: the
    other castling notation, which :meth:`Board.parse_uci` accepts)."""
    if legal is not None:
        if uci in legal:
            return uci
        if len(uci) < 4 or board.squares[parse_square(uci[:2])] != KING * board.side:
            return None
    try:
        return board.parse_uci(uci).uci()
    except (IllegalMoveError, ValueError):
        return None


def _polyglot_to_board(board: Board, uci: str, legal: Set[str]) -> Optional[str]:
    """A Polyglot move as a legal move of ``board`` in its notation, or None. Castling is king takes rook in
    the book: :meth:`Board.parse_uci` reads that as ``e1g1`` on a standard board (and it is the notation of
    Chess960 boards)."""
    return None if uci == "0000" else _legal_uci(board, uci, legal)


# ---------------------------------------------------------------------------------------------- books


class Book:
    """An opened opening book. Use :func:`open_book`; close it (or use ``with``) when done.

    Subclasses provide the raw lookup; the selection rules live here, once, for the UCI front end and the bot.
    """

    path: str

    def __init__(self, path: str, data: Union[bytes, mmap.mmap], offset: int, entry_size: int) -> None:
        self.path = path
        self._data = data
        self._offset = offset
        self._entry_size = entry_size
        self._count = (len(data) - offset) // entry_size

    # -- raw access -------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return self._count

    def _key_at(self, index: int) -> int:
        start = self._offset + index * self._entry_size
        return int.from_bytes(self._data[start:start + 8], "big")

    def _entry_at(self, index: int) -> Entry:
        raise NotImplementedError

    def __iter__(self) -> Iterator[Entry]:
        """All entries in file order, moves as stored."""
        for index in range(self._count):
            yield self._entry_at(index)

    def entries_for_key(self, key: int) -> List[Entry]:
        """The stored entries of one key, in file order (moves as stored, not checked)."""
        lo, hi = 0, self._count
        while lo < hi:
            mid = (lo + hi) // 2
            if self._key_at(mid) < key:
                lo = mid + 1
            else:
                hi = mid
        found = []
        while lo < self._count and self._key_at(lo) == key:
            found.append(self._entry_at(lo))
            lo += 1
        return found

    def key(self, board: Board) -> Optional[int]:
        """The key of ``board`` in this book, or None when the book cannot hold its variant."""
        raise NotImplementedError

    def _to_board_move(self, board: Board, entry: Entry, legal: Set[str]) -> Optional[str]:
        raise NotImplementedError

    # -- lookup and selection -----------------------------------------------------------------------------

    def find_all(self, board: Board, *, min_weight: int = 1) -> List[Entry]:
        """The entries of the position with ``weight >= min_weight`` whose move is legal on ``board``, in file
        order, each with its move in the board's own UCI notation. Empty when the position is not in the book
        or the book is for another variant."""
        key = self.key(board)
        if key is None:
            return []
        out: List[Entry] = []
        stored = [entry for entry in self.entries_for_key(key) if entry.weight >= min_weight]
        if not stored:
            return out
        legal = {move.uci() for move in board.legal_moves}
        for entry in stored:
            move = self._to_board_move(board, entry, legal)
            if move is not None:
                out.append(Entry(entry.key, move, entry.weight, entry.learn, entry.score))
        return out

    def choose(
        self,
        board: Board,
        *,
        selection: Selection = "weighted_random",
        min_weight: int = 1,
        max_depth: Optional[int] = None,
        rng: Optional[random.Random] = None,
    ) -> Optional[str]:
        """A book move for ``board`` as UCI text in the board's notation (always legal there), or None.

        ``selection``: ``"weighted_random"`` (chance proportional to the weight), ``"best_move"`` (the highest
        weight; the first in the file on a tie) or ``"uniform_random"``. ``min_weight``: entries below it are
        ignored. ``max_depth``: the book is used only while fewer than this many plies have been played since
        the game's start (``len(board.move_stack)``, the moves pushed on the board since its start FEN); None
        for no limit. ``rng``: the random source (a fresh ``random.Random()`` when None).
        """
        if selection not in SELECTIONS:
            raise ValueError(f"unknown book selection {selection!r}: expected one of {', '.join(SELECTIONS)}")
        if max_depth is not None and len(board.move_stack) >= max_depth:
            return None
        entries = self.find_all(board, min_weight=min_weight)
        if not entries:
            return None
        if selection == "best_move":
            return max(entries, key=lambda entry: entry.weight).move
        rng = rng or random.Random()
        total = sum(entry.weight for entry in entries)
        if selection == "uniform_random" or total == 0:
            return rng.choice(entries).move
        pick = rng.randrange(total)
        for entry in entries:
            pick -= entry.weight
            if pick < 0:
                return entry.move
        raise AssertionError("unreachable: the weights add up to the total")

    # -- resources --------------------------------------------------------------------------------------

    def close(self) -> None:
        """Release the file (Polyglot books are memory-mapped)."""
        data = self._data
        if isinstance(data, mmap.mmap):
            data.close()
        self._data = b""
        self._count = 0

    def __enter__(self) -> Book:
        return self

    def __exit__(
        self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.path!r} ({len(self)} entries)>"


class SchessBook(Book):
    """A book in the engine's own format (see ``docs/book.md``): S-chess and chess, gating moves included."""

    def __init__(self, path: str, data: bytes) -> None:
        if len(data) < HEADER_STRUCT.size:
            raise BookError(f"{path}: truncated S-chess book ({len(data)} bytes, the header alone is 32)")
        magic, version, flags, variant_bytes, fingerprint, count = HEADER_STRUCT.unpack_from(data)
        if magic != BOOK_MAGIC:
            raise BookError(f"{path}: not an S-chess book (no {BOOK_MAGIC.decode()} header)")
        if version != BOOK_VERSION:
            raise BookError(f"{path}: S-chess book format version {version}, this engine reads {BOOK_VERSION}")
        expected_size = HEADER_STRUCT.size + count * BOOK_ENTRY_STRUCT.size
        if len(data) != expected_size:
            raise BookError(f"{path}: damaged S-chess book: {len(data)} bytes, the header promises {expected_size}")
        if fingerprint != zobrist_fingerprint():
            raise BookError(
                f"{path}: written with other Zobrist keys (fingerprint {fingerprint:016x}, this engine has "
                f"{zobrist_fingerprint():016x}); rebuild it with python -m tools.book"
            )
        self.variant = variant_bytes.rstrip(b"\0").decode("ascii", "replace")
        self.chess960 = bool(flags & FLAG_CHESS960)
        super().__init__(path, data, HEADER_STRUCT.size, BOOK_ENTRY_STRUCT.size)
        keys = [self._key_at(index) for index in range(count)]
        if keys != sorted(keys):
            raise BookError(f"{path}: damaged S-chess book: entries are not sorted by key")

    def _entry_at(self, index: int) -> Entry:
        key, raw, weight, score = BOOK_ENTRY_STRUCT.unpack_from(self._data, self._offset + index * self._entry_size)
        return Entry(key, decode_move(raw), weight, 0, None if score == NO_SCORE else score)

    def key(self, board: Board) -> Optional[int]:
        if board.variant != self.variant or board.chess960 != self.chess960:
            return None
        return position_key(board)

    def _to_board_move(self, board: Board, entry: Entry, legal: Set[str]) -> Optional[str]:
        return _legal_uci(board, entry.move, legal)


class PolyglotBook(Book):
    """A Polyglot ``.bin`` book, memory-mapped, for ``variant="chess"`` boards (Chess960 included)."""

    def __init__(self, path: str, data: Union[bytes, mmap.mmap]) -> None:
        if len(data) % POLYGLOT_ENTRY_STRUCT.size:
            raise BookError(
                f"{path}: not a Polyglot book (its size, {len(data)} bytes, is not a multiple of 16)"
            )
        super().__init__(path, data, 0, POLYGLOT_ENTRY_STRUCT.size)
        # A full sortedness check would read a whole 100 MB book; the first entries catch most wrong files.
        head = [self._key_at(index) for index in range(min(self._count, 64))]
        if head != sorted(head):
            raise BookError(f"{path}: not a Polyglot book (its keys are not sorted)")

    def _entry_at(self, index: int) -> Entry:
        key, raw, weight, learn = POLYGLOT_ENTRY_STRUCT.unpack_from(self._data, index * self._entry_size)
        return Entry(key, decode_polyglot_move(raw), weight, learn, None)

    def key(self, board: Board) -> Optional[int]:
        return zobrist_hash(board) if board.variant == "chess" else None

    def _to_board_move(self, board: Board, entry: Entry, legal: Set[str]) -> Optional[str]:
        return _polyglot_to_board(board, entry.move, legal)


def encode_polyglot_move(uci: str) -> int:
    """The 16-bit Polyglot move of UCI text as a book stores it (castling already written king takes rook)."""
    if not isinstance(uci, str) or not re.fullmatch(r"[a-h][1-8][a-h][1-8][nbrq]?", uci):
        raise ValueError(f"invalid UCI move for a Polyglot book: {uci!r}")
    promotion = "nbrq".index(uci[4]) + 1 if len(uci) == 5 else 0
    return parse_square(uci[2:4]) | parse_square(uci[:2]) << 6 | promotion << 12


def open_book(path: PathLike) -> Book:
    """Open an opening book, telling the format by its content: the ``SCHESSBK`` header is an S-chess book,
    anything else must be a Polyglot book (by convention ``.bin``). Raises :class:`BookError` naming the file
    when it is missing, unreadable, empty-but-not-Polyglot or damaged."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as stream:
            head = stream.read(len(BOOK_MAGIC))
            if head == BOOK_MAGIC:
                return SchessBook(name, head + stream.read())
            if name.endswith(".book"):
                raise BookError(f"{name}: not an S-chess book (no {BOOK_MAGIC.decode()} header)")
            size = os.fstat(stream.fileno()).st_size
            if size == 0:
                return PolyglotBook(name, b"")
            return PolyglotBook(name, mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ))
    except OSError as error:
        raise BookError(f"{name}: cannot read the book: {error.strerror or error}") from error


def write_book(
    path: PathLike, entries: Iterable[Entry], *, variant: str = "seirawan", chess960: bool = False
) -> int:
    """Write an S-chess book; returns the number of entries. Entries are sorted by key, then by weight (highest
    first), then by move. A key/move pair may appear only once; weights must be 0..65535 and scores fit in
    32 bits. The file is written to a temporary name and renamed, so readers never see half a book."""
    if variant not in ("seirawan", "chess"):
        raise ValueError(f"unknown variant {variant!r}")
    rows = []
    seen = set()
    for entry in entries:
        if not 0 <= entry.key <= _MASK64:
            raise ValueError(f"book key out of range: {entry.key!r}")
        if not 0 <= entry.weight <= MAX_WEIGHT:
            raise ValueError(f"weight of {entry.move} must be 0..{MAX_WEIGHT}, got {entry.weight}")
        score = NO_SCORE if entry.score is None else entry.score
        if not NO_SCORE < score < 2**31 and entry.score is not None:
            raise ValueError(f"score of {entry.move} does not fit in 32 bits: {entry.score}")
        if (entry.key, entry.move) in seen:
            raise ValueError(f"duplicate book entry: key {entry.key:016x} move {entry.move}")
        seen.add((entry.key, entry.move))
        rows.append((entry.key, -entry.weight, entry.move, encode_move(entry.move), score))
    rows.sort()
    header = HEADER_STRUCT.pack(
        BOOK_MAGIC, BOOK_VERSION, FLAG_CHESS960 if chess960 else 0, variant.encode("ascii"), zobrist_fingerprint(),
        len(rows),
    )
    body = b"".join(BOOK_ENTRY_STRUCT.pack(key, raw, -negative, score) for key, negative, _, raw, score in rows)
    name = os.fspath(path)
    temporary = name + ".tmp"
    with open(temporary, "wb") as stream:
        stream.write(header + body)
    os.replace(temporary, name)
    return len(rows)


__all__ = [
    "DEFAULT_BOOK", "SELECTIONS", "Book", "BookError", "Entry", "PolyglotBook", "SchessBook", "Selection",
    "decode_move", "decode_polyglot_move", "encode_move", "encode_polyglot_move", "open_book", "position_key",
    "write_book", "zobrist_fingerprint", "zobrist_hash",
]
