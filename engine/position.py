"""The S-chess position: state, FEN, make/unmake and legal move generation, on plain ints.

This is the hot core shared by the search and the public :class:`engine.board.Board`. Moves here are ints
(see ``encode``); ``Board`` wraps them into :class:`engine.board.Move` objects at the API edge.

Board: a flat list of 64 signed piece codes (white > 0, black < 0, see :mod:`engine.tables`).

Move code layout (an int):

* bits 0-5: from square; for castling, the king's square
* bits 6-11: to square; for castling, the castling rook's square ("king takes rook", as in Chess960)
* bits 12-15: piece type of a promotion (flag PROMOTION) or of the piece gated in (any other flag); 0 = none
* bits 16-18: flag: NORMAL, DOUBLE_PUSH, EN_PASSANT, CASTLE (gate, if any, on the king's square),
  CASTLE_ROOK_GATE (gate on the rook's square), PROMOTION

Legality follows Fairy-Stockfish: a gating move is legal exactly when the same move without the gated piece is
legal (the gated piece can neither block a check nor shield the king).
"""

from __future__ import annotations

from .tables import (
    BETWEEN,
    BISHOP,
    BISHOP_RAYS,
    ELEPHANT,
    FILE_NAMES,
    HAWK,
    KING,
    KING_TARGETS,
    KNIGHT,
    KNIGHT_TARGETS,
    PAWN,
    PAWN_ATTACKERS_BLACK,
    PAWN_ATTACKERS_WHITE,
    PIECE_SYMBOLS,
    QUEEN,
    QUEEN_RAYS,
    ROOK,
    ROOK_RAYS,
    SQUARE_NAMES,
    SYMBOL_TO_TYPE,
    TAGGED_RAYS,
    ZOBRIST_CASTLING,
    ZOBRIST_EP,
    ZOBRIST_HAND,
    ZOBRIST_PIECE,
    ZOBRIST_SIDE,
    mask_hash,
    parse_square,
    square,
    squares_of,
)

NORMAL, DOUBLE_PUSH, EN_PASSANT, CASTLE, CASTLE_ROOK_GATE, PROMOTION = 0, 1, 2, 3, 4, 5

VARIANTS = ("seirawan", "chess")
START_FENS = {
    "seirawan": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 0 1",
    "chess": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
}

RANK_1_MASK = 0xFF
RANK_8_MASK = 0xFF << 56
BACK_RANK_MASK = (RANK_1_MASK, RANK_8_MASK)  # index 0: white, 1: black
GATE_TYPES = (HAWK, ELEPHANT)

# Signed codes of the attackers of a white (index 0) or black (index 1) king, by kind of attack.
_ORTHO_ENEMY = (frozenset((-ROOK, -QUEEN, -ELEPHANT)), frozenset((ROOK, QUEEN, ELEPHANT)))
_DIAG_ENEMY = (frozenset((-BISHOP, -QUEEN, -HAWK)), frozenset((BISHOP, QUEEN, HAWK)))
_LEAP_ENEMY = (frozenset((-KNIGHT, -HAWK, -ELEPHANT)), frozenset((KNIGHT, HAWK, ELEPHANT)))
# Squares holding enemy pawns that attack a square: for a white king look for black pawns, and vice versa.
_PAWN_ATTACK_FROM = (PAWN_ATTACKERS_BLACK, PAWN_ATTACKERS_WHITE)


def encode(frm: int, to: int, piece: int = 0, flag: int = NORMAL) -> int:
    """Pack a move into its int code (see the module docstring)."""
    return frm | to << 6 | piece << 12 | flag << 16


def fen_error(fen: str, reason: str) -> ValueError:
    return ValueError(f"invalid FEN {fen!r}: {reason}")


class Position:
    """Position state with make/unmake and legal move generation on int move codes.

    Attributes meant for readers (the search and Board): ``squares`` (64 signed codes), ``side`` (1 white,
    -1 black), ``king_sq`` ([white, black]), ``castling`` (bitmask of rook squares with a castling right),
    ``gates`` (bitmask of squares whose original piece has not moved yet, both colours, only while that
    side has pieces in hand), ``ep`` (en passant target square or -1), ``hand`` (17-slot list indexed by
    signed piece code), ``halfmove``, ``hash`` (Zobrist key of everything except gates).
    """

    def __init__(self, fen: str | None = None, variant: str = "seirawan", chess960: bool = False) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}: expected one of {', '.join(VARIANTS)}")
        self.variant = variant
        self.chess960 = bool(chess960)
        self.set_fen(START_FENS[variant] if fen is None else fen)

    # ------------------------------------------------------------------ FEN

    def set_fen(self, fen: str) -> None:
        """Load a FEN (with optional ``[hand]`` after the board); ValueError naming the problem."""
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
        squares = [0] * 64
        for row_index, row in enumerate(rows):
            rank = 7 - row_index
            file = 0
            for ch in row:
                if ch.isdigit():
                    file += int(ch)
                elif ch == "~":  # promoted-piece marker some tools write; no meaning here
                    continue
                else:
                    piece_type = SYMBOL_TO_TYPE.get(ch.lower())
                    if piece_type is None or (self.variant == "chess" and piece_type > KING):
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
            if piece_type not in GATE_TYPES or self.variant != "seirawan":
                raise fen_error(fen, f"invalid piece {ch!r} in hand")
            hand[piece_type if ch.isupper() else -piece_type] += 1
        if any(count > 15 for count in hand):
            raise fen_error(fen, "too many pieces in hand")

        turn_text = parts[1] if len(parts) > 1 else "w"
        if turn_text not in ("w", "b"):
            raise fen_error(fen, f"side to move {turn_text!r}, expected 'w' or 'b'")
        side = 1 if turn_text == "w" else -1

        kings = [sq for sq in range(64) if squares[sq] == KING], [sq for sq in range(64) if squares[sq] == -KING]
        for color_name, found in zip(("white", "black"), kings):
            if len(found) != 1:
                raise fen_error(fen, f"{len(found)} {color_name} kings, expected 1")
        for sq in list(range(8)) + list(range(56, 64)):
            if abs(squares[sq]) == PAWN:
                raise fen_error(fen, f"pawn on {SQUARE_NAMES[sq]}")

        self.squares = squares
        self.side = side
        self.king_sq = [kings[0][0], kings[1][0]]
        self.hand = hand
        self._parse_castling(fen, parts[2] if len(parts) > 2 else "-")

        self.ep = -1
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
                and any(squares[a] == side for a in attackers)
                and squares[ep - push] == -side
                and squares[ep] == 0
                and squares[ep + push] == 0
            ):
                self.ep = ep
        try:
            self.halfmove = int(parts[4]) if len(parts) > 4 else 0
            fullmove = int(parts[5]) if len(parts) > 5 else 1
        except ValueError:
            raise fen_error(fen, "move counters must be integers") from None
        if self.halfmove < 0 or fullmove < 0:
            raise fen_error(fen, "move counters must not be negative")
        self.start_ply = max(2 * (fullmove - 1), 0) + (side == -1)
        self.ply = 0
        self.stack: list[tuple[int, int, int, int, int, int, int]] = []
        if self.is_attacked(self.king_sq[1 if side == 1 else 0], side):
            raise fen_error(fen, "the side not to move is in check")
        self.hash = self.compute_hash()

    def _parse_castling(self, fen: str, text: str) -> None:
        """Castling rights and gates, as Fairy-Stockfish reads them (KQkq, Shredder/X-FEN files, gate files)."""
        squares = self.squares
        gating = self.variant == "seirawan"
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
                    rook_sq = next((base + f for f in range(7, -1, -1) if squares[base + f] == ROOK * sign), -1)
                elif up == "Q":
                    rook_sq = next((base + f for f in range(8) if squares[base + f] == ROOK * sign), -1)
                elif up in FILE_NAMES.upper():
                    rook_sq = base + FILE_NAMES.upper().index(up)
                else:
                    raise fen_error(fen, f"invalid castling field {text!r}")
                if rook_sq < 0:
                    continue
                if castle_king[color] < 0:
                    king_sq = self.king_sq[color]
                    if self.chess960 and squares[rook_sq] == KING * sign:
                        castle_king[color] = rook_sq
                    elif base <= king_sq < base + 8:
                        castle_king[color] = king_sq
                    else:
                        castle_king[color] = base + 4
                if gating:
                    gates |= 1 << rook_sq
                    if up in "KQ":
                        gates |= 1 << castle_king[color]
                    elif self.hand[GATE_TYPES[0] * sign] + self.hand[GATE_TYPES[1] * sign]:
                        continue  # a file letter names a gate, not a castling right, while the hand is not empty
                if squares[rook_sq] == ROOK * sign and castle_king[color] == self.king_sq[color]:
                    rights |= 1 << rook_sq
                    order.append(rook_sq)
            if gating:
                # Chess960 gating FENs give castling rights through gate letters on the king and its rooks.
                for color, sign in ((0, 1), (1, -1)):
                    if self.hand[HAWK * sign] + self.hand[ELEPHANT * sign] == 0:
                        continue
                    king_sq = self.king_sq[color]
                    own_rights = rights & BACK_RANK_MASK[color]
                    if gates >> king_sq & 1 and not own_rights:
                        for sq in squares_of(gates & BACK_RANK_MASK[color]):
                            if squares[sq] == ROOK * sign:
                                rights |= 1 << sq
                                order.append(sq)
        # Gates exist only on own back-rank pieces, and only while that side has something in hand.
        for color, sign in ((0, 1), (1, -1)):
            if self.hand[HAWK * sign] + self.hand[ELEPHANT * sign] == 0:
                gates &= ~BACK_RANK_MASK[color]
            else:
                for sq in squares_of(gates & BACK_RANK_MASK[color]):
                    if squares[sq] * sign <= 0 or squares[sq] * sign == PAWN:
                        gates &= ~(1 << sq)
        self.gates = gates
        self.castling = 0
        self._castle_info: dict[int, tuple[int, int, int, int]] = {}
        self._castle_clear = [-1] * 64
        for rook_sq in order:
            self._add_castling_right(rook_sq)

    def _add_castling_right(self, rook_sq: int) -> None:
        color = 0 if rook_sq < 8 else 1
        king_sq = self.king_sq[color]
        base = 0 if color == 0 else 56
        kingside = rook_sq > king_sq
        # One right per wing, as in Fairy-Stockfish: a later rook on the same wing replaces the earlier one,
        # and moving either rook still clears the right.
        for other in squares_of(self.castling & BACK_RANK_MASK[color]):
            if (other > king_sq) == kingside:
                self.castling &= ~(1 << other)
                self._castle_clear[other] &= ~(1 << rook_sq)
        king_to = base + (6 if kingside else 2)
        rook_to = base + (5 if kingside else 3)
        path = (BETWEEN[rook_sq][rook_to] | 1 << rook_to | BETWEEN[king_sq][king_to] | 1 << king_to) & ~(
            1 << king_sq | 1 << rook_sq
        )
        self.castling |= 1 << rook_sq
        self._castle_info[rook_sq] = (king_to, rook_to, path, BETWEEN[king_sq][king_to] | 1 << king_to)
        self._castle_clear[rook_sq] &= ~(1 << rook_sq)
        self._castle_clear[king_sq] &= ~(1 << rook_sq)

    def compute_hash(self) -> int:
        """The Zobrist key from scratch: pieces, side, castling rights, en passant file, pieces in hand."""
        h = 0
        for sq, p in enumerate(self.squares):
            if p:
                h ^= ZOBRIST_PIECE[p][sq]
        if self.side == -1:
            h ^= ZOBRIST_SIDE
        h ^= mask_hash(self.castling, ZOBRIST_CASTLING)
        if self.ep >= 0:
            h ^= ZOBRIST_EP[self.ep]
        for code in (HAWK, ELEPHANT, -HAWK, -ELEPHANT):
            h ^= ZOBRIST_HAND[code][self.hand[code]]
        return h

    def fen(self) -> str:
        """The FEN exactly as Fairy-Stockfish writes it for this variant."""
        squares = self.squares
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
            if empty:
                row += str(empty)
            rows.append(row)
        board = "/".join(rows)
        if self.variant == "seirawan":
            hand = self.hand
            board += (
                "["
                + "E" * hand[ELEPHANT]
                + "H" * hand[HAWK]
                + "e" * hand[-ELEPHANT]
                + "h" * hand[-HAWK]
                + "]"
            )
        castling = self._castling_fen()
        ep = SQUARE_NAMES[self.ep] if self.ep >= 0 else "-"
        fullmove = (self.start_ply + self.ply) // 2 + 1
        return f"{board} {'w' if self.side == 1 else 'b'} {castling} {ep} {self.halfmove} {fullmove}"

    def _castling_fen(self) -> str:
        out = ""
        for color, sign in ((0, 1), (1, -1)):
            mask = BACK_RANK_MASK[color]
            base = 0 if color == 0 else 56
            letters = FILE_NAMES.upper() if color == 0 else FILE_NAMES
            rights = self.castling & mask
            king_sq = self.king_sq[color]
            kingside = [sq for sq in squares_of(rights) if sq > king_sq]
            queenside = [sq for sq in squares_of(rights) if sq < king_sq]
            rook_files = set()
            for side_rooks, letter in ((kingside, "K"), (queenside, "Q")):
                for sq in side_rooks:
                    rook_files.add(sq - base)
                    if self.chess960:
                        out += letters[sq - base]
                    else:
                        out += letter if color == 0 else letter.lower()
            gates = self.gates & mask
            if gates and self.hand[HAWK * sign] + self.hand[ELEPHANT * sign]:
                for sq in squares_of(gates):
                    file = sq - base
                    if file in rook_files:
                        continue
                    if not self.chess960 and rights and sq == king_sq:
                        continue
                    out += letters[file]
        return out or "-"

    # ------------------------------------------------------------------ attacks

    def is_attacked(self, sq: int, by_side: int) -> bool:
        """True if a piece of ``by_side`` (1 white, -1 black) attacks ``sq`` on the current board."""
        squares = self.squares
        enemy_index = 0 if by_side == -1 else 1  # tables are keyed by the defending colour
        for t in KNIGHT_TARGETS[sq]:
            if squares[t] in _LEAP_ENEMY[enemy_index]:
                return True
        ortho = _ORTHO_ENEMY[enemy_index]
        for ray in ROOK_RAYS[sq]:
            for t in ray:
                q = squares[t]
                if q:
                    if q in ortho:
                        return True
                    break
        diag = _DIAG_ENEMY[enemy_index]
        for ray in BISHOP_RAYS[sq]:
            for t in ray:
                q = squares[t]
                if q:
                    if q in diag:
                        return True
                    break
        pawn = by_side  # PAWN * by_side
        for t in _PAWN_ATTACK_FROM[enemy_index][sq]:
            if squares[t] == pawn:
                return True
        king = KING * by_side
        for t in KING_TARGETS[sq]:
            if squares[t] == king:
                return True
        return False

    def in_check(self) -> bool:
        """True if the side to move is in check."""
        side = self.side
        return self.is_attacked(self.king_sq[0 if side == 1 else 1], -side)

    # ------------------------------------------------------------------ make / unmake

    def make(self, code: int) -> None:
        """Play a move code (assumed legal in this position)."""
        squares = self.squares
        frm = code & 63
        to = code >> 6 & 63
        flag = code >> 16
        side = self.side
        h = self.hash
        ep = self.ep
        self.stack.append((code, squares[to], self.castling, self.gates, ep, self.halfmove, h))
        if ep >= 0:
            h ^= ZOBRIST_EP[ep]
            self.ep = -1
        piece = squares[frm]
        zp = ZOBRIST_PIECE
        if flag <= DOUBLE_PUSH:
            captured = squares[to]
            squares[frm] = 0
            squares[to] = piece
            h ^= zp[piece][frm] ^ zp[piece][to]
            if captured:
                h ^= zp[captured][to]
                self.halfmove = 0
            elif piece == side:
                self.halfmove = 0
                if flag:  # double push: an en passant square only if an enemy pawn could take
                    target = (frm + to) >> 1
                    attackers = PAWN_ATTACKERS_BLACK[target] if side == 1 else PAWN_ATTACKERS_WHITE[target]
                    for a in attackers:
                        if squares[a] == -side:
                            self.ep = target
                            h ^= ZOBRIST_EP[target]
                            break
            else:
                self.halfmove += 1
            if piece == KING or piece == -KING:
                self.king_sq[0 if side == 1 else 1] = to
        elif flag == PROMOTION:
            captured = squares[to]
            new_piece = (code >> 12 & 15) * side
            squares[frm] = 0
            squares[to] = new_piece
            h ^= zp[piece][frm] ^ zp[new_piece][to]
            if captured:
                h ^= zp[captured][to]
            self.halfmove = 0
        elif flag == EN_PASSANT:
            victim_sq = to - 8 * side
            squares[frm] = 0
            squares[to] = piece
            squares[victim_sq] = 0
            h ^= zp[piece][frm] ^ zp[piece][to] ^ zp[-piece][victim_sq]
            self.halfmove = 0
        else:  # castling: from = king, to = rook
            king_to, rook_to = self._castle_info[to][:2]
            rook = squares[to]
            squares[frm] = 0
            squares[to] = 0
            squares[king_to] = piece
            squares[rook_to] = rook
            h ^= zp[piece][frm] ^ zp[piece][king_to] ^ zp[rook][to] ^ zp[rook][rook_to]
            self.king_sq[0 if side == 1 else 1] = king_to
            self.halfmove += 1
        castling = self.castling
        if castling:
            new_castling = castling & self._castle_clear[frm] & self._castle_clear[to]
            if new_castling != castling:
                h ^= mask_hash(castling ^ new_castling, ZOBRIST_CASTLING)
                self.castling = new_castling
        gates = self.gates
        if gates:
            gates &= ~(1 << frm | 1 << to)
            gate_type = code >> 12 & 15
            if gate_type and flag != PROMOTION:
                gated = gate_type * side
                gate_sq = to if flag == CASTLE_ROOK_GATE else frm
                squares[gate_sq] = gated
                hand = self.hand
                count = hand[gated]
                hand[gated] = count - 1
                h ^= zp[gated][gate_sq] ^ ZOBRIST_HAND[gated][count] ^ ZOBRIST_HAND[gated][count - 1]
                if hand[HAWK * side] + hand[ELEPHANT * side] == 0:
                    gates &= ~BACK_RANK_MASK[0 if side == 1 else 1]
            self.gates = gates
        self.side = -side
        self.hash = h ^ ZOBRIST_SIDE
        self.ply += 1

    def unmake(self) -> int:
        """Take back the last move; returns its code."""
        code, captured, castling, gates, ep, halfmove, h = self.stack.pop()
        squares = self.squares
        frm = code & 63
        to = code >> 6 & 63
        flag = code >> 16
        side = -self.side  # the side that made the move
        self.side = side
        self.castling = castling
        self.ep = ep
        self.halfmove = halfmove
        self.hash = h
        self.ply -= 1
        gate_type = code >> 12 & 15
        if gate_type and flag != PROMOTION:
            self.hand[gate_type * side] += 1
        if gates != self.gates:
            self.gates = gates
        if flag <= DOUBLE_PUSH:
            piece = squares[to]
            squares[frm] = piece
            squares[to] = captured
            if piece == KING or piece == -KING:
                self.king_sq[0 if side == 1 else 1] = frm
        elif flag == PROMOTION:
            squares[frm] = side
            squares[to] = captured
        elif flag == EN_PASSANT:
            squares[frm] = side
            squares[to] = 0
            squares[to - 8 * side] = -side
        else:
            king_to, rook_to = self._castle_info[to][:2]
            king = squares[king_to]
            rook = squares[rook_to]
            squares[king_to] = 0
            squares[rook_to] = 0
            squares[frm] = king
            squares[to] = rook
            self.king_sq[0 if side == 1 else 1] = frm
        return code

    def make_null(self) -> None:
        """Pass the move (for null-move pruning in the search); undo with unmake_null."""
        self.stack.append((-1, 0, self.castling, self.gates, self.ep, self.halfmove, self.hash))
        h = self.hash ^ ZOBRIST_SIDE
        if self.ep >= 0:
            h ^= ZOBRIST_EP[self.ep]
            self.ep = -1
        self.hash = h
        self.side = -self.side
        self.halfmove += 1
        self.ply += 1

    def unmake_null(self) -> None:
        _, _, _, _, ep, halfmove, h = self.stack.pop()
        self.ep = ep
        self.halfmove = halfmove
        self.hash = h
        self.side = -self.side
        self.ply -= 1

    # ------------------------------------------------------------------ move generation

    def generate_legal(self) -> list[int]:
        """All legal move codes of the side to move."""
        squares = self.squares
        side = self.side
        us = 0 if side == 1 else 1
        ksq = self.king_sq[us]
        moves: list[int] = []
        append = moves.append

        # Checkers and pinned pieces, from rays and leaps out of the king's square.
        ortho_enemy = _ORTHO_ENEMY[us]
        diag_enemy = _DIAG_ENEMY[us]
        checkers = 0
        check_mask = -1
        pins: dict[int, int] | None = None
        for ray, orthogonal in TAGGED_RAYS[ksq]:
            blocker = -1
            for t in ray:
                q = squares[t]
                if q:
                    if q * side > 0:
                        if blocker >= 0:
                            break
                        blocker = t
                        continue
                    if q in (ortho_enemy if orthogonal else diag_enemy):
                        line = BETWEEN[ksq][t] | 1 << t
                        if blocker < 0:
                            checkers += 1
                            check_mask = line
                        else:
                            if pins is None:
                                pins = {}
                            pins[blocker] = line
                    break
        for t in KNIGHT_TARGETS[ksq]:
            if squares[t] in _LEAP_ENEMY[us]:
                checkers += 1
                check_mask = 1 << t
        for t in _PAWN_ATTACK_FROM[us][ksq]:
            if squares[t] == -side:
                checkers += 1
                check_mask = 1 << t

        hand = self.hand
        gate_types = [g for g in GATE_TYPES if hand[g * side]] if self.gates else None
        gates = self.gates if gate_types else 0

        if checkers < 2:
            for frm in range(64):
                p = squares[frm] * side
                if p <= 0:
                    continue
                start = len(moves)
                if p == PAWN:
                    self._pawn_moves(frm, side, append)
                    continue
                if p == KING:
                    continue
                if p == KNIGHT:
                    for t in KNIGHT_TARGETS[frm]:
                        if squares[t] * side <= 0:
                            append(frm | t << 6)
                else:
                    if p == BISHOP:
                        rays = BISHOP_RAYS[frm]
                    elif p == ROOK:
                        rays = ROOK_RAYS[frm]
                    elif p == QUEEN:
                        rays = QUEEN_RAYS[frm]
                    else:
                        rays = BISHOP_RAYS[frm] if p == HAWK else ROOK_RAYS[frm]
                        for t in KNIGHT_TARGETS[frm]:
                            if squares[t] * side <= 0:
                                append(frm | t << 6)
                    for ray in rays:
                        for t in ray:
                            q = squares[t]
                            if q == 0:
                                append(frm | t << 6)
                            else:
                                if q * side < 0:
                                    append(frm | t << 6)
                                break
                if gates >> frm & 1:
                    for m in moves[start:]:
                        for g in gate_types:  # type: ignore[union-attr]
                            append(m | g << 12)
            if self.ep >= 0:
                self._en_passant_moves(side, ksq, append)
            if pins or checkers:
                moves = [
                    m
                    for m in moves
                    if (m >> 16 == EN_PASSANT)
                    or (
                        (not pins or (m & 63) not in pins or pins[m & 63] >> (m >> 6 & 63) & 1)
                        and check_mask >> (m >> 6 & 63) & 1
                    )
                ]
                append = moves.append

        # King moves: the destination must not be attacked once the king has left its square.
        king = squares[ksq]
        squares[ksq] = 0
        start = len(moves)
        for t in KING_TARGETS[ksq]:
            if squares[t] * side <= 0 and not self.is_attacked(t, -side):
                append(ksq | t << 6)
        squares[ksq] = king
        if self.castling and not checkers:
            self._castling_moves(side, ksq, gates, gate_types, append)
        if gates >> ksq & 1:
            for m in moves[start:]:
                if m >> 16 == NORMAL:
                    for g in gate_types:  # type: ignore[union-attr]
                        append(m | g << 12)
        return moves

    def _pawn_moves(self, frm: int, side: int, append) -> None:  # type: ignore[no-untyped-def]
        squares = self.squares
        rank = frm >> 3
        promo_rank = 6 if side == 1 else 1
        start_rank = 1 if side == 1 else 6
        one = frm + 8 * side
        promotions = (QUEEN, ROOK, BISHOP, KNIGHT, HAWK, ELEPHANT) if self.variant == "seirawan" else (
            QUEEN, ROOK, BISHOP, KNIGHT)
        targets = []
        if squares[one] == 0:
            targets.append(one)
            if rank == start_rank and squares[one + 8 * side] == 0:
                append(frm | (one + 8 * side) << 6 | DOUBLE_PUSH << 16)
        file = frm & 7
        if file > 0 and squares[one - 1] * side < 0:
            targets.append(one - 1)
        if file < 7 and squares[one + 1] * side < 0:
            targets.append(one + 1)
        if rank == promo_rank:
            for t in targets:
                for promo in promotions:
                    append(frm | t << 6 | promo << 12 | PROMOTION << 16)
        else:
            for t in targets:
                append(frm | t << 6)

    def _en_passant_moves(self, side: int, ksq: int, append) -> None:  # type: ignore[no-untyped-def]
        ep = self.ep
        squares = self.squares
        victim = ep - 8 * side
        attackers = PAWN_ATTACKERS_WHITE[ep] if side == 1 else PAWN_ATTACKERS_BLACK[ep]
        for frm in attackers:
            if squares[frm] != side:
                continue
            squares[frm] = 0
            squares[victim] = 0
            squares[ep] = side
            legal = not self.is_attacked(ksq, -side)
            squares[frm] = side
            squares[victim] = -side
            squares[ep] = 0
            if legal:
                append(frm | ep << 6 | EN_PASSANT << 16)

    def _castling_moves(self, side, ksq, gates, gate_types, append) -> None:  # type: ignore[no-untyped-def]
        squares = self.squares
        mask = BACK_RANK_MASK[0 if side == 1 else 1]
        for rook_sq in squares_of(self.castling & mask):
            king_to, rook_to, path, king_path = self._castle_info[rook_sq]
            if any(squares[sq] for sq in squares_of(path)):
                continue
            king = squares[ksq]
            rook = squares[rook_sq]
            squares[ksq] = 0
            squares[rook_sq] = 0
            safe = not any(self.is_attacked(sq, -side) for sq in squares_of(king_path))
            if safe and (king_to != ksq or rook_to != rook_sq):
                # The final position decides (a rook that shielded the king's square may have moved away).
                squares[king_to] = king
                squares[rook_to] = rook
                safe = not self.is_attacked(king_to, -side)
                squares[king_to] = 0
                squares[rook_to] = 0
            squares[ksq] = king
            squares[rook_sq] = rook
            if not safe:
                continue
            base = ksq | rook_sq << 6 | CASTLE << 16
            append(base)
            if gate_types:
                if gates >> ksq & 1 and ksq != king_to and ksq != rook_to:
                    for g in gate_types:
                        append(base | g << 12)
                if gates >> rook_sq & 1 and rook_sq != king_to and rook_sq != rook_to:
                    for g in gate_types:
                        append(ksq | rook_sq << 6 | g << 12 | CASTLE_ROOK_GATE << 16)

    # ------------------------------------------------------------------ helpers for game end and notation

    def has_legal_move(self) -> bool:
        return bool(self.generate_legal())

    def hand_count(self, side: int) -> int:
        return self.hand[HAWK * side] + self.hand[ELEPHANT * side]

    def has_insufficient_material(self, side: int) -> bool:
        """Fairy-Stockfish's rule for one side: no pieces in hand and at most a lone minor piece that cannot
        mate (a knight with no helper, or bishops on one colour only)."""
        if self.hand_count(side):
            return False
        squares = self.squares
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
