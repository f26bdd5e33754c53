"""``schess-bot`` / ``python -m bot``: load the config, log in, run the lobby until stopped.

``schess-bot --check`` runs every start-up check and plays nothing (:mod:`bot.app.preflight`),
``schess-bot --sandbox`` plays one local game (:mod:`bot.app.sandbox`), ``schess-bot init`` writes the
commented sample config (:mod:`bot.app.init`).

Exit codes: 0 after a normal stop (signal, ``--games N``), 1 when the server refuses the bot for good,
2 for a configuration or token problem (one line on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from bot.app.logsetup import (
    LogFileError,
    apply_logging,
    configure_logging,
    remove_handlers,
    sandbox_console_level,
    version_text,
)
from bot.app.preflight import load_run_settings, run_checks
from bot.app.run import ShutdownSignals, StopDuringStartup, interrupted_exit_code, run_bot, signal_name
from bot.config import ConfigError, TokenError, resolve_token
from engine.variants import VARIANT_NAMES

log = logging.getLogger("bot")


class RedactingFilter(logging.Filter):
    """Replaces the token wherever it appears in a log record (a safety net: the code never logs it)."""

    def __init__(self, secret: str) -> None:
        super().__init__()
        self.secret = secret

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secret:
            return True
        message = record.getMessage()
        if self.secret in message:
            record.msg = message.replace(self.secret, "[redacted]")
            record.args = None
        if record.exc_info and record.exc_info[1] is not None and self.secret in str(record.exc_info[1]):
            record.exc_text = None
            record.exc_info = None
            record.msg = str(record.msg) + " [exception details redacted]"
        return True


def install_redaction(secret: str) -> RedactingFilter:
    """Attach the filter to every handler of the root logger (handlers see records of all loggers) and of the
    engine's own logger (``logging.engine_file``)."""
    redactor = RedactingFilter(secret)
    for handler in [*logging.getLogger().handlers, *logging.getLogger("bot.engine.io").handlers]:
        handler.addFilter(redactor)
    return redactor


#: the config read when --config is not given
DEFAULT_CONFIG = "config.yml"
LOG_LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="schess-bot", description="Play S-chess (and chess) on pychess.org or Lichess.",
        epilog="schess-bot init [PATH] [--server pychess|lichess] writes the commented sample config; "
               "schess-bot init --help for its options. Exit codes: 0 normal stop, 1 the server refused the "
               "bot for good, 2 a configuration, engine or token problem; --check: 0 all checks passed, 2 not.")
    parser.add_argument("--version", action="version", version=version_text(),
                        help="print the bot's version, the engine build and the Python, then exit")
    parser.add_argument("--config", default=None, metavar="PATH",
                        help=f"YAML configuration file (default: {DEFAULT_CONFIG})")
    parser.add_argument("--check", action="store_true",
                        help="check the config, folders, engine, token and account, one line each; play nothing")
    parser.add_argument("--log-level", default=None, type=str.upper, choices=LOG_LEVELS,
                        help="log verbosity on stderr, in any case (default: logging.level of the config, INFO)")
    parser.add_argument("--games", type=int, default=None, metavar="N",
                        help="quit after N finished games")
    parser.add_argument("--upgrade", action="store_true", help="upgrade the account to a BOT account first")
    parser.add_argument("--heartbeat-file", default=None, metavar="PATH",
                        help="file touched on every event-stream line (overrides heartbeat_file; "
                             "the Docker HEALTHCHECK reads it)")
    parser.add_argument("--pgn-directory", default=None, metavar="DIR",
                        help="folder for the PGN of every finished game (overrides pgn_directory)")
    parser.add_argument("--tournament", action="append", default=[], metavar="ID",
                        help="join this Lichess arena or Swiss tournament (its id or address) at start, besides "
                             "the config's tournaments; repeat it for more")
    parser.add_argument("--sandbox", action="store_true",
                        help="check the config, then play one game against the engine on a local loopback "
                             "server (no account needed)")
    parser.add_argument("--variant", default=None, choices=VARIANT_NAMES,
                        help="with --sandbox: the variant of the game (default: seirawan)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``schess-bot`` and ``python -m bot``; returns the exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["init"]:
        from bot.app.init import main as init_main

        return init_main(arguments[1:])
    stop = ShutdownSignals()
    restore = stop.install()  # first thing: a stop request must work during start-up too
    try:
        return _main(arguments, stop)
    except StopDuringStartup:
        print("stopped before the bot started playing", file=sys.stderr)
        return 0
    finally:
        restore()


def _main(argv: list[str], stop: ShutdownSignals) -> int:
    args = build_parser().parse_args(argv)
    configure_logging(sandbox_console_level(args.log_level) if args.sandbox else args.log_level or "INFO")
    if args.games is not None and args.games < 1:
        print("error: --games must be a positive number", file=sys.stderr)
        return 2
    if args.variant is not None and not args.sandbox:
        print("error: --variant only goes with --sandbox", file=sys.stderr)
        return 2
    if args.sandbox:
        if args.games is not None or args.check or args.upgrade or args.tournament:
            used = [flag for flag, on in (("--games", args.games is not None), ("--check", args.check),
                                          ("--upgrade", args.upgrade), ("--tournament", bool(args.tournament)))
                    if on]
            print(f"error: {', '.join(used)} cannot be used with --sandbox (it checks the config itself, "
                  "then plays one game)", file=sys.stderr)
            return 2
        try:
            from bot.app.sandbox import run_sandbox  # imported only when asked for: it brings the loopback server
        except StopDuringStartup:
            print(f"sandbox: interrupted ({signal_name(stop)})", file=sys.stderr)
            return interrupted_exit_code(stop)
        return int(run_sandbox(args, stop=stop))
    config_path = args.config or DEFAULT_CONFIG
    if args.check:
        return print_checks(config_path, args)
    try:
        settings = load_run_settings(config_path, pgn_directory=args.pgn_directory,
                                     heartbeat_file=args.heartbeat_file, tournaments=args.tournament)
        token = resolve_token(settings)
    except ConfigError as error:
        print(str(error), file=sys.stderr)
        return 2
    except TokenError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        log_handlers = apply_logging(settings.logging, args.log_level)
    except LogFileError as error:
        print(str(error), file=sys.stderr)
        return 2
    redactor = install_redaction(token)
    try:
        return run_bot(settings, token, max_games=args.games, upgrade=args.upgrade, stop=stop)
    finally:
        for handler in [*logging.getLogger().handlers, *logging.getLogger("bot.engine.io").handlers]:
            handler.removeFilter(redactor)
        remove_handlers(log_handlers)


def print_checks(config_path: str, args: argparse.Namespace) -> int:
    """``--check``: one line per check on stdout; 0 when all passed, 2 otherwise."""
    root = logging.getLogger()
    level = root.level
    if args.log_level is None:
        root.setLevel(logging.ERROR)  # the checks' own lines say it all
    try:
        report = run_checks(config_path, pgn_directory=args.pgn_directory, heartbeat_file=args.heartbeat_file,
                            tournaments=args.tournament)
    finally:
        root.setLevel(level)
    for finding in report.findings:
        print(finding.line(), flush=True)
    print(report.summary())
    return 0 if report.ok else 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
