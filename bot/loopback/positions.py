"""Start positions for the loopback server: the standard start and Chess960 / S-chess960 back ranks."""

from __future__ import annotations

import random

from engine.variants import START_FENS

S_CHESS_START_FEN = START_FENS["seirawan"]
CHESS_START_FEN = START_FENS["chess"]
FILES = "abcdefgh"


def chess960_back_rank(rng: random.Random) -> str:
    """A random Chess960 back rank such as ``"RNBQKBNR"`` (opposite-coloured bishops, king between rooks)."""
    rank: list[str | None] = [None] * 8
    rank[rng.choice([0, 2, 4, 6])] = "B"
    rank[rng.choice([1, 3, 5, 7])] = "B"
    for piece in ("Q", "N", "N"):
        free = [i for i, p in enumerate(rank) if p is None]
        rank[rng.choice(free)] = piece
    free = [i for i, p in enumerate(rank) if p is None]
    for index, piece in zip(free, ("R", "K", "R"), strict=False):
        rank[index] = piece
    return "".join(p or "?" for p in rank)


def start_fen(variant: str, chess960: bool, rng: random.Random | None = None) -> str:
    """The initial FEN of a new game.

    For Chess960 the castling field names the rook files (Shredder-FEN). For S-chess960 it is pychess's own
    form (its ``FairyBoard.shuffle_start``, and the recorded game page ``data-initialfen``): the hand as
    ``[HEhe]``, ``KQ`` for the two rooks, then the files of the first and last bishop, the queen, the first
    and last knight (``...NBBQRNKR[HEhe] w KQBCDAFkqbcdaf - 0 1``), not Fairy-Stockfish's ``HEABCDFG...``.
    """
    if not chess960:
        return START_FENS[variant]
    back = chess960_back_rank(rng or random.Random())
    if variant == "seirawan":
        return f"{back.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{back}[HEhe] w {s_chess960_castling(back)} - 0 1"
    rook_files = [FILES[i] for i, p in enumerate(back) if p == "R"]
    castling = "".join(reversed(rook_files)).upper()
    return f"{back.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{back} w {castling}{castling.lower()} - 0 1"


def s_chess960_castling(back: str) -> str:
    """pychess's castling field of an S-chess960 start with the back rank ``back`` (``"NBBQRNKR"`` ->
    ``"KQBCDAFkqbcdaf"``): castling, then the gating files of the bishops, the queen and the knights."""
    gates = "kq" + "".join(FILES[i] for i in (back.index("B"), back.rindex("B"), back.index("Q"), back.index("N"),
                                              back.rindex("N")))
    return gates.upper() + gates
