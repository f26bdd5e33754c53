"""A UCI engine with faults on demand, for the engine-fault tests: it plays the first legal move of
``engine.Board`` (any variant the bot asks for) and misbehaves on chosen searches.

    python faulty_uci.py [--die-on=N] [--hang-on=N] [--illegal-on=N] [--env-dump=PATH]

``--die-on=N``: on the N-th ``go`` of the session (1-based, counted across restarts through the file
``<PATH>.count`` when ``--counter=PATH`` is given) the process kills itself with SIGKILL mid-search;
``--hang-on=N``: never answers that ``go`` nor the ``stop`` that follows; ``--illegal-on=N``: answers an
illegal move; ``--dead-from=N`` (with ``--counter``): dies on the N-th ``go`` and from then on exits at once
whenever it is started, until the file ``<PATH>.dead`` is deleted (an engine that is gone for good).
``--env-dump=PATH`` writes the environment it was started with to PATH (the token check).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from engine import Board  # noqa: E402

parser = argparse.ArgumentParser()
for name in ("die-on", "hang-on", "illegal-on"):
    parser.add_argument(f"--{name}", type=int, action="append", default=[])
parser.add_argument("--dead-from", type=int, default=None)
parser.add_argument("--counter", default=None)
parser.add_argument("--env-dump", default=None)
args = parser.parse_args()
if args.env_dump:
    Path(args.env_dump).write_text("\n".join(f"{k}={v}" for k, v in sorted(os.environ.items())))


def next_search() -> int:
    """The number of this ``go`` (1-based), kept in a file so that it survives the bot's restarts."""
    path = Path(args.counter) if args.counter else None
    count = int(path.read_text()) if path is not None and path.exists() else next_search.count  # type: ignore[attr-defined]
    count += 1
    next_search.count = count  # type: ignore[attr-defined]
    if path is not None:
        path.write_text(str(count))
    return count


next_search.count = 0  # type: ignore[attr-defined]
DEAD_MARK = Path(f"{args.counter}.dead") if args.counter else None
if DEAD_MARK is not None and DEAD_MARK.exists():
    sys.exit(1)
variant, chess960, board = "chess", False, None
for line in sys.stdin:
    command = line.strip()
    if command == "uci":
        print("id name FaultyUCI")
        print("option name UCI_Variant type combo default chess var chess var seirawan")
        print("option name UCI_Chess960 type check default false")
        print("uciok", flush=True)
    elif command == "isready":
        print("readyok", flush=True)
    elif command.startswith("setoption name UCI_Variant value "):
        variant = command.split()[-1]
    elif command.startswith("setoption name UCI_Chess960 value "):
        chess960 = command.split()[-1] == "true"
    elif command.startswith("position fen "):
        fen, _, moves = command[len("position fen "):].partition(" moves ")
        board = Board(fen, variant=variant, chess960=chess960)
        for move in moves.split():
            board.push_uci(move)
    elif command.startswith("go"):
        number = next_search()
        if args.dead_from is not None and number >= args.dead_from and DEAD_MARK is not None:
            DEAD_MARK.write_text("dead")
            os.kill(os.getpid(), signal.SIGKILL)
        if number in args.die_on:
            os.kill(os.getpid(), signal.SIGKILL)
        if number in args.hang_on:
            continue
        legal = sorted(str(move) for move in board.legal_moves) if board is not None else []
        if number in args.illegal_on:
            best = "a1a1"
        else:
            best = legal[0] if legal else "(none)"
        print(f"info depth 1 score cp 0 nodes 1 pv {best}")
        print(f"bestmove {best}", flush=True)
    elif command == "quit":
        break
