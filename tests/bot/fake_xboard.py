"""A tiny scripted XBoard (CECP) engine for tests: ``python fake_xboard.py MODE [MOVE]``.

Handshake: on ``protover 2`` it sends ``feature done=0``, its features (``usermove=1``, ``setboard=1``, ``ping=1``,
``memory=1``, ``san=1``, an unknown one, an option), sleeps FAKE_XB_PAUSE seconds (default 0) and sends ``done=1``.
Modes: ``move`` answers ``go`` with a thinking line and ``move MOVE`` (default g1f3h); ``movenow`` answers only
after ``?``; ``hang`` never answers; ``crash`` exits on ``go``; ``crash_once`` exits on the first ``go`` of its life
if the file named by FAKE_XB_MARK does not exist yet; ``resign`` answers ``resign``; ``refuse`` answers every
``usermove`` with ``Illegal move: MOVE``; ``silent`` sends no features at all (a protocol-1 engine).
Every command received is appended to the file named by FAKE_XB_LOG, if set.
"""

import os
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "move"
answer = sys.argv[2] if len(sys.argv) > 2 else "g1f3h"
log_path = os.environ.get("FAKE_XB_LOG")
thinking = False


def say(text: str) -> None:
    print(text, flush=True)


for line in sys.stdin:
    command = line.strip()
    if log_path:
        with open(log_path, "a") as log:
            log.write(command + "\n")
    if command == "protover 2" and mode != "silent":
        say("feature done=0")
        say(f'feature myname="FakeXB {mode}" setboard=1 usermove=1 ping=1 memory=1 san=1 colors=0 frobnicate=1')
        say('feature variants="normal,seirawan,fischerandom" sigint=0 sigterm=0')
        say('feature option="Style -combo Solid /// *Normal /// Risky"')
        time.sleep(float(os.environ.get("FAKE_XB_PAUSE", "0")))
        say("feature done=1")
    elif command.startswith("ping"):
        say("pong" + command[4:])
    elif command.startswith("usermove ") and mode == "refuse":
        say("Illegal move: " + command.split()[1])
    elif command == "go":
        if mode == "crash":
            sys.exit(3)
        if mode == "crash_once":
            mark = os.environ["FAKE_XB_MARK"]
            if not os.path.exists(mark):
                open(mark, "w").close()
                sys.exit(3)
        if mode in ("hang", "movenow"):
            thinking = True
            continue
        if mode == "resign":
            say("resign")
            continue
        say(f" 7 42 12 1234 {answer}")
        say(f"move {answer}")
    elif command == "?" and thinking and mode == "movenow":
        thinking = False
        say(f" 3 {100000 + 2} 5 99 {answer}")
        say(f"move {answer}")
    elif command == "quit":
        break
