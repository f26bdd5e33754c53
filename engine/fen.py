"""FEN reading and writing, as Fairy-Stockfish does it: :func:`read_fen` loads a FEN into a position (it tests
the side not to move for check with the move generator's attack test), :func:`write_fen` writes one;
:meth:`engine.position.Position.set_fen` and ``fen`` call them.

Input: the hand in brackets after the board in any order (or as a ninth rank, or absent = empty), castling
as ``KQkq``, Shredder or X-FEN files, and gate file letters mixed in (``KQBCDFGkqbcdfg``); a letter naming an
empty square is dropped; in S-House a ``~`` after a piece marks it promoted. Output: exactly Fairy-Stockfish's
text (hand in the order ``E H Q R B N P``, white first, as ``[EHeh]``; castling rights then gate letters, in
S-chess gate letters only while that side has something in hand, in S-House always).
Placement S-chess writes its placed pieces in the castling field instead of gate letters
(:func:`engine.entry_rules.placement_field`).
"""

from __future__ import annotations

from collections.abc import Sequence

from .entry_rules import check_placed, parse_placement_field, placement_field, placement_hash
from .movegen import MoveGenerator
from .state import mask_hash
from .tables import (
    BACK_RANK_MASK,
    BETWEEN,
    BISHOP,
    ELEPHANT,
    FILE_NAMES,
    GATE_TYPES,
    HAWK,
    KING,
    KNIGHT,
    PAWN,
    PAWN_ATTACKERS_BLACK,
    PAWN_ATTACKERS_WHITE,
    PIECE_SYMBOLS,
    QUEEN,
    ROOK,
    SQUARE_NAMES,
    SYMBOL_TO_TYPE,
    ZOBRIST_CASTLING,
    ZOBRIST_EP,
    ZOBRIST_PIECE,
    ZOBRIST_POCKET,
    ZOBRIST_SIDE,
    parse_square,
    square,
    squares_of,
)
from .variants import DROP_VARIANTS, GATING_VARIANTS, PLACEMENT

# The order Fairy-Stockfish writes pieces in hand (its piece types from the highest down).
_HAND_ORDER = (ELEPHANT, HAWK, QUEEN, ROOK, BISHOP, KNIGHT, PAWN)
_MAX_PIECES = 62  # pieces on the board (kings aside) and in hand: a hand count stays below HAND_SLOTS


def fen_error(fen: str, reason: str) -> ValueError:
    return ValueError(f"invalid FEN {fen!r}: {reason}")



def read_fen(pos: MoveGenerator, fen: str) -> None:
    """Load a FEN (with optional ``[hand]`` after the board) into ``pos``; ValueError naming the problem."""
    if not isinstance(fen, str):
        raise ValueError(f"invalid FEN {fen!r}: expected a string")
    parts = fen.split()
    if not parts:
        raise fen_error(fen, "empty")
    if len(parts) > 6:
        raise fen_error(fen, f"{len(parts)} fields, expected at most 6")
    placement = parts[0]
    hand_text = ""
    if "[" in placement:
        if not placement.endswith("]") or placement.count("[") != 1:
            raise fen_error(fen, "malformed [hand] after the board")
        placement, hand_text = placement[:-1].split("[")
    elif placement.count("/") == 8:  # the hand as a ninth rank: .../RNBQKBNR/HEhe
        placement, hand_text = placement.rsplit("/", 1)
    rows = placement.split("/")
    if len(rows) != 8:
        raise fen_error(fen, f"{len(rows)} ranks, expected 8")
    drops = pos.variant in DROP_VARIANTS
    squares = [0] * 64
    promoted = 0
    for row_index, row in enumerate(rows):
        rank = 7 - row_index
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
            elif ch == "~":  # the piece before was promoted (meaningful in drop variants only)
                if drops and file > 0 and abs(squares[square(file - 1, rank)]) not in (0, PAWN, KING):
                    promoted |= 1 << square(file - 1, rank)
                continue
            else:
                piece_type = SYMBOL_TO_TYPE.get(ch.lower())
                if piece_type is None or (pos.variant not in GATING_VARIANTS and piece_type > KING):
                    raise fen_error(fen, f"invalid piece {ch!r} on rank {rank + 1}")
                if file > 7:
                    raise fen_error(fen, f"rank {rank + 1} has more than 8 squares")
                squares[square(file, rank)] = piece_type if ch.isupper() else -piece_type
                file += 1
        if file != 8:
            raise fen_error(fen, f"rank {rank + 1} has {file} squares, expected 8")
    hand = [0] * 17
    for ch in hand_text:
        if ch == "-":
            continue
        piece_type = SYMBOL_TO_TYPE.get(ch.lower())
        if drops:
            if piece_type is None or piece_type == KING:
                raise fen_error(fen, f"invalid piece {ch!r} in hand")
        elif piece_type not in GATE_TYPES or pos.variant not in GATING_VARIANTS:
            raise fen_error(fen, f"invalid piece {ch!r} in hand")
        hand[piece_type if ch.isupper() else -piece_type] += 1
    if max(hand) > (32 if drops else 15):
        raise fen_error(fen, "too many pieces in hand")
    if drops and sum(hand) + 64 - squares.count(0) - 2 > _MAX_PIECES:
        raise fen_error(fen, "too many pieces")

    turn_text = parts[1] if len(parts) > 1 else "w"
    if turn_text not in ("w", "b"):
        raise fen_error(fen, f"side to move {turn_text!r}, expected 'w' or 'b'")
    side = 1 if turn_text == "w" else -1

    kings = [sq for sq in range(64) if squares[sq] == KING], [sq for sq in range(64) if squares[sq] == -KING]
    for color_name, found in zip(("white", "black"), kings, strict=True):
        if len(found) != 1:
            raise fen_error(fen, f"{len(found)} {color_name} kings, expected 1")
    for sq in list(range(8)) + list(range(56, 64)):
        if abs(squares[sq]) == PAWN:
            raise fen_error(fen, f"pawn on {SQUARE_NAMES[sq]}")

    pos.squares = squares
    pos.side = side
    pos.king_sq = [kings[0][0], kings[1][0]]
    pos.hand = hand
    pos.drops = drops
    pos.first_gate = KNIGHT if drops else HAWK
    pos.promoted = promoted
    # The castling field: castling rights and gates, and in placement S-chess the placed pieces written in it.
    rights, placed = parse_placement_field(pos, fen_error, fen, parts[2] if len(parts) > 2 else "-")
    _parse_castling(pos, fen, rights)
    check_placed(pos, fen_error, fen, placed)

    pos.ep = -1
    ep_text = parts[3] if len(parts) > 3 else "-"
    if ep_text != "-":
        try:
            ep = parse_square(ep_text)
        except ValueError:
            raise fen_error(fen, f"invalid en passant square {ep_text!r}") from None
        # Like Fairy-Stockfish: keep it only if a pawn of the side to move can capture there and an enemy
        # pawn stands in front of it with both squares behind empty.
        push = 8 * side
        attackers = PAWN_ATTACKERS_WHITE[ep] if side == 1 else PAWN_ATTACKERS_BLACK[ep]
        if (
            (ep >> 3) == (5 if side == 1 else 2)
            and side in [squares[a] for a in attackers]
            and squares[ep - push] == -side
            and squares[ep] == 0
            and squares[ep + push] == 0
        ):
            pos.ep = ep
    try:
        halfmove = int(parts[4]) if len(parts) > 4 else 0
        fullmove = int(parts[5]) if len(parts) > 5 else 1
    except ValueError:
        raise fen_error(fen, "move counters must be integers") from None
    if halfmove < 0 or fullmove < 0:
        raise fen_error(fen, "move counters must not be negative")
    if halfmove >= 1 << 31:  # a C int in the compiled build
        raise fen_error(fen, f"halfmove clock {halfmove} is too large")
    pos.halfmove = halfmove
    pos.start_ply = max(2 * (fullmove - 1), 0) + (side == -1)
    pos.ply = 0
    pos.clear_undo()
    if pos.is_attacked(pos.king_sq[1 if side == 1 else 0], side):
        raise fen_error(fen, "the side not to move is in check")
    pos.hash = zobrist_hash(pos)


def _parse_castling(pos: MoveGenerator, fen: str, text: str) -> None:
    """Castling rights and gates, as Fairy-Stockfish reads them (KQkq, Shredder/X-FEN files, gate files)."""
    squares = pos.squares
    gating = pos.variant in GATING_VARIANTS and pos.entry_rule != PLACEMENT  # placement: no gate letters
    castle_king = [-1, -1]  # the king square castling starts from, per colour
    rights = 0
    order: list[int] = []  # rook squares in the order their rights were given (the last one per wing wins)
    gates = 0
    if text != "-":
        for ch in text:
            color = 0 if ch.isupper() else 1
            sign = 1 if color == 0 else -1
            base = 0 if color == 0 else 56
            up = ch.upper()
            if up == "K":
                rook_sq = max([base + f for f in range(8) if squares[base + f] == ROOK * sign], default=-1)
            elif up == "Q":
                rook_sq = min([base + f for f in range(8) if squares[base + f] == ROOK * sign], default=-1)
            elif up in FILE_NAMES.upper():
                rook_sq = base + FILE_NAMES.upper().index(up)
            else:
                raise fen_error(fen, f"invalid castling field {text!r}")
            if rook_sq < 0:
                continue
            if castle_king[color] < 0:
                king_sq = pos.king_sq[color]
                if pos.chess960 and squares[rook_sq] == KING * sign:
                    castle_king[color] = rook_sq
                elif base <= king_sq < base + 8:
                    castle_king[color] = king_sq
                else:
                    castle_king[color] = base + 4
            if gating:
                gates |= 1 << rook_sq
                if up in "KQ":
                    gates |= 1 << castle_king[color]
                elif pos._keeps_gates(sign):
                    continue  # a file letter names a gate, not a castling right, while the hand is not empty
            if squares[rook_sq] == ROOK * sign and castle_king[color] == pos.king_sq[color]:
                rights |= 1 << rook_sq
                order.append(rook_sq)
        if gating:
            # Chess960 gating FENs give castling rights through gate letters on the king and its rooks.
            for color, sign in ((0, 1), (1, -1)):
                if not pos._keeps_gates(sign):
                    continue
                king_sq = pos.king_sq[color]
                own_rights = rights & BACK_RANK_MASK[color]
                if gates >> king_sq & 1 and not own_rights:
                    for sq in squares_of(gates & BACK_RANK_MASK[color]):
                        if squares[sq] == ROOK * sign:
                            rights |= 1 << sq
                            order.append(sq)
    # Gates exist only on own back-rank pieces, and only while that side has something in hand.
    for color, sign in ((0, 1), (1, -1)):
        if not pos._keeps_gates(sign):
            gates &= ~BACK_RANK_MASK[color]
        else:
            for sq in squares_of(gates & BACK_RANK_MASK[color]):
                if squares[sq] * sign <= 0 or squares[sq] * sign == PAWN:
                    gates &= ~(1 << sq)
    pos.gates = gates
    pos.castling = 0
    pos._castle_info = {}
    # Per square, the castling rights a move from or to it keeps, as a 64-bit mask (all 64 bits, not -1:
    # make reads them into C unsigned ints in the compiled build).
    pos._castle_clear = [(1 << 64) - 1] * 64
    for rook_sq in order:
        _add_castling_right(pos, rook_sq)


def _add_castling_right(pos: MoveGenerator, rook_sq: int) -> None:
    color = 0 if rook_sq < 8 else 1
    king_sq = pos.king_sq[color]
    base = 0 if color == 0 else 56
    kingside = rook_sq > king_sq
    # One right per wing, as in Fairy-Stockfish: a later rook on the same wing replaces the earlier one,
    # and moving either rook still clears the right.
    for other in squares_of(pos.castling & BACK_RANK_MASK[color]):
        if (other > king_sq) == kingside:
            pos.castling &= ~(1 << other)
            pos._castle_clear[other] &= ~(1 << rook_sq)
    king_to = base + (6 if kingside else 2)
    rook_to = base + (5 if kingside else 3)
    path = (BETWEEN[rook_sq][rook_to] | 1 << rook_to | BETWEEN[king_sq][king_to] | 1 << king_to) & ~(
        1 << king_sq | 1 << rook_sq
    )
    pos.castling |= 1 << rook_sq
    # Squares as tuples, not masks: rank-8 masks reach bit 63, a big integer under PyPy.
    pos._castle_info[rook_sq] = (king_to, rook_to, tuple(squares_of(path)),
                                  tuple(squares_of(BETWEEN[king_sq][king_to] | 1 << king_to)))
    pos._castle_clear[rook_sq] &= ~(1 << rook_sq)
    pos._castle_clear[king_sq] &= ~(1 << rook_sq)


def zobrist_hash(pos: MoveGenerator) -> int:
    """The Zobrist key from scratch: pieces, side, castling rights, en passant file, pieces in hand."""
    h = 0
    for sq, p in enumerate(pos.squares):
        if p:
            h ^= ZOBRIST_PIECE[p][sq]
    if pos.side == -1:
        h ^= ZOBRIST_SIDE
    h ^= mask_hash(pos.castling, ZOBRIST_CASTLING)
    if pos.ep >= 0:
        h ^= ZOBRIST_EP[pos.ep]
    for piece in _HAND_ORDER:
        for code in (piece, -piece):
            h ^= ZOBRIST_POCKET[code][pos.hand[code]]
    return h ^ placement_hash(pos)


def board_field(squares: Sequence[int], promoted: int, hand: Sequence[int], gating: bool) -> str:
    """The FEN's first field as Fairy-Stockfish writes it: the ranks (a promoted piece marked ``~``), then, in a
    gating variant, the pieces in hand in brackets (``hand`` indexed by signed piece code)."""
    rows = []
    for rank in range(7, -1, -1):
        row = ""
        empty = 0
        for file in range(8):
            p = squares[rank * 8 + file]
            if p == 0:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            symbol = PIECE_SYMBOLS[abs(p)]
            row += symbol.upper() if p > 0 else symbol
            if promoted >> (rank * 8 + file) & 1:
                row += "~"
        if empty:
            row += str(empty)
        rows.append(row)
    board = "/".join(rows)
    if gating:
        board += (
            "["
            + "".join([PIECE_SYMBOLS[p].upper() * hand[p] for p in _HAND_ORDER])
            + "".join([PIECE_SYMBOLS[p] * hand[-p] for p in _HAND_ORDER])
            + "]"
        )
    return board


def write_fen(pos: MoveGenerator) -> str:
    """The FEN exactly as Fairy-Stockfish writes it for this variant."""
    board = board_field(list(pos.squares), pos.promoted, pos.hand, pos.variant in GATING_VARIANTS)
    castling = placement_field(pos) if pos.entry_rule == PLACEMENT else _castling_fen(pos)
    ep = SQUARE_NAMES[pos.ep] if pos.ep >= 0 else "-"
    fullmove = (pos.start_ply + pos.ply) // 2 + 1
    return f"{board} {'w' if pos.side == 1 else 'b'} {castling} {ep} {pos.halfmove} {fullmove}"


def _castling_fen(pos: MoveGenerator) -> str:
    out = ""
    for color, sign in ((0, 1), (1, -1)):
        mask = BACK_RANK_MASK[color]
        base = 0 if color == 0 else 56
        letters = FILE_NAMES.upper() if color == 0 else FILE_NAMES
        rights = pos.castling & mask
        king_sq = pos.king_sq[color]
        kingside = [sq for sq in squares_of(rights) if sq > king_sq]
        queenside = [sq for sq in squares_of(rights) if sq < king_sq]
        rook_files = set()
        for side_rooks, letter in ((kingside, "K"), (queenside, "Q")):
            for sq in side_rooks:
                rook_files.add(sq - base)
                if pos.chess960:
                    out += letters[sq - base]
                else:
                    out += letter if color == 0 else letter.lower()
        gates = pos.gates & mask
        if gates and pos._keeps_gates(sign):
            for sq in squares_of(gates):
                file = sq - base
                if file in rook_files:
                    continue
                if not pos.chess960 and rights and sq == king_sq:
                    continue
                out += letters[file]
    return out or "-"
