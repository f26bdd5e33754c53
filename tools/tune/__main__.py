"""Command line: ``python -m tools.tune extract|label|fit ...``."""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Optional

from .data import Sample, label_with_engine, quiet_positions, read_games, read_samples, write_samples
from .fit import Fitter, expand, report


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.tune", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("extract", help="quiet positions from match PGNs, labelled with the game result")
    p.add_argument("pgn", nargs="+", type=Path)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--skip-plies", type=int, default=8)
    p.add_argument("--every", type=int, default=1, help="keep every n-th ply")
    p = sub.add_parser("label", help="add a UCI engine's fixed-depth score to each position")
    p.add_argument("data", type=Path)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--engine", default="/usr/games/fairy-stockfish")
    p.add_argument("--depth", type=int, default=8)
    p.add_argument("--limit", type=int, default=0, help="label only a random sample of this many")
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("fit", help="fit evaluation parameters (Texel's method) and print them")
    p.add_argument("data", type=Path)
    p.add_argument("--params", default="king,hand", help="comma-separated groups or names: king, hand, "
                                                         "material, or a tunable name of engine.evaluate")
    p.add_argument("--target", choices=("result", "score"), default="result")
    p.add_argument("--steps", default="8,4,2")
    args = parser.parse_args(argv)

    if args.command == "extract":
        samples: list[Sample] = []
        for path in args.pgn:
            for game in read_games(path):
                samples.extend(quiet_positions(game, args.skip_plies, args.every))
        write_samples(samples, args.out)
        print(f"{len(samples)} positions -> {args.out}")
    elif args.command == "label":
        samples = read_samples(args.data)
        if args.limit and args.limit < len(samples):
            samples = random.Random(args.seed).sample(samples, args.limit)
        label_with_engine(samples, args.engine, args.depth)
        write_samples(samples, args.out)
        print(f"{len(samples)} positions labelled at depth {args.depth} -> {args.out}")
    else:
        fitter = Fitter(read_samples(args.data), args.target)
        params = expand([name.strip() for name in args.params.split(",") if name.strip()])
        print(f"K = {fitter.fit_k():.3f}")
        fitter.descend(params, tuple(int(s) for s in args.steps.split(",")))
        print("\n".join(report(params)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
