"""A scriptable fake UCI engine for the match runner tests.

    python fake_engine.py [--fault illegal|nomove|crash|hang|slow|none] [--after N] [--delay S] [--no-start]
                          [--pid-file FILE] [--go-file FILE]

It plays the first legal move (by pyffish) until it has made ``--after`` moves in the current game, then
commits its fault on the next ``go``: ``illegal`` answers ``bestmove a1a1``, ``nomove`` ``bestmove (none)``,
``crash`` exits, ``hang`` never answers (and ignores ``stop``), ``slow`` sleeps ``--delay`` seconds before
answering. ``--no-start`` exits before ``uciok``. ``--pid-file`` appends the process id to FILE (to check that
the runner cleans up). ``--go-file`` appends the process id to FILE each time a ``go`` arrives (so that a test
can wait until a game is under way instead of guessing how long the start takes).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import pyffish as sf


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fault", default="none")
    parser.add_argument("--after", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--no-start", action="store_true")
    parser.add_argument("--pid-file", default=None)
    parser.add_argument("--go-file", default=None)
    args = parser.parse_args()
    if args.pid_file:
        with open(args.pid_file, "a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")
    variant, chess960 = "chess", False
    fen: str = sf.start_fen("seirawan")
    moves: list[str] = []
    moves_made = 0

    def say(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "uci":
            if args.no_start:
                sys.exit(3)
            say("id name Fake " + args.fault)
            say("option name UCI_Variant type combo default chess var chess var seirawan")
            say("option name UCI_Chess960 type check default false")
            say("option name Style type string default plain")
            say("uciok")
        elif command == "isready":
            say("readyok")
        elif command == "setoption" and "value" in words:
            name = " ".join(words[2 : words.index("value")])
            value = " ".join(words[words.index("value") + 1 :])
            if name == "UCI_Variant":
                variant = value
            elif name == "UCI_Chess960":
                chess960 = value == "true"
        elif command == "ucinewgame":
            moves_made = 0
        elif command == "position":
            rest = words[1:]
            if rest[0] == "startpos":
                fen, rest = sf.start_fen(variant), rest[1:]
            else:
                end = rest.index("moves") if "moves" in rest else len(rest)
                fen, rest = " ".join(rest[1:end]), rest[end:]
            moves = rest[1:] if rest and rest[0] == "moves" else []
        elif command == "go":
            if args.go_file:
                with open(args.go_file, "a", encoding="utf-8") as handle:
                    handle.write(f"{os.getpid()}\n")
            if moves_made >= args.after and args.fault != "none":
                if args.fault == "illegal":
                    say("bestmove a1a1")
                    continue
                if args.fault == "nomove":
                    say("bestmove (none)")
                    continue
                if args.fault == "crash":
                    sys.stderr.write("Traceback (most recent call last):\nRuntimeError: fake crash\n")
                    sys.exit(1)
                if args.fault == "hang":
                    while True:
                        time.sleep(60)
                if args.fault == "slow":
                    time.sleep(args.delay)
            legal = sf.legal_moves(variant, fen, moves, chess960)
            moves_made += 1
            choice = sorted(legal)[0] if legal else "(none)"
            say("info depth 1 score cp 0 nodes 1 pv " + choice)
            say("bestmove " + choice)
        elif command == "quit":
            return


if __name__ == "__main__":
    main()
