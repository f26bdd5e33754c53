"""Command line: ``python -m tools.nnue generate|fsfplay|fitk|rescale|expand|label|train|merge|info|convert ...``
(docs/nnue.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.nnue", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("generate", help="positions from the engine's self-play at fixed nodes (resumable)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--games", type=int, default=1000, help="play up to game number GAMES")
    p.add_argument("--nodes", type=int, default=5000, help="nodes per move")
    p.add_argument("--openings", type=Path, default=Path("engine/data/seirawan.epd"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--minutes", type=float, help="start no new game after this many minutes")
    p = sub.add_parser("fsfplay", help="positions from another UCI engine's self-play at fixed nodes (resumable)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--games", type=int, default=1000, help="play up to game number GAMES")
    p.add_argument("--nodes", type=int, default=10000, help="nodes per move")
    p.add_argument("--openings", type=Path, default=Path("engine/data/seirawan.epd"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--engine", default="/usr/games/fairy-stockfish")
    p.add_argument("--minutes", type=float, help="start no new game after this many minutes")
    p.add_argument("--variant", choices=("seirawan", "shouse"), default="seirawan",
                   help="the variant the games are played in (the openings' FENs start them in it)")
    p = sub.add_parser("fitk", help="the K of sigmoid(score / K) that best predicts each file's results, and the "
                       "hand-made evaluation's on the same positions")
    p.add_argument("data", type=Path, nargs="+")
    p.add_argument("--every", type=int, default=1, help="fit on every n-th position")
    p.add_argument("--variant", choices=("seirawan", "shouse"), default="seirawan",
                   help="the variant of the positions (for the hand-made evaluation)")
    p = sub.add_parser("rescale", help="a data file with every score multiplied by a factor")
    p.add_argument("source", type=Path)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--factor", type=float, required=True)
    p = sub.add_parser("expand", help="random walks from the positions of a data file, labelled by quiescence")
    p.add_argument("source", type=Path)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--per-position", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("label", help="the positions of a data file scored again by another UCI engine (resumable)")
    p.add_argument("source", type=Path)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--engine", default="/usr/games/fairy-stockfish")
    p.add_argument("--nodes", type=int, default=20000, help="nodes a position")
    p.add_argument("--every", type=int, default=1, help="label every n-th position")
    p = sub.add_parser("train", help="train (resumable), export the quantized net and check it in the engine")
    p.add_argument("data", type=Path, nargs="+", help="data sets or text files of positions (generate, fsfplay ...)")
    p.add_argument("--out", type=Path, required=True, help="the net file to write (checkpoint: OUT.ckpt.npz)")
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--lam", type=float, default=0.75, help="weight of the search score against the result")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--minutes", type=float, help="start no new epoch after this many minutes")
    p.add_argument("--init", type=Path, help="start from the weights of this checkpoint (OUT.ckpt.npz of a run)")
    p.add_argument("--residual", action="store_true",
                   help="learn the difference from the hand-made evaluation (a net the engine adds to it)")
    p.add_argument("--variant", choices=("seirawan", "shouse"), default="seirawan",
                   help="the variant of the positions (their FENs, the hand-made evaluation)")
    p = sub.add_parser("merge", help="join data sets (or text files) into one, each position once")
    p.add_argument("inputs", type=Path, nargs="+")
    p.add_argument("--out", type=Path, required=True, help="a new file, or one of the inputs to add to it")
    p.add_argument("--variant", choices=("seirawan", "shouse"), default="seirawan",
                   help="the variant of the positions of text files")
    p = sub.add_parser("info", help="what a data set holds: positions by source, variant, result; scores; duplicates")
    p.add_argument("files", type=Path, nargs="+")
    p.add_argument("--variant", choices=("seirawan", "shouse"), default="seirawan",
                   help="the variant of the positions of text files")
    p = sub.add_parser("convert", help="a text file into a data set (resumable, appends), or a data set into text")
    p.add_argument("source", type=Path)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--variant", choices=("seirawan", "shouse"), default="seirawan",
                   help="the variant of the text file's positions")
    p.add_argument("--kind", help="what made the positions (generate, fsfplay, expand, label ...)")
    p.add_argument("--nodes", type=int, help="nodes a move of the search that scored them")
    p.add_argument("--seed", type=int, help="the run's seed")
    p.add_argument("--label", help="what scored them, in words")
    args = parser.parse_args(argv)
    if args.command == "generate":
        from .generate import generate

        n = generate(args.out, args.games, args.nodes, args.openings, args.seed, args.minutes)
        print(f"{n} positions written to {args.out}")
    elif args.command == "fsfplay":
        from .fsfplay import fsfplay

        n = fsfplay(args.out, args.games, args.nodes, args.openings, args.seed, args.engine, args.minutes,
                    args.variant)
        print(f"{n} positions written to {args.out}")
    elif args.command == "fitk":
        from engine import Board
        from engine.evaluate import evaluate_position

        from .fsfplay import fit_k
        from .train import read_positions

        for path in args.data:
            positions = read_positions(path)[::args.every]
            results = [p[2] for p in positions]
            k = fit_k([float(p[1]) for p in positions], results)
            # The hand-made evaluation on the same positions (white's view): the factor that puts the file's
            # scores on this engine's scale, whoever played the games.
            hand = [float(evaluate_position(Board(p[0], variant=args.variant)) * (1 if p[0].split()[1] == "w" else -1))
                    for p in positions]
            k_hand = fit_k(hand, results)
            print(f"{path}: K = {k:.0f}, hand-made evaluation K = {k_hand:.0f}, factor {k_hand / k:.3f} "
                  f"({len(positions):,} positions)")
    elif args.command == "rescale":
        from .fsfplay import rescale

        n = rescale(args.source, args.out, args.factor)
        print(f"{n} positions written to {args.out}")
    elif args.command == "expand":
        from .generate import expand

        n = expand(args.source, args.out, args.per_position, args.seed)
        print(f"{n} positions written to {args.out}")
    elif args.command == "label":
        from .generate import label

        n = label(args.source, args.out, args.engine, args.nodes, args.every)
        print(f"{n} positions written to {args.out}")
    elif args.command == "merge":
        from .dataset import merge

        stats = merge(args.inputs, args.out, args.variant)
        print(f"{stats['positions']:,} positions written to {args.out} ({stats['read']:,} read, "
              f"{stats['duplicates']:,} duplicates removed)")
    elif args.command == "info":
        from .dataset import info

        for path in args.files:
            print(info(path, args.variant))
    elif args.command == "convert":
        from .dataset import convert

        fields = {key: getattr(args, key) for key in ("kind", "nodes", "seed", "label")
                  if getattr(args, key) is not None}
        n = convert(args.source, args.out, args.variant, fields)
        print(f"{n} positions written to {args.out}")
    elif args.command == "train":
        import hashlib

        import numpy as np

        from engine import nnue

        from . import dataset
        from .train import check, featurize, hand_made_loss, hand_made_scores, quantize, train

        for path in args.data:  # a data set knows its variant: a net trains on one variant's positions
            if dataset.is_dataset(path):
                found = {name.removesuffix("960") for name in dataset.variant_names(dataset.read(path).records)}
                if found - {args.variant}:
                    print(f"{path}: positions of {', '.join(sorted(found))}, not of --variant {args.variant}",
                          file=sys.stderr)
                    return 2
        # The validation split goes by game number in every file alike: a game held out in a generate file is
        # held out with its expand walks (same numbers); games of other runs that share a number are held out
        # together, which costs nothing.
        parts = [featurize(path, variant=args.variant) for path in args.data]
        arrays = {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
        print(f"{len(arrays['score']):,} positions from {len(args.data)} file(s)", flush=True)
        checkpoint = args.out.with_name(args.out.name + ".ckpt.npz")
        hand_made = (np.concatenate([hand_made_scores(path, args.variant) for path in args.data]) if args.residual
                     else None)
        net, history = train(arrays, checkpoint, args.hidden, args.epochs, args.batch, args.lr, args.lam,
                             args.seed, args.minutes, args.init, hand_made)
        data = quantize(net, nnue.VERSION_ADDED if args.residual else nnue.VERSION)
        args.out.write_bytes(data)
        mean, worst = check(net, args.out, args.data[0], variant=args.variant)
        if len(args.data) == 1:
            print(f"validation loss: net {history[-1][1]:.5f}, hand-made evaluation "
                  f"{hand_made_loss(args.data[0], arrays, args.lam, args.variant):.5f}")
        print(f"wrote {args.out} ({len(data):,} bytes, sha256 {hashlib.sha256(data).hexdigest()}); "
              f"engine vs float net: mean {mean:.2f} cp, max {worst:.1f} cp")
    return 0


if __name__ == "__main__":
    sys.exit(main())
