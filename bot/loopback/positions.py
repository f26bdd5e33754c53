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
    for index, piece in zip(free, ("R", "K", "R")):
        rank[index] = piece
    return "".join(p or "?" for p in rank)


def start_fen(variant: str, chess960: bool, rng: random.Random | None = None) -> str:
    """The initial FEN of a new game.

    For Chess960 the castling field names the rook files (Shredder-FEN); for S-chess960 it also names every
    other file whose piece may still gate, the way Fairy-Stockfish prints it (``FDABCEGHfdabcegh``).
    """
    if not chess960:
        return START_FENS[variant]
    back = chess960_back_rank(rng or random.Random())
    rook_files = [FILES[i] for i, p in enumerate(back) if p == "R"]
    castling = "".join(reversed(rook_files)).upper()
    if variant == "seirawan":
        castling += "".join(FILES[i] for i, p in enumerate(back) if p != "R").upper()
        rights = castling + castling.lower()
        # pychess writes the hand of its S-chess960 start positions as [HEhe] (a recorded game page)
        return f"{back.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{back}[HEhe] w {rights} - 0 1"
    return f"{back.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{back} w {castling}{castling.lower()} - 0 1"
