"""Positions for tuning: read from match PGNs, filtered to quiet ones, labelled by result or engine score."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

from engine import Board

from .selfplay import Fsf

_TAG = re.compile(r'^\[(\w+) "(.*)"\]\s*$')
_COMMENT = re.compile(r"\{[^}]*\}")
_MOVE_NUMBER = re.compile(r"^\d+\.+$|^\d+\.\.\.$")
RESULTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


@dataclass
class PgnGame:
    tags: dict[str, str]
    moves: list[str]


@dataclass
class Sample:
    fen: str
    variant: str
    result: float  # game result from white's view: 1, 0.5, 0
    score: Optional[int] = None  # engine score in centipawns from white's view, when labelled


def read_games(path: Path) -> Iterator[PgnGame]:
    """The games of a PGN file (tags and SAN moves; comments, move numbers and the result token dropped)."""
    tags: dict[str, str] = {}
    text: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        match = _TAG.match(line)
        if match:
            if text:
                yield _game(tags, text)
                tags, text = {}, []
            tags[match.group(1)] = match.group(2)
        elif line.strip():
            text.append(line)
        elif text and tags:
            yield _game(tags, text)
            tags, text = {}, []


def _game(tags: dict[str, str], text: list[str]) -> PgnGame:
    body = _COMMENT.sub(" ", " ".join(text))
    moves = [token for token in body.split() if not _MOVE_NUMBER.match(token) and token not in RESULTS
             and token != "*"]
    moves = [re.sub(r"^\d+\.+", "", token) for token in moves]
    return PgnGame(tags, [token for token in moves if token])


def quiet_positions(game: PgnGame, skip_plies: int = 8, every: int = 1) -> Iterator[Sample]:
    """Positions of a decided game where the side to move is not in check and neither the move that led
    there nor the move played from there captures or promotes (a cheap stand-in for quiescence)."""
    result = RESULTS.get(game.tags.get("Result", "*"))
    if result is None:
        return
    variant = "seirawan" if game.tags.get("Variant", "").lower().startswith("seirawan") else "chess"
    board = Board(game.tags.get("FEN"), variant=variant)
    last_noisy = True
    for ply, san in enumerate(game.moves):
        move = board.parse_san(san)
        noisy = "x" in san or "=" in san
        if (ply >= skip_plies and ply % every == 0 and not last_noisy and not noisy
                and not board.is_check()):
            yield Sample(board.fen(), variant, result)
        board.push(move)
        last_noisy = noisy or "+" in san


def write_samples(samples: list[Sample], path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        for s in samples:
            score = "" if s.score is None else str(s.score)
            out.write(f"{s.fen};{s.variant};{s.result};{score}\n")


def read_samples(path: Path) -> list[Sample]:
    samples = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        fen, variant, result, score = line.split(";")
        samples.append(Sample(fen, variant, float(result), int(score) if score else None))
    return samples


def label_with_engine(samples: list[Sample], engine: str, depth: int) -> None:
    """Set ``score`` (white's view, centipawns; mates as +-2000) from a UCI engine's fixed-depth search."""
    driver = Fsf(engine, depth=depth)
    try:
        for sample in samples:
            driver.set_variant(sample.variant)
            _, score = driver.search(sample.fen)
            white_to_move = sample.fen.split()[1] == "w"
            sample.score = score if white_to_move else -score
    finally:
        driver.close()
