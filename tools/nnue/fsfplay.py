"""Training positions from another UCI engine's self-play (Fairy-Stockfish by default) at fixed nodes a move.

Fairy-Stockfish is C++ and searches some twenty times more nodes a second than this engine, so its self-play
gives many more positions an hour, each scored by a search that knows more than the hand-made evaluation.
Games start as ``generate``'s do (a random line of the opening file plus 0-5 random plies, ``random.Random(seed *
1_000_003 + game)``), keep positions by the same quiet filter (from the 8th ply on, not in check, best move
neither a capture nor a promotion, no mate score) and write the same lines, ``fen;score;result;game`` (the
engine's score in its own centipawns, white's view): resumable by game number.

Fairy-Stockfish's S-chess centipawns run on about twice this engine's scale; ``fit_k`` measures the scale of a
data file's scores against its games' results and ``rescale`` converts them before training (docs/nnue.md).
"""

from __future__ import annotations

import math
import random
import subprocess
from pathlib import Path
from typing import Optional

from engine import Board

from . import dataset
from .generate import RANDOM_PLIES, SKIP_PLIES, _is_noisy, write_games

MAX_PLIES = 360
#: a game whose score (the UCI engine's centipawns) stays beyond this for ADJUDICATE_PLIES plies is scored
ADJUDICATE_CP = 3000
ADJUDICATE_PLIES = 6
MATE_CP = 100_000  # a mate score, as centipawns: never kept


class UciPlayer:
    """A bare UCI client for fast self-play: one process, fixed nodes a move, the game's moves on each
    ``position`` command (so the engine sees repetitions)."""

    def __init__(self, command: str, variant: str = "seirawan", hash_mb: int = 16) -> None:
        self.proc = subprocess.Popen([command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.send("uci")
        self.name = ""  # the engine's ``id name``
        while not (line := self.wait_for("")).startswith("uciok"):
            if line.startswith("id name "):
                self.name = line[len("id name "):].strip()
        self.send(f"setoption name UCI_Variant value {variant}")
        self.send("setoption name Threads value 1")
        self.send(f"setoption name Hash value {hash_mb}")
        self.send("isready")
        self.wait_for("readyok")

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")

    def wait_for(self, word: str) -> str:
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the UCI engine exited")
            if line.startswith(word):
                return line

    def new_game(self) -> None:
        self.send("ucinewgame")
        self.send("isready")
        self.wait_for("readyok")

    def go(self, fen: str, moves: list[str], nodes: int) -> tuple[str, Optional[int]]:
        """(best move, score in centipawns from the side to move's view, +-MATE_CP for a mate; None if none)."""
        assert self.proc.stdout is not None
        self.send(f"position fen {fen}" + (" moves " + " ".join(moves) if moves else ""))
        self.send(f"go nodes {nodes}")
        score: Optional[int] = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the UCI engine exited")
            if line.startswith("bestmove"):
                return line.split()[1], score
            if line.startswith("info") and " score " in line and "lowerbound" not in line \
                    and "upperbound" not in line:
                words = line.split()
                at = words.index("score")
                if words[at + 1] == "cp":
                    score = int(words[at + 2])
                elif words[at + 1] == "mate":
                    score = MATE_CP if int(words[at + 2]) > 0 else -MATE_CP

    def close(self) -> None:
        try:
            self.send("quit")
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def play_game(player: UciPlayer, opening: str, rng: random.Random, nodes: int,
              variant: str = "seirawan") -> list[tuple[str, int, float]] | None:
    """One self-play game of the UCI engine: its kept positions as (fen, white's score, result), or None if
    dropped (too long, or a move this engine's rules do not know)."""
    board = Board(opening, variant=variant)
    for _ in range(rng.randint(0, RANDOM_PLIES)):
        codes = board.legal_moves_codes()
        if not codes:
            return None
        board.make(rng.choice(codes))
    start = board.fen()
    board = Board(start, variant=variant)
    player.new_game()
    moves: list[str] = []
    kept: list[tuple[str, int]] = []
    lopsided = 0
    result: Optional[float] = None
    for ply in range(MAX_PLIES):
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result = 0.5 if outcome.winner is None else (1.0 if outcome.winner else 0.0)
            break
        best, score = player.go(start, moves, nodes)
        if score is None or best in ("(none)", "0000"):
            return None
        try:
            move = board.parse_uci(best)
        except ValueError:
            return None
        code = move._code
        if code is None:
            return None
        white = score if board.side == 1 else -score
        if ply >= SKIP_PLIES and abs(score) < MATE_CP and not board.in_check() and not _is_noisy(board, code):
            kept.append((board.fen(), white))
        lopsided = lopsided + 1 if abs(white) >= ADJUDICATE_CP else 0
        if lopsided >= ADJUDICATE_PLIES:
            result = 1.0 if white > 0 else 0.0
            break
        board.push(move)
        moves.append(best)
    if result is None:
        return None
    return [(fen, score, result) for fen, score in kept]


def fsfplay(out: Path, games: int, nodes: int, openings: Path, seed: int, engine: str,
            minutes: Optional[float] = None, variant: str = "seirawan") -> int:
    """Fairy-Stockfish's self-play of ``variant`` at ``nodes`` a move into ``out``
    (:func:`generate.write_games`)."""
    player = UciPlayer(engine, variant)
    source = {"kind": "fsfplay", "engine": Path(engine).name, "nodes": nodes, "seed": seed,
              "openings": openings.name, "variant": variant, "label": f"{Path(engine).name} at {nodes} nodes",
              "engine_id": player.name}
    try:
        return write_games(out, games, openings, seed, minutes,
                           lambda opening, rng: play_game(player, opening, rng, nodes, variant), source)
    finally:
        player.close()


def fit_k(scores: list[float], results: list[float]) -> float:
    """The K of ``sigmoid(score / K)`` that best predicts the results (least squares, golden-section search
    over 50-5000): the scale of a label source's centipawns."""
    def loss(k: float) -> float:
        pairs = zip(scores, results, strict=True)
        return sum((1.0 / (1.0 + math.exp(-s / k)) - r) ** 2 for s, r in pairs) / max(len(scores), 1)

    lo, hi = math.log(50.0), math.log(5000.0)
    ratio = (math.sqrt(5) - 1) / 2
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fa, fb = loss(math.exp(a)), loss(math.exp(b))
    for _ in range(40):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - ratio * (hi - lo)
            fa = loss(math.exp(a))
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = loss(math.exp(b))
    return math.exp((lo + hi) / 2)


def rescale(source: Path, out: Path, factor: float) -> int:
    """``source`` with every score multiplied by ``factor`` (rounded): labels of another engine's scale on this
    engine's. The number of positions written. A data set gives a data set (``out`` is replaced), its sources
    marked with the factor (``scale``, multiplied into any earlier one)."""
    if dataset.is_dataset(source):
        import numpy as np

        data = dataset.read(source)
        records = data.records.copy()
        records["score"] = np.clip(np.rint(records["score"].astype(np.float64) * factor), -32768, 32767)
        sources = [{**s, "scale": round(float(s.get("scale", 1.0)) * factor, 6)} for s in data.sources]
        dataset.write(out, {**data.meta, "sources": sources}, records)
        return len(records)
    written = 0
    with source.open(encoding="utf-8") as lines, out.open("w", encoding="utf-8") as sink:
        for line in lines:
            fields = line.rstrip("\n").split(";")
            if len(fields) != 4 or not fields[0]:
                sink.write(line)
                continue
            fields[1] = str(round(int(fields[1]) * factor))
            sink.write(";".join(fields) + "\n")
            written += 1
    return written
