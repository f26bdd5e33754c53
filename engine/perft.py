"""Perft: count the leaf nodes of the legal move tree, the standard test of a move generator."""

from __future__ import annotations

from .position import Position


def perft(board: Position, depth: int) -> int:
    """The number of legal move sequences of length ``depth`` from ``board`` (make/unmake at every node,
    except that the last ply is only counted)."""
    if depth <= 0:
        return 1
    moves = board.generate_legal()
    if depth == 1:
        return len(moves)
    make = board.make
    unmake = board.unmake
    total = 0
    for code in moves:
        make(code)
        total += perft(board, depth - 1)
        unmake()
    return total


def perft_full(board: Position, depth: int) -> int:
    """Perft that makes and unmakes every move, leaves included (the speed benchmark's yardstick)."""
    if depth <= 0:
        return 1
    make = board.make
    unmake = board.unmake
    total = 0
    if depth == 1:
        for code in board.generate_legal():
            make(code)
            unmake()
            total += 1
        return total
    for code in board.generate_legal():
        make(code)
        total += perft_full(board, depth - 1)
        unmake()
    return total


def perft_divide(board, depth: int) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """Perft per root move, keyed by the move's UCI (``board`` is an :class:`engine.Board`)."""
    out: dict[str, int] = {}
    for move in list(board.legal_moves):
        board.push(move)
        out[move.uci()] = perft(board, depth - 1)
        board.pop()
    return out
