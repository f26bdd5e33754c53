"""Command line: ``python -m tools.tune extract|selfplay|label|fit|drops ...``."""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Optional

from .data import Sample, label_with_engine, quiet_positions, read_games, read_samples, write_samples
from .selfplay import generate


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.tune", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("extract", help="quiet positions from match PGNs, labelled with the game result")
    p.add_argument("pgn", nargs="+", type=Path)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--skip-plies", type=int, default=8)
    p.add_argument("--every", type=int, default=1, help="keep every n-th ply")
    p = sub.add_parser("selfplay", help="positions from Fairy-Stockfish self-play, with its scores and results")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--engine", default="/usr/games/fairy-stockfish")
    p.add_argument("--nodes", type=int, default=5000, help="nodes per move")
    p.add_argument("--chess-share", type=float, default=0.25, help="share of standard-chess games")
    p.add_argument("--openings", type=Path, default=Path("engine/data/seirawan.epd"))
    p.add_argument("--seed", type=int, default=1, help="seed of the openings and random plies")
    p.add_argument("--minutes", type=float, help="start no new game after this many minutes (the games under "
                                                 "way finish; the positions are written as after --games)")
    p = sub.add_parser("label", help="add a UCI engine's fixed-depth score to each position")
    p.add_argument("data", type=Path)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--engine", default="/usr/games/fairy-stockfish")
    p.add_argument("--depth", type=int, default=8)
    p.add_argument("--limit", type=int, default=0, help="label only a random sample of this many")
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("fit", help="fit all evaluation weights (Texel's method) on labelled positions")
    p.add_argument("data", nargs="+", type=Path, help="files from selfplay or label")
    p.add_argument("--lam", type=float, default=0.5, help="share of the game result in the label (the rest "
                                                         "is the search score)")
    p.add_argument("--l2", type=float, default=1e-7, help="pull towards the current weights")
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--rate", type=float, default=1.0, help="Adam step size in centipawns")
    p.add_argument("--cache", type=Path, help="keep the positions' features in this .npz file (rebuilt when "
                                              "a data file is newer)")
    p.add_argument("--no-mirror", dest="mirror", action="store_false",
                   help="fit each square on its own (default: a square and its a<->h mirror together)")
    p.add_argument("--terms", default="mobility,king-attack,passed,threats,files",
                   help="activity terms to fit, comma-separated (mobility, king-attack, passed, threats, files; "
                        "'' for none); "
                        "the terms left out get weight 0, so the engine does not compute them")
    p.add_argument("--only-terms", action="store_true",
                   help="fit only the activity terms' weights; the tables and the other terms keep theirs")
    p.add_argument("--write", type=Path, help="write the fitted weights here (engine/eval_weights.py)")
    p = sub.add_parser("drops", help="fit S-House's drop terms (hand values, king danger) on S-House games")
    p.add_argument("data", nargs="+", type=Path, help="fen;score;result;game files (tools.nnue fsfplay "
                                                     "--variant shouse)")
    p.add_argument("--lam", type=float, default=0.5, help="share of the game result in the label (the rest "
                                                         "is the playing engine's score)")
    p.add_argument("--every", type=int, default=1, help="fit on every n-th position")
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--rate", type=float, default=2.0, help="Adam step size in centipawns")
    p.add_argument("--divisor", type=int, default=10, help="KD_DIVISOR of the integer weights printed")
    args = parser.parse_args(argv)

    if args.command == "extract":
        samples: list[Sample] = []
        for path in args.pgn:
            for game in read_games(path):
                samples.extend(quiet_positions(game, args.skip_plies, args.every))
        write_samples(samples, args.out)
        print(f"{len(samples)} positions -> {args.out}")
    elif args.command == "selfplay":
        total = generate(args.out, args.games, args.workers, args.engine, args.nodes, args.chess_share,
                         args.openings, args.seed, args.minutes)
        print(f"{total} positions from {args.games} games -> {args.out}")
    elif args.command == "label":
        samples = read_samples(args.data)
        if args.limit and args.limit < len(samples):
            samples = random.Random(args.seed).sample(samples, args.limit)
        label_with_engine(samples, args.engine, args.depth)
        write_samples(samples, args.out)
        print(f"{len(samples)} positions labelled at depth {args.depth} -> {args.out}")
    elif args.command == "drops":
        run_drops(args)
    else:
        run_fit(args)
    return 0


def run_drops(args: argparse.Namespace) -> None:
    """Fit the drop terms on nine tenths of the positions (the last tenth, whole games, held out) and print
    the engine's settings before and after with both losses."""
    from engine import evaluate as ev

    from . import drops

    data = drops.features(args.data, args.every,
                          lambda n: print(f"  {n:,} positions read", end="\r", file=sys.stderr, flush=True))
    n = len(data["base"])
    print(file=sys.stderr)
    if n < 100:
        raise SystemExit(f"only {n} positions in {', '.join(map(str, args.data))}: too few to fit")
    k_engine = drops.fit_k(data["score"], data["result"])
    y = args.lam * data["result"] + (1 - args.lam) * drops.sigmoid(data["score"], k_engine)
    cut = n - n // 10
    train = {key: value[:cut] for key, value in data.items()}
    test = {key: value[cut:] for key, value in data.items()}
    p0 = drops.current_params()
    k = drops.fit_k(drops.evaluation(train, p0), y[:cut])
    print(f"{n:,} positions ({cut:,} to fit, {n - cut:,} held out); K: playing engine {k_engine:.0f}, "
          f"evaluation {k:.0f}")
    p = drops.fit(train, y[:cut], p0, k, args.steps, args.rate)
    fitted = drops.as_settings(p, args.divisor)
    rounded = drops.from_settings(fitted)
    current = drops.as_settings(p0, ev.KD_DIVISOR)
    for name, params in (("current", p0), ("fitted", p), ("fitted, rounded", rounded)):
        print(f"{name}: loss {drops.loss(train, y[:cut], params, k):.6f} fitted positions, "
              f"{drops.loss(test, y[cut:], params, k):.6f} held out")
    for name, value in fitted.items():
        print(f"  {name}: {current[name] if name != 'KD_DIVISOR' else ev.KD_DIVISOR} -> {value}")


def run_fit(args: argparse.Namespace) -> None:
    """Fit on nine tenths of the positions, report the loss on the held-out tenth, optionally write."""
    import numpy as np

    from engine import evaluate as ev

    from . import linear

    cache = args.cache
    if cache and cache.exists() and all(cache.stat().st_mtime > path.stat().st_mtime for path in args.data):
        with np.load(cache) as saved:
            x, results, scores = saved["x"], saved["results"], saved["scores"]
    else:
        parts = [linear.quiet_features(path) for path in args.data]
        x = np.concatenate([p[0] for p in parts])
        results = np.concatenate([p[1] for p in parts])
        scores = np.concatenate([p[2] for p in parts])
        if cache:
            np.savez(cache, x=x, results=results, scores=scores)
    y = args.lam * results + (1 - args.lam) * linear.sigmoid(scores, 1.0)
    # Hold out the last tenth of the positions in file order: whole games (positions of one game are alike
    # and share a result, so a random split would flatter the fit).
    order = np.arange(len(y))
    test, train = order[len(y) - len(y) // 10:], order[: len(y) - len(y) // 10]
    w0 = linear.current_weights()
    terms = [name for name in args.terms.split(",") if name]
    left_out = linear.term_columns([name for name in linear.TERMS if name not in terms])
    if len(left_out):
        x = x.copy()
        x[:, left_out] = 0.0
        w0[left_out] = 0.0
    k = linear.fit_k(x[train], y[train], w0)
    print(f"{len(y)} quiet positions ({len(train)} to fit, {len(test)} held out); K = {k:.3f}")
    print(f"current weights: loss {linear.loss(x[train], y[train], w0, k):.6f} fitted positions, "
          f"{linear.loss(x[test], y[test], w0, k):.6f} held out")
    free = linear.term_columns(terms) if args.only_terms else None
    w = linear.fit(x[train], y[train], w0, k, args.l2, args.steps, args.rate, mirror=args.mirror, free=free)
    print(f"fitted weights:  loss {linear.loss(x[train], y[train], w, k):.6f} fitted positions, "
          f"{linear.loss(x[test], y[test], w, k):.6f} held out")
    names = ("TEMPO", "SHIELD_NEAR", "SHIELD_FAR", "-OPEN_KING_FILE", "-CENTRAL_KING", "HAND_VALUE hawk",
             "HAND_VALUE elephant", "-SHORTAGE 0", "-SHORTAGE 1", "-SHORTAGE 2")
    for i, name in enumerate(names):
        print(f"  {name}: {w0[linear.TEMPO_I + i]:.0f} -> {w[linear.TEMPO_I + i]:.1f}")
    for t, name in enumerate(("pawn", "knight", "bishop", "rook", "queen", "king", "hawk", "elephant")):
        mg = w[t * 64:(t + 1) * 64].mean() - w0[t * 64:(t + 1) * 64].mean()
        eg = w[linear.PST + t * 64:linear.PST + (t + 1) * 64].mean() - w0[
            linear.PST + t * 64:linear.PST + (t + 1) * 64].mean()
        print(f"  {name}: mean change mg {mg:+.1f}, eg {eg:+.1f}")
    for name, part in linear.TERMS.items():
        if name in terms:
            mg = w[linear.ACTIVITY_I + part.start:linear.ACTIVITY_I + part.stop]
            eg = w[linear.ACTIVITY_I + ev.N_ACTIVITY + part.start:linear.ACTIVITY_I + ev.N_ACTIVITY + part.stop]
            print(f"  {name} mg: {' '.join(f'{v:.1f}' for v in mg)}")
            print(f"  {name} eg: {' '.join(f'{v:.1f}' for v in eg)}")
    if args.write:
        sources = ", ".join(path.name for path in args.data)
        settings = (f"lam {args.lam}, l2 {args.l2}, {args.steps} steps{'' if args.mirror else ', no mirror'}"
                    f"{', only the terms' if args.only_terms else ''}, "
                    f"terms: {', '.join(terms) or 'none'}")
        linear.write_module(w, args.write, f"{len(train)} positions of {sources}, {settings}")
        print(f"-> {args.write}")


if __name__ == "__main__":
    sys.exit(main())
