"""``python -m tools.status_bench``: how fast the status page answers while the bot is busy (a benchmark, not a
test; docs/status.md has the figures).

The real bot (in this process, as the end-to-end tests run it) plays on a loopback server with the page on:
two games at once against random movers, the engine thinking ``--movetime-ms`` on every move, so both cores
stay busy; a new challenge comes whenever fewer than two games run. Meanwhile one client asks for ``/`` and
``/api/status`` in turn (a new connection each time, as the page's script does) and the latency of each
answer taken while two games ran is kept. Prints the median, 90th percentile and maximum per path.

``--screenshot FILE`` also saves a picture of the page (headless Chromium through selenium, from the test
extra) at the end, with two games running and the finished ones below.

``--idle N`` measures memory instead: the bot as its own process (``python -m bot``) with the page on and one
game running, its resident memory (``VmRSS``) before and while this process holds ``N`` half-open connections
to the page (``GET / HTTP/1.1`` and nothing more), and how long ``/api/status`` takes meanwhile.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import yaml

from bot import SERVER_KINDS
from bot.app.status.http import raise_open_file_limit
from bot.config import settings_from_dict
from bot.loopback import EngineOpponent, LoopbackServer, Opponent, RandomMoves


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def timed_get(port: int, path: str) -> tuple[float, bytes]:
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path)
        body = connection.getresponse().read()
    finally:
        connection.close()
    return time.perf_counter() - started, body


def screenshot(url: str, path: str, ready: Callable[[], bool]) -> None:
    """Open the page in headless Chromium, wait until ``ready()``, and save the whole page as a PNG."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1500",
                     "--hide-scrollbars"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(url)
        time.sleep(2)
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(1280, min(2400, int(height) + 20))
        while not ready():
            time.sleep(0.1)
        time.sleep(1.3)  # the page's next poll
        driver.save_screenshot(path)
    finally:
        driver.quit()


def resident_kib(pid: int) -> int:
    """The process's resident memory (``VmRSS``) in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def half_open_connections(port: int, count: int) -> list[socket.socket]:
    """``count`` connections opened at once (not one after the other: on a busy machine that takes longer
    than the page's deadline), each sending ``GET / HTTP/1.1`` and nothing more."""
    connections = []
    for _ in range(count):
        connection = socket.socket()
        connection.setblocking(False)
        connection.connect_ex(("127.0.0.1", port))
        connections.append(connection)
    with selectors.DefaultSelector() as selector:
        for connection in connections:
            selector.register(connection, selectors.EVENT_WRITE)
        pending = len(connections)
        while pending:
            for key, _ in selector.select(10):
                selector.unregister(key.fileobj)
                pending -= 1
                key.fileobj.send(b"GET / HTTP/1.1\r\n")  # type: ignore[union-attr]
    return connections


def measure_idle(count: int, dialect: Literal["pychess", "lichess"]) -> int:
    """``--idle``: the bot's resident memory with the page on, then with ``count`` half-open connections."""
    raise_open_file_limit()
    port = free_port()
    folder = Path(tempfile.mkdtemp(prefix="status-idle-"))
    repo = Path(__file__).resolve().parents[1]
    with LoopbackServer(dialect=dialect, token="bench-token", keepalive_s=2.0) as server:
        config = folder / "config.yml"
        config.write_text(yaml.safe_dump({
            "server": {"url": server.url, "dialect": dialect}, "engine": {"limits": {"movetime_ms": 200}},
            "pgn_directory": str(folder / "games"), "status": {"listen": f"127.0.0.1:{port}"}}))
        environment = dict(os.environ, SCHESS_BOT_TOKEN="bench-token", PYTHONPATH=str(repo))
        bot = subprocess.Popen([sys.executable, "-m", "bot", "--config", str(config), "--log-level", "WARNING"],
                               env=environment, cwd=folder)
        idle: list[socket.socket] = []
        try:
            server.challenge(challenger="Alice", clock=(3600, 0), opponent=RandomMoves(seed=1))
            deadline = time.monotonic() + 120
            while True:
                assert time.monotonic() < deadline, "the bot did not start its game"
                try:
                    if len(json.loads(timed_get(port, "/api/status")[1])["games"]) == 1:
                        break
                except OSError:
                    pass
                time.sleep(0.5)
            time.sleep(3)  # a few moves in, the page asked for a few times
            for _ in range(3):
                timed_get(port, "/")
            before, fds = resident_kib(bot.pid), open_fds(bot.pid)
            idle = half_open_connections(port, count)
            accepted_by = time.monotonic() + 4  # each is cut at its deadline, 5 s after it was accepted
            while open_fds(bot.pid) < fds + count and time.monotonic() < accepted_by:
                time.sleep(0.01)
            accepted = open_fds(bot.pid) - fds
            answered_s, _ = timed_get(port, "/api/status")
            held = resident_kib(bot.pid)
            still_held = open_fds(bot.pid) - fds
        finally:
            for connection in idle:
                connection.close()
            bot.terminate()
            bot.wait(30)
    print(f"the bot (python -m bot, pid {bot.pid}) with the page on and one game running: {before / 1024:.1f} MiB "
          f"resident")
    print(f"  with {count} half-open connections held: {held / 1024:.1f} MiB "
          f"(+{(held - before) / 1024:.1f} MiB, {(held - before) / count:.1f} KiB a connection); "
          f"/api/status answered in {answered_s * 1000:.0f} ms meanwhile")
    print(f"  the bot's open files: {fds} before, +{accepted} once accepted, +{still_held} after the answer")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.status_bench", description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to measure (default 60)")
    parser.add_argument("--movetime-ms", type=int, default=300, help="the engine's time per move (default 300)")
    parser.add_argument("--dialect", choices=SERVER_KINDS, default="pychess")
    parser.add_argument("--screenshot", metavar="FILE", help="save a picture of the page at the end")
    parser.add_argument("--min-finished", type=int, default=0,
                        help="play on until this many games have finished")
    parser.add_argument("--opponent", choices=("random", "engine"), default="random",
                        help="random moves (default) or the bundled engine at 100 ms a move (longer games)")
    parser.add_argument("--idle", type=int, metavar="N",
                        help="measure the bot's memory with N half-open connections instead (see above)")
    args = parser.parse_args(argv)
    if args.idle:
        return measure_idle(args.idle, args.dialect)

    from bot.app.run import run_bot

    port = free_port()
    folder = Path(tempfile.mkdtemp(prefix="status-bench-"))
    with LoopbackServer(dialect=args.dialect, token="bench-token", keepalive_s=2.0) as server:
        config = {
            "server": {"url": server.url, "dialect": args.dialect},
            "engine": {"limits": {"movetime_ms": args.movetime_ms}},
            "challenge": {"concurrency": 2, "decline_message": ""},
            "resign": {"enabled": False}, "draw": {"enabled": False},
            "pgn_directory": str(folder), "status": {"listen": f"127.0.0.1:{port}"},
        }
        lobbies: list[Any] = []
        bot = threading.Thread(target=run_bot, args=(settings_from_dict(config), "bench-token"),
                               kwargs={"on_lobby": lobbies.append}, daemon=True)
        bot.start()
        names = iter(f"{name}{n}" for n in range(1000) for name in ("Alice", "Bob"))
        seed = iter(range(1000))

        def opponent() -> Opponent:
            return RandomMoves(seed=next(seed)) if args.opponent == "random" else EngineOpponent(movetime_ms=100)
        samples: dict[str, list[float]] = {"/": [], "/api/status": []}
        created: dict[str, float] = {}

        def top_up() -> None:
            """Challenge again until two games run or are about to start."""
            running = sum(1 for game in list(server.games.values()) if not game.over)
            now = time.monotonic()
            coming = sum(1 for challenge_id, at in created.items()
                         if challenge_id not in server.games and now - at < 15)
            if running + coming < 2:
                challenge_id = server.challenge(challenger=next(names), clock=(300, 3), opponent=opponent())
                created[challenge_id] = now

        started = time.monotonic()
        finished = 0
        while not lobbies or time.monotonic() - started < args.seconds or finished < args.min_finished:
            top_up()
            try:
                status_s, body = timed_get(port, "/api/status")
                page_s, _ = timed_get(port, "/")
            except OSError:
                time.sleep(0.2)  # the page is not up yet
                continue
            status = json.loads(body)
            finished = len(status["finished"])
            if len(status["games"]) == 2 and time.monotonic() - started < args.seconds:
                samples["/api/status"].append(status_s)
                samples["/"].append(page_s)
            time.sleep(0.05)
        if args.screenshot:
            def ready() -> bool:
                """Both games a few moves in, neither near its end."""
                top_up()
                return sum(1 for game in list(server.games.values())
                           if not game.over and 16 <= len(game.moves) < 40) == 2

            screenshot(f"http://127.0.0.1:{port}/", args.screenshot, ready)
        lobbies[0].request_stop("abort")
        bot.join(30)
    print(f"two games running, engine movetime {args.movetime_ms} ms, {args.seconds:g} s:")
    for path, values in samples.items():
        if not values:
            print(f"  {path}: no sample with two games running")
            continue
        values.sort()
        ninety = values[min(len(values) - 1, int(len(values) * 0.9))]
        print(f"  GET {path:<12} {len(values):4d} answers: median {statistics.median(values) * 1000:.1f} ms, "
              f"90% {ninety * 1000:.1f} ms, max {values[-1] * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
