"""Training positions from the engine's own self-play at a fixed node count per move.

Game ``g`` of a run with seed ``s`` starts from a random line of the opening file (``random.Random(s * 1_000_003
+ g)``) followed by 0-5 random legal plies, so a run is repeatable and game-by-game resumable: a rerun with the
same file continues after the last whole game in it.

Output: a data set (:mod:`tools.nnue.dataset`, a new file not named ``*.txt``: the run's positions under its
source entry, which counts the games done), or the old text lines (a ``*.txt`` file), one per kept position:
``fen;score;result;game`` with the search score (centipawns, white's view) and the game's result (1, 0.5, 0
from white's view), the game's number last. Kept: positions from the 8th ply on, not in check, whose best move
is neither a capture nor a promotion, with a score short of a mate (a quiet filter: the net is called at quiet
leaves). A game whose score stays beyond ``ADJUDICATE_CP`` for ``ADJUDICATE_PLIES`` plies is scored for the
side ahead; one longer than ``MAX_PLIES`` is dropped.
"""

from __future__ import annotations

import math
import random
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

from engine import Board
from engine.movecodes import EN_PASSANT, PROMOTION, move_kind, move_to
from engine.search import MATE_BOUND, Searcher, SearchLimits

from . import dataset
from .progress import Progress

ADJUDICATE_CP = 1500
ADJUDICATE_PLIES = 6
MAX_PLIES = 360
SKIP_PLIES = 8
RANDOM_PLIES = 5


def read_openings(path: Path) -> list[str]:
    """The 4-field FENs of an EPD file, as 6-field FENs."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if len(fields) >= 4:
            out.append(" ".join(fields[:4]) + " 0 1")
    return out


def games_done(out: Path) -> int:
    """The number after the last whole game in ``out`` (0 for a new file); a torn last line is cut off."""
    if not out.exists():
        return 0
    data = out.read_bytes()
    if data and not data.endswith(b"\n"):  # killed mid-write: drop the partial line
        data = data[: data.rfind(b"\n") + 1]
        out.write_bytes(data)
    last = data.rstrip(b"\n").rsplit(b"\n", 1)[-1]
    if not last:
        return 0
    return int(last.split(b";")[3]) + 1


def _is_noisy(board: Board, code: int) -> bool:
    flag = move_kind(code)
    return flag == PROMOTION or flag == EN_PASSANT or board.squares[move_to(code)] * board.side < 0


def play_game(searcher: Searcher, opening: str, rng: random.Random, nodes: int,
              variant: str = "seirawan") -> list[tuple[str, int, float]] | None:
    """One self-play game: its kept positions as (fen, white's score, result), or None if dropped."""
    board = Board(opening, variant=variant)
    for _ in range(rng.randint(0, RANDOM_PLIES)):
        moves = board.legal_moves_codes()
        if not moves:
            return None
        board.make(rng.choice(moves))
    searcher.new_game()
    kept: list[tuple[str, int]] = []
    lopsided = 0
    result: Optional[float] = None
    for ply in range(MAX_PLIES):
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result = 0.5 if outcome.winner is None else (1.0 if outcome.winner else 0.0)
            break
        found = searcher.search(board, SearchLimits(nodes=nodes))
        if not found.best:
            return None
        white = found.score if board.side == 1 else -found.score
        if (ply >= SKIP_PLIES and abs(found.score) < MATE_BOUND and not board.in_check()
                and not _is_noisy(board, found.best)):
            kept.append((board.fen(), white))
        lopsided = lopsided + 1 if abs(white) >= ADJUDICATE_CP else 0
        if lopsided >= ADJUDICATE_PLIES:
            result = 1.0 if white > 0 else 0.0
            break
        board.make(found.best)
    if result is None:
        return None
    return [(fen, score, result) for fen, score in kept]


Positions = Optional[list[tuple[str, int, float]]]


def write_games(out: Path, games: int, openings: Path, seed: int, minutes: Optional[float],
                play: Callable[[str, random.Random], Positions], source: Optional[dict[str, Any]] = None) -> int:
    """Play games ``games_done(out)`` .. ``games - 1`` with ``play(opening, rng)`` and append their positions
    to ``out`` (a dropped game, ``None``, still takes its number: a marker line keeps the resume point); the
    number of positions written. With ``minutes``, no game starts after that time. A data set ``out`` gets the
    positions under ``source`` (the run's description: its ``variant`` reads the FENs), resumed after its
    ``done`` games."""
    lines = read_openings(openings)
    deadline = time.time() + minutes * 60 if minutes is not None else float("inf")
    if not dataset.writes_text(out):
        entry = dict(source or {"kind": "games", "seed": seed, "openings": openings.name})
        variant = str(entry.get("variant", "seirawan"))
        written = 0
        with dataset.Writer(out, entry) as writer:
            bar = Progress("games", games, "games", done=writer.done)
            for game in range(writer.done, games):
                if time.time() >= deadline:
                    break
                rng = random.Random(seed * 1_000_003 + game)
                kept = play(rng.choice(lines), rng) or []
                for fen, score, result in kept:
                    writer.add_fen(fen, variant, score, result, game)
                writer.commit(game + 1)
                written += len(kept)
                bar.update(1, f"{written:,} positions")
            bar.close()
        return written
    first = games_done(out)
    written = 0
    bar = Progress("games", games, "games", done=first)
    with out.open("a", encoding="utf-8") as sink:
        for game in range(first, games):
            if time.time() >= deadline:
                break
            rng = random.Random(seed * 1_000_003 + game)
            positions = play(rng.choice(lines), rng)
            for fen, score, result in positions or []:
                sink.write(f"{fen};{score};{result};{game}\n")
            if not positions:
                sink.write(f";;;{game}\n")
            sink.flush()
            written += len(positions or [])
            bar.update(1, f"{written:,} positions")
    bar.close()
    return written


def generate(out: Path, games: int, nodes: int, openings: Path, seed: int, minutes: Optional[float] = None,
             hash_mb: int = 16) -> int:
    """This engine's self-play at ``nodes`` a move into ``out`` (:func:`write_games`)."""
    from engine.buildinfo import compiled_modules

    searcher = Searcher(hash_mb)
    source = {"kind": "generate", "engine": "this engine", "nodes": nodes, "seed": seed, "openings": openings.name,
              "variant": "seirawan", "label": f"search at {nodes} nodes",
              "engine_id": "compiled" if compiled_modules() else "pure"}
    return write_games(out, games, openings, seed, minutes,
                       lambda opening, rng: play_game(searcher, opening, rng, nodes), source)


def source_rows(source: Path, variant: str) -> Iterator[tuple[int, str, str, bool, int, float, int]]:
    """(number, fen, variant, chess960, white's score, white's result, game) of every position of a data set
    (number: the record's index) or a text file (number: the line's, marker lines counted; the positions in
    ``variant``)."""
    if dataset.is_dataset(source):
        for index, record in enumerate(dataset.read(source).records):
            fields = dataset.record_position(record.tobytes())
            side = fields["side"]
            yield (index, fields["fen"], fields["variant"], fields["chess960"], fields["score"] * side,
                   fields["result"] if side == 1 else 1.0 - fields["result"], fields["game"])
    else:
        for number, fen, score, result, game in dataset.text_rows(source):
            yield number, fen, variant, False, score, result, game


def count_rows(source: Path) -> int:
    if dataset.is_dataset(source):
        return len(dataset.read(source).records)
    with source.open("rb") as f:
        return sum(1 for _ in f)


def expand(source: Path, out: Path, per_position: int, seed: int, variant: str = "seirawan") -> int:
    """Cheap extra positions for a first net: from every position of ``source``, ``per_position`` short random
    walks (1-4 legal plies, none into check), each labelled with the hand-made evaluation's quiescence score
    (a few dozen nodes instead of thousands: the classical bootstrap of a first net). Their result field is
    ``sigmoid(score / 400)``, so they teach the score alone whatever the blend; their game field is the source
    position's, so a held-out game holds out its walks too. Resumable: a text ``out`` continues after the last
    game written, a data set ``out`` after the input positions its source entry has done."""
    from engine.evaluate import initial_scores

    from .train import SCALE

    total = count_rows(source)
    searcher = Searcher(1)
    quiescence = searcher.tree.quiescence
    written = 0
    text = dataset.writes_text(out)
    if text:
        first = games_done(out)
        sink = out.open("a", encoding="utf-8")
        start = 0
    else:
        writer = dataset.Writer(out, {"kind": "expand", "from": source.name, "per_position": per_position,
                                      "seed": seed, "label": "quiescence of the hand-made evaluation"})
        start = writer.done
    bar = Progress("expand", total, "positions", done=start)
    try:
        for number, fen, fen_variant, chess960, _, _, game in source_rows(source, variant):
            bar.update(number + 1 - bar.done, f"{written:,} positions")
            if (game < first) if text else (number < start):
                continue
            rng = random.Random(seed * 1_000_003 + number)
            for _ in range(per_position):
                board = Board(fen, variant=fen_variant, chess960=chess960)
                for _ in range(rng.randint(1, 4)):
                    moves = board.legal_moves_codes()
                    if not moves:
                        break
                    board.make(rng.choice(moves))
                if not board.legal_moves_codes() or board.in_check():
                    continue
                searcher.tree.set_position(board)
                mg, eg, phase = initial_scores(board)
                score = quiescence.qsearch(-30000, 30000, 0, mg, eg, phase, False)
                if abs(score) >= 3000:
                    continue
                if text:
                    white = score if board.side == 1 else -score
                    sink.write(f"{board.fen()};{white};{1.0 / (1.0 + math.exp(-white / SCALE)):.4f};{game}\n")
                else:
                    writer.add_board(board, score, round(1.0 / (1.0 + math.exp(-score / SCALE)), 4), game)
                written += 1
            if not text and (number + 1) % 1000 == 0:
                writer.commit(number + 1)
        if not text:
            writer.commit(max(total, start))
    finally:
        if text:
            sink.close()
        else:
            writer.close()
    bar.close()
    return written


def label(source: Path, out: Path, engine: str, nodes: int, every: int = 1, variant: str = "seirawan") -> int:
    """Every ``every``-th position of ``source`` again, its score replaced by another UCI engine's (Fairy-Stockfish
    by default) at ``nodes`` nodes a position: labels that know more than the engine that played the games. Mates
    count as +-2000; the result field stays. Resumable: a text ``out`` continues after the last game written (a
    game cut off in the middle keeps the positions it has), a data set ``out`` after the input positions its
    source entry has done."""
    from bot.engines import UciEngine

    client = UciEngine([engine], label=Path(engine).name, strict=True)
    client.set_variant(variant, False)
    client.new_game()
    total = count_rows(source)
    written = 0
    text = dataset.writes_text(out)
    if text:
        first = games_done(out)
        sink = out.open("a", encoding="utf-8")
        start = 0
    else:
        writer = dataset.Writer(out, {"kind": "label", "from": source.name, "engine": Path(engine).name,
                                      "nodes": nodes, "every": every, "variant": variant,
                                      "label": f"{Path(engine).name} at {nodes} nodes"})
        start = writer.done
    bar = Progress("label", total, "positions", done=start)
    try:
        for number, fen, fen_variant, chess960, _, result, game in source_rows(source, variant):
            bar.update(number + 1 - bar.done, f"{written:,} positions")
            if ((game < first) if text else (number < start)) or number % every:
                continue
            client.ensure_running()
            reply = client.go(f"position fen {fen}", f"go nodes {nodes}", 600.0, 5.0)
            score = reply.score
            if score is not None:
                value = (2000 if score.mate > 0 else -2000) if score.mate is not None else (score.cp or 0)
                white = value if fen.split()[1] == "w" else -value
                if text:
                    sink.write(f"{fen};{white};{result};{game}\n")
                    sink.flush()
                else:
                    writer.add_fen(fen, fen_variant, white, result, game, chess960)
                written += 1
            if not text and (number + 1) % 100 == 0:
                writer.commit(number + 1)
        if not text:
            writer.commit(max(total, start))
    finally:
        client.close()
        if text:
            sink.close()
        else:
            writer.close()
    bar.close()
    return written
