"""``schess-bot --sandbox``: watch the bot play one S-chess game on a loopback server, no account needed.

Starts the loopback server (pychess dialect) on 127.0.0.1, starts the bot against it with a throwaway
token, lets the server challenge the bot to one S-chess game whose other side is played by an engine, prints
the moves as they happen and the PGN at the end.
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import secrets
import shutil
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Optional, TextIO

import yaml

from bot.loopback import EngineOpponent, Game, LoopbackServer, MoveRecord, Opponent, RandomMoves
from bot.wire.dialect import PYCHESS
from engine.buildinfo import build_name

FAIRY_STOCKFISH_PATHS = ("fairy-stockfish", "/usr/games/fairy-stockfish")
SANDBOX_CLOCK = (60, 1)
DEFAULT_BOT_MOVETIME_MS = 100
GAME_TIMEOUT_S = 150.0

log = logging.getLogger(__name__)


def builtin_engine_available() -> bool:
    """True when the bundled engine can run as ``python -m engine``."""
    try:
        return importlib.util.find_spec("engine.__main__") is not None
    except (ImportError, ValueError):
        return False


def find_fairy_stockfish() -> Optional[str]:
    """The Fairy-Stockfish executable, if installed."""
    for candidate in FAIRY_STOCKFISH_PATHS:
        found = shutil.which(candidate)
        if found:
            return found
    return None


def sandbox_config(config_path: Optional[str], url: str, pgn_directory: str) -> tuple[dict[str, Any], str]:
    """The bot's configuration for the sandbox and a description of its engine.

    The user's config file (if it exists) supplies the engine section; everything that could stop the game
    (server, challenge filters, token file) is replaced. Without engine limits the bot gets a short move time
    so the game ends within seconds.
    """
    data: dict[str, Any] = {}
    if config_path and Path(config_path).is_file():
        loaded = yaml.safe_load(Path(config_path).read_text(encoding="utf-8"))
        if isinstance(loaded, dict):
            data = {key: value for key, value in loaded.items() if key in ("engine", "time", "greeting")}
    engine = dict(data.get("engine") or {})
    command = str(engine.get("command", "builtin"))
    if command == "builtin" and not builtin_engine_available():
        fairy = find_fairy_stockfish()
        if fairy is None:
            raise RuntimeError("the bundled engine is not available and Fairy-Stockfish is not installed")
        engine["command"] = command = fairy
    limits = dict(engine.get("limits") or {})
    if not any(limits.get(key) for key in ("depth", "nodes", "movetime_ms")):
        limits["movetime_ms"] = DEFAULT_BOT_MOVETIME_MS
    engine["limits"] = limits
    data.update(
        {
            "server": {"url": url, "dialect": PYCHESS.name},
            "engine": engine,
            "challenge": {"concurrency": 1, "variants": ["seirawan"]},
            "draw": {"enabled": False},
            "pgn_directory": pgn_directory,
            "heartbeat_file": None,
            "token_file": None,
        }
    )
    return data, command


def sandbox_opponent() -> tuple[Opponent, str]:
    """The weakest quick engine available for the other side (so the game is short), else random moves."""
    if builtin_engine_available():
        return EngineOpponent(
            [sys.executable, "-m", "engine"], movetime_ms=None, depth=1
        ), f"bundled engine, {build_name()}, depth 1"
    fairy = find_fairy_stockfish()
    if fairy is not None:
        return EngineOpponent([fairy], movetime_ms=None, depth=1), "Fairy-Stockfish, depth 1"
    return RandomMoves(secrets.randbelow(10**6)), "random legal moves"


class MovePrinter:
    """Prints each half-move as the server sees it: ``1. Nf3/H`` / ``1... Nc6/E``."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def __call__(self, game: Game, record: MoveRecord) -> None:
        number = (record.ply + (0 if game.first_to_move else 1) + 1) // 2
        white_moved = (record.ply % 2 == 1) == bool(game.first_to_move)
        who = game.bot_player.name if record.by == "bot" else game.opponent_player.name
        prefix = f"{number}." if white_moved else f"{number}..."
        print(f"  {prefix:<6}{record.san:<10} {who}", file=self.out, flush=True)


def run_sandbox(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """Play one sandbox game and print it; the exit code is 0 when the game was played to its end."""
    from bot.app.run import check_configured_engine, run_bot
    from bot.config import ConfigError, settings_from_dict
    from bot.engines.check import EngineCheckFailed

    if getattr(args, "log_level", "INFO") != "DEBUG":
        logging.getLogger("bot").setLevel(logging.WARNING)
    token = secrets.token_urlsafe(24)
    opponent, opponent_text = sandbox_opponent()
    kept_directory = getattr(args, "pgn_directory", None)  # --pgn-directory: keep the bot's PGN there
    with (
        tempfile.TemporaryDirectory(prefix="schess-sandbox-") as temporary_directory,
        LoopbackServer(dialect=PYCHESS.name, token=token, on_move=MovePrinter(out), keepalive_s=1.0) as server,
    ):
        pgn_directory = kept_directory or temporary_directory
        try:
            data, engine_text = sandbox_config(getattr(args, "config", None), server.url, pgn_directory)
            settings = settings_from_dict(data)
        except (RuntimeError, ConfigError, OSError, yaml.YAMLError) as error:
            print(f"sandbox: cannot start the bot: {error}", file=sys.stderr)
            opponent.close()
            return 2
        try:  # before the challenge: a bot whose engine cannot play must not accept the game
            settings, engine_check = check_configured_engine(settings)
        except EngineCheckFailed as error:
            print(str(error), file=sys.stderr)
            opponent.close()
            return 2
        game_id = server.challenge(
            challenger="Sandbox", variant="seirawan", clock=SANDBOX_CLOCK, opponent=opponent
        )
        print(f"sandbox: pychess-style server on {server.url} (127.0.0.1 only, throwaway token)", file=out)
        print(
            f"sandbox: {server.bot.name} (engine: {engine_text}) vs Sandbox ({opponent_text}), "
            f"S-chess {SANDBOX_CLOCK[0] // 60}+{SANDBOX_CLOCK[1]}",
            file=out,
            flush=True,
        )
        exit_codes: list[int] = []
        bot_thread = threading.Thread(
            target=lambda: exit_codes.append(run_bot(settings, token, max_games=1, engine_check=engine_check)),
            name="sandbox-bot",
            daemon=True,
        )
        bot_thread.start()
        try:
            game = server.wait_for_game_end(game_id, GAME_TIMEOUT_S)
        except TimeoutError:
            print(f"sandbox: the game did not finish within {GAME_TIMEOUT_S:g} s", file=sys.stderr)
            if game_id in server.games:
                server.abort_game(game_id)
            return 1
        except KeyboardInterrupt:
            print("sandbox: interrupted", file=sys.stderr)
            return 130
        bot_thread.join(timeout=15)
        print(f"sandbox: {game.result()} ({game.termination})", file=out)
        print("", file=out)
        # the bot's own record (its evaluations, clocks and stand-in marks); the server's if it wrote none
        bot_pgn = Path(pgn_directory) / f"{game.id}.pgn"
        print(bot_pgn.read_text(encoding="utf-8").rstrip("\n") if bot_pgn.is_file() else game.pgn(), file=out,
              flush=True)
        if kept_directory:
            print(f"sandbox: the bot's PGN is in {Path(kept_directory) / (game.id + '.pgn')}", file=out)
        if exit_codes and exit_codes[0] != 0:
            print(f"sandbox: the bot exited with code {exit_codes[0]}", file=sys.stderr)
            return exit_codes[0]
        return 0
