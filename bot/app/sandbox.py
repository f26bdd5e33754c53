"""``schess-bot --sandbox``: watch the bot play one S-chess game on a loopback server, no account needed.

First the checks of ``schess-bot --check`` (:mod:`bot.app.preflight`) on the real config, but the token and
the account: a config the real run would refuse stops the sandbox too (exit 2). Then it starts the loopback
server (pychess dialect) on 127.0.0.1, starts the bot against it with a throwaway
token, lets the server challenge the bot to one S-chess game whose other side is played by an engine, prints
the moves as they happen and the PGN at the end.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import logging
import secrets
import shutil
import sys
import tempfile
import threading
from pathlib import Path
from typing import Optional, TextIO

from bot.app.logsetup import LogFileError, apply_logging, remove_handlers, sandbox_console_level
from bot.app.preflight import Preflight, run_checks
from bot.app.run import (
    ShutdownSignals,
    StopDuringStartup,
    check_configured_engine,
    interrupted_exit_code,
    run_bot,
    signal_name,
)
from bot.config import ChallengeSettings, DrawSettings, MatchmakingSettings, ServerSettings, Settings
from bot.engines.check import EngineCheckFailed
from bot.lobby.challenges import VARIANT_TEXTS
from bot.lobby.loop import Lobby
from bot.loopback import EngineOpponent, Game, LoopbackServer, MoveRecord, Opponent, RandomMoves
from bot.wire.dialect import PYCHESS
from engine.buildinfo import build_name
from engine.variants import split_variant_name

FAIRY_STOCKFISH_PATHS = ("fairy-stockfish", "/usr/games/fairy-stockfish")
SANDBOX_CLOCK = (60, 1)
DEFAULT_BOT_MOVETIME_MS = 100
#: the config the sandbox reads without --config (as schess-bot does)
DEFAULT_CONFIG = "config.yml"
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


def sandbox_settings(settings: Settings, url: str, pgn_directory: str,
                     variant: str = "seirawan") -> tuple[Settings, str]:
    """The checked real settings made fit for the sandbox, and a description of its engine.

    The engine section, the time and greeting settings are the operator's own; everything that would stop
    the game or touch the outside (server, challenge filters, draw offers, tournaments, token file,
    heartbeat) is replaced, PGNs go to ``pgn_directory``. Without engine limits the bot gets a short move time
    so the game ends within seconds.
    """
    engine = settings.engine
    command = engine.command
    if command == "builtin" and not builtin_engine_available():
        fairy = find_fairy_stockfish()
        if fairy is None:
            raise RuntimeError("the bundled engine is not available and Fairy-Stockfish is not installed")
        engine = dataclasses.replace(engine, command=fairy)
        command = fairy
    limits = engine.limits
    if not (limits.depth or limits.nodes or limits.movetime_ms):
        engine = dataclasses.replace(engine, limits=dataclasses.replace(limits, movetime_ms=DEFAULT_BOT_MOVETIME_MS))
    sandbox = dataclasses.replace(
        settings,
        server=ServerSettings(url=url, dialect=PYCHESS.name),
        engine=engine,
        challenge=ChallengeSettings(concurrency=1, variants=(variant,)),
        draw=DrawSettings(enabled=False),
        matchmaking=MatchmakingSettings(enabled=False),
        pgn_directory=pgn_directory,
        heartbeat_file=None,
        token_file=None,
        tournaments=(),
    )
    return sandbox, command


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


def run_sandbox(args: argparse.Namespace, out: TextIO = sys.stdout, stop: ShutdownSignals | None = None) -> int:
    """Check the config as ``--check`` does (but the token and the account), then play one sandbox game and
    print it; the exit code is 0 when the game was played to its end, 128 + the signal's number when one
    stopped it (130 Ctrl-C, 143 ``SIGTERM``; ``stop``: the process's signal handling), see docs/sandbox.md."""
    handlers: list[logging.Handler] = []
    try:
        return _run_sandbox(args, out, stop, handlers)
    except (KeyboardInterrupt, StopDuringStartup):
        print(f"sandbox: interrupted ({signal_name(stop)})", file=sys.stderr)
        return interrupted_exit_code(stop)
    finally:
        remove_handlers(handlers)


def check_config(args: argparse.Namespace, out: TextIO) -> Optional[Preflight]:
    """The checks on the real config, printed (OK lines on ``out``, FAIL lines on stderr); None when one
    failed. No config file at the default place is fine: the sandbox then plays with the defaults."""
    config_path = getattr(args, "config", None)
    # --pgn-directory is where the sandbox writes (the Docker image passes /games): check that folder, not the
    # config's
    pgn_directory = getattr(args, "pgn_directory", None)
    if config_path is None and not Path(DEFAULT_CONFIG).exists():
        print(f"sandbox: no {DEFAULT_CONFIG} here, so the defaults (schess-bot init writes the commented file)",
              file=out)
        report = run_checks(None, pgn_directory=pgn_directory, account=False)
    else:
        report = run_checks(config_path or DEFAULT_CONFIG, pgn_directory=pgn_directory, account=False)
    for finding in report.findings:
        print(finding.line(), file=out if finding.ok else sys.stderr, flush=True)
    if not report.ok or report.settings is None:
        return None
    print("sandbox: the token and the account are not checked here (schess-bot --check does)", file=out)
    return report


def _run_sandbox(args: argparse.Namespace, out: TextIO, stop: ShutdownSignals | None,
                 handlers: list[logging.Handler]) -> int:
    report = check_config(args, out)
    if report is None:
        return 2
    assert report.settings is not None
    # the log file (logging.file) as the real run writes it; the terminal shows warnings only, unless DEBUG
    try:
        handlers.extend(apply_logging(report.settings.logging,
                                      sandbox_console_level(getattr(args, "log_level", None))))
    except LogFileError as error:
        print(str(error), file=sys.stderr)
        return 2
    token = secrets.token_urlsafe(24)
    variant_name = getattr(args, "variant", None) or "seirawan"  # --variant
    variant, chess960 = split_variant_name(variant_name)
    opponent, opponent_text = sandbox_opponent()
    kept_directory = getattr(args, "pgn_directory", None)  # --pgn-directory: keep the bot's PGN there
    # a fresh seed each run: the game id differs, so a kept PGN folder's state file never says it is over
    with (
        tempfile.TemporaryDirectory(prefix="schess-sandbox-") as temporary_directory,
        LoopbackServer(dialect=PYCHESS.name, token=token, on_move=MovePrinter(out), keepalive_s=1.0,
                       seed=secrets.randbits(32)) as server,
    ):
        pgn_directory = kept_directory or temporary_directory
        try:
            settings, engine_text = sandbox_settings(report.settings, server.url, pgn_directory, variant_name)
        except RuntimeError as error:
            print(f"sandbox: cannot start the bot: {error}", file=sys.stderr)
            opponent.close()
            return 2
        engine_check = report.engine_check
        if (engine_check is None or variant_name not in engine_check.playable
                or settings.engine.command != report.settings.engine.command):
            try:  # before the challenge: a bot whose engine cannot play must not accept the game
                settings, engine_check = check_configured_engine(settings)
            except EngineCheckFailed as error:
                print(str(error), file=sys.stderr)
                opponent.close()
                return 2
        game_id = server.challenge(
            challenger="Sandbox", variant=variant, chess960=chess960, clock=SANDBOX_CLOCK, opponent=opponent
        )
        print(f"sandbox: pychess-style server on {server.url} (127.0.0.1 only, throwaway token)", file=out)
        print(
            f"sandbox: {server.bot.name} (engine: {engine_text}) vs Sandbox ({opponent_text}), "
            f"{VARIANT_TEXTS.get(variant_name, variant_name)} {SANDBOX_CLOCK[0] // 60}+{SANDBOX_CLOCK[1]}",
            file=out,
            flush=True,
        )
        exit_codes: list[int] = []
        lobbies: list[Lobby] = []
        bot_thread = threading.Thread(
            target=lambda: exit_codes.append(run_bot(settings, token, max_games=1, engine_check=engine_check,
                                                     on_lobby=lobbies.append)),
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
        except (KeyboardInterrupt, StopDuringStartup):
            # the bot stops first, quietly (its reconnect warnings would follow the last line otherwise)
            logging.getLogger("bot").setLevel(logging.CRITICAL)
            for lobby in lobbies:
                lobby.request_stop("abort")
            if game_id in server.games:
                server.abort_game(game_id)
            bot_thread.join(timeout=10)
            print(f"sandbox: interrupted ({signal_name(stop)})", file=sys.stderr)
            return interrupted_exit_code(stop)
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
