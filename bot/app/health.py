"""Container health check: is the bot's event stream alive, and can it play?

``python -m bot.health http://HOST:PORT [MAX_AGE_S]`` asks the status page instead (where
``status.listen`` is set): 0 when ``/api/status`` answers within 5 s, says ``healthy`` (connected, an engine
works) and the event stream's last line is at most MAX_AGE_S old; else 1.

``python -m bot.health PATH [MAX_AGE_S]`` (``--help``) exits 0 when the heartbeat file (touched by the bot on every
event-stream line, keep-alives included) was modified in the last MAX_AGE_S seconds (default 60) and does not
say ``unhealthy``, else 1. The servers send a keep-alive every 6-7 s, so a minute of silence means the stream
is dead and the bot has not managed to reconnect. The bot writes ``unhealthy: ...`` into the file while no
engine works (a game's engine failed for good; see docs/bot.md, "When the engine fails").
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.request

USAGE = """usage: python -m bot.health HEARTBEAT_FILE|http://HOST:PORT [MAX_AGE_S]

The Docker health check: exit 0 when the bot is healthy, else exit 1 with one line saying why; exit 2 for a
wrong command line.

  HEARTBEAT_FILE    healthy when the bot touched the file (schess-bot --heartbeat-file) within MAX_AGE_S
                    seconds (default 60) and the file does not say "unhealthy"
  http://HOST:PORT  where the status page is on (status.listen): healthy when /api/status answers within 5 s,
                    the event stream is connected with a line in the last MAX_AGE_S seconds, and an engine
                    works (compose.yaml: python3 -m bot.health http://127.0.0.1:8080 60)"""


def heartbeat_age_s(path: str, now: float | None = None) -> float | None:
    """Seconds since the heartbeat file was last touched, or None when it does not exist."""
    try:
        modified = os.path.getmtime(path)
    except OSError:
        return None
    return (time.time() if now is None else now) - modified


def page_health(url: str, max_age: float, timeout_s: float = 5.0) -> tuple[int, str]:
    """(exit code, line) from the status page's ``/api/status`` at ``url`` (the page's base address)."""
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/api/status", timeout=timeout_s) as answer:  # noqa: S310
            status = json.loads(answer.read(2_000_000))
    except (OSError, ValueError) as error:
        return 1, f"unhealthy: the status page at {url} does not answer ({error})"
    health = str(status.get("health", {}).get("text", "?"))
    if not status.get("connection", {}).get("connected"):
        return 1, f"unhealthy: the event stream is not connected ({status['connection'].get('note') or '?'})"
    if health.startswith("unhealthy"):
        return 1, health
    age = status["connection"].get("last_line_s")
    if age is None or age > max_age:
        return 1, f"unhealthy: last event-stream line {age} s ago (limit {max_age:.0f} s)"
    return 0, f"healthy: last event-stream line {age:.0f} s ago (status page)"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if not args or len(args) > 2 or args[0].startswith("-"):
        usage = "usage: python -m bot.health HEARTBEAT_FILE|http://HOST:PORT [MAX_AGE_S] (--help for more)"
        print(f"{usage}; got {' '.join(args)!r}" if args else usage, file=sys.stderr)
        return 2
    try:
        max_age = float(args[1]) if len(args) == 2 else 60.0
    except ValueError:
        print(f"error: MAX_AGE_S must be a number of seconds, got {args[1]!r}", file=sys.stderr)
        return 2
    if args[0].startswith(("http://", "https://")):
        code, line = page_health(args[0], max_age)
        print(line)
        return code
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
