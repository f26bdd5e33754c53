"""Command-line perft and the move-generation speed benchmark.

``schess-engine perft DEPTH [--fen FEN] [--variant NAME] [--chess960] [--divide]`` (or ``python -m engine
perft ...``) prints Stockfish-style ``move: count`` lines (with ``--divide``) and the total. NAME is any of
``UCI_Variant``'s names (``seirawan960`` is ``seirawan`` with ``--chess960``).

``schess-engine bench-perft`` measures, in one run on this machine: S-chess start perft(4) and standard
start perft(4), with push/pop through the public ``Board`` API at every node (leaves included), and the
same standard perft with python-chess when it is installed, printing nodes per second and the ratio.
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Callable

from .board import Board
from .perft import perft, perft_divide
from .variants import VARIANT_NAMES, split_variant_name


def _api_perft(board, depth: int) -> int:  # type: ignore[no-untyped-def]
    """Perft through the public API, push and pop at every node (python-chess's usual benchmark loop)."""
    if depth == 0:
        return 1
    total = 0
    for move in list(board.legal_moves):
        board.push(move)
        total += _api_perft(board, depth - 1)
        board.pop()
    return total


def _timed(func: Callable[..., int], *args: Any) -> tuple[int, float]:
    start = time.perf_counter()
    result = func(*args)
    return result, time.perf_counter() - start


def bench(depth: int = 4, repeat: int = 1) -> None:
    rows = []
    for label, board in (("seirawan start", Board()), ("chess start", Board(variant="chess"))):
        best = None
        for _ in range(repeat):
            nodes, seconds = _timed(_api_perft, board, depth)
            best = seconds if best is None else min(best, seconds)
        assert best is not None
        rows.append((f"engine.Board {label} perft({depth})", nodes, best))
    try:
        import chess  # python-chess, the reference (a test dependency only)
    except ImportError:
        chess = None  # type: ignore[assignment]
    if chess is not None:
        best = None
        for _ in range(repeat):
            nodes, seconds = _timed(_api_perft, chess.Board(), depth)
            best = seconds if best is None else min(best, seconds)
        assert best is not None
        rows.append((f"python-chess {chess.__version__} chess start perft({depth})", nodes, best))
    for label, nodes, seconds in rows:
        print(f"{label:48s} {nodes:>9,d} nodes {seconds:7.2f} s {nodes / seconds:>11,.0f} nodes/s")
    if chess is not None:
        ours = rows[1][1] / rows[1][2]
        reference = rows[2][1] / rows[2][2]
        print(f"ratio engine.Board / python-chess on standard chess: {ours / reference:.2f}")
    else:
        print("python-chess is not installed: no reference figure (pip install chess)")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="schess-engine", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("perft", help="count leaf nodes to a depth")
    p.add_argument("depth", type=int)
    p.add_argument("--fen", default=None, help="start FEN (default: the variant's start position)")
    p.add_argument("--variant", default="seirawan", choices=VARIANT_NAMES,
                   help="the rules (seirawan960 and chess960: with --chess960)")
    p.add_argument("--chess960", action="store_true")
    p.add_argument("--divide", action="store_true", help="print the count below each root move")
    b = sub.add_parser("bench-perft", help="move generation + make/unmake speed, python-chess as reference")
    b.add_argument("--depth", type=int, default=4)
    b.add_argument("--repeat", type=int, default=1, help="runs per figure; the fastest is reported")
    args = parser.parse_args(argv)
    if args.command == "bench-perft":
        bench(args.depth, args.repeat)
        return 0
    try:
        variant, chess960 = split_variant_name(args.variant)
        board = Board(args.fen, variant=variant, chess960=chess960 or args.chess960)
    except ValueError as exc:
        parser.error(str(exc))
    start = time.perf_counter()
    if args.divide:
        counts = perft_divide(board, args.depth)
        for uci in sorted(counts):
            print(f"{uci}: {counts[uci]}")
        total = sum(counts.values())
        print()
        print(f"Nodes searched: {total}")
    else:
        total = perft(board, args.depth)
        print(f"Nodes searched: {total}")
    seconds = time.perf_counter() - start
    print(f"Time: {seconds:.2f} s ({total / max(seconds, 1e-9):,.0f} nodes/s)")
    return 0
