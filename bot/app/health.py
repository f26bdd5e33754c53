"""Container health check: is the bot's event stream alive, and can it play?

``python -m bot.health PATH [MAX_AGE_S]`` (``--help``) exits 0 when the heartbeat file (touched by the bot on every
event-stream line, keep-alives included) was modified in the last MAX_AGE_S seconds (default 60) and does not
say ``unhealthy``, else 1. The servers send a keep-alive every 6-7 s, so a minute of silence means the stream
is dead and the bot has not managed to reconnect. The bot writes ``unhealthy: ...`` into the file while no
engine works (a game's engine failed for good; see docs/bot.md, "When the engine fails").
"""

from __future__ import annotations

import os
import sys
import time

USAGE = """usage: python -m bot.health HEARTBEAT_FILE [MAX_AGE_S]

The Docker health check: exit 0 when the bot touched HEARTBEAT_FILE (schess-bot --heartbeat-file) within
MAX_AGE_S seconds (default 60) and the file does not say "unhealthy", else exit 1 with one line saying why.
Exit 2 for a wrong command line."""


def heartbeat_age_s(path: str, now: float | None = None) -> float | None:
    """Seconds since the heartbeat file was last touched, or None when it does not exist."""
    try:
        modified = os.path.getmtime(path)
    except OSError:
        return None
    return (time.time() if now is None else now) - modified


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if not args or len(args) > 2 or args[0].startswith("-"):
        print(f"usage: python -m bot.health HEARTBEAT_FILE [MAX_AGE_S] (--help for more); got {' '.join(args)!r}"
              if args else "usage: python -m bot.health HEARTBEAT_FILE [MAX_AGE_S] (--help for more)",
              file=sys.stderr)
        return 2
    try:
        max_age = float(args[1]) if len(args) == 2 else 60.0
    except ValueError:
        print(f"error: MAX_AGE_S must be a number of seconds, got {args[1]!r}", file=sys.stderr)
        return 2
    age = heartbeat_age_s(args[0])
    if age is None:
        print(f"unhealthy: no heartbeat file at {args[0]}")
        return 1
    try:
        text = open(args[0], encoding="utf-8").read(1000).strip()
    except OSError:
        text = ""
    if text.startswith("unhealthy"):
        print(text)
        return 1
    if age > max_age:
        print(f"unhealthy: last event-stream line {age:.0f} s ago (limit {max_age:.0f} s)")
        return 1
    print(f"healthy: last event-stream line {age:.0f} s ago")
    return 0


if __name__ == "__main__":
    sys.exit(main())
