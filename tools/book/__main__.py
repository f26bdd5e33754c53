"""``python -m tools.book build|dump``: build an S-chess opening book, or print a book's entries.

examples:
  python -m tools.book build -o engine/data/seirawan.book --engine /usr/games/fairy-stockfish \\
      --plies 6 --widths 5,3,3,2 --nodes 400000 --margin 40
  python -m tools.book build -o games.book --pgn games.pgn --max-plies 16
  python -m tools.book dump engine/data/seirawan.book
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections import deque
from typing import Dict, List, Optional, Sequence, TextIO, Tuple

from engine import Board
from engine.book import Book, BookError, SchessBook, open_book

from .build import (
    AnalysisSettings,
    BookMoves,
    add_games,
    analyse_tree,
    read_pgn_games,
    read_uci_games,
    write_book_moves,
)


def _widths(text: str) -> Tuple[int, ...]:
    try:
        widths = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not widths or min(widths) < 1:
        raise argparse.ArgumentTypeError("every width must be at least 1")
    return widths


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tools.book", description=__doc__.split("\n\n")[0],
        epilog="\n".join(__doc__.split("\n")[2:]), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("build", help="build an S-chess book from engine analysis and/or games")
    build.add_argument("-o", "--output", required=True, help="the book file to write (overwritten)")
    build.add_argument("--variant", choices=("seirawan", "chess"), default="seirawan")
    build.add_argument("--chess960", action="store_true")
    source = build.add_argument_group("engine analysis (a tree of MultiPV searches from the start position)")
    source.add_argument("--engine", metavar="COMMAND",
                        help="UCI engine to analyse with, e.g. /usr/games/fairy-stockfish")
    source.add_argument("--plies", type=int, default=6, help="depth of the tree in plies (default 6)")
    source.add_argument("--widths", type=_widths, default=(5, 3, 3, 2),
                        help="MultiPV per ply, the last one repeating (default 5,3,3,2)")
    source.add_argument("--nodes", type=int, default=400_000, help="nodes per search (default 400000)")
    source.add_argument("--margin", type=int, default=40, help="keep moves within this many cp of the best (40)")
    source.add_argument("--halving", type=int, default=20, help="weight halves every this many cp below the best")
    source.add_argument("--hash", type=int, default=64, help="engine Hash in MB (default 64)")
    source.add_argument("--threads", type=int, default=1, help="engine Threads (default 1: reproducible)")
    games = build.add_argument_group("games (weight: 2 per win of the mover, 1 per draw, 0 per loss)")
    games.add_argument("--pgn", action="append", default=[], metavar="FILE", help="PGN file; repeatable")
    games.add_argument("--uci", action="append", default=[], metavar="FILE",
                       help="file with one game per line in UCI moves from the start; repeatable")
    games.add_argument("--max-plies", type=int, default=16, help="plies taken from each game (default 16)")
    dump = commands.add_parser("dump", help="print the entries of a book (S-chess or Polyglot)")
    dump.add_argument("file")
    return parser


def build(args: argparse.Namespace, out: TextIO) -> int:
    if not args.engine and not args.pgn and not args.uci:
        print("error: nothing to build from: give --engine, --pgn or --uci", file=sys.stderr)
        return 2
    book = BookMoves(args.variant, args.chess960)
    if args.engine:
        settings = AnalysisSettings(
            tuple(shlex.split(args.engine)), args.plies, args.widths, args.nodes, args.margin, args.halving,
            args.hash, args.threads, args.variant, args.chess960,
        )
        analysed = analyse_tree(settings, lambda line: print(line, file=out, flush=True))
        for key, moves in analysed.positions.items():
            for move, data in moves.items():
                book.add(key, move, data.weight, data.score)
    for path in args.pgn:
        with open(path, encoding="utf-8", errors="replace") as stream:
            used = add_games(book, read_pgn_games(stream.read()), args.max_plies)
        print(f"{path}: {used} games", file=out)
    for path in args.uci:
        with open(path, encoding="utf-8") as stream:
            used = add_games(book, read_uci_games(stream.read(), args.variant, args.chess960), args.max_plies)
        print(f"{path}: {used} games", file=out)
    count = write_book_moves(args.output, book)
    print(f"wrote {args.output}: {count} entries, {len(book.positions)} positions", file=out)
    return 0


def _lines_by_key(book: SchessBook) -> Dict[int, str]:
    """The first line of SAN moves (breadth first from the start position) that reaches each key of the book."""
    start = Board(variant=book.variant, chess960=book.chess960)
    found: Dict[int, str] = {}
    queue: deque[Tuple[Board, List[str]]] = deque([(start, [])])
    while queue:
        board, sans = queue.popleft()
        key = book.key(board)
        if key is None or key in found:
            continue
        found[key] = " ".join(sans) or "(start)"
        for entry in book.find_all(board, min_weight=0):
            move = board.parse_uci(entry.move)
            child = board.copy()
            san = child.san(move)
            child.push(move)
            queue.append((child, sans + [san]))
    return found


def dump(path: str, out: TextIO) -> int:
    try:
        book: Book = open_book(path)
    except BookError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    with book:
        if isinstance(book, SchessBook):
            lines = _lines_by_key(book)
            print(f"# {path}: S-chess book, variant {book.variant}{' 960' if book.chess960 else ''}, "
                  f"{len(book)} entries", file=out)
            print("# key               move    weight  score  position (a line from the start)", file=out)
            for entry in book:
                score = "" if entry.score is None else f"{entry.score:+d}"
                print(f"{entry.key:016x}  {entry.move:6}  {entry.weight:6}  {score:>5}  "
                      f"{lines.get(entry.key, '(not reached from the start)')}", file=out)
        else:
            print(f"# {path}: Polyglot book, {len(book)} entries (castling as king takes rook)", file=out)
            print("# key               move    weight  learn", file=out)
            for entry in book:
                print(f"{entry.key:016x}  {entry.move:6}  {entry.weight:6}  {entry.learn}", file=out)
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "build":
        return build(args, sys.stdout)
    return dump(args.file, sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
