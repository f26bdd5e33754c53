"""Tuning data from Fairy-Stockfish playing itself: every position of every game, with the score of the
search that chose the move there and the game's result.

Each worker runs one Fairy-Stockfish process at a fixed node count per move. S-chess games start from random
lines of ``engine/data/seirawan.epd``; standard-chess games from the start position after a few random legal
moves. pyffish (the rules oracle of the tests) plays the moves and decides the game's end. A game whose score
stays beyond ``ADJUDICATE_CP`` for both sides for ``ADJUDICATE_PLIES`` plies is scored for the side ahead,
which saves the mop-up plies without changing the labels much.

Output lines: ``fen;variant;result;score;bestmove`` with the result (1, 0.5, 0) and the score (centipawns,
mates as +-2000) from white's point of view; :func:`tools.tune.data.read_samples` reads the first four fields.
"""

from __future__ import annotations

import multiprocessing
import random
import time
from pathlib import Path
from typing import Optional

from bot.engines import UciEngine

ADJUDICATE_CP = 1000
ADJUDICATE_PLIES = 6
MAX_PLIES = 400
MATE_SCORE = 2000
SEARCH_DEADLINE_S = 600.0  # a node- or depth-limited search that takes longer has hung


class Fsf:
    """Fairy-Stockfish (or another UCI engine) through the bot's UCI client, :class:`bot.engines.UciEngine`:
    one limited search per call, ``go nodes N`` or, with ``depth``, ``go depth N``."""

    def __init__(self, path: str, nodes: int = 0, depth: int = 0) -> None:
        self.limit = f"depth {depth}" if depth else f"nodes {nodes}"
        self.engine = UciEngine([path], label=Path(path).name, strict=True)
        self.variant = ""

    def set_variant(self, variant: str) -> None:
        if variant != self.variant:
            self.engine.set_variant(variant, False)
            self.variant = variant

    def new_game(self, variant: str) -> None:
        self.set_variant(variant)
        self.engine.new_game()

    def search(self, fen: str) -> tuple[str, int]:
        """(best move, score in centipawns from the side to move's view; mates as +-MATE_SCORE) for a
        position."""
        self.engine.ensure_running()
        reply = self.engine.go(f"position fen {fen}", f"go {self.limit}", SEARCH_DEADLINE_S, 5.0)
        score = reply.score
        if score is None:
            value = 0
        elif score.mate is not None:
            value = MATE_SCORE if score.mate > 0 else -MATE_SCORE
        else:
            value = score.cp or 0
        return reply.bestmove or "", value

    def close(self) -> None:
        self.engine.close()


def play_game(fsf: Fsf, variant: str, start_fen: str) -> list[str]:
    """One game; the output lines of its positions (empty if it ended without a result)."""
    import pyffish

    fsf.new_game(variant)
    fen = start_fen
    history: list[tuple[str, int, str]] = []  # fen, score (white's view), best move
    moves: list[str] = []
    result: Optional[float] = None
    lopsided = 0
    for _ in range(MAX_PLIES):
        if not pyffish.legal_moves(variant, fen, []):
            outcome = pyffish.game_result(variant, fen, [])  # from the side to move's view
            white_to_move = fen.split()[1] == "w"
            result = 0.5 if outcome == 0 else float((outcome > 0) == white_to_move)
            break
        ended, _ = pyffish.is_optional_game_end(variant, start_fen, moves)  # repetitions need the moves
        if ended:
            result = 0.5
            break
        best, score = fsf.search(fen)
        white = score if fen.split()[1] == "w" else -score
        history.append((fen, white, best))
        lopsided = lopsided + 1 if abs(white) >= ADJUDICATE_CP else 0
        if lopsided >= ADJUDICATE_PLIES and abs(history[-2][1]) >= ADJUDICATE_CP and (
                (white > 0) == (history[-2][1] > 0)):
            result = 1.0 if white > 0 else 0.0
            break
        moves.append(best)
        fen = pyffish.get_fen(variant, start_fen, moves)
    if result is None:
        return []
    return [f"{fen};{variant};{result};{score};{best}" for fen, score, best in history]


def chess_start(rng: random.Random) -> str:
    """The chess start position after 4-8 random legal plies (a cheap source of varied openings)."""
    import pyffish

    start = pyffish.start_fen("chess")
    moves: list[str] = []
    for _ in range(rng.randint(4, 8)):
        legal = pyffish.legal_moves("chess", start, moves)
        if not legal:
            break
        moves.append(rng.choice(sorted(legal)))
    return str(pyffish.get_fen("chess", start, moves))


def _worker(args: tuple[int, int, str, int, float, list[str], str, float]) -> int:
    seed, games, engine, nodes, chess_share, openings, out, deadline = args
    rng = random.Random(seed)
    fsf = Fsf(engine, nodes)
    written = 0
    with open(out, "a", encoding="utf-8") as sink:
        for _ in range(games):
            if time.time() >= deadline:
                break
            if rng.random() < chess_share:
                lines = play_game(fsf, "chess", chess_start(rng))
            else:
                lines = play_game(fsf, "seirawan", rng.choice(openings))
            for line in lines:
                sink.write(line + "\n")
            sink.flush()
            written += len(lines)
    fsf.close()
    return written


def generate(out: Path, games: int, workers: int, engine: str, nodes: int, chess_share: float,
             openings_path: Path, seed: int, minutes: Optional[float] = None) -> int:
    """Play ``games`` games over ``workers`` processes, appending to ``out``; the number of positions. With
    ``minutes``, no game starts after that time (a way to fill the time at hand with whole games)."""
    openings = []
    for line in openings_path.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if len(fields) >= 4:
            openings.append(" ".join(fields[:4]) + " 0 1")
    per_worker = [games // workers + (1 if i < games % workers else 0) for i in range(workers)]
    deadline = time.time() + minutes * 60 if minutes is not None else float("inf")
    parts = [Path(f"{out}.{i}") for i in range(workers)]
    jobs = [(seed * 1000 + i, n, engine, nodes, chess_share, openings, str(parts[i]), deadline)
            for i, n in enumerate(per_worker)]
    with multiprocessing.Pool(workers) as pool:
        total = sum(pool.map(_worker, jobs))
    with out.open("a", encoding="utf-8") as sink:
        for part in parts:
            sink.write(part.read_text(encoding="utf-8"))
            part.unlink()
    return total
