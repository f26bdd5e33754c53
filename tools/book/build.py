"""Where book moves come from: a Fairy-Stockfish multi-PV analysis tree, and game files (PGN or UCI lines).

Both produce a :class:`BookMoves` table (position key -> move -> weight and score), which
:func:`write_book_moves` turns into an S-chess book with :func:`engine.book.write_book`.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from bot.engines import EngineReply, UciEngine, parse_info
from engine import Board, IllegalMoveError
from engine.book import MAX_WEIGHT, Entry, position_key, write_book

Log = Callable[[str], None]

# An analysis score for mates, on the centipawn scale (mate in n: MATE_CP - n; book scores are 16-bit).
MATE_CP = 30000


@dataclass
class BookMove:
    """What the builder knows about one move of one position."""

    weight: int = 0
    score: Optional[int] = None


@dataclass
class BookMoves:
    """Moves per position key, for one variant."""

    variant: str = "seirawan"
    chess960: bool = False
    positions: Dict[int, Dict[str, BookMove]] = field(default_factory=dict)

    def add(self, key: int, move: str, weight: int, score: Optional[int] = None) -> None:
        """Add ``weight`` to the move (capped at 65535); a score replaces the one known before."""
        entry = self.positions.setdefault(key, {}).setdefault(move, BookMove())
        entry.weight = min(MAX_WEIGHT, entry.weight + weight)
        if score is not None:
            entry.score = score

    def entries(self) -> List[Entry]:
        return [
            Entry(key, move, data.weight, 0, data.score)
            for key, moves in self.positions.items()
            for move, data in moves.items()
        ]

    def __len__(self) -> int:
        return sum(len(moves) for moves in self.positions.values())


def write_book_moves(path: str, moves: BookMoves) -> int:
    """Write the table as an S-chess book; returns the number of entries."""
    return write_book(path, moves.entries(), variant=moves.variant, chess960=moves.chess960)


# ---------------------------------------------------------------------------------------------- analysis


@dataclass(frozen=True)
class AnalysisSettings:
    """How the analysis tree is grown.

    From the start position, every position up to ``plies`` plies deep (transpositions once) is searched by
    the engine with ``go nodes <nodes>`` and MultiPV ``widths[ply]`` (the last width repeats). The moves within
    ``margin_cp`` of the best one go into the book and are followed. Weight: ``1000 * 2 ** (-loss / halving_cp)``
    where ``loss`` is how far the move's score is below the best (at least 1).
    """

    command: Tuple[str, ...]
    plies: int = 6
    widths: Tuple[int, ...] = (5, 3, 3, 2)
    nodes: int = 400_000
    margin_cp: int = 40
    halving_cp: int = 20
    hash_mb: int = 64
    threads: int = 1
    variant: str = "seirawan"
    chess960: bool = False


@dataclass(frozen=True)
class PvLine:
    """One MultiPV line: the first move and its score (centipawns from the mover's side, mates as MATE_CP - n)."""

    move: str
    score: int


class MultiPvEngine(UciEngine):
    """The project's one UCI client (:class:`bot.engines.UciEngine`) with a multi-PV search."""

    def analyse(self, moves: Sequence[str], multipv: int, nodes: int, timeout_s: float = 600.0) -> List[PvLine]:
        """Search ``position startpos moves ...`` with ``go nodes``; the last line reported for each MultiPV
        index, best first."""
        self.set_option("MultiPV", str(multipv))
        self.process.drain()
        self.process.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        self.process.send(f"go nodes {nodes}")
        deadline = time.monotonic() + timeout_s
        by_depth: Dict[int, Dict[int, PvLine]] = {}
        while True:
            _, line = self.process.read_line(deadline, "bestmove")
            if line.startswith("bestmove"):
                break
            words = line.split()
            if not line.startswith("info ") or "pv" not in words or "multipv" not in words:
                continue
            if "lowerbound" in words or "upperbound" in words:
                continue
            info = EngineReply(bestmove=None)
            parse_info(line, info)
            if info.score is None or info.depth is None or not info.pv:
                continue
            index = int(words[words.index("multipv") + 1])
            by_depth.setdefault(info.depth, {})[index] = PvLine(info.pv[0], info.score.centipawns(MATE_CP))
        return best_complete_iteration(by_depth)


def best_complete_iteration(by_depth: Dict[int, Dict[int, PvLine]]) -> List[PvLine]:
    """The lines of the deepest iteration that reported every MultiPV index (a search stopped by its node
    limit leaves the last iteration half done), best score first, each move once."""
    if not by_depth:
        return []
    wanted = max(len(lines) for lines in by_depth.values())
    complete = [depth for depth, lines in by_depth.items() if len(lines) == wanted]
    lines = sorted(by_depth[max(complete)].values(), key=lambda line: -line.score)
    out: List[PvLine] = []
    for line in lines:
        if all(line.move != kept.move for kept in out):
            out.append(line)
    return out


def weight_for_loss(loss_cp: int, halving_cp: int) -> int:
    """The weight of a move ``loss_cp`` below the best: 1000 for the best, halved every ``halving_cp``."""
    return max(1, round(1000 * 2 ** (-max(0, loss_cp) / halving_cp)))


def analyse_tree(settings: AnalysisSettings, log: Log) -> BookMoves:
    """Grow the analysis tree (see :class:`AnalysisSettings`) with the engine and return its book moves."""
    book = BookMoves(settings.variant, settings.chess960)
    engine = MultiPvEngine(settings.command, {"Hash": settings.hash_mb, "Threads": settings.threads},
                           label="analyser", strict=True)
    engine.set_variant(settings.variant, settings.chess960)
    engine.start()
    try:
        level: List[Tuple[Board, List[str]]] = [(Board(variant=settings.variant, chess960=settings.chess960), [])]
        seen: set[int] = set()
        for ply in range(settings.plies):
            width = settings.widths[min(ply, len(settings.widths) - 1)]
            following: List[Tuple[Board, List[str]]] = []
            for board, moves in level:
                key = position_key(board)
                if key in seen:
                    continue
                seen.add(key)
                lines = engine.analyse(moves, width, settings.nodes)
                if not lines:
                    continue
                best = lines[0].score
                for line in lines:
                    if best - line.score > settings.margin_cp:
                        continue
                    child = board.copy()
                    try:
                        child.push_uci(line.move)
                    except IllegalMoveError:
                        log(f"warning: the engine's move {line.move} is illegal after {' '.join(moves) or 'start'}")
                        continue
                    book.add(key, line.move, weight_for_loss(best - line.score, settings.halving_cp), line.score)
                    following.append((child, moves + [line.move]))
                log(f"ply {ply} {' '.join(moves) or 'start'}: "
                    + ", ".join(f"{line.move} {line.score:+d}" for line in lines))
            level = following
    finally:
        engine.close()
    return book


# ---------------------------------------------------------------------------------------------- games


@dataclass
class BookGame:
    """A game to learn from: its start (None = the variant's start position), its UCI moves and result."""

    variant: str
    chess960: bool
    start_fen: Optional[str]
    moves: List[str]
    result: str = "*"


RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
_VARIANT_TAGS = {
    "seirawan": ("seirawan", False), "s-chess": ("seirawan", False), "schess": ("seirawan", False),
    "seirawan960": ("seirawan", True), "s-chess960": ("seirawan", True), "schess960": ("seirawan", True),
    "standard": ("chess", False), "chess": ("chess", False), "chess960": ("chess", True),
}
_TAG_RE = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
_MOVE_NUMBER_RE = re.compile(r"^\d+\.+")


def _strip_movetext(text: str) -> List[str]:
    """The SAN tokens and the result of a movetext: comments, variations, NAGs and move numbers removed."""
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r";[^\n]*", " ", text)
    out = []
    depth = 0
    for token in re.findall(r"\(|\)|[^\s()]+", text):
        if token == "(":
            depth += 1
        elif token == ")":
            depth = max(0, depth - 1)
        elif depth == 0 and not token.startswith("$"):
            token = _MOVE_NUMBER_RE.sub("", token)
            if token:
                out.append(token)
    return out


def read_pgn_games(text: str) -> Iterator[BookGame]:
    """The games of a PGN text (SAN as Fairy-Stockfish writes it: ``Nf3/H``, ``O-O/Hh1``). The ``Variant`` tag
    chooses the rules (``Seirawan``, ``Seirawan960``, ``Chess960``; none: standard chess), ``FEN`` the start.
    A game with an unknown variant or an illegal move raises ValueError naming the game and the move."""
    tags: Dict[str, str] = {}
    movetext: List[str] = []
    number = 0

    def finish() -> Optional[BookGame]:
        nonlocal number
        if not tags and not "".join(movetext).strip():
            return None
        number += 1
        return _game_from_pgn(number, dict(tags), " ".join(movetext))

    for raw in text.splitlines():
        line = raw.strip()
        tag = _TAG_RE.match(line)
        if tag and movetext and "".join(movetext).strip():
            game = finish()
            if game:
                yield game
            tags.clear()
            movetext.clear()
        if tag:
            tags[tag.group(1)] = tag.group(2).replace('\\"', '"').replace("\\\\", "\\")
        elif not line.startswith("%"):
            movetext.append(line)
    game = finish()
    if game:
        yield game


def _game_from_pgn(number: int, tags: Dict[str, str], movetext: str) -> BookGame:
    variant_tag = tags.get("Variant", "standard").strip().lower().replace(" ", "")
    if variant_tag not in _VARIANT_TAGS:
        raise ValueError(f"PGN game {number}: unknown variant {tags.get('Variant')!r}")
    variant, chess960 = _VARIANT_TAGS[variant_tag]
    start_fen = tags.get("FEN") or None
    board = Board(start_fen, variant=variant, chess960=chess960)
    result = tags.get("Result", "*")
    moves = []
    for token in _strip_movetext(movetext):
        if token in RESULTS:
            result = token
            break
        try:
            moves.append(board.push_san(token).uci())
        except IllegalMoveError as error:
            players = f"{tags.get('White', '?')} - {tags.get('Black', '?')}"
            raise ValueError(f"PGN game {number} ({players}): {error}") from None
    return BookGame(variant, chess960, start_fen, moves, result if result in RESULTS else "*")


def read_uci_games(text: str, variant: str = "seirawan", chess960: bool = False) -> Iterator[BookGame]:
    """Games written one per line as UCI moves from the start position, optionally ending in a result
    (``g1f3h g8f6e ... 1-0``); blank lines and ``#`` comments are skipped."""
    for number, raw in enumerate(text.splitlines(), 1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        result = words.pop() if words[-1] in RESULTS else "*"
        board = Board(variant=variant, chess960=chess960)
        for word in words:
            try:
                board.push_uci(word)
            except IllegalMoveError as error:
                raise ValueError(f"line {number}: {error}") from None
        yield BookGame(variant, chess960, None, words, result)


def add_games(book: BookMoves, games: Iterable[BookGame], max_plies: int) -> int:
    """Count the first ``max_plies`` moves of each game of the book's variant: a move earns 2 when its side
    won, 1 for a draw or an unknown result, 0 for a loss (Polyglot's convention; weight-0 moves stay in the book
    but are not played unless min_weight is 0). Returns the number of games used."""
    used = 0
    for game in games:
        if (game.variant, game.chess960) != (book.variant, book.chess960):
            continue
        used += 1
        board = Board(game.start_fen, variant=game.variant, chess960=game.chess960)
        for text in game.moves[:max_plies]:
            mover_white = board.turn
            if game.result == "1/2-1/2" or game.result == "*":
                weight = 1
            else:
                weight = 2 if (game.result == "1-0") == mover_white else 0
            key = position_key(board)
            move = board.push_uci(text)
            book.add(key, move.uci(), weight)
    return used
