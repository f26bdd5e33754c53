"""Running the real bot against a loopback server, as the end-to-end tests and ``python -m tools.soak`` do: a
config for it, the bot as users run it (a ``python -m bot`` process), and a record of the moves it sends.

Nothing of the bot itself imports this; it drives the bot from outside, through its command line and config.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import yaml

import bot
from bot.loopback.answers import Reply

if TYPE_CHECKING:
    from bot.loopback.server import LoopbackServer

#: where the ``bot`` package lies (the repository in a checkout): the bot process imports this very bot
SOURCE_ROOT = Path(bot.__file__).resolve().parents[1]


def merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Nested dict update (config sections)."""
    result = dict(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merge(result[key], value)
        else:
            result[key] = value
    return result


def bot_config(loopback: LoopbackServer, pgn_directory: Path, engine_command: str = "builtin",
               engine_limits: Optional[dict[str, Any]] = None, **overrides: Any) -> dict[str, Any]:
    """A config for the bot against the ``loopback`` server: ``engine_command`` with ``engine_limits`` (none: it
    plays by the clock), a fast stream watchdog, one game at a time, no resigning or draws, PGNs in
    ``pgn_directory``; ``overrides`` are config sections merged in (``engine={...}`` among them)."""
    base: dict[str, Any] = {
        "server": {
            "url": loopback.url,
            "dialect": loopback.dialect,
            "request_timeout_s": 5,
            "stream_timeout_s": 5,
        },
        "engine": {"command": engine_command, "limits": dict(engine_limits or {})},
        "time": {"move_overhead_ms": 100},
        # the reason key on both servers, so a decision can be asserted; pychess.org gets free text by default
        "challenge": {"concurrency": 1, "decline_message": ""},
        "resign": {"enabled": False},
        "draw": {"enabled": False},
        "pgn_directory": str(pgn_directory),
    }
    return merge(base, overrides)


class BotProcess:
    """The bot as users run it: ``python -m bot --config FILE`` (the ``schess-bot`` command) with the token in
    the environment; its output goes to ``bot-N.log`` in ``workdir`` (N: the N-th start)."""

    def __init__(self, config: dict[str, Any], workdir: Path, *extra_args: str, token: str,
                 patience_s: float = 10.0) -> None:
        self.config_path = workdir / "config.yml"
        self.config_path.write_text(yaml.safe_dump(config))
        self.workdir = workdir
        self.extra_args = extra_args
        self.token = token
        self.patience_s = patience_s
        self.process: Optional[subprocess.Popen[bytes]] = None
        self.runs = 0

    def start(self) -> BotProcess:
        env = dict(os.environ, SCHESS_BOT_TOKEN=self.token)
        env["PYTHONPATH"] = os.pathsep.join([str(SOURCE_ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        self.runs += 1
        log = open(self.workdir / f"bot-{self.runs}.log", "wb")  # noqa: SIM115 - closed with the process
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bot", "--config", str(self.config_path), *self.extra_args],
            cwd=self.workdir,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        return self

    def kill(self) -> None:
        """SIGKILL: the bot dies without a chance to clean up, as in a crash or a power cut."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(self.patience_s)

    def wait(self, timeout: float) -> int:
        assert self.process is not None
        return self.process.wait(timeout)

    def stop(self) -> Optional[int]:
        """SIGTERM, then SIGKILL if it is not gone within ``patience_s``; the exit code (None: never started)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(self.patience_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return None if self.process is None else self.process.returncode

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace") for p in sorted(self.workdir.glob("bot-*.log")))


@dataclass(frozen=True)
class MoveRequest:
    """A move request as it reached the server: the game, the move, and how many plies the game had then."""

    uci: str
    plies: int
    game_id: str = ""


def record_move_requests(server: LoopbackServer, game_id: Optional[str] = None) -> list[MoveRequest]:
    """Every move request (for ``game_id`` only, if given), with the server's ply count when it arrived
    (filled as they come; a request for a game the server does not know is left out)."""
    requests: list[MoveRequest] = []
    real_move = server.api_move

    def api_move(requested_id: str, uci: str, offering_draw: bool) -> Reply:
        if game_id in (None, requested_id):
            with server.lock:
                game = server.games.get(requested_id)
                if game is not None:
                    requests.append(MoveRequest(uci, len(game.moves), requested_id))
        return real_move(requested_id, uci, offering_draw)

    server.api_move = api_move  # type: ignore[method-assign,assignment]
    return requests


def sent_into_a_new_position(requests: list[MoveRequest]) -> list[MoveRequest]:
    """Moves sent again after the opponent's reply: in one game, the same move as the request before it,
    arriving two or more plies later (it landed, the opponent answered, and it went out again into the new
    position)."""
    found = []
    for _, of_game in itertools.groupby(sorted(requests, key=lambda r: r.game_id), key=lambda r: r.game_id):
        found += [later for earlier, later in itertools.pairwise(of_game)
                  if later.uci == earlier.uci and later.plies >= earlier.plies + 2]
    return found
