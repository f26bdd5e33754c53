"""Container health check: is the bot's event stream alive, and can it play?

``python -m bot.app.health PATH [MAX_AGE_S]`` exits 0 when the heartbeat file (touched by the bot on every
event-stream line, keep-alives included) was modified in the last MAX_AGE_S seconds (default 60) and does not
say ``unhealthy``, else 1. The servers send a keep-alive every 6-7 s, so a minute of silence means the stream
is dead and the bot has not managed to reconnect. The bot writes ``unhealthy: ...`` into the file while no
engine works (a game's engine failed for good; see docs/bot.md, "When the engine fails").
"""

from __future__ import annotations

import os
import sys
import time


def heartbeat_age_s(path: str, now: float | None = None) -> float | None:
    """Seconds since the heartbeat file was last touched, or None when it does not exist."""
    try:
        modified = os.path.getmtime(path)
    except OSError:
        return None
    return (time.time() if now is None else now) - modified


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or len(args) > 2:
        print("usage: python -m bot.app.health HEARTBEAT_FILE [MAX_AGE_S]", file=sys.stderr)
        return 2
    max_age = float(args[1]) if len(args) == 2 else 60.0
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
