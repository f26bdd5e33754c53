"""Standard algebraic notation for S-chess and S-House, exactly as Fairy-Stockfish writes it (``Nf3/H``,
``O-O/Eh1``, ``b8=H``, drops ``N@e5``), and its parser: the SAN half of :class:`engine.board.Board`."""

from __future__ import annotations

import re

from .movecodes import (
    CASTLE,
    CASTLE_ROOK_GATE,
    DROP,
    EN_PASSANT,
    PLACE,
    PROMOTION,
    move_from,
    move_kind,
    move_piece,
    move_to,
)
from .position import Position
from .tables import KING, PAWN, PIECE_SYMBOLS, SQUARE_NAMES, SYMBOL_TO_TYPE, parse_square

_SAN_CASTLE = re.compile(r"^(O-O-O|O-O|0-0-0|0-0)(?:/([HEhe])([a-h][18])?)?$")
_SAN_DROP = re.compile(r"^([PNBRQHEpnbrqhe])?@([a-h][1-8])$")
_SAN_MOVE = re.compile(r"^([NBRQKHE])?([a-h])?([1-8])?(x|-)?([a-h][1-8])(?:=?([QRBNHEqrbnhe]))?(?:/([HEhe]))?$")


class IllegalMoveError(ValueError):
    """A move that is malformed or not legal in the position (the message names the move and the FEN)."""


def san_of_code(board: Position, code: int) -> str:
    """SAN of a legal move code in ``board``, as Fairy-Stockfish writes it."""
    squares = board.squares
    frm = move_from(code)
    to = move_to(code)
    piece = move_piece(code)
    flag = move_kind(code)
    if flag == PLACE:  # placement S-chess: H@b1, the piece placed behind b1 (never a check)
        return PIECE_SYMBOLS[piece].upper() + "@" + SQUARE_NAMES[to]
    if flag == CASTLE or flag == CASTLE_ROOK_GATE:
        san = "O-O" if to > frm else "O-O-O"
        if piece:
            gate_sq = frm if flag == CASTLE else to
            san += "/" + PIECE_SYMBOLS[piece].upper() + SQUARE_NAMES[gate_sq]
    elif flag == DROP:  # drops never need disambiguation
        san = PIECE_SYMBOLS[piece].upper() + "@" + SQUARE_NAMES[to]
    else:
        moved = abs(squares[frm])
        capture = squares[to] != 0 or flag == EN_PASSANT
        if moved == PAWN:
            san = SQUARE_NAMES[frm][0] + "x" if capture else ""
            san += SQUARE_NAMES[to]
            if flag == PROMOTION:
                san += "=" + PIECE_SYMBOLS[piece].upper()
        else:
            san = PIECE_SYMBOLS[moved].upper()
            if not piece and moved != KING:
                san += _disambiguation(board, code, moved)
            san += ("x" if capture else "") + SQUARE_NAMES[to]
        if piece and flag != PROMOTION:
            san += "/" + PIECE_SYMBOLS[piece].upper()
    board.make(code)
    try:
        if board.in_check():
            san += "+" if board.generate_legal() else "#"
    finally:
        board.unmake()
    return san

def _disambiguation(board: Position, code: int, moved: int) -> str:
    """File, rank or square of the origin when another piece of the type has a legal plain move to the
    same square (Fairy-Stockfish compares only moves without gating)."""
    frm = move_from(code)
    to = move_to(code)
    squares = board.squares
    piece = squares[frm]
    others = [
        move_from(c)
        for c in board.generate_legal()
        if move_to(c) == to and move_from(c) != frm and squares[move_from(c)] == piece and not move_piece(c)
        and move_kind(c) < CASTLE
    ]
    if not others:
        return ""
    name = SQUARE_NAMES[frm]
    if all((o & 7) != (frm & 7) for o in others):
        return name[0]
    if all((o >> 3) != (frm >> 3) for o in others):
        return name[1]
    return name


def parse_san_code(board: Position, san: str) -> int:
    """The code of the legal move written in SAN (see :meth:`engine.Board.parse_san`)."""
    if not isinstance(san, str):
        raise IllegalMoveError(f"invalid san: {san!r} in {board.fen()}")
    text = san.strip().rstrip("+#!?")
    codes = board.generate_legal()
    matches: list[int] = []
    castle = _SAN_CASTLE.match(text)
    drop = _SAN_DROP.match(text)
    if drop:
        dropped = SYMBOL_TO_TYPE[drop.group(1).lower()] if drop.group(1) else PAWN
        to = parse_square(drop.group(2))
        matches = [code for code in codes if move_kind(code) in (DROP, PLACE) and move_to(code) == to
                   and move_piece(code) == dropped]
    elif castle:
        long = castle.group(1).count("-") == 2
        gate = SYMBOL_TO_TYPE[castle.group(2).lower()] if castle.group(2) else 0
        gate_sq = parse_square(castle.group(3)) if castle.group(3) else -1
        for code in codes:
            flag = move_kind(code)
            if flag not in (CASTLE, CASTLE_ROOK_GATE):
                continue
            frm, rook = move_from(code), move_to(code)
            if (rook < frm) != long or move_piece(code) != gate:
                continue
            if gate and gate_sq >= 0 and gate_sq != (frm if flag == CASTLE else rook):
                continue
            matches.append(code)
    else:
        found = _SAN_MOVE.match(text)
        if not found:
            raise IllegalMoveError(f"invalid san: {san!r} in {board.fen()}")
        letter, from_file, from_rank, _, target, promo, gate_letter = found.groups()
        moved = SYMBOL_TO_TYPE[letter.lower()] if letter else PAWN
        to = parse_square(target)
        promotion = SYMBOL_TO_TYPE[promo.lower()] if promo else 0
        gate = SYMBOL_TO_TYPE[gate_letter.lower()] if gate_letter else 0
        for code in codes:
            frm = move_from(code)
            flag = move_kind(code)
            if move_to(code) != to or flag in (CASTLE, CASTLE_ROOK_GATE):
                continue
            if abs(board.squares[frm]) != moved:
                continue
            if from_file and SQUARE_NAMES[frm][0] != from_file:
                continue
            if from_rank and SQUARE_NAMES[frm][1] != from_rank:
                continue
            piece = move_piece(code)
            if (piece if flag == PROMOTION else 0) != promotion:
                continue
            if (0 if flag == PROMOTION else piece) != gate:
                continue
            matches.append(code)
    if not matches:
        raise IllegalMoveError(f"illegal san: {san!r} in {board.fen()}")
    if len(matches) > 1:
        raise IllegalMoveError(f"ambiguous san: {san!r} in {board.fen()}")
    return matches[0]
