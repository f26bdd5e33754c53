"""A tiny scripted UCI engine for tests: ``python fake_uci.py MODE [MOVE]``.

Modes: ``move`` answers MOVE (default e2e4) with a score (``plain``: the same, as a chess-only engine without
``UCI_Variant``); ``crash`` exits on ``go``; ``hang`` never answers ``go`` nor ``stop``; ``stoppable`` answers
only after ``stop``; ``none`` answers ``bestmove (none)``;
``crash_once`` crashes on the first ``go`` of its life if the file named by FAKE_UCI_MARK does not exist yet;
``script`` plays a whole game from FAKE_UCI_SCRIPT (UCI moves of both sides, space-separated): at ply N it answers
``bestmove script[N] ponder script[N+1]``, and a ``go ponder`` answers only after ``ponderhit`` or ``stop``.
Every command received is appended to the file named by FAKE_UCI_LOG, if set.
"""

import os
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "move"
answer = sys.argv[2] if len(sys.argv) > 2 else "e2e4"
searching = False
script = os.environ.get("FAKE_UCI_SCRIPT", "").split()
ply = 0
pondering = False
log_path = os.environ.get("FAKE_UCI_LOG")


def scripted_answer() -> None:
    best = script[ply] if ply < len(script) else "(none)"
    ponder = f" ponder {script[ply + 1]}" if ply + 1 < len(script) else ""
    print(f"info depth 5 score cp {10 + ply} nodes 100 pv {best}")
    print(f"bestmove {best}{ponder}", flush=True)


for line in sys.stdin:
    command = line.strip()
    if log_path:
        with open(log_path, "a") as log:
            log.write(command + "\n")
    if mode == "script":
        if command.startswith("position"):
            ply = len(command.split(" moves ")[1].split()) if " moves " in command else 0
        elif command.startswith("go"):
            pondering = " ponder" in command
            if not pondering:
                scripted_answer()
            continue
        elif command in ("ponderhit", "stop"):
            if pondering:
                pondering = False
                scripted_answer()
            continue
    if command == "uci":
        print("id name FakeUCI " + mode)
        if mode != "plain":  # plain: a chess-only engine, neither UCI_Variant nor UCI_Chess960
            print("option name UCI_Variant type combo default chess var chess var seirawan")
            print("option name UCI_Chess960 type check default false")
        print("option name Hash type spin default 16 min 1 max 1024")
        print("option name Ponder type check default false")
        print("uciok", flush=True)
    elif command == "isready":
        print("readyok", flush=True)
    elif command.startswith("go"):
        if mode == "crash":
            sys.exit(3)
        if mode == "crash_once":
            mark = os.environ["FAKE_UCI_MARK"]
            if not os.path.exists(mark):
                open(mark, "w").close()
                sys.exit(3)
        if mode in ("hang", "stoppable"):
            searching = True
            continue
        print("info depth 7 seldepth 9 score cp 42 nodes 1234 pv " + answer)
        print("bestmove (none)" if mode == "none" else "bestmove " + answer, flush=True)
    elif command == "stop" and searching and mode == "stoppable":
        searching = False
        print("info depth 3 score mate 2 pv " + answer)
        print("bestmove " + answer, flush=True)
    elif command == "quit":
        break
