"""Opening positions from an EPD file, and the schedule that plays each one as a colour-swapped pair."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import List, Optional, Sequence


@dataclass(frozen=True)
class Opening:
    """One start position: a full FEN and where it came from (``file:line``, or ``start``)."""

    fen: str
    source: str


@dataclass(frozen=True)
class GameJob:
    """One game to play: its 1-based number, the opening, and whether engine 1 has the white pieces."""

    number: int
    opening: Opening
    opening_index: int
    engine1_is_white: bool


def epd_to_fen(line: str) -> Optional[str]:
    """The FEN of one EPD line, or None when the line holds no position.

    An EPD position is four FEN fields (board with ``[hand]``, side, castling and gates, en passant),
    optionally followed by operations (``hmvc 3; fmvn 7; id "x";``). ``hmvc``/``fmvn`` set the move counters,
    which default to ``0 1``. A line that is already a full six-field FEN is accepted as it is.
    Blank lines and ``#`` comments give None.
    """
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    fields = text.split()
    if len(fields) < 4 or fields[1] not in ("w", "b"):
        return None
    position = fields[:4]
    rest = fields[4:]
    if len(rest) >= 2 and rest[0].isdigit() and rest[1].isdigit():
        return " ".join(position + rest[:2])
    halfmove, fullmove = "0", "1"
    for operation in " ".join(rest).split(";"):
        words = operation.split()
        if len(words) == 2 and words[1].isdigit():
            if words[0] == "hmvc":
                halfmove = words[1]
            elif words[0] == "fmvn":
                fullmove = words[1]
    return " ".join(position + [halfmove, fullmove])


def load_openings(path: str) -> List[Opening]:
    """Read every position of an EPD file, in file order. Raises ValueError when the file holds none."""
    openings: List[Opening] = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            fen = epd_to_fen(line)
            if fen is not None:
                openings.append(Opening(fen, f"{path}:{number}"))
    if not openings:
        raise ValueError(f"no EPD positions (4 FEN fields per line) in {path}")
    return openings


def schedule(
    games: int,
    openings: Sequence[Opening],
    shuffle: bool = False,
    seed: Optional[int] = None,
) -> List[GameJob]:
    """The games of a match: opening k is played by games 2k+1 and 2k+2 with colours swapped.

    Engine 1 has white in the first game of each pair. Openings are taken in file order, or in an order
    shuffled with ``seed`` (the same seed gives the same match); they are reused from the start when the
    match is longer than the list.
    """
    if not openings:
        raise ValueError("a schedule needs at least one opening")
    order = list(range(len(openings)))
    if shuffle:
        random.Random(seed).shuffle(order)
    jobs: List[GameJob] = []
    for game_index in range(games):
        opening_index = order[(game_index // 2) % len(order)]
        jobs.append(GameJob(game_index + 1, openings[opening_index], opening_index, game_index % 2 == 0))
    return jobs
