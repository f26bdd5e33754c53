"""The public S-chess board: python-chess style names over the int-coded core in :mod:`engine.position`.
The same class plays S-House (``variant="shouse"``: drops written ``P@e4``) and standard chess.

>>> board = Board()
>>> board.push_uci("g1f3h")
Move.from_uci('g1f3h')
>>> board.san(board.parse_uci("g8f6e"))
'Nf6/E'
>>> board.fen()
'rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKBHR[Eeh] b KQBCDFkqbcdfg - 1 1'
"""

from __future__ import annotations

import enum
import re
from typing import Iterator

from .movecodes import CASTLE, CASTLE_ROOK_GATE, DROP, PLACE, PROMOTION, move_from, move_kind, move_piece, move_to
from .position import Position
from .san import IllegalMoveError as IllegalMoveError  # re-exported: it was always engine.board.IllegalMoveError
from .san import parse_san_code, san_of_code
from .tables import (
    BISHOP,
    ELEPHANT,
    HAWK,
    KING,
    PAWN,
    PIECE_SYMBOLS,
    QUEEN,
    ROOK,
    SQUARE_NAMES,
    SYMBOL_TO_TYPE,
    parse_square,
)
from .variants import PLACEMENT

WHITE = True
BLACK = False

# The letters and piece types of Board.pockets: S-chess, then drop variants.
_POCKET_LETTERS = ((("H", 7), ("E", 8)),
                   tuple((letter, SYMBOL_TO_TYPE[letter.lower()]) for letter in "PNBRQHE"))


class Move:
    """A move as Fairy-Stockfish writes it in UCI: squares 0..63 (a1 = 0), promotion and gate piece types.

    Castling is written like the server writes it: ``e1g1`` (or ``e1h1`` in Chess960), a gate on the king's
    square as ``e1g1h``, a gate on the rook's square as rook square to king square, ``h1e1h``. A drop
    (S-House) has ``drop`` set to the piece type and ``from_square == to_square``, as in python-chess, and is
    written with the uppercase letter for both colours: ``P@e4``.
    Moves compare equal when their UCI strings are equal. Moves produced by a :class:`Board` also carry the
    internal code that :meth:`Board.push` plays without searching the legal moves.

    A placement (placement S-chess) has ``drop`` set to the piece type placed and both squares on the square
    of the piece it goes behind, as python-chess writes drops: ``H@b1`` (upper case for either side).
    """

    __slots__ = ("from_square", "to_square", "promotion", "gate", "drop", "_code")

    def __init__(
        self, from_square: int, to_square: int, promotion: int | None = None, gate: int | None = None,
        drop: int | None = None,
    ) -> None:
        self.from_square = from_square
        self.to_square = to_square
        self.promotion = promotion
        self.gate = gate
        self.drop = drop
        self._code: int | None = None

    def uci(self) -> str:
        """The UCI string, e.g. ``g1f3h``, ``N@e5`` or ``H@b1`` (a placement)."""
        if self.drop:
            return PIECE_SYMBOLS[self.drop].upper() + "@" + SQUARE_NAMES[self.to_square]
        suffix = ""
        if self.promotion:
            suffix = PIECE_SYMBOLS[self.promotion]
        elif self.gate:
            suffix = PIECE_SYMBOLS[self.gate]
        return SQUARE_NAMES[self.from_square] + SQUARE_NAMES[self.to_square] + suffix

    @classmethod
    def from_uci(cls, text: str) -> Move:
        """A Move from its UCI text without a position (a trailing letter on a move to the last rank is a
        promotion, otherwise a gate). Prefer :meth:`Board.parse_uci`, which also checks legality."""
        if isinstance(text, str) and _DROP_UCI.fullmatch(text):
            square_index = parse_square(text[2:])
            return cls(square_index, square_index, drop=SYMBOL_TO_TYPE[text[0].lower()])
        if not isinstance(text, str) or not re.fullmatch(r"[a-h][1-8][a-h][1-8][pnbrqkhe]?", text.lower()):
            raise IllegalMoveError(f"invalid uci: {text!r}")
        text = text.lower()
        frm, to = parse_square(text[:2]), parse_square(text[2:4])
        piece = SYMBOL_TO_TYPE[text[4]] if len(text) == 5 else None
        if piece and (to >> 3) in (0, 7) and (frm >> 3) in (1, 6):
            return cls(frm, to, promotion=piece)
        return cls(frm, to, gate=piece)

    def __str__(self) -> str:
        return self.uci()

    def __repr__(self) -> str:
        return f"Move.from_uci({self.uci()!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return (
            self.from_square == other.from_square
            and self.to_square == other.to_square
            and self.promotion == other.promotion
            and self.gate == other.gate
            and self.drop == other.drop
        )

    def __hash__(self) -> int:
        return hash((self.from_square, self.to_square, self.promotion, self.gate, self.drop))


_DROP_UCI = re.compile(r"[PNBRQHEpnbrqhe]@[a-h][1-8]")


def _move_from_code(code: int, chess960: bool) -> Move:
    frm = move_from(code)
    to = move_to(code)
    piece = move_piece(code)
    flag = move_kind(code)
    if flag == CASTLE_ROOK_GATE:
        move = Move(to, frm, gate=piece)  # written rook square -> king square
    elif flag == CASTLE and not chess960:
        king_to = (frm & 56) + (6 if to > frm else 2)
        move = Move(frm, king_to, gate=piece or None)
    elif flag == PROMOTION:
        move = Move(frm, to, promotion=piece)
    elif flag == DROP or flag == PLACE:
        move = Move(to, to, drop=piece)
    else:
        move = Move(frm, to, gate=piece or None)
    move._code = code
    return move


# Interned Move objects per code (castling codes read differently in Chess960).
_MOVE_CACHE: tuple[dict[int, Move], dict[int, Move]] = ({}, {})


class Termination(enum.Enum):
    """Why a game ended."""

    CHECKMATE = enum.auto()
    STALEMATE = enum.auto()
    INSUFFICIENT_MATERIAL = enum.auto()
    FIFTY_MOVES = enum.auto()
    THREEFOLD_REPETITION = enum.auto()


class Outcome:
    """The end of a game: a :class:`Termination` and the winner (True white, False black, None draw)."""

    __slots__ = ("termination", "winner")

    def __init__(self, termination: Termination, winner: bool | None) -> None:
        self.termination = termination
        self.winner = winner

    def result(self) -> str:
        """``1-0``, ``0-1`` or ``1/2-1/2``."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner else "0-1"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Outcome):
            return NotImplemented
        return (self.termination, self.winner) == (other.termination, other.winner)

    def __repr__(self) -> str:
        return f"Outcome(termination={self.termination}, winner={self.winner})"


class LegalMoveGenerator:
    """The legal moves of a board: iterable, sized, supports ``in`` (like python-chess)."""

    __slots__ = ("_board",)

    def __init__(self, board: Board) -> None:
        self._board = board

    def __iter__(self) -> Iterator[Move]:
        return iter(self._board._moves_of(self._board.legal_moves_codes()))

    def __len__(self) -> int:
        return len(self._board.legal_moves_codes())

    def count(self) -> int:
        return len(self)

    def __bool__(self) -> bool:
        return bool(self._board.legal_moves_codes())

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and move in self._board._moves_of(self._board.legal_moves_codes())

    def __repr__(self) -> str:
        return f"<LegalMoveGenerator ({', '.join(m.uci() for m in self)})>"


class Board(Position):
    """An S-chess (S-House, standard chess) position with its move history.

    ``Board(fen=None, *, variant="seirawan", chess960=False)``: ``fen=None`` is the variant's start position;
    ``variant`` is one of ``engine.variants.VARIANTS`` (``"seirawan"``, ``"shouse"``, ``"chess"``,
    ``"seirawan-placement"``, ``"seirawan-forced-entry"``); ``chess960`` switches to Chess960 castling and
    Shredder-style castling fields. An invalid FEN raises ValueError naming the problem.
    """

    def __init__(self, fen: str | None = None, *, variant: str = "seirawan", chess960: bool = False) -> None:
        super().__init__(fen, variant, chess960)
        self.move_stack: list[Move] = []
        self._cache = _MOVE_CACHE[1 if self.chess960 else 0]

    # ------------------------------------------------------------------ state

    @property
    def turn(self) -> bool:
        """True when white is to move."""
        return self.side == 1

    @property
    def halfmove_clock(self) -> int:
        return self.halfmove

    @property
    def fullmove_number(self) -> int:
        return (self.start_ply + self.ply) // 2 + 1

    @property
    def legal_moves(self) -> LegalMoveGenerator:
        return LegalMoveGenerator(self)

    def legal_moves_codes(self) -> list[int]:
        return self.generate_legal()

    def _moves_of(self, codes: list[int]) -> list[Move]:
        cache = self._cache
        chess960 = self.chess960
        out = []
        for code in codes:
            move = cache.get(code)
            if move is None:
                move = cache[code] = _move_from_code(code, chess960)
            out.append(move)
        return out

    def move_of(self, code: int) -> Move:
        """The Move object for an internal move code of this position."""
        return self._moves_of([code])[0]

    def piece_at(self, sq: int) -> str | None:
        """The FEN letter of the piece on a square (uppercase white), or None."""
        p = self.squares[sq]
        if not p:
            return None
        symbol = PIECE_SYMBOLS[abs(p)]
        return symbol.upper() if p > 0 else symbol

    def pockets(self) -> dict[bool, dict[str, int]]:
        """Pieces in hand by uppercase letter: ``{WHITE: {"H": 1, "E": 1}, BLACK: {...}}`` in S-chess; in
        S-House every piece type that can be in hand (``P N B R Q H E``), counts 0 included."""
        letters = _POCKET_LETTERS[1 if self.drops else 0]
        return {
            WHITE: {letter: self.hand[piece] for letter, piece in letters},
            BLACK: {letter: self.hand[-piece] for letter, piece in letters},
        }

    def copy(self) -> Board:
        """An independent copy, history included."""
        new = Board.__new__(Board)
        new.__dict__.update(self.__dict__)  # the attributes of Board itself
        self.copy_state_to(new)  # those of Position (slots in the compiled build, not in __dict__)
        new.accumulator = None  # an accumulator follows one position
        new.move_stack = self.move_stack[:]
        return new

    def __repr__(self) -> str:
        return f"Board({self.fen()!r}, variant={self.variant!r}, chess960={self.chess960})"

    def __str__(self) -> str:
        rows = []
        for rank in range(7, -1, -1):
            rows.append(" ".join(self.piece_at(rank * 8 + f) or "." for f in range(8)))
        return "\n".join(rows)

    # ------------------------------------------------------------------ moves

    def _code_of(self, move: Move) -> int:
        """The code of a legal move, found among the legal moves; IllegalMoveError otherwise."""
        if not isinstance(move, Move):
            raise IllegalMoveError(f"not a move: {move!r} in {self.fen()}")
        for code in self.legal_moves_codes():
            candidate = self.move_of(code)
            if candidate == move:
                return code
        raise IllegalMoveError(f"illegal move: {move.uci()!r} in {self.fen()}")

    def push(self, move: Move) -> None:
        """Play a move. Moves from this board's ``legal_moves`` or parse methods are played as they are;
        any other Move is looked up among the legal moves (IllegalMoveError if it is not one)."""
        code = move._code
        if code is None:
            code = self._code_of(move)
        self.make(code)
        self.move_stack.append(move)

    def pop(self) -> Move:
        """Take back the last move and return it."""
        if not self.move_stack:
            raise IndexError("pop from an empty move stack")
        self.unmake()
        return self.move_stack.pop()

    def peek(self) -> Move:
        return self.move_stack[-1]

    def parse_uci(self, uci: str) -> Move:
        """The legal move written in UCI. Also accepted: uppercase gate letters, castling written the other way
        (king takes rook ``e1h1`` in standard chess, king to target ``e1g1`` in Chess960), and in placement
        S-chess a move that brings its placed piece in written without the letter (``g1f3`` for ``g1f3h``,
        ``e1g1`` for ``h1e1h``)."""
        if isinstance(uci, str) and _DROP_UCI.fullmatch(uci):
            text = uci[0].upper() + uci[1:]
            for move in self._moves_of(self.legal_moves_codes()):
                if move.drop and move.uci() == text:
                    return move
            raise IllegalMoveError(f"illegal uci: {uci!r} in {self.fen()}")
        if not isinstance(uci, str) or not re.fullmatch(r"[a-h][1-8][a-h][1-8][pnbrqkhePNBRQKHE]?", uci):
            raise IllegalMoveError(f"invalid uci: {uci!r} in {self.fen()}")
        else:
            text = uci[:4] + uci[4:].lower()
        codes = self.legal_moves_codes()
        moves = self._moves_of(codes)
        for move in moves:
            if move.uci() == text:
                return move
        # Castling in the other notation, only where no ordinary move has that text.
        for code, move in zip(codes, moves, strict=True):
            if move_kind(code) == CASTLE:
                frm, rook = move_from(code), move_to(code)
                if self.chess960:
                    king_to = (frm & 56) + (6 if rook > frm else 2)
                    alias = SQUARE_NAMES[frm] + SQUARE_NAMES[king_to]
                else:
                    alias = SQUARE_NAMES[frm] + SQUARE_NAMES[rook]
                if move.gate:
                    alias += PIECE_SYMBOLS[move.gate]
                if alias == text:
                    return move
        # A move that brings its piece in by itself (placement S-chess) may be written without the letter, and
        # castling that brings it in on the rook's square as the king's move (e1g1 for h1e1h).
        if len(text) == 4 and self.entry_rule == PLACEMENT:
            for code, move in zip(codes, moves):  # noqa: B905 - no strict= on Python 3.9 (PyPy runs the engine)
                frm = move_from(code)
                if move_kind(code) == CASTLE_ROOK_GATE:
                    king_to = (frm & 56) + (6 if move_to(code) > frm else 2)
                    written = SQUARE_NAMES[frm] + SQUARE_NAMES[king_to]
                else:
                    written = move.uci()[:4] if move.gate else ""
                if written == text:
                    return move
        raise IllegalMoveError(f"illegal uci: {uci!r} in {self.fen()}")

    def push_uci(self, uci: str) -> Move:
        """Parse a UCI move, check that it is legal, play it and return it."""
        move = self.parse_uci(uci)
        self.push(move)
        return move

    def san(self, move: Move) -> str:
        """Standard algebraic notation exactly as Fairy-Stockfish writes it (``Nf3/H``, ``O-O/Eh1``, ``b8=H``).

        One deliberate difference: when the gated piece blocks a discovered check, Fairy-Stockfish still
        writes ``+``; this method reports the position as it really is (no check)."""
        code = move._code
        if code is None or code not in self.legal_moves_codes():
            code = self._code_of(move)
        return san_of_code(self, code)

    def parse_san(self, san: str) -> Move:
        """The legal move written in SAN (tolerant of ``+``/``#``/``!``/``?`` suffixes, ``0-0``, a missing
        ``=`` before the promotion piece and a castling gate without its square when unambiguous).

        Fairy-Stockfish never disambiguates gating moves: when two rooks on their gates can both reach d1
        and gate, it writes ``Rd1/H`` for either. Such text raises IllegalMoveError ("ambiguous"); the
        spelling with the origin (``Rad1/H``) is accepted."""
        return self.move_of(parse_san_code(self, san))

    def push_san(self, san: str) -> Move:
        """Parse a SAN move, play it and return it."""
        move = self.parse_san(san)
        self.push(move)
        return move

    # ------------------------------------------------------------------ game end

    def is_check(self) -> bool:
        return self.in_check()

    def is_checkmate(self) -> bool:
        return self.in_check() and not self.legal_moves_codes()

    def is_stalemate(self) -> bool:
        return not self.in_check() and not self.legal_moves_codes()

    def hand_count(self, side: int) -> int:
        """How many pieces ``side`` (1 white, -1 black) holds in hand."""
        return sum(self.hand[piece * side] for piece in range(PAWN, ELEPHANT + 1))

    def has_insufficient_material(self, side: int) -> bool:
        """Fairy-Stockfish's rule for one side: no pieces in hand and at most a lone minor piece that cannot
        mate (a knight with no helper, or bishops on one colour only). Never in a drop variant, where every
        capture fills a hand."""
        if self.drops or self.hand_count(side):
            return False
        squares = list(self.squares)  # a list in both builds (the compiled build's board is a C array)
        own = [abs(p) for p in squares if p * side > 0 and p != KING * side]
        if any(p in (PAWN, ROOK, QUEEN, HAWK, ELEPHANT) for p in own):
            return False
        others = [(sq, abs(p)) for sq, p in enumerate(squares) if p and abs(p) != KING]
        bishops = [sq for sq, p in others if p == BISHOP]
        colours = {((sq & 7) + (sq >> 3)) & 1 for sq in bishops}
        if any(p == BISHOP for p in own):
            unbound = [sq for sq, p in others if p != BISHOP]
            return len(colours) == 1 and not unbound
        if own:  # knights
            return len(others) < 2
        return True

    def is_insufficient_material(self) -> bool:
        """Neither side can mate (Fairy-Stockfish's rule; any piece in hand is enough to mate)."""
        return self.has_insufficient_material(1) and self.has_insufficient_material(-1)

    def is_fifty_moves(self) -> bool:
        """Fifty moves by each side without a capture or a pawn move."""
        return self.halfmove >= 100

    def is_repetition(self, count: int = 3) -> bool:
        """The current position has occurred ``count`` times (gate rights are ignored, as on the server; in a
        drop variant captures and drops do not end the window, as in Fairy-Stockfish)."""
        key = self.hash
        seen = 1
        n = self.undo_len
        window = n if self.drops else min(self.halfmove, n)
        for i in range(n - 1, n - 1 - window, -1):
            if self.undo_hash(i) == key:
                seen += 1
                if seen >= count:
                    return True
        return seen >= count

    def can_claim_threefold_repetition(self) -> bool:
        """The current position has occurred three times (the server then ends the game as a draw)."""
        return self.is_repetition(3)

    def outcome(self, *, claim_draw: bool = False) -> Outcome | None:
        """The game's end, or None. Without ``claim_draw``: checkmate, stalemate, insufficient material.
        With it, also the 50-move rule and threefold repetition, as pychess.org adjudicates."""
        if not self.legal_moves_codes():
            if self.in_check():
                return Outcome(Termination.CHECKMATE, not self.turn)
            return Outcome(Termination.STALEMATE, None)
        if self.is_insufficient_material():
            return Outcome(Termination.INSUFFICIENT_MATERIAL, None)
        if claim_draw:
            if self.is_fifty_moves():
                return Outcome(Termination.FIFTY_MOVES, None)
            if self.can_claim_threefold_repetition():
                return Outcome(Termination.THREEFOLD_REPETITION, None)
        return None

    def is_game_over(self, *, claim_draw: bool = False) -> bool:
        return self.outcome(claim_draw=claim_draw) is not None

    def result(self, *, claim_draw: bool = False) -> str:
        """``1-0``, ``0-1``, ``1/2-1/2``, or ``*`` while the game goes on."""
        outcome = self.outcome(claim_draw=claim_draw)
        return outcome.result() if outcome else "*"
